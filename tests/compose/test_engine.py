"""The pipeline engine driven by real stage handlers written here: slow ones, failing
ones, flaky ones, ones that wait to be cancelled. Each test runs a whole engine
with a real checkpoint file."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.compose.engine import Engine, StageContext, StageNode, StageResult, derive_seed
from bandstand.compose.state import STAGE_NAMES, PipelineConfig, PipelineState
from bandstand.errors import CheckpointError, InvalidInput
from bandstand.protocol import compose as ev

Handler = Callable[[StageContext], Any]


def ok(n: int) -> Handler:
    def handler(ctx: StageContext) -> StageResult:
        return StageResult({"stage": n, "seed": ctx.seed()}, {"stage": n, "seed": ctx.seed()}, f"stage {n} done")
    return handler


def nodes(**overrides: Handler) -> dict[int, StageNode]:
    table = {n: StageNode(n, STAGE_NAMES[n], ok(n), requires=tuple(range(1, n)) if n <= 4 else (1,))
             for n in range(1, 9)}
    for key, fn in overrides.items():
        n = int(key.removeprefix("s"))
        old = table[n]
        table[n] = StageNode(n, old.name, fn, requires=old.requires)
    return table


class Run:
    """A state, a checkpoint in tmp_path and the events of one engine run."""

    def __init__(self, tmp_path: Path, **config: Any) -> None:
        self.state = PipelineState.start("test prompt", PipelineConfig(**config), seed=11)
        self.state.session_dir = str(tmp_path)
        self.checkpoint = FileCheckpoint.in_session(tmp_path)
        self.events: list[ev.ComposeEvent] = []

    def engine(self, table: dict[int, StageNode], **kw: Any) -> Engine:
        return Engine(self.state, table, checkpoint=self.checkpoint, on_event=self.events.append, **kw)

    def types(self) -> list[str]:
        return [e.type for e in self.events]  # type: ignore[attr-defined]


def test_all_stages_complete_in_order_with_events_and_checkpoints(tmp_path: Path) -> None:
    run = Run(tmp_path)
    state = run.engine(nodes()).run()
    assert state.status == "completed" and state.current_stage == 9
    assert [r.status for r in state.stages.values()] == ["completed"] * 8
    started = [e.stage for e in run.events if isinstance(e, ev.StageStarted)]
    assert started == list(range(1, 9))
    assert run.types()[0] == "pipeline_started" and run.types()[-1] == "pipeline_finished"
    assert [e.line() for e in run.events if isinstance(e, ev.StageCompleted)][1] == "✓ Stage 2/8: stage 2 done"
    saved = run.checkpoint.load()
    assert saved.status == "completed" and saved.recovery.last_successful_stage == 8
    assert run.checkpoint.backup.exists()


def test_retries_are_recorded(tmp_path: Path) -> None:
    calls = {"n": 0}

    def flaky(ctx: StageContext) -> StageResult:
        calls["n"] += 1
        if calls["n"] < 3:
            raise RuntimeError(f"glitch {calls['n']}")
        return ok(2)(ctx)

    run = Run(tmp_path)
    state = run.engine(nodes(s2=flaky)).run()
    rec = state.stages[2]
    assert state.status == "completed"
    assert rec.retry_count == 2 and state.recovery.total_retries == 2
    assert [a.message for a in rec.attempts] == ["glitch 1", "glitch 2"]
    assert all(a.code == "TOOL_EXECUTION_FAILED" for a in rec.attempts)
    retries = [e for e in run.events if isinstance(e, ev.StageRetry)]
    assert [e.attempt for e in retries] == [2, 3]


def test_max_retries_fails_the_run_with_every_root_cause(tmp_path: Path) -> None:
    def broken(ctx: StageContext) -> None:
        raise ValueError(f"no chords on attempt {ctx.attempt}")

    run = Run(tmp_path, max_retries_per_stage=2)
    state = run.engine(nodes(s2=broken)).run()
    assert state.status == "failed"
    rec = state.stages[2]
    assert rec.status == "failed" and rec.retry_count == 2 and len(rec.attempts) == 3
    assert state.error is not None and state.error.code == "TOOL_EXECUTION_FAILED"
    for attempt in (1, 2, 3):
        assert f"no chords on attempt {attempt}" in state.error.message
    assert all(state.stages[n].status == "pending" for n in range(3, 9))
    assert run.checkpoint.load().status == "failed"


def test_user_errors_are_not_retried(tmp_path: Path) -> None:
    def bad(ctx: StageContext) -> None:
        raise InvalidInput("unknown key 'H'")

    state = Run(tmp_path).engine(nodes(s1=bad)).run()
    assert state.status == "failed"
    assert state.stages[1].retry_count == 0 and state.error is not None and state.error.code == "INVALID_INPUT"


def test_timeout_is_TIMEOUT_and_retried(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(ctx: StageContext) -> None:
        release.wait(5)

    run = Run(tmp_path, stage_timeout=0.2, max_retries_per_stage=1)
    state = run.engine(nodes(s4=slow)).run()
    release.set()
    rec = state.stages[4]
    assert state.status == "failed"
    assert [a.code for a in rec.attempts] == ["TIMEOUT", "TIMEOUT"]
    assert rec.error is not None and rec.error.code == "TIMEOUT"


def test_pipeline_timeout(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(ctx: StageContext) -> None:
        release.wait(5)

    state = Run(tmp_path, pipeline_timeout=0.3, stage_timeout=60).engine(nodes(s2=slow)).run()
    release.set()
    assert state.status == "failed" and state.error is not None and state.error.code == "TIMEOUT"
    assert state.stages[2].retry_count == 0


def test_skip_stages_and_their_dependents(tmp_path: Path) -> None:
    table = nodes()
    table[7] = StageNode(7, "validation", ok(7), requires=(6,))
    run = Run(tmp_path, skip_stages=[5, 6])
    state = run.engine(table).run()
    assert state.status == "completed"
    assert [state.stages[n].status for n in (5, 6, 7)] == ["skipped"] * 3
    assert "needs stage 6" in state.stages[7].summary
    assert [e.stage for e in run.events if isinstance(e, ev.StageSkipped)] == [5, 6, 7]


@pytest.mark.parametrize("stage", [7, 8])
def test_failure_in_stage_7_or_8_is_completed_partial(tmp_path: Path, stage: int) -> None:
    def broken(ctx: StageContext) -> None:
        raise OSError("disk full")

    state = Run(tmp_path, max_retries_per_stage=1).engine(nodes(**{f"s{stage}": broken})).run()
    assert state.status == "completed_partial"
    assert state.stages[stage].status == "failed"
    assert state.error is not None and state.error.code == "FILE_WRITE_FAILED" and state.error.recovery_hint


def test_degraded_result_is_completed_partial(tmp_path: Path) -> None:
    def degraded(ctx: StageContext) -> StageResult:
        return StageResult({}, {}, "wrote MIDI only", degraded="no SoundFont: audio not rendered")

    state = Run(tmp_path).engine(nodes(s8=degraded)).run()
    assert state.status == "completed_partial" and state.stages[8].status == "completed"
    assert state.error is not None and "SoundFont" in state.error.message


def test_critical_failure_stops_before_later_stages(tmp_path: Path) -> None:
    ran: list[int] = []

    def record(n: int) -> Handler:
        def handler(ctx: StageContext) -> StageResult:
            ran.append(n)
            return ok(n)(ctx)
        return handler

    def broken(ctx: StageContext) -> None:
        raise RuntimeError("generator crashed")

    table = nodes(s4=broken, s5=record(5), s6=record(6))
    state = Run(tmp_path, max_retries_per_stage=0).engine(table).run()
    assert state.status == "failed" and ran == []


def test_approval_gate_pauses_then_approve_continues_from_the_checkpoint(tmp_path: Path) -> None:
    run = Run(tmp_path, approval_gates=[2])
    state = run.engine(nodes()).run()
    assert state.status == "paused" and state.paused_at_stage == 2
    assert state.stages[3].status == "pending"
    assert isinstance(run.events[-1], ev.Paused)

    loaded = run.checkpoint.load()
    assert loaded.status == "paused"
    engine = Engine(loaded, nodes(), checkpoint=run.checkpoint)
    engine.run()
    assert loaded.status == "paused"  # no decision yet: still waiting
    engine.approve()
    final = engine.run()
    assert final.status == "completed"
    assert [h.action for h in final.song_state.history].count("approved") == 1


def test_reject_redoes_the_stage_with_a_new_seed(tmp_path: Path) -> None:
    answers = iter(["reject", "approve"])
    run = Run(tmp_path, approval_gates=[2])
    seeds: list[int] = []

    def harmony(ctx: StageContext) -> StageResult:
        seeds.append(ctx.seed())
        return ok(2)(ctx)

    state = run.engine(nodes(s2=harmony), approver=lambda s, n, summary: next(answers)).run()
    assert state.status == "completed"
    assert len(seeds) == 2 and seeds[0] != seeds[1]
    assert state.stages[2].variant == 1


def test_cancel_leaves_a_resumable_checkpoint(tmp_path: Path) -> None:
    entered = threading.Event()

    def waits(ctx: StageContext) -> StageResult:
        entered.set()
        while not ctx.abandoned:
            threading.Event().wait(0.01)
        ctx.check_cancelled()
        return ok(3)(ctx)

    run = Run(tmp_path)
    engine = run.engine(nodes(s3=waits))
    threading.Thread(target=lambda: (entered.wait(5), engine.cancel()), daemon=True).start()
    state = engine.run()
    assert state.status == "cancelled"
    assert state.error is not None and state.error.code == "USER_CANCELLED"
    saved = run.checkpoint.load()
    assert saved.status == "cancelled" and saved.recovery.last_successful_stage == 2
    assert saved.stages[3].status == "pending"

    resumed = Engine(saved, nodes(), checkpoint=run.checkpoint).run()
    assert resumed.status == "completed"


def test_quality_gate_regenerates_the_responsible_stage_then_passes(tmp_path: Path) -> None:
    verdicts = iter([4, None])

    def validation(ctx: StageContext) -> StageResult:
        target = next(verdicts)
        return StageResult({}, {}, "gate" if target else "passed", quality_score=0.4 if target else 0.9,
                           regenerate_from=target, failing_axes=("rhythm",) if target else ())

    run = Run(tmp_path)
    state = run.engine(nodes(s7=validation)).run()
    assert state.status == "completed"
    assert state.stages[4].variant == 1 and state.stages[7].quality_score == 0.9
    assert [e.regenerate_from for e in run.events if isinstance(e, ev.QualityRetry)] == [4]


def test_quality_gate_that_keeps_failing_is_bounded_and_partial(tmp_path: Path) -> None:
    rounds = {"n": 0}

    def validation(ctx: StageContext) -> StageResult:
        rounds["n"] += 1
        return StageResult({}, {}, "harmony 0.3", quality_score=0.3, regenerate_from=2, failing_axes=("harmony",))

    state = Run(tmp_path, quality_regenerations=2).engine(nodes(s7=validation)).run()
    assert rounds["n"] == 3
    assert state.status == "completed_partial"
    assert state.stages[7].status == "failed" and state.stages[7].error is not None
    assert state.stages[7].error.code == "QUALITY_GATE_FAILED"
    assert state.stages[8].status == "completed"


def test_quality_gate_off_keeps_the_first_song(tmp_path: Path) -> None:
    def validation(ctx: StageContext) -> StageResult:
        return StageResult({}, {}, "low", quality_score=0.3, regenerate_from=4)

    state = Run(tmp_path, quality_gate=False).engine(nodes(s7=validation)).run()
    assert state.status == "completed" and state.stages[4].variant == 0


def test_derived_seeds_are_stable_and_independent_per_part() -> None:
    assert derive_seed(7, 4, "bass") == derive_seed(7, 4, "bass")
    assert len({derive_seed(7, 4, r) for r in ("drums", "bass", "chords", "lead", "pad")}) == 5
    assert derive_seed(7, 4, "bass", 1) != derive_seed(7, 4, "bass", 0)
    assert derive_seed(7, 2) != derive_seed(8, 2)


def test_checkpoint_falls_back_to_the_backup_and_reports_corruption(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.engine(nodes()).run()
    run.checkpoint.path.write_text("{ not json", encoding="utf-8")
    assert run.checkpoint.load().status in ("completed", "running")
    run.checkpoint.backup.write_text("[]", encoding="utf-8")
    with pytest.raises(CheckpointError, match="corrupt"):
        run.checkpoint.load()


def test_checkpoint_from_another_schema_version_is_refused(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.engine(nodes()).run()
    data = json.loads(run.checkpoint.path.read_text(encoding="utf-8"))
    data["version"] = "9.0.0"
    run.checkpoint.path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="cannot be migrated"):
        run.checkpoint.load()


def test_state_round_trips_through_json(tmp_path: Path) -> None:
    run = Run(tmp_path)
    state = run.engine(nodes()).run()
    assert PipelineState.model_validate_json(state.model_dump_json()) == state


def test_engine_needs_every_stage(tmp_path: Path) -> None:
    table = nodes()
    del table[5]
    with pytest.raises(ValueError, match="missing"):
        Run(tmp_path).engine(table)


def test_tool_calls_are_recorded(tmp_path: Path) -> None:
    def uses_tools(ctx: StageContext) -> StageResult:
        ctx.tool("measure", lambda x: x * 2, 21)
        return ok(5)(ctx)

    state = Run(tmp_path).engine(nodes(s5=uses_tools)).run()
    calls = state.stages[5].tool_calls
    assert [(c.name, c.success) for c in calls] == [("measure", True)]
