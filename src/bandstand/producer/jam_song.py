"""A jam becomes a song: a jam's recording (a folder with jam.mid and rounds.jsonl) opened as a
studio project, and arranged into a song project the studio can direct further.

    jam_project("jam-out")                      # the jam as played: revision 1, one section per round
    jam_to_song("jam-out", "output/my-song")    # intro, the rounds as sections, a reprise, an ending

`jam_project` keeps what the band played, bar for bar, with a section per round ("round 2:
D major"). `jam_to_song` arranges it: rounds that sound alike are one section (verse, chorus,
bridge, breakdown in the order they first came), each run of them looped or cut to an 8-bar
phrase; an intro of the first section's rhythm section; the most energetic section again
before the end; and an ending — a bar of the last section, then every part's first note held
as a final chord. A song has one metre, the one the jam played longest: rounds played in
another metre are left out and named in `JamSong.left_out`. The CLI (`bandstand jam --out`,
`bandstand jam-to-song`) and the jam server's `keep_jam` message ("keep this" on the page,
`keep_jam`) call these.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.errors import InvalidInput, NotFound
from bandstand.producer.projects import ProjectSession, create_from_song, open_project
from bandstand.score import Note, Section, Song, TimeSignature, Track
from bandstand.studio import Provenance

if TYPE_CHECKING:
    from bandstand.jam.live import LiveJam

__all__ = ["JamSong", "arrange", "check_jam_project", "jam_project", "jam_to_song", "keep_jam", "read_jam", "recipe"]

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
KINDS = {"intro": "intro", "verse": "verse", "chorus": "chorus", "bridge": "bridge", "breakdown": "break",
         "outro": "outro"}
AUTHOR = "jam"
_ROUND = re.compile(r"^round (\d+)")


@dataclass(frozen=True, slots=True)
class Round:
    """One round of the jam as it sounded: its bars (notes per track, beats from the bar's start)."""

    number: int
    combined: str
    energy: int
    time_signature: str
    bars: tuple[tuple[tuple[Note, ...], ...], ...]  # bar → track → notes


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
    from bandstand.midi import read_midi

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
    metre = _main_metre(spans, opening)
    numerator, denominator = (int(x) for x in metre.split("/"))
    song.time_signature = TimeSignature(numerator, denominator)
    bar = song.beats_per_bar
    rounds, left_out = [], []
    for begin, finish, number, played in spans:
        record = contexts.get(number, {})
        bars = math.ceil(round((finish - begin) / bar, 6)) if finish >= end else round((finish - begin) / bar, 6)
        if played != metre or bars != int(bars) or bars < 1:
            left_out.append(f"round {number} ({played})")
            continue
        rounds.append(Round(number, str(record.get("combined", "")), int(record.get("context", {}).get("energy", 5)),
                            played, tuple(_bar(song, begin + i * bar, bar) for i in range(int(bars)))))
    if not rounds:
        raise InvalidInput(f"the jam in {root} has no round of whole bars in {metre} to make a song of")
    return Jam(song, tuple(rounds), tuple(left_out))


def _main_metre(spans: list[tuple[float, float, int, str]], opening: str) -> str:
    """The metre the jam played longest (the opening one on a tie): a song keeps one metre."""
    played: dict[str, float] = {opening: 0.0}
    for begin, finish, _, metre in spans:
        played[metre] = played.get(metre, 0.0) + finish - begin
    return max(played, key=lambda m: (played[m], m == opening))


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
    from bandstand.jam.persona import resolve_members

    members = {p.name.upper(): p.role for p in resolve_members(None)}
    tracks = [Track(t.name, _part_role(t, members) if song_roles else t.role, program=t.program, is_drum=t.is_drum,
                    channel=t.channel, mix=t.mix) for t in song.tracks]
    return Song(title=title, tempo=song.tempo, time_signature=song.time_signature, key=song.key, tracks=tracks)


def _place(song: Song, bars: list[tuple[tuple[Note, ...], ...]], name: str, energy: float,
           keep: frozenset[int] | None = None, scale: float = 1.0) -> None:
    """Append `bars` to `song` as one section (only the tracks in `keep`, velocities × `scale`)."""
    start_bar = 1 + sum(s.bars for s in song.sections)
    length = song.beats_per_bar
    for i, tracks in enumerate(bars):
        offset = (start_bar - 1 + i) * length
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


def _labels(rounds: tuple[Round, ...]) -> list[int]:
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


def _phrase(bars: tuple[tuple[tuple[Note, ...], ...], ...], length: int) -> list[tuple[tuple[Note, ...], ...]]:
    """`bars` looped (or cut) to `length` bars."""
    return [bars[i % len(bars)] for i in range(length)]


def _final_chord(bar: tuple[tuple[Note, ...], ...], song: Song) -> tuple[tuple[Note, ...], ...]:
    """Every part's first note of `bar` struck on the downbeat and held for the bar (drums: their downbeat)."""
    length = song.beats_per_bar
    out = []
    for track, notes in zip(song.tracks, bar, strict=True):
        first = [n for n in notes if n.start < 1e-9] or sorted(notes, key=lambda n: n.start)[:1]
        out.append(tuple(Note(0.0, n.duration if track.is_drum else length, n.pitch, n.velocity) for n in first))
    return tuple(out)


def arrange(jam: Jam, title: str = "jam song") -> tuple[Song, tuple[str, ...]]:
    """The arranged song of the module docstring, and its form."""
    labels = _labels(jam.rounds)
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
    _place(song, _phrase(first.bars, INTRO), "intro", first.energy / 10 * 0.6,
           keep=rhythm if rhythm and rhythm != sounding else None, scale=0.85)
    sections: list[tuple[str, tuple[tuple[tuple[Note, ...], ...], ...], int]] = []
    for run in runs:
        bars = tuple(b for r in run for b in r.bars)
        sections.append((names[run[0].number], bars, max(r.energy for r in run)))
    for name, bars, energy in sections:
        _place(song, _phrase(bars, PHRASE if len(bars) <= PHRASE else 2 * PHRASE), name, energy / 10)
    peak = max(sections, key=lambda s: s[2])
    if len(sections) > 1 and peak is not sections[-1]:
        _place(song, _phrase(peak[1], PHRASE), peak[0], peak[2] / 10)
    last = sections[-1] if peak is sections[-1] or len(sections) == 1 else peak
    _place(song, [last[1][0], _final_chord(last[1][0], song)], "outro", last[2] / 10 * 0.7)
    for track in song.tracks:
        track.sort()
    return song, tuple(s.name for s in song.sections)


def _provenance(folder: Path, kind: str, recipe: dict[str, object] | None = None) -> Provenance:
    return Provenance(prompt=f"the jam recorded in {folder.name}", generator=kind, recipe=recipe or {})


def recipe(song: Song, prompt: str) -> dict[str, object]:
    """A compose recipe for the arranged song, so the studio can regenerate its parts
    ('make the bass busier'): the intent, harmony and arrangement compose would plan for the
    song's tempo, key and length, with the arrangement's sections made the song's own form
    (which parts play where), and each part's track named."""
    from bandstand.compose.arrangement import build_arrangement
    from bandstand.compose.harmony import build_harmony
    from bandstand.compose.intent import Overrides, decompose
    from bandstand.compose.models.arrangement import SectionPlan
    from bandstand.compose.recipe import Recipe

    tonic, _, mode = (song.key or "C minor").partition(" ")
    bars = sum(s.bars for s in song.sections)
    intent = decompose(prompt, overrides=Overrides(tempo=min(300.0, max(30.0, song.tempo)), key=tonic,
                                                   mode=mode or "minor", bars=max(4, bars)))
    ts = song.time_signature
    intent = intent.model_copy(update={"time_signature": (ts.numerator, ts.denominator)})
    harmony = build_harmony(intent, 0)
    roles = [t.role for t in song.tracks]
    base = build_arrangement(intent, harmony, list(dict.fromkeys(roles)), 0)
    loop = harmony.loop or list(range(len(harmony.chords)))
    sections = []
    for section in song.sections:
        first = (section.start_bar - 1) * song.beats_per_bar
        last = first + section.bars * song.beats_per_bar
        playing = [r for r, t in zip(roles, song.tracks, strict=True) if any(first <= n.start < last for n in t.notes)]
        sections.append(SectionPlan(name=section.name, kind=KINDS.get(section.name, "loop"),  # type: ignore[arg-type]
                                    start_bar=section.start_bar, bars=section.bars, energy=section.energy,
                                    roles=list(dict.fromkeys(playing)),
                                    chord_indices=[loop[i % len(loop)] for i in range(section.bars)]))
    energy = [s.energy for s in song.sections for _ in range(s.bars)]
    arrangement = base.model_copy(update={"form_name": "jam", "total_bars": bars, "sections": sections,
                                          "bar_energy": energy})
    parts: dict[str, str] = {}
    for track in song.tracks:
        key = track.role if track.role not in parts else f"{track.role}-{sum(k.split('-')[0] == track.role for k in parts) + 1}"
        parts[key] = track.name
    made = Recipe(prompt=prompt, seed=0, intent=intent, harmony=harmony, arrangement=arrangement, form="jam", parts=parts)
    return made.model_dump(mode="json")


def jam_project(folder: str | Path) -> JamSong:
    """The jam recorded in `folder` as a project in that same folder: revision 1 is the jam as
    played, one section per round. A project already there is replaced only while it holds
    nothing but an earlier jam's first take (a project someone has edited is refused)."""
    root = Path(folder).expanduser()
    check_jam_project(root)
    jam = read_jam(root)
    song = _empty(jam.song, "bandstand jam")
    for r in jam.rounds:
        _place(song, list(r.bars), f"round {r.number}", r.energy / 10)
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
    from bandstand.compose.state import new_session_id

    root = Path(projects).expanduser()
    session_id = new_session_id()
    folder = root / "jams" / session_id
    await jam.export("jam.mid", folder)  # writes jam.mid, transcript.md and rounds.jsonl
    return await asyncio.to_thread(jam_to_song, folder, root / session_id, title=title)
