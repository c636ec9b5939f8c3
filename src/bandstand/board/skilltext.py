"""The protocol's skill texts and launch prompt, shipped as files in `board/skills/`.

`skill("musician")` and `skill("conductor")` are what an agent session gets as
its system prompt; `launch_prompt(...)` is its first message: who it is, which
board and task, and the task's instruction."""

from __future__ import annotations

from functools import cache
from importlib import resources

from bandstand.board.stores import _redact
from bandstand.errors import BoardUsageError

__all__ = ["ROLES", "TOOL_STEPS", "launch_prompt", "skill"]

ROLES = ("musician", "conductor")
#: What a session with the board tools does, in their order (`board.tools`).
TOOL_STEPS = {
    "musician": (
        "With the tools: claim_task (it returns your task and its instruction; a successor reads the "
        "conductor's note there), log_status 'step 1 started' with your context usage, do the work and "
        "submit_work it, request_review (checkpoint 1 of 2), wait_for_review. review_approved: resume, "
        "log_status 'step 2 started: verification', report_completion (checkpoint 2 of 2), wait_for_review, "
        "then resume and complete. review_failed or fix_proposed: redo the work, submit_work and "
        "request_review again. exit_requested: handoff. A failure: report_error, then wait_for_review. "
        "End your turn only when your task is complete or exited."),
    "conductor": (
        "The launcher created the tasks and watches the board; it sends you each review. Read the report "
        "and the result (read_task for the whole thread), then approve it with a note or reject it with the "
        "reason — with the tools. After three rejections of one task, request_exit instead. It sends you each "
        "error report too: propose_fix while the task has fixes left (three), else request_exit."),
}


@cache
def _text(name: str) -> str:
    return resources.files("bandstand.board").joinpath(f"skills/{name}.md").read_text(encoding="utf-8")


def skill(role: str) -> str:
    """The skill text of a role (`musician` or `conductor`)."""
    if role not in ROLES:
        raise BoardUsageError(f"no skill for {role!r}: the roles are {', '.join(ROLES)}")
    return _text(role)


def launch_prompt(*, role: str, name: str, session_id: str, board: str, task_id: str, workdir: str,
                  instruction: str, tools: bool = False) -> str:
    """The first message of a launched session (a password in the board's URL is redacted). With
    `tools`, the session works through the board tools (`board.tools`) and is told their order."""
    if role not in ROLES:
        raise BoardUsageError(f"no launch prompt for {role!r}: the roles are {', '.join(ROLES)}")
    fields = {"role": role, "name": name, "session_id": session_id, "board": _redact(board), "task_id": task_id,
              "workdir": workdir, "instruction": instruction.strip()}
    if tools:
        return _text("launch_prompt_tools").format(**fields, steps=TOOL_STEPS[role])
    return _text("launch_prompt").format(**fields)
