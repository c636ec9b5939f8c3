"""Graph nodes and what a node handler sees.

A `Node` is one named step of the pipeline graph: its handler (a function of
a `NodeContext`), the nodes (or groups of nodes) whose artifacts it reads,
the type of the artifact it produces, how that artifact is saved in and
restored from a checkpoint, what stands in when it is skipped, and how it
updates the run state. A handler returns a `NodeResult` (or a bare artifact).

Seeds are derived per node (and per part) and per variant, so regenerating
one node never moves another. Attempts run on `Worker` threads so the engine
can time them out and run independent nodes side by side. An attempt shows
progress by computing (its thread's CPU time grows, however slowly a starved
machine lets it) or by saying so through its context (a tool call, a
cancellation check, a render asking whether to stop between its small steps):
the engine stops an attempt that has shown no progress for the stall limit —
one that waits on what never comes — not one that is merely slow.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, ParamSpec, TypeVar

from bandstand.compose.seeds import stable_seed
from bandstand.compose.state import ErrorCode, PipelineConfig, PipelineState, ToolCall, now
from bandstand.errors import Cancelled, StageFailed

__all__ = ["FACTS", "Cancelled", "Job", "Node", "NodeContext", "NodeResult", "TimeUp", "Worker", "WorkerPool",
           "derive_seed"]

if TYPE_CHECKING:
    from bandstand.compose.edges import Edge
    from bandstand.compose.graph import Artifacts
    from bandstand.protocol.jsonvalue import JSONValue

T = TypeVar("T")
A = TypeVar("A", covariant=True)  # a result holding a PartResult is a result holding an object
R = TypeVar("R")
P = ParamSpec("P")

FACTS: tuple[str, ...] = ("key", "mode", "tempo", "metre", "genre", "energy", "form", "dials", "instrument")
"""The song's facts (read off the intent) a node may declare it reads; what an edit changes."""


def derive_seed(run_seed: int, key: str | int, part: str | None = None, variant: int = 0) -> int:
    """A stable 32-bit seed for one node (and one part) of a run. Parts are keyed by role
    name, so regenerating one part does not move the others."""
    return stable_seed(run_seed, key, part or "", variant)


@dataclass(frozen=True, slots=True)
class NodeResult(Generic[A]):
    """What a node produced: the live `artifact` (an `A`: the node's declared output), its JSON-able checkpoint `output`, a one-line
    `summary`; `degraded` says what is missing from an otherwise usable result (and
    `degraded_code` why: a file that could not be written is FILE_WRITE_FAILED; `degraded_hint`,
    when given, how to get it, in place of the code's usual hint); validation sets `regenerate`
    (node or group names) when its gate failed."""

    artifact: A
    output: JSONValue  # what the checkpoint keeps
    summary: str
    quality_score: float | None = None
    degraded: str | None = None
    degraded_code: ErrorCode = "TOOL_EXECUTION_FAILED"
    degraded_hint: str | None = None
    regenerate: tuple[str, ...] = ()
    failing_axes: tuple[str, ...] = ()
    failing: str = ""  # what failed, in words (the gate's weakest number: "groove consistency 0.31 < 0.78")


@dataclass(frozen=True, slots=True)
class TimeUp:
    """Why an attempt is out of time: `message` names the node and the limit that stopped it,
    `option` is the command-line option that raises that limit (`--stall-timeout`, …)."""

    message: str
    option: str


Handler = Callable[["NodeContext"], object]


def _cpu_clock() -> int | None:
    """The CPU-time clock of the calling thread, or None where the system has none to read."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


def _cpu_seconds(clock: int) -> float | None:
    try:
        return time.clock_gettime(clock)
    except OSError:  # the thread has ended
        return None


def _identity(value: object, artifacts: Artifacts) -> object:
    del artifacts
    return value


@dataclass(frozen=True, slots=True)
class Node:
    """One node of the graph.

    `inputs` name the nodes (or fan-out groups) whose artifacts it needs, `optional` those it
    waits for and uses when they produced something (it runs without them); `output` is the
    artifact's type, checked after every run; `restore` turns the checkpointed output back
    into the artifact (given the artifacts restored before it); `on_skip` stands in when the
    node is skipped; `apply` records what the node decided in the run state. `seed_key` is what
    its seeds derive from and `member` the fan-out key (a part's role), part of its seeds too.

    `reads`: what the node's artifact is made from — song facts (`FACTS`) and the input nodes
    whose artifact it uses (a part reads the harmony for its chords; the drums do not); a change
    reaches the node when it reaches one of them. `Graph` refuses a node name that is not one of
    the node's inputs and a word that is not a fact.

    `deterministic`: the same inputs and seed give the same result by the same work (every
    built-in node but an intent read by a language model), so an attempt that ran out of time
    is not tried again: another would do the same work in the same time. `stops_short`: told
    that its time is up (`NodeContext.time_up`), the node finishes without the part it has not
    done (the output node: the session without its WAV) instead of being abandoned.

    `takes`: the typed edges of a node built by `compose.edges.typed_node` (read off its
    handler's inputs model; `inputs`, `optional` and `output` come from them), which `Graph`
    checks against what the nodes before it declare they produce. Empty for a bare node.
    """

    name: str
    run: Handler
    inputs: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    output: type | tuple[type, ...] = object
    critical: bool = False
    seed_key: str = ""
    member: str | None = None
    restore: Callable[[JSONValue, Artifacts], object] = _identity
    on_skip: Callable[[NodeContext], object] | None = None
    apply: Callable[[PipelineState, object], None] | None = None
    deterministic: bool = True
    stops_short: bool = False
    takes: tuple[Edge, ...] = ()

    def with_handler(self, run: Handler) -> Node:
        """The same node with another handler (tests drive the engine with slow or failing ones)."""
        return dataclasses.replace(self, run=run)


@dataclass(slots=True)
class NodeContext:
    """What a node handler sees: the run state (read it, do not mutate it), the artifacts of
    the nodes before it, its derived seeds, cancellation, tool-call recording, and the signs of
    progress the engine's stall limit watches (`last_progress`, a `time.monotonic()`, moved on
    by the attempt's threads and, when its thread has computed, by the engine's `observe`)."""

    state: PipelineState
    artifacts: Artifacts
    node: Node
    attempt: int
    cancel_event: threading.Event
    tool_calls: list[ToolCall] = field(default_factory=list)
    abandoned: bool = False
    last_progress: float = field(default_factory=time.monotonic)
    out_of_time: TimeUp | None = None  # set by the engine for a node that `stops_short`
    cpu_clock: int | None = None  # the CPU-time clock of the thread running the attempt
    cpu_seen: float = 0.0
    tell: Callable[[str], None] | None = None  # the engine's NodeProgress, set for each attempt

    @property
    def config(self) -> PipelineConfig:
        return self.state.config

    def seed(self, later: int = 0) -> int:
        """This node's seed: derived from the run's seed, the node, its part and its variant
        (`later` variants on: a further take of a part)."""
        rec = self.state.nodes.get(self.node.name)
        return derive_seed(self.state.seed, self.node.seed_key or self.node.name, self.node.member,
                           (rec.variant if rec else 0) + later)

    def input(self, name: str, kind: type[T]) -> T:
        """The artifact of input node `name`, checked to be a `kind`."""
        value = self.artifacts.get(name)
        if value is None:
            raise StageFailed(f"{self.node.name} needs the result of {name}, which is missing",
                              node=self.node.name, code="DEPENDENCY_MISSING")
        if not isinstance(value, kind):
            raise StageFailed(f"{self.node.name} needs a {kind.__name__} from {name}, got {type(value).__name__}",
                              node=self.node.name, code="DEPENDENCY_MISSING")
        return value

    def optional(self, name: str) -> object:
        """The artifact of `name`, or None when it was skipped or failed."""
        return self.artifacts.get(name)

    def group(self, name: str) -> dict[str, object]:
        """The artifacts of a fan-out group by member key (`parts` → {role: PartResult})."""
        return self.artifacts.members(name)

    def progress(self) -> None:
        """Say that the attempt is still moving (the stall limit counts from the last time)."""
        self.last_progress = time.monotonic()

    def say(self, words: str) -> None:
        """Tell whoever watches the run what the attempt does now ("rendering: mastering"): a
        `NodeProgress` event; progress for the stall limit too. An abandoned attempt says nothing."""
        self.progress()
        if self.tell is not None and not self.abandoned:
            self.tell(words)

    def running_here(self) -> None:
        """The worker starts the attempt on the calling thread: its CPU time is watched from now."""
        self.cpu_clock = _cpu_clock()
        used = None if self.cpu_clock is None else _cpu_seconds(self.cpu_clock)
        self.cpu_seen = used if used is not None else 0.0
        self.progress()

    def observe(self) -> None:
        """Count the CPU time the attempt's thread used since the last look as progress (called
        from the engine's thread): a starved node computes slowly, a stuck one not at all."""
        if self.cpu_clock is None:
            return
        used = _cpu_seconds(self.cpu_clock)
        if used is None:
            self.cpu_clock = None
        elif used > self.cpu_seen:
            self.cpu_seen = used
            self.progress()

    def check_cancelled(self) -> None:
        self.progress()
        if self.abandoned or self.cancel_event.is_set():
            raise Cancelled()

    def stopping(self) -> bool:
        """Whether work that can stop part-way (a render) should stop now: the run was cancelled,
        the attempt abandoned, or its time is up. Asking is a sign of progress."""
        self.progress()
        return self.abandoned or self.cancel_event.is_set() or self.out_of_time is not None

    def time_up(self) -> TimeUp | None:
        """Why this attempt's time is up, when that (and not a cancellation) is why it should stop."""
        if self.abandoned or self.cancel_event.is_set():
            return None
        return self.out_of_time

    def tool(self, name: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Call `fn`, recording it as a tool call of this node (time, success, error); its start
        and its end are signs of progress."""
        self.check_cancelled()
        invoked = now()
        t0 = time.perf_counter()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            self.progress()
            self.tool_calls.append(ToolCall(name=name, invoked_at=invoked, success=False, error=str(exc)[:500],
                                            duration_ms=round((time.perf_counter() - t0) * 1000, 3)))
            raise
        self.progress()
        self.tool_calls.append(ToolCall(name=name, invoked_at=invoked, success=True,
                                        duration_ms=round((time.perf_counter() - t0) * 1000, 3)))
        return result


class Job:
    """One attempt of one node, run on a worker; posts itself to `done` when finished."""

    __slots__ = ("ctx", "done", "error", "finished", "fn", "node", "result", "started", "started_at", "told",
                 "worker")

    def __init__(self, node: str, ctx: NodeContext, fn: Callable[[], NodeResult[object]],
                 done: queue.SimpleQueue[Job]) -> None:
        self.node = node
        self.ctx = ctx
        self.fn = fn
        self.done = done
        self.finished = False
        self.result: NodeResult[object] | None = None  # set when the attempt finished without an error
        self.error: BaseException | None = None
        self.started = time.perf_counter()
        self.started_at = time.monotonic()  # what a wall limit per attempt counts from
        self.told = False  # a node that stops short was told its time is up
        self.worker: Worker | None = None


class Worker:
    """One daemon thread that runs attempts one after another (starting a thread per
    attempt costs more than most nodes). A worker whose attempt timed out is abandoned."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        threading.Thread(target=self._loop, daemon=True, name="compose-node").start()

    def stop(self) -> None:
        """Let the thread end once its current job (if any) is done."""
        self._jobs.put(None)

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job.ctx.running_here()
                job.result = job.fn()
            except BaseException as exc:
                job.error = exc
            job.finished = True
            job.done.put(job)

    def submit(self, job: Job) -> Job:
        job.worker = self
        self._jobs.put(job)
        return job


class WorkerPool:
    """Idle workers kept for the next attempt; abandoned ones are never reused."""

    def __init__(self) -> None:
        self._idle: list[Worker] = []

    def submit(self, job: Job) -> Job:
        return (self._idle.pop() if self._idle else Worker()).submit(job)

    def release(self, job: Job) -> None:
        """A finished job's worker is free again."""
        if job.worker is not None:
            self._idle.append(job.worker)
            job.worker = None

    def abandon(self, job: Job) -> None:
        """A job that ran too long (or was cancelled): its thread ends on its own."""
        job.ctx.abandoned = True
        if job.worker is not None:
            job.worker.stop()
            job.worker = None

    def close(self) -> None:
        for worker in self._idle:
            worker.stop()
        self._idle.clear()
