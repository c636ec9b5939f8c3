"""A disk that fills up while `bandstand compose` writes its WAV: the real command on a small
tmpfs (a private mount namespace, `unshare -rm`) and, everywhere on Linux, under a file-size
limit (RLIMIT_FSIZE: the kernel refuses the big file with EFBIG, as a full disk refuses it with
ENOSPC). The run must exit 3 (finished with problems) without the WAV, and `bandstand resume`,
once there is room, must write it and exit 0."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")]

PROMPT = "deep house"
ARGS = ["--bars", "8", "--seed", "3", "--json"]
LIMIT = 2 * 1024 * 1024  # room for the MIDI, notes and piano roll (~0.5 MB), not for an 8-bar WAV (~3 MB)

# The tmpfs case: compose on a 2 MB tmpfs, grow it, resume; the session is copied out before
# the namespace (and its mount) goes away.
ON_TMPFS = """
set -u
mount -t tmpfs -o size=2m tmpfs "$DISK" || exit 90
"$PY" -m bandstand compose "$PROMPT" $ARGS --out "$DISK/out" > "$WORK/first.json" 2> "$WORK/first.err"
echo $? > "$WORK/first.rc"
cp -r "$DISK/out" "$WORK/after-first"
mount -o remount,size=64m "$DISK" || exit 91
"$PY" -m bandstand resume "$DISK"/out/session-* --json > "$WORK/second.json" 2> "$WORK/second.err"
echo $? > "$WORK/second.rc"
cp -r "$DISK/out" "$WORK/after-second"
"""


def _tmpfs(work: Path) -> tuple[int, int]:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here to mount a private tmpfs (the RLIMIT_FSIZE case still runs)")
    disk = work / "disk"
    disk.mkdir()
    env = {"DISK": str(disk), "WORK": str(work), "PY": sys.executable, "PROMPT": PROMPT, "ARGS": " ".join(ARGS),
           "PATH": "/usr/bin:/bin", "HOME": str(work)}
    done = subprocess.run(["unshare", "-rm", "sh", "-c", ON_TMPFS], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    if done.returncode in (1, 90) and not (work / "first.rc").exists():
        pytest.skip(f"cannot mount a private tmpfs here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    return int((work / "first.rc").read_text()), int((work / "second.rc").read_text())


def _fsize(work: Path) -> tuple[int, int]:
    out = work / "out"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    with (work / "first.json").open("w") as stdout, (work / "first.err").open("w") as stderr:
        first = subprocess.run([sys.executable, "-m", "bandstand", "compose", PROMPT, *ARGS, "--out", str(out)],
                               stdout=stdout, stderr=stderr, preexec_fn=limited, timeout=300, check=False)
    shutil.copytree(out, work / "after-first")
    session = next(out.glob("session-*"))
    with (work / "second.json").open("w") as stdout, (work / "second.err").open("w") as stderr:
        second = subprocess.run([sys.executable, "-m", "bandstand", "resume", str(session), "--json"],
                                stdout=stdout, stderr=stderr, timeout=300, check=False)
    shutil.copytree(out, work / "after-second")
    return first.returncode, second.returncode


@pytest.mark.parametrize("disk", [_tmpfs, _fsize], ids=["tmpfs", "rlimit-fsize"])
def test_a_full_disk_exits_3_and_resume_writes_the_wav(tmp_path: Path, disk: object) -> None:
    assert callable(disk)
    first_rc, second_rc = disk(tmp_path)
    first = json.loads((tmp_path / "first.json").read_text())
    assert first_rc == 3, (tmp_path / "first.err").read_text()
    assert first["status"] == "completed_partial"
    assert first["error"]["code"] == "FILE_WRITE_FAILED" and "full-arrangement.wav" in first["error"]["message"]
    assert "free space" in first["error"]["recovery_hint"]
    session = next((tmp_path / "after-first").glob("session-*"))
    assert not (session / "audio" / "full-arrangement.wav").exists()
    assert (session / "midi" / "full-arrangement.mid").stat().st_size > 0
    assert not list(session.rglob("*.tmp"))  # no half-written file left behind

    second = json.loads((tmp_path / "second.json").read_text())
    assert second_rc == 0, (tmp_path / "second.err").read_text()
    assert second["status"] == "completed" and second["error"] is None
    session = next((tmp_path / "after-second").glob("session-*"))
    with wave.open(str(session / "audio" / "full-arrangement.wav")) as wav:
        assert (wav.getnchannels(), wav.getframerate()) == (2, 44100) and wav.getnframes() > 44100
    manifest = json.loads((session / "manifest.json").read_text())
    assert "audio/full-arrangement.wav" in {f["path"] for f in manifest["files"]}
    assert manifest["degraded"] == []
    assert manifest["nodes"]["output"]["status"] == "completed"


def test_resume_does_not_write_the_first_take_over_a_song_changed_since(tmp_path: Path) -> None:
    out = tmp_path / "out"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    first = subprocess.run([sys.executable, "-m", "bandstand", "compose", PROMPT, *ARGS, "--out", str(out)],
                           capture_output=True, text=True, preexec_fn=limited, timeout=300, check=False)
    assert first.returncode == 3, first.stderr
    session = next(out.glob("session-*"))
    edit = subprocess.run([sys.executable, "-m", "bandstand", "tool", str(session), "set_tempo", "--args",
                           '{"tempo": 100}'], capture_output=True, text=True, timeout=300, check=False)
    assert edit.returncode == 0, edit.stderr
    tempo_mid = (session / "midi" / "full-arrangement.mid").read_bytes()
    again = subprocess.run([sys.executable, "-m", "bandstand", "resume", str(session)], capture_output=True,
                           text=True, timeout=300, check=False)
    assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stderr
    assert "was changed since it was composed" in again.stderr and "--format wav" in again.stderr
    assert (session / "midi" / "full-arrangement.mid").read_bytes() == tempo_mid  # the edit stays
