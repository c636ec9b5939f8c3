"""Song → Standard MIDI File bytes (format 1, 480 PPQ).

Track 0 is the conductor: title, tempo map, time signature, key signature,
section and song markers, plus one text event holding what MIDI cannot say
(track roles, explicit channels, section lengths and energies, and the exact
names). Names and markers are written in latin-1, the encoding most readers
(mido, DAWs) take MIDI text to be, with what latin-1 lacks spelled in ASCII
("—" as "-"); bandstand's reader restores the exact names. Each part
follows in its own track: name, program, then its channel events. Channel
events are laid out with numpy (sort, delta times, variable-length
quantities) so a 100-bar, five-part song encodes in a few milliseconds."""

from __future__ import annotations

import json
import struct
import unicodedata
from typing import Any

import numpy as np
import numpy.typing as npt

from bandstand.errors import InvalidInput
from bandstand.midi._keys import key_signature
from bandstand.score import Song, Track, assign_channels

PPQ = 480
META_TEXT, META_TRACK_NAME, META_MARKER = 0x01, 0x03, 0x06
META_TEMPO, META_TIME_SIGNATURE, META_KEY_SIGNATURE, META_END = 0x51, 0x58, 0x59, 0x2F
BANDSTAND_TAG = "bandstand:"
MAX_DELTA = 0x0FFFFFFF
NOTE_OFF_VELOCITY = 64

# Order of channel events that share a tick: program, controls, bends, note-offs,
# note-ons, then pressure (so poly aftertouch follows the note it presses).
_ORDER_PROGRAM, _ORDER_CC, _ORDER_BEND, _ORDER_OFF, _ORDER_ON, _ORDER_AT, _ORDER_POLY = range(7)

IntArray = npt.NDArray[np.int64]


# What latin-1 lacks, spelled in ASCII (anything else: its letters without accents, or "?").
_SPELLED = str.maketrans({"—": "-", "–": "-", "‐": "-", "‑": "-", "−": "-", "‘": "'", "’": "'", "‚": ",",
                          "“": '"', "”": '"', "„": '"', "…": "...", "♯": "#", "♭": "b", "♮": "", "→": "->",
                          "•": "*", "€": "EUR"})


def _latin1(char: str) -> str:
    if ord(char) < 256:
        return char
    bare = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return bare if bare and all(ord(c) < 256 for c in bare) else "?"


def midi_text(text: str) -> bytes:
    """`text` as MIDI text bytes that any reader decodes as written: latin-1, with what it
    lacks spelled in ASCII ("Burial — late-night" is "Burial - late-night", not "â\x80\x94")."""
    return "".join(_latin1(c) for c in text.translate(_SPELLED)).encode("latin-1")


def text_of(data: bytes) -> str:
    """What bandstand's reader makes of text bytes (UTF-8 if they are, else latin-1)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def written_as(text: str) -> str:
    """What `text` reads as once written to a file (its latin-1 spelling)."""
    return text_of(midi_text(text))


def beats_to_ticks(beats: float, ppq: int = PPQ) -> int:
    """Beats → ticks, rounded to the nearest tick."""
    return round(beats * ppq)


def _vlq(value: int) -> bytes:
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def _meta(delta: int, kind: int, data: bytes) -> bytes:
    return _vlq(delta) + bytes((0xFF, kind)) + _vlq(len(data)) + data


def _chunk(data: bytes) -> bytes:
    return b"MTrk" + struct.pack(">I", len(data)) + data


def _metadata(song: Song) -> dict[str, Any]:
    data: dict[str, Any] = {
        "tracks": [{"role": t.role, "drum": t.is_drum, "channel": t.channel} for t in song.tracks],
        "sections": [[s.name, s.start_bar, s.bars, s.energy] for s in song.sections],
    }
    sig = key_signature(song.key) if song.key else None
    if song.key and (sig is None or sig.name != song.key):
        data["key"] = song.key
    changes = song.key_map()[1:]
    if changes:  # the key map by name (a key signature cannot say "D dorian")
        data["keys"] = [[c.beat, c.key] for c in changes]
    # the exact names of those whose file text reads otherwise, by place (by what they read as,
    # "?" could stand for two names, or for a name that is "?" itself)
    exact: dict[str, Any] = {}
    if written_as(song.title) != song.title:
        exact["title"] = song.title
    tracks = {str(i): t.name for i, t in enumerate(song.tracks) if written_as(t.name) != t.name}
    if tracks:
        exact["tracks"] = tracks
    markers = [m.text for m in sorted(song.markers, key=lambda m: beats_to_ticks(m.beat))]  # as read
    if any(written_as(text) != text for text in markers):
        exact["markers"] = markers
    if exact:
        data["exact"] = exact
    return data


def _conductor(song: Song) -> bytes:
    """Track 0: meta events only, sorted by tick (a stable sort keeps the written order)."""
    events: list[tuple[int, int, bytes]] = []  # (tick, kind, data)
    events.append((0, META_TRACK_NAME, midi_text(song.title)))
    text = BANDSTAND_TAG + json.dumps(_metadata(song), separators=(",", ":"))
    events.append((0, META_TEXT, text.encode("ascii")))
    for metre in song.metre_map():  # the opening metre, then a time signature where the metre changes
        ts = metre.time_signature
        events.append((beats_to_ticks(song.bar_to_beat(metre.bar)), META_TIME_SIGNATURE,
                       bytes((ts.numerator, ts.denominator.bit_length() - 1, 24, 8))))
    for shift in song.key_map():  # the opening key, then a key signature where the key changes
        sig = key_signature(shift.key)
        if sig is not None:
            events.append((beats_to_ticks(shift.beat), META_KEY_SIGNATURE,
                           struct.pack(">bB", sig.sharps, 1 if sig.minor else 0)))
    for change in song.tempo_map():
        micros = round(60_000_000 / change.bpm)
        events.append((beats_to_ticks(change.beat), META_TEMPO, micros.to_bytes(3, "big")))
    for section in song.sections:
        tick = beats_to_ticks(song.bar_to_beat(section.start_bar))
        events.append((tick, META_MARKER, midi_text(section.name)))
    for marker in song.markers:
        events.append((beats_to_ticks(marker.beat), META_MARKER, midi_text(marker.text)))
    events.sort(key=lambda e: e[0])
    out = bytearray()
    now = 0
    for tick, kind, data in events:
        out += _meta(tick - now, kind, data)
        now = tick
    end = max(now, beats_to_ticks(song.length_beats))
    out += _meta(end - now, META_END, b"")
    return bytes(out)


def _columns(rows: list[tuple[float, ...]], width: int) -> npt.NDArray[np.float64]:
    return np.array(rows, dtype=np.float64).reshape(len(rows), width)


def _channel_events(track: Track, channel: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """(ticks, order, 3 data bytes per event, sizes) for every channel event of `track`."""
    ticks: list[IntArray] = []
    order: list[IntArray] = []
    data: list[IntArray] = []
    sizes: list[IntArray] = []

    def add(t: IntArray, kind: int, status: int, d1: IntArray, d2: IntArray | None) -> None:
        n = len(t)
        ticks.append(t)
        order.append(np.full(n, kind, dtype=np.int64))
        d2v = np.zeros(n, dtype=np.int64) if d2 is None else d2
        data.append(np.stack([np.full(n, status | channel, dtype=np.int64), d1, d2v], axis=1))
        sizes.append(np.full(n, 2 if d2 is None else 3, dtype=np.int64))

    one = np.zeros(1, dtype=np.int64)
    add(one, _ORDER_PROGRAM - 1, 0xC0, one + track.program, None)
    if track.notes:
        ns = track.notes  # one list per field is faster than an array of tuples
        start = np.rint(np.array([n.start for n in ns]) * PPQ).astype(np.int64)
        length = np.maximum(np.rint(np.array([n.duration for n in ns]) * PPQ).astype(np.int64), 1)
        pitch = np.array([n.pitch for n in ns], dtype=np.int64)
        velocity = np.array([n.velocity for n in ns], dtype=np.int64)
        add(start + length, _ORDER_OFF, 0x80, pitch, np.full(len(pitch), NOTE_OFF_VELOCITY))
        add(start, _ORDER_ON, 0x90, pitch, velocity)
    if track.controls:
        a = _columns([(c.time, c.control, c.value) for c in track.controls], 3)
        add(np.rint(a[:, 0] * PPQ).astype(np.int64), _ORDER_CC, 0xB0,
            a[:, 1].astype(np.int64), a[:, 2].astype(np.int64))
    if track.pitch_bends:
        a = _columns([(b.time, b.value + 8192) for b in track.pitch_bends], 2)
        raw = a[:, 1].astype(np.int64)
        add(np.rint(a[:, 0] * PPQ).astype(np.int64), _ORDER_BEND, 0xE0, raw & 0x7F, raw >> 7)
    if track.aftertouch:
        a = _columns([(p.time, p.value) for p in track.aftertouch], 2)
        add(np.rint(a[:, 0] * PPQ).astype(np.int64), _ORDER_AT, 0xD0, a[:, 1].astype(np.int64), None)
    if track.poly_aftertouch:
        a = _columns([(p.time, p.pitch, p.value) for p in track.poly_aftertouch], 3)
        add(np.rint(a[:, 0] * PPQ).astype(np.int64), _ORDER_POLY, 0xA0,
            a[:, 1].astype(np.int64), a[:, 2].astype(np.int64))
    if track.program_changes:
        a = _columns([(p.time, p.program) for p in track.program_changes], 2)
        add(np.rint(a[:, 0] * PPQ).astype(np.int64), _ORDER_PROGRAM, 0xC0, a[:, 1].astype(np.int64), None)
    return np.concatenate(ticks), np.concatenate(order), np.concatenate(data), np.concatenate(sizes)


def _encode(ticks: IntArray, order: IntArray, data: IntArray, sizes: IntArray) -> tuple[bytes, int]:
    """Sorted, delta-timed channel events as bytes, and the tick of the last one."""
    idx = np.lexsort((order, ticks))  # stable: equal (tick, order) keep their list order
    ticks, data, sizes = ticks[idx], data[idx], sizes[idx]
    delta = np.diff(ticks, prepend=0)
    if len(ticks) and int(ticks[-1]) > MAX_DELTA:
        raise InvalidInput("the song is too long for a MIDI file (more than 2^28 ticks)")
    nbytes = 1 + (delta >= 1 << 7) + (delta >= 1 << 14) + (delta >= 1 << 21)
    total = nbytes + sizes
    offsets = np.cumsum(total) - total
    out = np.zeros(int(total.sum()), dtype=np.uint8)
    for k in range(4):
        mask = nbytes > k
        nb, d = nbytes[mask], delta[mask]
        shift = 7 * (nb - 1 - k)
        out[offsets[mask] + k] = ((d >> shift) & 0x7F) | np.where(k < nb - 1, 0x80, 0)
    for j in range(3):
        mask = sizes > j
        out[offsets[mask] + nbytes[mask] + j] = data[mask, j]
    return out.tobytes(), int(ticks[-1]) if len(ticks) else 0


def _part(track: Track, channel: int) -> bytes:
    body, _ = _encode(*_channel_events(track, channel))
    return _meta(0, META_TRACK_NAME, midi_text(track.name)) + body + _meta(0, META_END, b"")


def song_to_midi_bytes(song: Song) -> bytes:
    """The song as a format-1 Standard MIDI File at 480 PPQ (see the module docstring)."""
    channels = assign_channels(song)
    chunks = [_chunk(_conductor(song))]
    chunks += [_chunk(_part(t, c)) for t, c in zip(song.tracks, channels, strict=True)]
    header = b"MThd" + struct.pack(">IHHH", 6, 1, len(chunks), PPQ)
    return header + b"".join(chunks)
