"""The protocol's skill texts and launch prompt, shipped as files in `board/skills/`.

`skill("musician")` and `skill("conductor")` are what an agent session gets as
its system prompt; `launch_prompt(...)` is its first message: who it is, which
board and task, and the task's instruction."""

from __future__ import annotations

from functools import cache
from importlib import resources

from bandstand.errors import BoardUsageError

__all__ = ["ROLES", "launch_prompt", "skill"]

ROLES = ("musician", "conductor")


@cache
def _text(name: str) -> str:
    return resources.files("bandstand.board").joinpath(f"skills/{name}.md").read_text(encoding="utf-8")


def skill(role: str) -> str:
    """The skill text of a role (`musician` or `conductor`)."""
    if role not in ROLES:
        raise BoardUsageError(f"no skill for {role!r}: the roles are {', '.join(ROLES)}")
    return _text(role)


def launch_prompt(*, role: str, name: str, session_id: str, board: str, task_id: str, workdir: str,
                  instruction: str) -> str:
    """The first message of a launched session (a password in the board's URL is redacted)."""
    from bandstand.board.stores import _redact

    if role not in ROLES:
        raise BoardUsageError(f"no launch prompt for {role!r}: the roles are {', '.join(ROLES)}")
    return _text("launch_prompt").format(role=role, name=name, session_id=session_id, board=_redact(board),
                                         task_id=task_id, workdir=workdir, instruction=instruction.strip())
