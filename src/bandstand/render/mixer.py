"""The mixer: each track's dry audio through its insert chain, fader and pan (with
their automation), summed into the mix and sent to the buses, whose returns
join the mix. Mute and solo decide which tracks are heard (`score.audible`).

Order on a track: inserts → volume → pan → (stem) → sends; sends are
post-fader. Automation of `volume` and `pan` replaces the static value from
the lane's first point on; an automated `<effect>.<parameter>` drives the first
insert of that type. Pan on a stereo part is a balance: centre leaves both
sides as they are, turning right fades the left side out (cos law) and the
other way round. A send to a bus the song does not have goes to a plain bus
of that name; a missing "Reverb" bus is the default room.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bandstand.render.dsp import Audio, Context, Floats, block_beats, guard, lane_curve, per_frame
from bandstand.render.effects import process
from bandstand.score import Bus, Effect, Song, Track, audible

__all__ = ["DEFAULT_REVERB", "Mix", "mix_song", "pan_gains"]

DEFAULT_REVERB = Bus("Reverb", (Effect("reverb", {"room_size": 0.45, "damping": 0.5, "wet": 1.0}),))


@dataclass(slots=True)
class Mix:
    """The summed mix and what it was made of: each heard track after its fader (by track index)
    and each bus's return (by name)."""

    audio: Audio
    tracks: dict[int, Audio] = field(default_factory=dict)
    buses: dict[str, Audio] = field(default_factory=dict)


def pan_gains(pan: Floats | float) -> tuple[Floats, Floats]:
    """Left and right gain of the balance control at `pan` (0 left, 0.5 centre, 1 right)."""
    p = np.asarray(pan, dtype=np.float64)
    left = np.cos(np.clip(p - 0.5, 0.0, 0.5) * math.pi)
    right = np.cos(np.clip(0.5 - p, 0.0, 0.5) * math.pi)
    return left, right


def _lanes(track: Track, beats: Floats) -> dict[str, Floats]:
    defaults = {"volume": track.mix.volume, "pan": track.mix.pan}
    curves: dict[str, Floats] = {}
    for lane in track.mix.automation:
        if lane.points:
            etype, _, name = lane.parameter.partition(".")
            default = defaults.get(lane.parameter)
            if default is None:
                first = next((fx for fx in track.mix.inserts if fx.type == etype), None)
                if first is None:
                    continue
                default = first.num(name)
            curves[lane.parameter] = lane_curve(lane, beats, default)
    return curves


def _chain(audio: Audio, inserts: tuple[Effect, ...], curves: dict[str, Floats], song: Song, sample_rate: int,
           on_bus: bool = False) -> Audio:
    seen: set[str] = set()
    for fx in inserts:
        own = {} if fx.type in seen else {k.partition(".")[2]: v for k, v in curves.items()
                                           if k.partition(".")[0] == fx.type}
        seen.add(fx.type)
        audio = process(audio, fx, Context(sample_rate, song.tempo, own, on_bus))
    return audio


_CHUNK = 1 << 16  # frames per step when a pass over the song should stay in cache


def _fader(audio: Audio, track: Track, curves: dict[str, Floats], mix: Audio) -> Audio:
    """Apply volume and pan to `audio` in place and add the result into `mix`, a chunk at a time."""
    frames = len(audio)
    volume = curves.get("volume")
    pan = curves.get("pan")
    if volume is None and pan is None:
        left, right = pan_gains(track.mix.pan)
        gains = np.array([float(left), float(right)], dtype=np.float32) * np.float32(track.mix.volume)
        for first in range(0, frames, _CHUNK):
            chunk = audio[first : first + _CHUNK]
            chunk *= gains
            mix[first : first + _CHUNK] += chunk
        return audio
    vol = volume if volume is not None else np.full(len(pan), track.mix.volume)  # type: ignore[arg-type]
    left, right = pan_gains(pan if pan is not None else track.mix.pan)
    audio[:, 0] *= per_frame(vol * left, frames)
    audio[:, 1] *= per_frame(vol * right, frames)
    mix += audio
    return audio


def mix_song(song: Song, tracks: Audio, sample_rate: int = 44100) -> Mix:
    """Mix the dry per-track audio (tracks × frames × 2, in song track order) as the song's mix says.
    The dry buffers are used up: each becomes its track's post-fader audio."""
    frames = tracks.shape[1] if tracks.ndim == 3 else 0
    result = Mix(np.zeros((frames, 2), dtype=np.float32))
    blocks = -(-frames // 256)
    beats = block_beats(song, blocks, sample_rate) if any(t.mix.automation for t in song.tracks) else np.zeros(0)
    buses = {b.name: b for b in song.buses}
    sends: dict[str, Audio] = {}
    for index, (track, heard) in enumerate(zip(song.tracks, audible([t.mix for t in song.tracks]), strict=True)):
        if not heard:
            continue
        curves = _lanes(track, beats) if track.mix.automation else {}
        live = any(not fx.bypass for fx in track.mix.inserts)
        chained = _chain(guard(tracks[index]) if live else tracks[index], track.mix.inserts, curves, song,
                         sample_rate)
        out = _fader(chained, track, curves, result.audio)  # in place: the dry buffer is ours to change
        result.tracks[index] = out
        for send in track.mix.sends:
            if send.level > 0:
                into = sends.setdefault(send.bus, np.zeros((frames, 2), dtype=np.float32))
                level = np.float32(send.level)
                for first in range(0, frames, _CHUNK):
                    into[first : first + _CHUNK] += out[first : first + _CHUNK] * level
    for name, bus_in in sends.items():
        bus = buses.get(name) or (DEFAULT_REVERB if name == DEFAULT_REVERB.name else Bus(name))
        ret = _chain(guard(bus_in), bus.inserts, {}, song, sample_rate, on_bus=True)
        ret *= np.float32(bus.volume)
        result.audio += ret
        result.buses[name] = ret
    return result
