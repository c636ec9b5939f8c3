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
import re
import wave
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bandstand.files import atomic_open
from bandstand.render.cancel import Check, checker, never
from bandstand.render.dsp import Audio
from bandstand.render.master import Master, Mastered, master
from bandstand.render.mixer import DEFAULT_REVERB, MixPlan
from bandstand.render.reverb import decay_seconds
from bandstand.render.scratch import SCRATCH_BYTES, Scratch
from bandstand.render.synth import TAIL_SECONDS, frames_for, synthesize_dry
from bandstand.score import Song, audible

__all__ = ["STEM_PEAK", "TAIL_SECONDS", "Rendered", "render_song", "render_wav", "stem_names", "write_wav"]

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


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "part"


def stem_names(song: Song) -> dict[int, str]:
    """The stem file name (without .wav) of each heard track, by track index: the track's name
    as a slug, made unique with -2, -3 … (buses are `bus-<name>`)."""
    names: dict[int, str] = {}
    taken: set[str] = set()
    for index, (track, heard) in enumerate(zip(song.tracks, audible([t.mix for t in song.tracks]), strict=True)):
        if not heard:
            continue
        base = _slug(track.name or track.role)
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        names[index] = name
    return names


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
                cancelled: Callable[[], bool] | None = None, scratch: bool | None = None) -> Rendered:
    """Synthesize, mix and master the song; with `stems`, keep each track's and bus's audio too.
    Each track is mixed (inserts, fader) by the synthesis process that played it, as soon as it
    has played it. `cancelled` is asked between small steps: once it says yes the render stops
    with `RenderCancelled` (see `bandstand.render.cancel`). The full-length buffers live in a
    scratch file (`bandstand.render.scratch`) when they would take more than `SCRATCH_BYTES`, or
    as `scratch` says; the audio is the same either way."""
    heard = audible([t.mix for t in song.tracks])
    tail = tail_seconds(song)
    frames = frames_for(song, sample_rate, tail)
    buffers = (len(song.tracks) + 3 + len(song.buses)) * 2 * frames * 4  # rows, spare, mix, buses
    space = Scratch.find(buffers) if (buffers > SCRATCH_BYTES if scratch is None else scratch) else None
    check = checker(cancelled) if space is None else space.checked(checker(cancelled))
    plan = MixPlan(song, sample_rate, frames, check, space)
    dry = synthesize_dry(song, sample_rate, soundfont, workers=workers, include=heard, tail=tail,
                         finish=plan.finish, check=check, scratch=space)
    mixed = plan.mix(dry.audio, dry.spans, peaks=stems)
    done = master(mixed.audio, sample_rate, settings or Master(), in_place=True, check=check)
    result = Rendered(done.audio, done, check=check)
    if stems:
        parts = {name: mixed.tracks[i] for i, name in stem_names(song).items()}
        parts.update({f"bus-{_slug(name)}": audio for name, audio in mixed.buses.items()})
        loudest = max(mixed.peaks.values(), default=0.0)
        result.stem_gain = min(done.gain, STEM_PEAK / loudest) if loudest > 0 else done.gain
        result.stems = {name: audio[: done.frames] for name, audio in parts.items()}
    return result


_WRITE_FRAMES = 1 << 16  # convert to PCM a block at a time: big temporaries are slow to fault in


def write_wav(audio: Audio, path: str | os.PathLike[str], sample_rate: int = 44100, *, gain: float = 1.0,
              check: Check = never) -> Path:
    """Write float audio (frames × 2) times `gain` as 16-bit stereo PCM, atomically (clipped at ±1);
    `check` is asked every block (a cancel leaves no file)."""
    block = np.empty((_WRITE_FRAMES, 2), dtype=np.float32)
    pcm = np.empty((_WRITE_FRAMES, 2), dtype="<i2")
    scale = np.float32(gain * 32767.0)
    with atomic_open(path, "wb") as fh, wave.open(fh, "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        for first in range(0, len(audio), _WRITE_FRAMES):
            check()
            chunk = audio[first : first + _WRITE_FRAMES]
            b, p = block[: len(chunk)], pcm[: len(chunk)]
            np.multiply(chunk, scale, out=b)
            np.clip(b, -32767.0, 32767.0, out=b)
            np.rint(b, out=b)
            p[:] = b
            wav.writeframes(p.data.cast("B"))
    return Path(path)


def write_stems(rendered: Rendered, folder: str | os.PathLike[str], sample_rate: int = 44100, *,
                check: Check = never) -> list[Path]:
    """Write every stem as `<name>.wav` in `folder` (side by side on threads); other .wav files
    there — stems of parts that no longer play — are removed. Returns the paths written. `check`
    is asked every block (a cancel leaves the stems already written)."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    def write(item: tuple[str, Audio]) -> Path:
        return write_wav(item[1], root / f"{item[0]}.wav", sample_rate, gain=rendered.stem_gain, check=check)

    with ThreadPoolExecutor(max_workers=4) as pool:
        paths = list(pool.map(write, rendered.stems.items()))
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
) -> Path:
    """Render a Song (or a .mid file) to a mastered WAV; returns its path. With `stems_dir`, the
    stems are written there too. Once `cancelled()` says yes the render stops with
    `RenderCancelled` and no WAV is written.

    The file is byte-identical for any number of `workers`."""
    if isinstance(song_or_midi_path, Song):
        song = song_or_midi_path
    else:
        from bandstand.midi import read_midi

        song = read_midi(song_or_midi_path)
    rendered = render_song(song, sample_rate, soundfont=soundfont, workers=workers, settings=settings,
                           stems=stems_dir is not None, cancelled=cancelled, scratch=scratch)
    check = rendered.check
    if stems_dir is not None:
        with ThreadPoolExecutor(max_workers=1) as pool:
            stems = pool.submit(write_stems, rendered, stems_dir, sample_rate, check=check)
            path = write_wav(rendered.audio, out_path, sample_rate, check=check)
            stems.result()
        return path
    return write_wav(rendered.audio, out_path, sample_rate, check=check)
