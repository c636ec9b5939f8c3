"""The recorder: what the band played, exported as jam.mid, jam.wav,
transcript.md and rounds.jsonl.

Every played cycle is kept by the transport with the layers that sounded; the
MIDI export replays exactly those cycles, one track per member and sound
(tempo changes and round markers included); the WAV is rendered from the same
song. The MIDI file carries a time-signature and a key-signature event at
every change of metre or key, at the bar where the band changed (a DAW's bar
lines stay right after a 7/8 or a 3/4). The transcript is the chat in markdown; rounds.jsonl has one JSON line
per round (context, each member's pattern, thoughts and status).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from bandstand.errors import MusicianError, PatternError
from bandstand.files import write_bytes, write_text
from bandstand.jam._conductor import add_meta, key_event, time_event
from bandstand.jam.engine import JamEngine, RoundRecord
from bandstand.jam.sound import PatternBook, capped_cycle
from bandstand.jam.transport import PlayedCycle
from bandstand.midi import beats_to_ticks, song_to_midi_bytes
from bandstand.score import Marker, Note, Song, TempoChange, TimeSignature, Track


@dataclass(frozen=True, slots=True)
class _Replay:
    """A member's recorded cycles, queryable like a pattern (absolute cycles)."""

    member: str
    cycles: tuple[PlayedCycle, ...]
    book: PatternBook | None = None  # the engine's own patterns

    def query_arc(self, begin: Any, end: Any) -> list[Any]:
        haps: list[Any] = []
        b, e = Fraction(begin), Fraction(end)
        for played in self.cycles:
            if not b <= played.cycle < e:
                continue
            code = dict(played.layers).get(self.member)
            if code and self.member not in played.muted:
                try:  # what the band played: the per-layer cap thins it alike
                    haps.extend(capped_cycle(code, played.cycle, self.book).haps)
                except PatternError as exc:  # the musician's pattern, not the person's mistake
                    raise MusicianError(f"{self.member}'s pattern could not be recorded at cycle {played.cycle}: "
                                        f"{exc}", musician=self.member) from exc
        return haps


def _segments(played: list[PlayedCycle]) -> list[tuple[float, list[PlayedCycle]]]:
    """Runs of consecutive cycles of one length, with that length in quarter-note beats.

    A cycle is one bar of the metre it was played in (4/4: 4 beats, 7/8: 3.5),
    so the recording keeps each cycle's own length when the metre changes."""
    out: list[tuple[float, list[PlayedCycle]]] = []
    for cycle in played:
        beats = round(cycle.seconds * cycle.bpm / 60.0, 9)
        if out and out[-1][0] == beats:
            out[-1][1].append(cycle)
        else:
            out.append((beats, [cycle]))
    return out


def song_of(engine: JamEngine, played: list[PlayedCycle]) -> Any:
    """The played cycles as a `bandstand.score.Song`, one track per member and sound.

    Key and metre are those the jam opened with (a Song has one of each); a
    later change of key or metre is named in that round's marker."""
    from bandstand.patterns import pattern_to_song
    from bandstand.patterns.budget import QueryBudget
    from bandstand.patterns.cycle_cap import CYCLE_BUDGET

    contexts = {record.round: record.context for record in engine.rounds}
    opening = contexts.get(played[0].round, engine.context.view()) if played else engine.context.view()
    if played:  # what the first cycle was played in
        opening = {**opening, "key": played[0].key, "time_signature": played[0].time_signature}
    numerator, _, unit = str(opening["time_signature"]).partition("/")
    tracks: dict[str, Track] = {}
    starts: dict[int, float] = {}
    offset = 0.0
    end = sum(beats * len(run) for beats, run in _segments(played))
    for beats, run in _segments(played):
        # each cycle of each layer costs at most CYCLE_BUDGET, as when it was played
        budget = QueryBudget(max_work=CYCLE_BUDGET.max_work * len(run), max_seconds=CYCLE_BUDGET.max_seconds * len(run))
        for persona in engine.personas:
            part = pattern_to_song(_Replay(persona.name, tuple(run), engine.patterns), len(run), run[0].bpm, 1,
                                   start=run[0].cycle, budget=budget)
            for track in part.tracks:
                name = f"{persona.name} {track.name}" if track.name != persona.name else track.name
                into = tracks.get(name)
                if into is None:
                    into = tracks[name] = Track(name, track.role, program=track.program, is_drum=track.is_drum)
                # one beat per cycle from pattern_to_song, stretched to the cycle's real length; no
                # note sounds past the end of the recording
                into.notes += [Note(at, min(n.duration * beats, end - at), n.pitch, n.velocity)
                               for n in track.notes if (at := offset + n.start * beats) < end]
        for i, cycle in enumerate(run):
            starts[cycle.cycle] = offset + i * beats
        offset += beats * len(run)
    tempo_changes, markers, bpm, last_round, shown = [], [], None, None, opening
    for played_cycle in played:
        beat = starts[played_cycle.cycle]
        if played_cycle.bpm != bpm:
            if bpm is not None:
                tempo_changes.append(TempoChange(beat, played_cycle.bpm))
            bpm = played_cycle.bpm
        if played_cycle.round != last_round:
            now = contexts.get(played_cycle.round, shown)
            changed = [str(now[k]) for k in ("key", "time_signature") if now.get(k) != shown.get(k)]
            label = f"round {played_cycle.round}" + (f": {', '.join(changed)}" if changed else "")
            markers.append(Marker(beat, label))  # ASCII: readers differ on the encoding of MIDI text
            last_round, shown = played_cycle.round, now
    for track in tracks.values():
        track.sort()
    return Song(
        title="bandstand jam",
        tempo=played[0].bpm if played else engine.context.bpm,
        time_signature=TimeSignature(int(numerator), int(unit or 4)),
        key=str(opening["key"]),
        tracks=list(tracks.values()),
        markers=markers,
        tempo_changes=tempo_changes,
    )


def signature_changes(played: list[PlayedCycle]) -> list[tuple[float, int, bytes]]:
    """(beat, meta type, data) of a time signature or a key signature at each cycle that changed
    the metre or the key (the opening ones are the song's own); beats as `song_of` lays them out."""
    out: list[tuple[float, int, bytes]] = []
    beat, before = 0.0, None
    for cycle in played:
        if before is not None:
            if cycle.time_signature != before.time_signature:
                out.append((beat, *time_event(cycle.time_signature)))
            if cycle.key != before.key and (event := key_event(cycle.key)) is not None:
                out.append((beat, *event))
        beat += round(cycle.seconds * cycle.bpm / 60.0, 9)
        before = cycle
    return out


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


def export(engine: JamEngine, played: list[PlayedCycle], out: str | Path, *, wav: bool = True,
           midi: bool = True) -> dict[str, Path]:
    """Write transcript.md and rounds.jsonl, then jam.mid (when `midi`) and jam.wav (when `wav`)
    into `out`. The chat and the rounds are written first and never depend on the song: a
    recording whose MIDI could not be written still has them."""
    folder = Path(out)
    paths = {"transcript": folder / "transcript.md", "rounds": folder / "rounds.jsonl"}
    folder.mkdir(parents=True, exist_ok=True)
    write_text(paths["transcript"], transcript(engine))
    write_text(paths["rounds"], rounds_jsonl(engine.rounds))
    if not (midi or wav):
        return paths
    song = song_of(engine, played)
    if midi:
        paths["midi"] = folder / "jam.mid"
        changes = [(beats_to_ticks(b), kind, data) for b, kind, data in signature_changes(played)]
        write_bytes(paths["midi"], add_meta(song_to_midi_bytes(song), changes))
    if wav:
        from bandstand.render import render_wav

        paths["wav"] = folder / "jam.wav"
        render_wav(song, paths["wav"])
    return paths
