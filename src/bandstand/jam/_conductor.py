"""Meta events added to a written MIDI file's conductor track (track 0).

The song model has one key and one metre, which the MIDI writer puts at tick
0; a jam changes both as it plays. `add_meta` decodes track 0 (the writer
puts only meta events there), adds the jam's later time-signature and
key-signature events at their ticks and encodes it again, so a DAW that
reads the file draws its bar lines and key where the band played them.
"""

from __future__ import annotations

import struct

from bandstand.midi import key_signature

__all__ = ["META_KEY_SIGNATURE", "META_TIME_SIGNATURE", "add_meta", "key_event", "time_event"]

META_TIME_SIGNATURE, META_KEY_SIGNATURE, META_END = 0x58, 0x59, 0x2F


def _vlq(value: int) -> bytes:
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def _read_vlq(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    while True:
        byte = data[at]
        at += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at


def time_event(signature: str) -> tuple[int, bytes]:
    """(meta type, data) of a time signature such as '7/8' (24 clocks a click, 8 32nds a beat)."""
    numerator, _, unit = signature.partition("/")
    return META_TIME_SIGNATURE, bytes((int(numerator), int(unit or 4).bit_length() - 1, 24, 8))


def key_event(key: str) -> tuple[int, bytes] | None:
    """(meta type, data) of a key such as 'D major'; None for a key MIDI cannot sign (a mode)."""
    sig = key_signature(key)
    return None if sig is None else (META_KEY_SIGNATURE, struct.pack(">bB", sig.sharps, 1 if sig.minor else 0))


def _conductor_events(track: bytes) -> list[tuple[int, int, bytes]]:
    events, at, tick = [], 0, 0
    while at < len(track):
        delta, at = _read_vlq(track, at)
        tick += delta
        if track[at] != 0xFF:
            raise ValueError("the conductor track holds only meta events")
        kind = track[at + 1]
        length, at = _read_vlq(track, at + 2)
        events.append((tick, kind, track[at:at + length]))
        at += length
    return events


def add_meta(midi: bytes, extra: list[tuple[int, int, bytes]]) -> bytes:
    """The file `midi` with `extra` (tick, meta type, data) events added to its conductor track,
    each after the events already at its tick; the end of the track stays last."""
    if not extra:
        return midi
    header_length = struct.unpack(">I", midi[4:8])[0]
    first = 8 + header_length
    if midi[first:first + 4] != b"MTrk":
        raise ValueError("not a Standard MIDI File with a conductor track")
    length = struct.unpack(">I", midi[first + 4:first + 8])[0]
    events = _conductor_events(midi[first + 8:first + 8 + length])
    end = max((tick for tick, kind, _ in events if kind == META_END), default=0)
    events = [e for e in events if e[1] != META_END] + sorted(extra, key=lambda e: e[0])
    events.sort(key=lambda e: e[0])  # stable: the writer's events first at a shared tick
    out, now = bytearray(), 0
    for tick, kind, data in events:
        out += _vlq(tick - now) + bytes((0xFF, kind)) + _vlq(len(data)) + data
        now = tick
    out += _vlq(max(end, now) - now) + bytes((0xFF, META_END, 0))
    return midi[:first] + b"MTrk" + struct.pack(">I", len(out)) + bytes(out) + midi[first + 8 + length:]
