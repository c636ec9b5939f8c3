"""Melody figures of a line (the lead, or a chorale's soprano), reduced to
its top note per onset: the share of steps (moves of at most two semitones),
the range it spans (the 5th to the 95th percentile, in semitones), how often
its direction turns, and motif recurrence — the share of its four-note cells
(intervals and onset gaps) that come back somewhere else in the line."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from bandstand.score import Note

__all__ = ["CELL", "melody_figures", "top_line"]

CELL = 4  # notes in a motif cell


def top_line(notes: list[Note]) -> list[Note]:
    """The highest note at each onset, in time order."""
    tops: dict[float, Note] = {}
    for n in notes:
        at = round(n.start, 3)
        if at not in tops or n.pitch > tops[at].pitch:
            tops[at] = n
    return [tops[t] for t in sorted(tops)]


def melody_figures(notes: list[Note]) -> dict[str, float | None]:
    """step_share, melodic_range, direction_changes and motif_recurrence of `notes`."""
    line = top_line(notes)
    empty: dict[str, float | None] = {"step_share": None, "melodic_range": None, "direction_changes": None,
                                      "motif_recurrence": None}
    if len(line) < CELL + 1:
        return empty
    moves = [b.pitch - a.pitch for a, b in pairwise(line)]
    moving = [m for m in moves if m]
    pitches = sorted(n.pitch for n in line)
    lo, hi = pitches[int(0.05 * (len(pitches) - 1))], pitches[int(0.95 * (len(pitches) - 1))]
    turns = sum(1 for a, b in pairwise(moving) if (a > 0) != (b > 0))
    cells = [tuple(moves[i:i + CELL - 1]) + tuple(round(line[i + k + 1].start - line[i + k].start, 2)
                                                    for k in range(CELL - 1))
             for i in range(len(line) - CELL + 1)]
    counts = Counter(cells)
    return {
        "step_share": sum(1 for m in moves if abs(m) <= 2) / len(moves),
        "melodic_range": float(hi - lo),
        "direction_changes": turns / max(1, len(moving) - 1),
        "motif_recurrence": sum(1 for c in cells if counts[c] > 1) / len(cells),
    }
