"""Standard MIDI File bytes → Song, for files of any format and resolution.

Ticks are rescaled to beats with the file's own PPQ. Each (track chunk,
channel) with channel events becomes one `Track`; note-ons and note-offs
pair first-in first-out per pitch. Files we wrote carry a bandstand text
event in track 0 with what MIDI cannot say (roles, explicit channels,
sections); other files get roles guessed from name, channel and program."""

from __future__ import annotations

import json
import os
import stat
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bandstand.errors import InvalidInput, MidiFileError
from bandstand.midi._keys import key_name
from bandstand.midi._limits import MIDI_LIMITS, MidiLimits
from bandstand.midi._roles import guess_role, track_display_name
from bandstand.midi._write import BANDSTAND_TAG, text_of, written_as
from bandstand.score import (
    ChannelAftertouch,
    ControlChange,
    KeyChange,
    Marker,
    MetreChange,
    Note,
    PitchBend,
    PolyAftertouch,
    ProgramChange,
    Section,
    Song,
    TempoChange,
    TimeSignature,
    Track,
)


@dataclass(slots=True)
class _Channel:
    """Raw events of one channel inside one track chunk, times in ticks."""

    notes: list[tuple[int, int, int, int]] = field(default_factory=list)  # start, end, pitch, vel
    controls: list[tuple[int, int, int]] = field(default_factory=list)
    bends: list[tuple[int, int]] = field(default_factory=list)
    pressure: list[tuple[int, int]] = field(default_factory=list)
    poly: list[tuple[int, int, int]] = field(default_factory=list)
    programs: list[tuple[int, int]] = field(default_factory=list)


@dataclass(slots=True)
class _Chunk:
    name: str | None = None
    channels: dict[int, _Channel] = field(default_factory=dict)
    metas: list[tuple[int, int, bytes]] = field(default_factory=list)  # tick, type, data


def _fail(source: str, why: str) -> MidiFileError:
    return MidiFileError(f"{source} is not a readable MIDI file: {why}", path=source)


def _limit(source: str, why: str) -> MidiFileError:
    return MidiFileError(f"{source} is over bandstand's limits: {why} (see 'Limits' in docs/render.md)",
                         path=source)


def _vlq(data: bytes, pos: int, first: int, source: str) -> tuple[int, int]:
    """The rest of a variable-length quantity whose first byte (`first`, with its high bit set)
    was read: its value and the position after it. The standard allows 4 bytes at most."""
    value = first & 0x7F
    for _ in range(3):
        byte = data[pos]
        pos += 1
        value = value << 7 | byte & 0x7F
        if byte < 0x80:
            return value, pos
    raise _fail(source, "a variable-length number is longer than the standard's 4 bytes")


def _length(data: bytes, pos: int, end: int, source: str) -> tuple[int, int]:
    """A meta or SysEx event's length at `pos` and the position after it, checked to fit its track."""
    length = data[pos]
    pos += 1
    if length >= 0x80:
        length, pos = _vlq(data, pos, length, source)
    if pos + length > end:
        raise _fail(source, "an event's length runs past the end of its track")
    return length, pos


def _parse_track(data: bytes, source: str, ppq: int, notes_left: int, events_left: int,
                 limits: MidiLimits = MIDI_LIMITS) -> tuple[_Chunk, int, int]:
    """One track chunk's events and how many notes and events (of any kind) it holds: refused
    past `notes_left` notes or `events_left` events, or when an event lies past the limit's last beat."""
    max_ticks = int(limits.beats * ppq)
    chunk = _Chunk()
    channels = chunk.channels
    open_notes: dict[int, list[tuple[int, int]]] = {}  # (note-on status << 8 | pitch) → starts
    pos, end, tick, status, notes, events = 0, len(data), 0, 0, 0, 0
    try:
        while pos < end:
            events += 1
            if events > events_left:
                raise _limit(source, f"it has more than {limits.events:,} events")
            byte = data[pos]
            pos += 1
            if byte < 0x80:  # most delta times fit in one byte
                tick += byte
            else:
                delta, pos = _vlq(data, pos, byte, source)
                tick += delta
                if tick > max_ticks:
                    break
            byte = data[pos]
            if byte >= 0x80:
                pos += 1
                if byte == 0xFF:
                    kind = data[pos]
                    length, pos = _length(data, pos + 1, end, source)
                    if kind == 0x2F:
                        break
                    if kind == 0x03 and chunk.name is None:
                        chunk.name = text_of(data[pos : pos + length])
                    else:
                        chunk.metas.append((tick, kind, data[pos : pos + length]))
                    pos += length
                    continue
                if byte in (0xF0, 0xF7):
                    length, pos = _length(data, pos, end, source)
                    pos += length
                    status = 0
                    continue
                if byte >= 0xF0:
                    raise _fail(source, f"system message 0x{byte:02X} inside a track")
                status = byte
            elif status == 0:
                raise _fail(source, "running status without a previous status byte")
            kind, ch = status & 0xF0, status & 0x0F
            d1 = data[pos]
            if kind == 0xC0 or kind == 0xD0:
                d2 = 0
                pos += 1
            else:
                d2 = data[pos + 1]
                pos += 2
            if (d1 | d2) >= 0x80:
                raise _fail(source, f"a data byte above 127 (0x{max(d1, d2):02X}) in a channel message")
            c = channels.get(ch)
            if c is None:
                c = channels[ch] = _Channel()
            if kind == 0x90 and d2:
                notes += 1
                if notes > notes_left:
                    raise _limit(source, f"it has more than {limits.notes:,} notes")
                key = status << 8 | d1  # channel and pitch in one int
                started = open_notes.get(key)
                if started is None:
                    open_notes[key] = [(tick, d2)]
                else:
                    started.append((tick, d2))
            elif kind == 0x80 or kind == 0x90:
                started = open_notes.get((0x90 | ch) << 8 | d1)
                if started:
                    on, velocity = started.pop(0)
                    c.notes.append((on, tick, d1, velocity))
            elif kind == 0xB0:
                c.controls.append((tick, d1, d2))
            elif kind == 0xE0:
                c.bends.append((tick, (d2 << 7 | d1) - 8192))
            elif kind == 0xC0:
                c.programs.append((tick, d1))
            elif kind == 0xD0:
                c.pressure.append((tick, d1))
            else:
                c.poly.append((tick, d1, d2))
    except IndexError:
        raise _fail(source, "a track ends in the middle of an event") from None
    if tick > max_ticks:
        raise _limit(source, f"it runs past beat {limits.beats:,g}")
    for key, started in open_notes.items():  # notes never released end with the track
        for on, velocity in started:
            channels[key >> 8 & 0x0F].notes.append((on, tick, key & 0x7F, velocity))
    return chunk, notes, events


def _chunks(data: bytes, source: str, limits: MidiLimits = MIDI_LIMITS) -> tuple[int, int, list[_Chunk]]:
    if len(data) < 14 or data[:4] != b"MThd":
        raise _fail(source, "it does not start with an 'MThd' header")
    length, fmt, ntracks, division = struct.unpack(">IHHH", data[4:14])
    if length < 6 or fmt > 2:
        raise _fail(source, f"unsupported header (format {fmt})")
    if division & 0x8000:
        raise _fail(source, "SMPTE time division is not supported; save it with ticks per beat")
    if division == 0:
        raise _fail(source, "its header says 0 ticks per beat, so no event has a time; the file is damaged")
    pos, chunks, notes, events, tracks = 8 + length, list[_Chunk](), 0, 0, 0
    while pos + 8 <= len(data) and len(chunks) < ntracks:
        kind, size = data[pos : pos + 4], struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        body = data[pos + 8 : pos + 8 + size]
        if len(body) < size:
            raise _fail(source, "the file is truncated")
        if kind == b"MTrk":
            chunk, found, met = _parse_track(body, source, division, limits.notes - notes,
                                             limits.events - events, limits)
            notes += found
            events += met
            tracks += len(chunk.channels)
            if tracks > limits.tracks:
                raise _limit(source, f"it has more than {limits.tracks:,} tracks (a track per chunk and channel)")
            chunks.append(chunk)
        pos += 8 + size
    if len(chunks) < ntracks:
        raise _fail(source, f"the header promises {ntracks} tracks but {len(chunks)} were found")
    return fmt, division, chunks


def _bpm(micros: int) -> float:
    """The shortest decimal bpm (up to 3 places) that encodes back to `micros`."""
    exact = 60_000_000 / micros
    for places in range(4):
        candidate = round(exact, places)
        if candidate > 0 and round(60_000_000 / candidate) == micros:
            return candidate
    return exact


def _track(name: str | None, channel: int, c: _Channel, ppq: int) -> Track:
    programs = c.programs
    program = 0
    if programs and programs[0][0] == 0:
        program, programs = programs[0][1], programs[1:]
    return Track(
        name=name if name is not None else track_display_name(channel, program),
        role=guess_role(name or "", channel, program),
        program=program,
        is_drum=channel == 9,
        channel=channel,
        notes=[
            Note(on / ppq, length / ppq, pitch, velocity)
            for on, pitch, length, velocity in sorted(
                (on, pitch, max(off - on, 1), velocity) for on, off, pitch, velocity in c.notes
            )
        ],
        controls=[ControlChange(t / ppq, k, v) for t, k, v in c.controls],
        pitch_bends=[PitchBend(t / ppq, v) for t, v in c.bends],
        aftertouch=[ChannelAftertouch(t / ppq, v) for t, v in c.pressure],
        poly_aftertouch=[PolyAftertouch(t / ppq, p, v) for t, p, v in c.poly],
        program_changes=[ProgramChange(t / ppq, p) for t, p in programs],
    )


def _metadata(data: bytes, source: str) -> dict[str, Any]:
    try:
        meta = json.loads(data.decode("utf-8"))
    except ValueError as exc:  # also UnicodeDecodeError
        raise _fail(source, f"its bandstand metadata is damaged ({exc})") from None
    if not isinstance(meta, dict):
        raise _fail(source, "its bandstand metadata is damaged (not an object)")
    return meta


def _apply_metadata(song: Song, meta: dict[str, Any]) -> None:
    exact = meta.get("exact", {})  # the exact names of those written with their latin-1 spelling
    if not isinstance(exact, dict):
        raise ValueError(f"exact {exact!r}"[:80])
    title, names, markers = exact.get("title", song.title), exact.get("tracks", {}), exact.get("markers")
    if (not isinstance(title, str) or not isinstance(names, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items())
            or not (markers is None or (isinstance(markers, list) and all(isinstance(m, str) for m in markers)))):
        raise ValueError(f"exact {exact!r}"[:80])
    song.title = title
    for index, name in names.items():
        if index.isdigit() and int(index) < len(song.tracks):
            song.tracks[int(index)].name = name
    texts = meta.get("texts", {})  # files of bandstand 0.1.0 before this: by what a name reads as
    if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()):
        raise ValueError(f"texts {texts!r}"[:80])
    if texts:
        song.title = texts.get(song.title, song.title)
        for track in song.tracks:
            track.name = texts.get(track.name, track.name)
        song.markers = [replace(m, text=texts.get(m.text, m.text)) for m in song.markers]
    tracks = meta.get("tracks", [])
    if len(tracks) == len(song.tracks):
        for track, info in zip(song.tracks, tracks, strict=True):
            channel = info["channel"]
            if channel is not None and (type(channel) is not int or not 0 <= channel <= 15):
                raise ValueError(f"channel {channel!r}")
            track.role = str(info["role"])
            track.is_drum = bool(info["drum"])
            track.channel = channel
    song.sections = [Section(str(n), int(s), int(b), float(e)) for n, s, b, e in meta.get("sections", [])]
    for section in song.sections:  # the section's own marker is not a song marker
        beat = song.bar_to_beat(section.start_bar)
        for i, marker in enumerate(song.markers):
            if marker.text in (section.name, written_as(section.name)) and abs(marker.beat - beat) < 1e-9:
                del song.markers[i]
                break
    if markers is not None and len(markers) == len(song.markers):
        song.markers = [replace(m, text=text) for m, text in zip(song.markers, markers, strict=True)]
    if "key" in meta:
        if not isinstance(meta["key"], str):
            raise ValueError(f"key {meta['key']!r}")
        song.key = meta["key"]
    if "keys" in meta:  # the key map by name, as written
        song.key_changes = [KeyChange(float(beat), str(key)) for beat, key in meta["keys"]]


def midi_bytes_to_song(data: bytes, source: str = "<bytes>", limits: MidiLimits = MIDI_LIMITS) -> Song:
    """Parse Standard MIDI File bytes into a Song (see the module docstring), refusing a file
    over `limits` with a `MidiFileError`."""
    if len(data) > limits.file_bytes:
        raise _limit(source, _too_big(len(data), limits))
    fmt, ppq, chunks = _chunks(data, source, limits)
    try:
        song = _song(fmt, ppq, chunks, source)
    except InvalidInput as exc:
        raise _fail(source, str(exc)) from None
    if song.length_beats > limits.beats:  # sections in our metadata can reach past the notes
        raise _limit(source, f"it runs past beat {limits.beats:,g}")
    seconds = song.duration_seconds
    if seconds > limits.seconds:
        raise _limit(source, f"it lasts {seconds:,.0f} seconds, more than {limits.seconds:,g} ({limits.seconds / 60:g} minutes)")
    track_minutes = len(song.tracks) * seconds / 60
    if track_minutes > limits.track_minutes:  # what the render's full-length buffers grow with
        raise _limit(source, f"its {len(song.tracks):,} tracks × {seconds / 60:,.1f} minutes make "
                             f"{track_minutes:,.0f} track-minutes, more than {limits.track_minutes:,g}")
    return song


def _too_big(size: int | None, limits: MidiLimits) -> str:
    """Why a file of `size` bytes (None: more than the cap, read only one byte past it) is refused."""
    cap = f"{limits.file_bytes:,} bytes ({limits.file_bytes / (1 << 20):g} MiB)"
    return f"it is more than {cap}" if size is None else f"it is {size:,} bytes, more than {cap}"


def _song(fmt: int, ppq: int, chunks: list[_Chunk], source: str) -> Song:
    song = Song()
    tempos: list[tuple[int, float]] = []
    meta: dict[str, Any] | None = None
    time_signature: TimeSignature | None = None
    metres: list[tuple[int, TimeSignature]] = []  # later time signatures, by tick
    for chunk in chunks:
        for tick, kind, payload in chunk.metas:
            if kind == 0x51 and len(payload) == 3 and int.from_bytes(payload, "big") > 0:
                tempos.append((tick, _bpm(int.from_bytes(payload, "big"))))
            elif kind == 0x58 and len(payload) >= 2:
                if time_signature is None or tick == 0:
                    time_signature = TimeSignature(payload[0], 2 ** payload[1])
                else:
                    metres.append((tick, TimeSignature(payload[0], 2 ** payload[1])))
            elif kind == 0x59 and len(payload) == 2:
                read_key = key_name(struct.unpack(">b", payload[:1])[0], payload[1] == 1)
                if song.key is None:
                    song.key = read_key
                elif tick > 0 and read_key is not None:
                    song.key_changes.append(KeyChange(tick / ppq, read_key))
            elif kind == 0x06:
                song.markers.append(Marker(tick / ppq, text_of(payload)))
            elif kind == 0x01 and meta is None and payload.startswith(BANDSTAND_TAG.encode()):
                meta = _metadata(payload[len(BANDSTAND_TAG) :], source)
    song.time_signature = time_signature or TimeSignature()
    for tick, ts in sorted(metres, key=lambda m: m[0]):  # the metre map: each change at the bar it starts
        song.metre_changes.append(MetreChange(song.beat_to_bar(tick / ppq - 1e-6) + 1, ts))
    tempos.sort(key=lambda t: t[0])
    if tempos and tempos[0][0] == 0:
        song.tempo = tempos[0][1]
        tempos = tempos[1:]
    song.tempo_changes = [TempoChange(t / ppq, bpm) for t, bpm in tempos]
    song.markers.sort(key=lambda m: m.beat)
    conductor = chunks[0] if fmt == 1 and chunks and not chunks[0].channels else None
    if conductor is not None:
        song.title = conductor.name or ""
    for chunk in chunks:
        several = len(chunk.channels) > 1
        for channel, c in sorted(chunk.channels.items()):
            name = chunk.name
            if name is not None and several:
                name = f"{name} {channel + 1}"
            song.tracks.append(_track(name, channel, c, ppq))
    if meta is not None:
        try:
            _apply_metadata(song, meta)
        except (KeyError, TypeError, ValueError) as exc:
            raise _fail(source, f"its bandstand metadata is damaged ({exc})") from None
    return song


def read_midi(path_or_bytes: str | os.PathLike[str] | bytes, limits: MidiLimits = MIDI_LIMITS) -> Song:
    """Read a Standard MIDI File from a path or from bytes into a Song (within `limits`)."""
    if isinstance(path_or_bytes, bytes | bytearray | memoryview):
        return midi_bytes_to_song(bytes(path_or_bytes), limits=limits)
    if not os.fspath(path_or_bytes).strip():  # Path("") is ".", which would be reported as a folder
        raise MidiFileError("no MIDI file given: the path is empty", path="")
    path = Path(path_or_bytes)
    return midi_bytes_to_song(_read_file(path, limits), str(path), limits)


_NOT_FILES = (  # what a path can be instead of a regular file: refused by type, never opened to read
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_file(path: Path, mode: int) -> MidiFileError | None:
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _NOT_FILES if test(mode)), "not a regular file")
    return MidiFileError(f"{path} is {kind}, not a MIDI file", path=str(path))


def _read_file(path: Path, limits: MidiLimits) -> bytes:
    """The bytes of the regular file at `path`, at most `limits.file_bytes` + 1 of them (so a file
    that lies about its size or grows as it is read costs no more); anything else is refused by its
    type before it is read (a FIFO is opened without blocking, a device is not opened at all)."""
    try:
        error = _not_a_file(path, os.stat(path).st_mode)
        if error is not None:
            raise error
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise MidiFileError(f"{path}: no such file; check the path", path=str(path)) from None
    except OSError as exc:
        raise MidiFileError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    try:
        info = os.fstat(fd)  # what was opened, should the path have changed since
        error = _not_a_file(path, info.st_mode)
        if error is not None:
            raise error
        if info.st_size > limits.file_bytes:
            raise _limit(str(path), _too_big(info.st_size, limits))
        parts, left = [], limits.file_bytes + 1
        while left > 0:
            part = os.read(fd, min(left, 1 << 20))
            if not part:
                break
            parts.append(part)
            left -= len(part)
    except OSError as exc:
        raise MidiFileError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
    finally:
        os.close(fd)
    if left <= 0:  # it said it was smaller, or grew as it was read
        raise _limit(str(path), _too_big(None, limits))
    return b"".join(parts)
