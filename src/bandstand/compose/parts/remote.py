"""A seat for another part generator: a part requested over HTTP from a model server.

`remote_part(url, role, intent, harmony, arrangement, seed, ...)` sends the song's situation
(key, scale, tempo, metre, the chord and section of every bar, the role and its instrument,
the genre) as JSON to `url` and takes a Standard MIDI File back: the notes of its tracks are the
part. What comes back is checked as any candidate is — read under the MIDI file limits, its
notes inside the song, at most `MAX_NOTES_PER_BAR` a bar, a pitched part mostly in the key's
scale — and refused with a `RemoteRefused` naming why; the caller then plays the built-in
generator's part and says so (`compose.stages.make_run_part`). Nothing is downloaded and
nothing of the answer runs: it is data, read with the hostile-file limits of `render`.

The protocol (`PROTOCOL`, "bandstand-part/1"), for whoever puts a model behind it (an
Orpheus- or Anticipatory-style MIDI transformer): POST `application/json`

    {"protocol": "bandstand-part/1", "role": "bass", "seed": 7, "genre": "funk",
     "program": 33, "key": "E", "mode": "dorian", "scale": [4, 6, 7, 9, 11, 1, 2],
     "tempo": 104.0, "time_signature": [4, 4], "beats_per_bar": 4.0, "bars": 32,
     "sections": [{"name": "Intro", "kind": "intro", "start_bar": 1, "bars": 4, "energy": 0.4,
                   "roles": ["drums", "bass"]}, ...],
     "chords": [{"bar": 1, "symbol": "Em7", "root": 4, "pitch_classes": [4, 7, 11, 2]}, ...],
     "plays_in_bars": [1, 2, 5, ...]}

and answer 200 with the part as a MIDI file (`audio/midi`, or JSON `{"midi": "<base64>"}`),
beat 0 = the song's first beat, at any resolution; tempo events in the file are ignored (the
song's tempo holds). Anything else — another status, a body over `MAX_BYTES`, no answer in
`timeout` seconds, bytes that are not MIDI — is a refusal.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult, PartStats
from bandstand.compose.parts import TRACK_NAMES, build_situation
from bandstand.craft import ROLES
from bandstand.errors import InvalidInput, MidiFileError
from bandstand.score import Note, Track

__all__ = [
    "MAX_BYTES",
    "MAX_NOTES_PER_BAR",
    "MIN_IN_SCALE",
    "PROTOCOL",
    "RemoteRefused",
    "parse_generators",
    "remote_part",
    "request_body",
]

PROTOCOL: Final = "bandstand-part/1"
MAX_BYTES: Final = 2 * 1024 * 1024  # an answer larger than this is refused unread
MAX_NOTES_PER_BAR: Final = 64  # what a part may play in one bar (the jam's per-cycle cap)
MIN_IN_SCALE: Final = 0.7  # the share of a pitched part's notes that must be in the key's scale
DEFAULT_TIMEOUT: Final = 30.0


class RemoteRefused(Exception):
    """The generator's answer was not taken; `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse_generators(items: Sequence[str]) -> dict[str, str]:
    """`ROLE=URL` items (the CLI's `--generator`, a config file's list) as {role: url}; a role
    the compose graph does not know or a URL that is not http(s) is an `InvalidInput`."""
    found: dict[str, str] = {}
    for item in items:
        role, sep, url = item.partition("=")
        role, url = role.strip().lower().replace(" ", "_"), url.strip()
        if not sep or not role or not url:
            raise InvalidInput(f"--generator takes ROLE=URL, e.g. bass=http://127.0.0.1:8000/part (got {item!r})",
                               field="generator")
        if role not in ROLES:
            raise InvalidInput(f"--generator: unknown role '{role}'; use one of: {', '.join(ROLES)}", field="generator")
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise InvalidInput(f"--generator {role}: the URL must start with http:// or https:// (got {url!r})",
                               field="generator")
        found[role] = url
    return found


def request_body(role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan, seed: int,
                 program: int) -> dict[str, Any]:
    """The situation of part `role` as the protocol's JSON request (see the module docstring)."""
    s = build_situation(intent, harmony, arrangement)
    sections, start = [], 1
    for sec in arrangement.sections:
        sections.append({"name": sec.name, "kind": sec.kind, "start_bar": start, "bars": sec.bars,
                         "energy": round(sec.energy, 3), "roles": sorted(sec.roles)})
        start += sec.bars
    return {
        "protocol": PROTOCOL, "role": role, "seed": seed, "genre": s.idiom.name, "program": program,
        "key": harmony.key, "mode": harmony.mode, "scale": list(s.scale), "tempo": s.tempo,
        "time_signature": list(intent.time_signature), "beats_per_bar": s.beats_per_bar, "bars": len(s.bars),
        "sections": sections,
        "chords": [{"bar": b.index + 1, "symbol": b.chord.symbol, "root": b.chord.root,
                    "pitch_classes": list(b.chord.pcs)} for b in s.bars],
        "plays_in_bars": [b.index + 1 for b in s.active(role)],
    }


def _post(url: str, body: Mapping[str, Any], timeout: float) -> bytes:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": "application/json", "Accept": "audio/midi, application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # http(s) only: parse_generators
            payload: bytes = answer.read(MAX_BYTES + 1)
            kind = answer.headers.get_content_type()
    except urllib.error.HTTPError as exc:
        raise RemoteRefused(f"it answered HTTP {exc.code}") from None
    except TimeoutError:
        raise RemoteRefused(f"no answer within {timeout:g} s") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise RemoteRefused(f"no answer within {timeout:g} s") from None
        raise RemoteRefused(f"it cannot be reached ({reason})") from None
    if len(payload) > MAX_BYTES:
        raise RemoteRefused(f"its answer is over {MAX_BYTES // (1024 * 1024)} MiB")
    if kind == "application/json":
        try:
            encoded = json.loads(payload)["midi"]
            return base64.b64decode(encoded, validate=True)
        except (ValueError, KeyError, TypeError):
            raise RemoteRefused("its JSON answer has no base64 'midi'") from None
    return payload


@dataclass(frozen=True, slots=True)
class _Checked:
    notes: list[Note]
    in_scale: float


def _check(data: bytes, role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan) -> _Checked:
    from bandstand.midi import midi_bytes_to_song

    try:
        song = midi_bytes_to_song(data, source="the generator's answer")
    except (MidiFileError, InvalidInput) as exc:
        raise RemoteRefused(f"its answer is not a MIDI file we can read ({exc})") from None
    s = build_situation(intent, harmony, arrangement)
    end = len(s.bars) * s.beats_per_bar
    drums = role in ("drums", "percussion")
    notes = sorted((n for t in song.tracks if t.is_drum == drums or not any(x.is_drum for x in song.tracks)
                    for n in t.notes if n.start < end), key=lambda n: (n.start, n.pitch))
    if not notes:
        raise RemoteRefused("its answer has no notes inside the song")
    busiest = max(sum(1 for n in notes if int(n.start // s.beats_per_bar) == bar) for bar in
                  {int(n.start // s.beats_per_bar) for n in notes})
    if busiest > MAX_NOTES_PER_BAR:
        raise RemoteRefused(f"it plays {busiest} notes in one bar (at most {MAX_NOTES_PER_BAR})")
    clipped = [Note(n.start, min(n.duration, end - n.start), n.pitch, n.velocity) for n in notes]
    if drums:
        return _Checked(clipped, 1.0)
    scale = set(s.scale)
    share = sum(1 for n in clipped if n.pitch % 12 in scale) / len(clipped)
    if share < MIN_IN_SCALE:
        raise RemoteRefused(f"only {share:.0%} of its notes are in {harmony.key} {harmony.mode} "
                            f"(at least {MIN_IN_SCALE:.0%})")
    return _Checked(clipped, share)


def remote_part(url: str, role: str, intent: Intent, harmony: HarmonyPlan, arrangement: ArrangementPlan, seed: int,
                program: int, *, timeout: float = DEFAULT_TIMEOUT) -> PartResult:
    """Part `role` from the generator at `url`, checked; `RemoteRefused` when it is not taken."""
    data = _post(url, request_body(role, intent, harmony, arrangement, seed, program), timeout)
    checked = _check(data, role, intent, harmony, arrangement)
    drums = role in ("drums", "percussion")
    track = Track(name=TRACK_NAMES.get(role, role.replace("_", " ").title()), role=role, program=program,
                  is_drum=drums, notes=checked.notes)
    s = build_situation(intent, harmony, arrangement)
    vels = [n.velocity for n in track.notes]
    pitches = [n.pitch for n in track.notes]
    mean = sum(vels) / len(vels)
    stats = PartStats(
        track_id=f"{role}-1", role=role, program=program, is_drum=drums, style=f"remote ({urllib.parse.urlsplit(url).netloc})",
        note_count=len(track.notes), notes_per_bar=round(len(track.notes) / max(1, len(s.active(role)) or len(s.bars)), 3),
        pitch_range=(min(pitches), max(pitches)), velocity_mean=round(mean, 2),
        velocity_sd=round((sum((v - mean) ** 2 for v in vels) / len(vels)) ** 0.5, 2), control_count=0,
        pitch_bend_count=0, humanization={"timing_ms": 0.0, "velocity_sd": 0.0, "amount": 0.0}, groove="remote",
        swing=0.0,
    )
    return PartResult(track=track, stats=stats)
