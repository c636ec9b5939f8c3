"""From a plan to the proposed song: run exactly the affected graph nodes from
the recipe, lay each regenerated part out as compose does (silent where the
arrangement rests it, transition ramps), dress it as the track it replaces
(name, instrument, mix, channel — so a person's mixing survives), splice it
into the old part when the request named sections or bars, and leave every
other track exactly as HEAD has it (manual studio edits of parts the request
does not reach survive untouched, byte for byte).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bandstand.compose.api import (
    METRE_BARS,
    ArrangementPlan,
    Constraint,
    HarmonyPlan,
    Intent,
    PartFn,
    PartResult,
    Recipe,
    Rerun,
    active_spans,
    default_part,
    key_changes,
    lay_out,
    layers,
    overlay,
    part_role,
    replan,
    with_chords,
    write_parts,
)
from bandstand.producer.requests.iteration_plan import Plan, Window
from bandstand.producer.requests.sensitivity import BlastRadius, blast_radius
from bandstand.producer.requests.tempo_plan import tempo_edited
from bandstand.score import KeyChange, Section, Song, TimeSignature, Track, assign_channels
from bandstand.score.metre_map import MetreMap, relay, relay_song, runs
from bandstand.score.mix import VOLUME_MAX

__all__ = ["Rebuilt", "rebuild", "splice"]

_EVENTS = ("controls", "pitch_bends", "aftertouch", "poly_aftertouch")
UNPITCHED = frozenset({"drums", "percussion"})
"""Roles whose parts are the same in every key (written once, not once per key of the map)."""


@dataclass(slots=True)
class Rebuilt:
    """The proposed song, the recipe that makes it, and what the change reached."""

    song: Song
    recipe: Recipe
    radius: BlastRadius
    regenerated: list[str]


class _Windows:
    """Beat windows (start inclusive, end exclusive, each taken 1e-9 early) as a membership test
    that costs a binary search, not a scan of every window: a song's verses, say, are many
    windows, and every note of a part is tested."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, windows: Sequence[Window]) -> None:
        merged: list[list[float]] = []
        for lo, hi in sorted((a - 1e-9, b - 1e-9) for a, b in windows):
            if lo >= hi:
                continue
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self._starts = [lo for lo, _ in merged]
        self._ends = [hi for _, hi in merged]

    def __contains__(self, t: float) -> bool:
        i = bisect_right(self._starts, t) - 1
        return i >= 0 and t < self._ends[i]


def splice(old: Track | None, new: Track, windows: Sequence[Window]) -> Track:
    """`new` inside the windows, `old` outside them: a note belongs where it starts. An old note of
    a pitched part still ringing when a new note of the same pitch starts is cut there (a key
    cannot be struck while it is held); a drum note is one stroke, nothing holds it, so a crash
    just before the window keeps its length (issue #25: it was cut to 0.01 by a crash on the
    window's downbeat). Nothing else outside the windows moves. Set-up controllers at time 0
    come from the new part."""
    within = _Windows(windows)
    inside = [n for n in new.notes if n.start in within]
    starts: dict[int, list[float]] = {}
    for n in inside:
        starts.setdefault(n.pitch, []).append(n.start)
    for onsets in starts.values():
        onsets.sort()
    if old is not None and old.is_drum:
        starts.clear()
    notes = list(inside)
    for n in old.notes if old else ():
        if n.start in within:
            continue
        # the first new onset of this pitch after the old note starts cuts it, if it comes before its end
        onsets = starts.get(n.pitch, [])
        i = bisect_right(onsets, n.start)
        cut = onsets[i] if i < len(onsets) and onsets[i] < n.end else None
        notes.append(n if cut is None else replace(n, duration=max(0.01, cut - n.start)))
    out = replace(new, notes=sorted(notes, key=lambda n: (n.start, n.pitch)))
    for name in _EVENTS:
        keep_new = [e for e in getattr(new, name) if e.time in within or (name == "controls" and e.time == 0)]
        keep_old = [e for e in (getattr(old, name) if old else ()) if e.time not in within and e.time != 0]
        setattr(out, name, sorted([*keep_new, *keep_old], key=lambda e: e.time))
    return out


def silence(track: Track, windows: Sequence[Window], pitches: frozenset[int] | None = None) -> Track:
    """The track without its notes (and controller movement) inside the windows; with `pitches`,
    only the notes of those keys (a drum kit's hi-hats), its controllers kept."""
    within = _Windows(windows)
    if pitches is not None:
        return replace(track, notes=[n for n in track.notes if n.pitch not in pitches or n.start not in within])
    out = replace(track, notes=[n for n in track.notes if n.start not in within])
    for name in _EVENTS:
        setattr(out, name, [e for e in getattr(track, name) if e.time == 0 or e.time not in within])
    return out


def rechord(arrangement: ArrangementPlan, fresh: ArrangementPlan) -> ArrangementPlan:
    """The same arrangement over another progression. Which chord sounds in which bar is the
    harmony's (each section plays its function's progression, cadences at its end), so it is
    taken from `fresh` — the arrangement built again over the new harmony with the same seed;
    everything else (energies, who plays where, edits made since) stays. When the sections
    themselves differ, `fresh` is the arrangement."""
    layout = [(s.name, s.start_bar, s.bars) for s in arrangement.sections]
    if layout != [(s.name, s.start_bar, s.bars) for s in fresh.sections]:
        return fresh
    sections = [s.model_copy(update={"chord_indices": list(f.chord_indices)})
                for s, f in zip(arrangement.sections, fresh.sections, strict=True)]
    return arrangement.model_copy(update={"sections": sections})


def _plans(plan: Plan) -> Rerun:
    """The intent, harmony and arrangement the edit needs (plan nodes run again when asked)."""
    recipe = plan.recipe
    if not plan.run:
        return Rerun(intent=recipe.intent, harmony=recipe.harmony, arrangement=recipe.arrangement, parts={})
    config: dict[str, Any] = {}
    if plan.genre is not None:  # a new genre keeps the song's tempo, key and length
        config = {"genre": plan.genre, "tempo": recipe.intent.tempo, "key": recipe.intent.key,
                  "mode": recipe.intent.mode, "bars": recipe.arrangement.total_bars}
    if "harmony" in plan.run and "arrangement" not in plan.run:  # new chords over the same arrangement
        made = replan(recipe, [*plan.run, "arrangement"], config)
        return made.model_copy(update={"arrangement": rechord(recipe.arrangement, made.arrangement)})
    return replan(recipe, plan.run, config)


def _structure(a: ArrangementPlan) -> list[tuple[object, ...]]:
    return [(s.name, s.kind, s.start_bar, s.bars, round(s.energy, 4), sorted(s.roles), s.transition)
            for s in a.sections]


def _dress(new: Track, old: Track | None, plan: Plan, key: str, name: str) -> Track:
    """The regenerated track wearing the old one's name, instrument, mix and channel."""
    program = plan.programs.get(key, (old.program if old else new.program, ""))[0]
    if old is None:
        return replace(new, name=name, program=program, channel=None)
    return replace(new, name=old.name, program=program, channel=old.channel, mix=old.mix, is_drum=old.is_drum)


def _new_part_mix(track: Track, made: Rerun, buses: Sequence[str]) -> Track:
    """A part the song did not have gets the mix the sound plan gives its role."""
    from bandstand.compose.api import apply_sound, build_sound

    sound = build_sound(made.intent, {track.role: track.program}, {track.role: track})
    dressed = apply_sound(Song(tracks=[track]), sound).tracks[0]
    sends = tuple(s for s in dressed.mix.sends if s.bus in buses)
    return replace(dressed, program=track.program, mix=replace(dressed.mix, sends=sends))


def _unique(name: str, taken: set[str]) -> str:
    out, n = name[:50], 2
    while out.casefold() in taken:
        out, n = f"{name[:46]} {n}", n + 1
    return out


@dataclass(frozen=True, slots=True)
class _InKey:
    """The parts written again in one other key of the map, with the plans they were written over."""

    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    bars: tuple[tuple[int, int], ...]
    parts: dict[str, PartResult]


def _in_other_keys(recipe: Recipe, made: Rerun, keys: Sequence[str], part_fn: PartFn) -> list[_InKey]:
    """The pitched parts `keys` written again in each key of the map other than the recipe's
    own, over that key's harmony and chords (the same seeds, the same arrangement otherwise)."""
    out: list[_InKey] = []
    if not keys:
        return out
    for layer in layers(recipe)[1:]:
        if not layer.bars:
            continue
        own = layer.intent
        intent = made.intent.model_copy(update={"key": own.key, "mode": own.mode, "key_analysis": own.key_analysis})
        arrangement = with_chords(made.arrangement, layer.chords)
        parts = write_parts(recipe, keys, {"intent": intent, "harmony": layer.harmony, "arrangement": arrangement},
                            part_fn=part_fn)
        out.append(_InKey(intent, layer.harmony, arrangement, layer.bars, parts))
    return out


def _laid(key: str, parts: Mapping[str, PartResult], in_keys: Sequence[_InKey], made: Rerun) -> Track:
    """Part `key` laid out as compose does, its bars in other keys of the map taken from the
    writing in their key (one metre throughout: `made`'s)."""
    laid = lay_out(parts[key].track, made.intent, made.harmony, made.arrangement)
    for other in in_keys:  # the bars in another key: the part as written in that key
        if key in other.parts:
            bpb = made.intent.time_signature[0] * 4.0 / made.intent.time_signature[1]
            there = lay_out(other.parts[key].track, other.intent, other.harmony, other.arrangement)
            laid = splice(laid, there, [((a - 1) * bpb, b * bpb) for a, b in other.bars])
    return laid


def _on_metres(recipe: Recipe, made: Rerun, keys: Sequence[str], parts: Mapping[str, PartResult],
               in_keys: Sequence[_InKey], metres: MetreMap, part_fn: PartFn) -> dict[str, Track]:
    """Each part of `keys` laid on the metre map `metres`: written once per metre of the map (the
    same seeds, plans and keys), each bar taken from the writing in its own metre and laid where
    the map puts it — so a part in a 3/4 bridge is a part written in 3/4."""
    own = TimeSignature(*made.intent.time_signature)
    pieces: dict[str, list[Track]] = {k: [] for k in keys}
    for ts, held in runs(metres, made.arrangement.total_bars):
        if not held:
            continue
        there, layered, written = made, in_keys, parts
        if ts != own or made.intent.section_metres:  # a composed song in odd metres: written per metre here
            bars_there = Constraint(kind=METRE_BARS, text=f"bars in {ts}, in a song in {own}")  # their own grooves
            intent = made.intent.model_copy(update={
                "time_signature": (ts.numerator, ts.denominator), "section_metres": {},
                "constraints": [*made.intent.constraints, *([bars_there] if ts != own else [])]})
            there = made.model_copy(update={"intent": intent})
            written = write_parts(recipe, keys, {"intent": intent, "harmony": made.harmony,
                                                 "arrangement": made.arrangement}, part_fn=part_fn)
            layered = _in_other_keys(recipe, there, [k for k in keys if part_role(k) not in UNPITCHED], part_fn)
        bars = {bar for a, b in held for bar in range(a, b + 1)}
        for key in keys:
            pieces[key].append(relay(_laid(key, written, layered, there), MetreMap(ts), metres, bars))
    out: dict[str, Track] = {}
    for key, laid in pieces.items():
        track = laid[0]
        for more in laid[1:]:
            for name in ("notes", *_EVENTS, "program_changes"):
                setattr(track, name, [*getattr(track, name), *getattr(more, name)])
        track.sort()
        out[key] = track
    return out


def rebuild(base: Song, plan: Plan, names: Mapping[str, str], *, part_fn: PartFn | None = None) -> Rebuilt:
    """The song `plan` makes from `base` (HEAD as a song); `names` maps part keys to track names.
    `part_fn` writes each part (default: the built-in musicians; the studio stream wraps it to
    say which part is being written)."""
    made = _plans(plan)
    src = MetreMap.of_song(base)
    metres = plan.metres if plan.metres is not None else src
    if src.uniform and metres.uniform:  # one metre throughout, before and after: the intent's
        metres = MetreMap(TimeSignature(*made.intent.time_signature))
    else:  # HEAD's parts moved bar by bar onto the map the song now has
        base = relay_song(base, metres)
    recipe = plan.recipe.model_copy(update={"intent": made.intent, "harmony": made.harmony,
                                            "arrangement": made.arrangement})
    keys = [k for k in (*plan.keys, *plan.added) if k not in plan.remove]
    before = plan.recipe.arrangement
    if "arrangement" in plan.run and _structure(made.arrangement) != _structure(before):
        plan.change("arrangement")
        bpb = made.intent.time_signature[0] * 4.0 / made.intent.time_signature[1]
        # who plays where is the arrangement's: a part whose sections changed plays again
        plan.change(*(k for k in keys if active_spans(part_role(k), before, bpb)
                      != active_spans(part_role(k), made.arrangement, bpb)))
    radius = blast_radius(plan.changed, keys, plan.frozen)
    regenerate = list(radius.parts)
    parts = write_parts(recipe, regenerate, {"intent": made.intent, "harmony": made.harmony,
                                             "arrangement": made.arrangement}, part_fn=part_fn)
    in_keys = _in_other_keys(recipe, made, [k for k in regenerate if part_role(k) not in UNPITCHED],
                             part_fn or default_part)
    by_name = {t.name: t for t in base.tracks}
    key_of = {n: k for k, n in names.items()}
    taken = {t.name.casefold() for t in base.tracks}
    limits = plan.limits
    new_names = {k: n for k, n in names.items() if k not in plan.remove}
    made_tracks: dict[str, Track] = {}
    on_map = None if metres.uniform else _on_metres(recipe, made, regenerate, parts, in_keys, metres,
                                                      part_fn or default_part)
    for key in regenerate:
        laid = on_map[key] if on_map is not None else _laid(key, parts, in_keys, made)
        old = by_name.get(names.get(key, ""))
        edit = plan.added.get(key)
        name = old.name if old else _unique((edit.name if edit and edit.name else part_role(key)).title(), taken)
        taken.add(name.casefold())
        track = _dress(laid, old, plan, key, name)
        if old is None:
            track = _new_part_mix(track, made, [b.name for b in base.buses])
        spans = plan.recipe.spans.get(key)
        if spans:  # a part added to some bars plays there only, take after take
            track = splice(None, track, [(metres.start(a), metres.start(b + 1)) for a, b in spans])
        if limits is not None:
            limited = _Windows(limits)
            if not any(n.start in limited for n in (*track.notes, *(old.notes if old else ()))):
                part = key.replace("_", " ")
                plays = "do" if part.endswith("s") and not part.endswith("ss") else "does"
                plan.notes.append(f"the {part} {plays} not play there")
            track = splice(old, track, limits)
        made_tracks[key] = track
        new_names[key] = track.name
    tracks: list[Track] = []
    for t in base.tracks:
        found = key_of.get(t.name)
        if found is None:  # a track the recipe does not know (added with tools): kept as it is
            tracks.append(t)
            continue
        key = found
        if key in plan.remove:
            continue
        track = made_tracks.get(key, t)
        if key in plan.silence:
            track = silence(track, plan.silence[key])
        for window, pitches in plan.thin.get(key, ()):
            track = silence(track, [window], pitches)
        if key in plan.programs and key not in made_tracks:
            track = replace(track, program=plan.programs[key][0])
        if key in plan.volumes:
            volume = round(min(VOLUME_MAX, track.mix.volume * plan.volumes[key]), 4)
            track = replace(track, mix=replace(track.mix, volume=volume))
        tracks.append(track)
    tracks += [made_tracks[k] for k in regenerate if k in plan.added]
    if plan.key_from is not None and plan.key_bars:  # a key change in some bars: the map moves there only
        recipe = overlay(plan.key_from, recipe, plan.key_bars)
    song = _song(base, tracks, made, "arrangement" in plan.run or "energy" in plan.changed, recipe, metres)
    # the tempo map is the song's (HEAD's), moved only by the request's tempo words
    tempo, tempo_changes = tempo_edited(base.tempo, base.tempo_changes, plan.tempos)
    song = replace(song, tempo=tempo, tempo_changes=list(tempo_changes))
    if abs(recipe.intent.tempo - tempo) > 1e-9:
        recipe = recipe.model_copy(update={"intent": recipe.intent.model_copy(update={"tempo": tempo})})
    if plan.genre is not None:
        song, sound = _replan_sound(song, made, plan.frozen, names)
        recipe = recipe.model_copy(update={"sound": sound})
    kept_spans = {k: v for k, v in recipe.spans.items() if k not in plan.remove}
    recipe = recipe.model_copy(update={"parts": new_names, "frozen": sorted(plan.frozen), "spans": kept_spans})
    return Rebuilt(song=song, recipe=recipe, radius=radius, regenerated=regenerate)


def _song(base: Song, tracks: list[Track], made: Rerun, sections: bool, recipe: Recipe, metres: MetreMap) -> Song:
    intent, arrangement = made.intent, made.arrangement
    changes = [KeyChange(metres.start(bar), key) for bar, key in key_changes(recipe)]
    # the key of bar 1 is the recipe's own (a key change in later bars only leaves it)
    song = replace(base, tracks=tracks, tempo=intent.tempo, key=recipe.harmony.key_name,
                   key_changes=changes, time_signature=metres.opening, metre_changes=list(metres.changes))
    if sections:
        song = replace(song, sections=[Section(s.name, s.start_bar, s.bars, s.energy) for s in arrangement.sections])
    channels = assign_channels(song)
    tracks = [t if t.channel is not None else replace(t, channel=c) for t, c in zip(song.tracks, channels, strict=True)]
    return replace(song, tracks=tracks)


def _replan_sound(song: Song, made: Rerun, frozen: set[str], names: Mapping[str, str]) -> tuple[Song, Any]:
    """A new genre brings its own sounds and mix (frozen parts keep theirs)."""
    from bandstand.compose.api import apply_sound, build_sound

    held = {names[k] for k in frozen if k in names}
    sound = build_sound(made.intent, {t.role: t.program for t in song.tracks if t.name not in held},
                        {t.role: t for t in song.tracks if t.name not in held})
    planned = apply_sound(song, sound)
    tracks = [old if old.name in held else new for old, new in zip(song.tracks, planned.tracks, strict=True)]
    return replace(planned, tracks=tracks), sound

