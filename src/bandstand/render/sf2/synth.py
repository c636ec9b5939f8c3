"""A General MIDI synthesizer over a SoundFont, in numpy: TinySoundFont's algorithm.

`Synth` has the interface bandstand's render uses of `tinysoundfont.Synth` —
`sfload`, `program_change`, `control_change`, `pitchbend`, `noteon`, `noteoff`,
`sounds_off`, `generate_simple` (float32 interleaved stereo into a buffer) — and
the same behaviour: 16 channels created on first use (program 0, volume and
expression full, pan centre, bend range 2 semitones), the volume curve
(volume × expression)³, pan CC10 added to the region's pan, bank select, RPN
0/1/2 (bend range, fine and coarse tuning), all-sound-off (a fast release),
all-notes-off, reset-all-controllers. A note plays every region of the channel's
preset whose key and velocity ranges hold it, one voice each (256 at most: when
none is free, the voice furthest into its release is taken; a note finding none
is not played); a region with an exclusive class first ends the preset's voices
of that class. Sustain (CC64) is ignored, as TinySoundFont ignores it, unless the synthesizer
is made with `pedal=True` (as the render makes it, and as the compiled engine plays): then
while a channel's pedal is down (≥ 64) a key let go keeps its voices until the pedal comes up,
and a key struck again meanwhile first releases its held voices.
Voices are mixed in slot order into a zeroed buffer.

This is the per-event port the render falls back on where numba cannot run; the compiled
engine (`engine.py`) plays the same algorithm a whole track per call."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bandstand.render.sf2.envelope import BLOCK, RELEASE
from bandstand.render.sf2.parse import SoundFont, parse
from bandstand.render.sf2.voice import Voice, gain_to_db

__all__ = ["MAX_VOICES", "Synth", "preload"]

MAX_VOICES = 256
_PARSED: dict[bytes, SoundFont] = {}  # SHA-256 of the file → its presets (frozen): one parse per file per process
_LOCK = threading.Lock()


def _parsed(data: bytes) -> SoundFont:
    key = hashlib.sha256(data).digest()
    with _LOCK:
        if key not in _PARSED:
            if len(_PARSED) >= 4:
                _PARSED.pop(next(iter(_PARSED)))
            _PARSED[key] = parse(data)
        return _PARSED[key]


def preload(data: bytes) -> None:
    """Parse a SoundFont now (once per process), so synthesizers that load it later find it."""
    _parsed(data)


CHANNELS = 16


@dataclass
class _Channel:
    """A MIDI channel's state (mutable: controllers change it)."""

    preset: int = 0
    bank: int = 0
    wheel: int = 8192
    midi_pan: int = 8192
    midi_volume: int = 16383
    midi_expression: int = 16383
    rpn: int = 0xFFFF
    data: int = 0
    pan_offset: float = 0.0
    gain_db: float = 0.0
    bend_range: float = 2.0
    tuning: float = 0.0
    pedal: bool = False

    def shift(self) -> float:
        """The pitch shift in semitones of this channel's bend and tuning."""
        if self.wheel == 8192:
            return self.tuning
        w = np.float32(self.wheel) / np.float32(16383.0) * np.float32(self.bend_range) * np.float32(2.0)
        return float(w - np.float32(self.bend_range) + np.float32(self.tuning))


class Synth:
    """A SoundFont synthesizer with `tinysoundfont.Synth`'s calls and sound."""

    def __init__(self, gain: float = 0.0, samplerate: int = 44100, pedal: bool = False) -> None:
        """`pedal`: honour the sustain pedal (CC64), which TinySoundFont ignores."""
        self.pedal = pedal
        self.gain = gain
        self.samplerate = samplerate
        self.rate = float(np.float32(samplerate if samplerate >= 1 else 44100))
        self.font: SoundFont | None = None
        self.gain_db = 0.0
        self.voices: list[Voice | None] = [None] * MAX_VOICES
        self.sounding: set[int] = set()  # the slots holding a voice
        self.channels: list[_Channel] = []
        self.play_index = 0
        self.cuts: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}

    # -- loading ---------------------------------------------------------------------------------

    def sfload(self, filename_or_bytes: str | bytes | Path, gain: float = 0.0, max_voices: int = MAX_VOICES) -> int:
        data = filename_or_bytes if isinstance(filename_or_bytes, bytes) else Path(filename_or_bytes).read_bytes()
        self.font = _parsed(data)
        self.gain_db = float(np.float32(self.gain + gain))
        self.voices = [None] * max(max_voices, 1)
        self.sounding = set()
        return 0

    def _channel(self, ch: int) -> _Channel:
        while len(self.channels) <= ch:
            self.channels.append(_Channel())
        return self.channels[ch]

    def _live(self, ch: int | None = None) -> list[Voice]:
        voices = [self.voices[i] for i in sorted(self.sounding)]
        return [v for v in voices if v is not None and (ch is None or v.channel == ch)]

    # -- channel state ---------------------------------------------------------------------------

    def program_change(self, chan: int, preset: int, is_drums: bool = False) -> None:
        font = self._font()
        c = self._channel(chan)
        bank = c.bank & 0x7FFF
        candidates = ([(128 | bank, preset), (128, preset), (128, 0), (bank, preset)] if is_drums
                      else [(bank, preset)]) + [(0, preset)]
        for b, p in candidates:
            index = font.preset_index(b, p)
            if index != -1:
                c.preset = index
                return
        raise RuntimeError("Error in channel_set_preset_number")

    def pitchbend(self, chan: int, value: int) -> None:
        c = self._channel(chan)
        if c.wheel != value:
            c.wheel = value
            self._apply_pitch(chan, c)

    def _apply_pitch(self, chan: int, c: _Channel) -> None:
        shift = c.shift()
        for v in self._live(chan):
            v.set_pitch(shift)

    def _set_volume(self, chan: int, volume: float) -> None:
        c = self._channel(chan)
        db = gain_to_db(volume)
        if db == c.gain_db:
            return
        change = float(np.float32(db) - np.float32(c.gain_db))
        for v in self._live(chan):
            v.note_gain_db = float(np.float32(v.note_gain_db) + np.float32(change))
        c.gain_db = db

    def _set_pan(self, chan: int, pan: float) -> None:
        c = self._channel(chan)
        offset = float(np.float32(pan) - np.float32(0.5))
        for v in self._live(chan):
            v.set_pan(offset)
        c.pan_offset = offset

    def _set_bend_range(self, chan: int, semitones: float) -> None:
        c = self._channel(chan)
        if c.bend_range != semitones:
            c.bend_range = semitones
            if c.wheel != 8192:
                self._apply_pitch(chan, c)

    def _set_tuning(self, chan: int, tuning: float) -> None:
        c = self._channel(chan)
        if c.tuning != tuning:
            c.tuning = tuning
            self._apply_pitch(chan, c)

    def control_change(self, chan: int, controller: int, control_value: int) -> None:
        c = self._channel(chan)
        value = control_value
        pairs = {7: "midi_volume", 39: "midi_volume", 11: "midi_expression", 43: "midi_expression",
                 10: "midi_pan", 42: "midi_pan", 6: "data", 38: "data"}
        if controller in pairs:
            name = pairs[controller]
            old = getattr(c, name)
            msb = controller < 32
            setattr(c, name, ((old & 0x7F) | (value << 7)) if msb else ((old & 0x3F80) | value))
            if name in ("midi_volume", "midi_expression"):
                level = (np.float32(c.midi_volume) / np.float32(16383.0)) * (np.float32(c.midi_expression) / np.float32(16383.0))
                self._set_volume(chan, float(np.power(level, np.float32(3.0))))
            elif name == "midi_pan":
                self._set_pan(chan, float(np.float32(c.midi_pan) / np.float32(16383.0)))
            elif c.rpn == 0:
                self._set_bend_range(chan, float(np.float32((c.data >> 7) + 0.01 * (c.data & 0x7F))))
            elif c.rpn == 1:
                self._set_tuning(chan, float(np.float32(int(c.tuning) + (float(c.data) - 8192.0) / 8192.0)))
            elif c.rpn == 2 and controller == 6:
                self._set_tuning(chan, float(np.float32((value - 64.0) + (c.tuning - int(c.tuning)))))
        elif controller == 0:
            c.bank = 0x8000 | value
        elif controller == 32:
            c.bank = (((c.bank & 0x7F) << 7) if c.bank & 0x8000 else 0) | value
        elif controller in (101, 100):
            base = 0 if c.rpn == 0xFFFF else c.rpn
            c.rpn = ((base & 0x7F) | (value << 7)) if controller == 101 else ((base & 0x3F80) | value)
        elif controller in (98, 99):
            c.rpn = 0xFFFF
        elif controller == 64:
            if self.pedal:
                down = value >= 64
                if not down and c.pedal:
                    self._pedal_up(chan)
                c.pedal = down
        elif controller == 120:
            for v in self._live(chan):
                if v.ampenv.segment < RELEASE or v.ampenv.p[5]:
                    v.stop_quickly()
        elif controller == 123:
            for v in self._live(chan):
                if v.held:
                    v.release()
        elif controller == 121:
            c.midi_volume = c.midi_expression = 16383
            c.midi_pan, c.bank, c.rpn, c.data = 8192, 0, 0xFFFF, 0
            self._set_volume(chan, 1.0)
            self._set_pan(chan, 0.5)
            self._set_bend_range(chan, 2.0)
            self._set_tuning(chan, 0.0)
            if c.pedal:
                self._pedal_up(chan)
                c.pedal = False

    def _pedal_up(self, chan: int) -> None:
        """The pedal comes up: the voices it held release."""
        for v in self._live(chan):
            if v.sustained:
                if v.held:
                    v.release()
                v.sustained = False

    def sounds_off(self, chan: int | None = None) -> None:
        for ch in range(CHANNELS) if chan is None else (chan,):
            self.control_change(ch, 120, 0)

    # -- notes -----------------------------------------------------------------------------------

    def _font(self) -> SoundFont:
        if self.font is None:
            raise RuntimeError("no SoundFont loaded")
        return self.font

    def noteon(self, chan: int, key: int, velocity: int) -> bool:
        if not (0 <= key <= 127 and 0 <= velocity <= 127) or self.font is None:
            return False
        if chan >= len(self.channels):
            return True  # a channel never set up plays nothing
        vel = float(np.float32(velocity / 127.0))
        if vel <= 0.0:
            self.noteoff(chan, key)
            return True
        self._note_on(self.channels[chan], chan, key, vel)
        return True

    def _free_slot(self, preset: int, group: int) -> int | None:
        slot = None
        if group:
            for i, v in enumerate(self.voices):
                if v is None:
                    slot = i if slot is None else slot
                elif v.preset == preset and v.region.group == group:
                    v.stop_quickly()
        else:
            slot = next((i for i, v in enumerate(self.voices) if v is None), None)
        if slot is not None:
            return slot
        best, furthest = None, -999999999
        for i, v in enumerate(self.voices):  # take the voice furthest into its release
            if v is not None and v.ampenv.segment == RELEASE:
                done = v.ampenv.release_samples() - v.ampenv.until
                if done > furthest:
                    best, furthest = i, done
        return best

    def _note_on(self, c: _Channel, chan: int, key: int, vel: float) -> None:
        font = self._font()
        if not 0 <= c.preset < len(font.presets):
            return
        if c.pedal:  # a key struck again under the pedal: its held voice lets go first
            for v in self._live(chan):
                if v.key == key and v.sustained:
                    if v.held:
                        v.release()
                    v.sustained = False
        midi_velocity = int(np.float32(vel) * np.float32(127))
        index = self.play_index
        self.play_index += 1
        for region in font.presets[c.preset].regions:
            if not (region.lokey <= key <= region.hikey and region.lovel <= midi_velocity <= region.hivel):
                continue
            slot = self._free_slot(c.preset, region.group)
            if slot is None:
                continue
            voice = Voice(region, c.preset, key, vel, chan, index, self.gain_db + c.gain_db, self.rate)
            voice.set_pitch(c.shift())
            voice.set_pan(c.pan_offset)
            self.voices[slot] = voice
            self.sounding.add(slot)

    def noteoff(self, chan: int, key: int) -> bool:
        if not 0 <= key <= 127 or self.font is None:
            return False
        held = [v for v in self._live(chan) if v.key == key and v.held and not v.sustained]
        if held:
            first = min(v.play_index for v in held)
            pedal = self.channels[chan].pedal
            for v in held:
                if v.play_index == first:
                    if pedal:
                        v.sustained = True
                    else:
                        v.release()
        return True

    # -- sound -----------------------------------------------------------------------------------

    def _blocks(self, samples: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """A request cut in 64-frame blocks (the last shorter): their sizes, and where each starts
        (then the total). Kept for the last few request sizes: a render asks for the same ones
        again and again (voices only read them)."""
        cut = self.cuts.get(samples)
        if cut is None:
            sizes = np.full(-(-samples // BLOCK), BLOCK, dtype=np.int64)
            sizes[-1] = samples - BLOCK * (len(sizes) - 1)
            starts = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=starts[1:])
            if len(self.cuts) >= 64:
                self.cuts.pop(next(iter(self.cuts)))
            cut = self.cuts[samples] = (sizes, starts)
        return cut

    def generate_simple(self, samples: int, buffer: memoryview | None = None) -> memoryview:
        """Render `samples` frames, float32 interleaved stereo, into `buffer` (or a new one)."""
        if buffer is None:
            buffer = memoryview(bytearray(samples * 8))
        out = np.frombuffer(buffer, dtype=np.float32, count=samples * 2).reshape(samples, 2)
        out[:] = 0.0
        if self.font is not None and samples > 0:
            sizes, starts = self._blocks(samples)
            voices, samples_ = self.voices, self.font.samples
            for i in sorted(self.sounding):  # in slot order
                v = voices[i]
                if v is not None:
                    v.render(out, sizes, starts, samples_)
                    if not v.alive:
                        voices[i] = None
                        self.sounding.discard(i)
        return buffer
