"""Renders whose full-length buffers live in a scratch file or in anonymous memory: the same bytes
as in numpy's memory (master and stems, one process or two, effects, sends, buses, a split track,
the master's limiter); pages let go of keep their data; which of the two a render gets."""

from __future__ import annotations

import resource
import threading
from pathlib import Path

import numpy as np
import pytest

from bandstand.compose import compose
from bandstand.compose.models.sound import SoundPlan
from bandstand.compose.sound import apply_sound
from bandstand.errors import ConfigError
from bandstand.render import render_wav
from bandstand.render.master import Master
from bandstand.render.scratch import (
    ENV_VAR,
    MEMORY_BYTES,
    MEMORY_ENV_VAR,
    Scratch,
    mapped_files,
    memory_allowance,
    place,
)
from bandstand.score import Note, Song, Track
from tests.midi.songs import demo_song
from tests.render.test_chain import mixed_song


def test_released_pages_keep_their_data(tmp_path: Path) -> None:
    scratch = Scratch(str(tmp_path), every=2, budget=0)
    a = scratch.zeros((2, 1 << 20))
    assert not a.any() and list(tmp_path.iterdir()) == []  # the file is unlinked at once
    a[0, ::4096] = np.arange(256, dtype=np.float32)
    scratch.tick()
    scratch.tick()  # the second tick lets go of the pages
    assert np.array_equal(a[0, ::4096], np.arange(256, dtype=np.float32)) and not a[1].any()


LINUX = Path("/proc/self/statm").exists()
MB = 1 << 20


@pytest.mark.skipif(not LINUX, reason="what is mapped is read from /proc/self/statm")
def test_pages_are_let_go_of_past_the_budget_only(tmp_path: Path) -> None:
    scratch = Scratch(str(tmp_path), every=1, budget=24 * MB)
    a = scratch.zeros((64 * MB // 4,))
    def mapped() -> int:
        now = mapped_files()
        assert now is not None
        return now

    before = mapped()
    a[: 8 * MB // 4] = 1.0  # 8 MB touched: under the budget, kept
    scratch.tick()
    assert mapped() - before >= 8 * MB
    a[8 * MB // 4 : 40 * MB // 4] = 2.0  # 40 MB in all: over it, all let go of at the next look
    scratch.tick()
    assert mapped() - before < 4 * MB
    assert a[0] == 1.0 and a[40 * MB // 4 - 1] == 2.0 and a.sum() == 8 * MB // 4 + 2 * 32 * MB // 4


@pytest.mark.skipif(not LINUX, reason="Linux maps pages ahead (MADV_POPULATE_WRITE)")
@pytest.mark.parametrize("where", ["file", "memory"])
def test_ready_pages_are_written_without_a_fault_each(tmp_path: Path, where: str) -> None:
    scratch = Scratch(str(tmp_path)) if where == "file" else Scratch.in_memory()
    a = scratch.zeros((2, 4 * MB))
    view = a[:, 1000 : 1000 + 2 * MB]
    scratch.ready(view)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    view[...] = 3.0
    written = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    if scratch.populates:  # a kernel before 5.14 cannot: the writes fault as before
        assert written < 16  # 4,096 pages written, none (but a stray few of Python's own) faulted in
    assert a[0, 999] == 0.0 and a[1, 1000] == 3.0 and a.sum() == 3.0 * 4 * MB
    scratch.ready(np.zeros((2, 100), dtype=np.float32))  # not the scratch's: nothing happens


@pytest.mark.skipif(not LINUX, reason="what is mapped is read from /proc/self/statm")
def test_a_discarded_scratch_is_freed_on_a_thread_of_its_own(tmp_path: Path) -> None:
    scratch = Scratch(str(tmp_path), budget=1 << 40)
    a = scratch.zeros((2, 4 * MB))
    a[...] = 1.0  # 32 MB mapped
    mapped = mapped_files()
    assert mapped is not None
    scratch.discard()
    for thread in threading.enumerate():
        if thread.name == "bandstand-scratch-free":
            thread.join()
    now = mapped_files()
    assert now is not None and now < mapped - 24 * MB  # its pages are gone while the array still exists
    scratch.tick()  # nothing left to let go of
    scratch.ready(a[:, :10])


def composed(bars: int) -> Song:
    result = compose("dub techno, cavernous, drenched in reverb", seed=3, bars=bars, render_audio=False,
                     render_pianoroll=False, checkpoints=False)
    assert result.song is not None
    return apply_sound(result.song, SoundPlan.model_validate(result.state.nodes["sound"].output))


def one_part(bars: int) -> Song:
    notes = [Note(b * 0.5, 0.45, 48 + (b * 7) % 24, 70 + b % 50) for b in range(bars * 8)]
    return Song(tempo=140.0, tracks=[Track("Arp", "lead", program=81, notes=notes)])  # split over two synthesizers


SONGS = {"mixed": mixed_song, "demo": lambda: demo_song(8), "composed": lambda: composed(8),
         "one part": lambda: one_part(8)}


@pytest.mark.parametrize("name", sorted(SONGS))
@pytest.mark.parametrize("workers", [1, 2])
def test_a_scratch_render_is_the_same_bytes(tmp_path: Path, name: str, workers: int) -> None:
    song = SONGS[name]()
    settings = Master(target_lufs=-9.0)  # loud: the limiter works hard
    files = {}
    for scratch in (False, True, None):  # numpy's memory, the file, anonymous memory (`place`)
        folder = tmp_path / str(scratch)
        render_wav(song, folder / "song.wav", workers=workers, settings=settings, stems_dir=folder / "stems",
                   scratch=scratch)
        files[scratch] = {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*.wav"))}
    assert len(files[True]) >= 2 and files[True] == files[False] == files[None]


def test_the_scratch_folder_is_on_a_disk_with_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    found = Scratch.find(1 << 20)
    assert found is not None and found.folder == str(tmp_path)
    assert Scratch.find(1 << 60) is None  # no disk has room: the render keeps its buffers in memory
    if Path("/dev/shm").is_dir():  # a tmpfs is memory: never chosen
        monkeypatch.setenv(ENV_VAR, "/dev/shm")
        found = Scratch.find(1 << 20)
        assert found is not None and found.folder != "/dev/shm"


def resident() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096


@pytest.mark.skipif(not LINUX, reason="the resident set is read from /proc/self/statm")
def test_memory_is_kept_until_discarded_then_freed_on_a_thread() -> None:
    scratch = Scratch.in_memory()
    a = scratch.zeros((2, 4 * MB))
    a[...] = 2.0  # 32 MB written
    before = resident()
    for _ in range(64):
        scratch.tick()  # nothing is let go of: the numbers live nowhere else
    assert a.sum() == 2.0 * 8 * MB and resident() > before - 4 * MB
    scratch.discard()
    for thread in threading.enumerate():
        if thread.name == "bandstand-scratch-free":
            thread.join()
    assert resident() < before - 24 * MB  # freed while the array still exists


def test_where_a_render_keeps_its_buffers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    monkeypatch.delenv(MEMORY_ENV_VAR, raising=False)
    assert 0 < memory_allowance() <= MEMORY_BYTES  # the machine's room, re-read per render: it moves
    monkeypatch.setenv(MEMORY_ENV_VAR, "64")  # a room that holds still for the threshold
    room = memory_allowance()
    assert room == 64 * MB
    small, large = place(room), place(room + 1)
    assert small is not None and small.memory  # within the machine's room: memory
    assert large is not None and not large.memory and large.folder == str(tmp_path)  # past it: the file
    forced = place(1 << 20, True)
    assert forced is not None and not forced.memory and place(1 << 20, False) is None  # as the caller asks
    monkeypatch.setenv(MEMORY_ENV_VAR, "0")  # the smallest resident set: every render in the file
    chosen = place(1 << 20)
    assert memory_allowance() == 0 and chosen is not None and not chosen.memory
    for wrong in ("lots", "-5", "nan"):  # one line naming the variable, as a wrong $BANDSTAND_SYNTH
        monkeypatch.setenv(MEMORY_ENV_VAR, wrong)
        with pytest.raises(ConfigError, match=MEMORY_ENV_VAR):
            memory_allowance()
    monkeypatch.setenv(ENV_VAR, "/nonexistent/folder")
    monkeypatch.setenv("TMPDIR", "/nonexistent/folder")
    monkeypatch.setenv(MEMORY_ENV_VAR, "0")
    nowhere = place(1 << 60)  # no disk has room for the file: memory all the same
    assert nowhere is not None and nowhere.memory
