"""Stage nodes and what a stage handler sees.

A `StageNode` is one stage of the pipeline: its handler (a function of a
`StageContext`), how its checkpointed output becomes a live artifact again,
the stages it needs, what stands in when it is skipped, and how it updates
the run state. A handler returns a `StageResult`. Seeds are derived per
stage, part and variant; part generators run side by side with
`run_in_threads`; stage attempts run on a `Worker` thread so the engine can
time them out.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bandstand.compose.state import PipelineState, ToolCall, now
from bandstand.errors import StageFailed
from bandstand.protocol import compose as ev


def derive_seed(run_seed: int, stage: int, part: str | None = None, variant: int = 0) -> int:
    """A stable 32-bit seed for one stage (and one part) of a run. Parts are keyed by role
    name, so regenerating one part does not move the others."""
    key = f"{run_seed}/{stage}/{part or ''}/{variant}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "big")


class Cancelled(Exception):
    """Raised inside a stage when the run was cancelled or the attempt abandoned."""


@dataclass(frozen=True, slots=True)
class StageResult:
    """What a stage produced: the live `artifact`, its JSON-able checkpoint `output`, a one-line
    `summary`; `degraded` says what is missing from an otherwise usable result; validation sets
    `regenerate_from` when its gate failed."""

    artifact: Any
    output: Any
    summary: str
    quality_score: float | None = None
    degraded: str | None = None
    regenerate_from: int | None = None
    failing_axes: tuple[str, ...] = ()


Handler = Callable[["StageContext"], Any]


def _identity(value: Any, artifacts: dict[int, Any]) -> Any:
    del artifacts
    return value


@dataclass(frozen=True, slots=True)
class StageNode:
    """One stage: its handler, how to restore its artifact from its checkpointed output (and
    the artifacts restored before it), the stages it needs, what stands in when it is
    skipped, and how it updates the run state."""

    number: int
    name: str
    run: Handler
    restore: Callable[[Any, dict[int, Any]], Any] = _identity
    requires: tuple[int, ...] = ()
    on_skip: Callable[[StageContext], Any] | None = None
    apply: Callable[[PipelineState, Any], None] | None = None


@dataclass(slots=True)
class StageContext:
    """What a stage handler sees: the run state (read it, do not mutate it), earlier stages'
    artifacts, its derived seeds, cancellation and tool-call recording."""

    state: PipelineState
    artifacts: dict[int, Any]
    stage: int
    attempt: int
    emit: Callable[[ev.ComposeEvent], None]
    cancel_event: threading.Event
    tool_calls: list[ToolCall] = field(default_factory=list)
    abandoned: bool = False

    @property
    def config(self) -> Any:
        return self.state.config

    def seed(self, part: str | None = None, stage: int | None = None) -> int:
        n = stage or self.stage
        return derive_seed(self.state.seed, n, part, self.state.stages[n].variant)

    def artifact(self, stage: int) -> Any:
        value = self.artifacts.get(stage)
        if value is None:
            raise StageFailed(f"stage {self.stage} needs the result of stage {stage}, which is missing",
                              stage=self.stage, code="DEPENDENCY_MISSING")
        return value

    def check_cancelled(self) -> None:
        if self.abandoned or self.cancel_event.is_set():
            raise Cancelled()

    def tool(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call `fn`, recording it as a tool call of this stage (time, success, error)."""
        self.check_cancelled()
        invoked = now()
        t0 = time.perf_counter()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            self.tool_calls.append(ToolCall(name=name, invoked_at=invoked, success=False, error=str(exc)[:500],
                                            duration_ms=round((time.perf_counter() - t0) * 1000, 3)))
            raise
        self.tool_calls.append(ToolCall(name=name, invoked_at=invoked, success=True,
                                        duration_ms=round((time.perf_counter() - t0) * 1000, 3)))
        return result


def run_in_threads(tasks: Mapping[str, Callable[[], Any]], parallel: bool) -> dict[str, Any]:
    """Run `tasks` concurrently in daemon threads (or in order) and return their results by
    name; the first exception (in task order) is re-raised after all have finished."""
    if not parallel or len(tasks) < 2:
        return {name: fn() for name, fn in tasks.items()}
    results: dict[str, Any] = {}
    errors: dict[str, BaseException] = {}

    def runner(name: str, fn: Callable[[], Any]) -> None:
        try:
            results[name] = fn()
        except BaseException as exc:
            errors[name] = exc

    threads = [threading.Thread(target=runner, args=(n, f), daemon=True, name=f"part-{n}") for n, f in tasks.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in tasks:
        if name in errors:
            raise errors[name]
    return {name: results[name] for name in tasks}


class Job:
    __slots__ = ("done", "error", "fn", "result")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class Worker:
    """One daemon thread that runs stage attempts one after another (starting a thread per
    attempt costs more than most stages). A worker whose attempt timed out is abandoned."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, daemon=True, name="compose-stage").start()

    def stop(self) -> None:
        """Let the thread end once its current job (if any) is done."""
        self._jobs.put(None)

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job.result = job.fn()
            except BaseException as exc:
                job.error = exc
            job.done.set()

    def submit(self, fn: Callable[[], Any]) -> Job:
        job = Job(fn)
        self._jobs.put(job)
        return job
