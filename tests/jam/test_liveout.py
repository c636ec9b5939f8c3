"""Live out from a real jam engine and transport: each cycle the transport sends becomes one
timed stream of cues that goes to SuperDirt (OSC bundles, to a local OSC peer) and to MIDI (the
message stream before the port, kept by a port that records what it is sent) — the same notes
at the same times, the MIDI clock at 24 ticks a quarter note in phase with the bars, a start
before the first note and a stop (and all notes off) when the jam stops."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bandstand.jam.engine import JamEngine
from bandstand.jam.liveout import LiveFeed, Scheduler
from bandstand.jam.liveout.midi import CLOCK, START, STOP, MidiOut
from bandstand.jam.liveout.osc import OscOut
from bandstand.jam.persona import resolve_members
from bandstand.jam.transport import Transport
from bandstand.protocol import Emitter

from ..peers.osc_peer import OscPeer

pytest.importorskip("pythonosc")


class RecordingPort:
    """Stands in for python-rtmidi's MidiOut: keeps each message with when it was sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, list[int]]] = []
        self.closed = False

    def send_message(self, message: list[int]) -> None:
        self.sent.append((time.time(), list(message)))

    def close_port(self) -> None:
        self.closed = True


async def test_a_jam_goes_to_osc_and_midi_as_one_timed_stream() -> None:
    emitter = Emitter()
    engine = JamEngine(resolve_members(["beat", "groove"]), emitter=emitter)
    transport = Transport(engine)
    port = RecordingPort()
    with OscPeer() as peer:
        scheduler = Scheduler([OscOut("127.0.0.1", peer.port, latency=0.5), MidiOut(port, "test")])
        feed = LiveFeed(scheduler)
        emitter.subscribe(feed.feed)
        await engine.start()
        try:
            seconds = engine.context.cycle_seconds  # 2 s: 4/4 at 120 BPM
            origin = time.time() + 0.5
            events = [transport.advance(at=origin + i * seconds) for i in range(2)]
            assert scheduler.drain(timeout=60)
        finally:
            await engine.stop()
            feed.stop()
            assert scheduler.drain(timeout=30)
            scheduler.close()
        sent = list(scheduler.sent)
        notes = [e for cycle in events for e in cycle]
        got = peer.wait_for(len(notes), timeout=30)

    # OSC: a bundle a note, stamped with when it sounds, a cycle a bar at 120 BPM
    assert len(got) == len(notes) > 8
    assert [b.timestamp for b in got] == sorted(b.timestamp for b in got)
    for b in got:
        assert b.timestamp == pytest.approx(origin + b.args["cycle"] * seconds, abs=1e-3)
        assert b.args["cps"] == pytest.approx(1 / seconds)
    assert sorted(b.args["s"] for b in got) == sorted(e.sound for e in notes)
    assert {b.args["orbit"] for b in got} == {0, 1}  # an orbit a member

    # MIDI: the same notes at the same times, on their own channels, each note-on with its off
    messages = [m for _, m in port.sent]
    assert messages[0] == [START] and messages.count([START]) == 1
    stop_at = messages.index([STOP])
    assert all(m[0] & 0xF0 == 0xB0 and m[1] == 123 for m in messages[stop_at + 1:])  # all notes off after the stop
    ons = [(t, m) for t, m in port.sent if m[0] & 0xF0 == 0x90]
    offs = [m for _, m in port.sent if m[0] & 0xF0 == 0x80]
    playable = [e for e in notes if e.key is not None]
    assert len(ons) == len(playable) and sorted((m[0], m[1]) for _, m in ons) == sorted(
        (m[0] & 0x0F | 0x90, m[1]) for m in offs)
    drums = [e for e in playable if e.program is None]
    assert len([m for _, m in ons if m[0] & 0x0F == 9]) == len(drums) > 0  # the kit on channel 10
    # one stream: a MIDI note-on is due when its note sounds, its OSC bundle 0.5 s (the latency) before
    midi_due = sorted(s.due for s in sent if s.output == 1 and s.message[0] & 0xF0 == 0x90)
    osc_due = sorted(s.due + 0.5 for s in sent if s.output == 0 and s.cue.key is not None)
    assert midi_due == pytest.approx(osc_due, abs=1e-6)
    # the sent clock: 24 ticks a quarter, 96 a 4/4 cycle, from the first cycle's start
    ticks = [t for t, m in port.sent if m == [CLOCK]]
    assert len(ticks) == 2 * 96


def test_the_cues_of_a_cycle_are_the_stream_osc_and_midi_share() -> None:
    """The stream before the ports, computed and not sent: when each MIDI message and each OSC
    bundle of one cycle goes out."""
    from bandstand.jam.liveout import Channels, clock_cues, events_cues
    from bandstand.jam.liveout.midi import midi_messages

    message: dict[str, Any] = {
        "type": "events", "cycle": 3, "cycle_seconds": 2.0, "at": 1000.0,
        "events": [
            {"begin": 0.0, "duration": 0.25, "member": "BEAT", "sound": "bd", "key": 36, "velocity": 100,
             "program": None, "gain": 0.9},
            {"begin": 0.5, "duration": 0.5, "member": "GROOVE", "sound": "gm_acoustic_bass", "note": 36.0,
             "key": 36, "velocity": 90, "program": 32},
        ],
    }
    kick, bass = events_cues(message, Channels())
    assert (kick.at, kick.cycle, kick.channel, kick.orbit) == (1000.0, 3.0, 9, 0)
    assert (bass.at, bass.cycle, bass.channel, bass.orbit, bass.duration) == (1001.0, 3.5, 0, 1, 1.0)
    programs: dict[int, int] = {}
    assert midi_messages(bass, programs) == [(1001.0, [0xC0, 32]), (1001.0, [0x90, 36, 90]), (1002.0, [0x80, 36, 0])]
    assert midi_messages(bass, programs)[0] == (1001.0, [0x90, 36, 90])  # no second program change
    assert midi_messages(kick, programs) == [(1000.0, [0x99, 36, 100]), (1000.5, [0x89, 36, 0])]
    ticks = clock_cues(1000.0, 2.0, 4.0)
    assert len(ticks) == 96 and ticks[1].at - ticks[0].at == pytest.approx(2.0 / 96)
    assert [c.at for c in clock_cues(1000.0, 1.75, 3.5)][-1] == pytest.approx(1000.0 + 1.75 * 83 / 84)  # 7/8: 84 ticks
    from bandstand.jam.liveout.osc import dirt_args

    assert dirt_args(bass) == ["s", "gm_acoustic_bass", "note", -24.0, "gain", 0.8, "pan", 0.5, "orbit", 1,
                               "cps", 0.5, "cycle", 3.5, "delta", 1.0, "legato", 1.0]
