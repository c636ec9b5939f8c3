"""Section signals: keyed by section and contract, first write wins, waiters time out."""

from __future__ import annotations

import asyncio

from bandstand.producer.teams.signals import DrumSignal, LocalSignals, SignalKey, drum_signal
from bandstand.score import Note


def kit(bars: int = 2) -> list[Note]:
    notes = []
    for bar in range(bars):
        notes += [Note(bar * 4.0, 0.1, 36, 110), Note(bar * 4.0 + 2.5, 0.1, 36, 90), Note(bar * 4.0 + 1.0, 0.1, 38, 100)]
    return notes


def test_a_drum_signal_holds_the_kicks_of_every_bar_and_the_telemetry() -> None:
    signal = drum_signal("Verse", kit(), 2, 4.0, 16)
    assert signal.kicks == (((0, 110), (10, 90)), ((0, 110), (10, 90)))
    assert signal.telemetry.kick == "x.........x....."
    assert signal.telemetry.notes == 6 and signal.telemetry.density == 6 / 8
    assert DrumSignal.from_dict(signal.to_dict()) == signal


def test_a_bar_without_kicks_falls_back_to_the_fingerprint() -> None:
    notes = [n for n in kit() if not (n.pitch == 36 and n.start >= 4.0)]
    signal = drum_signal("Verse", notes, 2, 4.0, 16)
    assert signal.kicks[1] == ()
    velocity = round(signal.telemetry.velocity_mean)
    assert signal.bar_kicks(1) == ((0, velocity), (10, velocity))


async def test_the_first_write_wins_and_waiters_get_it() -> None:
    signals = LocalSignals()
    key = SignalKey(1, "abc")
    waiter = asyncio.create_task(signals.wait(key, 5.0))
    first, second = drum_signal("A", kit(), 2, 4.0, 16), drum_signal("B", kit(1), 1, 4.0, 16)
    assert await signals.publish(key, first) is True
    assert await signals.publish(key, second) is False
    assert await waiter == first
    assert await signals.wait(key, 0.0) == first


async def test_another_contract_never_hears_the_signal_and_a_waiter_times_out() -> None:
    signals = LocalSignals()
    await signals.publish(SignalKey(1, "abc"), drum_signal("A", kit(), 2, 4.0, 16))
    assert await signals.wait(SignalKey(1, "other"), 0.05) is None
    assert await signals.wait(SignalKey(2, "abc"), 0.05) is None
