"""Issue 24: the same batch on the same board into a new `--out` said every song was "composed",
exited 0 and wrote nothing. Now a song the board finished earlier is copied into the new folder
when its first folder is still there, and reported as "already composed in DIR" (exit 1) when it
is not — through a real `bandstand batch` process on a real SQLite board."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

PROMPTS = "synthwave night drive\njazz ballad\n"


def _batch(prompts: Path, board: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bandstand", "batch", str(prompts), "--board", str(board),
                           "--workers", "1", "--bars", "8", "--heartbeat", "0.2", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=300)


def _midi(folder: Path) -> bytes:
    return (folder / "midi" / "full-arrangement.mid").read_bytes()


def test_a_batch_run_again_into_a_new_folder_copies_its_songs_there(tmp_path: Path) -> None:
    prompts, board = tmp_path / "p.txt", tmp_path / "board.db"
    prompts.write_text(PROMPTS)
    first = _batch(prompts, board, tmp_path / "a")
    assert first.returncode == 0, first.stderr
    assert [s["status"] for s in json.loads(first.stdout)["songs"]] == ["composed", "composed"]

    again = _batch(prompts, board, tmp_path / "b")
    assert again.returncode == 0, again.stderr
    songs = json.loads(again.stdout)["songs"]
    assert [s["status"] for s in songs] == ["copied", "copied"]
    for song in songs:
        assert song["source"] == str((tmp_path / "a" / song["folder"]).resolve())
        assert song["where"] == str((tmp_path / "b" / song["folder"]).resolve())
        assert _midi(tmp_path / "b" / song["folder"]) == _midi(tmp_path / "a" / song["folder"])
    assert not (tmp_path / "b" / ".staging").exists()

    same = _batch(prompts, board, tmp_path / "b")  # and into a folder that holds them: kept, not "composed"
    assert same.returncode == 0, same.stderr
    assert [s["status"] for s in json.loads(same.stdout)["songs"]] == ["kept", "kept"]


def test_a_batch_whose_songs_are_gone_says_where_they_were_and_fails(tmp_path: Path) -> None:
    prompts, board = tmp_path / "p.txt", tmp_path / "board.db"
    prompts.write_text(PROMPTS)
    assert _batch(prompts, board, tmp_path / "a").returncode == 0
    shutil.rmtree(tmp_path / "a")

    again = _batch(prompts, board, tmp_path / "c")
    assert again.returncode == 1
    songs = json.loads(again.stdout)["songs"]
    assert [s["status"] for s in songs] == ["elsewhere", "elsewhere"]
    assert [s["where"] for s in songs] == [str((tmp_path / "a" / s["folder"]).resolve()) for s in songs]
    last = again.stderr.strip().splitlines()[-1]
    assert last.startswith(f"2 of 2 songs are not in {tmp_path / 'c'}: ") and "(first: already composed in " in last
    assert str(tmp_path / "a") in last
    assert not any((tmp_path / "c").glob("0*"))
