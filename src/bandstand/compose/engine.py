"""The pipeline engine: runs the eight stage nodes in order over a `PipelineState`.

Each attempt of a stage runs in its own daemon thread under the stage
timeout (and what is left of the pipeline timeout); failed attempts are
retried up to the limit and every retry is recorded. After every completed
stage the whole state is checkpointed (atomically, the previous checkpoint
kept as `.bak`). Critical stages (1, 2, 4) that give up fail the run; other
failures, degraded results and a quality gate that still fails after its
bounded regenerations end the run `completed_partial`. Skips, approval
gates (pause / approve / reject), cancellation and resume are handled here;
the stages themselves are plain functions of a `StageContext`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel

from bandstand.compose.checkpoint import CheckpointStore
from bandstand.compose.nodes import (
    Cancelled,
    StageContext,
    StageNode,
    StageResult,
    Worker,
    derive_seed,
    run_in_threads,
)
from bandstand.compose.state import (
    CRITICAL_STAGES,
    ErrorCode,
    PipelineState,
    StageError,
    StageRecord,
    now,
)
from bandstand.errors import RuntimeFailure, StageFailed, UserError
from bandstand.protocol import compose as ev

Decision = Literal["approve", "reject", "pause"]
Approver = Callable[[PipelineState, int, str], Decision]
EventSink = Callable[[ev.ComposeEvent], None]

HINTS: dict[str, str] = {
    "TIMEOUT": "the stage ran past its time limit; raise stage_timeout / pipeline_timeout or resume the session",
    "TOOL_EXECUTION_FAILED": "a generator failed; resume the session, or try another seed",
    "QUALITY_GATE_FAILED": "the song was kept but scored below the gate; try another seed or relax the prompt",
    "INVALID_INPUT": "fix the input named in the message and run again",
    "DEPENDENCY_MISSING": "an earlier stage did not produce what this stage needs; see that stage's error",
    "USER_CANCELLED": "resume the session to continue where it stopped",
    "FILE_WRITE_FAILED": "check free space and permissions of the session folder, then resume",
    "LLM_PARSE_FAILED": "the model's reply could not be read; resume to try again",
    "UNKNOWN": "resume the session; if it fails again, report the error",
}


class _AttemptTimeout(Exception):
    pass


def _classify(exc: BaseException) -> tuple[ErrorCode, bool]:
    """(error code, whether another attempt may help)."""
    if isinstance(exc, _AttemptTimeout):
        return "TIMEOUT", True
    if isinstance(exc, StageFailed):
        code: ErrorCode = exc.code if exc.code in HINTS else "UNKNOWN"  # type: ignore[assignment]
        return code, exc.retryable or code not in ("DEPENDENCY_MISSING", "INVALID_INPUT")
    if isinstance(exc, UserError):
        return "INVALID_INPUT", False
    if isinstance(exc, RuntimeFailure):
        return "TOOL_EXECUTION_FAILED", exc.retryable
    if isinstance(exc, OSError):
        return "FILE_WRITE_FAILED", True
    return "TOOL_EXECUTION_FAILED", True


class Engine:
    """Runs a pipeline state through its stage nodes. Not re-entrant: one `run` at a time."""

    def __init__(self, state: PipelineState, nodes: Mapping[int, StageNode], *,
                 checkpoint: CheckpointStore | None = None, on_event: EventSink | None = None,
                 approver: Approver | None = None, artifacts: dict[int, Any] | None = None) -> None:
        missing = sorted(set(range(1, 9)) - set(nodes))
        if missing:
            raise ValueError(f"the engine needs a node for every stage; missing {missing}")
        self.state = state
        self.nodes = dict(nodes)
        self.checkpoint = checkpoint
        self.on_event = on_event
        self.approver = approver
        self.artifacts: dict[int, Any] = dict(artifacts or {})
        self._cancel = threading.Event()
        self._decision: Decision | None = None
        self._regen: tuple[int, tuple[str, ...]] | None = None
        self._worker: Worker | None = None

    # ------------------------------------------------------------------ control

    def cancel(self) -> None:
        """Ask the run to stop; it stops at the next safe point and leaves a resumable checkpoint."""
        self._cancel.set()

    def approve(self) -> None:
        """Continue a run paused at an approval gate (takes effect on the next `run`)."""
        self._decision = "approve"

    def reject(self) -> None:
        """Redo the stage a run is paused at, with a new derived seed, and pause again."""
        self._decision = "reject"

    # ------------------------------------------------------------------ helpers

    def _emit(self, event: ev.ComposeEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _save(self) -> None:
        self.state.updated_at = now()
        if self.checkpoint is not None and self.state.config.checkpoints:
            self.state.recovery.checkpoint_path = str(self.checkpoint.path)
            self.checkpoint.save(self.state)

    def _ctx(self, stage: int, attempt: int) -> StageContext:
        return StageContext(state=self.state, artifacts=self.artifacts, stage=stage, attempt=attempt,
                            emit=self._emit, cancel_event=self._cancel)

    def restore(self) -> None:
        """Rebuild the artifacts of the stages a checkpoint says are done."""
        for n in range(1, 9):
            rec = self.state.stages[n]
            node = self.nodes[n]
            if n in self.artifacts:
                continue
            if rec.status == "completed" or (n == 7 and rec.status == "failed" and rec.output is not None):
                self.artifacts[n] = node.restore(rec.output, self.artifacts)
            elif rec.status == "skipped" and node.on_skip is not None:
                self.artifacts[n] = node.on_skip(self._ctx(n, 0))

    def _next_stage(self) -> int:
        """Where to start: the stage after the last one that finished (completed, skipped or failed
        non-critically), or the paused stage's successor."""
        done = 0
        for n in range(1, 9):
            rec = self.state.stages[n]
            if rec.status in ("completed", "skipped") or (rec.status == "failed" and n not in CRITICAL_STAGES):
                done = n
            else:
                break
        return done + 1

    # ------------------------------------------------------------------ running

    def run(self) -> PipelineState:
        """Run from where the state stands to the end, a pause, a failure or a cancellation."""
        try:
            return self._run()
        finally:
            if self._worker is not None:
                self._worker.stop()
                self._worker = None

    def _run(self) -> PipelineState:
        state = self.state
        if state.status in ("completed", "completed_partial"):
            return state
        t0 = time.perf_counter()
        deadline = time.monotonic() + state.config.pipeline_timeout
        self.restore()
        resumed_from = 0
        if state.status == "paused" and state.paused_at_stage:
            paused = state.paused_at_stage
            decision = self._decision or "pause"
            self._decision = None
            if decision == "pause":
                return state
            state.paused_at_stage = None
            if decision == "reject":
                self._reset_from(paused, bump=paused)
                state.note(paused, "rejected", "regenerating with a new seed")
            else:
                state.note(paused, "approved")
        stage = self._next_stage()
        if state.recovery.is_resumed or stage > 1:
            resumed_from = stage
        state.status = "running"
        self._emit(ev.PipelineStarted(pipeline_id=state.pipeline_id, session_id=state.session_id,
                                      session_dir=state.session_dir, seed=state.seed,
                                      resumed_from_stage=resumed_from))
        quality_rounds = sum(1 for h in state.song_state.history if h.action == "quality_regenerate")
        try:
            while stage <= 8:
                if self._cancel.is_set():
                    return self._finish_cancelled(stage, t0)
                state.current_stage = stage
                outcome = self._run_stage(stage, deadline)
                if outcome == "cancelled":
                    return self._finish_cancelled(stage, t0)
                if outcome == "fatal":
                    return self._finish(t0, "failed")
                if outcome == "regenerate":
                    quality_rounds += 1
                    continue_from = self._regenerate_from(quality_rounds)
                    if continue_from is not None:
                        stage = continue_from
                        continue
                self._save()
                if stage in state.config.approval_gates and state.stages[stage].status == "completed":
                    if not self._approval(stage):
                        return state
                    continue_at = state.stages[stage].status
                    if continue_at == "pending":  # rejected: run it again
                        continue
                stage += 1
        except KeyboardInterrupt:
            return self._finish_cancelled(state.current_stage or 1, t0)
        return self._finish(t0, None)

    def _approval(self, stage: int) -> bool:
        """Ask the approver at a gate. Returns False when the run pauses here."""
        state = self.state
        summary = state.stages[stage].summary
        while True:
            decision: Decision = self.approver(state, stage, summary) if self.approver else "pause"
            if decision == "approve":
                state.note(stage, "approved")
                return True
            if decision == "reject":
                state.note(stage, "rejected", "regenerating with a new seed")
                self._reset_from(stage, bump=stage)
                return True
            state.status = "paused"
            state.paused_at_stage = stage
            self._save()
            if self.checkpoint is not None:
                self.checkpoint.flush()
            self._emit(ev.Paused(pipeline_id=state.pipeline_id, stage=stage, summary=summary))
            return False

    def _reset_from(self, first: int, bump: int | None = None) -> None:
        """Forget stages `first`..8 so they run again (bumping `bump`'s seed variant)."""
        for n in range(first, 9):
            old = self.state.stages[n]
            variant = old.variant + (1 if n == bump else 0)
            self.state.stages[n] = StageRecord(stage=n, name=old.name, critical=old.critical,
                                               max_retries=old.max_retries, variant=variant)
            self.artifacts.pop(n, None)
        self.state.recovery.last_successful_stage = min(self.state.recovery.last_successful_stage, first - 1)

    def _regenerate_from(self, rounds: int) -> int | None:
        rec = self.state.stages[7]
        target, axes = self._regen if self._regen else (None, ())
        self._regen = None
        if target is None or rounds > self.state.config.quality_regenerations or not 1 <= target <= 6:
            rec.status = "failed"
            rec.error = StageError(code="QUALITY_GATE_FAILED", message=rec.summary, recoverable=True,
                                   recovery_hint=HINTS["QUALITY_GATE_FAILED"])
            return None
        self.state.note(7, "quality_regenerate", f"from stage {target}: {', '.join(axes)}")
        self._emit(ev.QualityRetry(pipeline_id=self.state.pipeline_id, failing_axes=list(axes),
                                   regenerate_from=target, round=rounds))
        self._reset_from(target, bump=target)
        self._save()
        return target

    def _skip(self, stage: int, reason: str) -> None:
        node, rec = self.nodes[stage], self.state.stages[stage]
        rec.status = "skipped"
        rec.summary = reason
        self.artifacts[stage] = node.on_skip(self._ctx(stage, 0)) if node.on_skip else None
        self.state.note(stage, "skipped", reason)
        self._emit(ev.StageSkipped(pipeline_id=self.state.pipeline_id, stage=stage, name=node.name, reason=reason))

    def _run_stage(self, stage: int, deadline: float) -> str:
        """Run one stage with retries. Returns ok | fatal | cancelled | regenerate."""
        state, node, rec = self.state, self.nodes[stage], self.state.stages[stage]
        if stage in state.config.skip_stages:
            self._skip(stage, "skipped on request")
            return "ok"
        skipped_deps = [r for r in node.requires if state.stages[r].status == "skipped" and self.artifacts.get(r) is None]
        if skipped_deps:
            self._skip(stage, f"needs stage {skipped_deps[0]}, which was skipped")
            return "ok"
        missing = [r for r in node.requires if self.artifacts.get(r) is None]
        if missing:
            err = StageError(code="DEPENDENCY_MISSING", recoverable=False, recovery_hint=HINTS["DEPENDENCY_MISSING"],
                             message=f"needs the result of stage {missing[0]} ({self.nodes[missing[0]].name}), which failed")
            return self._give_up(stage, err)
        rec.max_retries = state.config.max_retries_per_stage
        rec.status, rec.started_at, rec.error = "running", now(), None
        attempt = 0
        while True:
            attempt += 1
            self._emit(ev.StageStarted(pipeline_id=state.pipeline_id, stage=stage, name=node.name, attempt=attempt))
            ctx = self._ctx(stage, attempt)
            t0 = time.perf_counter()
            try:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _AttemptTimeout(f"the pipeline ran past its {state.config.pipeline_timeout:g}s limit")
                result = self._attempt(node, ctx, min(state.config.stage_timeout, remaining))
            except Cancelled:
                rec.status = "pending"
                rec.tool_calls.extend(ctx.tool_calls)
                return "cancelled"
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    rec.status = "pending"
                    raise
                rec.tool_calls.extend(ctx.tool_calls)
                code, retryable = _classify(exc)
                if time.monotonic() >= deadline:
                    code, retryable = "TIMEOUT", False
                failed_call = next((c.name for c in reversed(ctx.tool_calls) if not c.success), None)
                message = str(exc) or type(exc).__name__
                if isinstance(exc, _AttemptTimeout) and not str(exc):
                    message = f"attempt {attempt} ran past the {state.config.stage_timeout:g}s stage timeout"
                err = StageError(code=code, message=message[:1000], failed_tool_call=failed_call,
                                 recoverable=retryable, recovery_hint=HINTS[code], attempt=attempt)
                rec.attempts.append(err)
                if retryable and rec.retry_count < rec.max_retries:
                    rec.retry_count += 1
                    rec.status = "retrying"
                    state.status = "recovering"
                    state.recovery.total_retries += 1
                    self._emit(ev.StageRetry(pipeline_id=state.pipeline_id, stage=stage, name=node.name,
                                             attempt=attempt + 1, code=code, message=err.message))
                    continue
                if rec.retry_count:
                    causes = "; ".join(f"attempt {e.attempt}: {e.code} {e.message}" for e in rec.attempts)
                    err = err.model_copy(update={"message": f"gave up after {attempt} attempts ({causes})"[:2000]})
                return self._give_up(stage, err)
            state.status = "running"
            rec.tool_calls.extend(ctx.tool_calls)
            return self._complete(stage, result, (time.perf_counter() - t0) * 1000)

    def _attempt(self, node: StageNode, ctx: StageContext, timeout: float) -> StageResult:
        if self._worker is None:
            self._worker = Worker()
        job = self._worker.submit(lambda: node.run(ctx))
        end = time.monotonic() + timeout
        try:
            while not job.done.wait(min(max(end - time.monotonic(), 0.0), 0.05)):
                if time.monotonic() >= end:
                    raise _AttemptTimeout()
                if self._cancel.is_set():
                    raise Cancelled()
        except BaseException:  # timeout, cancel or Ctrl-C: the attempt is abandoned where it stands
            ctx.abandoned = True
            self._worker = None  # its thread finishes (or stops at its next check) on its own
            raise
        if job.error is not None:
            raise job.error
        result: Any = job.result
        if isinstance(result, StageResult):
            return result
        output = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        return StageResult(artifact=result, output=output, summary=str(output)[:120])

    def _complete(self, stage: int, result: StageResult, duration_ms: float) -> str:
        state, node, rec = self.state, self.nodes[stage], self.state.stages[stage]
        rec.status = "completed"
        rec.completed_at = now()
        rec.duration_ms = round(duration_ms, 3)
        rec.summary = result.summary
        rec.output = result.output
        rec.quality_score = result.quality_score
        self.artifacts[stage] = result.artifact
        if node.apply is not None:
            node.apply(state, result.artifact)
        if result.degraded:
            rec.error = StageError(code="TOOL_EXECUTION_FAILED", message=result.degraded, recoverable=True,
                                   recovery_hint=HINTS["TOOL_EXECUTION_FAILED"])
        state.recovery.last_successful_stage = stage
        state.note(stage, "completed", result.summary)
        self._emit(ev.StageCompleted(pipeline_id=state.pipeline_id, stage=stage, name=node.name,
                                     summary=result.summary, duration_ms=rec.duration_ms))
        if stage == 7 and result.regenerate_from is not None and state.config.quality_gate:
            self._regen = (result.regenerate_from, result.failing_axes)
            return "regenerate"
        return "ok"

    def _give_up(self, stage: int, err: StageError) -> str:
        state, node, rec = self.state, self.nodes[stage], self.state.stages[stage]
        rec.status = "failed"
        rec.error = err
        rec.completed_at = now()
        critical = stage in CRITICAL_STAGES
        state.note(stage, "failed", f"{err.code}: {err.message}")
        self._emit(ev.StageFailed(pipeline_id=state.pipeline_id, stage=stage, name=node.name, code=err.code,
                                  message=err.message, critical=critical, recovery_hint=err.recovery_hint))
        self.artifacts[stage] = None
        if critical:
            state.error = err
            return "fatal"
        return "ok"

    def _finish_cancelled(self, stage: int, t0: float) -> PipelineState:
        state = self.state
        rec = state.stages.get(stage)
        err = StageError(code="USER_CANCELLED", message=f"cancelled during stage {stage}", recoverable=True,
                         recovery_hint=HINTS["USER_CANCELLED"])
        if rec is not None and rec.status in ("running", "retrying", "pending"):
            rec.status = "pending"
        state.error = err
        return self._finish(t0, "cancelled")

    def _finish(self, t0: float, forced: str | None) -> PipelineState:
        state = self.state
        elapsed = (time.perf_counter() - t0) * 1000
        state.total_duration_ms = round(state.total_duration_ms + elapsed, 3)
        if forced is not None:
            state.status = forced  # type: ignore[assignment]
        else:
            partial = any(r.status == "failed" or r.error is not None for r in state.stages.values())
            state.status = "completed_partial" if partial else "completed"
            state.current_stage = 9
            state.completed_at = now()
            if partial and state.error is None:
                state.error = next(r.error for r in state.stages.values() if r.error is not None)
        self._save()
        if self.checkpoint is not None:
            self.checkpoint.flush()
        message = state.error.message if state.error else ""
        self._emit(ev.PipelineFinished(pipeline_id=state.pipeline_id, status=state.status,
                                       session_dir=state.session_dir, duration_ms=elapsed, message=message))
        return state


# The node types live in `nodes`; they are re-exported here because the engine is where callers look.
__all__ = ["Approver", "Cancelled", "Decision", "Engine", "EventSink", "StageContext", "StageNode", "StageResult",
           "derive_seed", "run_in_threads"]
