"""MIDI out: cues as MIDI messages to a port or a virtual port, with MIDI clock (24 ticks a
quarter note) and start/stop, so a DAW records the notes and follows the tempo.

`midi_messages` is the stream before the port (pure, what a test checks): a note is a
program change when its channel's program changes, a note-on at its time and a note-off at
its end; `clock`, `start` and `stop` cues are the one-byte real-time messages. `open_midi_out`
opens the port: an existing port whose name contains `--midi-out NAME` (case-blind), else a
new virtual port called NAME (a DAW sees it as an input). python-rtmidi is an optional extra
(`scripts/setup live`, or `pip install '.[live]'` in the checkout); a machine without a MIDI
subsystem (Linux without the ALSA sequencer, /dev/snd/seq) is one line, `ConfigError`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from bandstand.errors import ConfigError, InvalidInput
from bandstand.jam.liveout.cues import Cue

__all__ = ["CLOCK", "START", "STOP", "MidiOut", "midi_messages", "no_midi_subsystem", "open_midi_out"]

CLOCK, START, STOP = 0xF8, 0xFA, 0xFC
_NOTE_ON, _NOTE_OFF, _PROGRAM, _CONTROL = 0x90, 0x80, 0xC0, 0xB0
_ALL_NOTES_OFF = 123
_ALSA_SEQ = "/dev/snd/seq"


def midi_messages(cue: Cue, programs: dict[int, int]) -> list[tuple[float, list[int]]]:
    """The MIDI messages of `cue` and when each is sent (Unix seconds). `programs` is each
    channel's program so far (updated here: a program change only when it changes)."""
    if cue.kind == "clock":
        return [(cue.at, [CLOCK])]
    if cue.kind == "start":
        return [(cue.at, [START])]
    if cue.kind == "stop":
        return [(cue.at, [STOP]), *((cue.at, [_CONTROL | ch, _ALL_NOTES_OFF, 0]) for ch in sorted(programs))]
    if cue.key is None:
        return []
    channel = cue.channel & 0x0F
    out: list[tuple[float, list[int]]] = []
    if cue.program is not None and programs.get(channel) != cue.program:
        out.append((cue.at, [_PROGRAM | channel, cue.program]))
    programs.setdefault(channel, cue.program if cue.program is not None else 0)
    if cue.program is not None:
        programs[channel] = cue.program
    velocity = max(1, min(127, cue.velocity))
    out.append((cue.at, [_NOTE_ON | channel, cue.key, velocity]))
    out.append((cue.at + max(cue.duration, 0.001), [_NOTE_OFF | channel, cue.key, 0]))
    return out


def no_midi_subsystem() -> str | None:
    """Why this machine cannot send MIDI (None when it can, as far as can be told before trying)."""
    import importlib.util

    if importlib.util.find_spec("rtmidi") is None:
        return ("--midi-out needs python-rtmidi, which is not installed; install it: "
                "scripts/setup live (or pip install python-rtmidi)")
    if sys.platform.startswith("linux") and not os.path.exists(_ALSA_SEQ):
        return (f"--midi-out: this machine has no MIDI subsystem (no ALSA sequencer, {_ALSA_SEQ}); "
                "load it (sudo modprobe snd-seq) or send to SuperDirt with --osc HOST:PORT instead")
    return None


def open_midi_out(name: str) -> MidiOut:
    """The MIDI port `name` names, opened (see the module docstring); `ConfigError` in one line
    when this machine cannot send MIDI or has no such port and cannot make a virtual one."""
    if not name.strip():
        raise InvalidInput("--midi-out needs a port name, e.g. --midi-out bandstand (a new virtual port) "
                           "or part of an existing port's name")
    why = no_midi_subsystem()
    if why:
        raise ConfigError(why)
    import rtmidi

    try:
        port = rtmidi.MidiOut(name="bandstand")
    except (rtmidi.SystemError, RuntimeError) as exc:
        raise ConfigError(f"--midi-out: this machine's MIDI subsystem refused a client ({exc}); "
                          "send to SuperDirt with --osc HOST:PORT instead") from None
    names = port.get_ports()
    found = next((i for i, n in enumerate(names) if name.lower() in n.lower()), None)
    try:
        if found is not None:
            port.open_port(found)
            return MidiOut(port, names[found])
        port.open_virtual_port(name)
        return MidiOut(port, f"{name} (virtual)")
    except (rtmidi.SystemError, rtmidi.InvalidUseError, NotImplementedError) as exc:
        known = ", ".join(names) or "none"
        raise ConfigError(f"--midi-out {name!r}: cannot open it as a port or a virtual port ({exc}); "
                          f"ports here: {known}") from None


class MidiOut:
    """Cues to an open MIDI `port` (python-rtmidi's `MidiOut`, or anything with its
    `send_message` and `close_port`), called `port_name`."""

    def __init__(self, port: Any, port_name: str) -> None:
        self._port = port
        self.port_name = port_name
        self._programs: dict[int, int] = {}

    def messages(self, cue: Cue) -> list[tuple[float, Any]]:
        return midi_messages(cue, self._programs)

    def describe(self) -> str:
        return f"MIDI port {self.port_name} (notes, clock, start/stop)"

    def send(self, message: Any) -> None:
        self._port.send_message(message)

    def close(self) -> None:
        self._port.close_port()
