"""A song the board finished in an earlier run, brought into this run's folder (`copies.bring`):
copied only when it is that song, unchanged and free of links; otherwise reported elsewhere."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bandstand.producer.batch import JobResult, compose_job, read_prompts
from bandstand.producer.batch.copies import bring
from bandstand.producer.batch.songs import MIDI

JOB = read_prompts("funk groove in E minor\n", seed=3, defaults={"bars": 8})[0]


@pytest.fixture
def earlier(tmp_path: Path) -> JobResult:
    """The board's record of the song, composed into `first/` by an earlier run."""
    result = compose_job(JOB, tmp_path / "first", worker="w1")
    assert result.status == "composed" and result.where == str((tmp_path / "first" / JOB.folder).resolve())
    return result


def test_it_is_copied_then_kept(earlier: JobResult, tmp_path: Path) -> None:
    copied = bring(JOB, earlier, tmp_path / "second")
    assert (copied.status, copied.source, copied.where) == ("copied", earlier.where,
                                                          str((tmp_path / "second" / JOB.folder).resolve()))
    assert (tmp_path / "second" / JOB.folder / MIDI).read_bytes() == (Path(earlier.where) / MIDI).read_bytes()
    assert sorted(p.name for p in (tmp_path / "second").iterdir()) == [JOB.folder]  # no staging left
    assert bring(JOB, earlier, tmp_path / "second").status == "kept"


@pytest.mark.parametrize("spoil", ["gone", "changed", "linked", "unnamed"])
def test_otherwise_it_is_reported_elsewhere_and_nothing_is_written(spoil: str, earlier: JobResult,
                                                                  tmp_path: Path) -> None:
    source = Path(earlier.where)
    if spoil == "gone":
        shutil.rmtree(source)
    elif spoil == "changed":
        (source / MIDI).write_bytes(b"MThd another song")
    elif spoil == "linked":
        (tmp_path / "secret.txt").write_text("not the song's")
        os.symlink(tmp_path / "secret.txt", source / "notes" / "secret.txt")
    else:
        earlier = JobResult(earlier.index, earlier.folder, "composed", earlier.midi_sha256)  # an older board's record
    said = bring(JOB, earlier, tmp_path / "second")
    assert said.status == "elsewhere" and said.where == earlier.where
    assert said.said() == f"already composed in {earlier.where or 'a folder the board does not name'}"
    assert not (tmp_path / "second" / JOB.folder).exists()


def test_a_copy_that_cannot_be_made_says_why(earlier: JobResult, tmp_path: Path) -> None:
    (tmp_path / "second").write_text("a file where the folder should be")
    said = bring(JOB, earlier, tmp_path / "second")
    assert said.status == "elsewhere" and said.error.startswith("could not copy it here: ")
    assert said.said().startswith(f"already composed in {earlier.where} (could not copy it here: ")
