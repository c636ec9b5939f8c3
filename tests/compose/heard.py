"""Songs as a listener's tools see them: a prompt composed the way `bandstand compose`
does it (intent → harmony → arrangement → parts → assembly), written to a Standard
MIDI File and read back with mido, an independent reader — notes per track in beats,
the tempo, the metre and the section markers."""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass
from functools import cache

import mido

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.assembly import assemble
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.parts import ROLES, generate_part
from bandstand.midi import song_to_midi_bytes
from bandstand.score import Song

Note = tuple[float, float, int, int]  # start beat, duration, pitch, velocity


@dataclass
class Heard:
    intent: Intent
    harmony: HarmonyPlan
    plan: ArrangementPlan
    song: Song
    tempo: float
    metre: tuple[int, int]
    tracks: dict[str, list[Note]]  # by track name, lower case
    programs: dict[str, int]
    drums: set[str]
    markers: list[tuple[float, str]]

    @property
    def bpb(self) -> float:
        return self.metre[0] * 4 / self.metre[1]

    def notes(self, *names: str) -> list[Note]:
        return sorted(n for name in names for n in self.tracks.get(name, []))

    def bar(self, t: float) -> int:
        return int((t + 0.1) // self.bpb)

    def sections(self) -> list[tuple[str, float, float]]:
        end = max(n[0] + n[1] for ns in self.tracks.values() for n in ns)
        bounds = [*self.markers, (end, "")]
        return [(name, a, b) for (a, name), (b, _) in itertools.pairwise(bounds)]


@cache
def heard(prompt: str, seed: int = 1) -> Heard:
    """`prompt` composed with `seed` (every stage's seed derived from it) and read back."""
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed * 7 + 1)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed * 7 + 2)
    parts = [generate_part(r, intent, harmony, plan, seed * 100 + i).track for i, r in enumerate(roles)]
    song = assemble(parts, intent, harmony, plan)
    mid = mido.MidiFile(file=io.BytesIO(song_to_midi_bytes(song)))
    tpb = mid.ticks_per_beat
    tempo, metre, markers = 120.0, (4, 4), []
    tracks: dict[str, list[Note]] = {}
    programs: dict[str, int] = {}
    drums: set[str] = set()
    for track in mid.tracks:
        now, name = 0, ""
        held: dict[int, tuple[int, int]] = {}
        notes: list[Note] = []
        for msg in track:
            now += msg.time
            if msg.type == "set_tempo":
                tempo = mido.tempo2bpm(msg.tempo)
            elif msg.type == "time_signature":
                metre = (msg.numerator, msg.denominator)
            elif msg.type == "marker":
                markers.append((now / tpb, msg.text))
            elif msg.type == "track_name":
                name = msg.name.lower()
            elif msg.type == "program_change":
                programs[name] = msg.program
                if msg.channel == 9:
                    drums.add(name)
            elif msg.type == "note_on" and msg.velocity > 0:
                held[msg.note] = (now, msg.velocity)
                if msg.channel == 9:
                    drums.add(name)
            elif msg.type in ("note_off", "note_on") and msg.note in held:
                t0, vel = held.pop(msg.note)
                notes.append((t0 / tpb, (now - t0) / tpb, msg.note, vel))
        if notes:
            tracks[name] = sorted(notes)
    return Heard(intent, harmony, plan, song, tempo, metre, tracks, programs, drums, sorted(markers))


def jaccard(a: set[object], b: set[object]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0
