"""docs/batch.md's dataset and Ray sessions (its ```shell blocks) run as written: the dataset in
two runs (the second keeps the first's songs) and its table read by pandas; the batch on a local
Ray cluster the same songs as the batch here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .test_docs import DOC, SESSIONS, shell

SHELL = [body for lang, body in re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
         if lang == "shell"]


def test_the_dataset_session(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    dataset, _ = SHELL
    run = shell(dataset, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "grooves.json").read_text())
    assert (report["set"], report["kept"], report["composed"], report["rows"]) == (12, 2, 1, 3)
    assert "2/2 songs (2 composed, 0 kept, 0 failed)" in run.stderr
    assert "003-funk-in-c-major" in run.stdout and "loudness_lufs" in run.stdout  # pandas printed the table
    song = tmp_path / "grooves" / "003-funk-in-c-major"
    assert (song / "audio" / "full-arrangement.wav").is_file() and (song / "midi" / "bass.mid").is_file()
    assert (song / "notes" / "lead-sheet.musicxml").is_file() and (song / "audio" / "stems" / "drums.wav").is_file()


@pytest.mark.alone  # a local Ray cluster of two workers: both cores
@pytest.mark.slow
def test_the_ray_session(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    _, on_ray = SHELL
    shell(SESSIONS[0].split("bandstand batch")[0], tmp_path)  # the prompts file
    run = shell(on_ray, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "ray.json").read_text())
    assert report["ray"] == "local" and [s["status"] for s in report["songs"]] == ["composed"] * 4
    assert all(s["worker"].startswith("ray-") for s in report["songs"])
