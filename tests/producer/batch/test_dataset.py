"""`bandstand dataset SPEC.toml`: a grid of songs with their files and one Parquet table that
pandas reads; resumed after Ctrl-C; bad specs refused in one line with nothing written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.producer.batch import compose_job
from bandstand.producer.batch.dataset import read_spec

pd = pytest.importorskip("pandas")

SPEC = """\
[dataset]
seeds = [3, 11]
bars = 4
parts = ["drums", "bass"]

[grid]
genre = ["funk", "jazz"]
key = ["E minor"]
"""


def test_a_dataset_with_audio_and_its_table_read_by_pandas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "set.toml"
    spec.write_text(SPEC)
    out = tmp_path / "data"
    args = ["dataset", str(spec), "--out", str(out), "--workers", "2", "--shard", "0/2", "--json"]
    assert run(args) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["set"] == 4 and summary["run"] == 2 and summary["composed"] == 2 and summary["rows"] == 2
    assert captured.err == ""  # --json: no progress lines

    table = pd.read_parquet(out / "metadata.parquet")
    assert list(table["song"]) == ["001-funk-in-e-minor", "003-jazz-in-e-minor"]  # shard 0/2: songs 1 and 3
    assert list(table["seed"]) == [3, 3] and list(table["genre"]) == ["funk", "jazz"]
    assert set(table["key"]) == {"E minor"} and set(table["metre"]) == {"4/4"} and set(table["bars"]) == {4}
    row = table.iloc[0]
    assert list(row["parts"]) == ["drums", "bass"] and row["notes_drums"] > 0 and row["notes_bass"] > 0
    assert row["notes"] == row["notes_drums"] + row["notes_bass"] and list(row["sections"])
    assert -30 < row["loudness_lufs"] < 0
    for column in ("midi_path", "mix_path", "lead_sheet_path"):
        assert (out / row[column]).is_file(), column
    assert all((out / p).is_file() for p in row["part_midi_paths"]) and len(row["part_midi_paths"]) == 2
    assert {Path(p).name for p in row["stem_paths"]} >= {"drums.wav", "bass.wav"}

    # the other shard, then everything again: the table covers the whole set, nothing composed twice
    assert run(["dataset", str(spec), "--out", str(out), "--shard", "1/2"]) == 0
    capsys.readouterr()
    assert run(["dataset", str(spec), "--out", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["kept"] == 4 and again["composed"] == 0 and again["rows"] == 4
    assert len(pd.read_parquet(out / "metadata.parquet")) == 4

    # a song of the set is the song composed alone with its prompt and seed
    job = read_spec(SPEC).job(2)
    alone = compose_job(job.model_copy(update={"render_audio": False}), tmp_path / "alone")
    assert (tmp_path / "alone" / job.folder / "midi" / "full-arrangement.mid").read_bytes() == \
        (out / job.folder / "midi" / "full-arrangement.mid").read_bytes() and alone.status == "composed"


def test_a_dataset_interrupted_by_ctrl_c_is_resumed(tmp_path: Path) -> None:
    spec = tmp_path / "set.toml"
    spec.write_text('[dataset]\nseeds = 6\nbars = 8\naudio = false\n[grid]\ngenre = ["funk", "trap"]\n')
    out = tmp_path / "data"
    command = [sys.executable, "-m", "bandstand", "dataset", str(spec), "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not any((p / "batch.json").is_file() for p in out.glob("0*")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: to the whole foreground group, as a terminal does
        _, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    finished = sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert 1 <= len(finished) < 12
    assert all((out / name / "batch.json").is_file() for name in finished)  # no half song anywhere
    assert not list((out / ".staging").glob("*")) if (out / ".staging").exists() else True
    assert list(pd.read_parquet(out / "metadata.parquet")["song"]) == finished  # the table of what is there

    again = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["kept"] == len(finished) and report["composed"] == 12 - len(finished) and report["rows"] == 12
    statuses = {s["folder"]: s["status"] for s in report["songs"]}
    assert all(statuses[name] == "kept" for name in finished)


@pytest.mark.parametrize(("spec", "extra", "message"), [
    ('[grid]\ngenre = ["funk", "jazzz"]\n', [], "[grid] genre: unknown genre 'jazzz'; did you mean 'jazz'?"),
    ('[dataset]\nseeds = 10000000\n[grid]\ngenre = ["funk"]\n', [], "10,000,000 songs in one run"),
    ("[dataset\nseeds = 2\n", [], "not valid TOML"),
    ('[grid]\ncolour = ["red"]\n', [], "[grid] colour: unknown field"),
    ('[dataset]\nprompt = "{mood} song"\n[grid]\ngenre = ["funk"]\n', [], "prompt uses {mood}"),
    ('[grid]\ngenre = ["funk"]\n', ["--shard", "2/2"], "--shard '2/2'"),
    ('[grid]\ngenre = ["funk"]\n', ["--on", "board"], "--on board needs --board"),
    ('[grid]\ngenre = ["funk"]\n', ["--on", "mars"], "use local, board"),
])
def test_bad_specs_are_one_line_exit_2_and_nothing_written(spec: str, extra: list[str], message: str,
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "set.toml"
    path.write_text(spec)
    assert run(["dataset", str(path), "--out", str(tmp_path / "data"), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "data").exists()


def test_ten_million_songs_are_fine_a_slice_at_a_time(tmp_path: Path) -> None:
    spec = read_spec('[dataset]\nseeds = 10000000\n[grid]\ngenre = ["funk", "jazz"]\n')
    assert spec.total == 20_000_000
    from bandstand.producer.batch.dataset import Shard

    jobs = spec.jobs(limit=3, shard=Shard(5, 1000))
    assert [j.index for j in jobs] == [5, 1005, 2005]
    assert jobs[0].folder == "00000006-funk" and [j.seed for j in jobs] == [5, 1005, 2005]


def test_a_dataset_through_a_sqlite_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "set.toml"
    spec.write_text('[dataset]\nseeds = [4]\nbars = 4\naudio = false\n[grid]\ngenre = ["funk", "trap"]\n')
    out = tmp_path / "data"
    assert run(["dataset", str(spec), "--out", str(out), "--on", "board", "--board", str(tmp_path / "b.db"),
                "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["on"], report["composed"], report["rows"]) == ("board", 2, 2)
    assert all(s["worker"].endswith("-w1") for s in report["songs"])  # the board's worker wrote them
    table = pd.read_parquet(out / "metadata.parquet")
    assert list(table["genre"]) == ["funk", "trap"] and table["mix_path"].isna().all()
    job = read_spec(spec.read_text()).job(1)
    compose_job(job, tmp_path / "alone")
    assert (tmp_path / "alone" / job.folder / "midi" / "full-arrangement.mid").read_bytes() == \
        (out / job.folder / "midi" / "full-arrangement.mid").read_bytes()
