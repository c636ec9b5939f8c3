"""Directing a composed song by talking: `edit(session, "make the bass busier")`.

A request in words becomes typed edits (the rule tables of
`craft.requests`; a language model, when one is given, reads free text into
the same edits and the tables correct it), the edits become a plan against
the HEAD revision's recipe, the blast radius says which parts the change
reaches (frozen ones never), exactly those graph nodes run again in
process, and the result is proposed as a variation: nothing in the song
changes until it is accepted. Praise changes nothing and leaves no history;
"keep the drums" is a direct revision (the freeze is part of the song's
recipe, so undo covers it); "try something different" is the next
alternative (`producer.requests.alternatives`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bandstand.compose.api import Recipe, part_role
from bandstand.craft.edits import (
    AlternativeEdit,
    Edit,
    FreezeEdit,
    MetreEdit,
    PresenceEdit,
    Request,
    StyleEdit,
)
from bandstand.craft.requests import Vocabulary, not_understood, parse_request
from bandstand.errors import InvalidInput
from bandstand.producer.execution.collector import pausing
from bandstand.producer.requests.iteration_plan import Plan, plan_edits
from bandstand.producer.requests.iteration_song import Rebuilt, rebuild
from bandstand.producer.requests.metre_plan import metres_of
from bandstand.producer.requests.sensitivity import EXPENSIVE, BlastRadius, Cost
from bandstand.producer.sessions.projects import ProjectSession, VariationEvent, open_project
from bandstand.score import Song
from bandstand.studio import Project, Variation, merge_song, to_song

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend

__all__ = ["EditOutcome", "edit", "part_keys", "propose_edits", "propose_plan", "read", "recipe_of", "vocabulary"]

AUTHOR = "you"


@functools.cache
def vocabulary() -> Vocabulary:
    """Compose's instrument and genre lexicons, as words the request parser knows."""
    from bandstand.compose.lexicon import GENRE_BY_NAME
    from bandstand.compose.lexicon.instruments import INSTRUMENTS

    return Vocabulary(instruments=tuple((w, i.role, i.program) for i in INSTRUMENTS for w in i.words),
                      genres=tuple(GENRE_BY_NAME))


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


def read(text: str, backend: AgentBackend | None = None) -> Request:
    """The request as typed edits: the rule tables, or a language model's reading corrected by
    them (see `iteration_read`)."""
    if backend is None:
        return parse_request(text, vocabulary())
    from bandstand.producer.requests.iteration_read import read_with_model

    request: Request = read_with_model(text, backend, vocabulary())
    return request


def _freeze(recipe: Recipe, keys: Iterable[str], edits: Sequence[FreezeEdit]) -> Recipe:
    frozen = set(recipe.frozen)
    for e in edits:
        chosen = {k for k in keys if part_role(k) in e.roles}
        frozen = frozen | chosen if e.frozen else frozen - chosen
    return recipe.model_copy(update={"frozen": sorted(frozen)})


FEELS = {0.5: "half time", 1.0: "normal time", 2.0: "double time"}


def _where(sections: Sequence[str], bars: tuple[int, int] | None) -> str:
    out = f" in the {' and '.join(sections)}" if sections else ""
    return out + (f" in bars {bars[0]}–{bars[1]}" if bars else "")


def _label(edits: Sequence[Edit]) -> str:
    """A short intent line for the variation ("bass: density +0.3; energy +2 in the chorus")."""
    out = []
    for e in edits:
        if isinstance(e, StyleEdit):
            o = e.override
            turns = [f"{k} {v:+g}" for k, v in o.knobs.items()] + ([FEELS[o.time_feel]] if o.time_feel else [])
            who = "every part" if o.role == "*" else o.role.replace("_", " ")
            out.append(f"{who}: {', '.join(turns)}{_where(o.sections, o.bars)}")
            continue
        if isinstance(e, PresenceEdit):  # "drums: hats out in the chorus", "bass back in"
            who = "every part" if e.role == "*" else e.role.replace("_", " ")
            what = f"{' and '.join(e.pieces)} " if e.pieces else ""
            out.append(f"{who}: {what}{'back in' if e.present else 'out'}{_where(e.sections, e.bars)}")
            continue
        if isinstance(e, MetreEdit):  # "metre 6/8 in the bridge"
            out.append(f"metre {e.numerator}/{e.denominator}{_where(e.sections, e.bars)}")
            continue
        data = e.model_dump(mode="json", exclude_defaults=True, exclude={"kind", "sections", "bars", "asked"})
        text = " ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in data.values() if v not in ((), [], None))
        scope = _where(getattr(e, "sections", ()), getattr(e, "bars", None))
        out.append(f"{e.kind.replace('_', ' ')} {text}".strip() + scope)
    return "; ".join(out)


def _commit_freeze(session: ProjectSession, request: str, recipe: Recipe, edits: Sequence[FreezeEdit],
                   keys: Mapping[str, str]) -> EditOutcome:
    head = session.head
    new = _freeze(recipe, keys, edits)
    base = head.revision
    if new.frozen == recipe.frozen:
        held = ", ".join(recipe.frozen) or "nothing"
        raise InvalidInput(f"nothing to change: frozen parts are already {held}")
    provenance = head.provenance.model_copy(update={"recipe": new.model_dump(mode="json")})
    entry = session.commit(head.model_copy(update={"provenance": provenance}), author=AUTHOR, request=request,
                           kind="freeze", summary=f"frozen: {', '.join(new.frozen) or 'nothing'}")
    return EditOutcome(request, "freeze", tuple(edits), base, revision=entry.revision,
                       frozen=tuple(new.frozen), preserved=tuple(keys))


@pausing
def edit(session_dir: str | Path, request: str, *, backend: AgentBackend | None = None, author: str = AUTHOR,
         session: ProjectSession | None = None, on_event: VariationEvent | None = None,
         parsed: Request | None = None) -> EditOutcome:
    """Propose the change `request` asks for (see the module docstring), or `parsed` when the words
    were already read (a structured prompt's). Not understood, or nothing to change → `InvalidInput`
    with one line, and nothing changed."""
    parsed = parsed or read(request, backend)
    if not parsed.understood:
        raise not_understood(request)
    session = session or open_project(session_dir)
    head = session.head
    if parsed.praise_only:
        return EditOutcome(parsed.text, "praise", parsed.edits, head.revision)
    recipe = recipe_of(head)
    keys = part_keys(head, recipe)
    if any(isinstance(e, AlternativeEdit) for e in parsed.edits):
        from bandstand.producer.requests.alternatives import next_alternative

        target = next((e.target for e in parsed.edits if isinstance(e, AlternativeEdit)), None)
        outcome: EditOutcome = next_alternative(session, target, request=parsed.text, author=author)
        return outcome
    freezes = [e for e in parsed.edits if isinstance(e, FreezeEdit)]
    others = [e for e in parsed.edits if not isinstance(e, FreezeEdit)]
    if not others:
        return _commit_freeze(session, parsed.text, recipe, freezes, keys)
    return propose_edits(session, parsed.text, others, recipe=_freeze(recipe, keys, freezes), author=author,
                         on_event=on_event, all_edits=parsed.edits)


def propose_edits(session: ProjectSession, request: str, edits: Sequence[Edit], *, recipe: Recipe | None = None,
                  author: str = AUTHOR, on_event: VariationEvent | None = None,
                  all_edits: Sequence[Edit] | None = None, part_fn: Any = None) -> EditOutcome:
    """Plan `edits` against HEAD, regenerate what they reach and propose the result (`part_fn`:
    who writes each part, see `iteration_song.rebuild`)."""
    head = session.head
    before = recipe_of(head)
    recipe = recipe or before
    keys = part_keys(head, recipe)
    plan = plan_edits(recipe, list(keys), edits, metres=metres_of(head))
    return propose_plan(session, request, plan, before=before, intent=_label(edits), author=author,
                        on_event=on_event, edits=all_edits or edits, part_fn=part_fn)


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
