"""`Position:` in a structured prompt — where new parts go, said against the song's own
sections (Maestro's grammar):

    bar 17 | start | end
    before X | after X | alongside X | within X | between X and Y
    … ± N beat(s) | bar(s)            (a pickup: "after chorus - 1 beat")

`before X` ends where X starts; `after X` starts where X ends; `alongside X` and
`within X` cover X (`within` never runs past its end); `between X and Y` fills
the bars from X's end to Y's start. A section is named as the song names it
(case aside; "chorus" finds "Chorus 2" only when it is the one chorus or the
first). A place that does not read, or a section the song does not have, is one
`InvalidInput` naming what there is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from bandstand.errors import InvalidInput
from bandstand.studio import Project

__all__ = ["Placement", "place"]

_OFFSET = re.compile(r"\s*([+-])\s*(\d+(?:\.\d+)?|\d+/\d+)\s*(beats?|bars?)\s*$", re.I)
_FORMS = (
    ("bar", re.compile(r"^(?:at\s+|from\s+)?bar\s+(\d{1,5})$", re.I)),
    ("start", re.compile(r"^(?:the\s+)?(?:start|beginning|top)$", re.I)),
    ("end", re.compile(r"^(?:the\s+)?end$", re.I)),
    ("between", re.compile(r"^between\s+(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+)$", re.I)),
    ("before", re.compile(r"^before\s+(?:the\s+)?(.+)$", re.I)),
    ("after", re.compile(r"^(?:after|following)\s+(?:the\s+)?(.+)$", re.I)),
    ("alongside", re.compile(r"^(?:alongside|with|during|over)\s+(?:the\s+)?(.+)$", re.I)),
    ("within", re.compile(r"^(?:within|inside|in)\s+(?:the\s+)?(.+)$", re.I)),
)
GRAMMAR = ("'bar 17', 'start', 'end', 'before X', 'after X', 'alongside X', 'within X', 'between X and Y', "
           "with an optional pickup such as 'after chorus - 1 beat'")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the parts go: the 1-based first bar, how many bars (None: as asked), and a shift in
    beats from that bar's start (a pickup is negative)."""

    first_bar: int
    bars: int | None = None
    offset_beats: float = 0.0


def _section(project: Project, name: str) -> tuple[int, int]:
    """(start bar, bars) of the section `name` names."""
    word = " ".join(name.split()).casefold()
    exact = [s for s in project.sections if s.name.casefold() == word]
    loose = [s for s in project.sections if s.name.casefold().rstrip("0123456789 ") == word]
    found = (exact or loose)[:1]
    if not found:
        there = ", ".join(dict.fromkeys(s.name for s in project.sections)) or "none"
        raise InvalidInput(f"Position: no section '{name.strip()[:40]}' in this song; its sections are {there}",
                           field="Position")
    return found[0].start_bar, found[0].bars


def place(project: Project, text: str, bars: int | None = None) -> Placement:
    """Read `text` against `project`'s sections (see the module docstring); `bars` is how long the
    parts were asked to be (None: as long as the place is)."""
    words = " ".join(text.split())
    offset = 0.0
    if (m := _OFFSET.search(words)) is not None:
        amount = float(Fraction(m.group(2)))
        unit = project.beats_per_bar if m.group(3).lower().startswith("bar") else 1
        offset = (amount if m.group(1) == "+" else -amount) * unit
        words = words[:m.start()].strip()
    total = sum(s.bars for s in project.sections)
    kind, found = next(((k, r.match(words)) for k, r in _FORMS if r.match(words)), ("", None))
    if found is None:
        raise InvalidInput(f"Position: '{text.strip()[:60]}' is not a place; say {GRAMMAR}", field="Position")
    if kind == "bar":
        placement = Placement(int(found.group(1)))
    elif kind == "start":
        placement = Placement(1)
    elif kind == "end":
        placement = Placement(total + 1)
    elif kind == "between":
        (a_start, a_bars), (b_start, _) = _section(project, found.group(1)), _section(project, found.group(2))
        if b_start <= a_start + a_bars - 1:
            raise InvalidInput(f"Position: nothing lies between '{found.group(1)}' and '{found.group(2)}' "
                               "(the second starts before the first ends)", field="Position")
        placement = Placement(a_start + a_bars, b_start - (a_start + a_bars) or None)
    else:
        start, length = _section(project, found.group(1))
        if kind == "before":
            before = [s.bars for s in project.sections if s.start_bar + s.bars == start]
            span = bars or (before[0] if before else start - 1)
            if span < 1 or start - span < 1:
                raise InvalidInput(f"Position: there are only {start - 1} bars before '{found.group(1)}'; "
                                   "use 'start' (with a pickup such as 'start + 1 bar') or fewer Bars",
                                   field="Position")
            placement = Placement(start - span, span)
        elif kind == "after":
            placement = Placement(start + length)
        else:
            placement = Placement(start, min(bars or length, length) if kind == "within" else (bars or length))
    first_beat = (placement.first_bar - 1) * project.beats_per_bar + offset
    if first_beat < 0:
        raise InvalidInput(f"Position: '{text.strip()[:60]}' starts {-first_beat:g} beats before the song does",
                           field="Position")
    return Placement(placement.first_bar, placement.bars, offset)
