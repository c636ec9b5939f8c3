"""A change proposed as a variation of HEAD: what an edit request did (`EditOutcome`), and
`propose_plan`, which runs what a plan reaches and proposes the result. Both the request
reader (`producer.requests.iteration`) and the alternatives (`producer.requests.alternatives`)
propose through here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bandstand.compose.api import Recipe, part_role
from bandstand.craft.edits import Edit
from bandstand.errors import InvalidInput
from bandstand.producer.execution.collector import pausing
from bandstand.producer.requests.iteration_plan import Plan
from bandstand.producer.requests.iteration_song import Rebuilt, rebuild
from bandstand.producer.requests.sensitivity import EXPENSIVE, BlastRadius, Cost
from bandstand.producer.sessions.projects import ProjectSession, VariationEvent
from bandstand.score import Song
from bandstand.studio import Project, Variation, merge_song, to_song

__all__ = ["AUTHOR", "EditOutcome", "part_keys", "propose_plan", "recipe_of"]

AUTHOR = "you"



@dataclass(frozen=True, slots=True)
class EditOutcome:
    """What an edit request did: a variation to hear (kind "variation"), a direct revision
    (kind "freeze"), or nothing at all (kind "praise")."""

    request: str
    kind: Literal["variation", "freeze", "praise"]
    edits: tuple[Edit, ...]
    base_revision: int
    variation: Variation | None = None
    revision: int | None = None
    radius: BlastRadius | None = None
    affected: tuple[str, ...] = ()
    preserved: tuple[str, ...] = ()
    frozen: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cost(self) -> Cost:
        return self.radius.cost if self.radius is not None else "cheap"

    def to_json(self) -> dict[str, Any]:
        """The outcome as `bandstand edit --json` prints it."""
        v = self.variation
        return {
            "request": self.request, "kind": self.kind, "edits": [e.model_dump(mode="json") for e in self.edits],
            "variation_id": v.id if v else None, "base_revision": self.base_revision, "revision": self.revision,
            "affected_parts": list(self.affected), "preserved_parts": list(self.preserved),
            "frozen_parts": list(self.frozen), "cost": self.cost,
            "changed": list(self.radius.changed) if self.radius else [],
            "phrases": [{"id": p.id, "part": p.track_name, "bars": [p.start_bar, p.end_bar], **p.counts()}
                        for p in (v.phrases if v else [])],
            "diff": dict(v.diff) if v else {},
            "counts": dict(v.counts) if v else {"added": 0, "removed": 0, "modified": 0},
            "notes": list(self.notes),
        }


def recipe_of(project: Project) -> Recipe:
    """The recipe in a revision's provenance (a session composed by bandstand has one)."""
    data = project.provenance.recipe
    if not data:
        raise InvalidInput("this session has no compose recipe (it was imported, not composed here), so its parts "
                           "cannot be regenerated; change it with 'bandstand tool' instead")
    return Recipe.model_validate(data)


def part_keys(project: Project, recipe: Recipe) -> dict[str, str]:
    """Part key → track name for the parts the recipe can regenerate, in track order. A track is
    matched by its name, then (renamed since) by the role its key plays."""
    names = {t.name.casefold(): t.name for t in project.tracks}
    out: dict[str, str] = {}
    free = [t for t in project.tracks if t.name.casefold() not in {n.casefold() for n in recipe.parts.values()}]
    for key, name in recipe.parts.items():
        if name.casefold() in names:
            out[key] = names[name.casefold()]
            continue
        match = next((t for t in free if t.role == part_role(key)), None)
        if match is not None:
            out[key] = match.name
            free.remove(match)
    order = {t.name: i for i, t in enumerate(project.tracks)}
    return dict(sorted(out.items(), key=lambda kv: order[kv[1]]))


def _same_song(a: Song, b: Song) -> bool:
    """Whether the rebuilt song is the song it came from (tracks left alone are the very same
    objects, so only the ones made again are compared note by note)."""
    if (a.tempo_map(), a.key, a.metre_map(), a.sections, a.buses) != (b.tempo_map(), b.key, b.metre_map(),
                                                                      b.sections, b.buses):
        return False
    return len(a.tracks) == len(b.tracks) and all(x is y or x == y for x, y in zip(a.tracks, b.tracks, strict=True))


@pausing
def propose_plan(session: ProjectSession, request: str, plan: Plan, *, before: Recipe, intent: str,
                 author: str = AUTHOR, on_event: VariationEvent | None = None, edits: Sequence[Edit] = (),
                 details: Mapping[str, Any] | None = None, built: Rebuilt | None = None,
                 part_fn: Any = None) -> EditOutcome:
    """Run what `plan` reaches, build the proposal and propose it as a variation of HEAD."""
    head = session.head
    keys = part_keys(head, before)
    base = to_song(head)
    built = built or rebuild(base, plan, keys, part_fn=part_fn)
    if _same_song(base, built.song) and built.recipe.frozen == before.frozen:
        why = "; ".join(plan.notes) or "the request asks for what the song already has"
        raise InvalidInput(f"nothing would change: {why}")
    merged = merge_song(head, built.song, ids=session.ids)
    provenance = head.provenance.model_copy(update={"recipe": built.recipe.model_dump(mode="json")})
    proposal = merged.model_copy(update={"provenance": provenance})
    radius = built.radius
    affected = [*radius.parts, *(k for k in (*plan.remove, *plan.silence, *plan.thin, *plan.programs, *plan.volumes)
                                 if k not in radius.parts)]
    preserved = [k for k in keys if k not in affected]
    facts = {"blast_radius": {"changed": list(radius.changed), "affected": list(radius.affected),
                              "regenerated": built.regenerated, "frozen": list(radius.frozen)},
             "cost": radius.cost, "affected_parts": affected, "preserved_parts": preserved,
             "edits": [e.model_dump(mode="json") for e in edits], "notes": plan.notes, **dict(details or {})}
    expensive = [c for c in radius.changed if c in EXPENSIVE]
    explanation = (f"regenerates {', '.join(built.regenerated) or 'no part'}"
                   f"{'; keeps ' + ', '.join(preserved) if preserved else ''}; cost {radius.cost}"
                   + (f" ({', '.join(expensive)} changed)" if expensive else ""))
    variation = session.propose(proposal, request=request, intent=intent, explanation=explanation,
                                author=author, recipe=built.recipe.model_dump(mode="json"), details=facts,
                                on_event=on_event)
    return EditOutcome(request, "variation", tuple(edits), head.revision, variation=variation,
                       radius=radius, affected=tuple(affected), preserved=tuple(preserved),
                       frozen=tuple(built.recipe.frozen), notes=tuple(plan.notes))
