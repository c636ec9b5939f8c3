"""docs/batch.md: the sessions run as written — a batch here and again (kept), the same songs
through a SQLite board with two workers (identical bytes), and through PostgreSQL when a
server is there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ...board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database

DOC = Path(__file__).resolve().parents[3] / "docs" / "batch.md"
SESSIONS = [body for lang, body in re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
            if lang == "bash"]
FOLDERS = ["001-funk-groove-in-e-minor", "002-dark-trap", "003-jazz-ballad", "004-synthwave-night-drive"]


def shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "COLUMNS": "200"}
    env.pop("BANDSTAND_BOARD", None)
    return subprocess.run(["bash", "-c", "set -e\n" + script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def shas(folder: Path) -> dict[str, str]:
    return {name: json.loads((folder / name / "batch.json").read_text())["midi_sha256"] for name in FOLDERS}


def test_a_batch_here_then_through_a_board(tmp_path: Path) -> None:
    here, board, _ = SESSIONS
    run = shell(here, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert all(name in run.stdout for name in FOLDERS)  # the table
    again = json.loads((tmp_path / "again.json").read_text())
    assert [s["status"] for s in again["songs"]] == ["kept"] * 4 and [s["seed"] for s in again["songs"]] == \
        [0, 1, 42, 3]
    team = json.loads((tmp_path / "songs" / FOLDERS[3] / "manifest.json").read_text())["team"]
    assert team["sections"] and all(r["status"] == "written" for r in team["sections"])

    run = shell(board, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "board.json").read_text())
    assert report["board"] is True and {s["status"] for s in report["songs"]} == {"composed"}
    assert {s["worker"] for s in report["songs"]} <= {"here", "there"}
    assert shas(tmp_path / "shared") == shas(tmp_path / "songs")  # the same songs, wherever composed
    where = json.loads((tmp_path / "shared" / FOLDERS[3] / "manifest.json").read_text())["team"]["sections"]
    assert all("(task-" in r["where"] for r in where)  # the team song's sections were board tasks


def test_the_postgresql_session(tmp_path: Path) -> None:
    if not PG_URL:
        _pg_missing()
    url = fresh_pg_database()
    try:
        shell(SESSIONS[0].split("bandstand batch")[0], tmp_path)  # the prompts file
        run = shell(SESSIONS[2].replace("postgresql://bandstand@127.0.0.1:5432/orchestra", url), tmp_path)
        assert run.returncode == 0, run.stderr[-3000:]
        report = json.loads((tmp_path / "pg.json").read_text())
        assert [s["status"] for s in report["songs"]] == ["composed"] * 4
    finally:
        drop_pg_database(url)
