"""Fifty songs through a board, on SQLite and on a real PostgreSQL, with four workers of which
two are SIGKILLed while they compose: every song is composed exactly once and is byte for byte
the song composed alone with the same seed."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bandstand.board import Board, State

from ..board.conftest import PG_URL, _pg_missing, drop_pg_database, fresh_pg_database

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIN = str(Path(sys.executable).parent / "bandstand")
GENRES = ("funk groove", "dark trap", "jazz ballad", "rock anthem", "lofi hip hop", "synthwave", "reggae",
          "house track", "bossa nova", "metal riff")
MOODS = ("in E minor", "late at night", "sunny", "melancholic", "driving")
PROMPTS = [f"{g} {m}" for m in MOODS for g in GENRES]
SEED, BARS = 100, 8
MIDI = "midi/full-arrangement.mid"


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The SHA-256 of every song's MIDI composed alone (prompt, seed SEED + n, BARS bars)."""
    from bandstand.producer.composing.compose import compose_song

    out = tmp_path_factory.mktemp("alone")
    shas = []
    for n, prompt in enumerate(PROMPTS):
        result = compose_song(prompt, assume_defaults=True, seed=SEED + n, bars=BARS, out_dir=str(out),
                              render_audio=False).result
        shas.append(hashlib.sha256((result.session_dir / MIDI).read_bytes()).hexdigest())
    return shas


def start_workers(url: str, out: Path, env: dict[str, str], stderr: list[Any]) -> dict[str, subprocess.Popen[bytes]]:
    """One `bandstand worker` per entry of `stderr` (where its log goes), quick to heartbeat and poll."""
    return {f"w{k}": subprocess.Popen([BIN, "worker", "--board", url, "--out", str(out), "--session", f"w{k}",
                                       "--heartbeat", "0.2", "--poll", "0.05"],
                                      stdout=subprocess.DEVNULL, stderr=err, env=env)
            for k, err in enumerate(stderr)}


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to whatever still runs, then wait for every process."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=60)


def victims(url: str, workers: dict[str, subprocess.Popen[bytes]]) -> list[str]:
    """SIGKILL workers while each holds a song it is composing (once a few songs are done) until
    two were caught holding one. A worker that finished its song between the board's answer and
    the signal was not caught (nothing of it is taken over): one more is killed, never all four."""
    killed: list[str] = []
    caught: list[str] = []
    end = time.monotonic() + 120
    with Board.open(url) as board:
        while len(caught) < 2 and len(killed) < len(workers) - 1 and time.monotonic() < end:
            tasks = board.tasks()
            if sum(t.state is State.COMPLETE for t in tasks) >= 6:
                for t in tasks:
                    if t.state is State.WORKING and t.session_id in workers and t.session_id not in killed:
                        proc = workers[t.session_id]
                        proc.send_signal(signal.SIGKILL)
                        proc.wait(timeout=30)
                        killed.append(t.session_id)
                        held = board.task(t.task_id)
                        if held.state is State.WORKING and held.session_id == t.session_id:
                            caught.append(t.session_id)
                        break
            time.sleep(0.01)
    return caught


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_fifty_songs_survive_two_killed_workers(store: str, tmp_path: Path, alone: list[str]) -> None:
    if store == "postgres" and not PG_URL:
        _pg_missing()
    url = f"sqlite:///{tmp_path / 'board.db'}" if store == "sqlite" else fresh_pg_database()
    prompts, out = tmp_path / "prompts.txt", tmp_path / "songs"
    prompts.write_text("# fifty songs\n" + "\n".join(PROMPTS) + "\n")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    conductor = subprocess.Popen([BIN, "batch", str(prompts), "--board", url, "--workers", "0", "--out", str(out),
                                  "--seed", str(SEED), "--bars", str(BARS), "--stale-after", "2", "--json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    logs = [open(tmp_path / f"w{k}.log", "wb") for k in range(4)]  # noqa: SIM115 - closed below
    workers = start_workers(url, out, env, logs)
    try:
        killed = victims(url, workers)
        stdout, stderr = conductor.communicate(timeout=300)
    finally:
        stop([conductor, *workers.values()])
        for log in logs:
            log.close()
    try:
        assert len(killed) == 2
        assert conductor.returncode == 0, stderr.decode()[-3000:]
        report = json.loads(stdout)
        assert report["takeovers"] >= 2 and not report["given_up"]
        songs = report["songs"]
        assert [s["index"] for s in songs] == list(range(50))
        assert {s["status"] for s in songs} <= {"composed", "kept"}
        # every song exactly once, in its own folder, nothing half-written left behind
        assert sorted(p.name for p in out.iterdir()) == sorted(s["folder"] for s in songs)
        for n, song in enumerate(songs):
            folder = out / song["folder"]
            record = json.loads((folder / "batch.json").read_text())
            sha = hashlib.sha256((folder / MIDI).read_bytes()).hexdigest()
            assert sha == record["midi_sha256"] == song["midi_sha256"] == alone[n], song["folder"]
            assert record["job"]["seed"] == SEED + n
        with Board.open(url) as board:
            tasks = [t for t in board.tasks() if (t.phase or "").startswith("batch:")]
            assert len(tasks) == 50 and {t.state for t in tasks} == {State.COMPLETE}
            completions = [m.task_id for m in board.messages_since(0, limit=100_000) if m.message_type == "completion"]
            assert sorted(completions) == sorted(t.task_id for t in tasks)  # one completion report per song
            assert sum(t.worked_by.endswith("-S2") for t in tasks if t.worked_by) >= 2  # taken over
    finally:
        if store == "postgres":
            drop_pg_database(url)


TEAM_PROMPTS = ["funk groove in E minor", "dark trap", "jazz ballad", "synthwave night drive"]


def section_victim(url: str, workers: dict[str, subprocess.Popen[bytes]]) -> tuple[str, str] | None:
    """SIGKILL a worker while it writes a section of a team song (once a few sections are done);
    (the worker, the section task) or None when no worker was caught mid-section."""
    end = time.monotonic() + 240
    with Board.open(url) as board:
        while time.monotonic() < end:
            tasks = [t for t in board.tasks() if (t.phase or "").endswith("/sections")]
            if sum(t.state is State.COMPLETE for t in tasks) >= 3:
                for t in tasks:
                    owner = (t.session_id or "").split("+")[0]
                    if t.state is State.WORKING and owner in workers:
                        workers[owner].send_signal(signal.SIGKILL)
                        return owner, t.task_id
            if tasks and all(t.state is State.COMPLETE for t in tasks) and len(tasks) >= 24:
                return None
            time.sleep(0.005)
    return None


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_team_songs_survive_a_worker_killed_mid_section(store: str, tmp_path: Path) -> None:
    """Team songs through a board: their sections are board tasks; a worker SIGKILLed while it
    writes a section has that section (and any song it held) taken over; every song is composed
    once and is byte for byte the team song composed alone; no section is written twice."""
    from bandstand.producer.batch import compose_job, read_prompts

    if store == "postgres" and not PG_URL:
        _pg_missing()
    url = f"sqlite:///{tmp_path / 'board.db'}" if store == "sqlite" else fresh_pg_database()
    prompts, out = tmp_path / "prompts.txt", tmp_path / "songs"
    prompts.write_text("\n".join(TEAM_PROMPTS) + "\n")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    conductor = subprocess.Popen([BIN, "batch", str(prompts), "--board", url, "--workers", "0", "--out", str(out),
                                  "--seed", str(SEED), "--bars", "16", "--team", "--stale-after", "2", "--json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    workers = start_workers(url, out, env, [subprocess.DEVNULL] * 3)
    try:
        caught = section_victim(url, workers)
        stdout, stderr = conductor.communicate(timeout=400)
    finally:
        stop([conductor, *workers.values()])
    try:
        assert caught is not None, "no worker was caught writing a section"
        victim, section_task = caught
        assert conductor.returncode == 0, stderr.decode()[-3000:]
        report = json.loads(stdout)
        assert not report["given_up"] and report["takeovers"] >= 1
        songs = report["songs"]
        assert [s["index"] for s in songs] == [0, 1, 2, 3] and {s["status"] for s in songs} == {"composed"}
        jobs = read_prompts("\n".join(TEAM_PROMPTS), seed=SEED, defaults={"bars": 16, "team": True})
        for job, song in zip(jobs, songs, strict=True):
            alone = compose_job(job, tmp_path / "alone")
            folder = out / song["folder"]
            assert hashlib.sha256((folder / MIDI).read_bytes()).hexdigest() == song["midi_sha256"] == \
                alone.midi_sha256, song["folder"]
            sections = json.loads((folder / "manifest.json").read_text())["team"]["sections"]
            assert all(r["status"] == "written" and "(task-" in r["where"] for r in sections)
        with Board.open(url) as board:
            tasks = [t for t in board.tasks() if (t.phase or "").endswith("/sections")]
            assert tasks and {t.state for t in tasks} == {State.COMPLETE}
            keys = {m.task_id: json.loads(m.message)["key"] for m in board.messages_since(0, limit=100_000)
                    if m.message_type == "job"}
            assert set(keys) == {t.task_id for t in tasks} and len(set(keys.values())) == len(tasks)
            completions = [m.task_id for m in board.messages_since(0, limit=100_000)
                           if m.message_type == "completion" and m.task_id in keys]
            assert sorted(completions) == sorted(keys)  # each section written and reported once
            taken = board.task(section_task)
            assert taken.worked_by is not None and taken.worked_by.endswith("-S2")
            assert not (taken.session_id or "").startswith(victim)
    finally:
        if store == "postgres":
            drop_pg_database(url)
