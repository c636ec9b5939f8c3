"""Atomic writes: the file appears whole or not at all, with normal permissions."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bandstand.errors import OutputNotWritable
from bandstand.files import TMP_SUFFIX, atomic_open, write_bytes, write_json, write_text


def test_write_and_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "song.txt"
    write_text(target, "first")
    write_text(target, "second")
    assert target.read_text() == "second"
    assert list(target.parent.iterdir()) == [target]


def test_permissions_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_bytes(tmp_path / "a.mid", b"MThd")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("durable", [True, False])
def test_a_failure_leaves_nothing_half_written(tmp_path: Path, durable: bool) -> None:
    target = tmp_path / "out.json"
    write_json(target, {"v": 1})
    with pytest.raises(RuntimeError), atomic_open(target, "w", durable=durable) as fh:
        fh.write("{broken")
        raise RuntimeError("crash mid-write")
    assert target.read_text() == '{\n  "v": 1\n}\n'
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TMP_SUFFIX)]


def test_files_are_synced_before_the_rename_but_rendered_audio_is_not(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A song's files and state are synced to the disk before they are renamed into place; a WAV
    (`durable=False`, what `bandstand.render.audio.write_wav` writes) is renamed whole, unsynced."""
    import numpy as np

    from bandstand.render.audio import write_wav

    synced: list[str] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd)))
    write_json(tmp_path / "state.json", {"v": 1})
    wav = write_wav(np.zeros((4410, 2), dtype=np.float32), tmp_path / "song.wav")
    assert [Path(p).name.startswith(".state.json.") for p in synced] == [True]
    assert wav.read_bytes()[:4] == b"RIFF" and not [p for p in tmp_path.iterdir() if p.name.endswith(TMP_SUFFIX)]


def test_unwritable_folder_is_a_user_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputNotWritable, match="is a file, not a folder"):
        write_text(blocker / "sub" / "x.txt", "y")


def test_a_folder_is_not_a_file_name(tmp_path: Path) -> None:
    with pytest.raises(OutputNotWritable, match="is a folder"):
        write_bytes(tmp_path, b"x")


def test_a_folder_that_is_or_holds_a_link_is_refused(tmp_path: Path) -> None:
    from bandstand.errors import OutputNotWritable
    from bandstand.files import refuse_links

    real = tmp_path / "real"
    (real / "midi").mkdir(parents=True)
    assert refuse_links(real) == real
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(OutputNotWritable, match=r"link is a symbolic link \(to .*real\); bandstand does not write"):
        refuse_links(tmp_path / "link", "project folder")
    (real / "midi" / "bass.mid").symlink_to(tmp_path / "elsewhere.mid")
    with pytest.raises(OutputNotWritable, match=r"bass.mid is a symbolic link .* inside the project folder"):
        refuse_links(real, "project folder")
