"""What a request would do, without doing it (`POST /api/v1/preview`): its mode,
intent and confidence as the stream's `state` would say, and the plan — the
steps with their labels and tool calls — it would announce. Nothing is written:
a new project's plan is made against the empty project it would start as.
A request the language model routes is planned by the model when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bandstand.producer.composing.compose_plan import (
    ComposeSpec,
    compose_plan,
    default_parts,
    new_recipe,
    spec_from_structured,
    spec_from_words,
)
from bandstand.producer.requests.intent import editing_edits
from bandstand.producer.requests.job import Prepared
from bandstand.producer.requests.plans import Plan, Step, transport_summary
from bandstand.protocol.studio import EXECUTION_MODES
from bandstand.studio import Project
from bandstand.studio.model import Section, TimeSignature

if TYPE_CHECKING:
    from bandstand.producer.sessions.studio import Studio

__all__ = ["preview"]


def _empty(spec: ComposeSpec, prompt: str) -> tuple[Project, ComposeSpec]:
    import zlib


    recipe = new_recipe(spec, zlib.crc32(prompt.encode("utf-8")) % 100_000)
    if not spec.parts:
        spec = ComposeSpec(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__}, "parts": default_parts(recipe)})
    num, den = recipe.intent.time_signature
    project = Project(id="preview", name=spec.text[:100], tempo=recipe.intent.tempo,
                      key=f"{recipe.harmony.key} {recipe.harmony.mode}",
                      time_signature=TimeSignature(numerator=num, denominator=den),
                      sections=tuple(Section(name=s.name, start_bar=s.start_bar, bars=s.bars, energy=s.energy)
                                     for s in recipe.arrangement.sections))
    return project, spec


def _iteration_plan(project: Project, prepared: Prepared) -> Plan:
    from bandstand.producer.requests.iteration_plan import plan_edits
    from bandstand.producer.requests.metre_plan import metres_of
    from bandstand.producer.requests.proposal import part_keys, recipe_of
    from bandstand.producer.requests.sensitivity import blast_radius

    request = prepared.routed.request
    _, musical = editing_edits(request.edits if request else (), project)
    recipe = recipe_of(project)
    keys = part_keys(project, recipe)
    plan = plan_edits(recipe, list(keys), [e for e in musical if e.kind not in ("freeze", "alternative")],
                      metres=metres_of(project))
    radius = blast_radius(plan.changed, list(keys), plan.frozen)
    steps = tuple(Step(f"s{i}", f"Rewrite {keys.get(k, k)}", "composition", (), keys.get(k, k), kind="generate",
                       role=k) for i, k in enumerate(radius.parts, start=1))
    return Plan(f"Rewriting {', '.join(keys.get(k, k) for k in radius.parts) or 'nothing'} (cost {radius.cost})", steps,
                tuple(plan.notes))


def _plan(studio: Studio, prepared: Prepared) -> Plan | None:
    routed = prepared.routed
    project = studio.library.session(prepared.project_id).head if prepared.project_id and not routed.new_project \
        else None
    if routed.mode == "REASONING" or routed.needs_model:
        return None
    if routed.mode == "EDITING":
        from bandstand.producer.requests.modes import edit_plan

        assert project is not None
        request = routed.request
        plan = edit_plan(routed, project, prepared.focus)
        if not plan.steps and request and request.mixer:
            return Plan(transport_summary(project, list(request.mixer)), ())
        return plan
    if routed.intent in ("compose.edit", "compose.mood"):
        assert project is not None
        return _iteration_plan(project, prepared)
    if routed.intent == "compose.form":  # the song in the new form, said in words (nothing is written)
        from bandstand.producer.requests.form_edit import reshape
        from bandstand.producer.requests.structured_form import read_form
        from bandstand.studio import SeededIds

        assert project is not None and routed.structured is not None
        return Plan(reshape(project, read_form(routed.structured.form), SeededIds("preview")).summary, ())
    if routed.structured is not None:
        spec = spec_from_structured(routed.structured)
    else:
        words = [getattr(e, "name", "") or getattr(e, "role", "") for e in (routed.request.edits if routed.request else ())
                 if getattr(e, "kind", "") == "add_part"]
        spec = spec_from_words(routed.text, words)
    if project is None:
        project, spec = _empty(spec, prepared.prompt)
    return compose_plan(project, spec)


def preview(studio: Studio, prepared: Prepared) -> dict[str, Any]:
    """The request's state and plan, nothing run (see the module docstring)."""
    routed = prepared.routed
    plan = _plan(studio, prepared)
    return {
        "state": routed.mode, "intent": routed.intent, "confidence": round(routed.confidence, 3),
        "executionMode": EXECUTION_MODES[routed.mode], "projectId": prepared.project_id,
        "newProject": routed.new_project, "emotion": routed.emotion.as_dict(),
        "plan": plan.to_json() if plan is not None else None,
        "plannedBy": "the language model, when it runs" if routed.needs_model else "the rules",
    }

