"""What the top-level files say about HEAD beyond its notes: its recipe's sound
plan (the presets and the loudness target the notes name), its harmony (the
chord symbols of the lead sheet) and its story (genre, influences, the
progression, the seed in the producer notes).

All of it comes from the revision itself — the recipe compose and every edit
keep in its provenance — so a genre change shows its new sound plan and an
undo shows the old one again. A session whose revisions carry no recipe (an
imported one) falls back to compose's pipeline checkpoint for the sound plan.
The planned chords name the lead sheet's changes while the chords part still
plays them; once the chords part has been changed by hand (its notes no longer
the planned chords' tones), the lead sheet names what the chords part plays.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bandstand.errors import TheoryError
from bandstand.score import Song
from bandstand.studio import Project
from bandstand.studio.store import read_json
from bandstand.theory import parse_chord

if TYPE_CHECKING:
    from bandstand.compose.api import Recipe, SoundPlan

__all__ = ["AGREEMENT", "PIPELINE_STATE", "HeadStory", "checkpoint_sound", "chords_agree", "planned_chords",
           "producer_notes", "sound_target", "story_of"]

PIPELINE_STATE = "state/pipeline-state.json"
AGREEMENT = 0.8  # share of the chords part's sound on the planned chords' tones that still counts as playing them


class HeadStory:
    """HEAD's recipe (None when it has none), the sound plan its files name, and the chord changes
    its lead sheet names (None: name them from the chords part)."""

    __slots__ = ("chords", "planned", "recipe", "sound")

    def __init__(self, recipe: Recipe | None, sound: SoundPlan | None, planned: list[tuple[float, str]] | None,
                 chords: list[tuple[float, str]] | None) -> None:
        self.recipe, self.sound, self.planned, self.chords = recipe, sound, planned, chords


def _recipe(project: Project) -> Recipe | None:
    data = project.provenance.recipe
    if not data:
        return None
    from pydantic import ValidationError

    from bandstand.compose.api import Recipe

    try:
        return Recipe.model_validate(data)
    except ValidationError:
        return None


def checkpoint_sound(session_dir: Path) -> SoundPlan | None:
    state = read_json(session_dir / PIPELINE_STATE)
    try:
        output = state["nodes"]["sound"]["output"]
    except (KeyError, TypeError):
        return None
    if not isinstance(output, dict):
        return None
    from pydantic import ValidationError

    from bandstand.compose.api import SoundPlan

    try:
        return SoundPlan.model_validate(output)
    except ValidationError:
        return None


def planned_chords(recipe: Recipe, song: Song) -> list[tuple[float, str]] | None:
    """The chord symbol of every bar where the recipe's harmony plan changes chord."""
    from bandstand.compose.api import chord_changes

    return chord_changes(recipe.harmony, recipe.arrangement, song.bar_to_beat)


def chords_agree(song: Song, changes: list[tuple[float, str]]) -> bool:
    """Whether the chords part (if any) still plays the planned changes: at least `AGREEMENT` of its
    sounding time, note by note, on the tones of the chord planned where it sounds. `changes` are
    in time order, as `planned_chords` gives them."""
    track = next((t for t in song.tracks if t.role == "chords" and not t.is_drum), None)
    if track is None or not track.notes or not changes:
        return True
    tones: list[frozenset[int]] = []
    for _, symbol in changes:
        try:
            tones.append(frozenset(parse_chord(symbol).pitch_classes))
        except TheoryError:
            return True  # a plan we cannot read is no evidence of a hand edit
    starts = [beat for beat, _ in changes] + [float("inf")]
    on = total = 0.0
    for note in track.notes:
        # the planned chord the note starts in, by binary search (a scan from the first chord per note
        # made a long song quadratic)
        i = bisect_right(starts, note.start, 1) - 1
        while i < len(changes) and starts[i] < note.end:  # each planned chord the note sounds over
            overlap = min(note.end, starts[i + 1]) - max(note.start, starts[i])
            if overlap > 0:
                total += overlap
                on += overlap if note.pitch % 12 in tones[i] else 0.0
            i += 1
    return total == 0 or on / total >= AGREEMENT


def story_of(session_dir: Path, project: Project, song: Song) -> HeadStory:
    """HEAD's recipe, sound plan and lead-sheet chords (see the module docstring)."""
    recipe = _recipe(project)
    sound = recipe.sound if recipe is not None and recipe.sound is not None else checkpoint_sound(session_dir)
    planned = planned_chords(recipe, song) if recipe is not None else None
    chords = planned if planned and chords_agree(song, planned) else None
    return HeadStory(recipe, sound, planned, chords)


def _progression(story: HeadStory, song: Song) -> str | None:
    if story.recipe is not None and story.chords is not None:
        return story.recipe.harmony.summary
    from bandstand.compose.api import chords_from_track

    played = chords_from_track(song, next((t for t in song.tracks if t.role == "chords"), None))
    if not played:
        return None
    names: list[str] = []
    for _, symbol in played:
        if not names or names[-1] != symbol:
            names.append(symbol)
    more = " …" if len(names) > 8 else ""
    return " → ".join(names[:8]) + more + " (as the chords part plays it)"


def producer_notes(project: Project, files: dict[str, str], story: HeadStory, song: Song) -> str:
    """How to rebuild HEAD in a DAW: the song's story from its recipe (genre, tempo and feel, key,
    progression, seed, influences, constraints), every track with its sound, preset, level, pan,
    effects and sends, the buses, the master and the markers."""
    from bandstand.compose.api import preset_name

    recipe, sound = story.recipe, story.sound
    intent = recipe.intent if recipe is not None else None
    ts = project.time_signature
    lines = ["# Producer notes", ""]
    if project.provenance.prompt:
        lines += [f"Prompt: “{project.provenance.prompt.strip()}”", ""]
    lines += [f"Project “{project.name}”, revision {project.revision}.", ""]
    if intent is not None:
        lines.append(f"- Genre: {', '.join(intent.genre)}"
                     + (f" (with {', '.join(intent.sub_genre)})" if intent.sub_genre else ""))
    feel = ""
    if intent is not None and intent.tempo_analysis.half_time and abs(intent.tempo - project.tempo) < 1e-9:
        feel = f" (half-time feel: {intent.tempo_analysis.perceived_bpm:g})"
    lines += [f"- Tempo: {project.tempo:g} BPM{feel} — set the DAW project tempo to {project.tempo:g}",
              f"- Time signature: {ts.numerator}/{ts.denominator}", f"- Key: {project.key or 'not set'}"]
    progression = _progression(story, song)
    if progression:
        lines.append(f"- Progression: {progression}")
    lines.append(f"- Length: {sum(s.bars for s in project.sections)} bars" if project.sections else "- Length: free")
    if recipe is not None:
        lines.append(f"- Seed: {recipe.seed} (compose again with --seed {recipe.seed} for the first take)")
    lines += ["", "## Tracks", "",
              "Import `midi/full-arrangement.mid` (one track per part, markers at every section), or drag the "
              "single-part files onto their own tracks at bar 1.", ""]
    bus_names = {b.id: b.name for b in project.buses}
    by_name = {t.name: t for t in song.tracks}
    for t in project.tracks:
        sound_text = f"drum kit {t.drum_kit}" if t.drum_kit is not None else f"GM program {t.program}"
        scored = by_name.get(t.name)
        preset = f", preset {preset_name(scored, sound)}" if scored is not None else ""
        fx = ", ".join(e.type + (" (bypassed)" if e.bypass else "") for e in t.inserts) or "none"
        sends = ", ".join(f"{bus_names[s.bus_id]} {s.level:g}" for s in t.sends) or "none"
        state = " (muted)" if t.mute else " (solo)" if t.solo else ""
        lines.append(f"- **{t.name}**{state} — {t.role or 'part'}, {sound_text}{preset}, file `{files[t.id]}`; "
                     f"volume {t.volume:g}, pan {t.pan:g}; effects: {fx}; sends: {sends}")
    if project.buses:
        lines += ["", "## Buses", ""]
        lines += [f"- **{b.name}**: {', '.join(e.type for e in b.inserts) or 'no effects'}, return {b.volume:g}"
                  for b in project.buses]
    if sound is not None:
        lines += ["", f"Master: {sound.target_lufs:g} LUFS integrated, peaks under −1 dBTP — {sound.loudness_reason}."]
    if project.sections:
        lines += ["", "## Arrangement markers", ""]
        lines += [f"- bar {s.start_bar}: {s.name} ({s.bars} bars, energy {s.energy:.2f})" for s in project.sections]
    if intent is not None and intent.influence_analysis:
        lines += ["", "## Influences", ""]
        lines += [f"- {a.name}: {'; '.join(a.traits)}" for a in intent.influence_analysis]
    if intent is not None and intent.constraints:
        lines += ["", "## Constraints honoured", ""]
        lines += [f"- {c.kind}: “{c.text}”" for c in intent.constraints]
    lines.append("")
    return "\n".join(lines)


def sound_target(story: HeadStory, manifest: Any) -> float | None:
    """The master's loudness target: the sound plan's, else the manifest's (None: the default)."""
    if story.sound is not None:
        return float(story.sound.target_lufs)
    try:
        return float(manifest["master"]["target_lufs"])
    except (KeyError, TypeError, ValueError):
        return None
