"""`bandstand board …` — the conductor/musician task board from the shell.

Every protocol operation is a command; `--board URL` (or $BANDSTAND_BOARD)
chooses the store, `--session` (or $CLAUDE_SESSION_ID) says who acts. The
three checks exit 0 healthy, 1 issues (and 2 critical for headroom);
`context-check` exits 0 proceed, 1 ask the conductor, 2 stop and escalate."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from bandstand.producer.app import BoardDesk, ContextEstimate

BOARD_EXAMPLES = """\b
Examples (a task from start to finish; docs/board.md explains each step):
  export BANDSTAND_BOARD=sqlite:///$PWD/board.db
  bandstand board init --session conductor
  bandstand board create task-01 --phase build
  bandstand board instruct task-01 "Add the tempo map to the MIDI writer" -s conductor
  bandstand board claim task-01 -s musician-a
  bandstand board request-review task-01 -s musician-a --smoothness 8 --checkpoint 1/2 --context 35 --summary "tests pass"
  bandstand board approve task-01 -s conductor --note "good, continue"
  bandstand board list
"""

app = typer.Typer(
    help="The conductor/musician task board (SQLite by default, PostgreSQL with --board postgresql://…).",
    epilog=BOARD_EXAMPLES,
    no_args_is_help=False,  # a bare group is "Missing command." on one line (exit 2), like the root
    add_completion=False,
    rich_markup_mode=None,
)
hook_app = typer.Typer(help="Hooks for agent sessions (JSON on stdin, decision JSON on stdout).")
app.add_typer(hook_app, name="hook")

_STATE: dict[str, Any] = {}

SessionOpt = typer.Option(None, "--session", "-s", help="Acting session id (default: $CLAUDE_SESSION_ID).")


@app.callback()
def _options(
    board: str = typer.Option(None, "--board", envvar="BANDSTAND_BOARD",
                              help="Board URL: sqlite:///PATH (default sqlite:///.bandstand/board.db) or postgresql://…"),
    workdir: str = typer.Option(".", "--workdir", help="Folder holding temp/ and docs/ for the task files."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    stale_after: float = typer.Option(540.0, "--stale-after", envvar="BANDSTAND_BOARD_STALE_AFTER", min=1.0,
                                      help="Seconds after which a heartbeat is stale (default 540 = 9 minutes)."),
    busy_timeout: float = typer.Option(30.0, "--busy-timeout", envvar="BANDSTAND_BOARD_BUSY_TIMEOUT", min=0.1,
                                       max=3600.0, help="Seconds a write waits for another writer (default 30)."),
) -> None:
    _STATE.update(board=board, workdir=workdir, json=as_json, stale_after=stale_after, busy_timeout=busy_timeout)


def _desk(board: str | None = None) -> BoardDesk:
    """The board `--board` names (or a command's own `board`), through the producer."""
    from bandstand.producer import App

    return App.board(board or _STATE.get("board"), workdir=_STATE.get("workdir", "."),
                     stale_after=_STATE.get("stale_after", 540.0), busy_timeout=_STATE.get("busy_timeout", 30.0))


def _session(session: str | None) -> str:
    from bandstand.errors import BoardUsageError

    value = session or os.environ.get("CLAUDE_SESSION_ID")
    if not value:
        raise BoardUsageError("say who acts: --session ID (or set CLAUDE_SESSION_ID)")
    return value


def _out(obj: Any, text: str) -> None:
    if _STATE.get("json"):
        typer.echo(json.dumps(obj, indent=2, default=str))
    else:
        typer.echo(text)


def _task_out(task: Any) -> None:
    _out(task.as_dict(), f"{task.task_id}: {task.state} (worked by {task.worked_by or 'nobody'})")


@app.command()
def init(session: str = SessionOpt) -> None:
    """Create the board (migrations) and the conductor's own row, task-00."""
    with _desk().open() as b:
        _task_out(b.init(_session(session)))


@app.command()
def create(task_id: str, instructions: str = typer.Option(None, help="Path of the instruction file."),
           phase: str = typer.Option(None, help="Phase name.")) -> None:
    """Create a task in state watching."""
    with _desk().open() as b:
        _task_out(b.create_task(task_id, instruction_path=instructions, phase=phase))


@app.command("list")
def list_tasks() -> None:
    """All tasks and their states (a row in a state the protocol does not know is marked; exit 1)."""
    rows, bad = _desk().task_rows()

    def state(r: dict[str, Any]) -> str:
        return f"{r['state']!r} (not a protocol state)" if r["task_id"] in bad else r["state"]

    _out(rows, "\n".join(f"{r['task_id']:<14} {state(r):<16} {r['worked_by'] or '-':<24} hb {r['last_heartbeat'] or '-'}"
                         for r in rows) or "the board is empty")
    if bad:
        print(f"bandstand: error: {', '.join(bad)} in a state the protocol does not know; "
              "see 'bandstand board check-state TASK'", file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def show(task_id: str) -> None:
    """One task in full."""
    with _desk().open() as b:
        task = b.task(task_id)
    _out(task.as_dict(), "\n".join(f"{k}: {v}" for k, v in task.as_dict().items()))


@app.command()
def instruct(task_id: str, text: str, session: str = SessionOpt) -> None:
    """(conductor) Post an instruction to a task."""
    with _desk().open() as b:
        mid = b.instruct(task_id, text, conductor_session=_session(session))
    _out({"id": mid}, f"message #{mid}")


@app.command()
def claim(task_id: str = typer.Argument(None, help="Task to claim; omit with --next."),
          next_: bool = typer.Option(False, "--next", help="Claim the first watching task."),
          session: str = SessionOpt) -> None:
    """(musician) Claim a task. Exit 1 when the claim is blocked (a fallback row is written)."""
    from bandstand.errors import BoardUsageError

    sid = _session(session)
    with _desk().open() as b:
        if next_:
            result = b.claim_next(sid)
            if result is None:
                _out({"claimed": False, "reason": "no watching task"}, "no watching task left")
                raise typer.Exit(1)
        elif task_id:
            result = b.claim(task_id, sid)
        else:
            raise BoardUsageError("name the task to claim, or use --next")
    from dataclasses import asdict

    _out(asdict(result), f"claimed {result.task_id} as {result.worked_by}" if result.claimed
         else f"claim blocked: {result.reason} (fallback row {result.fallback_task_id})")
    if not result.claimed:
        raise typer.Exit(1)


@app.command()
def heartbeat(task_id: str, session: str = SessionOpt) -> None:
    """(musician) Refresh the heartbeat."""
    with _desk().open() as b:
        b.heartbeat(task_id, _session(session))
        _task_out(b.task(task_id))


_REVIEW_OPTS: dict[str, Any] = dict(
    smoothness=typer.Option(..., min=0, max=9, help="How smooth the work went, 0–9."),
    checkpoint=typer.Option(..., help="n/m, e.g. 2/4."),
    context=typer.Option(..., min=0, max=100, help="Context usage, percent."),
    summary=typer.Option(..., help="One-paragraph summary."),
    self_correction=typer.Option(None, help="Describe a self-correction, if any."),
    deviations=typer.Option(0, help="Number of deviations."),
    severity=typer.Option(None, help="Highest deviation severity: Low, Medium or High."),
    agents=typer.Option(0, help="Agents remaining."),
    agent_cost=typer.Option(8.0, help="Context percent per agent."),
    proposal=typer.Option(None, help="Proposal path."),
    files=typer.Option("", help="Files modified, comma-separated."),
    tests=typer.Option("", help="Tests run and their result."),
    output=typer.Option([], help="Key output PATH[:created|modified|rag-addition]; repeatable."),
)


def _review_command(name: str, final: bool, doc: str) -> None:
    """Register a review command (`request-review` or its final form, `report-completion`)."""

    def command(task_id: str, session: str = SessionOpt, smoothness: int = _REVIEW_OPTS["smoothness"],
                checkpoint: str = _REVIEW_OPTS["checkpoint"], context: float = _REVIEW_OPTS["context"],
                summary: str = _REVIEW_OPTS["summary"], self_correction: str = _REVIEW_OPTS["self_correction"],
                deviations: int = _REVIEW_OPTS["deviations"], severity: str = _REVIEW_OPTS["severity"],
                agents: int = _REVIEW_OPTS["agents"], agent_cost: float = _REVIEW_OPTS["agent_cost"],
                proposal: str = _REVIEW_OPTS["proposal"], files: str = _REVIEW_OPTS["files"],
                tests: str = _REVIEW_OPTS["tests"], output: list[str] = _REVIEW_OPTS["output"]) -> None:
        from bandstand.producer.app import BoardReview

        review = BoardReview(smoothness, checkpoint, context, summary, final=final, self_correction=self_correction,
                             deviations=deviations, severity=severity, agents=agents, agent_cost=agent_cost,
                             proposal=proposal, files=tuple(f for f in files.split(",") if f), tests=tests,
                             outputs=tuple(output))
        _task_out(_desk().review(task_id, _session(session), review))

    command.__doc__ = doc
    app.command(name)(command)


_review_command("request-review", False, "(musician) Checkpoint reached: send a review request and wait in needs_review.")
_review_command("report-completion", True, "(musician) The final review: the completion report.")


@app.command("report-error")
def report_error(task_id: str, error: str = typer.Option(..., help="What failed."),
                 retry: int = typer.Option(..., min=0, max=5, help="Retry number, 0–5."),
                 context: float = typer.Option(..., min=0, max=100, help="Context usage, percent."),
                 report: str = typer.Option(None, help="Path of a longer error report."),
                 session: str = SessionOpt) -> None:
    """(musician) Report a failure and wait in error."""
    _task_out(_desk().report_error(task_id, _session(session), error=error, retry=retry, context=context,
                                   report=report))


_CONTEXT_OPTS: dict[str, Any] = dict(
    context=typer.Option(None, min=0, max=100, help="Context usage, percent (default: the last [ctx: N%] in the status file)."),
    cost=typer.Option(None, min=0, max=100, help="Estimated context percent to the next checkpoint."),
    self_correction=typer.Option(None, help="Describe a self-correction (the status file's are found anyway)."),
    agents=typer.Option(0, min=0, help="Agents still planned before the checkpoint."),
    agent_cost=typer.Option(8.0, min=0.1, help="Average context percent per agent."),
)


def _estimate(context: float | None, cost: float | None, self_correction: str | None, agents: int,
              agent_cost: float) -> ContextEstimate:
    from bandstand.producer.app import ContextEstimate

    return ContextEstimate(context, cost, self_correction, agents, agent_cost)


@app.command("context-warning")
def context_warning(task_id: str, context: float = _CONTEXT_OPTS["context"], cost: float = _CONTEXT_OPTS["cost"],
                    self_correction: str = _CONTEXT_OPTS["self_correction"], agents: int = _CONTEXT_OPTS["agents"],
                    agent_cost: float = _CONTEXT_OPTS["agent_cost"], session: str = SessionOpt) -> None:
    """(musician) Send a context warning (usage, cost to the checkpoint, self-correction, deviations,
    agents remaining and that fit); above 80% at the checkpoint this stops the task in error."""
    estimate = _estimate(context, cost, self_correction, agents, agent_cost)
    _task_out(_desk().warn_context(task_id, _session(session), estimate))


@app.command("context-check")
def context_check(task_id: str, context: float = _CONTEXT_OPTS["context"], cost: float = _CONTEXT_OPTS["cost"],
                  self_correction: str = _CONTEXT_OPTS["self_correction"], agents: int = _CONTEXT_OPTS["agents"],
                  agent_cost: float = _CONTEXT_OPTS["agent_cost"], session: str = SessionOpt) -> None:
    """(musician) The 50% budget check: proceed (exit 0), ask the conductor (a context warning,
    exit 1) or stop and escalate (the warning, then state error; exit 2). From 50% on --cost is
    required; it counts 6× after a self-correction."""
    estimate = _estimate(context, cost, self_correction, agents, agent_cost)
    result = _desk().context_check(task_id, _session(session), estimate)
    warning = result.warning
    _out({"decision": result.decision, "code": result.code, "projected": warning.projected,
          "agents_that_fit": warning.agents_that_fit, "self_correction": warning.self_correction,
          "posted": result.posted, "state": str(result.task.state), "report": warning.render()},
         f"{task_id}: {result.said}; {warning.context_usage:g}% now, "
         f"{warning.projected:g}% at the checkpoint" + (" (×6 after self-correction)" if warning.self_correction else "")
         + f"; {warning.agents_that_fit} agent(s) fit in the 65% budget"
         + (f"; context warning sent, task {result.task.state}" if result.posted else ""))
    if result.code:
        raise typer.Exit(result.code)


@app.command()
def handoff(task_id: str, reason: str = typer.Option(...), last_step: str = typer.Option(..., help="Last completed step."),
            remaining: list[str] = typer.Option([], help="A remaining step; repeatable."),
            context: float = typer.Option(..., min=0, max=100), session: str = SessionOpt) -> None:
    """(musician) Clean exit: write temp/task-NN-HANDOFF, the handoff message, then exited."""
    _task_out(_desk().handoff(task_id, _session(session), reason=reason, last_step=last_step, context=context,
                              remaining=remaining))


@app.command("write-handoff")
def write_handoff(task_id: str, completed: list[str] = typer.Option([], help="A completed step; repeatable."),
                  pending: list[str] = typer.Option([], help="A pending step; repeatable."),
                  self_correction: str = typer.Option("none"), next_steps: str = typer.Option("", "--next"),
                  session: str = SessionOpt) -> None:
    """(musician) Write temp/task-NN-HANDOFF for the next session, without changing the task."""
    path = _desk().write_handoff(task_id, _session(session), completed=completed, pending=pending,
                                 self_correction=self_correction, next_steps=next_steps)
    _out({"path": str(path)}, str(path))


def _conductor(name: str, method: str, arg: str, help_: str) -> None:
    def command(task_id: str, text: str = typer.Option(..., f"--{arg}", help=help_), session: str = SessionOpt) -> None:
        with _desk().open() as b:
            _task_out(getattr(b, method)(task_id, text, conductor_session=_session(session)))

    command.__doc__ = f"(conductor) {help_}"
    app.command(name)(command)


_conductor("approve", "approve", "note", "Approve the review.")
_conductor("reject", "reject", "feedback", "Reject the review with feedback (review_failed).")
_conductor("propose-fix", "propose_fix", "fix", "Propose a fix (needs_review, error, or stale working → fix_proposed).")
_conductor("request-exit", "request_exit", "reason", "Ask the musician to hand off and exit.")


@app.command()
def emergency(task_ids: list[str] = typer.Argument(None, help="Tasks to alert; omit with --all."),
              message: str = typer.Option(..., "--message", "-m", help="What the musicians must do now."),
              all_: bool = typer.Option(False, "--all", help="Every task a musician holds (not watching, not finished)."),
              session: str = SessionOpt) -> None:
    """(conductor) Send an emergency message: the musicians' background watchers end on it."""
    from bandstand.errors import BoardUsageError

    if bool(task_ids) == all_:
        raise BoardUsageError("name the tasks to alert, or use --all (not both)")
    with _desk().open() as b:
        sent = b.emergency(message, conductor_session=_session(session), task_ids=None if all_ else list(task_ids))
    _out(sent, "\n".join(f"{t}: emergency #{mid}" for t, mid in sent.items()) or "no task is held: nobody to alert")


@app.command()
def resume(task_id: str, session: str = SessionOpt) -> None:
    """(musician) Back to work after an approval or a fix proposal."""
    with _desk().open() as b:
        _task_out(b.resume(task_id, _session(session)))


@app.command()
def complete(task_id: str, summary: str = typer.Option("complete"), session: str = SessionOpt) -> None:
    """(musician) Finish: allowed only after the conductor approved the completion report. The last write."""
    with _desk().open() as b:
        _task_out(b.complete(task_id, _session(session), summary))


@app.command("exit")
def exit_(task_id: str, reason: str = typer.Option(...), session: str = SessionOpt) -> None:
    """(musician) Exit the task (working or error → exited). The last write."""
    with _desk().open() as b:
        _task_out(b.exit(task_id, _session(session), reason))


@app.command()
def messages(since: int = typer.Option(0, min=0, max=2**63 - 1, help="Only messages with a larger id."),
             task: str = typer.Option(None, help="Only this task's messages.")) -> None:
    """Messages with id > SINCE, oldest first."""
    with _desk().open() as b:
        found = b.messages_since(since, task_id=task)
    _out([m.as_dict() for m in found],
         "\n\n".join(f"#{m.id} {m.timestamp} {m.task_id} {m.message_type} from {m.from_session}\n{m.message}"
                     for m in found) or "no messages")


@app.command()
def siblings(task_id: str) -> None:
    """The other musicians' tasks."""
    with _desk().open() as b:
        found = b.siblings(task_id)
    _out([t.as_dict() for t in found], "\n".join(f"{t.task_id}: {t.state} ({t.worked_by or '-'})" for t in found) or "none")


@app.command()
def health(task_id: str = typer.Argument("task-00")) -> None:
    """Heartbeat health of a task (default: the conductor). Exit 1 when stale."""
    from dataclasses import asdict

    with _desk().open() as b:
        h = b.health(task_id)
    age = "never" if h.heartbeat_age_s is None else f"{h.heartbeat_age_s:.0f} s ago"
    _out(asdict(h), f"{h.task_id}: {h.state or 'missing'}, heartbeat {age} — {'STALE' if h.stale else 'fresh'}")
    if h.stale:
        raise typer.Exit(1)


@app.command()
def stale() -> None:
    """Tasks whose heartbeat is older than --stale-after in a state someone should keep fresh
    (working, needs_review, error, review_approved, review_failed, fix_proposed, exit_requested),
    with how to recover each."""
    found = _desk().stale()
    _out([t.as_dict() | {"recovery": how} for t, how in found],
         "\n".join(f"{t.task_id}: {t.state}, last heartbeat {t.last_heartbeat} ({t.worked_by}) — {how}"
                   for t, how in found) or "no stale tasks")


@app.command()
def status(task_id: str, text: str,
           ctx: float = typer.Option(None, min=0, max=100, help="Context usage percent to record.")) -> None:
    """Append a line to temp/task-NN-status (e.g. 'step 2 started' --ctx 30)."""
    _desk().status(task_id, text, ctx)


@app.command()
def deviation(task_id: str, severity: str, text: str,
              ctx: float = typer.Option(None, min=0, max=100, help="Context usage percent to record.")) -> None:
    """Record a deviation: SEVERITY is Low, Medium or High."""
    _desk().deviation(task_id, severity, text, ctx)


@app.command()
def proposal(kind: str, slug: str, title: str = typer.Option(...), rationale: str = typer.Option(...),
             body: str = typer.Option("")) -> None:
    """Write docs/implementation/proposals/YYYY-MM-DD-SLUG.md (KIND: PATTERN, ANTI_PATTERN, MEMORY, …)."""
    path = _desk().write_proposal(kind, slug, title=title, rationale=rationale, body=body)
    _out({"path": str(path)}, str(path))


@app.command("assess-resumption")
def assess_resumption(task_id: str) -> None:
    """What a resuming session finds: clean or forced previous exit, deviations, mismatches."""
    from dataclasses import asdict

    result = _desk().assess_resumption(task_id)
    _out(asdict(result), result.summary())
    if result.report_to_conductor:
        raise typer.Exit(1)


@app.command()
def wait(task_id: str, kind: str = typer.Option("pause", help="pause (needs_review/error) or background (working)."),
         since: int = typer.Option(0, min=0, max=2**63 - 1, help="(background) last processed message id."),
         poll: float = typer.Option(5.0, min=0.05, help="Poll interval, seconds."),
         timeout: float = typer.Option(900.0, min=0.0, help="(pause) seconds before checking the conductor's heartbeat."),
         session: str = SessionOpt) -> None:
    """Run a watcher until it reports: a conductor message, a state change, or a timeout (exit 3)."""
    import asyncio

    from bandstand.errors import BoardUsageError

    if kind not in ("pause", "background"):  # anything else used to run the pause watcher
        raise BoardUsageError(f"--kind is pause or background, not {kind!r}")
    sid = _session(session)
    desk = _desk()

    async def run() -> int:
        if kind == "background":
            for m in await desk.wait_for_messages(task_id, sid, since=since, poll=poll):
                _out(m.as_dict(), f"#{m.id} {m.message_type}: {m.message}")
            return 0
        event = await desk.wait_for_verdict(task_id, sid, poll=poll, timeout=timeout)
        _out({"kind": event.kind, "state": str(event.state), "detail": event.detail},
             f"{event.kind}: {event.state} {event.detail}".strip())
        return 3 if event.kind == "timeout" else 0

    code = asyncio.run(run())
    if code:
        raise typer.Exit(code)


def _check(report: Any) -> None:
    _out({"name": report.name, "code": report.code, "lines": report.lines, "data": report.data}, report.render())
    if report.code:
        raise typer.Exit(report.code)


@app.command("check-state")
def check_state(task_id: str, session_id: str = typer.Argument(None)) -> None:
    """Task exists, session match, heartbeat OK/STALE/ALARM, pending messages, fallback rows. Exit 0 / 1."""
    _check(_desk().check("state", task_id, session_id=session_id))


@app.command("check-temp")
def check_temp(task_id: str) -> None:
    """Status/deviation files, severity breakdown, self-corrections, HANDOFF. Exit 0 / 1."""
    _check(_desk().check("temp", task_id))


@app.command("check-headroom")
def check_headroom(task_id: str) -> None:
    """Context trajectory from [ctx: N%] entries. Exit 0 healthy, 1 caution, 2 critical."""
    _check(_desk().check("headroom", task_id))


TestsOpt = typer.Option([], "--tests", help="A test path (relative to --workdir); repeatable.")


@app.command("check-coverage")
def check_coverage(task_id: str, tests: list[str] = TestsOpt,
                   source: list[str] = typer.Option([], "--source", help="A package or path to measure; repeatable."),
                   minimum: float = typer.Option(80.0, "--min", help="The gate, percent (default 80).")) -> None:
    """The coverage gate: the task's tests pass and cover ≥ --min % of --source.
    Exit 0 passed, 1 below the gate, 2 tests failed or nothing measured."""
    _check(_desk().check("coverage", task_id, tests=tests, sources=source, minimum=minimum))


@app.command("check-flaky")
def check_flaky(task_id: str, tests: list[str] = TestsOpt,
                reruns: int = typer.Option(3, "--reruns", help="Reruns of each failing test (default 3).")) -> None:
    """Flaky-test reruns: failing tests are rerun up to --reruns times.
    Exit 0 all passed, 1 flaky (passed on a rerun), 2 still failing."""
    _check(_desk().check("flaky", task_id, tests=tests, reruns=reruns))


BoardOpt = typer.Option(None, "--board", help="The board URL (as 'bandstand board --board URL' sets it).")


@app.command()
def launch(musicians: int = typer.Option(..., "--musicians", "-n", help="How many musician sessions (1–32)."),
           backend: str = typer.Option("builtin", "--backend",
                                       help="builtin (offline), claude-code, anthropic or openai."),
           tasks: str = typer.Option("6", "--tasks", help="A count of built-in tasks, or a file: one instruction a line."),
           out: str = typer.Option(None, "--out", help="Where the results go (default WORKDIR/output/board)."),
           heartbeat: float = typer.Option(5.0, "--heartbeat", help="Seconds between a musician's heartbeats."),
           poll: float = typer.Option(0.5, "--poll", help="Seconds between the conductor's passes."),
           conductor: str = typer.Option("conductor", "--conductor", help="The conductor's session id."),
           config: str = typer.Option(None, "--config", help="bandstand.toml with the [agents] table."),
           board: str = BoardOpt) -> None:
    """Start a Conductor and N Musicians as agent sessions on the board and run it to the end.
    Progress on stderr; Ctrl-C stops the musicians and leaves the board to continue later."""
    from bandstand.producer.app import BoardWork

    work = BoardWork(backend=backend, out=out, heartbeat=heartbeat, poll=poll, config=config)
    shown: list[str] = []

    def progress(p: Any) -> None:
        line = p.line()
        if not shown or shown[-1] != line:
            shown.append(line)
            print(f"board: {line}", file=sys.stderr, flush=True)

    try:
        outcome = _desk(board).launch(musicians, work, tasks=tasks, conductor=conductor, on_progress=progress)
    except KeyboardInterrupt:
        print("bandstand: stopped; the musicians have ended and the board is as it stood: run the same "
              "command to continue it", file=sys.stderr)
        raise typer.Exit(130) from None
    _out({"tasks": {t: {"state": s, "worked_by": w} for t, (s, w) in outcome.tasks.items()},
          "approved": outcome.progress.approved, "rejected": outcome.progress.rejected,
          "recovered": outcome.progress.recovered, "musicians": outcome.musicians, "seconds": outcome.seconds},
         "\n".join(f"{t}: {s} ({w})" for t, (s, w) in outcome.tasks.items())
         + f"\n{len(outcome.tasks)} tasks in {outcome.seconds:g} s; {outcome.progress.approved} approvals, "
         + f"{len(outcome.progress.recovered)} recovered")
    unfinished = {t: s for t, (s, _) in outcome.tasks.items() if s != "complete"}
    if unfinished:
        print(f"bandstand: {len(unfinished)} of {len(outcome.tasks)} tasks did not complete: "
              + ", ".join(f"{t} {s}" for t, s in unfinished.items()) + " (see 'bandstand board messages --task TASK')",
              file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def musician(session: str = SessionOpt,
             backend: str = typer.Option("builtin", "--backend", help="builtin, claude-code, anthropic or openai."),
             out: str = typer.Option(None, "--out", help="Where the results go (default WORKDIR/output/board)."),
             heartbeat: float = typer.Option(5.0, "--heartbeat", help="Seconds between heartbeats."),
             poll: float = typer.Option(0.5, "--poll", help="Seconds between polls."),
             config: str = typer.Option(None, "--config", help="bandstand.toml with the [agents] table."),
             board: str = BoardOpt) -> None:
    """Join a launched board as one musician session (what 'board launch' starts N times; run it on
    other machines to add musicians). Ends when every task is finished, or on SIGTERM/Ctrl-C."""
    import signal
    import threading

    from bandstand.producer.app import BoardWork

    work = BoardWork(backend=backend, out=out, heartbeat=heartbeat, poll=poll, config=config)
    sid = _session(session)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    report = _desk(board).musician(sid, work, stop=stop)
    _out({"completed": report.completed, "lost": report.lost, "errors": report.errors},
         f"{sid}: completed {', '.join(report.completed) or 'nothing'}"
         + (f"; lost {', '.join(report.lost)}" if report.lost else ""))


def _read_hook_payload() -> dict[str, Any]:
    from bandstand.errors import BoardUsageError

    raw = sys.stdin.read()
    try:
        payload = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise BoardUsageError(f"the hook expects JSON on stdin: {exc.msg} at column {exc.colno}") from exc
    if not isinstance(payload, dict):
        raise BoardUsageError("the hook expects a JSON object on stdin")
    return payload


@hook_app.command("session-start")
def hook_session_start() -> None:
    """SessionStart hook: inject CLAUDE_SESSION_ID into the session's context."""
    from bandstand.producer import App

    typer.echo(json.dumps(App.board().session_start(_read_hook_payload())))


@hook_app.command("stop")
def hook_stop() -> None:
    """Stop hook: block the stop until the session's task allows it."""
    payload = _read_hook_payload()
    typer.echo(json.dumps(_desk().stop_hook(payload)))
