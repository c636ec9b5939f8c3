"""The eight stage nodes: thin functions of a `StageContext` that call the stage
functions (intent, harmony, arrangement, parts, sound, assembly, validation,
output), say what they did in one line, and say how their result is saved in
and restored from a checkpoint.

`build_nodes(handlers)` returns the table the engine runs; `handlers` may
replace any stage (key 1–8) or the per-part generator (key "part"), which is
how tests drive the engine with slow, failing or flaky stages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bandstand.compose import codec
from bandstand.compose.engine import StageContext, StageNode, StageResult, run_in_threads
from bandstand.compose.models.arrangement import ArrangementPlan, SectionPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.state import STAGE_NAMES, PipelineState
from bandstand.protocol import compose as ev

PartFn = Callable[[str, Intent, Any, ArrangementPlan, int], Any]


# ----------------------------------------------------------------------------- 1 intent

def make_run_intent(backend: Any | None) -> Callable[[StageContext], StageResult]:
    """Stage 1: the rules read the prompt; with a language-model `backend` its reading is
    merged in first (and corrected by the same rules)."""
    def run_intent(ctx: StageContext) -> StageResult:
        from bandstand.compose.intent import Overrides, decompose, extract

        cfg = ctx.state.config
        overrides = Overrides(tempo=cfg.tempo, key=cfg.key, mode=cfg.mode, bars=cfg.bars, genre=cfg.genre)
        extraction = None
        if backend is not None:
            extraction = ctx.tool("llm_extract", extract, backend, ctx.state.raw_prompt, ctx.seed())
        intent = ctx.tool("decompose", decompose, ctx.state.raw_prompt, seed=ctx.seed(), overrides=overrides,
                          extraction=extraction)
        return StageResult(intent, intent.model_dump(mode="json"), intent.summary)
    return run_intent


def apply_intent(state: PipelineState, intent: Intent) -> None:
    if not isinstance(intent, Intent):
        return
    state.intent = intent
    song = state.song_state
    song.title, song.genre, song.key, song.mode = intent.summary, list(intent.genre), intent.key, intent.mode
    song.tempo, song.time_signature = intent.tempo, intent.time_signature


# ----------------------------------------------------------------------------- 2 harmony

def run_harmony(ctx: StageContext) -> StageResult:
    from bandstand.compose.harmony import build_harmony

    plan = ctx.tool("build_harmony", build_harmony, ctx.artifact(1), ctx.seed())
    return StageResult(plan, plan.model_dump(mode="json"), plan.summary)


def restore_harmony(data: Any, artifacts: dict[int, Any]) -> Any:
    from bandstand.compose.models.harmony import HarmonyPlan

    return HarmonyPlan.model_validate(data)


def apply_harmony(state: PipelineState, plan: Any) -> None:
    if not hasattr(plan, "chords"):
        return
    state.song_state.progression = [c.symbol for c in plan.chords]


# ----------------------------------------------------------------------------- 3 arrangement

def supported_roles() -> tuple[str, ...]:
    from bandstand.compose.parts import ROLES

    return ROLES


def _roles(ctx: StageContext) -> list[str]:
    from bandstand.compose.arrangement import resolve_roles

    return resolve_roles(ctx.artifact(1), ctx.state.config.parts, supported_roles())


def run_arrangement(ctx: StageContext) -> StageResult:
    from bandstand.compose.arrangement import build_arrangement

    harmony = ctx.artifact(2)
    plan = ctx.tool("build_arrangement", build_arrangement, ctx.artifact(1), [c.bars for c in harmony.chords],
                    _roles(ctx), ctx.seed())
    flow = " → ".join(f"{s.name} {s.bars}" for s in plan.sections)
    return StageResult(plan, plan.model_dump(mode="json"), f"{plan.form_name} form, {plan.total_bars} bars: {flow}")


def skipped_arrangement(ctx: StageContext) -> ArrangementPlan:
    """With stage 3 skipped the song is one loop of the requested length, everyone playing."""
    intent: Intent = ctx.artifact(1)
    harmony = ctx.artifact(2)
    from bandstand.compose.arrangement import chord_cycle

    bars = intent.duration.max_bars if "duration" not in intent.inferred_fields else 32
    cycle = chord_cycle([c.bars for c in harmony.chords])
    roles = _roles(ctx)
    energy = intent.energy if intent.energy is not None else 0.6
    section = SectionPlan(name="Loop", kind="loop", start_bar=1, bars=bars, energy=energy, roles=roles,
                          chord_indices=[cycle[b % len(cycle)] for b in range(bars)], transition="cut")
    return ArrangementPlan(form_name="loop", generic_fallback=True, total_bars=bars, sections=[section],
                           bar_energy=[energy] * bars)


def apply_arrangement(state: PipelineState, plan: ArrangementPlan) -> None:
    if not isinstance(plan, ArrangementPlan):
        return
    state.song_state.sections = [s.name for s in plan.sections]
    state.song_state.total_bars = plan.total_bars
    state.song_state.parts = sorted(plan.all_roles(), key=role_order)


# ----------------------------------------------------------------------------- 4 parts

ROLE_ORDER = ("drums", "bass", "sub_bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody")


def role_order(role: str) -> tuple[int, str]:
    return (ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER), role)


def default_part(role: str, intent: Intent, harmony: Any, arrangement: ArrangementPlan, seed: int) -> Any:
    from bandstand.compose.parts import generate_part

    return generate_part(role, intent, harmony, arrangement, seed)


def make_run_parts(part_fn: PartFn) -> Callable[[StageContext], StageResult]:
    def run_parts(ctx: StageContext) -> StageResult:
        intent, harmony, arrangement = ctx.artifact(1), ctx.artifact(2), ctx.artifact(3)

        def task(role: str) -> Callable[[], Any]:
            def go() -> Any:
                ctx.check_cancelled()
                t0 = time.perf_counter()
                result = ctx.tool(f"generate_part:{role}", part_fn, role, intent, harmony, arrangement,
                                  ctx.seed(part=role))
                ctx.emit(ev.PartCompleted(pipeline_id=ctx.state.pipeline_id, role=role,
                                          notes=len(result.track.notes),
                                          duration_ms=round((time.perf_counter() - t0) * 1000, 3)))
                return result
            return go

        roles = sorted(arrangement.all_roles(), key=role_order)
        results = run_in_threads({r: task(r) for r in roles}, ctx.state.config.parallel_parts)
        ctx.check_cancelled()
        output = {r: {"stats": p.stats.model_dump(mode="json"), "track": codec.encode_track(p.track)}
                  for r, p in results.items()}
        counts = ", ".join(f"{r} {len(p.track.notes)}" for r, p in results.items())
        return StageResult(results, output, f"{len(results)} parts ({counts} notes)")
    return run_parts


def restore_parts(data: Any, artifacts: dict[int, Any]) -> dict[str, Any]:
    from bandstand.compose.models.parts import PartResult, PartStats

    return {role: PartResult(track=codec.decode_track(v["track"]), stats=PartStats.model_validate(v["stats"]))
            for role, v in data.items()}


# ----------------------------------------------------------------------------- 5 sound

def run_sound(ctx: StageContext) -> StageResult:
    from bandstand.compose.sound import build_sound

    parts = ctx.artifact(4)
    plan = ctx.tool("build_sound", build_sound, ctx.artifact(1), {r: p.track.program for r, p in parts.items()})
    return StageResult(plan, plan.model_dump(mode="json"), plan.summary)


def restore_sound(data: Any, artifacts: dict[int, Any]) -> Any:
    from bandstand.compose.models.sound import SoundPlan

    return SoundPlan.model_validate(data)


# ----------------------------------------------------------------------------- 6 assembly

def run_assembly(ctx: StageContext) -> StageResult:
    from bandstand.compose.assembly import assemble

    parts = ctx.artifact(4)
    song = ctx.tool("assemble", assemble, [p.track for p in parts.values()], ctx.artifact(1), ctx.artifact(2),
                    ctx.artifact(3))
    notes = sum(len(t.notes) for t in song.tracks)
    markers = len(song.markers) or len(song.sections)
    output = {"tracks": len(song.tracks), "notes": notes, "markers": markers}
    return StageResult(song, output, f"{len(song.tracks)} tracks + conductor, {notes} notes, {markers} section markers")


# ----------------------------------------------------------------------------- 7 validation

def run_validation(ctx: StageContext) -> StageResult:
    from bandstand.compose.validation import evaluate_quality, gate

    score = ctx.tool("evaluate_quality", evaluate_quality, ctx.artifact(6), ctx.artifact(1), ctx.artifact(2),
                     ctx.artifact(3))
    verdict = ctx.tool("gate", gate, score)
    axes = " ".join(f"{k} {v:.2f}" for k, v in score.axes.items())
    output = {"score": score.model_dump(mode="json"), "gate": verdict.model_dump(mode="json")}
    summary = f"quality {score.mean:.2f} ({axes}) — {'passed' if verdict.passed else 'gate failed: ' + verdict.reason}"
    regenerate = None if verdict.passed else (verdict.responsible_stage or None)
    return StageResult(output, output, summary, quality_score=round(score.mean, 4), regenerate_from=regenerate,
                       failing_axes=tuple(verdict.failing_axes))


# ----------------------------------------------------------------------------- 8 output

def run_output(ctx: StageContext) -> StageResult:
    from bandstand.compose.harmony import progression_file
    from bandstand.compose.output import write_session

    harmony = ctx.artifact(2)
    quality = ctx.artifacts.get(7)
    out = ctx.tool("write_session", write_session, Path(ctx.state.session_dir), ctx.state, ctx.artifact(1),
                   harmony, ctx.artifact(3), ctx.artifact(4), ctx.artifacts.get(5), ctx.artifacts.get(6),
                   quality["score"] if quality else None, progression_file(harmony))
    files = [f.path for f in out.files]
    degraded = "; ".join(out.degraded) or None
    return StageResult({"files": files}, {"files": files, "degraded": out.degraded},
                       f"{len(files)} files in {ctx.state.session_dir}", degraded=degraded)


def apply_output(state: PipelineState, result: Any) -> None:
    if not isinstance(result, dict) or "files" not in result:
        return
    state.song_state.files = list(result["files"])


def restore_song(data: Any, artifacts: dict[int, Any]) -> Any:
    """Assembly is a pure function of stages 1–4, so its checkpoint holds only a summary and
    the song is assembled again from the restored parts (the same bytes)."""
    from bandstand.compose.assembly import assemble

    parts = artifacts[4]
    return assemble([p.track for p in parts.values()], artifacts[1], artifacts[2], artifacts[3])


def _restore_intent(data: Any, artifacts: dict[int, Any]) -> Intent:
    return Intent.model_validate(data)


def _restore_arrangement(data: Any, artifacts: dict[int, Any]) -> ArrangementPlan:
    return ArrangementPlan.model_validate(data)


def build_nodes(handlers: Mapping[int | str, Callable[..., Any]] | None = None,
                intent_backend: Any | None = None) -> dict[int, StageNode]:
    """The stage table; `handlers` replaces stages by number or the part generator by "part";
    `intent_backend` (an `AgentBackend`) reads the prompt alongside the rules in stage 1."""
    handlers = dict(handlers or {})
    part_fn: PartFn = handlers.pop("part", default_part)
    nodes = {
        1: StageNode(1, STAGE_NAMES[1], make_run_intent(intent_backend), restore=_restore_intent, apply=apply_intent),
        2: StageNode(2, STAGE_NAMES[2], run_harmony, restore=restore_harmony, requires=(1,), apply=apply_harmony),
        3: StageNode(3, STAGE_NAMES[3], run_arrangement, restore=_restore_arrangement, requires=(1, 2),
                     on_skip=skipped_arrangement, apply=apply_arrangement),
        4: StageNode(4, STAGE_NAMES[4], make_run_parts(part_fn), restore=restore_parts, requires=(1, 2, 3)),
        5: StageNode(5, STAGE_NAMES[5], run_sound, restore=restore_sound, requires=(1, 4)),
        6: StageNode(6, STAGE_NAMES[6], run_assembly, restore=restore_song, requires=(1, 2, 3, 4)),
        7: StageNode(7, STAGE_NAMES[7], run_validation, requires=(1, 2, 3, 6)),
        8: StageNode(8, STAGE_NAMES[8], run_output, requires=(1, 2, 3, 4), apply=apply_output),
    }
    for key, fn in handlers.items():
        if not isinstance(key, int) or key not in nodes:
            raise ValueError(f"unknown stage handler key {key!r}; use 1–8 or 'part'")
        old = nodes[key]
        nodes[key] = StageNode(key, old.name, fn, restore=old.restore, requires=old.requires, on_skip=old.on_skip,
                               apply=old.apply)
    return nodes
