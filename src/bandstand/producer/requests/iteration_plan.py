"""From typed edits to a plan: what the song's recipe becomes, which plan nodes run
again, which parts change and how (regenerated, spliced into some bars, given
another instrument, louder, removed, added), and the facts that changed, from
which the blast radius follows.

Each kind of edit has one function in `PLANNERS` (a table, not a ladder). A
planner changes the draft recipe (style overrides accumulate, seed variants
move on, the intent's key or tempo changes), names the facts it changed and
the bars it is limited to. Parts the person froze are never planned for:
the plan notes them and leaves them as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bandstand.compose.api import ArrangementPlan, Recipe, part_node, part_role
from bandstand.craft.edits import (
    AddPartEdit,
    Edit,
    EnergyEdit,
    FreezeEdit,
    GenreEdit,
    InstrumentEdit,
    KeyEdit,
    MetreEdit,
    MixEdit,
    ModeEdit,
    PraiseEdit,
    PresenceEdit,
    ProgressionEdit,
    RegenerateEdit,
    RemovePartEdit,
    SoloEdit,
    StyleEdit,
    TempoEdit,
    TransposeEdit,
)
from bandstand.craft.requests import ROLE_WORDS
from bandstand.craft.roles import ROLE_FAMILIES
from bandstand.craft.style import StyleOverride
from bandstand.errors import InvalidInput, TheoryError
from bandstand.producer.requests.metre_plan import remetred, scope_runs
from bandstand.score import DRUM_PIECES, TEMPO_RANGE, TimeSignature, clamp_tempo
from bandstand.score.metre_map import MetreMap
from bandstand.theory import ROOT_NAMES, pitch_class

__all__ = ["PLANNERS", "Plan", "Window", "plan_edits"]

Window = tuple[float, float]  # beats, start inclusive, end exclusive
CORE = ("drums", "bass", "chords", "lead", "pad")
SOLO_KNOBS = {"density": 0.3, "complexity": 0.3, "register": 0.2}


@dataclass(slots=True)
class Plan:
    """What an edit request does to a song (see the module docstring). `keys` are the song's
    part keys (a role, or role-N), `frozen` the ones the person froze."""

    recipe: Recipe
    keys: list[str]
    frozen: set[str]
    run: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    windows: list[Window] | None = None
    unscoped: bool = False
    regenerate: set[str] = field(default_factory=set)
    remove: set[str] = field(default_factory=set)
    silence: dict[str, list[Window]] = field(default_factory=dict)
    programs: dict[str, tuple[int, str]] = field(default_factory=dict)
    volumes: dict[str, float] = field(default_factory=dict)
    added: dict[str, AddPartEdit] = field(default_factory=dict)
    genre: str | None = None
    notes: list[str] = field(default_factory=list)
    thin: dict[str, list[tuple[Window, frozenset[int]]]] = field(default_factory=dict)  # (window, keys silenced)
    # a key change in some bars only: the bars, and the recipe (with its key map) it moves from
    key_bars: set[int] = field(default_factory=set)
    key_from: Recipe | None = None
    # tempo edits on the song's tempo map, each with the beat windows it is limited to (None: all of it)
    tempos: list[tuple[list[Window] | None, TempoEdit]] = field(default_factory=list)
    # the song's metre map as the edits leave it (None: the recipe's one metre throughout)
    metres: MetreMap | None = None

    def change(self, *facts: str) -> None:
        self.changed += [f for f in facts if f not in self.changed]

    def rerun(self, *nodes: str) -> None:
        self.run += [n for n in nodes if n not in self.run]

    def scope(self, windows: list[Window] | None) -> None:
        """Limit the change to `windows` (None: the whole song, which wins over any window)."""
        if windows is None:
            self.unscoped = True
        else:
            self.windows = [*(self.windows or []), *windows]

    @property
    def limits(self) -> list[Window] | None:
        return None if self.unscoped or not self.windows else sorted(self.windows)

    def usable(self, keys: Sequence[str], what: str) -> list[str]:
        """`keys` without the frozen ones (noted)."""
        held = [k for k in keys if k in self.frozen]
        for k in held:
            name = k.replace("_", " ")
            self.notes.append(f"{name} not {what}: it is frozen (say 'unfreeze the {name}' to change it)")
        return [k for k in keys if k not in self.frozen]


def _bpb(plan: Plan) -> float:
    num, den = plan.recipe.intent.time_signature
    return num * 4.0 / den


def _windows(plan: Plan, sections: Sequence[str], bars: tuple[int, int] | None) -> list[Window] | None:
    """The beat windows a scope names (None: no scope, the whole song), on the song's metre map."""
    if plan.metres is not None and not plan.metres.uniform:
        runs = scope_runs(plan.recipe.arrangement, sections, bars)
        return None if runs is None else [(plan.metres.start(a), plan.metres.start(b + 1)) for a, b in runs]
    arrangement = plan.recipe.arrangement
    bpb = _bpb(plan)
    if not sections and bars is None:
        return None
    out: list[Window] = []
    if sections:
        wanted = {s.lower() for s in sections}
        hits = [s for s in arrangement.sections if s.kind in wanted or s.name.lower() in wanted]
        if not hits:
            names = ", ".join(dict.fromkeys(s.name for s in arrangement.sections))
            raise InvalidInput(f"this song has no {' or '.join(sorted(wanted))}; its sections are {names}")
        out += [((s.start_bar - 1) * bpb, (s.start_bar - 1 + s.bars) * bpb) for s in hits]
    if bars is not None:
        last = arrangement.total_bars
        if bars[0] > last:
            raise InvalidInput(f"bar {bars[0]} is past the end of the song ({last} bars)")
        out.append(((bars[0] - 1) * bpb, min(bars[1], last) * bpb))
    return out


def _keys_for(plan: Plan, role: str, what: str, *, must: bool = True) -> list[str]:
    keys = plan.keys if role == "*" else [k for k in plan.keys if part_role(k) == role]
    if not keys and role != "*":  # roles by any name: the 808 of a song whose low end is its bass
        for stand_in in ROLE_FAMILIES.get(role, ())[1:]:
            keys = [k for k in plan.keys if part_role(k) == stand_in]
            if keys:
                note = (f"this song has no {role.replace('_', ' ')} part: its {stand_in.replace('_', ' ')} "
                        f"plays that role")
                if note not in plan.notes:
                    plan.notes.append(note)
                break
    if not keys and must:
        have = ", ".join(plan.keys) or "no parts"
        raise InvalidInput(f"this song has no {role.replace('_', ' ')} part (it has {have}); "
                           f"'add a {role.replace('_', ' ')}' adds one")
    return plan.usable(keys, what)


def _style(plan: Plan, edit: StyleEdit) -> None:
    o = edit.override
    keys = _keys_for(plan, o.role, "restyled")
    if not keys:
        return
    overrides = list(plan.recipe.style_overrides)
    overrides += [o] if o.role == "*" and len(keys) == len(plan.keys) else [o.model_copy(update={"role": k})
                                                                           for k in keys]
    plan.recipe = plan.recipe.model_copy(update={"style_overrides": overrides})
    plan.change(*keys)
    plan.scope(_windows(plan, o.sections, o.bars))


def _solo(plan: Plan, edit: SoloEdit) -> None:
    if edit.role == "*":
        raise InvalidInput("say who takes the solo, e.g. 'the lead takes a solo in the bridge'")
    override = StyleOverride(role=edit.role, knobs=SOLO_KNOBS, sections=edit.sections, bars=edit.bars)
    _style(plan, StyleEdit(override=override))


def _energy(plan: Plan, edit: EnergyEdit) -> None:
    arrangement = plan.recipe.arrangement
    wanted = {s.lower() for s in edit.sections}
    windows = _windows(plan, edit.sections, edit.bars)
    sections, bar_energy = [], list(arrangement.bar_energy)
    for s in arrangement.sections:
        inside = not wanted or s.kind in wanted or s.name.lower() in wanted
        if not inside:
            sections.append(s)
            continue
        target = edit.level / 10 if edit.level is not None else s.energy + edit.delta / 10
        energy = round(min(1.0, max(0.0, target)), 4)
        shift = energy - s.energy
        for b in range(s.start_bar - 1, min(len(bar_energy), s.start_bar - 1 + s.bars)):
            bar_energy[b] = round(min(1.0, max(0.0, bar_energy[b] + shift)), 4)
        sections.append(s.model_copy(update={"energy": energy}))
    new = arrangement.model_copy(update={"sections": sections, "bar_energy": bar_energy})
    plan.recipe = plan.recipe.model_copy(update={"arrangement": new})
    plan.change("energy")
    plan.scope(windows)


def _retune(plan: Plan, tonic: str, mode: str | None, windows: list[Window] | None = None) -> None:
    intent = plan.recipe.intent
    mode = mode or intent.mode
    if windows is not None:  # only there: the key map moves in those bars (see `rebuild`)
        bpb = _bpb(plan)
        plan.key_from = plan.key_from or plan.recipe
        if plan.metres is not None and not plan.metres.uniform:
            plan.key_bars |= {bar for a, b in windows for bar in range(plan.metres.bar(a), plan.metres.bar(b - 1e-6) + 1)}
        else:
            plan.key_bars |= {bar for a, b in windows for bar in range(round(a / bpb) + 1, round(b / bpb) + 1)}
    moves = bool(plan.recipe.key_map) or windows is not None  # bars in other keys come into this one
    if (tonic, mode) == (intent.key, intent.mode) and not moves:
        plan.notes.append(f"the song is already in {tonic} {mode}")
    analysis = intent.key_analysis.model_copy(update={"root": tonic, "mode": mode, "source": "explicit"})
    # the new key holds every bar: the key map's other keys go (accepting it in some bars only
    # brings them back there, see `producer.requests.key_accept`)
    plan.recipe = plan.recipe.model_copy(update={"key_map": [], "intent": intent.model_copy(
        update={"key": tonic, "mode": mode, "key_analysis": analysis})})
    plan.change(*(["key"] if tonic != intent.key or moves else []), *(["mode"] if mode != intent.mode else []))
    plan.rerun("harmony")
    plan.scope(windows)


def _key(plan: Plan, edit: KeyEdit) -> None:
    _retune(plan, edit.tonic, edit.mode, _windows(plan, edit.sections, edit.bars))


def _transpose(plan: Plan, edit: TransposeEdit) -> None:
    try:
        pc = pitch_class(plan.recipe.intent.key)
    except TheoryError:
        pc = 0
    _retune(plan, ROOT_NAMES[(pc + edit.semitones) % 12], None)


def _mode(plan: Plan, edit: ModeEdit) -> None:
    _retune(plan, plan.recipe.intent.key, edit.mode)


def _tempo(plan: Plan, edit: TempoEdit) -> None:
    intent = plan.recipe.intent
    windows = _windows(plan, edit.sections, edit.bars)
    wanted = edit.applied(intent.tempo)
    bpm = round(clamp_tempo(wanted), 2)
    asked = edit.asked if edit.asked is not None else (wanted if bpm != round(wanted, 2) else None)
    if asked is not None:  # said once, here, for every client
        low, high = TEMPO_RANGE
        plan.notes.append(f"{asked:g} BPM is outside the tempo range {low:g}–{high:g} BPM: the tempo is set to {bpm:g}")
    plan.tempos.append((windows, edit))  # the song's tempo map moves there (`iteration_song.rebuild`)
    plan.change("tempo")
    if windows is not None:  # bars at another tempo: the notes (in beats) stay as they are
        return
    ratio = bpm / intent.tempo
    analysis = intent.tempo_analysis.model_copy(update={
        "bpm": bpm, "perceived_bpm": round(intent.tempo_analysis.perceived_bpm * ratio, 2), "source": "explicit"})
    plan.recipe = plan.recipe.model_copy(update={"intent": intent.model_copy(
        update={"tempo": bpm, "tempo_analysis": analysis})})
    plan.scope(None)


def _metre(plan: Plan, edit: MetreEdit) -> None:
    ts = TimeSignature(edit.numerator, edit.denominator)
    runs = scope_runs(plan.recipe.arrangement, edit.sections, edit.bars)
    if runs is not None:  # some bars only: the metre map moves there, every part is written again there
        before = plan.metres or MetreMap(TimeSignature(*plan.recipe.intent.time_signature))
        plan.metres = remetred(before, runs, ts)
        if plan.metres == before:
            plan.notes.append(f"those bars are already in {ts}")
            return
        keys = plan.usable(plan.keys, "written in the new metre")
        plan.change("metre", *keys)
        plan.scope(_windows(plan, edit.sections, edit.bars))
        return
    intent = plan.recipe.intent
    plan.recipe = plan.recipe.model_copy(update={"intent": intent.model_copy(
        update={"time_signature": (edit.numerator, edit.denominator), "section_metres": {}})})
    if plan.metres is not None or intent.section_metres:  # one metre throughout from now on
        plan.metres = MetreMap(ts)
    plan.change("metre")
    plan.rerun("arrangement")
    plan.scope(None)


def _progression(plan: Plan, edit: ProgressionEdit) -> None:
    raise InvalidInput("the studio does not take a chord list yet; say 'new chord progression' (or "
                       "'try something different' for the progression's alternatives)")


def _genre(plan: Plan, edit: GenreEdit) -> None:
    plan.genre = edit.genre
    plan.change("genre")
    plan.rerun("intent", "harmony", "arrangement")
    plan.scope(None)


def _instrument(plan: Plan, edit: InstrumentEdit) -> None:
    keys = _keys_for(plan, edit.role, "given another instrument")
    if keys:
        plan.programs[keys[0]] = (edit.program, edit.name)
        plan.change("instrument")


def _mix(plan: Plan, edit: MixEdit) -> None:
    for key in _keys_for(plan, edit.role, "made louder or quieter"):
        plan.volumes[key] = plan.volumes.get(key, 1.0) * edit.volume
    plan.change("mix")


def _remove(plan: Plan, edit: RemovePartEdit) -> None:
    plan.remove.update(_keys_for(plan, edit.role, "removed"))


def _presence(plan: Plan, edit: PresenceEdit) -> None:
    keys = _keys_for(plan, edit.role, "changed")
    windows = _windows(plan, edit.sections, edit.bars)
    if not edit.present and edit.pieces:  # only those pieces of the kit, where scoped (the whole song else)
        keys_played = [k for k in keys if part_role(k) == "drums"]
        pitches = frozenset(p for piece in edit.pieces for p in DRUM_PIECES[piece])
        total = plan.recipe.arrangement.total_bars
        whole = [(0.0, plan.metres.start(total + 1) if plan.metres is not None else total * _bpb(plan))]
        for key in keys_played:
            plan.thin.setdefault(key, []).extend((w, pitches) for w in windows or whole)
        return
    if not edit.present:
        for key in keys:
            if windows is None:
                plan.remove.add(key)
            else:
                plan.silence.setdefault(key, []).extend(windows)
        if edit.sections:  # the arrangement rests them there from now on, so a later take does too
            _deactivate(plan, [part_role(k) for k in keys], edit.sections)
        return
    _activate(plan, [part_role(k) for k in keys], edit.sections)
    plan.change(*keys)
    plan.scope(windows)


def _activate(plan: Plan, roles: Sequence[str], sections: Sequence[str]) -> None:
    """Make `roles` play in the named sections (all, when none are named)."""
    wanted = {s.lower() for s in sections}
    arrangement: ArrangementPlan = plan.recipe.arrangement
    new = [s if (wanted and s.kind not in wanted and s.name.lower() not in wanted)
           else s.model_copy(update={"roles": [*s.roles, *(r for r in roles if r not in s.roles)]})
           for s in arrangement.sections]
    plan.recipe = plan.recipe.model_copy(update={"arrangement": arrangement.model_copy(update={"sections": new})})


def _deactivate(plan: Plan, roles: Sequence[str], sections: Sequence[str]) -> None:
    wanted = {s.lower() for s in sections}
    arrangement: ArrangementPlan = plan.recipe.arrangement
    new = [s.model_copy(update={"roles": [r for r in s.roles if r not in roles]})
           if s.kind in wanted or s.name.lower() in wanted else s for s in arrangement.sections]
    plan.recipe = plan.recipe.model_copy(update={"arrangement": arrangement.model_copy(update={"sections": new})})


def _extends(plan: Plan, edit: AddPartEdit) -> bool:
    """"add a melody to the chorus" on a song with a Lead: the Lead plays there too (no second
    lead beside it) — unless an instrument was named ("add a flute")."""
    generic = not edit.name or edit.name.casefold() in ROLE_WORDS.get(edit.role, ()) or edit.name == edit.role
    return generic and edit.role in plan.keys


def _add(plan: Plan, edit: AddPartEdit) -> None:
    if _extends(plan, edit):
        name, where = edit.role.replace("_", " "), " and ".join(edit.sections) or "every section"
        wanted = {w.lower() for w in edit.sections}
        targets = [s for s in plan.recipe.arrangement.sections
                   if not wanted or s.kind in wanted or s.name.lower() in wanted]
        if targets and all(edit.role in s.roles for s in targets):
            raise InvalidInput(f"the {name} already plays in the {where}; say 'regenerate the {name} in the "
                               f"{where}', or name an instrument ('add a flute to the {where}') for a new part")
        _activate(plan, [edit.role], edit.sections)
        plan.notes.append(f"the existing {name} now plays in the {where} too (name an instrument, e.g. "
                          "'add a flute', for a new part)")
        plan.change(edit.role)
        plan.scope(_windows(plan, edit.sections, edit.bars))
        return
    taken = set(plan.keys) | set(plan.added)
    key: str = edit.role
    n = 2
    while key in taken:
        key, n = f"{edit.role}-{n}", n + 1
    if edit.sections:
        _activate(plan, [edit.role], edit.sections)
    elif edit.role not in plan.recipe.arrangement.all_roles() and edit.role in CORE:  # core roles play where named
        _activate(plan, [edit.role], ())
    plan.added[key] = edit
    windows = _windows(plan, edit.sections, edit.bars)
    if windows is not None:
        bpb = _bpb(plan)
        bars = [(round(a / bpb) + 1, round(b / bpb)) for a, b in windows]
        plan.recipe = plan.recipe.model_copy(update={"spans": {**plan.recipe.spans, key: bars}})
    if edit.program is not None:  # the instrument named ("a string pad": strings, not the genre's pad)
        plan.programs[key] = (edit.program, edit.name)
    plan.change(key)
    plan.scope(windows)


def _regenerate(plan: Plan, edit: RegenerateEdit) -> None:
    windows = _windows(plan, edit.sections, edit.bars)
    if edit.target == "progression":
        plan.recipe = plan.recipe.bumped(["harmony"])
        plan.rerun("harmony")
        plan.change("progression")
    elif edit.target == "arrangement":
        plan.recipe = plan.recipe.bumped(["arrangement"])
        plan.rerun("arrangement")
        plan.change("form")
    else:
        keys = _keys_for(plan, edit.target, "regenerated")
        plan.recipe = plan.recipe.bumped([part_node(k) for k in keys])
        plan.change(*keys)
    plan.scope(windows)


def _nothing(plan: Plan, edit: Any) -> None:
    return None


PLANNERS: dict[type, Callable[[Plan, Any], None]] = {
    StyleEdit: _style, SoloEdit: _solo, EnergyEdit: _energy, KeyEdit: _key, TransposeEdit: _transpose,
    ModeEdit: _mode, TempoEdit: _tempo, MetreEdit: _metre, ProgressionEdit: _progression, GenreEdit: _genre,
    InstrumentEdit: _instrument, MixEdit: _mix, RemovePartEdit: _remove, PresenceEdit: _presence,
    AddPartEdit: _add, RegenerateEdit: _regenerate, FreezeEdit: _nothing, PraiseEdit: _nothing,
}


def _in_this_form(plan: Plan, sections: Sequence[str]) -> tuple[str, ...]:
    """The sections a request names, as this song calls them: a name or kind it has stays; a
    kind it lacks becomes the kinds that play that role in its form (`craft.form`: the chorus of
    an EDM song is its drop), with a note saying so; a word nothing corresponds to stays, for
    `_windows` to refuse with the song's sections."""
    from bandstand.craft.form import corresponding

    arrangement = plan.recipe.arrangement
    have = {s.kind for s in arrangement.sections} | {s.name.lower() for s in arrangement.sections}
    kinds = [s.kind for s in arrangement.sections]
    out: list[str] = []
    for wanted in sections:
        mapped = () if wanted.lower() in have else corresponding(wanted, kinds)
        if mapped:
            names = " and ".join(dict.fromkeys(s.name for s in arrangement.sections if s.kind in mapped))
            note = f"this song has no {wanted}: {names} play{'s' if ' and ' not in names else ''} its part"
            if note not in plan.notes:
                plan.notes.append(note)
        out += mapped or [wanted]
    return tuple(dict.fromkeys(out))


def _scoped_to_form(plan: Plan, edit: Edit) -> Edit:
    """`edit` with the sections it names as this song calls them (`_in_this_form`)."""
    if isinstance(edit, StyleEdit) and edit.override.sections:
        override = edit.override.model_copy(update={"sections": _in_this_form(plan, edit.override.sections)})
        return edit.model_copy(update={"override": override})
    sections = getattr(edit, "sections", ())
    return edit.model_copy(update={"sections": _in_this_form(plan, sections)}) if sections else edit


def plan_edits(recipe: Recipe, keys: Sequence[str], edits: Sequence[Edit], metres: MetreMap | None = None) -> Plan:
    """The plan for `edits` on a song made by `recipe` with parts `keys` (`metres`: the song's
    metre map, when it has more than one metre)."""
    plan = Plan(recipe=recipe, keys=list(keys), frozen=set(recipe.frozen) & set(keys),
                metres=metres if metres is not None and not metres.uniform else None)
    for edit in map(partial(_scoped_to_form, plan), edits):
        planner = PLANNERS.get(type(edit))
        if planner is None:
            raise InvalidInput(f"'{edit.kind}' is not something an edit can do here")
        planner(plan, edit)
    return plan
