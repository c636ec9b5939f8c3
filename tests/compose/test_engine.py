"""The graph engine driven by real node handlers written here: slow ones, failing
ones, flaky ones, ones that wait to be cancelled. Each test runs a whole engine
over a graph shaped like compose's (three plan nodes, a fan-out of part nodes,
then sound, assembly, validation and output) with a real checkpoint file."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.compose.engine import Engine
from bandstand.compose.graph import Artifacts, Fanout, Graph
from bandstand.compose.nodes import Node, NodeContext, NodeResult, derive_seed
from bandstand.compose.state import PipelineConfig, PipelineState
from bandstand.errors import CheckpointError, InvalidInput
from bandstand.protocol import compose as ev

Handler = Callable[[NodeContext], Any]
ROLES = ("drums", "bass", "lead")
PLAN = ("intent", "harmony", "arrangement")
AFTER = ("sound", "assembly", "validation", "output")
ORDER = [*PLAN, *(f"parts:{r}" for r in ROLES), *AFTER]


def ok(name: str) -> Handler:
    def handler(ctx: NodeContext) -> NodeResult:
        value = {"node": name, "seed": ctx.seed()}
        if name == "arrangement":
            value["roles"] = list(ROLES)
        return NodeResult(value, value, f"{name} done")
    return handler


def graph(part: Handler | None = None, critical_parts: bool = True, flags: dict[str, dict[str, Any]] | None = None,
          **handlers: Handler) -> Graph:
    """The graph, with `handlers` by node name, `part` for every part, and `flags` (Node fields such
    as `deterministic`) by node name ("parts" for every part)."""
    flags = flags or {}

    def node(name: str, inputs: tuple[str, ...], **kw: Any) -> Node:
        return Node(name, handlers.get(name, ok(name)), inputs=inputs, output=dict, **kw, **flags.get(name, {}))

    def make(role: str) -> Node:
        return Node(f"parts:{role}", part or ok(f"parts:{role}"), inputs=("arrangement",), output=dict,
                    critical=critical_parts, seed_key="4", member=role, **flags.get("parts", {}))

    def members(artifacts: Artifacts) -> list[str]:
        return list(artifacts["arrangement"]["roles"])

    return Graph([
        node("intent", (), critical=True),
        node("harmony", ("intent",), critical=True),
        node("arrangement", ("intent", "harmony"), critical=True),
        Fanout("parts", after=("arrangement",), members=members, make=make, critical=True),
        node("sound", ("intent", "parts")),
        node("assembly", ("intent", "parts")),
        node("validation", ("assembly",)),
        node("output", ("intent", "parts"), optional=("sound", "assembly", "validation")),
    ])


class Run:
    """A state, a checkpoint in tmp_path and the events of one engine run."""

    def __init__(self, tmp_path: Path, **config: Any) -> None:
        self.state = PipelineState.start("test prompt", PipelineConfig(**config), seed=11)
        self.state.session_dir = str(tmp_path)
        self.checkpoint = FileCheckpoint.in_session(tmp_path)
        self.events: list[ev.ComposeEvent] = []

    def engine(self, g: Graph, **kw: Any) -> Engine:
        return Engine(self.state, g, checkpoint=self.checkpoint, on_event=self.events.append, **kw)

    def types(self) -> list[str]:
        return [e.type for e in self.events]  # type: ignore[attr-defined]

    def started(self) -> list[str]:
        return [e.node for e in self.events if isinstance(e, ev.NodeStarted)]


def test_all_nodes_complete_in_graph_order_with_events_and_checkpoints(tmp_path: Path) -> None:
    run = Run(tmp_path)
    state = run.engine(graph()).run()
    assert state.status == "completed" and state.current_node is None
    assert list(state.nodes) == ORDER
    assert [r.status for r in state.nodes.values()] == ["completed"] * len(ORDER)
    started = run.started()
    assert started[:3] == list(PLAN) and set(started[3:6]) == {f"parts:{r}" for r in ROLES}
    assert started.index("validation") > started.index("assembly") and started[-1] == "output"
    assert run.types()[0] == "pipeline_started" and run.types()[-1] == "pipeline_finished"
    assert [e.line() for e in run.events if isinstance(e, ev.NodeCompleted)][1] == "✓ harmony — harmony done"
    saved = run.checkpoint.load()
    assert saved.status == "completed" and saved.recovery.last_successful_node == "output"
    assert list(saved.nodes) == ORDER
    assert run.checkpoint.backup.exists()


def test_part_nodes_run_side_by_side_with_their_own_seeds(tmp_path: Path) -> None:
    barrier = threading.Barrier(len(ROLES), timeout=10)

    def together(ctx: NodeContext) -> NodeResult:
        barrier.wait()
        return ok(ctx.node.name)(ctx)

    state = Run(tmp_path).engine(graph(part=together)).run()
    assert state.status == "completed" and not barrier.broken
    seeds = {r: state.nodes[f"parts:{r}"].output["seed"] for r in ROLES}
    assert seeds == {r: derive_seed(11, "4", r) for r in ROLES} and len(set(seeds.values())) == len(ROLES)


def test_parts_run_one_after_another_when_parallel_is_off(tmp_path: Path) -> None:
    inside = {"now": 0, "most": 0}
    lock = threading.Lock()

    def counted(ctx: NodeContext) -> NodeResult:
        with lock:
            inside["now"] += 1
            inside["most"] = max(inside["most"], inside["now"])
        threading.Event().wait(0.02)
        with lock:
            inside["now"] -= 1
        return ok(ctx.node.name)(ctx)

    state = Run(tmp_path, parallel_parts=False).engine(graph(part=counted)).run()
    assert state.status == "completed" and inside["most"] == 1


def test_retries_are_recorded(tmp_path: Path) -> None:
    calls = {"n": 0}

    def flaky(ctx: NodeContext) -> NodeResult:
        calls["n"] += 1
        if calls["n"] < 3:
            raise RuntimeError(f"glitch {calls['n']}")
        return ok("harmony")(ctx)

    run = Run(tmp_path)
    state = run.engine(graph(harmony=flaky)).run()
    rec = state.nodes["harmony"]
    assert state.status == "completed"
    assert rec.retry_count == 2 and state.recovery.total_retries == 2
    assert [a.message for a in rec.attempts] == ["glitch 1", "glitch 2"]
    assert all(a.code == "TOOL_EXECUTION_FAILED" for a in rec.attempts)
    retries = [e for e in run.events if isinstance(e, ev.NodeRetry)]
    assert [e.attempt for e in retries] == [2, 3]


def test_a_flaky_part_is_retried_alone(tmp_path: Path) -> None:
    runs: dict[str, int] = {}

    def part(ctx: NodeContext) -> NodeResult:
        runs[ctx.node.name] = runs.get(ctx.node.name, 0) + 1
        if ctx.node.member == "bass" and ctx.attempt == 1:
            raise RuntimeError("string broke")
        return ok(ctx.node.name)(ctx)

    state = Run(tmp_path).engine(graph(part=part)).run()
    assert state.status == "completed"
    assert runs == {"parts:drums": 1, "parts:bass": 2, "parts:lead": 1}
    assert state.nodes["parts:bass"].retry_count == 1


def test_max_retries_fails_the_run_with_every_root_cause(tmp_path: Path) -> None:
    def broken(ctx: NodeContext) -> None:
        raise ValueError(f"no chords on attempt {ctx.attempt}")

    run = Run(tmp_path, max_retries_per_stage=2)
    state = run.engine(graph(harmony=broken)).run()
    assert state.status == "failed"
    rec = state.nodes["harmony"]
    assert rec.status == "failed" and rec.retry_count == 2 and len(rec.attempts) == 3
    assert state.error is not None and state.error.code == "TOOL_EXECUTION_FAILED"
    for attempt in (1, 2, 3):
        assert f"no chords on attempt {attempt}" in state.error.message
    assert state.nodes["arrangement"].status == "pending" and "parts:bass" not in state.nodes
    assert run.checkpoint.load().status == "failed"


def test_the_same_failure_on_every_attempt_is_said_once_with_the_count(tmp_path: Path) -> None:
    def broken(ctx: NodeContext) -> None:
        raise ValueError("the model server refused the connection")

    state = Run(tmp_path, max_retries_per_stage=3).engine(graph(harmony=broken)).run()
    assert state.error is not None
    assert state.error.message.count("refused the connection") == 1
    assert "gave up after 4 attempts (attempts 1–4: TOOL_EXECUTION_FAILED the model server refused" in state.error.message


def test_user_errors_are_not_retried(tmp_path: Path) -> None:
    def bad(ctx: NodeContext) -> None:
        raise InvalidInput("unknown key 'H'")

    state = Run(tmp_path).engine(graph(intent=bad)).run()
    assert state.status == "failed"
    assert state.nodes["intent"].retry_count == 0 and state.error is not None
    assert state.error.code == "INVALID_INPUT"


def test_an_artifact_of_the_wrong_type_is_a_failed_attempt(tmp_path: Path) -> None:
    def wrong(ctx: NodeContext) -> NodeResult:
        return NodeResult(["not", "a", "dict"], [], "a list")

    state = Run(tmp_path, max_retries_per_stage=0).engine(graph(harmony=wrong)).run()
    assert state.status == "failed" and state.error is not None
    assert "harmony produced a list, not a dict" in state.error.message


def test_a_deterministic_node_that_runs_out_of_time_is_said_once_and_not_retried(tmp_path: Path) -> None:
    # it was tried four times: the same work, in the same time, under the same load
    release = threading.Event()

    def slow(ctx: NodeContext) -> None:
        release.wait(60)

    run = Run(tmp_path, stage_timeout=2)  # the quick nodes before the parts meet it on a busy machine too
    try:
        state = run.engine(graph(part=slow)).run()
    finally:
        release.set()
    assert state.status == "failed"
    timed_out = [r for r in state.group("parts") if r.status == "failed"]
    assert timed_out, [r.status for r in state.group("parts")]
    for rec in timed_out:
        assert [a.code for a in rec.attempts] == ["TIMEOUT"] and rec.retry_count == 0
        assert rec.error is not None and rec.error.code == "TIMEOUT" and not rec.error.recoverable
        assert rec.error.message == f"{rec.node} ran past its 2s time limit per node (raise it with " \
                                    "--stage-timeout SECONDS)"
    assert not [e for e in run.events if isinstance(e, ev.NodeRetry)]
    failed = [e for e in run.events if isinstance(e, ev.NodeFailed)]
    assert sorted(e.node for e in failed) == sorted(r.node for r in timed_out)  # once each
    assert state.recovery.total_retries == 0


def test_a_node_that_is_not_deterministic_is_retried_after_a_timeout(tmp_path: Path) -> None:
    # a language model may answer sooner the next time (the quick answer must not race the stall
    # limit on a busy machine: the limit is 2 s, the first attempt waits until the run is over)
    release = threading.Event()

    def slow_then_quick(ctx: NodeContext) -> NodeResult:
        if ctx.attempt == 1:
            release.wait(60)
        return ok("intent")(ctx)

    run = Run(tmp_path, stall_timeout=2)
    try:
        state = run.engine(graph(intent=slow_then_quick, flags={"intent": {"deterministic": False}})).run()
    finally:
        release.set()
    assert state.status == "completed"
    rec = state.nodes["intent"]
    assert rec.retry_count == 1 and [a.code for a in rec.attempts] == ["TIMEOUT"]
    assert rec.attempts[0].message == "intent showed no progress for 2s (raise the limit with --stall-timeout " \
                                      "SECONDS)"
    assert [(e.node, e.code) for e in run.events if isinstance(e, ev.NodeRetry)] == [("intent", "TIMEOUT")]


def test_a_slow_node_that_shows_progress_is_not_stopped(tmp_path: Path) -> None:
    # a starved machine makes a node slower, not stuck: the stall limit counts from the last sign
    # (signs every 0.05 s against a 2 s limit: no race with a busy machine's scheduler)
    release = threading.Event()

    def slow_but_moving(ctx: NodeContext) -> NodeResult:
        for _ in range(50):
            threading.Event().wait(0.05)
            ctx.check_cancelled()
        return ok("harmony")(ctx)

    def stuck(ctx: NodeContext) -> NodeResult:
        release.wait(60)
        return ok("sound")(ctx)

    try:
        state = Run(tmp_path, stall_timeout=2).engine(graph(harmony=slow_but_moving, sound=stuck)).run()
    finally:
        release.set()
    assert state.nodes["harmony"].status == "completed" and state.nodes["harmony"].duration_ms > 2400
    assert state.status == "completed_partial" and state.nodes["sound"].status == "failed"
    err = state.nodes["sound"].error
    assert err is not None and err.code == "TIMEOUT" and "sound showed no progress for 2s" in err.message


@pytest.mark.skipif(not hasattr(time, "pthread_getcpuclockid"), reason="no thread CPU clock to read here")
def test_a_node_that_computes_without_saying_so_is_not_stalled(tmp_path: Path) -> None:
    # one long step (loading a compiled kernel, say) on a starved machine: its thread's CPU time grows
    def computing(ctx: NodeContext) -> NodeResult:
        end = time.monotonic() + 2.5
        while time.monotonic() < end:
            pass
        return ok("harmony")(ctx)

    # a 2 s limit: the quick nodes around it meet it on a busy machine too
    state = Run(tmp_path, stall_timeout=2).engine(graph(harmony=computing)).run()
    assert state.status == "completed" and state.nodes["harmony"].duration_ms > 2400


def test_a_wall_limit_set_by_hand_still_stops_a_node_that_shows_progress(tmp_path: Path) -> None:
    def slow_but_moving(ctx: NodeContext) -> NodeResult:
        for _ in range(1200):
            threading.Event().wait(0.05)
            ctx.check_cancelled()
        return ok("harmony")(ctx)

    state = Run(tmp_path, stage_timeout=2).engine(graph(harmony=slow_but_moving)).run()
    assert state.status == "failed" and state.error is not None and state.error.code == "TIMEOUT"
    assert state.error.message == "harmony ran past its 2s time limit per node (raise it with --stage-timeout " \
                                  "SECONDS)"


def test_a_node_that_stops_short_is_told_its_time_is_up_and_finishes_without_the_rest(tmp_path: Path) -> None:
    told: list[str] = []

    def render(ctx: NodeContext) -> NodeResult:
        while not ctx.stopping():
            threading.Event().wait(0.02)
        up = ctx.time_up()
        assert up is not None
        told.append(up.option)
        value = {"files": ["midi/full-arrangement.mid"]}
        return NodeResult(value, value, "1 file; no WAV", degraded=f"the WAV not written: {up.message}",
                          degraded_code="TIMEOUT", degraded_hint="render it later")

    run = Run(tmp_path, stage_timeout=2)
    state = run.engine(graph(output=render, flags={"output": {"stops_short": True}})).run()
    assert told == ["--stage-timeout"]
    assert state.status == "completed_partial"
    rec = state.nodes["output"]
    assert rec.status == "completed" and rec.retry_count == 0 and rec.output == {"files": ["midi/full-arrangement.mid"]}
    assert rec.error is not None and rec.error.code == "TIMEOUT" and rec.error.recovery_hint == "render it later"
    assert rec.error.message == "the WAV not written: output ran past its 2s time limit per node (raise it with " \
                                "--stage-timeout SECONDS)"
    assert not [e for e in run.events if isinstance(e, (ev.NodeRetry, ev.NodeFailed))]


def test_a_node_that_stops_short_but_does_not_stop_is_abandoned_after_a_stall_limit(tmp_path: Path) -> None:
    release = threading.Event()

    def deaf(ctx: NodeContext) -> None:
        release.wait(60)

    run = Run(tmp_path, stage_timeout=2, stall_timeout=2)
    try:
        state = run.engine(graph(output=deaf, flags={"output": {"stops_short": True}})).run()
    finally:
        release.set()
    assert state.status == "completed_partial"
    rec = state.nodes["output"]
    assert rec.status == "failed" and rec.retry_count == 0 and rec.duration_ms == 0
    assert rec.error is not None and rec.error.code == "TIMEOUT"
    assert rec.error.message == "output showed no progress for 2s (raise the limit with --stall-timeout SECONDS)"


def test_a_checkpoint_of_2_0_keeps_no_wall_limit_it_did_not_choose(tmp_path: Path) -> None:
    # before 2.1 every run carried stage_timeout 60, chosen or not: resumed, it would stop a starved
    # render after 60 s again
    run = Run(tmp_path)
    data = json.loads(run.state.model_dump_json())
    data["version"] = "2.0.0"
    data["config"]["stage_timeout"] = 60.0
    del data["config"]["stall_timeout"]
    run.checkpoint.write(json.dumps(data).encode())
    loaded = run.checkpoint.load()
    assert loaded.version == "2.1.0" and loaded.config.stage_timeout is None and loaded.config.stall_timeout == 60
    data["config"]["stage_timeout"] = 30.0  # one that was chosen stays
    run.checkpoint.write(json.dumps(data).encode())
    assert run.checkpoint.load().config.stage_timeout == 30


def test_pipeline_timeout(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(ctx: NodeContext) -> None:
        release.wait(60)

    try:
        state = Run(tmp_path, pipeline_timeout=2, stage_timeout=60).engine(graph(harmony=slow)).run()
    finally:
        release.set()
    assert state.status == "failed" and state.error is not None and state.error.code == "TIMEOUT"
    assert state.nodes["harmony"].retry_count == 0


def test_skipped_nodes_and_their_dependents(tmp_path: Path) -> None:
    run = Run(tmp_path, skip_stages=["sound", "assembly"])
    state = run.engine(graph()).run()
    assert state.status == "completed"
    assert [state.nodes[n].status for n in ("sound", "assembly", "validation")] == ["skipped"] * 3
    assert "needs assembly" in state.nodes["validation"].summary
    assert [e.node for e in run.events if isinstance(e, ev.NodeSkipped)] == ["sound", "assembly", "validation"]
    assert state.nodes["output"].status == "completed"  # its inputs there are optional


@pytest.mark.parametrize("node", ["validation", "output"])
def test_failure_in_validation_or_output_is_completed_partial(tmp_path: Path, node: str) -> None:
    def broken(ctx: NodeContext) -> None:
        raise OSError("disk full")

    state = Run(tmp_path, max_retries_per_stage=1).engine(graph(**{node: broken})).run()
    assert state.status == "completed_partial"
    assert state.nodes[node].status == "failed"
    assert state.error is not None and state.error.code == "FILE_WRITE_FAILED" and state.error.recovery_hint
    assert state.nodes["output"].status == ("completed" if node == "validation" else "failed")


def test_a_failed_input_is_DEPENDENCY_MISSING_for_what_needs_it(tmp_path: Path) -> None:
    def broken(ctx: NodeContext) -> None:
        raise OSError("disk full")

    state = Run(tmp_path, max_retries_per_stage=0).engine(graph(assembly=broken)).run()
    assert state.status == "completed_partial"
    err = state.nodes["validation"].error
    assert err is not None and err.code == "DEPENDENCY_MISSING" and "assembly" in err.message


def test_degraded_result_is_completed_partial(tmp_path: Path) -> None:
    def degraded(ctx: NodeContext) -> NodeResult:
        return NodeResult({}, {}, "wrote MIDI only", degraded="no SoundFont: audio not rendered")

    state = Run(tmp_path).engine(graph(output=degraded)).run()
    assert state.status == "completed_partial" and state.nodes["output"].status == "completed"
    assert state.error is not None and "SoundFont" in state.error.message


def test_a_critical_part_that_fails_stops_the_run_before_later_nodes(tmp_path: Path) -> None:
    ran: list[str] = []

    def record(name: str) -> Handler:
        def handler(ctx: NodeContext) -> NodeResult:
            ran.append(name)
            return ok(name)(ctx)
        return handler

    def broken(ctx: NodeContext) -> None:
        raise RuntimeError("generator crashed")

    g = graph(part=broken, sound=record("sound"), assembly=record("assembly"))
    state = Run(tmp_path, max_retries_per_stage=0).engine(g).run()
    assert state.status == "failed" and ran == []
    assert state.error is not None and "generator crashed" in state.error.message


def test_approval_gate_pauses_then_approve_continues_from_the_checkpoint(tmp_path: Path) -> None:
    run = Run(tmp_path, approval_gates=["harmony"])
    state = run.engine(graph()).run()
    assert state.status == "paused" and state.paused_at == "harmony"
    assert state.nodes["arrangement"].status == "pending"
    assert isinstance(run.events[-1], ev.Paused) and run.events[-1].node == "harmony"

    loaded = run.checkpoint.load()
    assert loaded.status == "paused"
    engine = Engine(loaded, graph(), checkpoint=run.checkpoint)
    engine.run()
    assert loaded.status == "paused"  # no decision yet: still waiting
    engine.approve()
    final = engine.run()
    assert final.status == "completed"
    assert [h.action for h in final.song_state.history].count("approved") == 1


def test_a_gate_on_the_parts_waits_for_every_part(tmp_path: Path) -> None:
    run = Run(tmp_path, approval_gates=["parts"])
    state = run.engine(graph()).run()
    assert state.status == "paused" and state.paused_at == "parts"
    assert {r.status for r in state.group("parts")} == {"completed"} and state.nodes["sound"].status == "pending"


def test_reject_redoes_the_node_with_a_new_seed(tmp_path: Path) -> None:
    answers = iter(["reject", "approve"])
    run = Run(tmp_path, approval_gates=["harmony"])
    seeds: list[int] = []

    def harmony(ctx: NodeContext) -> NodeResult:
        seeds.append(ctx.seed())
        return ok("harmony")(ctx)

    state = run.engine(graph(harmony=harmony), approver=lambda s, n, summary: next(answers)).run()
    assert state.status == "completed"
    assert len(seeds) == 2 and seeds[0] != seeds[1]
    assert state.nodes["harmony"].variant == 1 and state.nodes["intent"].variant == 0


def test_rejecting_one_part_reruns_it_and_what_reads_it_only(tmp_path: Path) -> None:
    answers = iter(["reject", "approve"])
    run = Run(tmp_path, approval_gates=["parts:bass"])
    state = run.engine(graph(), approver=lambda s, n, summary: next(answers)).run()
    assert state.status == "completed"
    started = run.started()
    assert started.count("parts:bass") == 2
    assert started.count("parts:drums") == 1 and started.count("parts:lead") == 1 and started.count("harmony") == 1
    assert state.nodes["parts:bass"].variant == 1 and state.nodes["parts:drums"].variant == 0


def test_invalidate_resets_a_node_and_its_dependents_transitively(tmp_path: Path) -> None:
    run = Run(tmp_path)
    engine = run.engine(graph())
    engine.run()
    reset = engine.invalidate(["parts:lead"], bump=True)
    assert reset == ["parts:lead", "sound", "assembly", "validation", "output"]
    assert engine.state.nodes["parts:lead"].variant == 1 and engine.state.nodes["sound"].variant == 0
    assert engine.invalidate(["arrangement"], bump=False)[:4] == ["arrangement", "parts:drums", "parts:bass",
                                                                  "parts:lead"]


def test_cancel_leaves_a_resumable_checkpoint(tmp_path: Path) -> None:
    entered = threading.Event()

    def waits(ctx: NodeContext) -> NodeResult:
        entered.set()
        while not ctx.abandoned:
            threading.Event().wait(0.01)
        ctx.check_cancelled()
        return ok("arrangement")(ctx)

    run = Run(tmp_path)
    engine = run.engine(graph(arrangement=waits))
    threading.Thread(target=lambda: (entered.wait(5), engine.cancel()), daemon=True).start()
    state = engine.run()
    assert state.status == "cancelled"
    assert state.error is not None and state.error.code == "USER_CANCELLED" and "arrangement" in state.error.message
    saved = run.checkpoint.load()
    assert saved.status == "cancelled" and saved.recovery.last_successful_node == "harmony"
    assert saved.nodes["arrangement"].status == "pending"

    resumed = Engine(saved, graph(), checkpoint=run.checkpoint).run()
    assert resumed.status == "completed"


def test_cancel_during_the_parts_then_resume(tmp_path: Path) -> None:
    entered = threading.Event()

    def waits(ctx: NodeContext) -> NodeResult:
        entered.set()
        while not ctx.abandoned:
            threading.Event().wait(0.01)
        ctx.check_cancelled()
        return ok(ctx.node.name)(ctx)

    run = Run(tmp_path)
    engine = run.engine(graph(part=waits))
    threading.Thread(target=lambda: (entered.wait(5), engine.cancel()), daemon=True).start()
    assert engine.run().status == "cancelled"
    saved = run.checkpoint.load()
    assert {r.status for r in saved.group("parts")} == {"pending"}
    resumed = Engine(saved, graph(), checkpoint=run.checkpoint).run()
    assert resumed.status == "completed" and list(resumed.nodes) == ORDER


def test_quality_gate_regenerates_the_blamed_nodes_then_passes(tmp_path: Path) -> None:
    verdicts = iter([("parts",), ()])

    def validation(ctx: NodeContext) -> NodeResult:
        target = next(verdicts)
        return NodeResult({}, {}, "gate" if target else "passed", quality_score=0.4 if target else 0.9,
                          regenerate=target, failing_axes=("rhythm",) if target else ())

    run = Run(tmp_path)
    state = run.engine(graph(validation=validation)).run()
    assert state.status == "completed"
    assert all(r.variant == 1 for r in state.group("parts")) and state.nodes["harmony"].variant == 0
    assert state.nodes["validation"].quality_score == 0.9
    assert [e.regenerate for e in run.events if isinstance(e, ev.QualityRetry)] == [["parts"]]


def test_quality_gate_that_keeps_failing_is_bounded_and_partial(tmp_path: Path) -> None:
    rounds = {"n": 0}

    def validation(ctx: NodeContext) -> NodeResult:
        rounds["n"] += 1
        return NodeResult({}, {}, "harmony 0.3", quality_score=0.3, regenerate=("harmony",),
                          failing_axes=("harmony",))

    state = Run(tmp_path, quality_regenerations=2).engine(graph(validation=validation)).run()
    assert rounds["n"] == 3
    assert state.status == "completed_partial"
    rec = state.nodes["validation"]
    assert rec.status == "failed" and rec.error is not None and rec.error.code == "QUALITY_GATE_FAILED"
    # three takes fell short the same way: said once, and the best of equals (the first) is kept
    assert rec.error.message == "harmony 0.3 on 3 takes of the harmony; kept the best (take 1, quality 0.30)"
    assert state.quality_retries is not None and state.quality_retries.kept == 0
    assert [t.redrawn for t in state.quality_retries.takes] == [["harmony"], ["harmony"], []]
    assert state.nodes["output"].status == "completed" and state.nodes["harmony"].variant == 0


def _gate_paused_each_round(tmp_path: Path, qualities: list[float],
                            while_paused: Callable[[int], None] = lambda pause: None) -> PipelineState:
    """A gate that fails every round with `qualities` (one a take), blaming the parts; the run
    pauses at the parts after each draw and every resume is a new engine over the checkpoint, so
    no take judged is in memory when the gate decides. `while_paused(n)` runs at pause n."""
    scores = iter(qualities)

    def validation(ctx: NodeContext) -> NodeResult:
        q = next(scores)
        return NodeResult({"q": q}, {"q": q}, f"rhythm {q}", quality_score=q, regenerate=("parts",),
                          failing_axes=("rhythm",))

    run = Run(tmp_path, approval_gates=["parts"], quality_regenerations=len(qualities) - 1)
    state = run.engine(graph(validation=validation)).run()
    pauses = 0
    while state.status == "paused":
        while_paused(pauses)
        pauses += 1
        engine = Engine(run.checkpoint.load(), graph(validation=validation), checkpoint=run.checkpoint)
        engine.approve()
        state = engine.run()
    assert pauses == len(qualities)
    return state


def test_the_best_take_judged_before_a_resume_is_kept(tmp_path: Path) -> None:
    takes = tmp_path / "state" / "takes"
    seen: list[list[str]] = []
    state = _gate_paused_each_round(tmp_path, [0.6, 0.3, 0.4],
                                    lambda pause: seen.append(sorted(p.name for p in takes.glob("*"))))
    # each take the gate judged and redrew waits beside the checkpoint until the gate decides
    assert seen == [[], ["take-1.json"], ["take-1.json", "take-2.json"]] and not takes.exists()
    assert state.status == "completed_partial" and state.quality_retries is not None
    assert [t.quality for t in state.quality_retries.takes] == [0.6, 0.3, 0.4] and state.quality_retries.kept == 0
    # the song is take 1's: its parts (seed variant 0) and its judge's record, rebuilt from the take
    assert {r.variant for r in state.group("parts")} == {0}
    assert state.nodes["validation"].quality_score == 0.6 and state.nodes["validation"].output == {"q": 0.6}
    assert state.nodes["output"].status == "completed"
    assert state == FileCheckpoint.in_session(tmp_path).load()


def test_a_take_lost_with_its_file_is_passed_over_for_the_next_best(tmp_path: Path) -> None:
    def lose_take_1(pause: int) -> None:
        if pause == 2:
            (tmp_path / "state" / "takes" / "take-1.json").unlink()

    state = _gate_paused_each_round(tmp_path, [0.6, 0.5, 0.4], lose_take_1)
    assert state.quality_retries is not None and state.quality_retries.kept == 1
    assert {r.variant for r in state.group("parts")} == {1} and state.nodes["validation"].quality_score == 0.5


def test_quality_gate_off_keeps_the_first_song(tmp_path: Path) -> None:
    def validation(ctx: NodeContext) -> NodeResult:
        return NodeResult({}, {}, "low", quality_score=0.3, regenerate=("parts",))

    state = Run(tmp_path, quality_gate=False).engine(graph(validation=validation)).run()
    assert state.status == "completed" and all(r.variant == 0 for r in state.group("parts"))


def test_derived_seeds_are_stable_and_independent_per_part() -> None:
    assert derive_seed(7, 4, "bass") == derive_seed(7, "4", "bass")
    assert len({derive_seed(7, 4, r) for r in ("drums", "bass", "chords", "lead", "pad")}) == 5
    assert derive_seed(7, 4, "bass", 1) != derive_seed(7, 4, "bass", 0)
    assert derive_seed(7, 2) != derive_seed(8, 2)


def test_checkpoint_falls_back_to_the_backup_and_reports_corruption(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.engine(graph()).run()
    run.checkpoint.path.write_text("{ not json", encoding="utf-8")
    assert run.checkpoint.load().status in ("completed", "running")
    run.checkpoint.backup.write_text("[]", encoding="utf-8")
    with pytest.raises(CheckpointError, match="corrupt"):
        run.checkpoint.load()


def test_checkpoint_from_another_schema_version_is_refused(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.engine(graph()).run()
    data = json.loads(run.checkpoint.path.read_text(encoding="utf-8"))
    data["version"] = "1.0.0"  # the numbered-stage pipeline's checkpoints
    run.checkpoint.path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CheckpointError, match="cannot be migrated"):
        run.checkpoint.load()


def test_state_round_trips_through_json(tmp_path: Path) -> None:
    run = Run(tmp_path)
    state = run.engine(graph()).run()
    assert PipelineState.model_validate_json(state.model_dump_json()) == state


@pytest.mark.parametrize(("items", "match"), [
    ([Node("a", ok("a")), Node("a", ok("a"))], "two nodes named 'a'"),
    ([Node("b", ok("b"), inputs=("a",)), Node("a", ok("a"))], "reads 'a', which is not declared before it"),
    ([Node("a", ok("a"), optional=("z",))], "reads 'z'"),
])
def test_a_graph_refuses_duplicates_and_inputs_out_of_order(items: list[Node], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Graph(items)


def test_tool_calls_are_recorded(tmp_path: Path) -> None:
    def uses_tools(ctx: NodeContext) -> NodeResult:
        ctx.tool("measure", lambda x: x * 2, 21)
        return ok("sound")(ctx)

    state = Run(tmp_path).engine(graph(sound=uses_tools)).run()
    calls = state.nodes["sound"].tool_calls
    assert [(c.name, c.success) for c in calls] == [("measure", True)]
