"""An insert chain run over a stretch of audio a chunk at a time.

The effects of a chain (`bandstand.render.effects.PROCESSORS`) are stages
called one after another on each chunk of `CHUNK` frames (channel-major: the
render keeps each channel of a track in one contiguous row), so the chunk passes
through the whole chain while it is in cache and no song-long temporaries are
made; the result is written back in place. A compressor or limiter needs the
block peaks of its whole input: the stages before it run over every chunk
first (their output's peaks measured as each chunk goes by), its gain is
computed from the peaks, and it becomes the first stage of the next pass. A
reverb runs on its whole input at once, between two passes.

A chain runs over the stretch of the song where its input sounds, plus how
long it rings (`chain_tail`): outside it the input is silence and so is the
output. Automation curves are per block of the whole song, and every stretch
starts on a chunk boundary of the song, so a stage computes exactly what it
would over the whole song.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bandstand.render.dsp import BLOCK, Audio, Context, Floats, guard_row
from bandstand.render.effects import PROCESSORS, Stage, gain_stage
from bandstand.render.iir import CHUNK
from bandstand.score import Effect

__all__ = ["CHUNK", "chain_tail", "guard_stage", "process", "run_chain", "stream", "stretch"]


def stream(audio: Audio, stages: Sequence[Stage], start: int, *, peaks: bool = False) -> Floats | None:
    """Run `stages` over `audio` (channels × frames, from song frame `start`, a multiple of `CHUNK`)
    in place, a chunk at a time; with `peaks`, return the block peaks of the result (both
    channels)."""
    frames = audio.shape[1]
    found = np.zeros(-(-frames // BLOCK)) if peaks else None
    if not stages and found is None:
        return None
    for first in range(0, frames, CHUNK):
        chunk = audio[:, first : first + CHUNK]
        out = chunk
        for stage in stages:
            out = stage(out, start + first)
        if out is not chunk:
            chunk[...] = out
        if found is not None:
            n = out.shape[1]
            whole = n - n % BLOCK
            b0 = first // BLOCK
            if whole:
                blocks = out[:, :whole].reshape(len(out), -1, BLOCK)
                found[b0 : b0 + whole // BLOCK] = np.maximum(blocks.max(axis=(0, 2)), -blocks.min(axis=(0, 2)))
            if whole < n:
                found[b0 + whole // BLOCK] = float(np.abs(out[:, whole:]).max())
    return found


def guard_stage(chunk: Audio, first: int) -> Audio:
    """A signal at −300 dB added (`bandstand.render.dsp.guard`): what follows never decays into
    denormal numbers."""
    chunk += guard_row(chunk.shape[1])
    return chunk


def _own(fx: Effect, lanes: Mapping[str, Floats], seen: set[str]) -> dict[str, Floats]:
    """The automation of `fx`'s parameters: lanes named `<type>.<parameter>` drive the first insert
    of that type only."""
    if fx.type in seen:
        return {}
    seen.add(fx.type)
    return {name: curve for key, curve in lanes.items() for kind, _, name in [key.partition(".")] if kind == fx.type}


def run_chain(audio: Audio, inserts: Sequence[Effect], ctx: Context, lanes: Mapping[str, Floats] | None = None,
              *, before: Sequence[Stage] = (), final: Sequence[Stage] = ()) -> Audio:
    """Run the `before` stages, the insert chain, then the `final` stages (a fader) over `audio` —
    channels × frames, the song from frame `ctx.start` on — in place; returns `audio`. `lanes` are the automation
    curves by `<type>.<parameter>`."""
    stages: list[Stage] = list(before)
    seen: set[str] = set()
    for fx in inserts:
        if fx.bypass:
            continue
        proc = PROCESSORS[fx.type]
        own = Context(ctx.sample_rate, ctx.tempo, _own(fx, lanes or {}, seen), ctx.on_bus, ctx.start, ctx.scratch)
        if proc.gain is not None:
            peaks = stream(audio, stages, ctx.start, peaks=True)
            assert peaks is not None
            stages = [gain_stage(proc.gain(fx, own, peaks), ctx.start)]
        elif proc.stage is not None:
            stage = proc.stage(fx, own)
            if stage is not None:
                stages.append(stage)
        elif proc.whole is not None:
            stream(audio, stages, ctx.start)
            stages = []
            proc.whole(audio, fx, own)
    stream(audio, [*stages, *final], ctx.start)
    return audio


def chain_tail(inserts: Sequence[Effect], ctx: Context, lanes: Mapping[str, Floats] | None = None) -> float:
    """Seconds the chain rings after its input falls silent: the effects' tails one after another."""
    seen: set[str] = set()
    total = 0.0
    for fx in inserts:
        if not fx.bypass:
            own = Context(ctx.sample_rate, ctx.tempo, _own(fx, lanes or {}, seen), ctx.on_bus, ctx.start, ctx.scratch)
            total += PROCESSORS[fx.type].tail(fx, own)
    return total


def stretch(first: int, end: int, tail_frames: int, frames: int) -> tuple[int, int]:
    """The stretch a chain runs over for input sounding in frames [first, end): from the chunk
    boundary at or before `first` to `tail_frames` after `end`, rounded up to a whole block and
    kept inside the song's `frames`. (0, 0) for silence."""
    if first >= end:
        return 0, 0
    start = first - first % CHUNK
    stop = min(frames, -(-(end + tail_frames) // BLOCK) * BLOCK)
    return start, stop


def process(audio: Audio, effect: Effect, ctx: Context) -> Audio:
    """One effect over a whole stretch of audio, frames × channels (a new array; a bypassed effect
    leaves it as it is).
    `ctx.curves` holds this effect's automated parameters by name."""
    if effect.bypass:
        return audio
    lanes = {f"{effect.type}.{name}": curve for name, curve in ctx.curves.items()}
    rows = np.array(audio.T, dtype=np.float32, order="C")  # the chain runs channel-major
    out: Audio = run_chain(rows, (effect,), ctx, lanes).T
    return out
