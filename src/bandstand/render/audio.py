"""Song or MIDI file → WAV: General MIDI synthesis with TinySoundFont, then a
light stereo reverb and peak normalization. 44.1 kHz, 16-bit stereo.

Synthesis runs offline: the song's channel events are turned into a sorted
list of sample positions, and the synthesizer renders the audio between
consecutive events straight into one preallocated buffer."""

from __future__ import annotations

import math
import os
import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.errors import RenderError
from bandstand.files import atomic_open
from bandstand.render.soundfont import find_soundfont
from bandstand.score import DRUM_CHANNEL, Song, Track, assign_channels

TAIL_SECONDS = 2.0  # release and reverb after the last note
PEAK = 0.89  # -1 dBFS
REVERB_WET = 0.3
REVERB_DECIMATION = 4  # the reverb runs on a mono mix at 1/4 of the sample rate: tails are dark anyway
# Freeverb-style delays in samples at 44.1 kHz (parallel combs, then series allpasses).
_COMBS = (1557, 1617, 1491, 1422)
_ALLPASSES = (556, 441)
_STEREO_SPREAD = 23  # the right channel hears the tail this many samples later
_COMB_FEEDBACK = 0.8
_ALLPASS_GAIN = 0.5

# Event kinds in the order they apply at the same instant.
_PROGRAM, _CONTROL, _BEND, _OFF, _ON = range(5)

Audio = npt.NDArray[np.float32]


Event = tuple[float, int, int, int, int]  # seconds, kind, channel, a, b


def _events(song: Song, tracks: list[tuple[Track, int]]) -> list[Event]:
    """Every event the synthesizer must play for `tracks` (track, channel), sorted."""
    seconds = song.beats_to_seconds
    events: list[Event] = []
    for track, ch in tracks:
        events.append((0.0, _PROGRAM, ch, track.program, 0))
        for n in track.notes:
            events.append((seconds(n.start), _ON, ch, n.pitch, n.velocity))
            events.append((seconds(n.end), _OFF, ch, n.pitch, 0))
        events += [(seconds(c.time), _CONTROL, ch, c.control, c.value) for c in track.controls]
        events += [(seconds(b.time), _BEND, ch, b.value + 8192, 0) for b in track.pitch_bends]
        events += [(seconds(p.time), _PROGRAM, ch, p.program, 0) for p in track.program_changes]
    events.sort(key=lambda e: (e[0], e[1]))
    return events


def _render_into(events: list[Event], out: memoryview, frames: int, sample_rate: int, soundfont: Path) -> None:
    """Play `events` through a fresh synthesizer into `out` (frames × 2 float32)."""
    import tinysoundfont

    synth = tinysoundfont.Synth(samplerate=sample_rate)
    try:
        synth.sfload(str(soundfont))
    except Exception as exc:  # tinysoundfont raises its own exception type for bad files
        raise RenderError(f"cannot load SoundFont {soundfont}: {exc}", path=str(soundfont)) from exc
    actions = {
        _PROGRAM: lambda ch, a, b: synth.program_change(ch, a, is_drums=ch == DRUM_CHANNEL),
        _CONTROL: synth.control_change,
        _BEND: lambda ch, a, b: synth.pitchbend(ch, a),
        _OFF: lambda ch, a, b: synth.noteoff(ch, a),
        _ON: synth.noteon,
    }
    pos = 0
    for t, kind, ch, a, b in events:
        frame = min(int(t * sample_rate), frames)
        if frame > pos:
            synth.generate_simple(frame - pos, buffer=out[pos * 8 : frame * 8])
            pos = frame
        actions[kind](ch, a, b)
    if frames > pos:
        synth.generate_simple(frames - pos, buffer=out[pos * 8 : frames * 8])


def synthesize(song: Song, sample_rate: int = 44100, soundfont: Path | None = None) -> Audio:
    """Dry stereo audio (frames × 2, float32) of the song plus `TAIL_SECONDS`."""
    path = soundfont or find_soundfont()
    frames = int((song.duration_seconds + TAIL_SECONDS) * sample_rate)
    buffer = memoryview(bytearray(frames * 8))
    parts = list(zip(song.tracks, assign_channels(song), strict=True))
    _render_into(_events(song, parts), buffer, frames, sample_rate, path)
    return np.frombuffer(buffer, dtype=np.float32).reshape(frames, 2)


def _feedback(x: npt.NDArray[np.float32], delay: int, gain: float) -> npt.NDArray[np.float32]:
    """y[n] = x[n] + gain·y[n-delay], vectorized: the signal is cut into rows one
    delay long and a group of rows is solved at once with a scaled cumulative sum
    (row k of a group: y_k = g^k · (g·carry + Σ_{j≤k} x_j · g^-j)). Groups hold
    about 32k samples, and few enough rows that g^-rows stays far inside float32."""
    n = len(x)
    rows = -(-n // delay)
    group = max(1, min(32768 // delay, int(24 / math.log10(1 / gain)))) if 0 < gain < 1 else 1
    padded = np.zeros(rows * delay, dtype=np.float32)
    padded[:n] = x
    grid = padded.reshape(rows, delay)
    powers = (gain ** np.arange(group, dtype=np.float64)).astype(np.float32)[:, None]
    inverse = (1.0 / powers).astype(np.float32)
    work = np.empty((group, delay), dtype=np.float32)
    carry = np.zeros(delay, dtype=np.float32)
    for first in range(0, rows, group):
        block = grid[first : first + group]
        m = len(block)
        w = work[:m]
        np.multiply(block, inverse[:m], out=w)
        np.cumsum(w, axis=0, out=w)
        w += gain * carry
        np.multiply(w, powers[:m], out=block)
        carry = block[-1]
    return padded[:n]


def _allpass(x: npt.NDArray[np.float32], delay: int, gain: float) -> npt.NDArray[np.float32]:
    """Schroeder allpass: y[n] = -g·x[n] + x[n-d] + g·y[n-d]."""
    u = (-gain * x).astype(np.float32)
    u[delay:] += x[:-delay]
    return _feedback(u, delay, gain)


def reverb(audio: Audio, sample_rate: int = 44100) -> Audio:
    """Mix a Freeverb-style room under the dry signal (in place, and returned).

    The tail is computed from a mono mix decimated by `REVERB_DECIMATION`
    (averaging, which also darkens it like air does) and held back up."""
    k = REVERB_DECIMATION
    frames = len(audio) - len(audio) % k
    if frames < k * max(_COMBS):
        return audio
    # a matrix-vector product averages k stereo frames far faster than .mean over a short axis
    mono = audio[:frames].reshape(-1, 2 * k) @ np.full(2 * k, 1 / (2 * k), dtype=np.float32)
    scale = sample_rate / 44100 / k
    wet = np.zeros_like(mono)
    for d in _COMBS:
        wet += _feedback(mono, max(1, int(d * scale)), _COMB_FEEDBACK)
    wet *= REVERB_WET / len(_COMBS)
    for d in _ALLPASSES:
        wet = _allpass(wet, max(1, int(d * scale)), _ALLPASS_GAIN)
    # hold each wet sample for k frames without allocating the full-rate tail
    audio[:frames].reshape(-1, k, 2)[:, :, 0] += wet[:, None]
    right = audio[_STEREO_SPREAD:]
    held = len(right) - len(right) % k
    right[:held].reshape(-1, k, 2)[:, :, 1] += wet[: held // k, None]
    return audio


def normalize(audio: Audio, peak: float = PEAK) -> Audio:
    """Scale in place so the loudest sample is `peak` (silence stays silent)."""
    loudest = float(max(audio.max(initial=0.0), -audio.min(initial=0.0)))
    if loudest > 0.0:
        audio *= np.float32(peak / loudest)
    return audio


_WRITE_FRAMES = 1 << 16  # convert to PCM a block at a time: big temporaries are slow to fault in


def write_wav(audio: Audio, path: str | os.PathLike[str], sample_rate: int = 44100) -> Path:
    """Write float audio (frames × 2, within ±1) as 16-bit stereo PCM, atomically."""
    block = np.empty((_WRITE_FRAMES, 2), dtype=np.float32)
    pcm = np.empty((_WRITE_FRAMES, 2), dtype="<i2")
    with atomic_open(path, "wb") as fh, wave.open(fh, "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        for first in range(0, len(audio), _WRITE_FRAMES):
            chunk = audio[first : first + _WRITE_FRAMES]
            b, p = block[: len(chunk)], pcm[: len(chunk)]
            np.clip(chunk, -1.0, 1.0, out=b)
            b *= 32767.0
            np.rint(b, out=b)
            p[:] = b
            wav.writeframes(p.tobytes())
    return Path(path)


def render_wav(
    song_or_midi_path: Song | str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    sample_rate: int = 44100,
    *,
    soundfont: Path | None = None,
) -> Path:
    """Render a Song (or a .mid file) to a normalized WAV with reverb; returns the path."""
    if isinstance(song_or_midi_path, Song):
        song = song_or_midi_path
    else:
        from bandstand.midi import read_midi

        song = read_midi(song_or_midi_path)
    audio = normalize(reverb(synthesize(song, sample_rate, soundfont), sample_rate))
    return write_wav(audio, out_path, sample_rate)
