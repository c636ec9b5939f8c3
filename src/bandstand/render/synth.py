"""General MIDI synthesis with a SoundFont synthesizer (`engine_name`: bandstand's own,
TinySoundFont's algorithm), one buffer per track, on two threads.

Every track is rendered into its own buffer (the mixer needs each part on its own: its
inserts, fader, pan and sends). The work is a list of items, heaviest first (by an estimate
of the voices each note sounds and for how long, from the SoundFont's own regions): each
track is one item, except that a track heavier than all the others together is dealt by pitch
into two halves (a note's pitch stays on one synthesizer, so a note-off finds its note, and
drum keys that choke each other stay together); its second half plays into a spare row that
is added at the end. Two threads take items as soon as they are free, each into its own row,
so both stay busy whatever each instrument costs. The compiled engine
(`bandstand.render.sf2.engine`) plays a whole track per call without the interpreter lock, so
the two threads run at once; there are no child processes (a fork from a process with other
threads — a server's — could deadlock on a lock another thread held). Each item is played from
the synthesizer's power-on state, request by request as TinySoundFont is asked (up to each
event, and at every slice of 16,384 frames), and after the last event it stops at the first
silent slice. The stretch of the row its slices filled is noted and, given a `finish` (the
mixer's), the track's chain and fader run over it right away on the same thread — so the mix
of a track is made while the other thread is still playing (the split track is finished here
once both halves are in). An item sounds the same whoever plays it, so the audio is
bit-identical run to run, on one thread or two.

A render can be cancelled (`bandstand.render.cancel`): each thread asks between slices (a
few milliseconds of work); a failure on one thread stops the other at its next slice.
`$BANDSTAND_TEST_SLOW_SYNTH` (a file path; for tests) makes every slice wait 50 ms and writes
the file when synthesis starts, so a test can interrupt a render that is surely still
running."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bandstand.errors import ConfigError, RenderError, UserError
from bandstand.render.cancel import Check, never
from bandstand.render.scratch import Ready, Scratch
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
    """Threads for synthesis: one per group, at most one per CPU this process may run on."""
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


VOICE_START_SECONDS = 0.01  # starting a voice costs about this much sounding time


def pitch_work(song: Song, tracks: Iterable[Track], drums: bool = False, table: Any = None) -> dict[int, float]:
    """Estimated synthesis cost of each pitch the tracks play, in voice-seconds. With the
    SoundFont's `table`, each note costs what its voices sound: for each region it plays, the
    time held plus the release, or until a sample that does not loop runs out (a piano note
    layered on two samples costs twice a flute's); without, its sounding time plus a share per
    note. On the drum channel a choke family counts as one pitch (its lowest key)."""
    from bandstand.render.sf2.table import key_voices, preset_for, velocity_voices

    seconds = clock(song)
    work: dict[int, float] = {}
    for track in tracks:
        preset = preset_for(table, track.program, drums) if table is not None else -1
        keys: dict[int, tuple[tuple[float, float, float, float], ...]] = {}
        profiles: dict[tuple[int, int], tuple[tuple[float, float], ...]] = {}
        for n in track.notes:
            unit = _DRUM_UNIT.get(n.pitch, n.pitch) if drums else n.pitch
            held = seconds(n.end) - seconds(n.start)
            if table is None:
                cost = held + NOTE_WEIGHT_SECONDS
            else:
                voices = profiles.get((n.pitch, n.velocity))
                if voices is None:
                    if n.pitch not in keys:  # the key's regions worked out once, for all its velocities
                        keys[n.pitch] = key_voices(table, preset, n.pitch)
                    voices = profiles[(n.pitch, n.velocity)] = velocity_voices(keys[n.pitch], n.velocity)
                cost = sum(min(held + release, length) + VOICE_START_SECONDS for release, length in voices)
            work[unit] = work.get(unit, 0.0) + cost
    return work


def synth_items(song: Song, include: Sequence[bool] | None = None, table: Any = None) -> list[tuple[int, Part, float]]:
    """What the synthesizers play, heaviest first: (buffer row, part, estimated work; `table`:
    the SoundFont's, see `pitch_work`). Every track is one item into its own row, except that a
    track heavier than all the others together is dealt by pitch into two halves of equal work
    (its pitches stay together, so a note-off finds its note, and drum keys that choke each
    other stay on one synthesizer); the second half plays into the spare row after the last
    track (added to the track at the end). `include` leaves tracks out (muted ones). The result
    depends on the song and the SoundFont only."""
    channels = assign_channels(song)
    items: list[tuple[int, Part, float]] = []
    works: list[tuple[int, dict[int, float]]] = []
    for index, track in enumerate(song.tracks):
        if include is None or include[index]:
            works.append((index, pitch_work(song, [track], channels[index] == DRUM_CHANNEL, table)))
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
    """The synthesizer `$BANDSTAND_SYNTH` names, `auto` resolved: `compiled` (bandstand's
    SoundFont engine compiled by numba, `bandstand.render.sf2.engine`: a whole track per call,
    two tracks at once on two threads), `numpy` (the same synthesizer's per-event numpy port,
    `bandstand.render.sf2.Synth`: the fallback where numba cannot run) or `tinysoundfont` (the
    binding, the reference both port; optional). `auto` (the default) is compiled when numba
    can compile here, else numpy — never the binding. A wrong or unusable value is a
    `ConfigError` (one line)."""
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
    from bandstand.render.sf2 import engine as compiled

    if name == "compiled" and not compiled.available():
        raise ConfigError(f"${ENGINE_ENV} is compiled but numba is not installed or does not compile "
                          f"(pip install numba; NUMBA_DISABLE_JIT unset; or unset ${ENGINE_ENV})")
    return "compiled" if compiled.available() else "numpy"


def engine() -> Callable[..., Any]:
    """What makes a per-event synthesizer of `engine_name()`'s kind (called with `samplerate=`):
    the binding's `tinysoundfont.Synth`, or `sf2.Synth` (numpy) — for `compiled` too, whose
    per-event interface is the numpy port (the render plays the compiled engine a track at a time
    instead: `synthesize_dry`)."""
    if engine_name() == "tinysoundfont":
        import tinysoundfont

        synth: Callable[..., Any] = tinysoundfont.Synth
        return synth
    from bandstand.render import sf2

    return functools.partial(sf2.Synth, pedal=True)


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


def frames_for(song: Song, sample_rate: int = 44100, tail: float = TAIL_SECONDS) -> int:
    """Frames of audio for the song plus `tail` seconds."""
    return int((song.duration_seconds + tail) * sample_rate)


@dataclass(frozen=True, slots=True)
class Dry:
    """Synthesized tracks: their audio (tracks × 2 × frames float32, channel-major: each channel of
    each track one contiguous row) and, per track, the frames [first, end) outside which its row is
    silence — after `finish`, what finishing left."""

    audio: Audio
    spans: list[Span]


def _jobs(song: Song, include: Sequence[bool] | None, table: Any) -> tuple[list[Job], int | None]:
    """What the synthesizers play, heaviest first, and the track split in two (if one is)."""
    seconds = clock(song)
    items = synth_items(song, include, table)
    tracks = len(song.tracks)
    split = next((part[0] for row, part, _ in items if row == tracks), None)
    jobs: list[Job] = [(_events(song, part, seconds), row, row != split and row != tracks) for row, part, _ in items]
    return jobs, split


class _Stopped(Exception):
    """Another synthesis thread failed or was cancelled: this one stops too."""


def _workers(jobs: list[Job], threads: int, play: Callable[[Iterator[Job], Check], None], check: Check) -> None:
    """Play `jobs` on `threads` threads (this one among them), each taking the next job as soon as
    it is free. The first failure (or cancel) stops the others at their next check, and is raised
    here once all have stopped."""
    lock = threading.Lock()
    pending = iter(jobs)
    stop = threading.Event()
    errors: list[BaseException] = []

    def claimed() -> Iterator[Job]:
        while True:
            with lock:
                job = next(pending, None)
            if job is None:
                return
            yield job

    def guarded() -> None:
        if stop.is_set():
            raise _Stopped
        check()

    def work() -> None:
        try:
            play(claimed(), guarded)
        except _Stopped:
            pass
        except BaseException as exc:  # handed to the caller's thread below
            errors.append(exc)
            stop.set()

    helpers = [threading.Thread(target=work, name=f"bandstand-synth-{i}", daemon=True) for i in range(threads - 1)]
    for thread in helpers:
        thread.start()
    try:
        work()
    finally:
        if errors or sys.exc_info()[0] is not None:
            stop.set()
        for thread in helpers:
            thread.join()
    if errors:
        raise errors[0]


def synthesize_dry(song: Song, sample_rate: int = 44100, soundfont: Path | None = None, *,
                   workers: int | None = None, include: Sequence[bool] | None = None,
                   tail: float = TAIL_SECONDS, finish: Finish | None = None, check: Check = never,
                   scratch: Scratch | None = None) -> Dry:
    """Every track's stereo audio, the song plus `tail` seconds, each `finish`ed (when given) by
    the thread that played it as soon as it is complete. `check` is asked between slices and
    raises to cancel. With `scratch`, the rows live there (its anonymous memory or its file:
    see `bandstand.render.scratch`).

    Tracks that `include` leaves out stay silent and cost nothing. `workers` threads (default
    `default_workers()`) share the work, each taking the next item (heaviest first) as soon as
    it is free; the compiled engine plays without the interpreter lock, so two threads play two
    tracks at once. Every item is played from the synthesizer's power-on state into its own row,
    so the audio is the same whoever plays it, for any number of workers."""
    name = engine_name()  # a wrong $BANDSTAND_SYNTH is one line before any work
    path = soundfont or find_soundfont()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RenderError(f"cannot read SoundFont {path}: {exc.strerror}", path=str(path)) from exc
    table = _table(name, data, str(path))
    tracks = len(song.tracks)
    frames = frames_for(song, sample_rate, tail)
    shape = (tracks + 1, 2, frames)  # one spare row for the second half of a split track
    out = scratch.zeros(shape) if scratch is not None else np.zeros(shape, dtype=np.float32)
    spans = np.zeros((tracks + 1, 2), dtype=np.int64)
    synthesize_into(song, out, spans, name=name, data=data, where=str(path), table=table, include=include,
                    sample_rate=sample_rate, workers=workers, finish=finish, check=check,
                    ready=scratch.ready if scratch is not None else None)
    return Dry(out[:tracks], [(int(a), int(b)) for a, b in spans[:tracks]])


def synthesize_into(song: Song, out: Audio, spans: npt.NDArray[np.int64], *, name: str, data: bytes, where: str,
                    table: Any, include: Sequence[bool] | None = None, play: Sequence[bool] | None = None,
                    sample_rate: int = 44100, workers: int | None = None, finish: Finish | None = None,
                    check: Check = never, ready: Ready | None = None) -> None:
    """`synthesize_dry`'s work into the caller's rows: `out` (tracks + 1 × 2 × frames, zeros where
    tracks play; the last row is the spare a split track's second half plays into) and `spans`
    (tracks + 1 × 2), with the engine `name` made ready by `_table` (`table`: the SoundFont's).
    The plan is made from every track `include` names, as a full render makes it; with `play`,
    only the items of the tracks it names are played (a render that takes the others from
    elsewhere, `bandstand.render.trackcache`), and other rows are left as they are. The compiled
    engine hands `ready` each stretch of a row before it writes it (`TrackPlayer.play`)."""
    tracks = len(song.tracks)
    jobs, split = _jobs(song, include, table)
    if play is not None:
        jobs = [job for job in jobs if play[split if job[1] == tracks and split is not None else job[1]]]
        if not jobs:
            return
    slow = os.environ.get(SLOW_ENV)
    if slow:
        Path(slow).write_text("synthesizing\n")
    check = _slowed(check)

    def run(claimed: Iterator[Job], guarded: Check) -> None:
        if name == "compiled":
            _play_compiled(claimed, out, sample_rate, table, spans, finish, guarded, ready)
        else:
            _play(claimed, out, sample_rate, data, where, spans, finish, guarded)

    threads = max(1, min(workers or default_workers(), len(jobs)))
    _workers(jobs, threads, run, check)
    if split is not None and (play is None or play[split]):
        (a, b), (c, d) = spans[split], spans[tracks]
        for lo in range(c, d, _SLICE_FRAMES):  # a slice at a time, so the scratch can let go as it goes
            check()
            hi = min(d, lo + _SLICE_FRAMES)
            out[split][:, lo:hi] += out[tracks][:, lo:hi]
        first, end = (min(a, c), max(b, d)) if a < b and c < d else ((a, b) if a < b else (c, d))
        spans[split] = finish(split, out[split], first, end) if finish is not None else (first, end)


_READY = threading.Lock()  # one thread makes the engine and a table ready; the others wait for it


def warm(soundfont: Path | None = None) -> threading.Thread | None:
    """Start making the synthesizer ready for a render that will come (the compiled engine loaded
    from numba's cache, the SoundFont read and its table built) on a daemon thread, so that work
    overlaps what runs before the render — a compose's parts. Much of it (numba's code loading,
    reading files) runs without the interpreter lock. The render waits for this thread rather
    than doing the work twice. Whatever goes wrong here is left for the render to report; with a
    wrong `$BANDSTAND_SYNTH` or no SoundFont found, nothing is started. Returns the thread."""
    try:
        if (os.environ.get(ENGINE_ENV, "auto") or "auto") not in ENGINES:
            return None
        path = soundfont or find_soundfont()
    except UserError:
        return None

    def ready() -> None:  # numba's import (0.3 s of CPU idle, more under load) is here too, off the caller's thread
        with _READY, contextlib.suppress(OSError, RenderError, ImportError, UserError):  # the render meets it again
            _ready_table(engine_name(), path.read_bytes(), str(path))

    thread = threading.Thread(target=ready, name="bandstand-render-warm", daemon=True)
    thread.start()
    return thread


def wait_warm(progress: Callable[[str], None]) -> None:
    """Wait until a `warm` in progress is done, telling `progress` every half second that the
    synthesizer is loading: a caller whose stall limit counts what it is told (a compose node)
    does not look stuck while another thread loads the engine on a starved CPU."""
    while not _READY.acquire(timeout=0.5):
        progress("loading the synthesizer")
    _READY.release()


def _table(name: str, data: bytes, where: str) -> Any:
    """The SoundFont's table (`bandstand.render.sf2.table`: what the compiled engine plays, and
    what every engine's work is estimated from), with the engine `name` made ready before the
    threads start: the compiled engine loaded, or the numpy port's parse done once. One thread
    at a time (`warm` may be doing it already: then this waits and finds it done)."""
    with _READY:
        return _ready_table(name, data, where)


def _ready_table(name: str, data: bytes, where: str) -> Any:
    from bandstand.render.sf2 import SoundFontError
    from bandstand.render.sf2.table import font_table

    try:
        if name == "compiled":
            from bandstand.render.sf2 import engine as compiled

            compiled.load()
            from bandstand.render.iir import jit

            jit()  # the chains', meters' and writers' kernels: numba is loaded now, its cache read here too
        elif name == "numpy":
            from bandstand.render.sf2.synth import preload

            preload(data)
        return font_table(data)
    except SoundFontError as exc:
        raise RenderError(f"cannot load SoundFont {where}: {exc}", path=where) from exc


def _play_compiled(jobs: Iterable[Job], out: Audio, sample_rate: int, table: Any, spans: npt.NDArray[np.int64],
                   finish: Finish | None, check: Check, ready: Ready | None = None) -> None:
    """`_play` by the compiled engine: each job's events a whole track per call."""
    from bandstand.render.sf2.track import TrackPlayer

    player = TrackPlayer(table, sample_rate, pedal=True)
    for events, index, then_finish in jobs:
        first, end = player.play(events, out[index], check, ready)
        if then_finish and finish is not None:
            first, end = finish(index, out[index], first, end)
        spans[index] = (first, end)


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
