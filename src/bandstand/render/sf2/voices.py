"""The compiled engine's voices (see `engine.py`): envelopes, LFOs, a voice's start, pitch and
pan, and `render`, which plays one request of TinySoundFont's into a track's row.

Numbers live in the arrays of `layout.py` (`vf`, `vi`: one row per voice slot; `rf`: the
font's regions). A request is cut in blocks of 64 frames from its start; each voice, in slot
order, takes its control values at the start of each block (envelope and LFO levels → gains,
pitch ratio, filter coefficients), plays the block's samples, then steps its envelopes and
LFOs. The samples are played in runs that are clear of the sample's end and the loop's end
and fold (so need none of their tests), with a frame of every test between runs. Each voice's
arithmetic is exactly TinySoundFont's (as `voice.py` ports it), voices add into a frame in
slot order, so the sum is TinySoundFont's within float rounding.

What bounds the speed is the per-sample chain: the interpolation, TinySoundFont's float64
lowpass (a chain of dependent operations) and the two adds into the row, about 4 ns a
voice-sample here. Two voices side by side in one loop gained 10% in isolation and lost it
to the bookkeeping; the loop stays one voice at a time.

These functions are compiled by `engine.load` (numba); as plain Python they would run, very
slowly."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bandstand.render.sf2 import layout as L

BLOCK = 64
NONE, DELAY, ATTACK, HOLD, DECAY, SUSTAIN, RELEASE, DONE = range(8)
FOREVER = 0x7FFFFFFF
CENTS_LIMIT = 120_000.0

HELPERS = ("expf", "timecents", "gain_to_db", "db_to_gain", "release_samples", "segment", "env_next", "env_start",
           "env_step", "lfo_start", "lfo_step", "set_pan", "set_pitch", "voice_start", "release",
           "stop_quickly", "flags", "render_voice", "render")


def expf(x: float) -> Any:
    """C's expf: e^x of a float32, rounded to float32."""
    return np.float32(math.exp(np.float64(np.float32(x))))


def timecents(tc: float) -> float:
    return np.float64(np.float32(2.0 ** np.float64(np.float32(tc) / np.float32(1200.0))))


def gain_to_db(gain: float) -> float:
    if gain <= 0.00001:
        return -100.0
    return np.float64(np.float32(20.0 * math.log10(gain)))


def db_to_gain(db: float) -> Any:
    if db > -100.0:
        return np.float32(10.0 ** np.float64(np.float32(db) * np.float32(0.05)))
    return np.float32(0.0)


# -- envelopes and LFOs ----------------------------------------------------------------------

def release_samples(vf: Any, v: int, fb: int, rate: float) -> int:
    release = vf[v, fb + L.ENV_STAGES + 5]
    seconds = release if release > 0 else 0.01
    return int(np.float32(seconds) * np.float32(rate))


def segment(vf: Any, vi: Any, v: int, fb: int, ib: int, which: int, level: float, slope: float,
            exponential: int) -> None:
    """An envelope enters segment `which` at `level`, stepping by `slope` (× per sample when
    `exponential`, else +)."""
    vi[v, ib + L.ENV_SEGMENT] = which
    vi[v, ib + L.ENV_EXPONENTIAL] = exponential
    vf[v, fb + L.ENV_LEVEL] = level
    vf[v, fb + L.ENV_SLOPE] = slope


def env_next(vf: Any, vi: Any, v: int, fb: int, ib: int, active: int, amp: bool, rate: float) -> None:
    """The envelope's segment after `active` (TinySoundFont's tsf_voice_envelope_nextsegment)."""
    delay = vf[v, fb + L.ENV_STAGES]
    attack = vf[v, fb + L.ENV_STAGES + 1]
    hold = vf[v, fb + L.ENV_STAGES + 2]
    decay = vf[v, fb + L.ENV_STAGES + 3]
    sustain = vf[v, fb + L.ENV_STAGES + 4]
    r32 = np.float32(rate)
    if active == NONE:
        until = int(np.float32(delay) * r32)
        vi[v, ib + L.ENV_UNTIL] = until
        if until > 0:
            segment(vf, vi, v, fb, ib, DELAY, 0.0, 0.0, 0)
            return
        active = DELAY
    if active == DELAY:
        until = int(np.float32(attack) * r32)
        vi[v, ib + L.ENV_UNTIL] = until
        if until > 0:
            if not amp:  # the modulation attack shortens with velocity
                scale = np.float32(np.float32(145 - vi[v, L.I_VELOCITY]) / np.float32(144.0))
                until = int(np.float32(attack) * scale * r32)
                vi[v, ib + L.ENV_UNTIL] = until
            step = np.float64(np.float32(1.0) / np.float32(until)) if until else 0.0
            segment(vf, vi, v, fb, ib, ATTACK, 0.0, step, 0)
            return
        active = ATTACK
    if active == ATTACK:
        until = int(np.float32(hold) * r32)
        vi[v, ib + L.ENV_UNTIL] = until
        if until > 0:
            segment(vf, vi, v, fb, ib, HOLD, 1.0, 0.0, 0)
            return
        active = HOLD
    if active == HOLD:
        until = int(np.float32(decay) * r32)
        vi[v, ib + L.ENV_UNTIL] = until
        if until > 0:
            vi[v, ib + L.ENV_SEGMENT] = DECAY
            vf[v, fb + L.ENV_LEVEL] = 1.0
            if amp:
                mystery = np.float64(np.float32(-9.226) / np.float32(until))
                vf[v, fb + L.ENV_SLOPE] = np.float64(expf(mystery))
                vi[v, ib + L.ENV_EXPONENTIAL] = 1
                if sustain > 0.0:
                    vi[v, ib + L.ENV_UNTIL] = int(math.log(sustain) / mystery)
            else:
                vf[v, fb + L.ENV_SLOPE] = np.float64(np.float32(-1.0) / np.float32(until))
                vi[v, ib + L.ENV_UNTIL] = int(np.float32(decay) * np.float32(np.float32(1.0) - np.float32(sustain))
                                              * r32)
                vi[v, ib + L.ENV_EXPONENTIAL] = 0
            return
        active = DECAY
    if active == DECAY:
        segment(vf, vi, v, fb, ib, SUSTAIN, sustain, 0.0, 0)
        vi[v, ib + L.ENV_UNTIL] = FOREVER
        return
    if active == SUSTAIN:
        vi[v, ib + L.ENV_SEGMENT] = RELEASE
        until = release_samples(vf, v, fb, rate)
        vi[v, ib + L.ENV_UNTIL] = until
        if amp:
            mystery = np.float64(np.float32(-9.226) / np.float32(until))
            vf[v, fb + L.ENV_SLOPE] = np.float64(expf(mystery))
            vi[v, ib + L.ENV_EXPONENTIAL] = 1
        else:
            vf[v, fb + L.ENV_SLOPE] = np.float64(np.float32(-vf[v, fb + L.ENV_LEVEL]) / np.float32(until))
            vi[v, ib + L.ENV_EXPONENTIAL] = 0
        return
    segment(vf, vi, v, fb, ib, DONE, 0.0, 0.0, 0)
    vi[v, ib + L.ENV_UNTIL] = 0x7FFFFFF


def env_start(vf: Any, vi: Any, rf: Any, v: int, region: int, rb: int, fb: int, ib: int, key: int, amp: bool,
              rate: float) -> None:
    hold = rf[region, rb + 2]
    decay = rf[region, rb + 3]
    if rf[region, rb + 6] != 0.0:
        tc = hold + rf[region, rb + 6] * (60.0 - key)
        hold = 0.0 if tc < -10000.0 else timecents(tc)
    if rf[region, rb + 7] != 0.0:
        tc = decay + rf[region, rb + 7] * (60.0 - key)
        decay = 0.0 if tc < -10000.0 else timecents(tc)
    vf[v, fb + L.ENV_STAGES] = rf[region, rb]
    vf[v, fb + L.ENV_STAGES + 1] = rf[region, rb + 1]
    vf[v, fb + L.ENV_STAGES + 2] = hold
    vf[v, fb + L.ENV_STAGES + 3] = decay
    vf[v, fb + L.ENV_STAGES + 4] = rf[region, rb + 4]
    vf[v, fb + L.ENV_STAGES + 5] = rf[region, rb + 5]
    vf[v, fb + L.ENV_POW_OF] = np.nan
    segment(vf, vi, v, fb, ib, NONE, 0.0, 0.0, 0)
    vi[v, ib + L.ENV_UNTIL] = 0
    env_next(vf, vi, v, fb, ib, NONE, amp, rate)


def env_step(vf: Any, vi: Any, v: int, fb: int, ib: int, size: int, amp: bool, rate: float) -> bool:
    """The envelope after a block of `size` frames; whether it is now done."""
    slope = vf[v, fb + L.ENV_SLOPE]
    if slope != 0.0:
        level = np.float32(vf[v, fb + L.ENV_LEVEL])
        if vi[v, ib + L.ENV_EXPONENTIAL]:
            if size == BLOCK:  # powf(slope, 64), kept while the slope holds (the same value)
                if vf[v, fb + L.ENV_POW_OF] != slope:
                    vf[v, fb + L.ENV_POW] = np.float32(slope ** np.float64(BLOCK))
                    vf[v, fb + L.ENV_POW_OF] = slope
                level = level * np.float32(vf[v, fb + L.ENV_POW])
            else:
                level = level * np.float32(slope ** np.float64(size))
        else:
            level = level + np.float32(slope) * np.float32(size)
        vf[v, fb + L.ENV_LEVEL] = level
    until = vi[v, ib + L.ENV_UNTIL] - size
    vi[v, ib + L.ENV_UNTIL] = until
    if until <= 0:
        env_next(vf, vi, v, fb, ib, vi[v, ib + L.ENV_SEGMENT], amp, rate)
        return bool(vi[v, ib + L.ENV_SEGMENT] == DONE)
    return False


def lfo_start(vf: Any, vi: Any, v: int, fb: int, wait: int, delay: float, freq: float, rate: float) -> None:
    vi[v, wait] = int(np.float32(delay) * np.float32(rate))
    hertz = np.float32(8.176) * np.float32(2.0 ** np.float64(np.float32(freq) / np.float32(1200.0)))
    vf[v, fb + 1] = np.float64(np.float32(4.0) * hertz / np.float32(rate))
    vf[v, fb] = 0.0


def lfo_step(vf: Any, vi: Any, v: int, fb: int, wait: int, size: int) -> None:
    until = vi[v, wait]
    if until > size:
        vi[v, wait] = until - size
        return
    delta = np.float32(vf[v, fb + 1])
    level = np.float32(vf[v, fb]) + delta * np.float32(size)
    if level > 1.0:
        delta = -delta
        level = np.float32(2.0) - level
    elif level < -1.0:
        delta = -delta
        level = np.float32(-2.0) - level
    vf[v, fb] = level
    vf[v, fb + 1] = delta


# -- a voice ---------------------------------------------------------------------------------

def set_pan(vf: Any, rf: Any, v: int, region: int, pan: float) -> None:
    """Pan -0.5 (left) .. 0.5 (right), the region's own added, square-root law."""
    p = np.float64(np.float32(rf[region, L.R_PAN]) + np.float32(pan))
    if p <= -0.5:
        vf[v, L.V_PAN_LEFT] = 1.0
        vf[v, L.V_PAN_RIGHT] = 0.0
    elif p >= 0.5:
        vf[v, L.V_PAN_LEFT] = 0.0
        vf[v, L.V_PAN_RIGHT] = 1.0
    else:
        vf[v, L.V_PAN_LEFT] = np.float32(math.sqrt(np.float64(np.float32(0.5 - p))))
        vf[v, L.V_PAN_RIGHT] = np.float32(math.sqrt(np.float64(np.float32(0.5 + p))))


def set_pitch(vf: Any, vi: Any, rf: Any, v: int, shift: float, rate: float) -> None:
    """The note's pitch, `shift` semitones off (bend and tuning)."""
    region = vi[v, L.I_REGION]
    centre_key = rf[region, L.R_KEYCENTER]
    note = vi[v, L.I_KEY] + rf[region, L.R_TRANSPOSE] + rf[region, L.R_TUNE] / 100.0
    adjusted = centre_key + (note - centre_key) * (rf[region, L.R_KEYTRACK] / 100.0)
    if shift != 0.0:
        adjusted += np.float64(np.float32(shift))
    vf[v, L.V_PITCH_CENTS] = min(max(adjusted * 100.0, -CENTS_LIMIT), CENTS_LIMIT)
    centre = min(max(centre_key * 100.0, -CENTS_LIMIT), CENTS_LIMIT)
    vf[v, L.V_PITCH_FACTOR] = rf[region, L.R_SAMPLE_RATE] / (2.0 ** (centre / 1200.0) * rate)
    vf[v, L.V_RATIO] = np.nan


def voice_start(vf: Any, vi: Any, rf: Any, v: int, region: int, preset: int, key: int, velocity: float,
                channel: int, play_index: int, gain_db: float, rate: float, shift: float, pan: float) -> None:
    midi_velocity = int(np.float32(velocity) * np.float32(127))
    vi[v, L.I_ACTIVE] = 1
    vi[v, L.I_REGION] = region
    vi[v, L.I_PRESET] = preset
    vi[v, L.I_KEY] = key
    vi[v, L.I_CHANNEL] = channel
    vi[v, L.I_PLAY_INDEX] = play_index
    vi[v, L.I_SUSTAINED] = 0
    vi[v, L.I_VELOCITY] = midi_velocity
    vf[v, L.V_GAIN_DB] = np.float32(gain_db) - np.float32(rf[region, L.R_ATTENUATION]) \
        - np.float32(gain_to_db(1.0 / np.float64(np.float32(velocity))))
    vf[v, L.V_GAIN_OF] = np.nan
    vf[v, L.V_POSITION] = rf[region, L.R_OFFSET]
    loop_start = int(rf[region, L.R_LOOP_START])
    loop_end = int(rf[region, L.R_LOOP_END])
    looping = rf[region, L.R_LOOP_MODE] != 0 and loop_start < loop_end
    vi[v, L.I_LOOP_START] = loop_start if looping else 0
    vi[v, L.I_LOOP_END] = loop_end if looping else 0
    env_start(vf, vi, rf, v, region, L.R_AMPENV, L.V_AMPENV, L.I_AMPENV, key, True, rate)
    env_start(vf, vi, rf, v, region, L.R_MODENV, L.V_MODENV, L.I_MODENV, key, False, rate)
    vf[v, L.V_Q_INV] = 1.0 / 10.0 ** ((rf[region, L.R_FILTER_Q] / 10.0) / 20.0)
    vf[v, L.V_Z1] = 0.0
    vf[v, L.V_Z2] = 0.0
    vf[v, L.V_CUTOFF] = np.nan
    vi[v, L.I_FILTER_ON] = 0
    lfo_start(vf, vi, v, L.V_MODLFO, L.I_MODLFO_WAIT, rf[region, L.R_MODLFO_DELAY], rf[region, L.R_MODLFO_FREQ],
              rate)
    lfo_start(vf, vi, v, L.V_VIBLFO, L.I_VIBLFO_WAIT, rf[region, L.R_VIBLFO_DELAY], rf[region, L.R_VIBLFO_FREQ],
              rate)
    set_pitch(vf, vi, rf, v, shift, rate)
    set_pan(vf, rf, v, region, pan)


def release(vf: Any, vi: Any, rf: Any, v: int, rate: float) -> None:
    """The key is let go: envelopes release, a sustain loop plays out."""
    env_next(vf, vi, v, L.V_AMPENV, L.I_AMPENV, SUSTAIN, True, rate)
    env_next(vf, vi, v, L.V_MODENV, L.I_MODENV, SUSTAIN, False, rate)
    if rf[vi[v, L.I_REGION], L.R_LOOP_MODE] == 2:
        vi[v, L.I_LOOP_END] = vi[v, L.I_LOOP_START]
    vi[v, L.I_SUSTAINED] = 0


def stop_quickly(vf: Any, vi: Any, v: int, rate: float) -> None:
    vf[v, L.V_AMPENV + L.ENV_STAGES + 5] = 0.0
    env_next(vf, vi, v, L.V_AMPENV, L.I_AMPENV, SUSTAIN, True, rate)
    vf[v, L.V_MODENV + L.ENV_STAGES + 5] = 0.0
    env_next(vf, vi, v, L.V_MODENV, L.I_MODENV, SUSTAIN, False, rate)
    vi[v, L.I_SUSTAINED] = 0


# -- playing ---------------------------------------------------------------------------------

def flags(vf: Any, vi: Any, rf: Any, v: int) -> int:
    """What the voice's control values follow: 1 pitch moves, 2 the cutoff moves, 4 the gain
    moves (with the modulation LFO), 8 the modulation envelope is used, 16 the modulation
    LFO, 32 the vibrato LFO."""
    region = vi[v, L.I_REGION]
    to_pitch_lfo = rf[region, L.R_MODLFO_TO_PITCH] != 0.0
    to_pitch_vib = rf[region, L.R_VIBLFO_TO_PITCH] != 0.0
    to_pitch_env = rf[region, L.R_MODENV_TO_PITCH] != 0.0
    to_fc_lfo = rf[region, L.R_MODLFO_TO_FC] != 0.0
    to_fc_env = rf[region, L.R_MODENV_TO_FC] != 0.0
    to_volume = rf[region, L.R_MODLFO_TO_VOLUME] != 0.0
    out = 0
    if to_pitch_lfo or to_pitch_env or to_pitch_vib:
        out |= 1
    if to_fc_lfo or to_fc_env:
        out |= 2
    if to_volume:
        out |= 4
    if to_pitch_env or to_fc_env:
        out |= 8
    if vf[v, L.V_MODLFO + 1] != 0.0 and (to_pitch_lfo or to_fc_lfo or to_volume):
        out |= 16
    if vf[v, L.V_VIBLFO + 1] != 0.0 and to_pitch_vib:
        out |= 32
    return out


def render_voice(vf: Any, vi: Any, rf: Any, samples: Any, v: int, out: Any, at: int, n: int, rate: float) -> int:
    """Add `n` frames of voice `v` into `out` from frame `at`, in blocks of 64 from `at` (one
    request of TinySoundFont's); the voice ends (inactive) when its sample or volume envelope
    does. Returns the frames played."""
    region = vi[v, L.I_REGION]
    follows = flags(vf, vi, rf, v)
    dyn_pitch = (follows & 1) != 0
    dyn_filter = (follows & 2) != 0
    dyn_gain = (follows & 4) != 0
    with_modenv = (follows & 8) != 0
    with_modlfo = (follows & 16) != 0
    with_viblfo = (follows & 32) != 0
    to_pitch_lfo = np.float32(rf[region, L.R_MODLFO_TO_PITCH])
    to_pitch_vib = np.float32(rf[region, L.R_VIBLFO_TO_PITCH])
    to_pitch_env = np.float32(rf[region, L.R_MODENV_TO_PITCH])
    to_volume = np.float32(rf[region, L.R_MODLFO_TO_VOLUME])
    loop_start = vi[v, L.I_LOOP_START]
    loop_end = vi[v, L.I_LOOP_END]
    looping = loop_start < loop_end
    top = loop_end + 1.0
    span = loop_end - loop_start + 1.0
    end = rf[region, L.R_END]
    limit = min(end, loop_end) if looping else end
    position = vf[v, L.V_POSITION]
    z1 = vf[v, L.V_Z1]
    z2 = vf[v, L.V_Z2]
    q_inv = vf[v, L.V_Q_INV]
    pitch_cents = vf[v, L.V_PITCH_CENTS]
    pitch_factor = vf[v, L.V_PITCH_FACTOR]
    pan_left = np.float32(vf[v, L.V_PAN_LEFT])
    pan_right = np.float32(vf[v, L.V_PAN_RIGHT])
    cutoff = np.float32(rf[region, L.R_FILTER_FC])
    lfo_depth = np.float32(rf[region, L.R_MODLFO_TO_FC]) if dyn_filter else np.float32(0.0)
    env_depth = np.float32(rf[region, L.R_MODENV_TO_FC]) if dyn_filter else np.float32(0.0)
    rate32 = np.float32(rate)
    one = np.float32(1.0)
    current = vf[v, L.V_CUTOFF]
    active = vi[v, L.I_FILTER_ON] != 0
    a0 = vf[v, L.V_A0]
    a1 = vf[v, L.V_A1]
    b1 = vf[v, L.V_B1]
    b2 = vf[v, L.V_B2]
    ratio = vf[v, L.V_RATIO]
    if not dyn_pitch and ratio != ratio:  # NaN: the pitch changed
        ratio = 2.0 ** (pitch_cents / 1200.0) * pitch_factor
        vf[v, L.V_RATIO] = ratio
    if vf[v, L.V_GAIN_OF] != vf[v, L.V_GAIN_DB]:  # the note's gain, kept while its dB hold
        vf[v, L.V_GAIN] = db_to_gain(vf[v, L.V_GAIN_DB])
        vf[v, L.V_GAIN_OF] = vf[v, L.V_GAIN_DB]
    steady_gain = np.float32(vf[v, L.V_GAIN])
    left_row = out[0]
    right_row = out[1]
    blocks = (n + BLOCK - 1) // BLOCK
    frame = at
    ended = False
    done = False
    for block in range(blocks):
        size = BLOCK if block < blocks - 1 else n - BLOCK * (blocks - 1)
        amp = np.float32(vf[v, L.V_AMPENV + L.ENV_LEVEL])
        modenv = np.float32(vf[v, L.V_MODENV + L.ENV_LEVEL]) if with_modenv else np.float32(0.0)
        modlfo = np.float32(vf[v, L.V_MODLFO]) if with_modlfo else np.float32(0.0)
        if dyn_pitch:
            moved = np.float32(0.0)
            if with_modlfo:
                moved += modlfo * to_pitch_lfo
            if with_viblfo:
                moved += np.float32(vf[v, L.V_VIBLFO]) * to_pitch_vib
            if with_modenv:
                moved += modenv * to_pitch_env
            ratio = 2.0 ** ((pitch_cents + np.float64(moved)) / 1200.0) * pitch_factor
        fres = cutoff + modlfo * lfo_depth + modenv * env_depth
        if fres != current:
            current = fres
            fc = np.float32(1.0)
            if fres <= 13500:
                hertz = np.float32(8.176) * np.float32(2.0 ** np.float64(fres / np.float32(1200.0)))
                fc = hertz / rate32
            active = fc < np.float32(0.499)
            if active:
                k = math.tan(math.pi * np.float64(fc))
                kk = k * k
                norm = 1.0 / (1.0 + k * q_inv + kk)
                a0 = kk * norm
                a1 = 2.0 * a0
                b1 = 2.0 * (kk - 1.0) * norm
                b2 = (1.0 - k * q_inv + kk) * norm
        if dyn_gain and with_modlfo:  # the note's gain moves with the modulation LFO (dB)
            db = np.float32(vf[v, L.V_GAIN_DB]) + modlfo * (to_volume * np.float32(0.1))
            gain = np.float32(10.0 ** np.float64(db * np.float32(0.05))) if db > -100.0 else np.float32(0.0)
        else:
            gain = steady_gain
        mono = gain * amp
        left = mono * pan_left
        right = mono * pan_right
        stop = frame + size
        while frame < stop:
            # a run clear of the sample's end and the loop's end and fold needs none of their
            # tests (the same arithmetic in the same order, so the same bits; two frames spare)
            clear = 0
            if ratio > 0.0 and position < limit:
                room = (limit - position) / ratio - 2.0
                if room > 0.0:
                    clear = min(stop - frame, int(room))
            if active:
                for i in range(frame, frame + clear):
                    index = int(position)
                    alpha = np.float32(position - index)
                    x = np.float64(samples[index] * (one - alpha) + samples[index + 1] * alpha)
                    y = x * a0 + z1
                    z1 = x * a1 + z2 - b1 * y
                    z2 = x * a0 - b2 * y
                    value = np.float32(y)
                    left_row[i] += value * left
                    right_row[i] += value * right
                    position += ratio
            else:
                for i in range(frame, frame + clear):
                    index = int(position)
                    alpha = np.float32(position - index)
                    value = samples[index] * (one - alpha) + samples[index + 1] * alpha
                    left_row[i] += value * left
                    right_row[i] += value * right
                    position += ratio
            frame += clear
            if frame >= stop:
                break
            # one frame with every test
            if not position < end:  # (a NaN position ends the voice too)
                ended = True
                break
            index = int(position)
            alpha = np.float32(position - index)
            following = loop_start if looping and index >= loop_end else index + 1
            value = samples[index] * (one - alpha) + samples[following] * alpha
            if active:
                x = np.float64(value)
                y = x * a0 + z1
                z1 = x * a1 + z2 - b1 * y
                z2 = x * a0 - b2 * y
                value = np.float32(y)
            left_row[frame] += value * left
            right_row[frame] += value * right
            frame += 1
            position += ratio
            if looping and position >= top:
                position -= span
        if ended:
            break
        done = env_step(vf, vi, v, L.V_AMPENV, L.I_AMPENV, size, True, rate)
        if with_modenv:
            env_step(vf, vi, v, L.V_MODENV, L.I_MODENV, size, False, rate)
        if with_modlfo:
            lfo_step(vf, vi, v, L.V_MODLFO, L.I_MODLFO_WAIT, size)
        if with_viblfo:
            lfo_step(vf, vi, v, L.V_VIBLFO, L.I_VIBLFO_WAIT, size)
        if done:
            break
    vf[v, L.V_POSITION] = position
    vf[v, L.V_Z1] = z1
    vf[v, L.V_Z2] = z2
    vf[v, L.V_CUTOFF] = current
    vi[v, L.I_FILTER_ON] = 1 if active else 0
    vf[v, L.V_A0] = a0
    vf[v, L.V_A1] = a1
    vf[v, L.V_B1] = b1
    vf[v, L.V_B2] = b2
    if ended or done:
        vi[v, L.I_ACTIVE] = 0
    return frame - at


def render(vf: Any, vi: Any, rf: Any, samples: Any, out: Any, at: int, n: int, rate: float) -> int:
    """Add one request of `n` frames from frame `at` of every sounding voice into `out`, voice
    by voice in slot order; returns the voice-frames played (what the request cost)."""
    played = 0
    for v in range(vi.shape[0]):
        if vi[v, L.I_ACTIVE]:
            played += render_voice(vf, vi, rf, samples, v, out, at, n, rate)
    return played
