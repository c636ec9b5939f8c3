"""General MIDI synthesis with a SoundFont synthesizer (`engine`: bandstand's own, TinySoundFont's
algorithm), one buffer per track, on two processes.

Every track is rendered into its own buffer (the mixer needs each part on its
own: its inserts, fader, pan and sends). The work is a list of items, heaviest
first: each track is one item, except that a track heavier than all the others
together is dealt by pitch into two halves (a note's pitch stays on one
synthesizer, so a note-off finds its note, and drum keys that choke each other
stay together); its second half plays into a spare row that is added at the
end. The synthesizer's control work holds the interpreter lock (so does the TinySoundFont
binding while it renders: two threads took twice the wall time of one), so a forked child process and this
one take items from a shared queue (a pipe of item numbers) whenever they are
free, each into its own row of one anonymous shared map, so both stay busy
whatever each instrument costs. Each item is played by a synthesizer reset to
its power-on state, which renders the audio between consecutive events into a
small scratch slice and adds each slice that is not silence into the row; after
the last event it stops at the first silent slice. Each process notes the
stretch of the row its slices filled and, given a `finish` (the mixer's), runs
the track's chain and fader over it right away — so the mix of a track is made
by whichever process played it, while the other is still playing (the split
track is finished here once both halves are in). If the child cannot run or
fails, this process plays (and finishes) what it left unfinished. An item
sounds the same whoever plays it, so the audio is bit-identical run to run, in
one process or two.

A render can be cancelled (`bandstand.render.cancel`): each process asks
between slices, and this one kills the child as soon as it stops. The child
blocks SIGINT (a terminal's Ctrl-C reaches the whole process group: this
process decides) and dies with the thread that forked it (Linux), so it never
outlives a cancelled render. `$BANDSTAND_TEST_SLOW_SYNTH` (a file path; for
tests) makes every slice wait 50 ms and writes the file when synthesis starts,
so a test can interrupt a render that is surely still running."""

from __future__ import annotations

import atexit
import contextlib
import functools
import mmap
import os
import signal
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bandstand.errors import ConfigError, RenderError
from bandstand.render.cancel import Check, never
from bandstand.render.scratch import Scratch
from bandstand.render.soundfont import find_soundfont
from bandstand.score import DRUM_CHANNEL, Song, Track, assign_channels

TAIL_SECONDS = 2.0  # release and reverb after the last note
SYNTH_GROUPS = 2  # fixed, so the split is the same on every machine; two, so the order the groups add in cannot matter
NOTE_WEIGHT_SECONDS = 0.3  # a note's attack and release cost about this much sounding time

# Event kinds in the order they apply at the same instant.
_PROGRAM, _CONTROL, _BEND, _OFF, _ON = range(5)

Audio = npt.NDArray[np.float32]
Event = tuple[float, int, int, int, int]  # seconds, kind, channel, a, b
Span = tuple[int, int]  # frames [first, end) of a row that may not be silence
Finish = Callable[[int, Audio, int, int], Span]  # (track index, its row, first, end) → the span it now fills


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


Part = tuple[int, Track, int, frozenset[int]]  # track index, the track, its channel, the pitches one group plays


def _events(song: Song, part: Part, seconds: Callable[[float], float] | None = None) -> list[Event]:
    """Every event the synthesizer must play for one part, sorted: the track's channel state
    (program, controllers, bends) and its notes of the part's pitches."""
    seconds = seconds or clock(song)
    _, track, ch, pitches = part
    events: list[Event] = [(0.0, _PROGRAM, ch, track.program, 0)]
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


def synth_items(song: Song, include: Sequence[bool] | None = None) -> list[tuple[int, Part, float]]:
    """What the synthesizers play, heaviest first: (buffer row, part, estimated work). Every track
    is one item into its own row, except that a track heavier than all the others together is
    dealt by pitch into two halves of equal work (its pitches stay together, so a note-off finds
    its note, and drum keys that choke each other stay on one synthesizer); the second half plays
    into the spare row after the last track (added to the track at the end). `include` leaves
    tracks out (muted ones). The result depends on the song only."""
    channels = assign_channels(song)
    items: list[tuple[int, Part, float]] = []
    works: list[tuple[int, dict[int, float]]] = []
    for index, track in enumerate(song.tracks):
        if include is None or include[index]:
            works.append((index, pitch_work(song, [track], channels[index] == DRUM_CHANNEL)))
    total = sum(sum(w.values()) for _, w in works)
    heaviest = max(works, key=lambda w: (sum(w[1].values()), -w[0]), default=None)
    for index, work in works:
        track, ch = song.tracks[index], channels[index]
        drums = ch == DRUM_CHANNEL

        def keys(units: Iterable[int], drums: bool = drums) -> frozenset[int]:
            out: set[int] = set()
            for unit in units:
                out.update(next((f for f in _CHOKE_FAMILIES if f[0] == unit), (unit,)) if drums else (unit,))
            return frozenset(out)

        own = sum(work.values())
        if heaviest is not None and index == heaviest[0] and own > total - own and len(work) > 1:
            halves: list[list[int]] = [[], []]
            loads = [0.0, 0.0]
            for pitch in sorted(work, key=lambda p: (-work[p], p)):
                side = 0 if loads[0] <= loads[1] else 1
                halves[side].append(pitch)
                loads[side] += work[pitch]
            items.append((index, (index, track, ch, keys(halves[0])), loads[0]))
            items.append((len(song.tracks), (index, track, ch, keys(halves[1])), loads[1]))
        else:
            items.append((index, (index, track, ch, keys(work) if work else frozenset()), own))
    items.sort(key=lambda item: (-item[2], item[0]))
    return items


_SLICE_FRAMES = 1 << 14  # each synthesizer renders into a scratch slice this long (128 KiB, stays in cache)

Job = tuple[list[Event], int, bool]  # a part's events, the row they play into, whether to finish the track after


def _reset(synth: Any) -> None:
    """Silence every voice and put every channel back to its power-on state (controllers,
    pedal, bend): the next part plays as on a fresh synthesizer."""
    synth.sounds_off()
    for ch in range(16):
        synth.control_change(ch, 121, 0)  # reset all controllers
        synth.control_change(ch, 64, 0)
        synth.pitchbend(ch, 8192)


ENGINE_ENV = "BANDSTAND_SYNTH"
ENGINES = ("auto", "compiled", "numpy", "tinysoundfont")


def engine_name() -> str:
    """The synthesizer `$BANDSTAND_SYNTH` names, `auto` resolved: `compiled`
    (`bandstand.render.sf2` with its numba kernel), `numpy` (the same synthesizer, its numpy
    kernel) or `tinysoundfont` (the binding, the reference bandstand's synthesizer ports;
    optional). `auto` (the default) is compiled when numba imports, else numpy — never the
    binding. A wrong or unusable value is a `ConfigError` (one line)."""
    name = os.environ.get(ENGINE_ENV, "auto") or "auto"
    if name not in ENGINES:
        raise ConfigError(f"${ENGINE_ENV} is {name!r}; use one of {', '.join(ENGINES)}")
    if name == "tinysoundfont":
        try:
            import tinysoundfont  # noqa: F401
        except ImportError:
            raise ConfigError(f"${ENGINE_ENV} is tinysoundfont but it is not installed "
                              f"(pip install --no-deps tinysoundfont, or unset ${ENGINE_ENV})") from None
        return name
    if name == "numpy":
        return name
    from bandstand.render.sf2 import kernel

    if name == "compiled" and not kernel.available():
        raise ConfigError(f"${ENGINE_ENV} is compiled but numba is not installed or does not compile "
                          f"(pip install numba; NUMBA_DISABLE_JIT unset; or unset ${ENGINE_ENV})")
    return "compiled" if kernel.available() else "numpy"


def engine() -> Callable[..., Any]:
    """What makes the synthesizer `engine_name()` names (called with `samplerate=`). The compiled
    kernel is loaded here (from numba's cache, or compiled), so a process that forks after
    asking has it ready."""
    name = engine_name()
    if name == "tinysoundfont":
        import tinysoundfont

        synth: Callable[..., Any] = tinysoundfont.Synth
        return synth
    from bandstand.render import sf2
    from bandstand.render.sf2 import kernel

    if name == "compiled":
        kernel.load()
    return functools.partial(sf2.Synth, kernel=name)


SLOW_ENV = "BANDSTAND_TEST_SLOW_SYNTH"
_SLOW_SECONDS = 0.05


def _slowed(check: Check) -> Check:
    """`check` that first waits `_SLOW_SECONDS` when `$BANDSTAND_TEST_SLOW_SYNTH` is set (tests)."""
    if not os.environ.get(SLOW_ENV):
        return check

    def slow() -> None:
        time.sleep(_SLOW_SECONDS)
        check()

    return slow


def event_calls(synth: Any) -> dict[int, Callable[[int, int, int], None]]:
    """The synthesizer's call for each kind of event (`_events`: program, controller, bend,
    note-off, note-on), each taking (channel, a, b)."""
    return {
        _PROGRAM: lambda ch, a, b: synth.program_change(ch, a, is_drums=ch == DRUM_CHANNEL),
        _CONTROL: synth.control_change,
        _BEND: lambda ch, a, b: synth.pitchbend(ch, a),
        _OFF: lambda ch, a, b: synth.noteoff(ch, a),
        _ON: synth.noteon,
    }


def _play(jobs: Iterable[Job], out: Audio, sample_rate: int, soundfont: bytes, name: str,
          spans: npt.NDArray[np.int64] | None = None, finish: Finish | None = None, check: Check = never) -> None:
    """Play each job's events through one synthesizer (reset between jobs) into its row of `out`
    (rows × 2 × frames, float32: channel-major), which starts as zeros; note in `spans` (rows × 2) the frames the
    row's sound fills, and, for a job marked so, `finish` the track there and note what it returns.

    The synthesizer fills a small scratch slice; each full slice that is not silence is added into
    the row (onto zero: the same bits as a copy). `check` is asked before every slice."""
    synth = engine()(samplerate=sample_rate)
    try:
        synth.sfload(soundfont)
    except Exception as exc:  # tinysoundfont raises its own exception type for bad files
        raise RenderError(f"cannot load SoundFont {name}: {exc}", path=name) from exc
    actions = event_calls(synth)
    frames = out.shape[2]
    scratch = np.zeros((_SLICE_FRAMES, 2), dtype=np.float32)
    view = scratch.data.cast("B")  # 8 bytes a frame
    generate = synth.generate_simple
    for events, index, then_finish in jobs:
        _reset(synth)
        for _ in range(64):  # the voices stopped by the reset fade out quickly: let them finish unheard
            generate(1024, buffer=view[: 1024 * 8])
            if not scratch[:1024].any():
                break
        target = out[index]
        pos = 0  # frames rendered so far
        start = 0  # first frame of the current slice
        silent = False  # whether the last slice added was silence
        sound = [frames, 0]  # the first and the end frame of the slices added

        def advance(to: int, target: Audio = target, sound: list[int] = sound) -> None:
            nonlocal pos, start, silent
            while pos < to:
                check()
                upto = min(to, start + _SLICE_FRAMES)
                generate(upto - pos, buffer=view[(pos - start) * 8 : (upto - start) * 8])
                pos = upto
                if pos == start + _SLICE_FRAMES or pos == frames:
                    filled = scratch[: pos - start]
                    silent = not filled.any()
                    if not silent:  # silence adds nothing (and leaves the pages untouched)
                        target[:, start:pos] += filled.T
                        sound[0], sound[1] = min(sound[0], start), pos
                    start = pos

        for t, kind, ch, a, b in events:
            frame = min(int(t * sample_rate), frames)
            if frame > pos:
                advance(frame)
            actions[kind](ch, a, b)
        # after the last event only releases ring: a whole silent slice means every voice has ended
        while pos < frames:
            advance(min(frames, start + _SLICE_FRAMES))
            if silent:
                break
        first, end = (sound[0], sound[1]) if sound[0] < sound[1] else (0, 0)
        if then_finish and finish is not None:
            first, end = finish(index, target, first, end)
        if spans is not None:
            spans[index] = (first, end)


CHILD_TIMEOUT_SECONDS = 120.0


_LIVE: set[int] = set()  # synthesis children not yet reaped, killed if Python ends before they are


def _kill_live() -> None:
    """At exit: a render thread that had no time to stop (the main thread ended first) leaves its
    child here; kill and reap it, so no synthesis outlives the process."""
    for pid in list(_LIVE):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        _LIVE.discard(pid)


class _Child:
    """A forked process rendering one group into the shared map."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.reaped = False
        if not _LIVE:
            atexit.unregister(_kill_live)
            atexit.register(_kill_live)
        _LIVE.add(pid)

    def finished(self, check: Check = never) -> bool:
        """Whether the child rendered everything (False if it failed or hung; then it is killed).
        `check` is asked while waiting (a cancel raises; the caller then `kill`s the child)."""
        deadline = time.monotonic() + CHILD_TIMEOUT_SECONDS
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.reaped = True
                _LIVE.discard(self.pid)
                return os.waitstatus_to_exitcode(status) == 0
            if time.monotonic() > deadline:
                self.kill()
                return False
            check()
            time.sleep(0.002)

    def kill(self) -> None:
        """End the child now (a cancelled or failed render) and reap it."""
        if not self.reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # reaped at exit meanwhile
                os.waitpid(self.pid, 0)
            self.reaped = True
            _LIVE.discard(self.pid)


class _NoChild:
    def finished(self, check: Check = never) -> bool:
        return False

    def kill(self) -> None:
        pass


def _die_with_parent() -> Callable[[], None]:
    """What the child runs first: ask Linux to kill it when the thread that forked it ends
    (prctl PR_SET_PDEATHSIG), where there is a libc to ask. Loaded before the fork."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None

    def arm() -> None:
        prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG

    return arm


def _fork(jobs: Iterable[Job], out: Audio, sample_rate: int, soundfont: bytes, name: str,
          spans: npt.NDArray[np.int64], finish: Finish | None, step: Check = never) -> _Child | _NoChild:
    """Start rendering `jobs` into `out` and `spans` (which must live in shared memory) in a forked
    child."""
    engine()  # the synthesizer (and its compiled kernel) loaded before the fork, never inside the child

    arm = _die_with_parent()
    parent = os.getpid()
    # Ctrl-C blocked across the fork: the child starts with it blocked (a Ctrl-C landing while
    # Python's own after-fork hooks run in the child would print their traceback), and the
    # parent takes any that came meanwhile once its mask is back
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return _NoChild()
    if pid == 0:  # the child: render, then leave without running any of the parent's cleanup
        code = 1
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the parent decides what Ctrl-C does
            arm()
            if os.getppid() != parent:  # the parent ended before the child was armed
                os._exit(1)
            _play(jobs, out, sample_rate, soundfont, name, spans, finish, _slowed(step))
            code = 0
        finally:
            os._exit(code)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    return _Child(pid)


def frames_for(song: Song, sample_rate: int = 44100, tail: float = TAIL_SECONDS) -> int:
    """Frames of audio for the song plus `tail` seconds."""
    return int((song.duration_seconds + tail) * sample_rate)


def _claimed(fd: int, jobs: list[Job], done: Any) -> Iterator[Job]:
    """The jobs this process claims from the shared queue (a pipe of job numbers), one at a time;
    each is marked done in the shared `done` bytes once it has been played."""
    while True:
        raw = os.read(fd, 2)
        if len(raw) < 2:
            return
        number = int.from_bytes(raw, "little")
        yield jobs[number]
        done[number] = 1


@dataclass(frozen=True, slots=True)
class Dry:
    """Synthesized tracks: their audio (tracks × 2 × frames float32, channel-major: each channel of
    each track one contiguous row) and, per track, the frames [first, end) outside which its row is
    silence — after `finish`, what finishing left."""

    audio: Audio
    spans: list[Span]


def synthesize_dry(song: Song, sample_rate: int = 44100, soundfont: Path | None = None, *,
                   workers: int | None = None, include: Sequence[bool] | None = None,
                   tail: float = TAIL_SECONDS, finish: Finish | None = None, check: Check = never,
                   scratch: Scratch | None = None) -> Dry:
    """Every track's stereo audio, the song plus `tail` seconds, each `finish`ed (when given) by
    the process that played it as soon as it is complete. `check` is asked between slices and
    raises to cancel (the child is then killed). With `scratch`, the rows live in its file (see
    `bandstand.render.scratch`) and the child lets go of its pages as it goes, as `check` should.

    Tracks that `include` leaves out stay silent and cost nothing. `workers` processes (default
    `default_workers()`) share the work: the buffers live in one anonymous shared map, and each
    process takes the next item (heaviest first) from a queue as soon as it is free, so the two
    stay busy whatever each instrument costs. Every item is played by a freshly reset synthesizer
    into its own row, so the audio is the same whoever plays it, for any number of workers."""
    engine()  # a wrong $BANDSTAND_SYNTH is one line before any work
    path = soundfont or find_soundfont()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RenderError(f"cannot read SoundFont {path}: {exc.strerror}", path=str(path)) from exc
    tracks = len(song.tracks)
    frames = frames_for(song, sample_rate, tail)
    shape = (tracks + 1, 2, frames)  # one spare row for the second half of a split track
    try:
        rows = 0 if scratch is not None else int(np.prod(shape)) * 4
        shared: mmap.mmap | None = mmap.mmap(-1, max(1, rows + (tracks + 1) * 16))
        spans = np.frombuffer(shared, dtype=np.int64, count=(tracks + 1) * 2,  # type: ignore[arg-type]
                              offset=rows).reshape(tracks + 1, 2)
        out = (scratch.zeros(shape) if scratch is not None
               else np.frombuffer(shared, dtype=np.float32, count=int(np.prod(shape))).reshape(shape))  # type: ignore[arg-type]
    except OSError:
        shared, out = None, np.zeros(shape, dtype=np.float32)
        spans = np.zeros((tracks + 1, 2), dtype=np.int64)
    seconds = clock(song)
    items = synth_items(song, include)
    split = next((part[0] for row, part, _ in items if row == tracks), None)
    jobs: list[Job] = [(_events(song, part, seconds), row, row != split and row != tracks) for row, part, _ in items]
    parallel = (shared is not None and min(workers or default_workers(), len(jobs)) > 1 and hasattr(os, "fork")
                and len(jobs) < 1 << 16)
    slow = os.environ.get(SLOW_ENV)
    if slow:
        Path(slow).write_text("synthesizing\n")
    check = _slowed(check)
    if not parallel:
        _play(jobs, out, sample_rate, data, str(path), spans, finish, check)
    else:
        done = mmap.mmap(-1, len(jobs))
        read, write = os.pipe()
        os.write(write, b"".join(i.to_bytes(2, "little") for i in range(len(jobs))))  # well under a pipe's buffer
        os.close(write)
        try:
            child = _fork(_claimed(read, jobs, done), out, sample_rate, data, str(path), spans, finish,
                          scratch.tick if scratch is not None else never)
            try:
                _play(_claimed(read, jobs, done), out, sample_rate, data, str(path), spans, finish, check)
                ok = child.finished(check)
            except BaseException:  # cancelled (or failed): the child's work is of no use now
                child.kill()
                raise
            if not ok:  # the child failed: clear what it left unfinished and play it here
                left = [i for i in range(len(jobs)) if not done[i]]
                for i in left:
                    out[jobs[i][1]] = 0.0
                _play([jobs[i] for i in left], out, sample_rate, data, str(path), spans, finish, check)
        finally:
            os.close(read)
    if split is not None:
        (a, b), (c, d) = spans[split], spans[tracks]
        for lo in range(c, d, _SLICE_FRAMES):  # a slice at a time, so the scratch can let go as it goes
            check()
            hi = min(d, lo + _SLICE_FRAMES)
            out[split][:, lo:hi] += out[tracks][:, lo:hi]
        first, end = (min(a, c), max(b, d)) if a < b and c < d else ((a, b) if a < b else (c, d))
        spans[split] = finish(split, out[split], first, end) if finish is not None else (first, end)
    return Dry(out[:tracks], [(int(a), int(b)) for a, b in spans[:tracks]])


def synthesize_tracks(song: Song, sample_rate: int = 44100, soundfont: Path | None = None, *,
                      workers: int | None = None, include: Sequence[bool] | None = None,
                      tail: float = TAIL_SECONDS) -> Audio:
    """Dry stereo audio of every track: tracks × frames × 2 float32 (a view of `synthesize_dry`'s
    channel-major rows), the song plus `tail` seconds."""
    dry = synthesize_dry(song, sample_rate, soundfont, workers=workers, include=include, tail=tail).audio
    out: Audio = dry.transpose(0, 2, 1)
    return out


def synthesize(song: Song, sample_rate: int = 44100, soundfont: Path | None = None, *,
               workers: int | None = None) -> Audio:
    """Dry stereo audio (frames × 2, float32) of the whole song plus `TAIL_SECONDS`: the tracks summed."""
    tracks = synthesize_tracks(song, sample_rate, soundfont, workers=workers)
    if len(tracks) == 0:
        return np.zeros((frames_for(song, sample_rate), 2), dtype=np.float32)
    summed: Audio = tracks.sum(axis=0, dtype=np.float32)
    return summed
