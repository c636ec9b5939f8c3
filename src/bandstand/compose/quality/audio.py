"""Audio figures of a rendered song, per stem: its loudness against the
mastered mix (LU, ITU-R BS.1770 as the master measures it, on the stem after
its fader) and its spectral balance — the share of its power below 250 Hz
(`low_share`) and its spectral centroid (`brightness`, in octaves above
100 Hz, so a figure a role keeps whatever its pitch). Measured once the WAV
and the stems exist (after stage 8), so they are published beside the
figures stage 7 gated on, not part of the gate."""

from __future__ import annotations

import math
import wave
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


def _read(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as wav:
        rate, channels, width = wav.getframerate(), wav.getnchannels(), wav.getsampwidth()
        if width != 2:
            return np.zeros(0, dtype=np.float32), rate
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    return pcm.reshape(-1, channels).mean(axis=1).astype(np.float32) / np.float32(32768.0), rate


def spectrum_figures(mono: np.ndarray, rate: int) -> dict[str, float | None]:
    """low_share and brightness of a mono signal (None when it is silent or too short)."""
    if len(mono) < BLOCK:
        return {"low_share": None, "brightness": None}
    starts = np.linspace(0, len(mono) - BLOCK, num=min(BLOCKS, len(mono) // BLOCK)).astype(int)
    window = np.hanning(BLOCK).astype(np.float32)
    power = np.zeros(BLOCK // 2 + 1)
    for s in starts:
        power += np.abs(np.fft.rfft(mono[s:s + BLOCK] * window)) ** 2
    freqs = np.fft.rfftfreq(BLOCK, 1.0 / rate)
    audible = freqs >= 20.0
    total = float(power[audible].sum())
    if total <= 1e-12:
        return {"low_share": None, "brightness": None}
    low = float(power[audible & (freqs < 250.0)].sum()) / total
    centroid = float((freqs[audible] * power[audible]).sum()) / total
    return {"low_share": low, "brightness": math.log2(max(centroid, 1.0) / 100.0)}


def audio_figures(wav: Path, stems: Mapping[str, Path]) -> dict[str, float | None]:
    """Per role (`stems`: role → its stem WAV): `stem_loudness.ROLE` (LU against the mastered
    `wav`), `low_share.ROLE` and `brightness.ROLE`. Empty when the WAV is missing."""
    from bandstand.render.loudness import wav_loudness

    if not wav.is_file():
        return {}
    mix = wav_loudness(wav)
    out: dict[str, float | None] = {}
    for role, path in sorted(stems.items()):
        if not path.is_file():
            continue
        level = wav_loudness(path)
        out[f"stem_loudness.{role}"] = level - mix if math.isfinite(level) and math.isfinite(mix) else None
        mono, rate = _read(path)
        for name, value in spectrum_figures(mono, rate).items():
            out[f"{name}.{role}"] = value
    return out
