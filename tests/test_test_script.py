"""scripts/test's exit actions: the setup scripts it sources register theirs with `on_exit`
(scripts/lib.sh) — the throwaway PostgreSQL server's stop among them — so a `trap … EXIT` of
its own would replace them all and leave the server running after the suite."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_test_script_adds_its_exit_actions_beside_the_setups_never_over_them() -> None:
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    traps = [line for line in script.splitlines() if re.match(r"\s*trap\b.*\bEXIT\b", line)]
    assert not traps, traps
    assert "on_exit " in script


def test_on_exit_runs_every_action_registered_in_order(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {ROOT / 'scripts' / 'lib.sh'}; "
                       "on_exit 'echo server-stopped'; out=$(mktemp); on_exit 'rm -f \"$out\"; echo out-removed'; "
                       "echo body"],
        capture_output=True, text=True, timeout=30, check=True)
    assert done.stdout.split() == ["body", "server-stopped", "out-removed"]
