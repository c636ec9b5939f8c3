"""General MIDI synthesis with TinySoundFont, on two processes.

The song's notes are shared out between `SYNTH_GROUPS` synthesizers: each
channel's pitches are dealt into shares of about equal sounding time, so every
synthesizer plays part of every instrument (with that channel's program,
controllers, pedal and bends) and the groups take about equally long whatever
the instruments cost. Each synthesizer renders the audio between consecutive
events into a small scratch slice, and each full slice is added into the one
output buffer. TinySoundFont holds the interpreter lock while it renders
(measured: two threads take twice the wall time of one), so the second group
renders in a forked child process into shared memory while this process
renders the first; if the child cannot run or fails, this process renders
that group itself. The split depends on the song only and two additions onto
zero give the same bits in either order, so the audio is bit-identical run to
run, in one process or two."""

from __future__ import annotations

import mmap
import os
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.errors import RenderError
from bandstand.render.soundfont import find_soundfont
from bandstand.score import DRUM_CHANNEL, Song, Track, assign_channels

TAIL_SECONDS = 2.0  # release and reverb after the last note
SYNTH_GROUPS = 2  # fixed, so the split is the same on every machine; two, so the order the groups add in cannot matter
NOTE_WEIGHT_SECONDS = 0.3  # a note's attack and release cost about this much sounding time

# Event kinds in the order they apply at the same instant.
_PROGRAM, _CONTROL, _BEND, _OFF, _ON = range(5)

Audio = npt.NDArray[np.float32]
Event = tuple[float, int, int, int, int]  # seconds, kind, channel, a, b


def default_workers() -> int:
    """Processes for synthesis: one per group, at most one per CPU this process may run on."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(SYNTH_GROUPS, cpus))


def clock(song: Song) -> Callable[[float], float]:
    """`song.beats_to_seconds` with the tempo map read once: the same arithmetic, so the same
    floats, but a binary search per call instead of a walk over a freshly built map."""
    beats: list[float] = []
    segments = [(0.0, 0.0, song.tempo)]  # (seconds at, beat at, bpm) from each change on
    seconds, at, bpm = 0.0, 0.0, song.tempo
    for change in song.tempo_map():
        seconds += (change.beat - at) * 60.0 / bpm
        at, bpm = change.beat, change.bpm
        beats.append(at)
        segments.append((seconds, at, bpm))

    def to_seconds(beat: float) -> float:
        start, at, bpm = segments[bisect_left(beats, beat)]  # the last change strictly before `beat`
        return start + (beat - at) * 60.0 / bpm

    return to_seconds


Part = tuple[Track, int, frozenset[int]]  # a track, its channel, and the pitches of it one group plays


def _events(song: Song, parts: Iterable[Part]) -> list[Event]:
    """Every event the synthesizer must play for `parts`, sorted: each part's channel state
    (program, controllers, bends) and its notes of the part's pitches."""
    seconds = clock(song)
    events: list[Event] = []
    for track, ch, pitches in parts:
        events.append((0.0, _PROGRAM, ch, track.program, 0))
        for n in track.notes:
            if n.pitch in pitches:
                events.append((seconds(n.start), _ON, ch, n.pitch, n.velocity))
                events.append((seconds(n.end), _OFF, ch, n.pitch, 0))
        events += [(seconds(c.time), _CONTROL, ch, c.control, c.value) for c in track.controls]
        events += [(seconds(b.time), _BEND, ch, b.value + 8192, 0) for b in track.pitch_bends]
        events += [(seconds(p.time), _PROGRAM, ch, p.program, 0) for p in track.program_changes]
    events.sort(key=lambda e: (e[0], e[1]))
    return events


# General MIDI drum keys that choke each other (a SoundFont's exclusive classes: the closed
# hi-hat cuts the open one off): a synthesizer can only do that for keys it plays itself.
_CHOKE_FAMILIES = ((42, 44, 46), (71, 72), (73, 74), (78, 79), (80, 81))
_DRUM_UNIT = {key: family[0] for family in _CHOKE_FAMILIES for key in family}


def pitch_work(song: Song, tracks: Iterable[Track], drums: bool = False) -> dict[int, float]:
    """Estimated synthesis cost of each pitch the tracks play: seconds sounding plus a share per
    note. On the drum channel a choke family counts as one pitch (its lowest key)."""
    seconds = clock(song)
    work: dict[int, float] = {}
    for track in tracks:
        for n in track.notes:
            unit = _DRUM_UNIT.get(n.pitch, n.pitch) if drums else n.pitch
            work[unit] = work.get(unit, 0.0) + seconds(n.end) - seconds(n.start) + NOTE_WEIGHT_SECONDS
    return work


def channel_groups(song: Song, groups: int = SYNTH_GROUPS) -> list[list[Part]]:
    """The song's notes in `groups` groups of about equal work, every channel shared out.

    Instruments differ a lot in cost per note (layered presets, filters), so rather than
    placing whole channels, each channel's pitches are dealt into `groups` shares of about
    equal sounding time (heaviest pitch first onto the lightest share), and the heaviest
    share goes to the group with the least work so far. Each group then plays a part of
    every instrument, with that channel's program, controllers, pedal and bends: TinySoundFont
    voices do not interact, all notes of one pitch on one channel stay together, so a note-off
    finds its own note, and drum keys that choke each other stay together. Ties break by pitch and group index: the split depends on
    the song only."""
    by_channel: dict[int, list[Track]] = {}
    for track, ch in zip(song.tracks, assign_channels(song), strict=True):
        by_channel.setdefault(ch, []).append(track)
    load = [0.0] * groups
    split: list[list[Part]] = [[] for _ in range(groups)]
    for ch in sorted(by_channel):
        tracks = by_channel[ch]
        drums = ch == DRUM_CHANNEL
        work = pitch_work(song, tracks, drums)
        share = [0.0] * groups
        pitches: list[set[int]] = [set() for _ in range(groups)]
        for pitch in sorted(work, key=lambda p: (-work[p], p)):
            i = min(range(groups), key=lambda j: (share[j], j))
            share[i] += work[pitch]
            family = next((f for f in _CHOKE_FAMILIES if f[0] == pitch), (pitch,)) if drums else (pitch,)
            pitches[i].update(family)
        heaviest_first = sorted(range(groups), key=lambda j: (-share[j], j))
        lightest_first = sorted(range(groups), key=lambda g: (load[g], g))
        for i, g in zip(heaviest_first, lightest_first, strict=True):
            if pitches[i] or (not work and i == heaviest_first[0]):  # a channel without notes plays once
                load[g] += share[i]
                split[g] += [(t, ch, frozenset(pitches[i])) for t in tracks]
    return [g for g in split if g]


_SLICE_FRAMES = 1 << 14  # each synthesizer renders into a scratch slice this long (128 KiB, stays in cache)


def _play(events: list[Event], out: Audio, lock: threading.Lock, sample_rate: int, soundfont: bytes,
          name: str) -> None:
    """Play `events` through a fresh synthesizer and add the audio into `out` (frames × 2 float32).

    The synthesizer fills a small scratch slice; each full slice is added into `out` under `lock`.
    With two groups the order of the two additions onto zero does not change a bit (a + b == b + a)."""
    import tinysoundfont

    synth = tinysoundfont.Synth(samplerate=sample_rate)
    try:
        synth.sfload(soundfont)
    except Exception as exc:  # tinysoundfont raises its own exception type for bad files
        raise RenderError(f"cannot load SoundFont {name}: {exc}", path=name) from exc
    actions = {
        _PROGRAM: lambda ch, a, b: synth.program_change(ch, a, is_drums=ch == DRUM_CHANNEL),
        _CONTROL: synth.control_change,
        _BEND: lambda ch, a, b: synth.pitchbend(ch, a),
        _OFF: lambda ch, a, b: synth.noteoff(ch, a),
        _ON: synth.noteon,
    }
    frames = len(out)
    scratch = np.zeros((_SLICE_FRAMES, 2), dtype=np.float32)
    view = scratch.data.cast("B")  # 8 bytes a frame
    generate = synth.generate_simple
    pos = 0  # frames rendered so far
    start = 0  # first frame of the current slice

    def advance(to: int) -> None:
        nonlocal pos, start
        while pos < to:
            upto = min(to, start + _SLICE_FRAMES)
            generate(upto - pos, buffer=view[(pos - start) * 8 : (upto - start) * 8])
            pos = upto
            if pos == start + _SLICE_FRAMES or pos == frames:
                with lock:
                    out[start:pos] += scratch[: pos - start]
                start = pos

    for t, kind, ch, a, b in events:
        frame = min(int(t * sample_rate), frames)
        if frame > pos:
            advance(frame)
        actions[kind](ch, a, b)
    advance(frames)


CHILD_TIMEOUT_SECONDS = 120.0


class _Child:
    """A forked process rendering one group into an anonymous shared map."""

    def __init__(self, pid: int, shared: mmap.mmap, shape: tuple[int, ...]) -> None:
        self.pid, self.shared, self.shape = pid, shared, shape

    def result(self) -> Audio | None:
        """The child's audio, or None if it failed or hung (then it is killed)."""
        deadline = time.monotonic() + CHILD_TIMEOUT_SECONDS
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
                return None
            time.sleep(0.002)
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        return np.frombuffer(self.shared, dtype=np.float32).reshape(self.shape)


class _NoChild:
    def result(self) -> None:
        return None


def _play_in_child(events: list[Event], shape: tuple[int, ...], sample_rate: int, soundfont: bytes,
                   name: str) -> _Child | _NoChild:
    """Start rendering `events` in a forked child; its audio arrives through shared memory."""
    import tinysoundfont  # noqa: F401  - imported before the fork, never inside the child

    try:
        shared = mmap.mmap(-1, int(np.prod(shape)) * 4)
        pid = os.fork()
    except OSError:
        return _NoChild()
    if pid == 0:  # the child: render, then leave without running any of the parent's cleanup
        code = 1
        try:
            audio = np.frombuffer(shared, dtype=np.float32).reshape(shape)
            _play(events, audio, threading.Lock(), sample_rate, soundfont, name)
            code = 0
        finally:
            os._exit(code)
    return _Child(pid, shared, shape)


def synthesize(song: Song, sample_rate: int = 44100, soundfont: Path | None = None, *,
               workers: int | None = None) -> Audio:
    """Dry stereo audio (frames × 2, float32) of the song plus `TAIL_SECONDS`.

    `workers` processes (default `default_workers()`) render the channel groups;
    the result is the same for any number of workers."""
    path = soundfont or find_soundfont()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RenderError(f"cannot read SoundFont {path}: {exc.strerror}", path=str(path)) from exc
    frames = int((song.duration_seconds + TAIL_SECONDS) * sample_rate)
    out = np.zeros((frames, 2), dtype=np.float32)  # calloc: pages fault in as the slices arrive
    lock = threading.Lock()
    jobs = [_events(song, group) for group in channel_groups(song)] or [[]]
    parallel = min(workers or default_workers(), len(jobs)) > 1 and hasattr(os, "fork")
    if not parallel:
        for events in jobs:
            _play(events, out, lock, sample_rate, data, str(path))
        return out
    first, *rest = jobs
    children = [_play_in_child(events, out.shape, sample_rate, data, str(path)) for events in rest]
    _play(first, out, lock, sample_rate, data, str(path))
    for events, child in zip(rest, children, strict=True):
        audio = child.result()
        if audio is None:  # the child could not render: do it here, same bits
            _play(events, out, lock, sample_rate, data, str(path))
        else:
            out += audio
    return out
