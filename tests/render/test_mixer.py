"""The mix is heard: every effect type, fader, pan, mute/solo, sends, buses and automation
change the rendered stems and the master; the master meets its loudness and true-peak targets."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.render import PROCESSORS, Master, render_song
from bandstand.render.dsp import BLOCK, lane_curve, release
from bandstand.render.effects import AUTOMATED
from bandstand.render.master import integrated_loudness, power_envelope, true_peak_blocks
from bandstand.render.mixer import pan_gains
from bandstand.score import (
    EFFECTS,
    AutomationLane,
    AutomationPoint,
    Bus,
    Effect,
    Note,
    Send,
    Song,
    Track,
    TrackMix,
)
from tests.midi.songs import demo_song


def rms(audio: np.ndarray) -> float:
    return float(np.sqrt((audio.astype(np.float64) ** 2).mean()))


def keys_song(mix: TrackMix | None = None, bars: int = 4, program: int = 4) -> Song:
    notes = [Note(b * 4.0 + i, 1.0, p, 96) for b in range(bars) for i, p in enumerate((60, 64, 67, 72))]
    return Song(tempo=120.0, tracks=[Track("Keys", "chords", program=program, notes=notes, mix=mix or TrackMix())])


def stem(song: Song, name: str = "keys") -> np.ndarray:
    return render_song(song, stems=True, workers=1).stems[name]


def test_every_effect_type_has_a_processor() -> None:
    assert set(PROCESSORS) == set(EFFECTS)


@pytest.mark.parametrize("etype", sorted(EFFECTS))
def test_every_effect_changes_what_is_heard(etype: str) -> None:
    # the defaults of an EQ are neutral; a compressor or limiter needs a signal over its threshold
    params = {"compressor": {"threshold_db": -30.0}, "limiter": {"threshold_db": -20.0},
              "eq": {"low_cut_hz": 300.0, "high_gain_db": 6.0}}.get(etype, {})
    dry = stem(keys_song())
    wet = stem(keys_song(TrackMix(inserts=(Effect(etype, params),))))
    n = min(len(dry), len(wet))
    assert np.isfinite(wet).all()
    assert rms(wet[:n] - dry[:n]) > 0.01 * rms(dry), etype
    bypassed = stem(keys_song(TrackMix(inserts=(Effect(etype, params, bypass=True),))))
    assert np.array_equal(bypassed, dry)


def test_volume_pan_mute_and_solo() -> None:
    base = stem(keys_song())
    half = stem(keys_song(TrackMix(volume=0.5)))
    assert rms(half) == pytest.approx(rms(base) / 2, rel=0.02)
    left = stem(keys_song(TrackMix(pan=0.0)))
    assert rms(left[:, 1]) < 1e-6 < rms(left[:, 0])
    assert pan_gains(0.5) == (1.0, 1.0)
    song = demo_song(2, tempo=120.0)
    song.tracks[0].mix = TrackMix(mute=True)
    rendered = render_song(song, stems=True, workers=1)
    assert "drums" not in rendered.stems and "bass" in rendered.stems
    song.tracks[0].mix = TrackMix()
    song.tracks[1].mix = TrackMix(solo=True)
    assert [*render_song(song, stems=True, workers=1).stems] == ["bass"]


def test_sends_feed_the_reverb_bus_and_its_tail() -> None:
    dry = render_song(keys_song(bars=1), stems=True, workers=1)
    wet = render_song(keys_song(TrackMix(sends=(Send("Reverb", 0.5),)), bars=1), stems=True, workers=1)
    assert "bus-reverb" in wet.stems and "bus-reverb" not in dry.stems
    assert len(wet.audio) > len(dry.audio)  # the room rings on after the synth's release
    assert rms(wet.stems["bus-reverb"]) > 0.01
    own = Bus("Reverb", (Effect("reverb", {"room_size": 0.1, "wet": 1.0}), Effect("eq", {"high_cut_hz": 2000.0})))
    song = keys_song(TrackMix(sends=(Send("Reverb", 0.5),)), bars=1)
    song.buses = [own]
    small = render_song(song, stems=True, workers=1)
    assert len(small.audio) < len(wet.audio)  # the song's own (small) room, not the default one
    quiet = replace(own, volume=0.25)
    song.buses = [quiet]
    assert rms(render_song(song, stems=True, workers=1).stems["bus-reverb"]) < rms(small.stems["bus-reverb"])


def bright(audio: np.ndarray) -> float:
    """The share of the energy above 1.5 kHz."""
    power = np.abs(np.fft.rfft(audio.mean(axis=1))) ** 2
    freqs = np.fft.rfftfreq(len(audio), 1 / 44100)
    return float(power[freqs > 1500].sum() / power.sum())


def test_automation_of_volume_pan_and_filter_cutoff() -> None:
    fade = AutomationLane("volume", (AutomationPoint(0.0, 1.0), AutomationPoint(8.0, 1.0), AutomationPoint(8.5, 0.1)))
    out = stem(keys_song(TrackMix(automation=(fade,))))
    half = 8 * 22050
    assert rms(out[half + 44100 : 2 * half]) < 0.2 * rms(out[: half])
    sweep = AutomationLane("pan", (AutomationPoint(0.0, 0.0), AutomationPoint(16.0, 1.0)))
    panned = stem(keys_song(TrackMix(automation=(sweep,))))
    assert rms(panned[:11025, 1]) < 0.2 * rms(panned[:11025, 0])
    late = slice(int(7.5 * 44100), 8 * 44100)
    assert rms(panned[late, 0]) < 0.2 * rms(panned[late, 1])
    opening = AutomationLane("filter.cutoff_hz", (AutomationPoint(0.0, 200.0), AutomationPoint(16.0, 12000.0)))
    swept = stem(keys_song(TrackMix(inserts=(Effect("filter", {"cutoff_hz": 200.0}),), automation=(opening,)),
                           program=81))  # a saw lead: bright enough to hear the filter open
    assert bright(swept[6 * 44100 : 8 * 44100]) > 5 * bright(swept[: 22050])


def test_lane_curves_follow_the_curve_shapes() -> None:
    beats = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    lane = AutomationLane("volume", (AutomationPoint(1.0, 0.0), AutomationPoint(3.0, 1.0, "step"),
                                     AutomationPoint(5.0, 0.0)))
    assert lane_curve(lane, beats, 0.7).tolist() == [0.7, 0.0, 0.5, 1.0, 1.0, 0.0]
    assert [lane_curve(lane, np.array([b]), 0.7)[0] for b in beats] == pytest.approx(
        [lane.value_at(b) if lane.value_at(b) is not None else 0.7 for b in beats])


def test_release_is_the_recurrence() -> None:
    rng = np.random.default_rng(3)
    target = -np.abs(rng.standard_normal(500)) * 10
    expected = target.copy()
    for i in range(1, len(expected)):
        expected[i] = min(target[i], expected[i - 1] + 0.7)
    assert np.allclose(release(target, 0.7), expected)


def test_the_true_peak_estimate_sees_between_samples() -> None:
    # a sine at a quarter of the rate, 45° off: every sample is at 0.707 of the true peak
    n = np.arange(BLOCK * 8)
    x = np.sin(np.pi / 2 * n + np.pi / 4).astype(np.float32) * 0.9
    peaks = true_peak_blocks(np.stack([x, x], axis=1))
    assert np.abs(x).max() == pytest.approx(0.9 * 0.7071, abs=1e-3)
    assert peaks[2:-2].min() == pytest.approx(0.9, rel=0.03)


def test_a_hot_mix_is_limited_under_the_ceiling() -> None:
    from scipy.signal import resample_poly

    done = render_song(keys_song(TrackMix(volume=1.5)), settings=Master(target_lufs=-6.0), workers=1)
    assert 20 * np.log10(np.abs(resample_poly(done.audio, 4, 1, axis=0)).max()) <= -1.0
    assert done.mastered.limiter_max_db > 1.0


@settings(max_examples=40, deadline=None)
@given(st.integers(41, 3000), st.integers(0, 2**32 - 1), st.floats(0.0, 0.9))
def test_the_gating_is_pyloudnorms(hops: int, seed: int, quiet_share: float) -> None:
    import pyloudnorm

    rng = np.random.default_rng(seed)
    envelope = np.abs(rng.standard_normal((hops, 2))) * 0.1
    envelope[: int(hops * quiet_share)] *= 1e-3  # quiet stretches the gates must drop
    expected = pyloudnorm.Meter(100.0, filter_class="custom").integrated_loudness(envelope)
    assert integrated_loudness(envelope, 100.0) == pytest.approx(expected, abs=1e-9)


def test_the_master_meter_agrees_with_pyloudnorm_on_audio() -> None:
    import pyloudnorm

    song = demo_song(4, tempo=120.0)
    audio = render_song(song, workers=1).audio
    env, hop = power_envelope(audio, 44100)
    assert integrated_loudness(env, 44100 / hop) == pytest.approx(
        pyloudnorm.Meter(44100).integrated_loudness(audio.astype(np.float64)), abs=0.05)


@pytest.mark.parametrize(("etype", "param"), [(e, p) for e, ps in AUTOMATED.items() for p in ps])
def test_automated_effect_parameters_are_heard(etype: str, param: str) -> None:
    spec = EFFECTS[etype][param]
    low, high = spec.low, spec.high
    if etype == "compressor" and param == "threshold_db":
        low, high = -40.0, 0.0
    fixed = {"compressor": {"threshold_db": -30.0}, "limiter": {"threshold_db": -20.0}}.get(etype, {})
    fixed = {k: v for k, v in fixed.items() if k != param}
    fx = Effect(etype, {**fixed, param: low})
    lane = AutomationLane(f"{etype}.{param}", (AutomationPoint(0.0, low), AutomationPoint(16.0, high)))
    static = stem(keys_song(TrackMix(inserts=(fx,)), program=81))
    moving = stem(keys_song(TrackMix(inserts=(fx,), automation=(lane,)), program=81))
    n = min(len(static), len(moving))
    assert rms(moving[:n] - static[:n]) > 0.01 * rms(static), (etype, param)


def test_a_fader_at_unity_and_centre_is_skipped_bit_for_bit() -> None:
    """A track at level 1 and pan centre (every track of a MIDI file) is not passed over by its
    fader: x × 1.0 is x, so the row is what a multiplying fader would leave, to the bit; any other
    level still applies."""
    from bandstand.render.mixer import mix_song
    from bandstand.score import AutomationLane, AutomationPoint, Note, Song, Track, TrackMix

    dry = np.random.default_rng(5).normal(0.0, 0.2, (1, 44100, 2)).astype(np.float32)

    def mixed(mix: TrackMix) -> np.ndarray:
        track = Track("Lead", "lead", program=0, notes=[Note(0.0, 1.0, 60, 90)], mix=mix)
        return np.array(mix_song(Song(title="F", tempo=120.0, tracks=[track]), dry.copy()).tracks[0])

    unity = mixed(TrackMix())
    flat = AutomationLane("volume", (AutomationPoint(0.0, 1.0), AutomationPoint(2.0, 1.0)))
    assert np.array_equal(unity, dry[0])
    assert np.array_equal(mixed(TrackMix(automation=(flat,))), unity)  # the fader that multiplies
    assert np.array_equal(mixed(TrackMix(volume=0.5)), dry[0] * np.float32(0.5))


def test_a_one_reverb_bus_hears_its_senders_at_the_rooms_rate() -> None:
    """A bus whose chain is one reverb sums its senders' downmixes (tapped as each track is
    finished) instead of their full-rate audio: the room hears the same signal, added in another
    order, so its return is the general path's within float32 rounding."""
    from bandstand.render.mixer import DEFAULT_REVERB, mix_song
    from bandstand.render.reverb import reverb
    from bandstand.score import Note, Song, Track, TrackMix

    rng = np.random.default_rng(11)
    dry = rng.normal(0.0, 0.2, (2, 3 * 44100, 2)).astype(np.float32)
    mixes = (TrackMix(volume=0.8, pan=0.3, sends=(Send("Reverb", 0.3),)), TrackMix(sends=(Send("Reverb", 0.6),)))
    tracks = [Track(f"T{i}", "lead", program=0, notes=[Note(0.0, 4.0, 60, 90)], mix=m) for i, m in enumerate(mixes)]
    mix = mix_song(Song(title="R", tempo=120.0, tracks=tracks), dry.copy())
    fx = DEFAULT_REVERB.inserts[0]
    sent = (mix.tracks[0] * np.float32(0.3) + mix.tracks[1] * np.float32(0.6)).T.copy()  # the full-rate input
    want = reverb(sent, 44100, fx.num("room_size"), fx.num("damping"), fx.num("pre_delay_ms"), level=fx.num("wet"))
    got = mix.buses["Reverb"].T
    assert np.abs(want).max() > 0.01
    assert np.allclose(got, want, rtol=0.0, atol=2e-6 * float(np.abs(want).max()))
