"""The meters a render takes while it writes (`bandstand.render.meter`) give the same figures,
bit for bit, as reading the written files back and measuring them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.render import render_wav
from bandstand.render.audio import write_wav
from bandstand.render.loudness import loudness, read_wav, wav_loudness
from bandstand.render.meter import BLOCK, Meter, spectrum_figures
from bandstand.score import Send
from tests.midi.songs import demo_song


def _same(meter: Meter, path: Path) -> None:
    frames, rate = read_wav(path)
    assert meter.loudness() == loudness(frames, rate)
    assert meter.spectrum() == spectrum_figures(frames, rate)


def test_a_renders_meters_are_its_files_figures(tmp_path: Path) -> None:
    song = demo_song(8, tempo=96.0)
    song = replace(song, tracks=[replace(t, mix=replace(t.mix, sends=(Send("Reverb", 0.3),))) for t in song.tracks])
    meters: dict[Path, Meter] = {}
    path = render_wav(song, tmp_path / "song.wav", stems_dir=tmp_path / "stems", meters=meters)
    stems = sorted(p for p in (tmp_path / "stems").glob("*.wav") if not p.name.startswith("bus-"))
    assert len(stems) == 5 and (tmp_path / "stems" / "bus-reverb.wav").is_file()
    assert set(meters) == {path, *stems}  # the buses' returns are not measured: no figure reads them
    assert meters[path].loudness() == wav_loudness(path)
    for stem in stems:
        _same(meters[stem], stem)
    assert all(value is not None for value in meters[path].spectrum().values())


@settings(max_examples=25, deadline=None)
@given(frames=st.integers(0, 140_000), seed=st.integers(0, 2**16), level=st.sampled_from([0.0, 1e-4, 0.3, 2.0]))
def test_any_length_and_level_written_and_measured_agree(tmp_path_factory: pytest.TempPathFactory, frames: int,
                                                         seed: int, level: float) -> None:
    """Lengths across the meter's chunks, hops, windows and the writer's blocks; silence, quiet
    signals, clipped ones."""
    audio = np.random.default_rng(seed).normal(0.0, level, (frames, 2)).astype(np.float32)
    meter = Meter(44100, frames)
    path = write_wav(audio, tmp_path_factory.mktemp("m") / "x.wav", meter=meter)
    _same(meter, path)


def test_a_meter_not_fed_all_its_frames_says_so() -> None:
    meter = Meter(44100, 3 * BLOCK)
    meter.feed(np.zeros((BLOCK, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="fed 8192 of 24576 frames"):
        meter.loudness()
