"""Writer: a song → a Strudel program that plays it note for note (one cycle = one bar).

Unlike `to_pattern`, which writes a phrase as a musician would read it, this writer is
exact: every onset, length and velocity of the song at the MIDI file's resolution (480
ticks a beat) is in the code. Each part is a pattern of its own (`const bass = …`), its
sections put in order with `arrange([bars, pattern], …)` (silence where the part rests),
and the parts stacked on the last line. Inside a section a part is one or more lanes of
mini-notation whose steps are weighted in ticks (`"c2@3 ~ eb2@2"`), a bar a cycle
(`"<[c2@3 ~] [eb2@2 ~@2]!3>"`) or, where a note crosses a bar line, one sequence slowed to
the section's bars; notes struck together with the same length and velocity are one chord (`[c3,eb3,g3]`).
Velocities are `.velocity(…)` (velocity/127, to four decimals, so MIDI's value comes back),
pitched parts play Strudel's GM soundfont of their program (`.s("gm_acoustic_bass")`), drums
are Strudel's drum-machine names (`s("bd ~ hh")`), and the tempo is `setcpm(bpm / beats a
bar)`: the song's first tempo (later tempo changes are not written).

Strudel has no metre: a song whose metre map changes (4/4 with a 3/4 bridge) is written with
one cycle = the longest note value that divides every bar (a beat for 4/4 and 3/4, an eighth
with 7/8), its sections counted in those cycles, so every note still falls where it is.

A note that runs past the end of its section is cut at the section's end, and drum keys that
share a Strudel name (35 and 36 are both `bd`) come back as that name's key.
"""

from __future__ import annotations

import itertools
import keyword
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bandstand.craft.to_pattern import DRUM_SOUNDS, OTHER_DRUM, note_name
from bandstand.midi import STRUDEL_SOUNDFONTS, beats_to_ticks
from bandstand.score import Note, Song, Track

__all__ = ["Span", "clip_to_strudel", "drum_sound", "song_spans", "to_strudel", "track_to_strudel"]

# Names the program itself calls: a part must not be named after one of them.
_CALLED = frozenset({"setcpm", "arrange", "stack", "silence", "note", "s", "velocity", "slow"})


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of whole bars of the song written as one `arrange` entry: `start_bar` is 1-based."""

    name: str
    start_bar: int
    bars: int


@dataclass(frozen=True, slots=True)
class _Strike:
    start: int  # ticks from the span's start
    length: int  # ticks
    token: str
    velocity: int


def drum_sound(key: int) -> str:
    """Strudel's drum-machine name for GM drum key `key` ("perc" for keys without one)."""
    return DRUM_SOUNDS.get(key, OTHER_DRUM)


def song_spans(song: Song) -> list[Span]:
    """The song's sections when they tile its bars from bar 1 (the last one stretched to the
    last note), else one span of the whole song."""
    bar_ticks = beats_to_ticks(song.beats_per_bar)
    last = max((beats_to_ticks(n.start) for t in song.tracks for n in t.notes), default=0)
    total = max(1, last // bar_ticks + 1, sum(s.bars for s in song.sections))
    sections = sorted(song.sections, key=lambda s: s.start_bar)
    bar = 1
    spans = []
    for section in sections:
        if section.start_bar != bar or section.bars < 1:
            return [Span("song", 1, total)]
        spans.append(Span(section.name, bar, section.bars))
        bar += section.bars
    if not spans:
        return [Span("song", 1, total)]
    if bar <= total:
        tail = spans.pop()
        spans.append(Span(tail.name, tail.start_bar, total - tail.start_bar + 1))
    return spans


def _strikes(notes: Sequence[Note], begin: int, end: int, drums: bool) -> list[_Strike]:
    """The notes starting in [begin, end) ticks, cut at `end`, chords merged."""
    chords: dict[tuple[int, int, int], list[int]] = {}
    for n in notes:
        start = beats_to_ticks(n.start)
        if begin <= start < end:
            length = min(max(1, beats_to_ticks(n.duration)), end - start)  # as the MIDI writer rounds it
            chords.setdefault((start - begin, length, n.velocity), []).append(n.pitch)
    strikes = []
    for (start, length, velocity), pitches in sorted(chords.items()):
        names = [drum_sound(p) if drums else note_name(p) for p in sorted(pitches)]  # a doubled note is struck twice
        token = names[0] if len(names) == 1 else f"[{','.join(names)}]"
        strikes.append(_Strike(start, length, token, velocity))
    return strikes


def _lanes(strikes: list[_Strike]) -> list[list[_Strike]]:
    """Strikes shared out to as few lanes as possible, none overlapping within a lane."""
    lanes: list[list[_Strike]] = []
    for strike in strikes:
        for lane in lanes:
            if lane[-1].start + lane[-1].length <= strike.start:
                lane.append(strike)
                break
        else:
            lanes.append([strike])
    return lanes


def _velocity(v: int) -> str:
    return f"{v / 127:.4f}".rstrip("0").rstrip(".")


def _sequence(strikes: list[_Strike], ticks: int) -> tuple[str, str]:
    """Strikes (non-overlapping, from 0) over `ticks` as mini-notation steps weighted in the
    coarsest unit that holds them: the notes' text and the velocities' text, step for step."""
    unit = math.gcd(ticks, *(x for s in strikes for x in (s.start, s.length)))
    steps: list[tuple[str, str, int]] = []  # token, velocity, weight
    cursor = 0
    for strike in strikes:
        if strike.start > cursor:
            steps.append(("~", "~", (strike.start - cursor) // unit))
        steps.append((strike.token, _velocity(strike.velocity), strike.length // unit))
        cursor = strike.start + strike.length
    if cursor < ticks:
        steps.append(("~", "~", (ticks - cursor) // unit))

    def text(column: int) -> str:
        return " ".join(f"{step[column]}" + (f"@{step[2]}" if step[2] != 1 else "") for step in steps)

    return text(0), text(1)


def _by_bar(lane: list[_Strike], bar_ticks: int, bars: int) -> list[list[_Strike]] | None:
    """The lane's strikes bar by bar (times from each bar's start), or None when one crosses a bar line."""
    out: list[list[_Strike]] = [[] for _ in range(bars)]
    for strike in lane:
        bar = strike.start // bar_ticks
        if strike.start + strike.length > (bar + 1) * bar_ticks:
            return None
        out[bar].append(_Strike(strike.start - bar * bar_ticks, strike.length, strike.token, strike.velocity))
    return out


def _lane_code(lane: list[_Strike], span_ticks: int, bars: int, drums: bool) -> str:
    """One lane as `note("…")` (or `s("…")`) with its velocities over `bars` cycles: a bar a cycle
    (`<[bar] [bar]!3 …>`, a bar repeated in a row written once) when no note crosses a bar line,
    else one sequence slowed to the bars."""
    split = _by_bar(lane, span_ticks // bars, bars) if bars > 1 else None
    if split is None:
        notes, velocities = _sequence(lane, span_ticks)
        slow = f".slow({bars})" if bars != 1 else ""
    else:
        cells = [_sequence(bar, span_ticks // bars) if bar else ("~", "~") for bar in split]
        runs: list[tuple[tuple[str, str], int]] = []
        for cell in cells:
            if runs and runs[-1][0] == cell:
                runs[-1] = (cell, runs[-1][1] + 1)
            else:
                runs.append((cell, 1))

        def column(i: int) -> str:
            return "<" + " ".join(f"[{cell[i]}]" + (f"!{n}" if n > 1 else "") for cell, n in runs) + ">"

        notes, velocities, slow = column(0), column(1), ""
    velocity = f"({_velocity(lane[0].velocity)})" if len({s.velocity for s in lane}) == 1 else f'("{velocities}")'
    return f'{"s" if drums else "note"}("{notes}").velocity{velocity}{slow}'


def _span_code(track: Track, span: Span, bar_ticks: int) -> str:
    begin, ticks = (span.start_bar - 1) * bar_ticks, span.bars * bar_ticks
    lanes = _lanes(_strikes(track.notes, begin, begin + ticks, track.is_drum))
    if not lanes:
        return "silence"
    codes = [_lane_code(lane, ticks, span.bars, track.is_drum) for lane in lanes]
    if len(codes) == 1:
        return codes[0]
    return "stack(\n      " + ",\n      ".join(codes) + ",\n    )"


def track_to_strudel(track: Track, spans: Sequence[Span], beats_per_bar: float) -> str:
    """One part as a Strudel expression: its spans arranged, with its sound."""
    bar_ticks = beats_to_ticks(beats_per_bar)
    entries = [f"  [{span.bars}, {_span_code(track, span, bar_ticks)}],  // {span.name}" for span in spans]
    body = "arrange(\n" + "\n".join(entries) + "\n)"
    if track.is_drum:
        return body
    return f'{body}.s("{STRUDEL_SOUNDFONTS[track.program]}")'


def clip_to_strudel(track: Track, beats_per_bar: float) -> str:
    """One track as a Strudel expression without sections (a clip: bar 1 to its last note's bar),
    with its sound — what `bandstand pattern from-midi` prints."""
    bar_ticks = beats_to_ticks(beats_per_bar)
    last = max((beats_to_ticks(n.start) for n in track.notes), default=0)
    code = _span_code(track, Span("clip", 1, last // bar_ticks + 1), bar_ticks)
    return code if track.is_drum else f'{code}.s("{STRUDEL_SOUNDFONTS[track.program]}")'


def _identifier(name: str, taken: set[str]) -> str:
    base = re.sub(r"\W+", "_", name.strip().lower()).strip("_") or "part"
    if base[0].isdigit():
        base = f"part_{base}"
    if base in _CALLED or keyword.iskeyword(base) or base in ("const", "let", "var", "new", "function"):
        base = f"{base}_part"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return candidate


def _metre_cycles(song: Song, spans: Sequence[Span]) -> tuple[list[Span], float]:
    """`spans` (in bars of a changing metre) counted in cycles of the longest note value that
    divides every bar, and that value in beats."""
    last = max((s.start_bar + s.bars for s in spans), default=2)
    starts = [beats_to_ticks(song.bar_to_beat(bar)) for bar in range(1, last + 1)]
    unit = 0
    for a, b in itertools.pairwise(starts):
        unit = math.gcd(unit, b - a)
    unit = unit or beats_to_ticks(song.beats_per_bar)
    cycles = [Span(s.name, starts[s.start_bar - 1] // unit + 1,
                   (starts[s.start_bar + s.bars - 1] - starts[s.start_bar - 1]) // unit) for s in spans]
    return cycles, unit / beats_to_ticks(1.0)


def to_strudel(song: Song) -> str:
    """The song as a Strudel program (see the module docstring)."""
    spans = song_spans(song)
    ts = song.time_signature
    beats = song.beats_per_bar
    form = ", ".join(f"{s.name} ({s.bars})" for s in spans)
    cycle = "one cycle = one bar"
    if song.metre_changes:
        metres = ", ".join(f"{c.time_signature} from bar {c.bar}" for c in song.metre_map()[1:])
        spans, beats = _metre_cycles(song, spans)
        cycle = f"one cycle = {beats:g} beat{'s' if beats != 1 else ''} (the metre changes: {metres})"
    lines = [
        f"// {song.title or 'untitled'} — exported by bandstand. Paste into https://strudel.cc and press Ctrl+Enter.",
        f"// {song.key or 'key unknown'} · {song.tempo:g} BPM · {ts.numerator}/{ts.denominator} · {cycle}",
        f"// form (bars): {form}",
        f"setcpm({song.tempo:g} / {beats:g})",
        "",
    ]
    taken: set[str] = set()
    names = []
    for track in song.tracks:
        if not track.notes:
            continue
        name = _identifier(track.name or track.role, taken)
        names.append(name)
        sound = "drums" if track.is_drum else f"{track.role}, GM program {track.program}"
        lines += [f"// {track.name} ({sound})", f"const {name} = {track_to_strudel(track, spans, beats)}", ""]
    lines.append(f"stack({', '.join(names)})" if names else "silence")
    return "\n".join(lines) + "\n"
