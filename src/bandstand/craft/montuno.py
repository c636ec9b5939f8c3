"""Coro and pregón: the call and response of a salsa's montuno section.

Over the montuno and the tumbao, which never change, a fixed sung refrain — the coro, a short call
harmonised as a chorus sings it (in thirds under the tune) and the same notes each time — alternates
with the lead singer's answer, the pregón: one voice, a new answer each time, developed from the
coro's own motif (moved up, turned over, its rhythm answered, busier as the section heats up).
This module is the plan and the development as data; the melodist realises them (`melody.play_lead`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CORO_PREGON: dict[str, dict[str, int]] = {"salsa": {"solo": 2}}
"""Genre → section kind sung as coro and pregón → bars of one coro (and of one pregón): a salsa's
montuno section (the form's "solo": the lead improvises there in other genres) alternates a two-bar
coro with a two-bar pregón over the montuno's vamp."""

Cell = tuple[tuple[float, float], ...]  # (onset beat, length beats), as the melodist's cells


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a bar stands in the call and response: in a coro (the `call`) or a pregón, the bar of
    that phrase (`bar`, from 0), the phrase's `length` in bars and, for a pregón, which answer it is
    (`answer`, from 0: the singer's first, second … of the section)."""

    call: bool
    bar: int
    length: int
    answer: int


def turn_of(genre: str, kind: str, bar_in_section: int) -> Turn | None:
    """The turn of a bar of a section `genre` sings as coro and pregón (`CORO_PREGON`); None for any
    other section. The section opens on the coro."""
    length = CORO_PREGON.get(genre, {}).get(kind)
    if not length:
        return None
    phrase, bar = divmod(bar_in_section, length)
    return Turn(call=phrase % 2 == 0, bar=bar, length=length, answer=phrase // 2)


def coro_rhythm(rhythm: Cell, answer: Cell, turn: Turn) -> Cell:
    """The coro's rhythm in its bar `turn.bar`: the chorus's motif in its first bar, its answering
    cell after, and in its last bar a call that stops by the third beat and holds, leaving the
    singer the rest of the bar to come in."""
    cell = rhythm if turn.bar == 0 else answer
    if turn.bar < turn.length - 1 or turn.length == 1:
        return cell
    kept = tuple((o, ln) for o, ln in cell if o < 2.0) or cell[:1]
    last_on, _ = kept[-1]
    return (*kept[:-1], (last_on, max(1.0, 2.5 - last_on)))


# A pregón develops the coro's motif, a different way each time, the later ones busier and higher
# (the sonero heats up): (scale steps above the coro's first note, the contour turned over, the
# rhythm: the motif's "motif", its "answer" cell, or the motif shifted half a beat late "late").
DEVELOPMENTS: tuple[tuple[int, bool, str], ...] = (
    (2, False, "answer"), (1, True, "late"), (4, False, "motif"), (3, True, "answer"), (5, False, "late"),
)


def _late(cell: Cell) -> Cell:
    """The cell sung half a beat late (an answer that comes in behind the beat), within four beats."""
    return tuple((o + 0.5, ln) for o, ln in cell if o + 0.5 < 4.0) or cell


def pregon(rhythm: Cell, answer: Cell, contour: Sequence[int], turn: Turn) -> tuple[Cell, tuple[int, ...], int]:
    """The pregón's bar `turn.bar` of answer `turn.answer`: (rhythm, contour, scale steps above the
    coro's starting note). Its first bar develops the motif (`DEVELOPMENTS`); its last answers that
    with the other cell's first half, a step lower, landing and holding (the melodist ends it on a
    chord tone): room to breathe before the coro comes back."""
    lift, inverted, which = DEVELOPMENTS[turn.answer % len(DEVELOPMENTS)]
    lift += 2 * (turn.answer // len(DEVELOPMENTS))  # past the table, the same answers a third higher
    steps = tuple(-c for c in contour) if inverted else tuple(contour)
    cell = {"motif": rhythm, "answer": answer, "late": _late(rhythm)}[which]
    if turn.bar == 0:
        return cell, steps, lift
    other = rhythm if which == "answer" else answer
    kept = tuple((o, ln) for o, ln in other if o < 2.0) or other[:1]  # a short tail, held: room for the coro
    last_on, _ = kept[-1]
    return (*kept[:-1], (last_on, max(1.0, 2.5 - last_on))), tuple(reversed(steps)), lift - 1


def harmony_below(line: Sequence[tuple[float, float, int]], chord_pcs: Sequence[int], ladder: Sequence[int],
                  ) -> list[tuple[float, float, int]]:
    """The coro's second voice under `line`: a chord tone a third or a fourth below each note on a
    strong beat or held a beat (the chord sounds under the call), the scale's third below the
    others (the thirds a coro sings in); a note already at the ladder's foot keeps no voice."""
    out: list[tuple[float, float, int]] = []
    for onset, length, pitch in line:
        strong = abs(onset - round(onset)) < 1e-6 and round(onset) % 2 == 0
        below = next((pitch - d for d in (3, 4, 5) if (pitch - d) % 12 in chord_pcs), None) \
            if strong or length >= 1.0 else None
        if below is None:
            lower = [p for p in ladder if p < pitch]
            below = lower[-2] if len(lower) >= 2 else None
        if below is not None:
            out.append((onset, length, below))
    return out
