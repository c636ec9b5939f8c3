"""A jam becomes a song: a jam's recording (a folder with jam.mid and rounds.jsonl) opened as a
studio project, and arranged into a song project the studio can direct further.

    jam_project("jam-out")                      # the jam as played: revision 1, one section per round
    jam_to_song("jam-out", "output/my-song")    # intro, the rounds as sections, a reprise, an ending

`jam_project` keeps what the band played, bar for bar, with a section per round ("round 2:
D major"). `jam_to_song` arranges it: rounds that sound alike are one section (verse, chorus,
bridge, breakdown in the order they first came), each run of them looped or cut to an 8-bar
phrase; an intro of the first section's rhythm section; the most energetic section again
before the end; and an ending — a bar of the last section, then every part's first note held
as a final chord. The song keeps the jam's journey: each bar in the key, tempo, sounds and metre
it was played in (a jam that moved to 3/4 has a 3/4 time signature at the bar it moved; the
song's metre map). A round that is not whole bars of its metre is left out and named in
`JamSong.left_out`. The CLI (`bandstand jam --out`, `bandstand jam-to-song`) and the jam
server's `keep_jam` message ("keep this" on the page) call these.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bandstand.compose.api import new_session_id
from bandstand.errors import InvalidInput, NotFound
from bandstand.jam.context import energy_level
from bandstand.jam.persona import resolve_members
from bandstand.midi import read_midi
from bandstand.producer.jams.jam_recipe import recipe
from bandstand.producer.sessions.projects import ProjectSession, create_from_song, open_project
from bandstand.score import (
    KeyChange,
    MetreChange,
    Note,
    ProgramChange,
    Section,
    Song,
    TempoChange,
    TimeSignature,
    Track,
)
from bandstand.studio import Provenance

if TYPE_CHECKING:
    from bandstand.jam.live import LiveJam

__all__ = ["JamSong", "Round", "arrange", "check_jam_project", "jam_project", "jam_to_song", "keep_jam", "read_jam", "recipe",
           "section_labels"]

NAMES = ("verse", "chorus", "bridge", "breakdown")
"""Names of the distinct sections, in the order they first came in the jam: a round that sounds
like an earlier section (`ALIKE`) is that section again; past four, a round joins the section it
sounds most like."""
ALIKE = 0.5
"""Similarity (shared notes over all notes, by part, place in the bar and pitch) from which two
rounds are the same section."""
PHRASE = 8
INTRO = 4
RHYTHM = frozenset({"drums", "bass", "percussion"})
PART_ROLES = {"drums": "drums", "bass": "bass", "melody": "lead", "lead": "lead", "chords": "chords", "keys": "chords",
              "pad": "pad", "arp": "arp", "fx": "fx", "percussion": "percussion", "texture": "texture"}
"""A jam member's role → the song part its sound becomes (a drum sound of a member who is not the
drummer is percussion; a member of a role not listed plays a texture)."""
AUTHOR = "jam"
_T = TypeVar("_T")
_ROUND = re.compile(r"^round (\d+)")


@dataclass(frozen=True, slots=True)
class Feel:
    """What one bar of the jam was played in: its key, its tempo, each track's sound (GM program)
    and its metre ("3/4"; empty: the song's)."""

    key: str | None
    bpm: float
    programs: tuple[int, ...] = ()
    metre: str = ""


@dataclass(frozen=True, slots=True)
class Round:
    """One round of the jam as it sounded: its bars (notes per track, beats from the bar's start)
    and what each bar was played in (none: the song's opening key, tempo and sounds)."""

    number: int
    combined: str
    energy: int
    time_signature: str
    bars: tuple[tuple[tuple[Note, ...], ...], ...]  # bar → track → notes
    feels: tuple[Feel, ...] = ()


@dataclass(frozen=True, slots=True)
class Jam:
    """A jam's recording as read back: the song as played and its rounds."""

    song: Song
    rounds: tuple[Round, ...]
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JamSong:
    """What a conversion made: the project, its form (section names in order) and what was left out."""

    session: ProjectSession
    form: tuple[str, ...]
    left_out: tuple[str, ...] = field(default=())

    def summary(self) -> dict[str, object]:
        return {"project": self.session.session_dir.name, "path": str(self.session.session_dir),
                "revision": self.session.revision, "form": list(self.form), "left_out": list(self.left_out)}


def read_jam(folder: str | Path) -> Jam:
    """The recording in `folder` (jam.mid and rounds.jsonl, as a jam writes them); `NotFound`
    when it is not there."""
    root = Path(folder).expanduser()
    midi, log = root / "jam.mid", root / "rounds.jsonl"
    if not midi.is_file() or not log.is_file():
        raise NotFound(f"{root} holds no jam recording (jam.mid and rounds.jsonl); record one with "
                       "'bandstand jam --headless --out DIR'")
    song = read_midi(midi)
    contexts = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            contexts[int(record["round"])] = record
    opening = f"{song.time_signature.numerator}/{song.time_signature.denominator}"
    end = song.length_beats
    starts = [(m.beat, int(found.group(1))) for m in song.markers if (found := _ROUND.match(m.text))]
    spans = [(begin, finish, number, str(contexts.get(number, {}).get("context", {}).get("time_signature", opening)))
             for (begin, number), (finish, _) in zip(starts, [*starts[1:], (end, 0)], strict=True)]
    programs = tuple(t.program for t in song.tracks)
    rounds, left_out = [], []
    for begin, finish, number, played in spans:
        record = contexts.get(number, {})
        bar = _signature(played).beats_per_bar
        bars = math.ceil(round((finish - begin) / bar, 6)) if finish >= end else round((finish - begin) / bar, 6)
        if bars != int(bars) or bars < 1:
            left_out.append(f"round {number} ({played})")
            continue
        downbeats = [begin + i * bar for i in range(int(bars))]
        # the key the round was played in, by name (a key signature cannot say "D dorian")
        played_key = str(record.get("context", {}).get("key") or "") or None
        rounds.append(Round(number, str(record.get("combined", "")), int(record.get("context", {}).get("energy", 5)),
                            played, tuple(_bar(song, at, bar) for at in downbeats),
                            tuple(Feel(played_key or song.key_at(at), song.tempo_at(at), programs, played)
                                  for at in downbeats)))
    if not rounds:
        raise InvalidInput(f"the jam in {root} has no round of whole bars to make a song of")
    song.time_signature = _signature(rounds[0].time_signature)  # the song opens in its first round's metre
    return Jam(song, tuple(rounds), tuple(left_out))


def _signature(metre: str) -> TimeSignature:
    """A metre as the jam's context writes it ("3/4") as a time signature."""
    numerator, denominator = (int(x) for x in metre.split("/"))
    return TimeSignature(numerator, denominator)


def _bar(song: Song, begin: float, length: float) -> tuple[tuple[Note, ...], ...]:
    return tuple(tuple(Note(n.start - begin, n.duration, n.pitch, n.velocity) for n in t.notes
                       if begin - 1e-9 <= n.start < begin + length - 1e-9) for t in song.tracks)


def _part_role(track: Track, members: dict[str, str]) -> str:
    """The song role of a jam track named 'MEMBER sound' (see `PART_ROLES`)."""
    role = PART_ROLES.get(members.get(track.name.split(" ", 1)[0].upper(), ""), "texture")
    if track.is_drum and role != "drums":
        return "percussion"
    return role


def _empty(song: Song, title: str, *, song_roles: bool = False) -> Song:
    """`song` without notes or sections; with `song_roles`, each track plays its member's song role."""
    members = {p.name.upper(): p.role for p in resolve_members(None)}
    tracks = [Track(t.name, _part_role(t, members) if song_roles else t.role, program=t.program, is_drum=t.is_drum,
                    channel=t.channel, mix=t.mix) for t in song.tracks]
    return Song(title=title, tempo=song.tempo, time_signature=song.time_signature, key=song.key, tracks=tracks)


def _metre(song: Song, bar: int, feel: Feel) -> None:
    """From 1-based `bar` on, `song` plays in `feel`'s metre (a time signature where it changes)."""
    if not feel.metre:
        return
    ts = _signature(feel.metre)
    if bar <= 1:
        song.time_signature = ts
    elif ts != song.metre_at(bar):
        song.metre_changes.append(MetreChange(bar, ts))


def _follow(song: Song, offset: float, feel: Feel) -> None:
    """From `offset` on, `song` plays in `feel`: a key change, a tempo change and each track's
    program change where they differ from what plays there (at the start: the song's own)."""
    if feel.key and feel.key != song.key_at(offset):
        if offset <= 0:
            song.key = feel.key
        else:
            song.key_changes.append(KeyChange(offset, feel.key))
    if abs(feel.bpm - song.tempo_at(offset)) > 1e-9:
        if offset <= 0:
            song.tempo = feel.bpm
        else:
            song.tempo_changes.append(TempoChange(offset, feel.bpm))
    for track, program in zip(song.tracks, feel.programs, strict=False):
        now = track.program_changes[-1].program if track.program_changes else track.program
        if program != now and not track.is_drum:
            if offset <= 0:
                track.program = program
            else:
                track.program_changes.append(ProgramChange(offset, program))


def _place(song: Song, bars: list[tuple[tuple[Note, ...], ...]], name: str, energy: float,
           keep: frozenset[int] | None = None, scale: float = 1.0, feels: Sequence[Feel] = ()) -> None:
    """Append `bars` to `song` as one section (only the tracks in `keep`, velocities × `scale`),
    each bar in its `feels` (key, tempo, sounds) when given."""
    start_bar = 1 + sum(s.bars for s in song.sections)
    for i, tracks in enumerate(bars):
        if i < len(feels):
            _metre(song, start_bar + i, feels[i])
        offset = song.bar_to_beat(start_bar + i)  # following the metre map
        if i < len(feels):
            _follow(song, offset, feels[i])
        for index, notes in enumerate(tracks):
            if keep is None or index in keep:
                song.tracks[index].notes += [Note(offset + n.start, n.duration, n.pitch,
                                                  max(1, min(127, round(n.velocity * scale)))) for n in notes]
    song.sections.append(Section(name, start_bar, len(bars), max(0.0, min(1.0, energy))))


def _sound(r: Round) -> frozenset[tuple[int, float, int]]:
    """What a round plays, as (track, place in the bar to a sixteenth, pitch) — the bar it is in aside."""
    return frozenset((track, round(n.start * 4) / 4, n.pitch) for bar in r.bars for track, notes in enumerate(bar)
                     for n in notes)


def _alike(a: frozenset[tuple[int, float, int]], b: frozenset[tuple[int, float, int]]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def section_labels(rounds: tuple[Round, ...]) -> list[int]:
    """Each round's section (an index into `NAMES`): the first section it sounds like, a new one
    while fewer than four exist, else the one it sounds most like."""
    heard: list[frozenset[tuple[int, float, int]]] = []
    labels = []
    for r in rounds:
        sound = _sound(r)
        scores = [_alike(sound, other) for other in heard]
        best = max(range(len(scores)), key=scores.__getitem__, default=-1)
        if best >= 0 and (scores[best] >= ALIKE or len(heard) == len(NAMES)):
            labels.append(best)
        else:
            heard.append(sound)
            labels.append(len(heard) - 1)
    return labels


def _phrase(bars: Sequence[_T], length: int) -> list[_T]:
    """`bars` (or what each bar was played in) looped or cut to `length` bars."""
    return [bars[i % len(bars)] for i in range(length)] if bars else []


def _final_chord(bar: tuple[tuple[Note, ...], ...], song: Song, length: float) -> tuple[tuple[Note, ...], ...]:
    """Every part's first note of `bar` struck on the downbeat and held for the bar (`length`
    beats; drums: their downbeat)."""
    out = []
    for track, notes in zip(song.tracks, bar, strict=True):
        first = [n for n in notes if n.start < 1e-9] or sorted(notes, key=lambda n: n.start)[:1]
        out.append(tuple(Note(0.0, n.duration if track.is_drum else length, n.pitch, n.velocity) for n in first))
    return tuple(out)


def _by_start(notes: Sequence[Note]) -> tuple[Note, ...]:
    return tuple(sorted(notes, key=lambda n: (n.start, n.pitch, n.duration, n.velocity)))


def _one_per_member(jam: Jam) -> Jam:
    """The jam with one track per member (a drum kit apart: a kit is not a program): a member who
    changed sound plays on in the same track, each bar in the sound it played most there (a
    program change where it changes), not in a second track per sound."""
    groups: dict[tuple[str, bool], list[int]] = {}
    for i, t in enumerate(jam.song.tracks):
        groups.setdefault((t.name.split(" ", 1)[0], t.is_drum), []).append(i)
    olds = jam.song.tracks
    tracks = []
    for (member, drum), members in groups.items():
        first = olds[members[0]]
        name = f"{member} drums" if drum else member
        tracks.append(Track(name, first.role, program=first.program, is_drum=drum,
                            channel=first.channel if len(members) == 1 else None, mix=first.mix,
                            notes=list(_by_start([n for i in members for n in olds[i].notes]))))
    sounds = [olds[members[0]].program for members in groups.values()]
    rounds = []
    for r in jam.rounds:
        bars, feels = [], []
        for b, bar in enumerate(r.bars):
            for g, members in enumerate(groups.values()):
                played = max(members, key=lambda i: len(bar[i]))
                if bar[played]:  # a silent bar keeps the sound it had
                    sounds[g] = r.feels[b].programs[played] if b < len(r.feels) else olds[played].program
            bars.append(tuple(_by_start([n for i in members for n in bar[i]]) for members in groups.values()))
            if b < len(r.feels):
                feels.append(replace(r.feels[b], programs=tuple(sounds)))
        rounds.append(replace(r, bars=tuple(bars), feels=tuple(feels)))
    return replace(jam, song=replace(jam.song, tracks=tracks), rounds=tuple(rounds))


def arrange(jam: Jam, title: str = "jam song") -> tuple[Song, tuple[str, ...]]:
    """The arranged song of the module docstring, and its form: one track per member, each bar
    in the key, tempo and sound it was played in."""
    jam = _one_per_member(jam)
    labels = section_labels(jam.rounds)
    runs: list[list[Round]] = []
    for i, r in enumerate(jam.rounds):  # rounds in a row that sound alike are one section
        if runs and labels[i - 1] == labels[i]:
            runs[-1].append(r)
        else:
            runs.append([r])
    names = {r.number: NAMES[label] for r, label in zip(jam.rounds, labels, strict=True)}
    song = _empty(jam.song, title, song_roles=True)
    first = runs[0][0]
    rhythm = frozenset(i for i, t in enumerate(song.tracks) if t.role in RHYTHM and any(b[i] for b in first.bars))
    sounding = frozenset(i for i, t in enumerate(song.tracks) if any(b[i] for b in first.bars))
    _place(song, _phrase(first.bars, INTRO), "intro", energy_level(first.energy) * 0.6,
           keep=rhythm if rhythm and rhythm != sounding else None, scale=0.85, feels=_phrase(first.feels, INTRO))
    sections: list[tuple[str, tuple[tuple[tuple[Note, ...], ...], ...], int, tuple[Feel, ...]]] = []
    for run in runs:
        bars = tuple(b for r in run for b in r.bars)
        feels = tuple(f for r in run for f in r.feels) if all(len(r.feels) == len(r.bars) for r in run) else ()
        sections.append((names[run[0].number], bars, max(r.energy for r in run), feels))
    for name, bars, energy, feels in sections:
        length = PHRASE if len(bars) <= PHRASE else 2 * PHRASE
        _place(song, _phrase(bars, length), name, energy_level(energy), feels=_phrase(feels, length))
    peak = max(sections, key=lambda s: s[2])
    if len(sections) > 1 and peak is not sections[-1]:
        _place(song, _phrase(peak[1], PHRASE), peak[0], energy_level(peak[2]), feels=_phrase(peak[3], PHRASE))
    last = sections[-1] if peak is sections[-1] or len(sections) == 1 else peak
    ending = _signature(last[3][0].metre) if last[3] and last[3][0].metre else song.metre_at(song.length_bars)
    _place(song, [last[1][0], _final_chord(last[1][0], song, ending.beats_per_bar)], "outro",
           energy_level(last[2]) * 0.7, feels=last[3][:1] * 2)
    for track in song.tracks:
        track.sort()
    return song, tuple(s.name for s in song.sections)


def _provenance(folder: Path, kind: str, recipe: dict[str, object] | None = None) -> Provenance:
    return Provenance(prompt=f"the jam recorded in {folder.name}", generator=kind, recipe=recipe or {})


def jam_project(folder: str | Path) -> JamSong:
    """The jam recorded in `folder` as a project in that same folder: revision 1 is the jam as
    played, one section per round. A project already there is replaced only while it holds
    nothing but an earlier jam's first take (a project someone has edited is refused)."""
    root = Path(folder).expanduser()
    check_jam_project(root)
    jam = read_jam(root)
    song = _empty(jam.song, "bandstand jam")
    for r in jam.rounds:
        _place(song, list(r.bars), f"round {r.number}", energy_level(r.energy), feels=r.feels)
    for track in song.tracks:
        track.sort()
    session = create_from_song(root, song, _provenance(root, "jam"), author=AUTHOR, request="bandstand jam",
                               overwrite=True)
    return JamSong(session, tuple(s.name for s in song.sections), jam.left_out)


def check_jam_project(folder: str | Path) -> None:
    """`InvalidInput` when `folder` holds a project that is more than a jam's first take (so a jam
    recorded there would throw away someone's edits) — checked before the jam plays."""
    root = Path(folder).expanduser()
    if not (root / "revisions").is_dir():
        return
    try:
        history = open_project(root).history()
    except Exception:  # not a readable project: the jam's files go beside whatever it is
        return
    if len(history) > 1 or any(row.entry.author != AUTHOR for row in history):
        raise InvalidInput(f"{root} holds a studio project with {len(history)} revisions; record the jam into "
                           "another --out (a jam there would replace its history)")


def jam_to_song(folder: str | Path, out: str | Path | None = None, *, title: str = "") -> JamSong:
    """The jam recorded in `folder` arranged as a new song project in `out` (default: `folder`/song),
    which must not be a project yet."""
    root = Path(folder).expanduser()
    target = Path(out).expanduser() if out is not None else root / "song"
    jam = read_jam(root)
    if (target / "revisions").is_dir():
        raise InvalidInput(f"{target} is already a project; choose another folder for the song")
    song, form = arrange(jam, title or f"{root.name} (song)")
    prompt = f"a song from a jam in {song.key or 'C minor'} at {song.tempo:g} BPM"
    session = create_from_song(target, song, _provenance(root, "jam-to-song", recipe(song, prompt)), author="jam-to-song",
                               request=f"bandstand jam-to-song {root}")
    return JamSong(session, form, jam.left_out)


async def keep_jam(jam: LiveJam, projects: str | os.PathLike[str], *, title: str = "") -> JamSong:
    """"Keep this": the live jam's recording so far (playing or stopped) is written to
    `projects`/jams/SESSION and arranged as the song project `projects`/SESSION, a project
    among the others there (the studio page lists it). Rendering and arranging run off the
    event loop; `NotFound` when nothing was played yet."""
    root = Path(projects).expanduser()
    session_id = new_session_id()
    folder = root / "jams" / session_id
    await jam.export("jam.mid", folder)  # writes jam.mid, transcript.md and rounds.jsonl
    return await asyncio.to_thread(jam_to_song, folder, root / session_id, title=title)
