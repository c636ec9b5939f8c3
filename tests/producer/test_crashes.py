"""A process killed (SIGKILL) at each durable step of accept or undo leaves a session whose
HEAD is either the old revision or the new one — never anything between — readable, with
files that show HEAD once it is opened again; and two processes changing one session at the
same time do not corrupt it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.producer.sessions import head_files
from bandstand.producer.sessions.projects import ProjectSession, open_project

from .conftest import snapshot
from .test_projects import busier, louder

ROOT = Path(__file__).resolve().parents[2]
STEPS = ["snapshot", "entry", "head", "variation", "files"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.producer.workers", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.parametrize("step", STEPS)
def test_killed_during_accept(session: ProjectSession, step: str) -> None:
    root = session.session_dir
    v = session.propose(busier(session), request="busier bass", author="test")
    before = snapshot(root, skip=("revisions", "variations"))
    proc = _run("accept", str(root), v.id, step)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reopened = open_project(root)  # repairs what the crash left behind
    assert head_files.staged_leftovers(root) == []  # files staged for the top level are gone
    moved = step in ("head", "variation", "files")
    assert reopened.revision == (2 if moved else 1)
    assert reopened.head.revision == reopened.revision
    state = reopened.variation(v.id).state
    assert state == ("committed" if moved else "ready")
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["revision"] == reopened.revision
    if not moved:
        assert snapshot(root, skip=("revisions", "variations")) == before
        assert reopened.accept(v.id).revision == 2  # an uncommitted revision file is simply overwritten
    bass = next(t for t in reopened.head.tracks if t.name == "Bass")
    assert bass.note_count == 48
    assert [r.entry.revision for r in reopened.history()] == [1, 2]


@pytest.mark.parametrize("step", ["head", "files"])
def test_killed_during_undo(session: ProjectSession, step: str) -> None:
    root = session.session_dir
    first = snapshot(root, skip=("revisions", "variations"))
    session.commit(louder(session, "Bass", 0.3), author="test", request="quieter bass")
    proc = _run("undo", str(root), "1", step)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reopened = open_project(root)
    assert reopened.revision == 1
    assert snapshot(root, skip=("revisions", "variations")) == first


def test_two_processes_changing_one_session(session: ProjectSession) -> None:
    root = session.session_dir
    workers = [subprocess.Popen([sys.executable, "-m", "tests.producer.workers", "volumes", str(root), "15", name],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in ("Bass", "Drums")]
    for w in workers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        assert out.strip() == "done"
    reopened = open_project(root)
    rows = reopened.history()
    assert [r.entry.revision for r in rows] == list(range(1, 32))
    assert [r.entry.parent for r in rows] == [None, *range(1, 31)]  # one line, no lost update
    assert {r.entry.author for r in rows[1:]} == {f"worker {w.pid}" for w in workers}
    head = reopened.head
    assert {t.name: t.volume for t in head.tracks}["Bass"] == 0.14
    assert {t.name: t.volume for t in head.tracks}["Drums"] == 0.14
    assert json.loads((root / "manifest.json").read_text(encoding="utf-8"))["revision"] == 31


def _two_branches(session: ProjectSession) -> None:
    """main and alt, each a change to a different part after parting at revision 1."""
    from bandstand.producer.sessions import branches

    branches.create_branch(session, "alt")
    session.commit(louder(session, "Bass", 0.3), author="test", request="quieter bass")  # r2 on alt
    branches.checkout(session, "main")
    session.commit(louder(session, "Drums", 0.6), author="test", request="quieter drums")  # r3 on main


@pytest.mark.parametrize("step", ["snapshot", "entry", "head", "files"])
def test_killed_during_merge(session: ProjectSession, step: str) -> None:
    root = session.session_dir
    _two_branches(session)
    before = snapshot(root, skip=("revisions", "variations"))
    proc = _run("merge", str(root), "alt", step)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reopened = open_project(root)
    pointer = reopened.store.pointer()
    moved = step in ("head", "files")
    assert (pointer.branch, pointer.head) == ("main", 4 if moved else 3)
    assert pointer.heads()["alt"].head == 2
    volumes = {t.name: t.volume for t in reopened.head.tracks}
    assert (volumes["Bass"], volumes["Drums"]) == ((0.3 if moved else 1.0), 0.6)
    assert json.loads((root / "manifest.json").read_text(encoding="utf-8"))["revision"] == pointer.head
    if not moved:
        assert snapshot(root, skip=("revisions", "variations")) == before
        from bandstand.producer.sessions import branches

        assert branches.merge(reopened, "alt").revision == 4  # the uncommitted files are simply overwritten


@pytest.mark.parametrize("step", ["head", "files"])
def test_killed_during_checkout(session: ProjectSession, step: str) -> None:
    root = session.session_dir
    _two_branches(session)
    on_main = snapshot(root, skip=("revisions", "variations"))
    proc = _run("checkout", str(root), "alt", step)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reopened = open_project(root)  # the branch moved: the files are brought to its head
    assert (reopened.store.pointer().branch, reopened.revision) == ("alt", 2)
    assert json.loads((root / "manifest.json").read_text(encoding="utf-8"))["revision"] == 2
    from bandstand.producer.sessions import branches

    branches.checkout(reopened, "main")
    assert snapshot(root, skip=("revisions", "variations")) == on_main
