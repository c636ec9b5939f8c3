"""What depends on what: the blast radius of a change, read off the compose graph.

Each node of the compose graph declares what it is made from (`Node.reads`: song
facts such as the key or the tempo, and the nodes before it whose artifact it
uses) — the harmony from the key, the mode, the genre and the dials; the bass
from the key, the tempo, the genre, the metre and the harmony. A change names
the facts and components it touches (`changed_by` reads them off an `Edit`);
the blast radius is every component made from them, transitively, in graph
order, skipping parts the person froze. Components are the graph's nodes as an
edit names them: the progression (the harmony node), the arrangement, each
part, the sound, and the mix (which no node makes). Its cost class is what a
client shows before the change is committed: cheap (sound, mix), moderate (a
part or two), expensive (key, mode, genre, tempo, form, metre, or more than two
parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bandstand.compose.api import dependencies, reach
from bandstand.craft.edits import (
    AddPartEdit,
    AlternativeEdit,
    Edit,
    EnergyEdit,
    GenreEdit,
    InstrumentEdit,
    KeyEdit,
    MetreEdit,
    MixEdit,
    ModeEdit,
    PresenceEdit,
    ProgressionEdit,
    RegenerateEdit,
    SoloEdit,
    StyleEdit,
    TempoEdit,
    TransposeEdit,
)

__all__ = ["EXPENSIVE", "BlastRadius", "Cost", "blast_radius", "changed_by", "component_node", "sensitivity"]

Cost = Literal["cheap", "moderate", "expensive"]

# Facts whose change is expensive whatever it reaches.
EXPENSIVE: frozenset[str] = frozenset({"key", "mode", "genre", "tempo", "form", "metre"})
PLANS: tuple[str, ...] = ("progression", "arrangement")
# Graph nodes as an edit names them (a part's node is parts:ROLE, the others keep their names).
_COMPONENT: dict[str, str] = {"harmony": "progression"}
_NODE: dict[str, str] = {c: n for n, c in _COMPONENT.items()}


def _component(word: str) -> str:
    return _COMPONENT.get(word, word.split(":", 1)[1] if word.startswith("parts:") else word)


def component_node(component: str) -> str | None:
    """The compose graph node that makes a component (None for the mix, which no node makes)."""
    if component == "mix":
        return None
    return _NODE.get(component, component if component in ("arrangement", "sound") else f"parts:{component}")


def sensitivity(parts: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Component → what it is made from (facts and components), as the graph's nodes declare it;
    the mix is made from nothing."""
    return {**{_component(name): tuple(_component(r) for r in reads) for name, reads in dependencies(parts)},
            "mix": ()}


@dataclass(frozen=True, slots=True)
class BlastRadius:
    """What a change reaches: the components to redo in graph order (`affected`), the parts
    among them, the parts that stay as they are (frozen ones included) and the frozen parts
    the change would have reached, and the cost class."""

    changed: tuple[str, ...]
    affected: tuple[str, ...]
    parts: tuple[str, ...]
    preserved: tuple[str, ...]
    frozen: tuple[str, ...]
    cost: Cost

    @property
    def nodes(self) -> tuple[str, ...]:
        """The compose graph nodes to run again."""
        return tuple(n for c in self.affected if (n := component_node(c)) is not None)


def blast_radius(changed: Iterable[str], parts: Sequence[str], frozen: Iterable[str] = ()) -> BlastRadius:
    """Every component made from `changed`, transitively, in graph order (the plans, then
    `parts` in the order given, then sound and mix); frozen parts are skipped and nothing
    depends on them changing."""
    changed = tuple(dict.fromkeys(changed))
    held = {n for c in frozen if (n := component_node(c)) is not None}
    words = set(changed) | {n for c in changed if (c in parts or c in _NODE) and (n := component_node(c))}
    reached = reach(words, parts, held)
    hit = words | set(reached)
    affected = [_component(n) for n in reached]
    if "mix" in changed:
        affected.append("mix")
    hit_frozen = [_component(name) for name, reads in dependencies(parts)
                  if name in held and (name in words or any(r in hit for r in reads))]
    redone = tuple(c for c in affected if c in parts)
    preserved = tuple(p for p in parts if p not in redone)
    if EXPENSIVE & set(changed) or len(redone) > 2:
        cost: Cost = "expensive"
    elif redone or any(c in PLANS for c in affected):
        cost = "moderate"
    else:
        cost = "cheap"
    return BlastRadius(changed, tuple(affected), redone, preserved, tuple(hit_frozen), cost)


def _roles(role: str, parts: Sequence[str]) -> tuple[str, ...]:
    return tuple(parts) if role == "*" else (role,)


def changed_by(edit: Edit, parts: Sequence[str], mode: str | None = None) -> tuple[str, ...]:
    """The facts and components an edit changes directly (`parts`: the song's parts; `mode`:
    its mode, so a key change in the same mode is only a key change)."""
    if isinstance(edit, StyleEdit):
        return _roles(edit.override.role, parts)
    if isinstance(edit, (PresenceEdit, SoloEdit)):
        return _roles(edit.role, parts)
    if isinstance(edit, EnergyEdit):
        return ("energy",)
    if isinstance(edit, KeyEdit):
        return ("key",) if edit.mode in (None, mode) else ("key", "mode")
    if isinstance(edit, TransposeEdit):
        return ("key",)
    if isinstance(edit, ModeEdit):
        return ("mode",)
    if isinstance(edit, TempoEdit):
        return ("tempo",)
    if isinstance(edit, MetreEdit):
        return ("metre",)
    if isinstance(edit, ProgressionEdit):
        return ("progression",)
    if isinstance(edit, GenreEdit):
        return ("genre",)
    if isinstance(edit, InstrumentEdit):
        return ("instrument",)
    if isinstance(edit, AddPartEdit):
        return (edit.role,)
    if isinstance(edit, (RegenerateEdit, AlternativeEdit)):
        return (edit.target,) if edit.target else ()
    if isinstance(edit, MixEdit):
        return ("mix",)
    return ()  # remove, freeze, praise: nothing is made again
