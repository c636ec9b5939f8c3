"""The integrated loudness (LUFS, ITU-R BS.1770) of a WAV file on disk — the measure the master
uses (`master.power_envelope` and `master.integrated_loudness`), read back from a 16-bit PCM file."""

from __future__ import annotations

import math
import os
import wave

import numpy as np

from bandstand.errors import InvalidInput
from bandstand.render.master import integrated_loudness, power_envelope

__all__ = ["loudness", "read_wav", "wav_loudness"]


def read_wav(path: str | os.PathLike[str]) -> tuple[np.ndarray, int]:
    """A 16-bit PCM WAV as float32 frames (frames × channels, full scale 1.0) and its rate."""
    with wave.open(os.fspath(path), "rb") as wav:
        if wav.getsampwidth() != 2:
            raise InvalidInput(f"{os.fspath(path)} is not 16-bit PCM; render it again with 'bandstand render'")
        rate, channels = wav.getframerate(), wav.getnchannels()
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    return pcm.reshape(-1, channels).astype(np.float32) / np.float32(32768.0), rate


def loudness(audio: np.ndarray, rate: int) -> float:
    """The integrated loudness of float frames (LUFS; −inf for silence or under 0.4 s)."""
    if len(audio) == 0:
        return -math.inf
    envelope, hop = power_envelope(audio, rate)
    return integrated_loudness(envelope, rate / hop)


def wav_loudness(path: str | os.PathLike[str]) -> float:
    """The integrated loudness of a 16-bit PCM WAV (LUFS; −inf for silence or under 0.4 s)."""
    return loudness(*read_wav(path))
