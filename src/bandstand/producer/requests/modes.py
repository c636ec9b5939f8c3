"""The three execution modes of a studio request (spec studio §5), decided by the
server: REASONING answers (no tools, nothing changes), EDITING applies tool
calls as one revision (all or nothing), COMPOSING proposes a variation (nothing
changes until it is committed). Each runs on a worker thread and says what it
does through the request's emitter (see `producer.requests.stream`); the language
model's side of each is `producer.requests.model`.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bandstand.craft.edits import AddPartEdit, AlternativeEdit, FreezeEdit, TempoEdit
from bandstand.craft.mixer_edits import TransportEdit
from bandstand.errors import Conflict, InvalidInput, VariationConflict
from bandstand.producer.composing.compose_plan import (
    ComposeSpec,
    compose_plan,
    default_parts,
    new_recipe,
    spec_from_structured,
    spec_from_words,
)
from bandstand.producer.execution.running import guarded_generator
from bandstand.producer.requests.ask import answer
from bandstand.producer.requests.intent import Routed, editing_edits, suggestions
from bandstand.producer.requests.job import Job, Outcome
from bandstand.producer.requests.model import compose_with_model, edit_with_model, reason_with_model
from bandstand.producer.requests.plans import (
    Call,
    Plan,
    Step,
    editing_plan,
    order_steps,
    transport_summary,
)
from bandstand.producer.requests.specialists import tone_changes
from bandstand.producer.requests.steps import GENERATOR_NAME, StepRunner
from bandstand.producer.requests.structured_form import read_form
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.producer.sessions.tool_context import tool_context
from bandstand.producer.sessions.wire import variation_stream
from bandstand.protocol.studio import (
    Content,
    GeneratorComplete,
    GeneratorStart,
    Reasoning,
    Status,
    SummaryFinal,
)
from bandstand.score import Section, Song, TimeSignature
from bandstand.studio import Project, Provenance, Variation

if TYPE_CHECKING:
    from bandstand.producer.requests.proposal import EditOutcome

__all__ = ["MODES", "NothingToChange", "StepsFailed", "compose", "edit", "edit_plan", "reason"]

AUTHOR = "studio"


class StepsFailed(InvalidInput):
    """A step of the plan was refused: nothing was changed."""


class NothingToChange(InvalidInput):
    """A request whose every step is already so (the tempo is already 96, the reverb already off):
    an error saying why, with requests that would change something — never a success."""

    def __init__(self, text: str) -> None:
        tries = "; ".join(f"'{s}'" for s in suggestions(text))
        super().__init__(f"nothing to change: '{text.strip()[:60]}' is already how the song sounds; try e.g. {tries}",
                         field="prompt")


def _session(job: Job) -> ProjectSession:
    assert job.prepared.project_id is not None
    return job.studio.library.session(job.prepared.project_id)


# --------------------------------------------------------------------------- REASONING


def reason(job: Job) -> Outcome:
    routed = job.routed
    if routed.intent == "praise":
        text = "Glad you like it — nothing changed."
        job.emit(Content(content=text))
        return Outcome(answer=text, revision=None, edit=_praise(job))
    if job.studio.backend is not None:
        return reason_with_model(job)
    session = _session(job)
    question = routed.structured.request if routed.structured and routed.structured.request else routed.text
    reply = answer(session.head, question or "describe the song")
    for line in reply.reasoning:
        job.emit(Reasoning(content=line))
    job.emit(Content(content=reply.content))
    focus = [reply.figures["section"]] if reply.figures.get("section") else []
    return Outcome(answer=reply.content, revision=session.revision, focus=focus)


def _praise(job: Job) -> EditOutcome | None:
    """Praise of a project, as the iteration tells it: nothing changed on HEAD."""
    from bandstand.producer.requests.proposal import EditOutcome

    request = job.routed.request
    if job.prepared.project_id is None or request is None:
        return None
    return EditOutcome(request.text, "praise", request.edits, _session(job).revision)


# --------------------------------------------------------------------------- EDITING


def _structured_steps(routed: Routed, project: Project) -> list[Any]:
    """A structured edit's Tempo and blocks (Effects, MidiExpressiveness, Automation) as steps."""
    prompt = routed.structured
    if prompt is None:
        return []
    spec = spec_from_structured(prompt)
    spec = ComposeSpec(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__}, "parts": ()})
    return list(compose_plan(project, spec).steps)


def _tone_steps(routed: Routed, project: Project) -> list[Any]:
    """The sound specialist's tone words ("warmer bass sound") as insert-effect steps."""
    if routed.specialist != "sound":
        return []
    return [Step("", f"{t.word.capitalize()} {t.track} sound ({t.effect})", "soundDesign",
                 (Call("add_insert_effect", {"track": t.track, "type": t.effect, "params": t.params}),), t.track)
            for t in tone_changes(routed.text, project)]


def edit_plan(routed: Routed, project: Project, focus: Sequence[str] = ()) -> Plan:
    """The plan of an EDITING request on `project`: the mixer's and the direct edits' steps, and a
    structured prompt's blocks, track by track (what `edit` runs and `preview` shows)."""
    request = routed.request
    direct, _ = editing_edits(request.edits if request else (), project)
    plan = editing_plan(project, direct, list(request.mixer) if request else [], focus)
    extra = [*_structured_steps(routed, project), *_tone_steps(routed, project)]
    if extra:
        plan = Plan(plan.title if plan.steps else "Changing the mix", order_steps([*plan.steps, *extra],
                                                                                [t.name for t in project.tracks]))
    return plan


def _run_plan(job: Job, session: ProjectSession, base: Project, plan: Plan, mode: str,
              generator: Any = None) -> StepRunner:
    """Announce `plan` (two or more calls), run it on a copy of `base`; a failure raises."""
    announced = plan.announced
    if announced:
        plan_id = f"plan-{job.prepared.trace_id.removeprefix('trace-')}"
        event = plan.event(plan_id)  # each step says who handled it, when no agent of a team did
        job.emit(event.model_copy(update={"steps": [s if s.agent_id else s.model_copy(
            update={"agent_id": job.routed.specialist}) for s in event.steps]}))
        job.emit(plan.summary(plan_id))
    runner = StepRunner(base, tool_context(session.ids, generator), job.control, job.emit, mode=mode,
                        announced=announced)
    failure = runner.run(plan)
    if failure is not None:
        label = failure.step.label if failure.step else failure.tool
        raise StepsFailed(f"'{label}' was refused: {failure.message}; nothing was changed")
    return runner


def edit(job: Job) -> Outcome:
    if job.routed.needs_model:
        return edit_with_model(job)
    session = _session(job)
    head = session.head
    request = job.routed.request
    edits = list(request.edits) if request else []
    mixer = list(request.mixer) if request else []
    _, musical = editing_edits(edits, head)
    if musical and all(isinstance(e, FreezeEdit) for e in musical):
        from bandstand.producer.requests.iteration import edit as iterate

        done = iterate(session.session_dir, job.routed.text, session=session, author=AUTHOR)
        summary = f"Frozen: {', '.join(done.frozen) or 'nothing'} (they are kept as they are until unfrozen)"
        job.emit(SummaryFinal(summary=summary, tracks=list(done.frozen)))
        return Outcome(summary=summary, revision=done.revision, focus=list(done.frozen), edit=done)
    plan = edit_plan(job.routed, head, job.prepared.focus)
    transport = [m for m in mixer if isinstance(m, TransportEdit)]
    if not plan.steps:
        if not transport:  # a request that changes nothing never reports success
            raise NothingToChange(job.routed.text)
        summary = transport_summary(head, transport)
        job.emit(SummaryFinal(summary=summary))
        return Outcome(summary=summary, revision=head.revision)
    runner = _run_plan(job, session, head, plan, "editing")
    try:
        entry = session.commit(runner.project, author=AUTHOR, request=job.routed.text, kind="tools",
                               tools=runner.ran, summary=plan.title)
    except VariationConflict as exc:
        raise Conflict(f"the project changed while this ran: {exc}") from exc
    labels = "; ".join(s.label for s in plan.steps)
    summary = f"{plan.title}: {labels}" + (f" — and {transport_summary(head, transport)}" if transport else "")
    job.emit(SummaryFinal(summary=summary[:500], tools_used=runner.tools_used, tracks=runner.tracks))
    return Outcome(summary=summary, revision=entry.revision, focus=list(runner.tracks))


# --------------------------------------------------------------------------- COMPOSING


def _propose(job: Job, session: ProjectSession, base: Project, proposal: Project, *, intent: str,
             explanation: str, details: dict[str, Any]) -> Variation:
    variation = session.propose(proposal, request=job.prepared.prompt[:2000], intent=intent, explanation=explanation,
                                author=AUTHOR, base_revision=base.revision,
                                details={**details, "beats_per_bar": base.beats_per_bar})
    for event in variation_stream(variation, base.beats_per_bar):
        job.emit(event)
    return variation


def _new_project(job: Job, spec: ComposeSpec) -> tuple[ProjectSession, ComposeSpec]:
    """An empty revision 1 whose recipe the parts are written from."""
    import zlib

    assert job.prepared.project_id is not None
    seed = zlib.crc32(job.prepared.prompt.encode("utf-8")) % 100_000
    recipe = new_recipe(spec, seed)
    if not spec.parts:
        spec = ComposeSpec(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__}, "parts": default_parts(recipe)})
    intent, harmony, arrangement = recipe.intent, recipe.harmony, recipe.arrangement
    num, den = intent.time_signature
    song = Song(title=spec.text[:100], tempo=intent.tempo, time_signature=TimeSignature(num, den),
                key=f"{harmony.key} {harmony.mode}",
                sections=[Section(s.name, s.start_bar, s.bars, s.energy) for s in arrangement.sections])
    provenance = Provenance(prompt=job.prepared.prompt[:2000], seeds={"song": seed}, generator="bandstand studio",
                            recipe=recipe.model_dump(mode="json"))
    session = create_from_song(job.studio.out_dir / job.prepared.project_id, song, provenance, author=AUTHOR,
                               request=job.prepared.prompt[:2000])
    return session, spec


def _with_parts(project: Project, spec: ComposeSpec, runner: StepRunner) -> Project:
    """A new project's recipe learns which track holds each part it wrote."""
    recipe = dict(project.provenance.recipe)
    if not recipe:
        return project
    parts = dict(recipe.get("parts") or {})
    variants = dict(recipe.get("variants") or {})
    for part in spec.parts:
        if part.name in runner.tracks:
            parts.setdefault(part.role, part.name)
            variants[f"parts:{part.role}"] = variants.get(f"parts:{part.role}", 0) + 1
    provenance = project.provenance.model_copy(update={"recipe": {**recipe, "parts": parts, "variants": variants}})
    return project.model_copy(update={"provenance": provenance})


def _compose_parts(job: Job) -> Outcome:
    routed = job.routed
    if routed.structured is not None:
        spec = spec_from_structured(routed.structured)
    else:
        words = [e.name or e.role for e in (routed.request.edits if routed.request else ())
                 if isinstance(e, AddPartEdit)]
        spec = spec_from_words(routed.text, words)
    if routed.new_project:
        session, spec = _new_project(job, spec)
        extra: list[Any] = []
    else:
        session = _session(job)
        if not spec.parts:
            raise InvalidInput("say which parts to write, e.g. 'write a bassline and drums' (or Roles: in a "
                               "structured prompt)", field="prompt")
        knobs = spec.emotion.override()
        extra = [*([knobs] if knobs else []), *spec.overrides]
        if spec.form:
            spec = dataclasses.replace(spec, warnings=(*spec.warnings, "Form: the parts were written into the song's "
                                                       "own sections; a Form shapes a new song (send it without a "
                                                       "projectId)"))
    from bandstand.producer.composing.compose import part_generator

    base = session.head
    plan = compose_plan(base, spec)
    generate = guarded_generator(job.control, functools.partial(part_generator, overrides=extra),
                                 timeout=job.studio.timeouts.generator)
    runner = _run_plan(job, session, base, plan, "composing", generator=generate)
    proposal = _with_parts(runner.project, spec, runner) if routed.new_project else runner.project
    variation = _propose(job, session, base, proposal, intent=plan.title,
                         explanation=f"{runner.notes} notes in {len(runner.tracks)} tracks; emotion "
                                     f"{spec.emotion.describe()}",
                         details={"emotion": spec.emotion.as_dict(), "plan": plan.to_json()})
    summary = f"{plan.title}: {len(variation.phrases)} phrases to review ({runner.notes} notes)"
    job.emit(SummaryFinal(summary=summary, tools_used=runner.tools_used, tracks=runner.tracks))
    return Outcome(summary=summary, revision=base.revision, variation_id=variation.id, focus=list(runner.tracks),
                   warnings=list(spec.warnings))


def _part_writer(job: Job) -> Callable[..., Any]:
    """The built-in musicians, saying which part they write (one part of a role at a time)."""
    from bandstand.compose.api import default_part

    locks: dict[str, threading.Lock] = {}
    guard = threading.Lock()

    def write(role: str, *args: Any, **kwargs: Any) -> Any:
        job.control.check()
        with guard:
            lock = locks.setdefault(role, threading.Lock())
        with lock:
            job.emit(GeneratorStart(role=role, generator=GENERATOR_NAME))
            began = time.perf_counter()
            made = default_part(role, *args, **kwargs)
            job.emit(GeneratorComplete(role=role, generator=GENERATOR_NAME, note_count=len(made.track.notes),
                                       duration_ms=round((time.perf_counter() - began) * 1000, 2)))
        return made

    return write


def _iterate(job: Job) -> Outcome:
    """A producer idiom on a composed song: the edits' blast radius written again, as a variation."""
    from bandstand.producer.requests.iteration import propose_edits
    from bandstand.producer.requests.proposal import recipe_of

    session = _session(job)
    head = session.head
    request = job.routed.request
    assert request is not None
    _, musical = editing_edits(request.edits, head)
    alternative = next((e for e in musical if isinstance(e, AlternativeEdit)), None)
    if alternative is not None:
        from bandstand.producer.requests.alternatives import next_alternative

        job.emit(Status(message=f"Trying something different{' for the ' + alternative.target if alternative.target else ''}"))
        done = next_alternative(session, alternative.target, request=job.routed.text, author=AUTHOR)
    else:
        recipe_of(head)
        # tempo words said with an idiom move the tempo map in the variation ("make the bass busier
        # and set the chorus to 140 BPM"): accepted in some phrases, in their bars only
        edits = [e for e in musical if not isinstance(e, FreezeEdit)]
        edits += [e for e in request.edits if isinstance(e, TempoEdit)]
        job.emit(Status(message=f"Working out what '{job.routed.text[:80]}' changes"))
        done = propose_edits(session, job.routed.text, edits, author=AUTHOR, all_edits=request.edits,
                             part_fn=_part_writer(job))
    variation = done.variation
    assert variation is not None
    for event in variation_stream(variation, head.beats_per_bar):
        job.emit(event)
    kept = f"; keeps {', '.join(done.preserved)}" if done.preserved else ""
    summary = f"{variation.intent or 'A change'}: rewrites {', '.join(done.affected) or 'nothing'}{kept} " \
              f"(cost {done.cost}); {len(variation.phrases)} phrases to review"
    job.emit(SummaryFinal(summary=summary[:500], tracks=[t["name"] for t in variation.affected_tracks]))
    names = [t["name"] for t in variation.affected_tracks] or list(done.affected)
    return Outcome(summary=summary, revision=head.revision, variation_id=variation.id, focus=names,
                   warnings=list(done.notes), edit=done)


def _reshape(job: Job) -> Outcome:
    """A `Form:` of its own in `Mode: edit`: the song in that form, as a variation (`form_edit`)."""
    from bandstand.producer.requests.form_edit import reshape
    from bandstand.producer.requests.proposal import EditOutcome
    from bandstand.producer.requests.sensitivity import BlastRadius

    assert job.routed.structured is not None
    session = _session(job)
    base = session.head
    job.emit(Status(message="Lining the form asked for up with the song's sections"))
    done = reshape(base, read_form(job.routed.structured.form), session.ids)
    variation = _propose(job, session, base, done.project, intent="Reshape the form",
                         explanation=f"{done.summary}; every part moves with its bars (accept it whole)",
                         details={"form": [s.model_dump(mode="json") for s in done.project.sections],
                                  "cost": "expensive"})
    names = tuple(t["name"] for t in variation.affected_tracks)
    summary = f"{done.summary}: {len(variation.phrases)} phrases to review"
    job.emit(SummaryFinal(summary=summary[:500], tracks=list(names)))
    radius = BlastRadius(changed=("form",), affected=("arrangement", *names), parts=names, preserved=(), frozen=(),
                         cost="expensive")
    edit = EditOutcome(job.routed.text, "variation", (), base.revision, variation=variation, revision=base.revision,
                       radius=radius, affected=names)
    return Outcome(summary=summary, revision=base.revision, variation_id=variation.id, focus=list(names), edit=edit)


def compose(job: Job) -> Outcome:
    intent = job.routed.intent
    if intent == "compose.form":
        return _reshape(job)
    if intent in ("compose.edit", "compose.mood"):
        return _iterate(job)
    if job.routed.needs_model:
        job.routed = compose_with_model(job)
        return compose(job)
    return _compose_parts(job)


MODES: dict[str, Callable[[Job], Outcome]] = {"REASONING": reason, "EDITING": edit, "COMPOSING": compose}
"""Mode → how it runs."""
