"""Composing as a plan of tool calls (spec studio §5): what to write — the style,
tempo, key, parts, length, where, the effects, controller moves and automation
(`ComposeSpec`, from a structured prompt or from words) — and the steps that
write it into a project: `Set tempo to 96 BPM`, `Set up shared Reverb bus`, then
per part `Create Bass track`, `Add content to Bass` (the `generate_part` tool:
the built-in musicians, server-side), `Add effects to Bass`, and one step for
each entry of the Effects, MidiExpressiveness and Automation blocks. A `Form:`
(`structured_form`) gives a new song exactly its sections and bars.

A new project starts as an empty revision 1 whose compose recipe (the intent,
harmony and arrangement plans, with the request's emotion as style knobs) is
what every `generate_part` call plays from; nothing a language model says is
needed when Style, Tempo, Roles and Bars are given (nor otherwise: the rules
fill in what is missing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bandstand.compose.api import ALIASES, primary_genre
from bandstand.craft.requests import BPM, ROLE_WORDS
from bandstand.errors import InvalidInput
from bandstand.producer.requests.effects import Fx, infer_effects, normalise_effect
from bandstand.producer.requests.emotion import Emotion, derive_emotion
from bandstand.producer.requests.plans import Call, Plan, Step, bus_steps, find_tracks, order_steps
from bandstand.producer.requests.structured import (
    AutomationEntry,
    EffectEntry,
    ExpressionEntry,
    StructuredPrompt,
)
from bandstand.producer.requests.structured_form import FormSection, form_slots, read_form
from bandstand.studio import Project

if TYPE_CHECKING:
    from bandstand.compose.api import Recipe

__all__ = ["ComposeSpec", "PartSpec", "compose_plan", "default_parts", "new_recipe", "spec_from_structured",
           "spec_from_words"]

_DRUMS = ("drums", "percussion")


@dataclass(frozen=True, slots=True)
class PartSpec:
    """A part to write: its role, the track's name, and its sound (a GM program, or drums)."""

    role: str
    name: str
    program: int | None = None

    @property
    def drums(self) -> bool:
        return self.role in _DRUMS


@dataclass(frozen=True, slots=True)
class ComposeSpec:
    text: str
    style: str = ""
    tempo: float | None = None
    key: str | None = None
    bars: int | None = None
    parts: tuple[PartSpec, ...] = ()
    section: str | None = None
    position: str | None = None
    effects: tuple[EffectEntry, ...] = ()
    infer_effects: bool = True
    expressiveness: tuple[ExpressionEntry, ...] = ()
    automation: tuple[AutomationEntry, ...] = ()
    emotion: Emotion = field(default_factory=Emotion)
    constraints: tuple[str, ...] = ()
    overrides: tuple[Any, ...] = ()
    """How the parts play, beyond the emotion's knobs (`craft.style.StyleOverride`s)."""
    warnings: tuple[str, ...] = ()
    form: tuple[FormSection, ...] = ()
    """A form of the user's own (a structured prompt's `Form:`): a new song has exactly these sections."""


def _parts(words: Sequence[str]) -> tuple[PartSpec, ...]:
    from bandstand.producer.requests.iteration import vocabulary

    by_word: dict[str, tuple[str, int | None]] = {w: (role, None) for role, ws in ROLE_WORDS.items() for w in ws}
    by_word.update({w.lower(): (role, program) for w, role, program in vocabulary().instruments})
    out: list[PartSpec] = []
    for raw in words:
        word = " ".join(str(raw).lower().split())
        found = by_word.get(word) or by_word.get(word.rstrip("s")) or next(
            (v for w, v in sorted(by_word.items(), key=lambda kv: -len(kv[0])) if re.search(rf"\b{re.escape(w)}\b", word)),
            None)
        if found is None:
            known = ", ".join(sorted(ROLE_WORDS))
            raise InvalidInput(f"Roles: '{raw}' is not a part bandstand plays; use {known} or an instrument "
                               "(piano, strings, sax, …)", field="Roles")
        role, program = found
        name = str(raw).strip().title()[:50] if word not in ROLE_WORDS.get(role, ()) or word == "keys" else \
            role.replace("_", " ").title()
        if any(p.name.casefold() == name.casefold() for p in out):
            continue
        out.append(PartSpec(role, name, program))
    return tuple(out)


def spec_from_structured(prompt: StructuredPrompt) -> ComposeSpec:
    """The spec a structured prompt asks for; its dimension blocks (`structured_words.compose_reading`)
    add parts (Orchestration), an energy (Dynamics), a key (Harmony) and how the parts play."""
    from bandstand.producer.requests.structured_words import compose_reading

    read = compose_reading(prompt)
    form = read_form(prompt.form) if prompt.form not in (None, "", [], {}) else ()
    warnings = read.warnings
    if form and prompt.bars and prompt.bars != sum(s.bars for s in form):
        warnings += (f"Bars: {prompt.bars} was not used: the Form's sections make {sum(s.bars for s in form)} bars",)
    text = prompt.text()
    energy = prompt.energy if prompt.energy is not None else read.energy
    emotion = derive_emotion(" ".join(x for x in (prompt.style, prompt.vibe, prompt.request) if x),
                             energy=energy, tempo=prompt.tempo)
    roles = [*prompt.roles, *(r for r in read.roles if r.casefold() not in {x.casefold() for x in prompt.roles})]
    return ComposeSpec(text=text or "a song", style=prompt.style or "", tempo=prompt.tempo, key=prompt.key or read.key,
                       bars=prompt.bars, parts=_parts(roles), section=prompt.section, position=prompt.position,
                       effects=tuple(prompt.effects), infer_effects=not prompt.no_effects,
                       expressiveness=tuple(prompt.expressiveness), automation=tuple(prompt.automation),
                       emotion=emotion, constraints=tuple(prompt.constraints), overrides=read.overrides,
                       warnings=warnings, form=form)


_WITH = re.compile(r"\bwith\s+(?:a\s+|an\s+|some\s+)?(.+?)(?:[,.;]\s*(?:\d|in\b|at\b)|\s+(?:in|at)\s+|$)", re.I)


def _genre_words(text: str) -> str:
    """The genre a request names, as the compose lexicon spells it ("" when none)."""
    low = f" {' '.join(text.lower().split())} "
    found = next((a for a in sorted(ALIASES, key=len, reverse=True) if f" {a} " in low), None)
    return ALIASES[found] if found else ""


def spec_from_words(text: str, parts: Sequence[str] = ()) -> ComposeSpec:
    """A request in words ("a funk groove at 96 bpm with drums, bass and keys, 16 bars"): its
    bars, tempo, genre and the parts named after "with"."""
    bars = re.search(r"\b(\d{1,3})\s*bars?\b", text, re.I)
    said = BPM.search(text)
    tempo = (said.group(1) or said.group(2)) if said else None
    named = list(parts)
    if not named and (m := _WITH.search(text)):
        words = [w.strip() for w in re.split(r",|\band\b|&|\+", m.group(1)) if w.strip()]
        try:
            found = _parts(words)
        except InvalidInput:
            found = ()
        named = [p.name for p in found] if found and len(found) == len(words) else []
    return ComposeSpec(text=text, style=_genre_words(text), bars=int(bars.group(1)) if bars else None,
                       tempo=float(tempo) if tempo else None, parts=_parts(named),
                       emotion=derive_emotion(text, tempo=float(tempo) if tempo else None))


def new_recipe(spec: ComposeSpec, seed: int) -> Recipe:
    """The compose recipe a new project plays from: intent, harmony and arrangement, as the
    compose graph makes them (same seeds), with the emotion's knobs on every part."""
    from bandstand.compose.api import Overrides, Recipe, plans_for, roles_for

    tonic, mode = None, None
    if spec.key:
        m = re.fullmatch(r"\s*([A-Ga-g][#b]?)\s*(m|min|minor|maj|major|dorian|phrygian|lydian|mixolydian|locrian)?\s*",
                         spec.key)
        if m is None:
            raise InvalidInput(f"Key: '{spec.key}' is not a key; e.g. 'E minor', 'F#', 'Bb major'", field="Key")
        tonic = m.group(1)[0].upper() + m.group(1)[1:]
        mode = {"m": "minor", "min": "minor", "maj": "major"}.get((m.group(2) or "").lower(), m.group(2))
    bars = sum(s.bars for s in spec.form) if spec.form else max(4, spec.bars) if spec.bars else None
    overrides = Overrides(tempo=spec.tempo, key=tonic, mode=mode, bars=bars)
    asked = [p.role for p in spec.parts]
    intent, harmony, arrangement = plans_for(spec.text or spec.style or "a song", overrides, asked or None,
                                             seed=seed, form=form_slots(spec.form) if spec.form else None)
    roles = asked or roles_for(intent)
    knobs = spec.emotion.override()
    return Recipe(prompt=spec.text or spec.style or "a song", seed=seed, parts_asked=roles, intent=intent,
                  harmony=harmony, arrangement=arrangement,
                  style_overrides=[*([knobs] if knobs else []), *spec.overrides])


def default_parts(recipe: Recipe) -> tuple[PartSpec, ...]:
    """The parts of a recipe's arrangement, each on the genre's instrument for its role."""
    from bandstand.compose.api import DEFAULT_PROGRAMS

    genre = primary_genre(recipe.intent)
    return tuple(PartSpec(role, role.replace("_", " ").title(), genre.program(role, DEFAULT_PROGRAMS.get(role, 0)))
                 for role in recipe.parts_asked or recipe.arrangement.all_roles())


def _start(project: Project, spec: ComposeSpec) -> tuple[int, int, float]:
    """(first bar, bars, shift in beats) the parts are written at (`producer.requests.position` reads Position)."""
    from bandstand.producer.requests.position import place

    total = sum(s.bars for s in project.sections) or (spec.bars or 16)
    where = place(project, spec.position, spec.bars) if spec.position else None
    first = where.first_bar if where else 1
    bars = spec.bars or (where.bars if where and where.bars else None) or (total - first + 1 if first <= total else 8)
    return first, max(1, min(512, bars)), where.offset_beats if where else 0.0


def _fx_calls(track: str, fx: Fx) -> Call:
    if fx.bus:
        return Call("add_send", {"track": track, "bus": fx.bus, "level": fx.level})
    return Call("add_insert_effect", {"track": track, "type": fx.type, "params": dict(fx.params)})


def _entry_fx(entry: EffectEntry, style: str) -> Fx:
    kind = normalise_effect(entry.type)
    if kind == "reverb":
        bus = "Room" if re.search(r"\bjazz\b", style, re.I) else "Reverb"
        return Fx("reverb", bus=bus, level=entry.level if entry.level is not None else 0.3)
    return Fx(kind, dict(entry.params))


def _ramp(entry: ExpressionEntry | AutomationEntry, low: float, high: float, length: float,
          default: tuple[float, float]) -> list[tuple[float, float]]:
    if entry.points:
        return list(entry.points)
    a = entry.start if entry.start is not None else default[0]
    b = entry.end if entry.end is not None else default[1]
    count = 16
    return [(round(length * i / (count - 1), 4), round(min(high, max(low, a + (b - a) * i / (count - 1))), 4))
            for i in range(count)]


def _expression(entry: ExpressionEntry, track: str, regions: Sequence[tuple[str, float]], role: str | None = None,
                style: str = "") -> Step:
    if entry.pitch_bend and not entry.points and entry.start is None and entry.end is None:
        from bandstand.craft.bends import BEND_ROLES

        if role is not None and role not in BEND_ROLES:
            raise InvalidInput(f"MidiExpressiveness: {track} plays {role}, which is not bent (a bend moves every note "
                               f"the channel holds); pitch_bend suits {', '.join(BEND_ROLES)}",
                               field="MidiExpressiveness")
        bent = tuple(Call("add_pitch_bend", {"region": region, "idiom": True, **({"style": style[:200]} if style else {})})
                      for region, _ in regions)
        return Step("", f"Add pitch bends to {track}", "expression", bent, track)
    if entry.pitch_bend:
        what, tool = "pitch bend", "add_pitch_bend"
    elif entry.aftertouch:
        what, tool = "aftertouch", "add_aftertouch"
    else:
        what, tool = f"CC {entry.controller}", "add_midi_cc"
    calls = []
    for region, length in regions:
        low, high = (-8192, 8191) if entry.pitch_bend else (0, 127)
        points = _ramp(entry, low, high, max(0.0, length - 0.001), (0.0, 0.0) if entry.pitch_bend else (0.0, 127.0))
        events = [{"beat": b, "value": int(v)} for b, v in points]
        args: dict[str, Any] = {"region": region, "events": events}
        if tool == "add_midi_cc":
            args["cc"] = entry.controller
        calls.append(Call(tool, args))
    return Step("", f"Add {what} to {track}", "expression", tuple(calls), track)


def compose_plan(project: Project, spec: ComposeSpec, *, title: str | None = None) -> Plan:
    """The steps that write `spec` into `project` (see the module docstring)."""
    steps: list[Step] = []
    if spec.tempo and abs(spec.tempo - project.tempo) > 1e-6:
        steps.append(Step("", f"Set tempo to {spec.tempo:g} BPM", "setup", (Call("set_tempo", {"tempo": spec.tempo}),)))
    first, bars, shift = _start(project, spec)
    bpb = project.beats_per_bar
    buses: list[str] = []
    content: dict[str, tuple[str, float]] = {}
    for part in spec.parts:
        existing = find_tracks(project, part.name, part.role)
        track = existing[0].name if existing else part.name
        if not existing:
            sound = {"drum_kit": 0} if part.drums else {"gm_program": part.program if part.program is not None else 0}
            steps.append(Step("", f"Create {track} track", "setup",
                              (Call("add_midi_track", {"name": track, "role": part.role, **sound}),), track))
        args: dict[str, Any] = {"role": part.role, "bars": bars, "track": track}
        if spec.section:
            args["section"] = spec.section
        else:
            args["start_bar"] = first
            if shift:
                args["offset_beats"] = shift
        if spec.style:
            args["style"] = spec.style[:200]
        step = Step("", f"Add content to {track}", "composition", (Call("generate_part", args),), track,
                    kind="generate", role=part.role)
        steps.append(step)
        content[track.casefold()] = (f"@{id(step)}.region_id", bars * bpb)
        explicit = [e for e in spec.effects if e.track.casefold() in (track.casefold(), part.role, part.name.casefold())]
        if explicit:
            for one in explicit:
                fx = _entry_fx(one, spec.style)
                buses += [fx.bus] if fx.bus else []
                steps.append(Step("", f"Add {fx.type} to {track}", "soundDesign" if not fx.bus else "mixing",
                                  (_fx_calls(track, fx),), track))
        elif spec.infer_effects:
            have = {e.type for t in existing for e in t.inserts}
            chosen = [fx for fx in infer_effects(part.role, spec.style or spec.text) if fx.bus or fx.type not in have]
            if chosen:
                buses += [fx.bus for fx in chosen if fx.bus]
                steps.append(Step("", f"Add effects to {track}", "soundDesign",
                                  tuple(_fx_calls(track, fx) for fx in chosen), track))
    named = {p.name.casefold() for p in spec.parts} | {p.role for p in spec.parts}
    for fx_entry in (e for e in spec.effects if e.track.casefold() not in named):
        fx = _entry_fx(fx_entry, spec.style)
        buses += [fx.bus] if fx.bus else []
        tracks = find_tracks(project, fx_entry.track, None) or []
        for name in [t.name for t in tracks] or [fx_entry.track]:
            steps.append(Step("", f"Add {fx.type} to {name}", "soundDesign", (_fx_calls(name, fx),), name))
    for entry in spec.expressiveness:
        track, regions = _regions_for(project, entry.track, spec, content)
        steps.append(_expression(entry, track, regions, _role_of(project, spec, track), spec.style or spec.text))
    for auto in spec.automation:
        track, regions = _regions_for(project, auto.track, spec, content)
        start = (first - 1) * bpb + shift
        points = [(start + b, v) for b, v in _ramp(auto, -1e9, 1e9, bars * bpb, (0.0, 1.0))] if not auto.points else \
            list(auto.points)
        steps.append(Step("", f"Automate {track} {auto.parameter}", "mixing", (Call("add_automation", {
            "track": track, "parameter": auto.parameter,
            "points": [{"beat": b, "value": v, "curve": auto.curve} for b, v in points]}),), track))
    setup = [s for bus in dict.fromkeys(buses) if bus for s in bus_steps(project, bus)]
    everything = [*steps, *setup]
    ordered = order_steps(everything, [t.name for t in project.tracks])
    refs = {f"@{id(s)}": f"@{o.step_id}" for s, o in zip(_by_identity(everything, ordered), ordered, strict=True)}
    final = tuple(_rewrite(s, refs) for s in ordered)
    style = (spec.style or "").strip()
    return Plan(title or _title(style, spec, bool(project.tracks), bars), final)


def _by_identity(steps: Sequence[Step], ordered: Sequence[Step]) -> list[Step]:
    """The original step of each ordered step (same label and track; order_steps keeps both)."""
    out = []
    pool = list(steps)
    for o in ordered:
        match = next(s for s in pool if s.label == o.label and s.track == o.track and s.calls == o.calls)
        pool.remove(match)
        out.append(match)
    return out


def _rewrite(step: Step, refs: dict[str, str]) -> Step:
    def fix(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("@"):
            head, _, tail = value.partition(".")
            return f"{refs.get(head, head)}.{tail}" if tail else refs.get(head, head)
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value
    calls = tuple(Call(c.name, fix(c.args)) for c in step.calls)
    return Step(step.step_id, step.label, step.phase, calls, step.track, step.kind, step.role)


def _regions_for(project: Project, name: str, spec: ComposeSpec,
                 content: dict[str, tuple[str, float]]) -> tuple[str, list[tuple[str, float]]]:
    """The track an expression or automation entry means and the regions it moves in: the one
    this plan writes, else the track's regions."""
    for key, ref in content.items():
        if key == name.casefold() or any(p.role == name.casefold() and p.name.casefold() == key for p in spec.parts):
            track = next((p.name for p in spec.parts if p.name.casefold() == key), name)
            existing = find_tracks(project, track, None)
            return (existing[0].name if existing else track), [ref]
    tracks = find_tracks(project, name, name.lower())
    if not tracks:
        return name, [(name, 16.0)]
    return tracks[0].name, [(r.id, r.length_beats) for r in tracks[0].regions] or [(name, 16.0)]


def _role_of(project: Project, spec: ComposeSpec, track: str) -> str | None:
    """The role `track` plays: a part this plan writes, else the project's track (None when unknown)."""
    named = track.casefold()
    found = next((p.role for p in spec.parts if p.name.casefold() == named), None)
    return found or next((t.role for t in project.tracks if t.name.casefold() == named), None)


def _title(style: str, spec: ComposeSpec, existing: bool, bars: int) -> str:
    words = " ".join(style.split()[:4]).lower() or "new"
    if existing:
        names = [p.name for p in spec.parts]
        return "Writing " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0] if names else
                             "new parts")
    return f"Building a {words} groove" if bars <= 16 else f"Writing a {words} song"
