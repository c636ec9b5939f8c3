"""A musical diff in words, one line per part: what a listener would notice
between two versions of a song.

    bass: 42 → 71 notes, same roots, adds 16ths (2 → 30 off the 8th grid), Chorus 1 5.0 → 9.5 notes/bar
    drums: unchanged
    lead: register up 12 semitones (mean C5 → C6), roots changed in 6 of 32 bars (bars 9–12, 17)
    pad: notes unchanged; volume 1 → 0.8

It compares note counts, the root of each bar (the lowest note starting in
it), the rhythm grid (onsets on beats, 8ths, 16ths, triplets), register,
velocity, note length and density per section; mix and sound changes are
named too. Drums are described by instrument (kick, snare, hats…) instead of
roots and register.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bandstand.errors import TheoryError
from bandstand.score import DRUM_PIECES
from bandstand.score.metre_map import MetreMap, move_beat
from bandstand.studio.model import Project, Track
from bandstand.theory import midi_to_note

__all__ = ["describe_changes", "diff_lines"]

_DRUM_FAMILIES = DRUM_PIECES  # the kit's pieces: one table, in midi.gm
_GRID = (("beats", 1.0), ("8ths", 0.5), ("16ths", 0.25), ("triplets", 1 / 3), ("32nds", 0.125))


def _pitch_name(pitch: float, key: str | None = None) -> str:
    """A pitch spelled for the song's key (G#3 in F# minor, Ab3 in Bb major), by theory's speller;
    a key it cannot read spells as theory does without one."""
    p = round(pitch)
    try:
        return midi_to_note(p, key)
    except TheoryError:
        return midi_to_note(p)


@dataclass(frozen=True, slots=True)
class _N:
    start: float
    pitch: int
    duration: float
    velocity: int


def _notes(track: Track) -> list[_N]:
    out = [_N(r.start_beat + n.start, n.pitch, n.duration, n.velocity) for r in track.regions for n in r.notes]
    out.sort(key=lambda n: (n.start, n.pitch))
    return out


def _grid(beat: float) -> str:
    frac = beat % 1.0
    for name, step in _GRID:
        k = frac / step
        if abs(k - round(k)) < 0.02:
            return name
    return "free"


def _grid_counts(notes: Sequence[_N]) -> Counter[str]:
    return Counter(_grid(n.start) for n in notes)


def _roots(notes: Sequence[_N], bar_of: Callable[[float], int]) -> dict[int, int]:
    """Each bar's root as a bass player states it: the lowest note of the bar's first onset (an approach
    or passing note a busier line adds later in the bar, even below it, does not move the root)."""
    first: dict[int, tuple[float, int]] = {}
    for n in notes:
        bar = bar_of(n.start)
        if bar not in first or (n.start, n.pitch) < first[bar]:
            first[bar] = (n.start, n.pitch)
    return {bar: pitch % 12 for bar, (_, pitch) in first.items()}


def _bar_ranges(bars: Sequence[int], limit: int = 4) -> str:
    runs: list[tuple[int, int]] = []
    for b in sorted(bars):
        if runs and b == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))
    text = ", ".join(f"{a}–{b}" if a != b else f"{a}" for a, b in runs[:limit])
    return text + (", …" if len(runs) > limit else "")


def _roots_phrase(old: Sequence[_N], new: Sequence[_N], bar_of: Callable[[float], int]) -> str | None:
    a, b = _roots(old, bar_of), _roots(new, bar_of)
    shared = sorted(set(a) & set(b))
    if not shared:
        return None
    changed = [bar for bar in shared if a[bar] != b[bar]]
    if not changed:
        return "same roots"
    if len(changed) == len(shared):
        return "new roots throughout"
    return f"roots changed in {len(changed)} of {len(shared)} bars (bars {_bar_ranges(changed)})"


def _rhythm_phrase(old: Sequence[_N], new: Sequence[_N]) -> str | None:
    a, b = _grid_counts(old), _grid_counts(new)
    parts = []
    for name in ("16ths", "triplets", "32nds", "free"):
        before, after = a[name], b[name]
        label = "off-grid onsets" if name == "free" else name
        if after > before and after >= max(3, 2 * before):
            if name == "16ths":
                label = "16th pickups" if _pickups(new) else "16ths"
                parts.append(f"adds {label} ({before} → {after} off the 8th grid)")
            else:
                parts.append(f"adds {label} ({before} → {after})")
        elif before > after and before >= max(3, 2 * after):
            parts.append(f"drops {label} ({before} → {after})")
    return ", ".join(parts) or None


def _pickups(notes: Sequence[_N]) -> bool:
    """Most 16th onsets sit on the last 16th before a beat."""
    sixteenths = [n for n in notes if _grid(n.start) == "16ths"]
    late = [n for n in sixteenths if abs(n.start % 1.0 - 0.75) < 0.02]
    return bool(sixteenths) and len(late) >= 0.6 * len(sixteenths)


def _register_phrase(old: Sequence[_N], new: Sequence[_N], key: str | None = None) -> str | None:
    ma = sum(n.pitch for n in old) / len(old)
    mb = sum(n.pitch for n in new) / len(new)
    shift = round(mb - ma)
    if abs(shift) >= 3:
        way = "up" if shift > 0 else "down"
        return f"register {way} {abs(shift)} semitones (mean {_pitch_name(ma, key)} → {_pitch_name(mb, key)})"
    lo_a, hi_a = min(n.pitch for n in old), max(n.pitch for n in old)
    lo_b, hi_b = min(n.pitch for n in new), max(n.pitch for n in new)
    if (hi_b - lo_b) - (hi_a - lo_a) >= 7:
        return f"wider range ({_pitch_name(lo_b, key)}–{_pitch_name(hi_b, key)})"
    if (hi_a - lo_a) - (hi_b - lo_b) >= 7:
        return f"narrower range ({_pitch_name(lo_b, key)}–{_pitch_name(hi_b, key)})"
    return None


def _feel_phrase(old: Sequence[_N], new: Sequence[_N]) -> list[str]:
    out = []
    va = sum(n.velocity for n in old) / len(old)
    vb = sum(n.velocity for n in new) / len(new)
    if abs(vb - va) >= 8:
        out.append(f"{'louder' if vb > va else 'softer'} (velocity {va:.0f} → {vb:.0f})")
    da = sum(n.duration for n in old) / len(old)
    db = sum(n.duration for n in new) / len(new)
    if da > 0 and (db / da >= 1.5 or db / da <= 0.67):
        out.append(f"{'longer' if db > da else 'shorter'} notes ({da:.2g} → {db:.2g} beats)")
    return out


def _count_between(starts: Sequence[float], lo: float, hi: float) -> int:
    """How many of the sorted `starts` fall in lo..hi (end exclusive)."""
    return max(0, bisect_left(starts, hi) - bisect_left(starts, lo))


def _density_phrase(project: Project, old: Sequence[_N], new: Sequence[_N]) -> str | None:
    rows = []
    # each section counts its notes by binary search, not by a scan of the whole part
    old_starts, new_starts = sorted(n.start for n in old), sorted(n.start for n in new)
    for s in project.sections:
        lo, hi = project.bar_to_beat(s.start_bar), project.bar_to_beat(s.end_bar)
        a = _count_between(old_starts, lo, hi) / s.bars
        b = _count_between(new_starts, lo, hi) / s.bars
        if abs(b - a) >= max(0.5, 0.25 * max(a, b)):
            rows.append((abs(b - a), f"{s.name} {a:.1f} → {b:.1f} notes/bar"))
    if not rows:
        return None
    rows.sort(key=lambda r: -r[0])
    more = f" (+{len(rows) - 3} sections)" if len(rows) > 3 else ""
    return ", ".join(text for _, text in rows[:3]) + more


def _drum_phrase(old: Sequence[_N], new: Sequence[_N]) -> str | None:
    def family(p: int) -> str:
        return next((f for f, keys in _DRUM_FAMILIES.items() if p in keys), "other")
    a, b = Counter(family(n.pitch) for n in old), Counter(family(n.pitch) for n in new)
    parts = []
    for f in [*_DRUM_FAMILIES, "other"]:
        if a[f] != b[f] and (a[f] == 0 or b[f] == 0 or abs(b[f] - a[f]) >= max(2, 0.2 * a[f])):
            parts.append(f"{f} {a[f]} → {b[f]}")
    return ", ".join(parts) or None


def _mix_phrase(a: Track, b: Track) -> list[str]:
    out = []
    for name in ("volume", "pan"):
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            out.append(f"{name} {va:g} → {vb:g}")
    for flag in ("mute", "solo"):
        if getattr(a, flag) != getattr(b, flag):
            out.append(f"{flag}d" if getattr(b, flag) else f"un{flag}d")
    if (a.program, a.drum_kit) != (b.program, b.drum_kit):
        out.append(f"sound {a.program if a.program is not None else a.drum_kit} → "
                   f"{b.program if b.program is not None else b.drum_kit}")
    if a.inserts != b.inserts:
        out.append(f"effects {'+'.join(e.type for e in a.inserts) or 'none'} → "
                   f"{'+'.join(e.type for e in b.inserts) or 'none'}")
    if a.sends != b.sends:
        out.append("sends changed")
    if a.automation != b.automation:
        out.append("automation changed")
    if a.name != b.name:
        out.append(f"renamed from '{a.name}'")
    return out


def _describe_notes(project: Project, track: Track, old: list[_N], new: list[_N]) -> list[str]:
    parts = [f"{len(old)} → {len(new)} notes" if len(old) != len(new) else f"{len(new)} notes, rewritten"]
    if not old or not new:
        return parts
    bpb = project.beats_per_bar

    def bar_of(beat: float) -> int:
        return project.beat_to_bar(beat) if project.metre_changes else int(beat // bpb) + 1

    found = [_drum_phrase(old, new)] if track.is_drum else [_roots_phrase(old, new, bar_of),
                                                              _register_phrase(old, new, project.key)]
    found += [_rhythm_phrase(old, new), *_feel_phrase(old, new), _density_phrase(project, old, new)]
    return parts + [p for p in found if p]


def describe_changes(base: Project, proposal: Project) -> dict[str, str]:
    """One line per part (keyed by the track's name, lower-cased) plus "song" when the tempo,
    key, metre or form changed."""
    out: dict[str, str] = {}
    song = []
    if base.tempo != proposal.tempo:
        song.append(f"tempo {base.tempo:g} → {proposal.tempo:g} BPM")
    if base.key != proposal.key:
        song.append(f"key {base.key or '?'} → {proposal.key or '?'}")
    if base.time_signature != proposal.time_signature:
        song.append(f"metre {base.time_signature} → {proposal.time_signature}")
    if base.metre_changes != proposal.metre_changes:
        song.append(f"metre map {_metres(base)} → {_metres(proposal)}")
    if base.sections != proposal.sections:
        song.append(f"form {sum(s.bars for s in base.sections)} → {sum(s.bars for s in proposal.sections)} bars")
    if song:
        out["song"] = ", ".join(song)
    old_map, new_map = MetreMap.of(*base.score_metres()), MetreMap.of(*proposal.score_metres())
    old_tracks = {t.id: t for t in base.tracks}
    new_ids = {t.id for t in proposal.tracks}
    for t in proposal.tracks:
        key = t.name.casefold()
        old = old_tracks.get(t.id)
        new_notes = _notes(t)
        if old is None:
            bars = sorted({proposal.beat_to_bar(n.start) for n in new_notes})
            where = f" in bars {_bar_ranges(bars, 3)}" if bars else ""
            reg = "" if t.is_drum or not new_notes else \
                f", {_pitch_name(min(n.pitch for n in new_notes), proposal.key)}–" \
                f"{_pitch_name(max(n.pitch for n in new_notes), proposal.key)}"
            out[key] = f"new part, {len(new_notes)} notes{where}{reg}"
            continue
        old_notes = _notes(old) if old.regions != t.regions else new_notes
        if old_notes is not new_notes and (base.metre_changes or proposal.metre_changes):  # compared bar by bar
            old_notes = [replace(n, start=move_beat(n.start, old_map, new_map)) for n in old_notes]
        mix = _mix_phrase(old, t)
        if old_notes == new_notes:
            out[key] = "unchanged" if not mix else "notes unchanged; " + ", ".join(mix)
            continue
        out[key] = ", ".join(_describe_notes(proposal, t, old_notes, new_notes) + mix)
    for t in base.tracks:
        if t.id not in new_ids:
            out[t.name.casefold()] = f"removed ({t.note_count} notes)"
    return out


def _metres(project: Project) -> str:
    """The metre map in words: "4/4, 6/8 from bar 33, 4/4 from bar 41"."""
    return ", ".join([str(project.time_signature),
                      *(f"{c.time_signature} from bar {c.bar}" for c in project.metre_changes)])


def diff_lines(diff: dict[str, str]) -> list[str]:
    """The diff as `part: text` lines."""
    return [f"{part}: {text}" for part, text in diff.items()]
