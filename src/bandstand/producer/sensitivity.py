"""What depends on what: the sensitivity table and the blast radius of a change.

`SENSITIVITY` says, for each component of a song (the progression, the
arrangement, each part, the sound, the mix), which facts it is made from —
the bass from the key, the progression, the tempo, the genre and the drums
(it locks to the kick). A change names the facts it touches (`changed_by`
reads them off an `Edit`); the blast radius is every component sensitive to
them, transitively, in graph order, skipping parts the person froze. Its
cost class is what a client shows before the change is committed: cheap
(sound, mix), moderate (a part or two), expensive (key, mode, genre, tempo,
form, metre, or more than two parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

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

__all__ = ["EXPENSIVE", "FAMILY", "SENSITIVITY", "BlastRadius", "Cost", "blast_radius", "changed_by",
           "component_node"]

Cost = Literal["cheap", "moderate", "expensive"]

# component → the facts (and components) it is made from. A part's row is its family's.
SENSITIVITY: dict[str, tuple[str, ...]] = {
    "progression": ("key", "mode", "genre", "dials"),
    "arrangement": ("genre", "energy", "form", "metre"),
    "drums": ("tempo", "genre", "energy", "arrangement", "metre"),
    "bass": ("key", "progression", "tempo", "genre", "drums", "metre"),
    "chords": ("key", "progression", "metre"),
    "pad": ("key", "progression", "metre"),
    "lead": ("key", "progression", "arrangement", "metre"),
    "sound": ("genre", "instrument"),
    "mix": (),
}
# Roles that play like another: they share its row.
FAMILY: dict[str, str] = {"sub_bass": "bass", "arp": "chords", "counter_melody": "lead", "percussion": "drums",
                         "texture": "pad", "fx": "pad"}
# Facts whose change is expensive whatever it reaches.
EXPENSIVE: frozenset[str] = frozenset({"key", "mode", "genre", "tempo", "form", "metre"})
PLANS: tuple[str, ...] = ("progression", "arrangement")
LATE: tuple[str, ...] = ("sound", "mix")
# Graph node of each non-part component (a part's node is parts:ROLE).
NODES: dict[str, str] = {"progression": "harmony", "arrangement": "arrangement", "sound": "sound"}


def family(component: str) -> str:
    """The table row of a component: a second pad (`pad-2`) and an arp read like the pad or the chords."""
    base = component.split("-", 1)[0]
    return FAMILY.get(base, base)


def component_node(component: str) -> str | None:
    """The compose graph node that makes a component (None for the mix, which no node makes)."""
    if component in NODES:
        return NODES[component]
    return None if component == "mix" else f"parts:{component}"


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
    """Every component sensitive to `changed`, transitively, in graph order (the plans, then
    `parts` in the order given — drums before bass —, then sound and mix); frozen parts are
    skipped and nothing depends on them changing."""
    changed = tuple(dict.fromkeys(changed))
    held = set(frozen)
    reached = set(changed)
    affected: list[str] = []
    hit_frozen: list[str] = []
    for component in (*PLANS, *parts, *LATE):
        row = SENSITIVITY[family(component)]
        if component in changed or any(dep in reached for dep in row):
            if component in held:
                hit_frozen.append(component)
                continue
            affected.append(component)
            reached.add(component)
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
