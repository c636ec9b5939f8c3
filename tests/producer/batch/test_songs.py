"""A batch song is written atomically and idempotently, here or on a pool of processes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bandstand.producer.batch import compose_job, read_prompts, run_local, song_record
from bandstand.producer.batch.songs import MIDI, STAGING

JOBS = read_prompts("funk groove in E minor\nsynthwave night drive\n{\"prompt\": \"dark trap\", \"team\": true}",
                    seed=3, defaults={"bars": 8})


def test_a_song_lands_in_its_folder_once(tmp_path: Path) -> None:
    first = compose_job(JOBS[0], tmp_path, worker="w1")
    assert first.status == "composed" and first.worker == "w1"
    folder = tmp_path / JOBS[0].folder
    assert hashlib.sha256((folder / MIDI).read_bytes()).hexdigest() == first.midi_sha256
    record = song_record(folder)
    assert record is not None and record["job"]["seed"] == 3 and record["worker"] == "w1"
    again = compose_job(JOBS[0], tmp_path, worker="w2")
    assert (again.status, again.midi_sha256, again.worker) == ("kept", first.midi_sha256, "w1")
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOBS[0].folder]


def test_what_a_killed_worker_left_is_cleared_and_nothing_half_written_shows(tmp_path: Path) -> None:
    leftover = tmp_path / STAGING / f"{JOBS[1].folder}.dead-worker-123" / "session-x"
    leftover.mkdir(parents=True)
    (leftover / "half.mid").write_bytes(b"MThd")
    result = compose_job(JOBS[1], tmp_path, worker="w2")
    assert result.status == "composed"
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOBS[1].folder]


def test_a_team_song_is_accepted_into_its_folder(tmp_path: Path) -> None:
    result = compose_job(JOBS[2], tmp_path, worker="w1")
    folder = tmp_path / JOBS[2].folder
    record = song_record(folder)
    assert result.status == "composed" and record is not None and record["job"]["team"] is True
    import json

    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["revision"] == 2 and manifest["team"]["sections"]


def test_a_pool_composes_what_is_missing_and_keeps_the_rest(tmp_path: Path) -> None:
    seen: list[str] = []
    results = run_local(JOBS[:2], tmp_path, workers=2, on_result=lambda r: seen.append(r.folder))
    assert [r.status for r in results] == ["composed", "composed"] and sorted(seen) == sorted(j.folder for j in JOBS[:2])
    alone = compose_job(JOBS[0], tmp_path / "alone")
    assert results[0].midi_sha256 == alone.midi_sha256
    assert [r.status for r in run_local(JOBS[:2], tmp_path, workers=1)] == ["kept", "kept"]


def test_a_song_that_fails_is_reported_not_raised(tmp_path: Path) -> None:
    bad = JOBS[0].model_copy(update={"genre": "not-a-genre-at-all", "folder": "009-bad"})
    [result] = run_local([bad], tmp_path, workers=1)
    assert result.status == "failed" and "genre" in result.error
    assert not (tmp_path / "009-bad").exists()


def test_the_staging_folder_goes_when_it_is_empty(tmp_path: Path) -> None:
    run_local(JOBS[:1], tmp_path, workers=1)
    assert not (tmp_path / STAGING).exists()


def test_a_song_taken_over_after_its_worker_renamed_it_clears_that_workers_staging(tmp_path: Path) -> None:
    """A worker killed between its rename and its clean-up leaves an empty staging folder; the
    worker that takes the song over finds it finished ("kept") and clears what the first left."""
    first = compose_job(JOBS[0], tmp_path, worker="w1")
    (tmp_path / STAGING / f"{JOBS[0].folder}.w1-4242").mkdir(parents=True)  # its own folder, not yet removed
    again = compose_job(JOBS[0], tmp_path, worker="w2")
    assert (again.status, again.midi_sha256) == ("kept", first.midi_sha256)
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOBS[0].folder]
