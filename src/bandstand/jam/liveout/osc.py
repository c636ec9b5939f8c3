"""OSC to SuperDirt: each note cue as a `/dirt/play` message in a bundle stamped with the
time it sounds, sent `latency` seconds ahead over UDP — what Tidal and Strudel's OSC bridge
send, so SuperDirt plays it on time whatever the network's jitter.

The message's arguments are name/value pairs: `s` (the sound), `note` (semitones from
middle C, SuperDirt's convention: MIDI 60 is 0; absent for a drum sample), `gain`, `pan`,
`orbit` (one a part), `cps`, `cycle`, `delta` (the note's length in seconds) and `legato`
1 (hold it that long). python-osc is an optional extra (`scripts/setup live`, or
`pip install '.[live]'` in the checkout).
"""

from __future__ import annotations

import re
import socket
from typing import Any

from bandstand.errors import ConfigError, InvalidInput
from bandstand.jam.liveout.cues import Cue

__all__ = ["DEFAULT_LATENCY", "DIRT_ADDRESS", "SUPERDIRT_PORT", "OscOut", "dirt_args", "dirt_bundle", "osc_address"]

DIRT_ADDRESS = "/dirt/play"
SUPERDIRT_PORT = 57120
DEFAULT_LATENCY = 0.2
"""Seconds each bundle is sent before it sounds (Tidal's default oLatency is 0.1–0.3)."""
MIDDLE_C = 60

_ADDRESS = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9._-]+))(?::(?P<port>\d{1,5}))?$")


def osc_address(text: str, option: str = "--osc") -> tuple[str, int]:
    """`HOST:PORT` (or `HOST`, SuperDirt's port 57120; `[::1]:57120` for IPv6) as a pair; a
    malformed one is `InvalidInput` naming the option."""
    match = _ADDRESS.match(text.strip())
    port = int(match.group("port")) if match and match.group("port") else SUPERDIRT_PORT
    if match is None or not 0 < port < 65536:
        raise InvalidInput(f"{option} {text!r} is not HOST:PORT; e.g. {option} 127.0.0.1:{SUPERDIRT_PORT} "
                           "(SuperDirt's port)")
    return match.group("v6") or match.group("host"), port


def dirt_args(cue: Cue) -> list[Any]:
    """The `/dirt/play` arguments of a note cue (name, value, name, value, …)."""
    args: list[Any] = ["s", cue.s]
    if cue.note is not None:
        args += ["note", float(cue.note - MIDDLE_C)]
    args += ["gain", float(cue.gain), "pan", float(cue.pan), "orbit", int(cue.orbit), "cps", float(cue.cps),
             "cycle", float(cue.cycle), "delta", float(cue.duration), "legato", 1.0]
    return args


def _require() -> None:
    import importlib.util

    if importlib.util.find_spec("pythonosc") is None:
        raise ConfigError("--osc needs python-osc, which is not installed; install it: "
                          "scripts/setup live (or pip install python-osc)")


class OscOut:
    """Sends note cues to a SuperDirt at `host:port` as timestamped bundles, `latency` seconds
    ahead (transport cues have no OSC message: SuperDirt keeps no clock)."""

    def __init__(self, host: str, port: int, *, latency: float = DEFAULT_LATENCY) -> None:
        _require()
        if not 0.0 <= latency <= 10.0:
            raise InvalidInput(f"--latency {latency} is out of range; use 0..10 seconds")
        try:
            info = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        except socket.gaierror as exc:
            raise InvalidInput(f"--osc {host}:{port}: no such host ({exc.strerror}); "
                               f"e.g. --osc 127.0.0.1:{SUPERDIRT_PORT}") from None
        self.latency = latency
        self.target: Any = info[4]
        self.where = f"{host}:{port}"
        self._sock = socket.socket(info[0], socket.SOCK_DGRAM)

    def messages(self, cue: Cue) -> list[tuple[float, Any]]:
        """A note cue's bundle (its bytes), to send `latency` before it sounds."""
        if cue.kind != "note":
            return []
        return [(cue.at - self.latency, dirt_bundle(cue))]

    def describe(self) -> str:
        return f"SuperDirt at {self.where} (OSC {DIRT_ADDRESS}, {self.latency:g} s ahead)"

    def send(self, message: Any) -> None:
        self._sock.sendto(message, self.target)

    def close(self) -> None:
        self._sock.close()


def dirt_bundle(cue: Cue) -> bytes:
    """The OSC bundle of a note cue: `/dirt/play` with `dirt_args`, stamped with `cue.at`."""
    from pythonosc.osc_bundle_builder import OscBundleBuilder
    from pythonosc.osc_message_builder import OscMessageBuilder

    message = OscMessageBuilder(address=DIRT_ADDRESS)
    for arg in dirt_args(cue):
        message.add_arg(arg)
    bundle = OscBundleBuilder(cue.at)  # type: ignore[arg-type]  # python-osc types it int; it takes Unix seconds
    bundle.add_content(message.build())
    return bundle.build().dgram
