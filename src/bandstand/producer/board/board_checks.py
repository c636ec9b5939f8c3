"""The board's checks as one use case the clients call: the protocol's three health checks
(state, temp files, context headroom) and the two checkpoint gates (coverage ≥ 80%,
flaky-test reruns). Each returns a `board.checks.CheckReport` whose `code` is the exit code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["CHECKS", "run_check"]

CHECKS = ("state", "temp", "headroom", "coverage", "flaky")


def run_check(name: str, task_id: str, *, board: Any = None, workdir: str | Path = ".", session_id: str | None = None,
              tests: Sequence[str] = (), sources: Sequence[str] = (), minimum: float = 80.0,
              reruns: int = 3) -> Any:
    """Run check `name` for `task_id`; `board` (an open `board.Board`) only for ``state``."""
    from bandstand.board import checks, gates
    from bandstand.errors import InvalidInput

    if name == "state":
        return checks.check_state(board, task_id, session_id)
    if name == "temp":
        return checks.check_temp(workdir, task_id)
    if name == "headroom":
        return checks.check_headroom(workdir, task_id)
    if name == "coverage":
        return gates.coverage_gate(workdir, task_id, tests, sources, minimum)
    if name == "flaky":
        return gates.flaky_reruns(workdir, task_id, tests, reruns)
    raise InvalidInput(f"no check {name!r}: the checks are {', '.join(CHECKS)}")
