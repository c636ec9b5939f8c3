"""Session folders on disk: listing newest first, what counts as unfinished, and what
`clean` removes (and leaves alone)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bandstand.compose import compose
from bandstand.compose.sessions import clean, list_sessions, plan_clean

FAST = {"render_audio": False, "render_pianoroll": False}


def age(path: Path, days: float) -> None:
    t = time.time() - days * 86400
    for p in [path, *path.rglob("*")]:
        os.utime(p, (t, t))


def test_list_is_newest_first_with_status(tmp_path: Path) -> None:
    first = compose("trap", seed=1, bars=8, out_dir=str(tmp_path), **FAST)
    second = compose("bossa nova", seed=1, bars=8, out_dir=str(tmp_path), approval_gates=[1], **FAST)
    infos = list_sessions(tmp_path)
    assert [i.session_id for i in infos] == [second.state.session_id, first.state.session_id]
    assert (infos[0].status, infos[0].complete) == ("paused", False)
    assert (infos[1].status, infos[1].complete, infos[1].genre) == ("completed", True, "trap")
    assert infos[0].genre == "bossa nova" and infos[0].tempo is not None
    assert list_sessions(tmp_path / "nothing-here") == []


def test_clean_removes_unfinished_sessions_and_temp_files_only(tmp_path: Path) -> None:
    done = compose("trap", seed=1, bars=8, out_dir=str(tmp_path), **FAST)
    paused = compose("trap", seed=2, bars=8, out_dir=str(tmp_path), approval_gates=[2], **FAST)
    temp = done.session_dir / "midi" / ".drums.mid.abc123.tmp"
    temp.write_bytes(b"half")
    unrelated = tmp_path / "my-notes"
    unrelated.mkdir()
    assert plan_clean(tmp_path).empty  # everything is too fresh: it may still be running
    age(paused.session_dir, 1)
    age(temp, 1)
    plan = plan_clean(tmp_path)
    assert [info.path for info, _ in plan.sessions] == [paused.session_dir]
    assert plan.temp_files == [temp]
    assert clean(plan) == 2
    assert not paused.session_dir.exists() and not temp.exists()
    assert done.session_dir.exists() and unrelated.exists()


def test_older_than_removes_finished_sessions_too(tmp_path: Path) -> None:
    old = compose("house", seed=1, bars=8, out_dir=str(tmp_path), **FAST)
    new = compose("house", seed=2, bars=8, out_dir=str(tmp_path), **FAST)
    now = time.time() + 40 * 86400
    plan = plan_clean(tmp_path, older_than_days=30, now=now)
    assert {info.path for info, _ in plan.sessions} == {old.session_dir, new.session_dir}
    assert plan_clean(tmp_path, older_than_days=30).empty
    assert plan_clean(tmp_path, older_than_days=30, incomplete=True, now=now).empty
