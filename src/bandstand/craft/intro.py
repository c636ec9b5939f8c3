"""An intro builds: it may open with one or two parts and add parts or raise its dynamics bar by
bar, but it never drops back before the first verse. Measured per bar as the sum of the
velocities of the notes sounding in it (struck there, or held into it from an earlier bar: a
pad's chord held over the barline still sounds), every part together.

Each part keeps to it alone (the parts only enter during an intro, `compose.parts.context`), so
regenerating one part never changes another: where a bar of the part's intro sounds louder than
the next, the notes that sound in it but not in the next play softer (a phrase's busy first bar
under a lighter second one becomes a crescendo), and one that would be barely heard is left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bandstand.craft.situation import Situation
from bandstand.score import Note

__all__ = ["QUIET", "TOL", "intro_bars", "rising_intro", "sounding"]

TOL = 0.125  # beats: a note played a 32nd early (humanized) belongs to the bar it leads into
QUIET = 12  # a note softer than this after the crescendo is left out rather than ghosted


def intro_bars(s: Situation) -> int:
    """How many bars the song's opening intro lasts (0: it has none, or it loops: the jam)."""
    if s.looping:
        return 0
    count = 0
    for bar in s.bars:
        if bar.kind != "intro":
            break
        count += 1
    return count


def sounding(n: Note, bar: int, beats_per_bar: float) -> bool:
    """Whether `n` sounds in `bar` (0-based): struck in it, or held into it from before."""
    start, end = bar * beats_per_bar, (bar + 1) * beats_per_bar
    struck = n.start + TOL
    return start <= struck < end or (struck < start and n.end > start + TOL)


def rising_intro(notes: Sequence[Note], s: Situation) -> list[Note]:
    """`notes` (one part's, as written to its track) with the part's intro rising bar by bar
    (see the module docstring); outside the intro, and in a song without one, as they are."""
    bars = intro_bars(s)
    out = list(notes)
    if bars < 2:
        return out
    bpb = s.beats_per_bar
    gone: set[int] = set()  # notes left out: softer than `QUIET` after the crescendo
    heard = [k for k, n in enumerate(out) if n.start + TOL < bars * bpb]  # what sounds in the intro at all
    for i in range(bars - 2, -1, -1):
        here = [k for k in heard if k not in gone and sounding(out[k], i, bpb)]
        later = sum(out[k].velocity for k in heard if k not in gone and sounding(out[k], i + 1, bpb))
        level = sum(out[k].velocity for k in here)
        if level <= later:
            continue
        only = [k for k in here if not sounding(out[k], i + 1, bpb)]  # a note held on sounds in both
        alone = sum(out[k].velocity for k in only)  # > level - later: what sounds in i + 1 alone is ≥ 0
        keep = (alone - (level - later)) / alone
        for k in only:
            velocity = int(out[k].velocity * keep)
            if velocity < QUIET:
                gone.add(k)
            else:
                out[k] = replace(out[k], velocity=velocity)
    return [n for k, n in enumerate(out) if k not in gone]
