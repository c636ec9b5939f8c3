"""Live out: the jam and songs played into SuperDirt (OSC) and MIDI ports, on time.

`cues` turns a jam's cycles or a song's notes into timed cues on the wall clock; the
`scheduler` sends them from a thread, each output's messages when they are due (OSC
bundles ahead of time with their timestamp, MIDI at their moment, with clock and
start/stop); `feed` subscribes a scheduler to a jam's emitter; `osc` and `midi` are the two
outputs. `open_outputs` checks and opens what the options ask for, before anything plays.
"""

from __future__ import annotations

from bandstand.jam.liveout.cues import CLOCK_PPQN, Channels, Cue, clock_cues, events_cues, song_cues
from bandstand.jam.liveout.feed import LiveFeed, feeding
from bandstand.jam.liveout.scheduler import Output, Scheduler, Sent

__all__ = [
    "CLOCK_PPQN",
    "Channels",
    "Cue",
    "LiveFeed",
    "Output",
    "Scheduler",
    "Sent",
    "clock_cues",
    "events_cues",
    "feeding",
    "open_outputs",
    "song_cues",
]


def open_outputs(osc: str | None = None, midi_out: str | None = None, *, latency: float | None = None) -> list[Output]:
    """The outputs `--osc HOST:PORT` and `--midi-out NAME` ask for, opened (a wrong address, a
    missing extra or a machine without MIDI is one clear line, raised before anything plays)."""
    from bandstand.jam.liveout.osc import DEFAULT_LATENCY, OscOut, osc_address

    outputs: list[Output] = []
    try:
        if osc is not None:
            host, port = osc_address(osc)
            outputs.append(OscOut(host, port, latency=DEFAULT_LATENCY if latency is None else latency))
        if midi_out is not None:
            from bandstand.jam.liveout.midi import open_midi_out

            outputs.append(open_midi_out(midi_out))
    except BaseException:
        for output in outputs:
            output.close()
        raise
    return outputs
