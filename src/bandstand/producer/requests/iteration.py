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
alternative (`producer.requests.alternatives`). A variation is proposed by `producer.requests.proposal`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.compose.api import GENRE_BY_NAME, INSTRUMENTS, Recipe, part_role
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
from bandstand.producer.requests.alternatives import next_alternative
from bandstand.producer.requests.iteration_plan import plan_edits
from bandstand.producer.requests.metre_plan import metres_of
from bandstand.producer.requests.proposal import (
    AUTHOR,
    EditOutcome,
    part_keys,
    propose_plan,
    recipe_of,
)
from bandstand.producer.sessions.projects import ProjectSession, VariationEvent, open_project

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend

__all__ = ["edit", "propose_edits", "read", "vocabulary"]


@functools.cache
def vocabulary() -> Vocabulary:
    """Compose's instrument and genre lexicons, as words the request parser knows."""
    return Vocabulary(instruments=tuple((w, i.role, i.program) for i in INSTRUMENTS for w in i.words),
                      genres=tuple(GENRE_BY_NAME))


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
