"""Audio figures of a rendered song, per stem: its loudness against the
mastered mix (LU, ITU-R BS.1770 as the master measures it, on the stem after
its fader) and its spectral balance — the share of its power below 250 Hz
(`low_share`) and its spectral centroid (`brightness`, in octaves above
100 Hz, so a figure a role keeps whatever its pitch). Measured once the WAV
and the stems exist (after stage 8), so they are published beside the
figures stage 7 gated on, not part of the gate."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["AUDIO_FIGURES", "audio_figures", "spectrum_figures", "stems_by_role"]

AUDIO_FIGURES = ("stem_loudness", "low_share", "brightness")
BLOCK = 8192  # samples per spectrum block
BLOCKS = 64  # blocks read per stem, spread evenly over it (a bound on the work)


def stems_by_role(root: Path, parts: list[dict[str, object]]) -> dict[str, Path]:
    """Each role's stem in session folder `root` (its part file's name under audio/stems/; the
    first part of a role when two share it)."""
    out: dict[str, Path] = {}
    for part in parts:
        role, file = part.get("role"), part.get("file")
        if isinstance(role, str) and isinstance(file, str) and role not in out:
            out[role] = root / "audio" / "stems" / f"{Path(file).stem}.wav"
    return out


def spectrum_figures(frames: np.ndarray, rate: int) -> dict[str, float | None]:
    """low_share and brightness of a signal (frames × channels, or mono; None when it is silent
    or too short): the power of `BLOCKS` windows spread evenly over it, each folded to mono."""
    if len(frames) < BLOCK:
        return {"low_share": None, "brightness": None}
    starts = np.linspace(0, len(frames) - BLOCK, num=min(BLOCKS, len(frames) // BLOCK)).astype(int)
    window = np.hanning(BLOCK).astype(np.float32)
    power = np.zeros(BLOCK // 2 + 1)
    for s in starts:
        block = frames[s:s + BLOCK]
        mono = block.mean(axis=1, dtype=np.float32) if block.ndim == 2 else block
        power += np.abs(np.fft.rfft(mono * window)) ** 2
    freqs = np.fft.rfftfreq(BLOCK, 1.0 / rate)
    audible = freqs >= 20.0
    total = float(power[audible].sum())
    if total <= 1e-12:
        return {"low_share": None, "brightness": None}
    low = float(power[audible & (freqs < 250.0)].sum()) / total
    centroid = float((freqs[audible] * power[audible]).sum()) / total
    return {"low_share": low, "brightness": math.log2(max(centroid, 1.0) / 100.0)}


def _stem(path: Path) -> tuple[float, dict[str, float | None]]:
    """A stem's loudness and spectrum figures, from one read of its file."""
    from bandstand.render.loudness import loudness, read_wav

    frames, rate = read_wav(path)
    return loudness(frames, rate), spectrum_figures(frames, rate)


def audio_figures(wav: Path, stems: Mapping[str, Path]) -> dict[str, float | None]:
    """Per role (`stems`: role → its stem WAV): `stem_loudness.ROLE` (LU against the mastered
    `wav`), `low_share.ROLE` and `brightness.ROLE`. Empty when the WAV is missing. The files are
    read on two threads (numpy's reads and filters let go of the interpreter lock)."""
    from concurrent.futures import ThreadPoolExecutor

    from bandstand.render.loudness import wav_loudness

    if not wav.is_file():
        return {}
    present = [(role, path) for role, path in sorted(stems.items()) if path.is_file()]
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="bandstand-stem-figures") as pool:
        mix_future = pool.submit(wav_loudness, wav)
        measured = list(pool.map(lambda item: _stem(item[1]), present))
        mix = mix_future.result()
    out: dict[str, float | None] = {}
    for (role, _), (level, spectrum) in zip(present, measured, strict=True):
        out[f"stem_loudness.{role}"] = level - mix if math.isfinite(level) and math.isfinite(mix) else None
        for name, value in spectrum.items():
            out[f"{name}.{role}"] = value
    return out
