"""The lead sheet: the song's melody with chord symbols, key and time signature,
tempo and a rehearsal mark at every section, as MusicXML 4.0 (partwise) that
MuseScore, Dorico, Finale and music21 open.

Written with xml.etree from the song alone: the melody is the lead part (or the
highest melodic part when there is none), reduced to one voice (the highest note
wins, a note stops where the next starts), quantized to sixteenths and tied
across barlines. Chord symbols come from `chords` (beat, symbol) when the
caller knows them — compose does, from its harmony plan — or else from the
chords part, named bar by bar from its pitch classes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from bandstand.errors import BandstandError
from bandstand.score import Song, Track
from bandstand.theory import FLAT_NAMES, SHARP_NAMES, parse_note_name

__all__ = ["chords_from_track", "lead_sheet", "melody_track"]

DIVISIONS = 4  # sixteenths per quarter
_TYPES = {1: ("16th", 0), 2: ("eighth", 0), 3: ("eighth", 1), 4: ("quarter", 0), 6: ("quarter", 1),
          8: ("half", 0), 12: ("half", 1), 16: ("whole", 0), 24: ("whole", 1)}
# chord suffix → MusicXML kind (the longest matching suffix wins; the full symbol is kept as text)
_KINDS = (("maj13", "major-13th"), ("maj9", "major-ninth"), ("maj7", "major-seventh"), ("m7b5", "half-diminished"),
          ("mmaj7", "major-minor"), ("m13", "minor-13th"), ("m11", "minor-11th"), ("m9", "minor-ninth"),
          ("m7", "minor-seventh"), ("m6", "minor-sixth"), ("dim7", "diminished-seventh"), ("dim", "diminished"),
          ("aug", "augmented"), ("sus4", "suspended-fourth"), ("sus2", "suspended-second"), ("13", "dominant-13th"),
          ("11", "dominant-11th"), ("9", "dominant-ninth"), ("7", "dominant"), ("6", "major-sixth"),
          ("m", "minor"), ("5", "power"), ("", "major"))
_TEMPLATES = (("", (0, 4, 7)), ("m", (0, 3, 7)), ("7", (0, 4, 7, 10)), ("maj7", (0, 4, 7, 11)),
              ("m7", (0, 3, 7, 10)), ("dim", (0, 3, 6)), ("sus4", (0, 5, 7)), ("5", (0, 7)))
_MISSING = 0.02
"""What a chord tone the bar does not sound costs (a share of the bar's weight): a bare root and
fifth is a power chord ("E5"), not a major triad, while a full triad still beats the dyad."""


def melody_track(song: Song) -> Track | None:
    """The part the lead sheet follows: the lead, else the melodic part with the highest mean pitch."""
    melodic = [t for t in song.tracks if not t.is_drum and t.notes]
    lead = next((t for t in melodic if t.role == "lead"), None)
    return lead or max(melodic, key=lambda t: sum(n.pitch for n in t.notes) / len(t.notes), default=None)


def _root_name(pc: int, key: str | None) -> str:
    """A chord root as the song's key spells it (C#m7 in C# minor, Dbmaj7 in Ab major: theory's
    speller); flats when the song has no key (or one the speller does not read)."""
    import contextlib

    from bandstand.theory import spell_root

    # a key the speller does not read falls through to the flat names, as without a key
    with contextlib.suppress(BandstandError):
        if key:
            return spell_root(pc, key)
    return FLAT_NAMES[pc % 12]


def chords_from_track(song: Song, track: Track | None) -> list[tuple[float, str]]:
    """A chord symbol per bar named from the pitch classes the track sounds in it, its root spelled
    for the song's key (None: no chords)."""
    if track is None:
        return []
    bpb = song.beats_per_bar
    bars = song.length_bars
    weights = [[0.0] * 12 for _ in range(bars)]
    lowests: list[int | None] = [None] * bars
    mapped = bool(song.metre_changes)  # bars of several lengths: the metre map says where each starts

    def bar_of(beat: float) -> int:
        return song.beat_to_bar(beat) - 1 if mapped else int(beat // bpb)

    def begins(bar: int) -> float:
        return song.bar_to_beat(bar + 1) if mapped else bar * bpb

    for n in track.notes:  # each note visits only the bars it sounds in
        for bar in range(max(0, bar_of(n.start)), min(bars, bar_of(n.end) + 1)):
            start, end = begins(bar), begins(bar + 1)
            overlap = min(n.end, end) - max(n.start, start)
            if overlap > 0:
                weights[bar][n.pitch % 12] += overlap
                low = lowests[bar]
                lowests[bar] = n.pitch if low is None or n.pitch < low else low
    out: list[tuple[float, str]] = []
    for bar in range(bars):
        start, weight, lowest = begins(bar), weights[bar], lowests[bar]
        if lowest is None:
            continue
        total = sum(weight)
        best = max((((inside := sum(weight[(root + i) % 12] for i in tones)) - 0.5 * (total - inside)
                     - _MISSING * total * sum(1 for i in tones if weight[(root + i) % 12] == 0)
                     + (0.01 if root == lowest % 12 else 0.0), root, suffix)
                    for root in range(12) for suffix, tones in _TEMPLATES), key=lambda r: r[0])
        symbol = _root_name(best[1], song.key) + best[2]
        if not out or out[-1][1] != symbol:
            out.append((start, symbol))
    return out


def _fifths(song: Song) -> tuple[int, str]:
    from bandstand.midi import key_signature

    sig = key_signature(song.key) if song.key else None
    return (sig.sharps, "minor" if sig.minor else "major") if sig else (0, "major")


def _pitch(parent: ET.Element, midi: int, flats: bool) -> None:
    spelled = parse_note_name((FLAT_NAMES if flats else SHARP_NAMES)[midi % 12])  # theory's names, once
    pitch = ET.SubElement(parent, "pitch")
    ET.SubElement(pitch, "step").text = spelled.pc_name[0]
    if spelled.alter:
        ET.SubElement(pitch, "alter").text = str(spelled.alter)
    ET.SubElement(pitch, "octave").text = str(midi // 12 - 1)


def _pieces(length: int) -> list[int]:
    """A length in sixteenths as note values that exist (tied together)."""
    out = []
    while length > 0:
        piece = max(v for v in _TYPES if v <= length)
        out.append(piece)
        length -= piece
    return out


def _harmony(measure: ET.Element, symbol: str, offset: int) -> None:
    m = re.match(r"^([A-G])([#b]?)(.*?)(?:/([A-G])([#b]?))?$", symbol.strip())
    if not m:
        return
    harmony = ET.SubElement(measure, "harmony")
    root = ET.SubElement(harmony, "root")
    ET.SubElement(root, "root-step").text = m.group(1)
    if m.group(2):
        ET.SubElement(root, "root-alter").text = "1" if m.group(2) == "#" else "-1"
    suffix = m.group(3)
    kind = next(k for s, k in _KINDS if suffix.startswith(s))
    ET.SubElement(harmony, "kind", {"text": suffix}).text = kind
    if m.group(4):
        bass = ET.SubElement(harmony, "bass")
        ET.SubElement(bass, "bass-step").text = m.group(4)
        if m.group(5):
            ET.SubElement(bass, "bass-alter").text = "1" if m.group(5) == "#" else "-1"
    if offset:
        ET.SubElement(harmony, "offset").text = str(offset)


def _line(track: Track | None) -> list[tuple[int, int, int]]:
    """One voice in sixteenths: (start, length, pitch), the highest note winning at an onset."""
    if track is None:
        return []
    starts: dict[int, int] = {}
    for n in track.notes:
        at = round(n.start * DIVISIONS)
        starts[at] = max(starts.get(at, 0), n.pitch)
    ends = {round(n.start * DIVISIONS): round(n.end * DIVISIONS) for n in sorted(track.notes, key=lambda n: n.pitch)}
    order = sorted(starts)
    out = []
    for i, at in enumerate(order):
        stop = min(ends[at], order[i + 1]) if i + 1 < len(order) else ends[at]
        if stop > at:
            out.append((at, stop - at, starts[at]))
    return out


def lead_sheet(song: Song, chords: Sequence[tuple[float, str]] | None = None) -> bytes:
    """The lead sheet of `song` as MusicXML bytes (UTF-8, with the XML declaration and doctype)."""
    track = melody_track(song)
    if chords is None:
        chords = chords_from_track(song, next((t for t in song.tracks if t.role == "chords"), None))
    fifths, mode = _fifths(song)
    flats = fifths < 0
    bar_len = round(song.beats_per_bar * DIVISIONS)
    bars = max(1, song.length_bars)
    root = ET.Element("score-partwise", {"version": "4.0"})
    work = ET.SubElement(root, "work")
    ET.SubElement(work, "work-title").text = song.title or "Untitled"
    ident = ET.SubElement(root, "identification")
    enc = ET.SubElement(ident, "encoding")
    ET.SubElement(enc, "software").text = "bandstand"
    parts = ET.SubElement(root, "part-list")
    sp = ET.SubElement(parts, "score-part", {"id": "P1"})
    ET.SubElement(sp, "part-name").text = track.name if track else "Melody"
    part = ET.SubElement(root, "part", {"id": "P1"})
    notes = _line(track)
    sections = {round(song.bar_to_beat(s.start_bar) * DIVISIONS): s.name for s in song.sections}
    changes = sorted((round(b * DIVISIONS), s) for b, s in chords)
    ni = 0
    metres = {c.bar: c.time_signature for c in song.metre_map()[1:]}
    for bar in range(bars):
        start, end = bar * bar_len, (bar + 1) * bar_len
        if song.metre_changes:  # each bar as long as its metre makes it
            start, end = round(song.bar_to_beat(bar + 1) * DIVISIONS), round(song.bar_to_beat(bar + 2) * DIVISIONS)
        measure = ET.SubElement(part, "measure", {"number": str(bar + 1)})
        if bar + 1 in metres:  # the metre changes here: a time signature of its own
            time = ET.SubElement(ET.SubElement(measure, "attributes"), "time")
            ET.SubElement(time, "beats").text = str(metres[bar + 1].numerator)
            ET.SubElement(time, "beat-type").text = str(metres[bar + 1].denominator)
        if bar == 0:
            attrs = ET.SubElement(measure, "attributes")
            ET.SubElement(attrs, "divisions").text = str(DIVISIONS)
            key = ET.SubElement(attrs, "key")
            ET.SubElement(key, "fifths").text = str(fifths)
            ET.SubElement(key, "mode").text = mode
            time = ET.SubElement(attrs, "time")
            ET.SubElement(time, "beats").text = str(song.time_signature.numerator)
            ET.SubElement(time, "beat-type").text = str(song.time_signature.denominator)
            clef = ET.SubElement(attrs, "clef")
            ET.SubElement(clef, "sign").text = "G"
            ET.SubElement(clef, "line").text = "2"
            direction = ET.SubElement(measure, "direction", {"placement": "above"})
            kind = ET.SubElement(ET.SubElement(direction, "direction-type"), "metronome")
            ET.SubElement(kind, "beat-unit").text = "quarter"
            ET.SubElement(kind, "per-minute").text = f"{song.tempo:g}"
            ET.SubElement(direction, "sound", {"tempo": f"{song.tempo:g}"})
        if start in sections:
            direction = ET.SubElement(measure, "direction", {"placement": "above"})
            ET.SubElement(ET.SubElement(direction, "direction-type"), "rehearsal").text = sections[start]
        for at, symbol in changes:
            if start <= at < end:
                _harmony(measure, symbol, 0)
        # notes and rests filling the bar exactly
        pos = start
        while pos < end:
            while ni < len(notes) and notes[ni][0] + notes[ni][1] <= pos:
                ni += 1
            current = notes[ni] if ni < len(notes) and notes[ni][0] <= pos else None
            if current is None:
                nxt = notes[ni][0] if ni < len(notes) else end
                length, pitch = min(nxt, end) - pos, None
            else:
                length, pitch = min(current[0] + current[1], end) - pos, current[2]
            pieces = _pieces(length)
            tied_in = current is not None and current[0] < pos
            for k, piece in enumerate(pieces):
                note = ET.SubElement(measure, "note")
                if pitch is None:
                    ET.SubElement(note, "rest")
                else:
                    _pitch(note, pitch, flats)
                ET.SubElement(note, "duration").text = str(piece)
                ties = []
                if pitch is not None and (tied_in or k > 0):
                    ties.append("stop")
                if pitch is not None and (k < len(pieces) - 1 or (current is not None and current[0] + current[1] > end
                                                                  and k == len(pieces) - 1)):
                    ties.append("start")
                for t in ties:
                    ET.SubElement(note, "tie", {"type": t})
                name, dots = _TYPES[piece]
                ET.SubElement(note, "type").text = name
                for _ in range(dots):
                    ET.SubElement(note, "dot")
                if ties:
                    notations = ET.SubElement(note, "notations")
                    for t in ties:
                        ET.SubElement(notations, "tied", {"type": t})
            pos += length
    ET.indent(root)
    doctype = ('<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" '
               '"http://www.musicxml.org/dtds/partwise.dtd">\n')
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + doctype + body + "\n").encode("utf-8")
