"""Song or MIDI file → WAV: every track synthesized on its own
(`bandstand.render.synth`), mixed as the song's mix says (inserts, fader, pan,
automation, mute/solo, sends and buses: `bandstand.render.mixer`), mastered to
a loudness target under a true-peak ceiling (`bandstand.render.master`), the
tail trimmed; 44.1 kHz, 16-bit stereo. Stems — each heard track after its
fader, and each bus's return — can be written beside it.

Stems are not mastered: they share one gain (the master's static gain, lowered
if needed so no stem peaks above −1 dBFS), without the limiter, so laid side by
side in a DAW at 0 dB they sum to the master before its limiter."""

from __future__ import annotations

import os
import threading
import wave
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bandstand.files import atomic_open
from bandstand.render.cancel import Check, checker, never
from bandstand.render.dsp import Audio
from bandstand.render.iir import jit
from bandstand.render.master import Master, Mastered, MasterPlan, plan_master
from bandstand.render.meter import Meter
from bandstand.render.mixer import DEFAULT_REVERB, MixPlan
from bandstand.render.partial import Font, synthesize_some
from bandstand.render.reverb import decay_seconds
from bandstand.render.scratch import Scratch, place
from bandstand.render.synth import TAIL_SECONDS, Finish, frames_for, synthesize_dry, wait_warm
from bandstand.render.trackcache import TrackCache, track_keys
from bandstand.score import Song, audible, file_slug, part_names

__all__ = ["STEM_PEAK", "TAIL_SECONDS", "Rendered", "render_song", "render_wav", "stem_names", "write_wav"]

Progress = Callable[[str], None]  # told what a render does now, in a few words
STEM_PEAK = 0.89  # -1 dBFS
MAX_TAIL_SECONDS = 6.0


@dataclass(slots=True)
class Rendered:
    """A rendered song: the master and how it was made, and the stems by file stem name."""

    audio: Audio
    mastered: Mastered
    stems: dict[str, Audio] = field(default_factory=dict)
    stem_gain: float = 1.0
    check: Check = never  # what writing it calls every block: the cancel, and the scratch's step
    reused: tuple[int, ...] = ()  # the tracks (by index) a cache gave, not played again
    played: tuple[int, ...] = ()  # the heard tracks played (all of them without a cache)


def _slug(name: str) -> str:
    return file_slug(name) or "part"


def stem_names(song: Song) -> dict[int, str]:
    """The stem file name (without .wav) of each heard track, by track index: its part name
    (`score.part_names`, the name of its MIDI file too; buses are `bus-<name>`)."""
    heard = audible([t.mix for t in song.tracks])
    return {index: name for index, name in enumerate(part_names(song.tracks)) if heard[index]}


def tail_seconds(song: Song) -> float:
    """How long to let the song ring after its last note: the synthesizer's release, or the
    longest reverb the mix has, whichever is longer."""
    rooms = [fx.num("room_size") for t in song.tracks for fx in t.mix.inserts if fx.type == "reverb"]
    rooms += [fx.num("room_size") for b in song.buses for fx in b.inserts if fx.type == "reverb"]
    if any(s.bus == DEFAULT_REVERB.name for t in song.tracks for s in t.mix.sends):
        rooms.append(DEFAULT_REVERB.inserts[0].num("room_size"))
    return min(MAX_TAIL_SECONDS, max([TAIL_SECONDS, *(decay_seconds(r) + 0.5 for r in rooms)]))


def render_song(song: Song, sample_rate: int = 44100, *, soundfont: Path | None = None, workers: int | None = None,
                settings: Master | None = None, stems: bool = False,
                cancelled: Callable[[], bool] | None = None, scratch: bool | None = None,
                cache: TrackCache | None = None, progress: Progress | None = None) -> Rendered:
    """Synthesize, mix and master the song; with `stems`, keep each track's and bus's audio too.
    Each track is mixed (inserts, fader) by the synthesis process that played it, as soon as it
    has played it. `cancelled` is asked between small steps: once it says yes the render stops
    with `RenderCancelled` (see `bandstand.render.cancel`). The full-length buffers live in
    memory, or in a scratch file when they would take more than the machine's room for them
    (`bandstand.render.scratch.place`), or as `scratch` says (True: the file, False: numpy's
    memory); the audio is the same either way.

    With a `cache` (`bandstand.render.trackcache`), each heard track's finished audio is taken
    from it when it holds the track's key, and only the others are played (as the full render
    plays them) and kept there; the master and stems are the same bytes as without it.

    `progress`, when given, is told what the render does now in a few words ("played 3 of 6
    parts (Bass)", "mixing", "mastering"), from whichever thread does it."""
    mixed = _mixed(song, sample_rate, soundfont, workers, settings, stems, cancelled, scratch, cache, progress)
    done = mixed.plan.mastered(mixed.audio, in_place=True, check=mixed.check)
    return Rendered(done.audio, done, mixed.stems, mixed.stem_gain, mixed.check, mixed.reused, mixed.played)


@dataclass(slots=True)
class _Mixed:
    """A render up to its master: the unmastered mix (frames × 2), the master's plan for it, the
    stems (by file stem name, as long as the master) and their gain, and how it was made."""

    audio: Audio
    plan: MasterPlan
    stems: dict[str, Audio]
    stem_gain: float
    check: Check
    reused: tuple[int, ...]
    played: tuple[int, ...]
    scratch: Scratch | None = None  # where the buffers live (in memory or a file), when not numpy's memory


def _mixed(song: Song, sample_rate: int, soundfont: Path | None, workers: int | None, settings: Master | None,
           stems: bool, cancelled: Callable[[], bool] | None, scratch: bool | None, cache: TrackCache | None,
           progress: Progress | None) -> _Mixed:
    """`render_song`'s work up to the master: synthesis, the mix, and the master measured and
    settled (`plan_master`) but not applied, so that a writer can master the mix a block at a
    time as it writes it (`render_wav`)."""
    heard = audible([t.mix for t in song.tracks])
    tail = tail_seconds(song)
    frames = frames_for(song, sample_rate, tail)
    buffers = (len(song.tracks) + 3 + len(song.buses)) * 2 * frames * 4  # rows, spare, mix, buses
    space = place(buffers, scratch)
    check = checker(cancelled) if space is None else space.checked(checker(cancelled))
    plan = MixPlan(song, sample_rate, frames, check, space)
    finish: Finish = _Telling(plan.finish, song, sum(heard), progress) if progress is not None else plan.finish
    if progress is not None:
        wait_warm(progress)  # a warm-up on another thread: waited for, and said, so no stall limit fires
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bandstand-trackcache") as keeper:
        if cache is None:
            dry = synthesize_dry(song, sample_rate, soundfont, workers=workers, include=heard, tail=tail,
                                 finish=finish, check=check, scratch=space)
            rows, spans = dry.audio, dry.spans
            reused: tuple[int, ...] = ()
            kept: Future[None] | None = None
        else:
            rows, spans, reused, kept = _through_cache(cache, keeper, song, heard, plan, sample_rate, soundfont,
                                                       workers, check, space, finish)
        if progress is not None:
            progress("mixing (sends and buses)")
        mixed = plan.mix(rows, spans, peaks=stems)
        if progress is not None:
            progress("mastering")
        mastering = plan_master(mixed.audio, sample_rate, settings or Master(), check=check)
    if kept is not None:
        kept.result()  # storing swallows what the disk refuses: what comes through here is a bug
    played = tuple(i for i, h in enumerate(heard) if h and i not in reused)
    out = _Mixed(mixed.audio, mastering, {}, 1.0, check, reused, played, space)
    if stems:
        parts = {name: mixed.tracks[i] for i, name in stem_names(song).items()}
        parts.update({f"bus-{_slug(name)}": audio for name, audio in mixed.buses.items()})
        loudest = max(mixed.peaks.values(), default=0.0)
        out.stem_gain = min(mastering.gain, STEM_PEAK / loudest) if loudest > 0 else mastering.gain
        out.stems = {name: audio[: mastering.frames] for name, audio in parts.items()}
    return out


def _through_cache(cache: TrackCache, keeper: ThreadPoolExecutor, song: Song, heard: list[bool], plan: MixPlan,
                   sample_rate: int, soundfont: Path | None, workers: int | None, check: Check,
                   space: Scratch | None, finish: Finish) -> tuple[Audio, list[tuple[int, int]], tuple[int, ...], Future[None]]:
    """Every heard track's finished row: read from `cache` where it holds the track, else played
    and finished (as a full render would) and handed to `keeper` to store while the mix runs.
    Returns the rows (tracks × 2 × frames), their spans, the tracks read and the storing."""
    font = Font.load(soundfont)
    keys = track_keys(song, heard, font, sample_rate=sample_rate, frames=plan.frames)
    shape = (len(song.tracks) + 1, 2, plan.frames)  # one spare row for the second half of a split track
    out = space.zeros(shape) if space is not None else np.zeros(shape, dtype=np.float32)
    spans = np.zeros((len(song.tracks) + 1, 2), dtype=np.int64)
    reused: list[int] = []
    for index, key in keys.items():
        check()
        span = cache.load(key, out[index])
        if span is not None:
            spans[index] = span
            reused.append(index)
    play = [h and i not in reused for i, h in enumerate(heard)]
    if isinstance(finish, _Telling):
        finish.total = sum(play)
        finish.progress(f"{len(reused)} parts unchanged (from the render cache), {finish.total} to play")
    synthesize_some(song, font, out, spans, include=heard, play=play, sample_rate=sample_rate, workers=workers,
                    finish=finish, check=check)
    done = [(i, (int(spans[i][0]), int(spans[i][1]))) for i in range(len(song.tracks))]

    def keep() -> None:
        for index, span in done:
            if play[index]:
                cache.store(keys[index], out[index], span)
        cache.trim(keys.values())

    return out[: len(song.tracks)], [span for _, span in done], tuple(reused), keeper.submit(keep)


class _Telling:
    """A track's finishing (its chain and fader, `MixPlan.finish`) that then tells `progress`
    how many of the `total` parts to play are done, from the synthesis thread that did it."""

    def __init__(self, finish: Finish, song: Song, total: int, progress: Progress) -> None:
        self.finish, self.song, self.total, self.progress = finish, song, total, progress
        self.done = 0
        self.lock = threading.Lock()

    def __call__(self, index: int, row: Audio, first: int, end: int) -> tuple[int, int]:
        span = self.finish(index, row, first, end)
        with self.lock:
            self.done += 1
            done = min(self.done, self.total)
        self.progress(f"played {done} of {self.total} parts ({self.song.tracks[index].name})")
        return span


_WRITE_FRAMES = 1 << 16  # convert to PCM a block at a time: big temporaries are slow to fault in


def write_wav(audio: Audio, path: str | os.PathLike[str], sample_rate: int = 44100, *, gain: float = 1.0,
              check: Check = never, mastering: MasterPlan | None = None, meter: Meter | None = None) -> Path:
    """Write float audio (frames × 2) times `gain` as 16-bit stereo PCM, atomically (clipped at ±1);
    `check` is asked every block (a cancel leaves no file). With `mastering`, `audio` is the
    unmastered mix: each block is mastered as it is written (`MasterPlan.apply`: the same numbers
    as the mastered mix, without a pass over the whole song first) and the file ends where the
    master trims it. A `meter` (`bandstand.render.meter`, as long as the file) is fed every block
    as written: its figures are the file's."""
    block = np.empty((_WRITE_FRAMES, 2), dtype=np.float32)
    pcm = np.empty((_WRITE_FRAMES, 2), dtype="<i2")
    scale = np.float32(gain * 32767.0)
    frames = len(audio) if mastering is None else mastering.frames
    kernels = jit()
    with atomic_open(path, "wb", durable=False) as fh, wave.open(fh, "wb") as wav:  # rendered again, never synced
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.setnframes(frames)  # the header is written once, right
        for first in range(0, frames, _WRITE_FRAMES):
            check()
            n = min(_WRITE_FRAMES, frames - first)
            b, p = block[:n], pcm[:n]
            chunk = audio[first : first + n] if mastering is None else mastering.apply(audio, first, b)
            if kernels is not None and chunk.dtype == np.float32:  # the four steps below in one pass
                kernels.to_pcm16(chunk, scale, b, p)
            else:
                np.multiply(chunk, scale, out=b)
                np.clip(b, -32767.0, 32767.0, out=b)
                np.rint(b, out=b)
                p[:] = b
            if meter is not None:
                meter.feed_pcm(b)
            wav.writeframes(p.data.cast("B"))
    return Path(path)


def write_stems(stems: Rendered | dict[str, Audio], folder: str | os.PathLike[str], sample_rate: int = 44100, *,
                gain: float | None = None, check: Check = never, meters: dict[Path, Meter] | None = None,
                measure: Collection[str] | None = None) -> list[Path]:
    """Write every stem (a render's, or audio by name) as `<name>.wav` in `folder`, times `gain`
    (a render's own stem gain by default), side by side on threads; other .wav files there —
    stems of parts that no longer play — are removed. Returns the paths written. `check` is asked
    every block (a cancel leaves the stems already written). With `meters`, each stem (each one
    `measure` names, when given) is measured as it is written (`bandstand.render.meter`) and its
    meter put there under its path."""
    parts = stems.stems if isinstance(stems, Rendered) else stems
    scale = gain if gain is not None else (stems.stem_gain if isinstance(stems, Rendered) else 1.0)
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    def write(item: tuple[str, Audio]) -> Path:
        path = root / f"{item[0]}.wav"
        wanted = meters is not None and (measure is None or item[0] in measure)
        meter = Meter(sample_rate, len(item[1])) if wanted else None
        write_wav(item[1], path, sample_rate, gain=scale, check=check, meter=meter)
        if meters is not None and meter is not None:
            meters[path] = meter
        return path

    with ThreadPoolExecutor(max_workers=4) as pool:
        paths = list(pool.map(write, parts.items()))
    keep = {p.name for p in paths}
    for stale in root.glob("*.wav"):
        if stale.name not in keep:
            stale.unlink(missing_ok=True)
    return paths


def render_wav(
    song_or_midi_path: Song | str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    sample_rate: int = 44100,
    *,
    soundfont: Path | None = None,
    workers: int | None = None,
    settings: Master | None = None,
    stems_dir: str | os.PathLike[str] | None = None,
    cancelled: Callable[[], bool] | None = None,
    scratch: bool | None = None,
    cache: TrackCache | None = None,
    progress: Progress | None = None,
    meters: dict[Path, Meter] | None = None,
) -> Path:
    """Render a Song (or a .mid file) to a mastered WAV; returns its path. With `stems_dir`, the
    stems are written there too. Once `cancelled()` says yes the render stops with
    `RenderCancelled` and no WAV is written. With a `cache`, tracks it holds are not played again
    (see `render_song`). `progress` is told what it does now (see `render_song`). With `meters`,
    the WAV and each track's stem (not the buses') are measured as they are written
    (`bandstand.render.meter`: the same figures as reading the files back) and their meters put
    there under their paths.

    The file is byte-identical for any number of `workers`, with a cache or without."""
    if isinstance(song_or_midi_path, Song):
        song = song_or_midi_path
    else:
        from bandstand.midi import read_midi

        song = read_midi(song_or_midi_path)
    mixed = _mixed(song, sample_rate, soundfont, workers, settings, stems_dir is not None, cancelled, scratch, cache,
                   progress)
    check = mixed.check
    if progress is not None:
        progress("writing the WAV" + (f" and {len(mixed.stems)} stems" if stems_dir is not None else ""))
    meter = Meter(sample_rate, mixed.plan.frames) if meters is not None else None
    if stems_dir is not None:  # the stems on other threads while this one masters the mix as it writes it
        with ThreadPoolExecutor(max_workers=1) as pool:
            stems = pool.submit(write_stems, mixed.stems, stems_dir, sample_rate, gain=mixed.stem_gain, check=check,
                                meters=meters, measure=set(stem_names(song).values()))
            path = write_wav(mixed.audio, out_path, sample_rate, check=check, mastering=mixed.plan, meter=meter)
            stems.result()
    else:
        path = write_wav(mixed.audio, out_path, sample_rate, check=check, mastering=mixed.plan, meter=meter)
    if mixed.scratch is not None:  # written: the buffers' pages freed on a thread of their own, not here
        mixed.scratch.discard()
    if meters is not None and meter is not None:
        meters[path] = meter
    return path
