"""Hostile MIDI files, made here byte by byte: what the standard forbids is refused, what is over
bandstand's limits (`MIDI_LIMITS`) is refused in one line with exit 2, and a file within them
renders whatever its number of tracks — including through `bandstand render` in a real process.
What is not a file at all (a folder, a FIFO, /dev/zero) is refused by its type, and every refusal
through the CLI is bounded in time and memory, measured on the child process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import mido
import pytest
from PIL import Image

from bandstand.errors import MidiFileError
from bandstand.midi import MIDI_LIMITS, MidiLimits, read_midi

NOTE = bytes([0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0])  # a C4 an eighth long at 192 PPQ


def smf(*tracks: bytes, ppq: int = 192, fmt: int = 1) -> bytes:
    """A Standard MIDI File from raw track bodies (each gets its end-of-track)."""
    out = b"MThd" + (6).to_bytes(4, "big") + fmt.to_bytes(2, "big") + len(tracks).to_bytes(2, "big")
    out += ppq.to_bytes(2, "big")
    for body in tracks:
        body += b"\x00\xff\x2f\x00"
        out += b"MTrk" + len(body).to_bytes(4, "big") + body
    return out


def notes(count: int, channel: int = 0) -> bytes:
    """`count` notes back to back, in running status."""
    return bytes([0x00, 0x90 | channel, 60, 100]) + bytes([0x10, 60, 0, 0x00, 60, 100]) * (count - 1) + bytes(
        [0x10, 60, 0])


def vlq(value: int) -> bytes:
    out = [value & 0x7F]
    while value > 0x7F:
        value >>= 7
        out.append(0x80 | value & 0x7F)
    return bytes(reversed(out))


GIANT_DELTA = smf(bytes([0x00, 0x90, 60, 100, 0xFF, 0xFF, 0xFF, 0x7F, 0x80, 60, 0]), ppq=1)
LONG_VLQ = smf(bytes([0x00, 0x90, 60, 100, 0x81, 0x80, 0x80, 0x80, 0x00, 0x80, 60, 0]))

CORPUS = {
    # the issue's 37-byte file: a note held 268 million ticks (the largest 4-byte delta time)
    "giant-delta": (GIANT_DELTA, "over bandstand's limits: it runs past beat 20,000"),
    "vlq-5-bytes": (LONG_VLQ, "longer than the standard's 4 bytes"),
    "meta-vlq-5-bytes": (smf(bytes([0x00, 0xFF, 0x01, 0x81, 0x80, 0x80, 0x80, 0x00])), "longer than the standard's 4 bytes"),
    "meta-past-end": (smf(bytes([0x00, 0xFF, 0x01, 0x7F]) + b"short"), "runs past the end of its track"),
    "sysex-past-end": (smf(bytes([0x00, 0xF0, 0x8F, 0x7F]) + b"\x01\x02"), "runs past the end of its track"),
    "data-byte-128": (smf(bytes([0x00, 0x90, 60, 100, 0x60, 0x80, 0x8F, 0x00])), "a data byte above 127"),
    "too-many-notes": (smf(notes(MIDI_LIMITS.notes + 1)), f"more than {MIDI_LIMITS.notes:,} notes"),
    "too-many-tracks": (smf(*[NOTE] * 500), f"more than {MIDI_LIMITS.tracks} tracks"),
    "too-many-channels": (smf(*[b"".join(bytes([0x00, 0x90 | c, 60, 100, 0x60, 0x80 | c, 60, 0]) for c in range(16))]
                              * (MIDI_LIMITS.tracks // 16 + 1)), f"more than {MIDI_LIMITS.tracks} tracks"),
    # 4,000 beats at 120 BPM: within the beats, over the 30 minutes
    "too-long": (smf(bytes([0x00, 0x90, 60, 100]) + vlq(4000 * 192) + bytes([0x80, 60, 0])), "more than 1,800 (30 minutes)"),
    # events of any kind count, not only notes: controllers, then zero-length text events
    "too-many-controllers": (smf(bytes([0x00, 0xB0, 7, 100]) + bytes([0x00, 7, 100]) * MIDI_LIMITS.events),
                             f"more than {MIDI_LIMITS.events:,} events"),
    "too-many-metas": (smf(*[bytes([0x00, 0xFF, 0x01, 0x00]) * (MIDI_LIMITS.events // 4)] * 5),
                       f"more than {MIDI_LIMITS.events:,} events"),
    # the issue's file within the other limits whose render asked for 143 GiB: 240 tracks, each a
    # note held 29.8 minutes, are 240 full-length stereo buffers
    "too-many-track-minutes": (smf(*[bytes([0x00, 0x90, 60, 100]) + vlq(3580 * 192) + bytes([0x80, 60, 0])] * 240),
                               "240 tracks × 29.8 minutes make 7,160 track-minutes, more than 960"),
}


def test_giant_delta_file_is_the_issues_37_bytes() -> None:
    assert len(GIANT_DELTA) == 37


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hostile_file_is_refused_in_one_line(name: str) -> None:
    data, message = CORPUS[name]
    with pytest.raises(MidiFileError) as caught:
        read_midi(data)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_limits_are_a_budget_the_caller_can_set() -> None:
    data = smf(notes(10))
    assert len(read_midi(data).tracks[0].notes) == 10
    with pytest.raises(MidiFileError, match="more than 9 notes"):
        read_midi(data, MidiLimits(notes=9))
    with pytest.raises(MidiFileError, match=r"runs past beat 0\.5"):
        read_midi(data, MidiLimits(beats=0.5))
    with pytest.raises(MidiFileError, match="more than 20 events"):  # 10 notes on and off, and the end
        read_midi(data, MidiLimits(events=20))
    assert len(read_midi(data, MidiLimits(events=21)).tracks[0].notes) == 10
    with pytest.raises(MidiFileError, match=f"it is {len(data)} bytes, more than 50 bytes"):
        read_midi(data, MidiLimits(file_bytes=50))
    with pytest.raises(MidiFileError, match=r"1 tracks × 0\.0 minutes make 0 track-minutes, more than 0\.001"):
        read_midi(data, MidiLimits(track_minutes=0.001))


def test_a_file_is_read_no_further_than_one_byte_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.mid"
    path.write_bytes(smf(notes(10)) + bytes(1000))
    with pytest.raises(MidiFileError, match=r"big\.mid is over bandstand's limits: it is 1,\d{3} bytes, more than 500"):
        read_midi(path, MidiLimits(file_bytes=500))
    with open("/proc/self/status", "rb") as proc:  # a regular file whose size says 0: read up to the cap
        assert proc.read(4)
    with pytest.raises(MidiFileError, match="it is more than 64 bytes"):
        read_midi("/proc/self/status", MidiLimits(file_bytes=64))


def test_four_byte_vlq_and_files_at_the_limits_are_read() -> None:
    four = smf(bytes([0x00, 0x90, 60, 100, 0x81, 0x80, 0x80, 0x00, 0x80, 60, 0]), ppq=960)  # 2,097,152 ticks
    assert read_midi(four, MidiLimits(beats=3000.0, seconds=1e9)).tracks[0].notes[0].duration == 2 ** 21 / 960
    assert mido.MidiFile(file=__import__("io").BytesIO(four)).tracks[0][1].time == 2 ** 21  # mido agrees
    assert len(read_midi(smf(*[NOTE] * MIDI_LIMITS.tracks)).tracks) == MIDI_LIMITS.tracks


def bandstand(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    return subprocess.run([sys.executable, "-m", "bandstand", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("name", ["giant-delta", "vlq-5-bytes", "too-many-tracks"])
def test_cli_refuses_in_one_line_with_exit_2_and_writes_nothing(tmp_path: Path, name: str) -> None:
    (tmp_path / "in.mid").write_bytes(CORPUS[name][0])
    done = bandstand("render", "in.mid", "--no-audio", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bandstand: error: in.mid ") and CORPUS[name][1] in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mid"]


WALL_SECONDS = 10.0  # refusals take about a second; generous for a busy machine
MAX_RSS_BYTES = 300 << 20


def refused(path: str, cwd: Path) -> tuple[str, float, int]:
    """`bandstand render PATH` (with audio, so nothing is skipped) in a child process killed after
    WALL_SECONDS: its one stderr line, its wall time and its largest resident set in bytes, as
    /usr/bin/time measures it (the rusage of a child forked straight from pytest would count the
    pages it shared with pytest before its exec)."""
    env = {**os.environ, "PYTHONWARNINGS": "error", "PYTHONPATH": os.pathsep.join(sys.path)}
    report = cwd.parent / f"{cwd.name}.rss"
    started = time.monotonic()
    child = subprocess.Popen([TIME, "-f", "%M", "-o", str(report), sys.executable, "-m", "bandstand", "render", path],
                             cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = child.communicate(timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # bandstand too, not only /usr/bin/time
        child.communicate()
        pytest.fail(f"bandstand render {path} still ran after {WALL_SECONDS:g} s")
    wall = time.monotonic() - started
    assert child.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and not out, (out, err)
    return lines[0], wall, int(report.read_text().split()[-1]) * 1024


TIME = "/usr/bin/time"


def controllers(size: int) -> bytes:
    """A format-0 file of `size` bytes: one track of volume changes in running status, 3 bytes each."""
    data = smf(bytes([0x00, 0xB0, 7, 100]) + bytes([0x00, 7, 100]) * ((size - 30) // 3), fmt=0)
    return data + bytes(size - len(data))  # what follows the last track chunk is not read


HOSTILE_PATHS = {  # name → (make it in a folder and give the path to render, what the line says)
    "issue-30-mb-of-controllers": (lambda d: str(write(d / "cc.mid", controllers(30_000_000))),
                                   f"it is 30,000,000 bytes, more than {MIDI_LIMITS.file_bytes:,} bytes"),
    "one-byte-over-the-cap": (lambda d: str(write(d / "big.mid", controllers(MIDI_LIMITS.file_bytes + 1))),
                              f"it is {MIDI_LIMITS.file_bytes + 1:,} bytes, more than"),
    "16-mb-of-controllers": (lambda d: str(write(d / "cc.mid", controllers(MIDI_LIMITS.file_bytes - 2))),
                             f"more than {MIDI_LIMITS.events:,} events"),
    "dev-zero": (lambda d: "/dev/zero", "/dev/zero is a character device, not a MIDI file"),
    "fifo": (lambda d: (os.mkfifo(d / "pipe.mid"), "pipe.mid")[1], re.escape("pipe.mid is a named pipe (FIFO), not a MIDI file")),
    "folder": (lambda d: ((d / "dir.mid").mkdir(), "dir.mid")[1], "dir.mid is a folder, not a MIDI file"),
    "143-gib-render": (lambda d: str(write(d / "wide.mid", CORPUS["too-many-track-minutes"][0])),
                       "7,160 track-minutes, more than 960"),
}


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.skipif(not os.access(TIME, os.X_OK), reason="measures the memory with /usr/bin/time")
@pytest.mark.parametrize("name", sorted(HOSTILE_PATHS))
def test_cli_refuses_what_is_not_a_midi_file_within_limits_in_bounded_time_and_memory(tmp_path: Path,
                                                                                     name: str) -> None:
    make, message = HOSTILE_PATHS[name]
    path = make(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    line, wall, rss = refused(path, tmp_path)
    assert line.startswith(f"bandstand: error: {path} ") and re.search(message, line), line
    assert "\n" not in line and "internal error" not in line
    assert rss < MAX_RSS_BYTES, f"{rss / (1 << 20):.0f} MiB resident"
    assert wall < WALL_SECONDS
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize(("tracks", "height"), [(100, 150), (MIDI_LIMITS.tracks, 150), (MIDI_LIMITS.tracks, 900)])
def test_any_number_of_lanes_is_drawn(tmp_path: Path, tracks: int, height: int) -> None:
    (tmp_path / "many.mid").write_bytes(smf(*[NOTE] * tracks))
    done = bandstand("render", "many.mid", "--no-audio", "--height", str(height), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Image.open(tmp_path / "many.png") as image:
        assert image.size == (1600, height)
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 3  # lanes were drawn
