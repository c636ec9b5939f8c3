"""The graph engine: runs a `Graph` of typed nodes over a `PipelineState`.

Nodes run as soon as everything they read is resolved; the nodes that are
ready together (the parts) form a wave and run side by side, each attempt on
a worker thread, watched for time (`Limits`): stopped once it has shown no
progress for the stall limit, or has run past a wall limit per attempt when
one was set, or when the whole run's time is up. A failed attempt is tried
again, up to the limit, only when another attempt may end differently
(`_classify`): a deterministic node that ran out of time is not (the same
work would take the same time), and a node that `stops_short` is told its
time is up and finishes without the rest (the output node: no WAV). Every
retry is recorded. After every wave the whole state is checkpointed
(atomically, the previous checkpoint kept as `.bak`); every take a quality gate judged and
failed is checkpointed beside it until the gate decides, so the best take is kept over all
of them whatever stopped the run in between. Critical nodes that give up fail the
run; other failures, degraded results and a quality gate that still fails
after its bounded regenerations end the run `completed_partial`. Skips,
approval gates (pause / approve / reject), cancellation, resume and quality
regeneration all work by name: invalidating a node resets it and everything
that depends on it, transitively, and nothing else.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from bandstand.compose.checkpoint import CheckpointStore
from bandstand.compose.graph import Artifacts, Graph
from bandstand.compose.nodes import (
    Cancelled,
    Job,
    Node,
    NodeContext,
    NodeResult,
    TimeUp,
    WorkerPool,
)
from bandstand.compose.state import (
    PARTS,
    ErrorCode,
    JudgedTake,
    NodeRecord,
    PipelineState,
    QualityRetries,
    QualityTake,
    StageError,
    node_group,
    node_role,
    now,
)
from bandstand.errors import AttemptTimeout, RuntimeFailure, Signal, StageFailed, UserError
from bandstand.protocol import compose as ev

Decision = Literal["approve", "reject", "pause"]
Approver = Callable[[PipelineState, str, str], Decision]
EventSink = Callable[[ev.ComposeEvent], None]
Outcome = Literal["ok", "fatal", "cancelled", "regenerate"]

HINTS: dict[str, str] = {
    "TIMEOUT": "resume it with a higher limit: bandstand resume SESSION_DIR --stall-timeout SECONDS (or "
               "--stage-timeout, --pipeline-timeout; stall_timeout / stage_timeout / pipeline_timeout from Python)",
    "TOOL_EXECUTION_FAILED": "a generator failed; resume the session, or try another seed",
    "QUALITY_GATE_FAILED": "the song was kept but scored below the gate; try another seed or relax the prompt",
    "INVALID_INPUT": "fix the input named in the message and run again",
    "DEPENDENCY_MISSING": "an earlier node did not produce what this node needs; see that node's error",
    "USER_CANCELLED": "resume the session to continue where it stopped",
    "FILE_WRITE_FAILED": "check free space and permissions of the session folder, then resume",
    "LLM_PARSE_FAILED": "the model's reply could not be read; resume to try again",
    "UNKNOWN": "resume the session; if it fails again, report the error",
}
# The option that raises each time limit → its `PipelineConfig` field, for a timeout's hint.
LIMIT_FIELDS: dict[str, str] = {"--stall-timeout": "stall_timeout", "--stage-timeout": "stage_timeout",
                                "--pipeline-timeout": "pipeline_timeout"}
DONE = frozenset({"completed", "skipped", "failed"})
POLL_SECONDS = 0.05
# The engine looks every POLL_SECONDS; a longer gap means this process was not running (stopped
# with Ctrl-Z, held in a debugger, starved): nothing could be seen, so nothing counts as a stall.
UNWATCHED_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Limits:
    """When one attempt of `node` is out of time (all `time.monotonic()` seconds): after `stall`
    seconds without a sign of progress, after `wall` seconds in all when a wall limit per
    attempt was set, and at the whole run's `deadline`, whichever comes first."""

    node: str
    stall: float
    wall: float | None
    deadline: float
    pipeline_timeout: float

    @classmethod
    def of(cls, node: str, state: PipelineState, deadline: float) -> Limits:
        cfg = state.config
        return cls(node, cfg.stall_timeout, cfg.stage_timeout, deadline, cfg.pipeline_timeout)

    def ends(self, job: Job) -> float:
        """When the attempt runs out of time, as things stand (progress moves it on). A node told
        that its time is up has a stall limit's time, from then, to finish: no wall limit."""
        ends = min(job.ctx.last_progress + self.stall, self.deadline)
        if self.wall is not None and not job.told:
            ends = min(ends, job.started_at + self.wall)
        return ends

    def hit(self, job: Job | None, now: float) -> TimeUp:
        """Which limit stopped the attempt, in words that name the option that raises it."""
        if job is None or now >= self.deadline:
            return TimeUp(f"{self.node} was stopped by the whole run's {self.pipeline_timeout:g}s limit "
                          f"(raise it with --pipeline-timeout SECONDS)", "--pipeline-timeout")
        if self.wall is not None and not job.told and now >= job.started_at + self.wall:
            return TimeUp(f"{self.node} ran past its {self.wall:g}s time limit per node "
                          f"(raise it with --stage-timeout SECONDS)", "--stage-timeout")
        return TimeUp(f"{self.node} showed no progress for {self.stall:g}s (raise the limit with "
                      f"--stall-timeout SECONDS)", "--stall-timeout")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a failed attempt was: its error code, and whether another attempt may end
    differently (`retry`) — which is what decides a retry, not how the attempt failed."""

    code: ErrorCode
    retry: bool


def _classify(exc: BaseException, node: Node) -> Verdict:
    """A timeout is tried again only for a node that is not deterministic (a language model may
    answer sooner); a deterministic node would do the same work in the same time. Errors say
    themselves whether they are worth another attempt (`RuntimeFailure.retryable`: an agent
    backend's transient failure); a person's mistake and a missing input never are; a write the
    system refused may go through later; anything else (a glitch) is tried again."""
    if isinstance(exc, AttemptTimeout):
        return Verdict("TIMEOUT", retry=not node.deterministic)
    if isinstance(exc, StageFailed):
        code: ErrorCode = exc.code if exc.code in HINTS else "UNKNOWN"  # type: ignore[assignment]
        return Verdict(code, exc.retryable or code not in ("DEPENDENCY_MISSING", "INVALID_INPUT", "TIMEOUT"))
    if isinstance(exc, UserError):
        return Verdict("INVALID_INPUT", retry=False)
    if isinstance(exc, RuntimeFailure):
        return Verdict("TOOL_EXECUTION_FAILED", exc.retryable)
    if isinstance(exc, OSError):
        return Verdict("FILE_WRITE_FAILED", retry=True)
    return Verdict("TOOL_EXECUTION_FAILED", retry=True)


def _typed(node: Node, ctx: NodeContext) -> NodeResult[object]:
    """Run a node's handler and hold its artifact to the node's declared output type."""
    result: Any = node.run(ctx)
    if not isinstance(result, NodeResult):
        output = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        result = NodeResult(artifact=result, output=output, summary=str(output)[:120])
    if node.output is not object and not isinstance(result.artifact, node.output):
        wanted = node.output.__name__ if isinstance(node.output, type) else " or ".join(t.__name__ for t in node.output)
        raise StageFailed(f"{node.name} produced a {type(result.artifact).__name__}, not a {wanted}",
                          node=node.name, code="TOOL_EXECUTION_FAILED")
    done: NodeResult[object] = result
    return done


class Engine:
    """Runs a pipeline state through a graph. Not re-entrant: one `run` at a time."""

    def __init__(self, state: PipelineState, graph: Graph, *, checkpoint: CheckpointStore | None = None,
                 on_event: EventSink | None = None, approver: Approver | None = None,
                 artifacts: Mapping[str, object] | None = None, cancel: threading.Event | None = None) -> None:
        self.state = state
        self.graph = graph
        self.checkpoint = checkpoint
        self.on_event = on_event
        self.approver = approver
        self.artifacts = Artifacts(artifacts or {})
        self._cancel = cancel if cancel is not None else threading.Event()  # set from any thread
        self._decision: Decision | None = None
        self._regen: tuple[str, tuple[str, ...], tuple[str, ...], str] | None = None
        # the songs the gate failed this run by their take's index, each with the nodes that made it
        # (to keep the best); those judged before a resume are read back from the checkpoint's takes
        self._judged: dict[int, dict[str, tuple[NodeRecord, object]]] = {}
        retries = state.quality_retries
        self._takes_stored = retries is not None and bool(retries.takes)  # takes the checkpoint may hold
        self._pool = WorkerPool()

    # ------------------------------------------------------------------ control

    def cancel(self) -> None:
        """Ask the run to stop; it stops at the next safe point and leaves a resumable checkpoint."""
        self._cancel.set()

    def approve(self) -> None:
        """Continue a run paused at an approval gate (takes effect on the next `run`)."""
        self._decision = "approve"

    def reject(self) -> None:
        """Redo the node a run is paused at, with a new derived seed, and pause again."""
        self._decision = "reject"

    # ------------------------------------------------------------------ the graph as known now

    def nodes(self) -> list[Node]:
        """The concrete nodes for what is known so far, with a record for each, in graph order."""
        nodes = self.graph.expand(self.artifacts)
        records = self.state.nodes
        cfg = self.state.config
        for node in nodes:
            if node.name not in records:
                records[node.name] = NodeRecord(node=node.name, critical=node.critical,
                                                max_retries=cfg.max_retries_per_stage)
        names = [n.name for n in nodes]
        self.artifacts.order = {name: i for i, name in enumerate(names)}
        order: list[str] = []
        for group in self.graph.names:
            fan = self.graph.fanout(group)
            if fan is None:
                order.append(group)
            elif self.graph.expanded(group, self.artifacts):
                order += [n for n in names if node_group(n) == group]
            else:  # members not known yet: keep the records (their variants) where they were
                order += [n for n in records if node_group(n) == group]
        if list(records) != order:
            self.state.nodes = {name: records[name] for name in order if name in records}
        return nodes

    def _ctx(self, node: Node, attempt: int) -> NodeContext:
        return NodeContext(state=self.state, artifacts=self.artifacts, node=node, attempt=attempt,
                           cancel_event=self._cancel, tell=lambda words: self._tell(node.name, words))

    def _tell(self, node: str, words: str) -> None:
        """A node's `NodeProgress`, from the thread running it. The run may end meanwhile (a
        cancel): what it says then is dropped, never an error for the node."""
        try:
            self._emit(ev.NodeProgress(pipeline_id=self.state.pipeline_id, node=node, message=words[:300]))
        except AssertionError as exc:  # the guards are imported only here: a compose need not load them
            from bandstand.protocol.guards.base import ProtocolViolation  # (StreamClosed is one)

            if not isinstance(exc, ProtocolViolation):
                raise

    def restore(self) -> None:
        """Rebuild the artifacts of the nodes a checkpoint says are done, in graph order (a
        fan-out's members become known as soon as what they come after is restored)."""
        while self._restore_one():
            pass

    def _restore_one(self) -> bool:
        for node in self.nodes():
            if node.name in self.artifacts:
                continue
            if any(self.graph.fanout(i) is not None and not self.graph.expanded(i, self.artifacts)
                   for i in (*node.inputs, *node.optional)):
                return False  # its group is not known yet: nothing after it can be restored
            rec = self.state.nodes[node.name]
            if rec.status == "completed" or (rec.status == "failed" and rec.output is not None):
                self.artifacts[node.name] = node.restore(rec.output, self.artifacts)
                return True
            if rec.status == "skipped" and node.on_skip is not None:
                self.artifacts[node.name] = node.on_skip(self._ctx(node, 0))
                return True
        return False

    def _targets(self, names: Iterable[str]) -> list[str]:
        """Node names for node or group names (`parts` → every part node)."""
        wanted = set(names)
        return [n.name for n in self.nodes() if n.name in wanted or node_group(n.name) in wanted]

    def invalidate(self, names: Iterable[str], *, bump: bool) -> list[str]:
        """Reset the named nodes (or groups) and everything that depends on them, so they run
        again; `bump` gives the named ones new seed variants (past every take a part made).
        Returns the reset nodes."""
        targets = self._targets(names)
        reset = self.graph.closure(targets, self.nodes())
        cfg = self.state.config
        for name in reset:
            old = self.state.nodes[name]
            variant = old.variant + (self._draws(name) if bump and name in targets else 0)
            self.state.nodes[name] = NodeRecord(node=name, critical=old.critical, max_retries=cfg.max_retries_per_stage,
                                                variant=variant)
            self.artifacts.pop(name, None)
        return reset

    def _draws(self, name: str) -> int:
        """The seed variants one run of a node uses: a part makes `takes` takes, take k at k
        variants on, so a new draw of it moves past them all (else it would score all but one
        of the same takes again)."""
        return self.state.config.takes if node_group(name) == PARTS else 1

    # ------------------------------------------------------------------ helpers

    def _emit(self, event: ev.ComposeEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _save(self) -> None:
        self.state.updated_at = now()
        if self.checkpoint is not None and self.state.config.checkpoints:
            self.state.recovery.checkpoint_path = str(self.checkpoint.path)
            self.checkpoint.save(self.state)
            retries = self.state.quality_retries
            if self._takes_stored and (retries is None or retries.kept is not None):
                self.checkpoint.drop_takes()  # the gate has decided, in the checkpoint just saved
                self._takes_stored = False

    def _gate_summary(self, gate: str) -> str:
        recs = [r for r in self.state.nodes.values() if r.node == gate or node_group(r.node) == gate]
        return "; ".join(r.summary for r in recs if r.summary)

    # ------------------------------------------------------------------ running

    def run(self) -> PipelineState:
        """Run from where the state stands to the end, a pause, a failure or a cancellation."""
        try:
            return self._run()
        finally:
            self._pool.close()

    def retry_failures(self) -> list[str]:
        """Make a `completed_partial` run runnable again: the nodes that failed or left
        something out (a WAV the full disk refused) run again with the same seeds, with what
        depends on them; a quality gate that failed is not retried (the same seeds give the
        same score). Returns the nodes reset (none: the run stays finished)."""
        state = self.state
        if state.status != "completed_partial":
            return []
        self.restore()
        failed = [r.node for r in state.nodes.values()
                  if (r.status == "failed" or r.error is not None)
                  and (r.error is None or r.error.code != "QUALITY_GATE_FAILED")]
        if not failed:
            return []
        reset = self.invalidate(failed, bump=False)
        state.status, state.error, state.completed_at = "pending", None, None
        return reset

    def _run(self) -> PipelineState:
        state = self.state
        if state.status in ("completed", "completed_partial"):
            return state
        t0 = time.perf_counter()
        deadline = time.monotonic() + state.config.pipeline_timeout
        self.restore()
        if state.status == "paused" and state.paused_at:
            decision = self._decision or "pause"
            self._decision = None
            if decision == "pause":
                return state
            gate, state.paused_at = state.paused_at, None
            if decision == "reject":
                self.invalidate([gate], bump=True)
                state.note(gate, "rejected", "regenerating with a new seed")
            else:
                state.note(gate, "approved")
        pending = [r.node for r in state.nodes.values() if r.status not in DONE]
        started = any(r.status in DONE for r in state.nodes.values())
        resumed_at = (pending[0] if pending else None) if (started or state.recovery.is_resumed) else None
        state.status = "running"
        self._emit(ev.PipelineStarted(pipeline_id=state.pipeline_id, session_id=state.session_id,
                                      session_dir=state.session_dir, seed=state.seed, resumed_at=resumed_at))
        rounds = sum(1 for h in state.song_state.history if h.action == "quality_regenerate")
        try:
            while True:
                if self._cancel.is_set():
                    return self._finish_cancelled(t0)
                fatal, ready = self._prepare()
                if fatal:
                    return self._finish(t0, "failed")
                if not ready:
                    break
                wave = ready if state.config.parallel_parts else ready[:1]
                outcome = self._run_wave(wave, deadline)
                if outcome == "cancelled":
                    return self._finish_cancelled(t0)
                if outcome == "fatal":
                    return self._finish(t0, "failed")
                if outcome == "regenerate":
                    rounds += 1
                    if self._regenerate(rounds):
                        continue
                self._save()
                for gate in self._gates_reached(wave):
                    if not self._approval(gate):
                        return state
        except KeyboardInterrupt:
            return self._finish_cancelled(t0)
        return self._finish(t0, None)

    def _inputs_state(self, node: Node, names: tuple[str, ...]) -> tuple[bool, list[str], list[str]]:
        """(all resolved, skipped inputs without an artifact, failed inputs)."""
        skipped: list[str] = []
        failed: list[str] = []
        for name in names:
            if self.graph.fanout(name) is not None:
                if not self.graph.expanded(name, self.artifacts):
                    return False, [], []
                recs = [r for r in self.state.nodes.values() if node_group(r.node) == name]
            else:
                recs = [self.state.nodes[name]]
            for rec in recs:
                if rec.status not in DONE:
                    return False, [], []
                if self.artifacts.get(rec.node) is None:
                    (skipped if rec.status == "skipped" else failed).append(rec.node)
        return True, skipped, failed

    def _prepare(self) -> tuple[bool, list[Node]]:
        """Skip what must be skipped, fail what cannot run, and return the nodes ready to run
        (or fatal=True when a critical node could not run)."""
        skip = set(self.state.config.skip_stages)
        while True:
            ready: list[Node] = []
            changed = False
            for node in self.nodes():
                rec = self.state.nodes[node.name]
                if rec.status != "pending":
                    continue
                resolved, skipped, failed = self._inputs_state(node, node.inputs)
                if not resolved or not self._inputs_state(node, node.optional)[0]:
                    continue
                if node.name in skip or node_group(node.name) in skip:
                    self._skip(node, "skipped on request")
                    changed = True
                elif skipped:
                    self._skip(node, f"needs {skipped[0]}, which was skipped")
                    changed = True
                elif failed:
                    err = StageError(code="DEPENDENCY_MISSING", recoverable=False,
                                     recovery_hint=HINTS["DEPENDENCY_MISSING"],
                                     message=f"needs the result of {failed[0]}, which failed")
                    if self._give_up(node, err) == "fatal":
                        return True, []
                    changed = True
                else:
                    ready.append(node)
            if not changed:
                return False, ready

    def _skip(self, node: Node, reason: str) -> None:
        rec = self.state.nodes[node.name]
        rec.status, rec.summary = "skipped", reason
        self.artifacts[node.name] = node.on_skip(self._ctx(node, 0)) if node.on_skip else None
        self.state.note(node.name, "skipped", reason)
        self._emit(ev.NodeSkipped(pipeline_id=self.state.pipeline_id, node=node.name, reason=reason))

    def _start(self, node: Node, attempt: int, done: queue.SimpleQueue[Job], deadline: float) -> Job:
        rec = self.state.nodes[node.name]
        if attempt == 1:
            rec.max_retries = self.state.config.max_retries_per_stage
            rec.status, rec.started_at, rec.error = "running", now(), None
        self.state.current_node = node.name
        self._emit(ev.NodeStarted(pipeline_id=self.state.pipeline_id, node=node.name, attempt=attempt))
        ctx = self._ctx(node, attempt)
        job = Job(node.name, ctx, lambda: _typed(node, ctx), done)
        if time.monotonic() >= deadline:  # nothing left of the pipeline's time: fail at once
            job.finished = True
            up = Limits.of(node.name, self.state, deadline).hit(None, deadline)
            job.error = AttemptTimeout(up.message, option=up.option)
            done.put(job)
            return job
        return self._pool.submit(job)

    def _out_of_time(self, node: Node, job: Job, limits: Limits, now: float) -> bool:
        """Whether the attempt is to be abandoned now: its time is up and it is not a node that
        stops short (that one is told, once, and given a stall limit's time to finish)."""
        if job.finished or now < limits.ends(job):
            return False
        if node.stops_short and not job.told and now < limits.deadline:
            job.ctx.out_of_time = limits.hit(job, now)
            job.told = True
            job.ctx.progress()
            return False
        return True

    def _run_wave(self, wave: list[Node], deadline: float) -> Outcome:
        """Run the nodes of a wave side by side, with their retries; returns how it ended."""
        done: queue.SimpleQueue[Job] = queue.SimpleQueue()
        running: dict[str, Job] = {}
        by_name = {n.name: n for n in wave}
        limits = {n.name: Limits.of(n.name, self.state, deadline) for n in wave}
        outcome: Outcome = "ok"
        looked = time.monotonic()
        try:
            for node in wave:
                running[node.name] = self._start(node, 1, done, deadline)
            while running:
                if self._cancel.is_set():
                    raise Cancelled()
                nearest = min(limits[j.node].ends(j) for j in running.values())
                try:
                    job: Job | None = done.get(timeout=max(0.0, min(nearest - time.monotonic(), POLL_SECONDS)))
                except queue.Empty:
                    job = None
                finished: list[tuple[Job, BaseException | None]] = []
                if job is not None and running.get(job.node) is job:
                    self._pool.release(job)
                    finished.append((job, job.error))
                now = time.monotonic()
                for watched in running.values():
                    if now - looked > UNWATCHED_SECONDS:
                        watched.ctx.progress()
                    watched.ctx.observe()
                looked = now
                for late in list(running.values()):
                    if self._out_of_time(by_name[late.node], late, limits[late.node], now):
                        self._pool.abandon(late)
                        up = limits[late.node].hit(late, now)
                        finished.append((late, AttemptTimeout(up.message, option=up.option)))
                for job, error in finished:
                    del running[job.node]
                    node = by_name[job.node]
                    if error is None:
                        result = self._complete(node, job)
                        outcome = "regenerate" if result == "regenerate" else outcome
                    elif isinstance(error, Cancelled) and (job.ctx.out_of_time is None or self._cancel.is_set()):
                        raise Cancelled()
                    else:
                        if isinstance(error, Cancelled) and job.ctx.out_of_time is not None:
                            up = job.ctx.out_of_time  # it stopped short, with nothing to show
                            error = AttemptTimeout(up.message, option=up.option)
                        retry = self._failed_attempt(node, job, error, deadline)
                        if retry == "retry":
                            running[node.name] = self._start(node, job.ctx.attempt + 1, done, deadline)
                        elif retry == "fatal":
                            raise _Fatal()
        except _Fatal:
            self._abandon(running)
            return "fatal"
        except Cancelled:
            self._abandon(running)
            return "cancelled"
        except BaseException:
            self._abandon(running)
            raise
        return outcome

    def _abandon(self, running: dict[str, Job]) -> None:
        for name, job in running.items():
            self._pool.abandon(job)
            rec = self.state.nodes[name]
            rec.status = "pending"
            rec.tool_calls.extend(job.ctx.tool_calls)

    def _failed_attempt(self, node: Node, job: Job, exc: BaseException, deadline: float) -> str:
        """Record a failed attempt; returns retry | fatal | ok (gave up, not critical)."""
        state, rec, ctx = self.state, self.state.nodes[node.name], job.ctx
        rec.tool_calls.extend(ctx.tool_calls)
        verdict = _classify(exc, node)
        code, retryable = verdict.code, verdict.retry
        if time.monotonic() >= deadline:
            code, retryable = "TIMEOUT", False
        failed_call = next((c.name for c in reversed(ctx.tool_calls) if not c.success), None)
        message = str(exc) or type(exc).__name__
        hint = HINTS[code]
        if isinstance(exc, AttemptTimeout) and exc.option in LIMIT_FIELDS:
            hint = (f"resume it with a higher limit: bandstand resume SESSION_DIR {exc.option} SECONDS "
                    f"({LIMIT_FIELDS[exc.option]} from Python)")
        err = StageError(code=code, message=message[:1000], failed_tool_call=failed_call, recoverable=retryable,
                         recovery_hint=hint, attempt=ctx.attempt)
        rec.attempts.append(err)
        if retryable and rec.retry_count < rec.max_retries:
            rec.retry_count += 1
            rec.status = "retrying"
            state.status = "recovering"
            state.recovery.total_retries += 1
            self._emit(ev.NodeRetry(pipeline_id=state.pipeline_id, node=node.name, attempt=ctx.attempt + 1,
                                    code=code, message=err.message))
            return "retry"
        if rec.retry_count:
            err = err.model_copy(update={"message": f"gave up after {ctx.attempt} attempts ({_causes(rec.attempts)})"[:2000]})
        return "fatal" if self._give_up(node, err) == "fatal" else "ok"

    def _complete(self, node: Node, job: Job) -> str:
        state, rec, result = self.state, self.state.nodes[node.name], job.result
        assert result is not None, "a job that ended without an error holds its result"
        state.status = "running"
        rec.tool_calls.extend(job.ctx.tool_calls)
        rec.status = "completed"
        rec.completed_at = now()
        rec.duration_ms = round((time.perf_counter() - job.started) * 1000, 3)
        rec.summary = result.summary
        rec.output = result.output
        rec.quality_score = result.quality_score
        self.artifacts[node.name] = result.artifact
        if node.apply is not None:
            node.apply(state, result.artifact)
        if result.degraded:
            code: ErrorCode = result.degraded_code if result.degraded_code in HINTS else "UNKNOWN"
            rec.error = StageError(code=code, message=result.degraded, recoverable=True,
                                   recovery_hint=result.degraded_hint or HINTS[code])
        state.recovery.last_successful_node = node.name
        state.note(node.name, "completed", result.summary)
        self._emit(ev.NodeCompleted(pipeline_id=state.pipeline_id, node=node.name, summary=result.summary,
                                    duration_ms=rec.duration_ms))
        if result.regenerate and state.config.quality_gate:
            self._regen = (node.name, result.regenerate, result.failing_axes, result.failing)
            return "regenerate"
        retries = state.quality_retries
        if retries is not None and retries.kept is None and result.quality_score is not None:  # a retry passed
            retries.takes.append(QualityTake(quality=result.quality_score))
            retries.kept, self._judged = len(retries.takes) - 1, {}
        return "ok"

    def _regenerate(self, rounds: int) -> bool:
        """Redo what a failed quality gate blamed (new seed variants: the parts the weakest number
        is about, or the stage it names); False when the bounded rounds are used up: the best
        take judged is kept, and the gate's node is marked failed with what was tried, said once."""
        assert self._regen is not None
        judge, targets, axes, failing = self._regen
        self._regen = None
        state, rec = self.state, self.state.nodes[judge]
        known = self._targets(targets)
        made = self.graph.closure([*self._targets([PARTS]), *known], self.nodes())
        last = rounds > state.config.quality_regenerations or not known
        retries = state.quality_retries
        if retries is None or retries.kept is not None:  # a gate's first failure: its own takes
            retries = state.quality_retries = QualityRetries()
        index = len(retries.takes)
        retries.takes.append(QualityTake(quality=rec.quality_score or 0.0, failing=failing or rec.summary,
                                         redrawn=[] if last else [_part_or_node(n) for n in known]))
        if last:  # the last take is the song at hand
            retries.kept = self._keep_best(retries)
            retries.report = _tried(retries)
            self._judged = {}
            rec = state.nodes[judge]
            rec.status = "failed"
            rec.error = StageError(code="QUALITY_GATE_FAILED", message=retries.report, recoverable=True,
                                   recovery_hint=HINTS["QUALITY_GATE_FAILED"])
            state.note(judge, "quality_kept", retries.report)
            return False
        # this take is redrawn now: kept aside, and beside the checkpoint before the one that counts it
        judged = {n: (state.nodes[n].model_copy(deep=True), self.artifacts[n]) for n in made if n in self.artifacts}
        self._judged[index] = judged
        if self.checkpoint is not None and state.config.checkpoints:
            self.checkpoint.save_take(JudgedTake(index=index, nodes={n: r for n, (r, _) in judged.items()}))
            self._takes_stored = True
        takes = retries.takes
        same = len(takes) > 1 and _NUMBER.sub("#", takes[-1].failing) == _NUMBER.sub("#", takes[-2].failing)
        state.note(judge, "quality_regenerate", f"{', '.join(targets)}: {', '.join(axes)}")
        self._emit(ev.QualityRetry(pipeline_id=state.pipeline_id, failing_axes=list(axes),
                                   regenerate=list(targets), round=rounds, failing=failing, same=same,
                                   redrawing=_these(takes[-1].redrawn)))
        self.invalidate(targets, bump=True)
        self._save()
        return True

    def _keep_best(self, retries: QualityRetries) -> int:
        """Put back the nodes of the best take judged (the earliest of equals); its index. A take
        judged before a resume is read back from the checkpoint, its artifacts rebuilt from the
        records as a resume rebuilds them; one that cannot be read (a checkpoint lost with it)
        is passed over for the next best."""
        last = len(retries.takes) - 1
        for best in sorted(range(len(retries.takes)), key=lambda k: (-retries.takes[k].quality, k)):
            if best == last:  # the song at hand
                break
            kept = self._judged.get(best) or self._stored_take(best)
            if kept is not None:
                self._put_back(kept)
                break
        return best

    def _put_back(self, kept: Mapping[str, tuple[NodeRecord, object]]) -> None:
        """Make a judged take the song at hand again: its records, and its artifacts (rebuilt
        from the records, in graph order, where the take holds none)."""
        for name, (record, artifact) in kept.items():
            self.state.nodes[name] = record
            if artifact is _UNBUILT:
                self.artifacts.pop(name, None)
            else:
                self.artifacts[name] = artifact
        self.restore()
        for node in self.nodes():
            if node.name in kept and node.apply is not None and node.name in self.artifacts:
                node.apply(self.state, self.artifacts[node.name])

    def _stored_take(self, index: int) -> dict[str, tuple[NodeRecord, object]] | None:
        """Take `index` from the checkpoint's takes: its records, artifacts not built yet."""
        if self.checkpoint is None or not self.state.config.checkpoints:
            return None
        take = self.checkpoint.load_take(index)
        if take is None or take.index != index:
            return None
        return {name: (record, _UNBUILT) for name, record in take.nodes.items()}

    def _gates_reached(self, wave: list[Node]) -> list[str]:
        """Approval gates this wave completed: a gated node, or the last of a gated group."""
        gates = self.state.config.approval_gates
        out: list[str] = []
        for gate in gates:
            recs = [r for r in self.state.nodes.values() if r.node == gate or node_group(r.node) == gate]
            touched = any(n.name == gate or node_group(n.name) == gate for n in wave)
            if touched and recs and all(r.status == "completed" for r in recs):
                out.append(gate)
        return out

    def _approval(self, gate: str) -> bool:
        """Ask the approver at a gate. Returns False when the run pauses here."""
        state = self.state
        summary = self._gate_summary(gate)
        decision: Decision = self.approver(state, gate, summary) if self.approver else "pause"
        if decision == "approve":
            state.note(gate, "approved")
            return True
        if decision == "reject":
            state.note(gate, "rejected", "regenerating with a new seed")
            self.invalidate([gate], bump=True)
            return True
        state.status = "paused"
        state.paused_at = gate
        self._save()
        if self.checkpoint is not None:
            self.checkpoint.flush()
        self._emit(ev.Paused(pipeline_id=state.pipeline_id, node=gate, summary=summary))
        return False

    def _give_up(self, node: Node, err: StageError) -> str:
        state, rec = self.state, self.state.nodes[node.name]
        rec.status = "failed"
        rec.error = err
        rec.completed_at = now()
        state.note(node.name, "failed", f"{err.code}: {err.message}")
        self._emit(ev.NodeFailed(pipeline_id=state.pipeline_id, node=node.name, code=err.code, message=err.message,
                                 critical=node.critical, recovery_hint=err.recovery_hint))
        self.artifacts.pop(node.name, None)
        if node.critical:
            state.error = err
            return "fatal"
        return "ok"

    def _finish_cancelled(self, t0: float) -> PipelineState:
        state = self.state
        where = state.current_node or "the run"
        for rec in state.nodes.values():
            if rec.status in ("running", "retrying"):
                rec.status = "pending"
        state.error = StageError(code="USER_CANCELLED", message=f"cancelled during {where}", recoverable=True,
                                 recovery_hint=HINTS["USER_CANCELLED"])
        return self._finish(t0, "cancelled")

    def _finish(self, t0: float, forced: str | None) -> PipelineState:
        state = self.state
        elapsed = (time.perf_counter() - t0) * 1000
        state.total_duration_ms = round(state.total_duration_ms + elapsed, 3)
        if forced is not None:
            state.status = forced  # type: ignore[assignment]
        else:
            partial = any(r.status == "failed" or r.error is not None for r in state.nodes.values())
            state.status = "completed_partial" if partial else "completed"
            state.current_node = None
            state.completed_at = now()
            if partial and state.error is None:
                state.error = next(r.error for r in state.nodes.values() if r.error is not None)
        self._save()
        if self.checkpoint is not None:
            self.checkpoint.flush()
        message = state.error.message if state.error else ""
        self._emit(ev.PipelineFinished(pipeline_id=state.pipeline_id, status=state.status,
                                       session_dir=state.session_dir, duration_ms=elapsed, message=message))
        return state


class _Fatal(Signal):
    """A critical node gave up inside a wave."""


__all__ = ["HINTS", "Approver", "Decision", "Engine", "EventSink", "Limits", "Verdict"]


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_UNBUILT = object()  # a kept take's artifact that `restore` builds from its record


def _part_or_node(name: str) -> str:
    """`parts:drums` → drums; a plan node by its name."""
    return node_role(name) or name


def _these(names: Iterable[str]) -> str:
    """'the drums', 'the bass and the drums', 'the harmony, the arrangement and the bass'."""
    said = [f"the {n.replace('_', ' ')}" for n in dict.fromkeys(names)]
    if not said:
        return "nothing"
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def _tried(retries: QualityRetries) -> str:
    """What the gate's retries tried, said once: "groove consistency 0.31 < 0.78 on 3 takes of
    the drums; kept the best" when every take fell short the same way, else each way once."""
    takes = retries.takes
    redrawn = _these(n for t in takes for n in t.redrawn)
    kept = retries.kept if retries.kept is not None else len(takes) - 1
    best = f"take {kept + 1}, quality {takes[kept].quality:.2f}"
    ways = list(dict.fromkeys(_NUMBER.sub("#", t.failing) for t in takes))
    if len(ways) == 1:  # one way each time, its figure in the range the takes measured
        values = [float(m.group()) for t in takes if (m := _NUMBER.search(t.failing))]
        said = takes[0].failing
        if values and min(values) != max(values):
            said = _NUMBER.sub(f"{min(values):.2f}–{max(values):.2f}", said, count=1)
        return f"{said} on {len(takes)} takes of {redrawn}; kept the best ({best})"
    return (f"below the quality gate on {len(takes)} takes of {redrawn} "
            f"({'; '.join(dict.fromkeys(t.failing for t in takes))}); kept the best ({best})")


def _causes(attempts: list[StageError]) -> str:
    """What the attempts failed with, each different cause once with the attempts it ended:
    "attempts 1–4: TIMEOUT no progress for 30 s" rather than the same sentence four times."""
    grouped: dict[tuple[str, str], list[int]] = {}
    for e in attempts:
        grouped.setdefault((e.code, e.message), []).append(e.attempt)
    parts = []
    for (code, message), numbers in grouped.items():
        if len(numbers) == 1:
            which = f"attempt {numbers[0]}"
        elif numbers == list(range(numbers[0], numbers[-1] + 1)):
            which = f"attempts {numbers[0]}–{numbers[-1]}"
        else:
            which = "attempts " + ", ".join(map(str, numbers))
        parts.append(f"{which}: {code} {message}")
    return "; ".join(parts)
