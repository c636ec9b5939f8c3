"""`bandstand board launch`: a Conductor and N Musicians as agent sessions on the board.

`launch(request)` checks everything a person can get wrong before anything is
written (musicians ≥ 1, a known backend that is configured here, the tasks, a
board it can open), then: the conductor's session (the conductor skill as its
system prompt, the launch prompt as its first turn) takes ``task-00`` and
creates the tasks (`board_conductor`); N musician processes (``bandstand board
musician``, each one agent session at a time — `board_musician`) claim them,
heartbeat, report and complete; the conductor reviews, recovers stale tasks
and completes its row when every task is finished. Progress goes to
`on_progress` after each pass; Ctrl-C (KeyboardInterrupt) stops the musicians
(SIGTERM, then SIGKILL after a grace) and leaves the board as it stood, so a
launch run again continues it.

Backends: ``builtin`` (offline: each task composes a song through the
producer facade; the harness makes the board writes), ``claude-code``,
``anthropic``, ``openai`` (the agent configuration: `bandstand agents
check`): their sessions make the board writes themselves through the board
tools (`board_sessions`); the conductor session gives its verdicts with them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.producer.board.board_backends import backend_for, check_backend
from bandstand.producer.board.board_conductor import BoardProgress, LaunchConductor
from bandstand.producer.board.board_musician import PHASE
from bandstand.producer.board.board_work import WorkResult, task_checks, verify

__all__ = ["BUILTIN_TASKS", "LaunchOutcome", "LaunchRequest", "check_launch",
           "launch", "plan_tasks"]

MAX_MUSICIANS = 32
MAX_TASKS = 999
#: Seconds the musicians get to stop after SIGTERM before SIGKILL.
STOP_GRACE = 10.0
#: What the built-in band works on when `--tasks` is a count: a short song each.
BUILTIN_TASKS = (
    "lo-fi hip hop in A minor, 80 BPM, dusty and calm",
    "deep house in F minor, 122 BPM, warm pads",
    "bossa nova in D major, gentle guitar",
    "synthwave in E minor, 100 BPM, driving bass",
    "soul ballad in Bb major, slow and tender",
    "drum and bass in G minor, 174 BPM, rolling",
    "jazz waltz in C major, 3/4, brushes",
    "trap in C# minor, 140 BPM, dark",
)


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """A launch: `tasks` is a count (built-in instructions) or a file with one instruction a line."""

    musicians: int
    backend: str = "builtin"
    board: str | None = None
    tasks: str = "6"
    workdir: Path = Path(".")
    out: Path | None = None
    heartbeat: float = 5.0
    stale_after: float = 540.0
    poll: float = 0.5
    conductor: str = "conductor"
    config: str | None = None

    @property
    def out_dir(self) -> Path:
        return self.out if self.out is not None else Path(self.workdir) / "output" / "board"


@dataclass(slots=True)
class LaunchOutcome:
    """How a launch ended: the board's tasks (id → state, worked_by) and the conductor's tally."""

    progress: BoardProgress
    tasks: dict[str, tuple[str, str]] = field(default_factory=dict)
    musicians: dict[str, int | None] = field(default_factory=dict)
    seconds: float = 0.0


def plan_tasks(tasks: str) -> list[str]:
    """The instructions a `--tasks` value names (a count, or a file; a line may name its tests,
    `board_work.task_checks`)."""
    from bandstand.errors import InvalidInput

    text = tasks.strip()
    if text.isdigit():
        count = int(text)
        if not 1 <= count <= MAX_TASKS:
            raise InvalidInput(f"--tasks {count}: a launch has 1 to {MAX_TASKS} tasks")
        return [BUILTIN_TASKS[k % len(BUILTIN_TASKS)] + (f", take {k // len(BUILTIN_TASKS) + 1}"
                                                         if k >= len(BUILTIN_TASKS) else "") for k in range(count)]
    path = Path(text).expanduser()
    if not path.is_file():
        raise InvalidInput(f"--tasks {tasks!r} is neither a count nor a file: give a number (e.g. 6) or a "
                           "text file with one instruction a line")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the tasks file {path}: {exc}") from exc
    found = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not found:
        raise InvalidInput(f"{path} holds no task: write one instruction a line (# starts a comment)")
    if len(found) > MAX_TASKS:
        raise InvalidInput(f"{path} holds {len(found)} tasks; a launch has at most {MAX_TASKS}")
    for line in found:  # a task's check fields are checked before anything is written
        task_checks(line)
    return found


def check_launch(request: LaunchRequest) -> list[str]:
    """Everything a person can get wrong, before anything is written; returns the instructions."""
    from bandstand.errors import InvalidInput

    if not 1 <= request.musicians <= MAX_MUSICIANS:
        raise InvalidInput(f"--musicians {request.musicians}: a launch needs 1 to {MAX_MUSICIANS} musicians")
    for name, value in (("--heartbeat", request.heartbeat), ("--stale-after", request.stale_after),
                        ("--poll", request.poll)):
        if not value > 0:
            raise InvalidInput(f"{name} must be more than 0 seconds; got {value:g}")
    if request.heartbeat >= request.stale_after:
        raise InvalidInput(f"--heartbeat ({request.heartbeat:g} s) must be shorter than --stale-after "
                           f"({request.stale_after:g} s), or every task looks stale")
    if not request.conductor.strip():
        raise InvalidInput("--conductor names the conductor's session; it cannot be empty")
    check_backend(request.backend, request.config)
    return plan_tasks(request.tasks)


def conductor_responder(request: Any) -> dict[str, str]:
    """The built-in conductor's answer: the launch prompt acknowledged; a review's verdict from
    the verification the conductor ran."""
    data = request.data if isinstance(request.data, dict) else {}
    if "review" not in data:
        return {"verdict": "approve", "note": "conducting: tasks created, reviewing as they arrive"}
    problems = list(data.get("problems") or [])
    if problems:
        return {"verdict": "reject", "note": "; ".join(map(str, problems))}
    return {"verdict": "approve", "note": f"{data['review']}: the result is all there and verified"}


def _conductor_tools(board: Any, request: LaunchRequest) -> Any:
    """The conductor's board tools; an approval is refused while the conductor's own verification of
    the posted result finds a problem."""
    from bandstand.board.tools import BoardToolbox

    def problems(task_id: str) -> list[str]:
        found = board.last_message(task_id, "result")
        return ["no result was posted"] if found is None else verify(WorkResult.from_json(found.message))

    return BoardToolbox(board, request.conductor, "conductor", workdir=request.workdir, phase=PHASE,
                        poll=request.poll, review_problems=problems)


def _musician_cmd(request: LaunchRequest, url: str, session: str) -> list[str]:
    cmd = [sys.executable, "-m", "bandstand", "board", "--board", url, "--workdir", str(request.workdir),
           "--stale-after", str(request.stale_after), "musician", "--session", session, "--backend",
           request.backend, "--out", str(request.out_dir), "--heartbeat", str(request.heartbeat),
           "--poll", str(request.poll)]
    return cmd + (["--config", request.config] if request.config else [])


def _stop(procs: dict[str, subprocess.Popen[bytes]], *, finished: bool = False) -> None:
    """End the musicians: when the board is finished they end by themselves (waited for, up to
    the grace); else — Ctrl-C, an error — SIGTERM, then SIGKILL after the grace."""
    if finished:
        deadline = time.monotonic() + STOP_GRACE
        for proc in procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.1, deadline - time.monotonic()))
    for proc in procs.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for proc in procs.values():
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _conduct(request: LaunchRequest, board: Any, instructions: list[str], url: str,
                   on_progress: Callable[[BoardProgress], None] | None,
                   procs: dict[str, subprocess.Popen[bytes]]) -> BoardProgress:
    from bandstand.board.skilltext import launch_prompt, skill
    from bandstand.errors import RuntimeFailure
    from bandstand.runtime import Session

    backend = backend_for(request.backend, request.config, responder=conductor_responder)
    tooled = request.backend != "builtin"
    session = Session(backend, name="conductor", persona=skill("conductor"), session_id=request.conductor,
                      log_dir=Path(request.workdir) / "temp" / "sessions" if tooled else None)
    try:
        await session.start()
        toolbox = _conductor_tools(board, request) if tooled else None
        conductor = LaunchConductor(board, request.conductor, session, toolbox)
        conductor.setup(instructions)
        prompt = launch_prompt(
            role="conductor", name="the Conductor", session_id=request.conductor, board=url,
            task_id="task-00", workdir=str(request.workdir), tools=tooled,
            instruction=f"Conduct {len(instructions)} tasks with {request.musicians} musicians:\n"
                        + "\n".join(f"- task-{k:02d}: {text}" for k, text in enumerate(instructions, start=1)))
        if toolbox is not None:
            from bandstand.producer.board.board_sessions import tool_turns

            await tool_turns(session, prompt, toolbox)
        else:
            await session.send(prompt)
        run = os.getpid()
        logs: dict[str, Path] = {}
        for k in range(1, request.musicians + 1):
            sid = f"musician-{k}-{run}"
            logs[sid] = Path(request.workdir) / "temp" / f"{sid}.log"
            logs[sid].parent.mkdir(parents=True, exist_ok=True)
            with logs[sid].open("wb") as log:
                procs[sid] = subprocess.Popen(_musician_cmd(request, url, sid), stdin=subprocess.DEVNULL,
                                              stdout=log, stderr=subprocess.STDOUT)
        while True:
            progress = await conductor.step()
            if on_progress is not None:
                on_progress(progress)
            if progress.done:
                conductor.finish()
                return progress
            if all(p.poll() is not None for p in procs.values()):
                tails = {sid: (log.read_text(errors="replace").strip().splitlines() or ["no output"])[-1]
                         for sid, log in logs.items()}
                raise RuntimeFailure("every musician stopped before the board was done: "
                                     + "; ".join(f"{sid} exit {procs[sid].returncode}: {t}" for sid, t in tails.items()))
            await asyncio.sleep(request.poll)
    finally:
        await session.stop()


def launch(request: LaunchRequest, *, on_progress: Callable[[BoardProgress], None] | None = None) -> LaunchOutcome:
    """Run a launch to its end (see the module docstring)."""
    from datetime import timedelta

    from bandstand.board import Board

    instructions = check_launch(request)
    started = time.monotonic()
    procs: dict[str, subprocess.Popen[bytes]] = {}
    with Board.open(request.board, workdir=request.workdir, stale_after=timedelta(seconds=request.stale_after)) as board:
        url = board.store.url
        finished = False
        try:
            progress = asyncio.run(_conduct(request, board, instructions, url, on_progress, procs))
            finished = True
        finally:
            # a second Ctrl-C must not cut the musicians' stop short (they would be left running)
            main = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
            try:
                _stop(procs, finished=finished)
            finally:
                if main:
                    signal.signal(signal.SIGINT, previous)
        tasks = {t.task_id: (str(t.state), t.worked_by or "") for t in board.tasks() if t.phase == "launch"}
    return LaunchOutcome(progress, tasks, {sid: p.returncode for sid, p in procs.items()},
                         round(time.monotonic() - started, 2))
