"""Audio figures of a rendered song, per stem: its loudness against the
mastered mix (LU, ITU-R BS.1770 as the master measures it, on the stem after
its fader) and its spectral balance — the share of its power below 250 Hz
(`low_share`) and its spectral centroid (`brightness`, in octaves above
100 Hz, so a figure a role keeps whatever its pitch). Measured once the WAV
and the stems exist (after stage 8), so they are published beside the
figures stage 7 gated on, not part of the gate: by the meters the render fed
as it wrote them (`bandstand.render.meter`), or by reading the files back —
the same figures."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from bandstand.render.meter import Meter, spectrum_figures

__all__ = ["AUDIO_FIGURES", "audio_figures", "spectrum_figures", "stems_by_role"]

AUDIO_FIGURES = ("stem_loudness", "low_share", "brightness")


def stems_by_role(root: Path, parts: list[dict[str, object]]) -> dict[str, Path]:
    """Each role's stem in session folder `root` (its part file's name under audio/stems/; the
    first part of a role when two share it)."""
    out: dict[str, Path] = {}
    for part in parts:
        role, file = part.get("role"), part.get("file")
        if isinstance(role, str) and isinstance(file, str) and role not in out:
            out[role] = root / "audio" / "stems" / f"{Path(file).stem}.wav"
    return out


def _stem(path: Path) -> tuple[float, dict[str, float | None]]:
    """A stem's loudness and spectrum figures, from one read of its file."""
    from bandstand.render.loudness import loudness, read_wav

    frames, rate = read_wav(path)
    return loudness(frames, rate), spectrum_figures(frames, rate)


def audio_figures(wav: Path, stems: Mapping[str, Path],
                  meters: Mapping[Path, Meter] | None = None) -> dict[str, float | None]:
    """Per role (`stems`: role → its stem WAV): `stem_loudness.ROLE` (LU against the mastered
    `wav`), `low_share.ROLE` and `brightness.ROLE`. Empty when the WAV is missing. A file that
    `meters` measured as it was written (`bandstand.render.meter`: the same figures) is not read;
    the others are read on two threads (numpy's reads and filters let go of the interpreter lock)."""
    from concurrent.futures import ThreadPoolExecutor

    from bandstand.render.loudness import wav_loudness

    if not wav.is_file():
        return {}
    met = meters or {}
    present = [(role, path) for role, path in sorted(stems.items()) if path.is_file()]

    def stem(path: Path) -> tuple[float, dict[str, float | None]]:
        meter = met.get(path)
        return (meter.loudness(), meter.spectrum()) if meter is not None else _stem(path)

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="bandstand-stem-figures") as pool:
        mix_future = pool.submit(lambda: met[wav].loudness() if wav in met else wav_loudness(wav))
        measured = list(pool.map(lambda item: stem(item[1]), present))
        mix = mix_future.result()
    out: dict[str, float | None] = {}
    for (role, _), (level, spectrum) in zip(present, measured, strict=True):
        out[f"stem_loudness.{role}"] = level - mix if math.isfinite(level) and math.isfinite(mix) else None
        for name, value in spectrum.items():
            out[f"{name}.{role}"] = value
    return out
