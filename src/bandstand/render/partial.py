"""Some of a song's tracks synthesized exactly as a render of all of them plays them.

A full render deals its tracks to the synthesizers by a plan made from every heard track
(`bandstand.render.synth.synth_items`): a track heavier than all the others together is
played as two halves, and which track that is depends on the others. A track played in two
halves does not sound bit for bit as one played whole, so a render of only the tracks whose
events changed (the rest come from `bandstand.render.trackcache`) must keep the full render's
plan: `synthesize_some` makes the plan for every track `include` names and plays only the
items of the tracks `play` names, into the caller's rows.

`synth.synthesize_into(play=…)` does the playing; `tests/render/test_trackcache.py` checks
that it gives `synthesize_dry`'s bits, for a split track and a whole one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bandstand.errors import RenderError
from bandstand.render import synth
from bandstand.render.cancel import Check, never
from bandstand.render.soundfont import find_soundfont
from bandstand.score import Song

__all__ = ["Font", "plan_of", "synthesize_some"]


@dataclass(frozen=True, slots=True)
class Font:
    """The SoundFont a render plays, read once: its path, bytes, SHA-256 (hex), the synthesizer
    engine's name, and the table the engine plays and the work is estimated from. The engine
    itself is made ready only when something is played (`synthesize_some`)."""

    path: Path
    data: bytes
    digest: str
    engine: str
    table: Any

    @classmethod
    def load(cls, soundfont: Path | None = None) -> Font:
        """The SoundFont `soundfont` names (default: `find_soundfont()`); a file that cannot be
        read or parsed is a `RenderError`."""
        from bandstand.render.sf2 import SoundFontError
        from bandstand.render.sf2.table import font_table

        name = synth.engine_name()  # a wrong $BANDSTAND_SYNTH is one line before any work
        path = soundfont or find_soundfont()
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RenderError(f"cannot read SoundFont {path}: {exc.strerror}", path=str(path)) from exc
        try:
            table = font_table(data)
        except SoundFontError as exc:
            raise RenderError(f"cannot load SoundFont {path}: {exc}", path=str(path)) from exc
        return cls(path, data, hashlib.sha256(data).hexdigest(), name, table)


def plan_of(song: Song, include: Sequence[bool], font: Font) -> dict[int, tuple[tuple[int, ...], ...]]:
    """How a full render of the tracks `include` names plays each of them: track index → the
    pitches of each of its items (one item, or two halves), sorted."""
    out: dict[int, list[tuple[int, ...]]] = {}
    for _, part, _ in synth.synth_items(song, include, font.table):
        out.setdefault(part[0], []).append(tuple(sorted(part[3])))
    return {index: tuple(sorted(parts)) for index, parts in out.items()}


def synthesize_some(song: Song, font: Font, out: npt.NDArray[np.float32], spans: npt.NDArray[np.int64], *,
                    include: Sequence[bool], play: Sequence[bool], sample_rate: int = 44100,
                    workers: int | None = None, finish: synth.Finish | None = None,
                    check: Check = never) -> None:
    """Play the tracks `play` names into their rows of `out` (tracks + 1 × 2 × frames, zeros
    where they play; the last row is the spare a split track's second half plays into) as a
    render of every track `include` names would, `finish` each, and note each one's span in
    `spans` (tracks + 1 × 2). Rows of other tracks are left as they are."""
    if not any(p and i for p, i in zip(play, include, strict=True)):
        return
    synth._table(font.engine, font.data, str(font.path))  # the engine made ready (the table is the same)
    synth.synthesize_into(song, out, spans, name=font.engine, data=font.data, where=str(font.path),
                          table=font.table, include=include, play=play, sample_rate=sample_rate, workers=workers,
                          finish=finish, check=check)
