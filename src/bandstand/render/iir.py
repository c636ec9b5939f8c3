"""Biquad cascades — the render's recursive filters (EQ bands, filters, tone
controls, the loudness meter's K-weighting, the reverb's colouring) — run by
scipy's compiled second-order-section kernel, a chunk at a time with their
state carried across chunks, in place.

`scipy.signal.sosfilt` itself costs two things a render cannot afford: its
package takes half a second of CPU to import (scipy.signal pulls in
scipy.stats, scipy.optimize …), and every call copies the whole signal into
the channel-major layout the kernel wants and back. So the kernel
(`scipy.signal._sosfilt._sosfilt`, compiled Cython, releases the interpreter
lock) is loaded from its file on its own, registered under its own name so that
a later `import scipy.signal` shares it, and given cache-sized chunks
transposed on the fly. Should a scipy release move or change it, the filters
fall back to `scipy.signal.sosfilt` with the same state (a test pins the two
to the same bits).

Where numba runs (the compiled engine's dependency, loaded by the render's warm-up:
`jit`), float32 cascades use `bandstand.render.jit.sosfilt32` instead: the same arithmetic in
the same order — the same bits — in half the time.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt

__all__ = ["CHUNK", "Cascade", "Kernels", "compiled", "filter_sos", "jit", "kernel"]

CHUNK = 1 << 15  # frames per step of a pass over a song (256 KiB of stereo float32: stays in cache)
_KERNEL = "scipy.signal._sosfilt"

Kernel = Callable[[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]], None]


def _load() -> Kernel | None:
    """scipy's compiled cascade kernel, `_sosfilt(sos, x, zi)`: filters `x` (signals × samples) in
    place from state `zi` (signals × sections × 2), which it leaves as the final state."""
    loaded = sys.modules.get(_KERNEL)
    if loaded is None:
        try:
            import scipy  # the package's own __init__ is light; scipy.signal's is not

            folder = Path(scipy.__file__).parent / "signal"
            path = next((folder / f"_sosfilt{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                         if (folder / f"_sosfilt{suffix}").is_file()), None)
            spec = importlib.util.spec_from_file_location(_KERNEL, path) if path else None
            if spec is None or spec.loader is None:
                return None
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            sys.modules[_KERNEL] = loaded  # `import scipy.signal` later finds and shares it
        except Exception:  # any trouble loading it: use scipy.signal.sosfilt instead
            return None
    fn = getattr(loaded, "_sosfilt", None)
    return fn if callable(fn) else None


def _fallback(sos: npt.NDArray[Any], x: npt.NDArray[Any], zi: npt.NDArray[Any]) -> None:
    import scipy.signal

    y, z = scipy.signal.sosfilt(sos, x, axis=-1, zi=zi.transpose(1, 0, 2))
    x[...] = y
    zi[...] = z.transpose(1, 0, 2)


@cache
def kernel() -> Kernel:
    """The cascade kernel (loaded once): scipy's compiled one, else a wrapper of scipy.signal.sosfilt
    with the same in-place contract."""
    fn = _load()
    if fn is None:
        return _fallback
    probe = np.zeros((1, 8), dtype=np.float32)
    probe[0, 0] = 1.0
    try:  # the private signature still as expected?
        fn(np.array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]], dtype=np.float32), probe, np.zeros((1, 1, 2), np.float32))
    except Exception:
        return _fallback
    return fn if probe[0, 1] == np.float32(0.5) else _fallback


@dataclass(frozen=True, slots=True)
class Kernels:
    """The render's compiled kernels (`bandstand.render.jit`; see there for each)."""

    sosfilt32: Callable[..., None]
    to_pcm16: Callable[..., None]
    downmix: Callable[..., None]
    upsample: Callable[..., None]
    true_peaks: Callable[..., None]


@cache
def jit() -> Kernels | None:
    """The render's compiled kernels, loaded once: kept as machine code by an earlier process
    (`bandstand.render.native`, without numba's start), else numba's (from its cache after the
    first time; then kept for the next process); None where numba is not installed, cannot
    compile (`NUMBA_DISABLE_JIT`: they would run as Python) or cannot load them: the numpy and
    scipy ways then, which give the same bits."""
    from bandstand.render import native

    names = [f.name for f in fields(Kernels)]
    kept = {name: native.kernel(f"jit.{name}") for name in names} if not native.disabled() else {}
    if kept and all(kept.values()):
        return Kernels(**cast(dict[str, Callable[..., None]], kept))
    try:
        import numba

        if getattr(numba.config, "DISABLE_JIT", False):
            return None
        from bandstand.render.sf2.engine import without_blas

        with warnings.catch_warnings(), without_blas(numba):  # not scipy.linalg's import (0.3 s) as well
            warnings.simplefilter("ignore")  # numba's notes about caching
            from bandstand.render import jit as kernels

            for name in names:
                native.build(f"jit.{name}", getattr(kernels, name), kernels.SIGNATURES[name])
    except Exception:  # no numba, or it cannot compile or cache here
        return None
    return Kernels(**{name: getattr(kernels, name) for name in names})


def compiled() -> Kernel | None:
    """The compiled float32 cascade kernel (`bandstand.render.jit.sosfilt32`), or None (`jit`)."""
    kernels = jit()
    return None if kernels is None else cast(Kernel, kernels.sosfilt32)


class Cascade:
    """A cascade of biquads ([b0, b1, b2, 1, a1, a2] each) with its state, run over consecutive
    chunks of channel-major audio (channels × frames, each channel's frames contiguous, e.g. a
    stretch of a longer buffer) in place: `cascade(chunk)`. `retune` swaps
    the coefficients and keeps the state (a cutoff that moves). float32 coefficients keep the
    audio float32."""

    __slots__ = ("_fast", "_run", "dtype", "sos", "zi")

    def __init__(self, sections: Sequence[Sequence[float]], channels: int = 2, dtype: Any = np.float32) -> None:
        self.dtype = np.dtype(dtype)
        self.sos = np.ascontiguousarray(sections, dtype=self.dtype).reshape(-1, 6)
        self.zi = np.zeros((channels, len(self.sos), 2), dtype=self.dtype)
        self._run = kernel()
        self._fast = compiled() if self.dtype == np.float32 else None

    def retune(self, sections: Sequence[Sequence[float]]) -> None:
        self.sos = np.ascontiguousarray(sections, dtype=self.dtype).reshape(-1, 6)

    def __call__(self, chunk: npt.NDArray[Any], first: int = 0) -> npt.NDArray[Any]:
        """Filter `chunk` (channels × frames) in place, continuing from the state the previous chunk
        left (`first`, the chunk's frame in the song, is not needed: a cascade does not vary)."""
        if len(self.sos) and chunk.shape[-1]:
            if self._fast is not None and chunk.dtype == self.dtype and chunk.strides[-1] == chunk.itemsize:
                self._fast(self.sos, chunk if chunk.ndim == 2 else chunk.reshape(1, -1), self.zi)
            elif chunk.dtype == self.dtype and chunk.flags.c_contiguous:
                self._run(self.sos, chunk, self.zi)
            elif chunk.dtype == self.dtype and chunk.strides[-1] == chunk.itemsize:  # rows of a longer buffer
                for row in range(len(chunk)):
                    self._run(self.sos, chunk[row : row + 1], self.zi[row : row + 1])
            else:
                work = np.ascontiguousarray(chunk, dtype=self.dtype)
                self._run(self.sos, work, self.zi)
                chunk[...] = work
        return chunk


def filter_sos(audio: npt.NDArray[Any], sections: Sequence[Sequence[float]]) -> npt.NDArray[Any]:
    """A new array: the whole audio (frames × channels, or frames) through a cascade from rest; no
    sections, the audio itself."""
    if not len(sections):
        return audio
    flat = audio.ndim == 1
    signals = np.array((audio[:, None] if flat else audio).T, dtype=np.result_type(audio.dtype, np.float32), order="C")
    cascade = Cascade(sections, len(signals), signals.dtype)
    for first in range(0, signals.shape[1], CHUNK):
        cascade(signals[:, first : first + CHUNK])
    return signals[0] if flat else signals.T.copy()
