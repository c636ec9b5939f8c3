"""A team song's sections as board tasks (SQLite and PostgreSQL): workers write them and the song
is the song composed alone; a job whose contract was tampered with is refused by the worker; a
section whose worker went silent mid-section is taken over and written once; a song taken over
finds its sections' tasks again instead of posting new ones."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bandstand.board import Board, State
from bandstand.errors import FencingError
from bandstand.producer.batch import compose_job, read_prompts, work
from bandstand.producer.batch.board import PHASE_PREFIX
from bandstand.producer.batch.sections import BoardSections, section_phase
from bandstand.producer.teams.contracts import InstrumentContract, SectionContract
from bandstand.producer.teams.remote import SectionReply, SectionRequest, perform, rebuild
from bandstand.producer.teams.safety import Deadline

from .test_board import conductor, run_workers

PROMPT, SEED, OPTIONS = "funk groove in E minor", 7, {"bars": 8}


def bass_requests() -> tuple[SectionRequest, SectionRequest]:
    """An honest request for the bass of the first section it plays, and one whose section
    contract says 16 bars where the song has 8 (its fingerprint no longer matches)."""
    setup = rebuild(PROMPT, SEED, OPTIONS)
    bass = InstrumentContract.derive(setup.contract, "bass", setup.part_seed("bass"))
    shape = next(s for s in setup.contract.sections if "bass" in s.roles)
    honest = SectionContract.derive(bass, shape)
    longer = honest.model_copy(update={"section": shape.model_copy(update={"bars": 16})})
    return (SectionRequest(PROMPT, SEED, OPTIONS, bass, honest), SectionRequest(PROMPT, SEED, OPTIONS, bass, longer))


def test_team_songs_are_written_section_by_section_by_the_workers(url: str, tmp_path: Path) -> None:
    jobs = read_prompts('{"prompt": "funk groove in E minor", "team": true}\n{"prompt": "dark trap", "team": true}',
                        seed=SEED, defaults=OPTIONS)
    c = conductor(url, jobs)
    threads = run_workers(url, tmp_path / "out", 2)
    status = c.run(poll=0.02)
    for t in threads:
        t.join()
    assert sorted(status.results) == [0, 1] and not status.given_up
    sections = [t for t in c.board.tasks() if t.phase == section_phase(PHASE_PREFIX + c.batch)]
    written = 0
    for job in jobs:
        folder = tmp_path / "out" / job.folder
        manifest = json.loads((folder / "manifest.json").read_text())
        records = manifest["team"]["sections"]
        assert all(r["status"] == "written" and "(task-" in r["where"] for r in records)
        assert all(r["musician"]["backend"] == "builtin" and len(r["execution"]) == 64 for r in records)
        written += len(records)
        alone = compose_job(job, tmp_path / "alone")  # the same team song, written in one process
        assert hashlib.sha256((folder / "midi/full-arrangement.mid").read_bytes()).hexdigest() == alone.midi_sha256
    assert len(sections) == written and {t.state for t in sections} == {State.COMPLETE}
    kinds = [m.message_type for m in c.board.messages_since(0, limit=10_000) if m.task_id in {t.task_id
                                                                                          for t in sections}]
    assert kinds.count("job") == kinds.count("result") == kinds.count("completion") == written  # each once
    c.board.close()


def test_a_tampered_section_job_is_refused_by_the_worker(url: str, tmp_path: Path) -> None:
    good, forged = bass_requests()
    with Board.open(url) as board:
        honest_song = BoardSections(board, "batch:tamper", "task-9001", "song-side", poll=0.02)
        forged_song = BoardSections(board, "batch:tamper", "task-9002", "song-side", poll=0.02)
        threads = run_workers(url, tmp_path / "out", 1, patience=0.1)  # no conductor here to approve

        async def both() -> tuple[SectionReply, SectionReply]:
            return await asyncio.gather(honest_song.write(good, Deadline.after(60)),
                                        forged_song.write(forged, Deadline.after(60)))
        ok, bad = asyncio.run(both())
        threads[0].join()
        assert ok.part is not None and ok.error is None
        assert bad.part is None and bad.error is not None
        assert "contract refused" in bad.error and "fingerprint" in bad.error
        results = [json.loads(m.message) for m in board.messages_since(0, limit=100) if m.message_type == "result"]
        assert len(results) == 2


def test_a_section_whose_worker_went_silent_is_taken_over_and_written_once(url: str, tmp_path: Path) -> None:
    request, _ = bass_requests()
    c = conductor(url, [], stale=1)  # a conductor of no songs still tends its batch's section tasks
    phase = PHASE_PREFIX + c.batch
    song = BoardSections(c.board, phase, "task-0001", "song-side", poll=0.02)
    task_id = song.post(request)
    assert BoardSections(c.board, phase, "task-0001", "its-successor").post(request) == task_id  # found again
    dead = c.board.claim_next("dead-worker", phase_prefix=section_phase(phase))  # claims it, then is killed
    assert dead is not None and dead.claimed and dead.task_id == task_id
    c.board.backdate_heartbeat(task_id, datetime.now(UTC) - timedelta(seconds=30))
    c.step()
    assert c.board.task(task_id).state is State.FIX_PROPOSED and c.status.takeovers == 1

    stop = threading.Event()

    def worker() -> None:
        with Board.open(url) as board:
            work(board, str(tmp_path / "out"), "w0", heartbeat=0.1, poll=0.02, stop=stop,
                 phase_prefix=section_phase(phase))
    thread = threading.Thread(target=worker)
    thread.start()
    try:
        reply = asyncio.run(song.write(request, Deadline.after(120)))
        end = time.monotonic() + 120
        while c.board.task(task_id).state is not State.COMPLETE and time.monotonic() < end:
            c.step()
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join()
    task = c.board.task(task_id)
    assert task.state is State.COMPLETE and task.worked_by is not None and task.worked_by.endswith("-S2")
    assert reply.part == perform(request).part and reply.where.startswith("w0 (")
    kinds = [m.message_type for m in c.board.messages_since(0, task_id=task_id)]
    assert kinds.count("result") == kinds.count("completion") == 1
    with pytest.raises(FencingError):
        c.board.heartbeat(task_id, "dead-worker")
    assert BoardSections(c.board, phase, "task-0002", "another-song").post(request) != task_id
    c.board.close()
