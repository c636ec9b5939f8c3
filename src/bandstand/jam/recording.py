"""The recorder: what the band played, exported as jam.mid, jam.wav,
transcript.md and rounds.jsonl.

Every played cycle is kept by the transport with the layers that sounded; the
MIDI export replays exactly those cycles, one track per member and sound
(tempo changes and round markers included); the WAV is rendered from the same
song. The transcript is the chat in markdown; rounds.jsonl has one JSON line
per round (context, each member's pattern, thoughts and status).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from bandstand.files import write_text
from bandstand.jam.engine import JamEngine, RoundRecord
from bandstand.jam.sound import compile_pattern
from bandstand.jam.transport import PlayedCycle


@dataclass(frozen=True, slots=True)
class _Replay:
    """A member's recorded cycles, queryable like a pattern (absolute cycles)."""

    member: str
    cycles: tuple[PlayedCycle, ...]

    def query_arc(self, begin: Any, end: Any) -> list[Any]:
        haps: list[Any] = []
        b, e = Fraction(begin), Fraction(end)
        for played in self.cycles:
            if not b <= played.cycle < e:
                continue
            code = dict(played.layers).get(self.member)
            if code:
                haps.extend(compile_pattern(code).query_arc(played.cycle, played.cycle + 1))
        return haps


def song_of(engine: JamEngine, played: list[PlayedCycle]) -> Any:
    """The played cycles as a `bandstand.score.Song`, one track per member and sound."""
    from bandstand.patterns import pattern_to_song
    from bandstand.score import Marker, Song, TempoChange, TimeSignature

    ctx = engine.context
    beats = ctx.beats_per_bar
    first = played[0].cycle if played else 0
    count = len(played) or 1
    tracks = []
    for persona in engine.personas:
        replay = _Replay(persona.name, tuple(played))
        part = pattern_to_song(replay, count, played[0].bpm if played else ctx.bpm, beats, start=first)
        for track in part.tracks:
            track.name = f"{persona.name} {track.name}" if track.name != persona.name else track.name
            tracks.append(track)
    tempo_changes, markers, bpm, last_round = [], [], None, None
    for played_cycle in played:
        beat = float((played_cycle.cycle - first) * beats)
        if played_cycle.bpm != bpm:
            if bpm is not None:
                tempo_changes.append(TempoChange(beat, played_cycle.bpm))
            bpm = played_cycle.bpm
        if played_cycle.round != last_round:
            markers.append(Marker(beat, f"round {played_cycle.round}"))
            last_round = played_cycle.round
    return Song(
        title="bandstand jam",
        tempo=played[0].bpm if played else ctx.bpm,
        time_signature=TimeSignature(ctx.beats_per_bar, ctx.beat_unit),
        key=ctx.key,
        tracks=tracks,
        markers=markers,
        tempo_changes=tempo_changes,
    )


def transcript(engine: JamEngine) -> str:
    """The jam's chat as markdown."""
    emoji = {p.name: p.emoji for p in engine.personas}
    lines = ["# bandstand jam", "", f"Band: {', '.join(f'{p.emoji} {p.name} ({p.role})' for p in engine.personas)}", ""]
    for record in engine.rounds:
        ctx = record.context
        lines += [f"## Round {record.round}", "", f"*{ctx['key']} · {' '.join(ctx['chords'])} · {ctx['bpm']:g} BPM · {ctx['time_signature']} · energy {ctx['energy']}/10*", ""]
        if record.directive:
            to = f" (to {', '.join(record.to)})" if record.to else ""
            lines += [f"**BOSS{to}:** {record.directive}", ""]
        for name, m in record.members.items():
            if not m.get("asked"):
                continue
            flag = "" if m["complied_with_boss"] else " *(did not comply)*"
            status = f" `[{m['status']}]`" if m["status"] in {"error", "timeout"} else ""
            lines.append(f"- {emoji.get(name, '')} **{name}**{status}: {m['thoughts']} — _{m['reaction']}_{flag}")
            lines.append(f"  `{m['pattern']}`")
        lines += ["", f"Combined: `{record.combined}`", ""]
    return "\n".join(lines)


def rounds_jsonl(rounds: list[RoundRecord]) -> str:
    return "".join(json.dumps(r.as_dict(), ensure_ascii=False, sort_keys=True) + "\n" for r in rounds)


def export(engine: JamEngine, played: list[PlayedCycle], out: str | Path, *, wav: bool = True) -> dict[str, Path]:
    """Write jam.mid, jam.wav (when `wav`), transcript.md and rounds.jsonl into `out`."""
    from bandstand.midi import write_midi

    folder = Path(out)
    song = song_of(engine, played)
    paths = {"midi": folder / "jam.mid", "transcript": folder / "transcript.md", "rounds": folder / "rounds.jsonl"}
    folder.mkdir(parents=True, exist_ok=True)
    write_midi(song, paths["midi"])
    write_text(paths["transcript"], transcript(engine))
    write_text(paths["rounds"], rounds_jsonl(engine.rounds))
    if wav:
        from bandstand.render import render_wav

        paths["wav"] = folder / "jam.wav"
        render_wav(song, paths["wav"])
    return paths
