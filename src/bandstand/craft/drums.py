"""The drummer: plays the genre family's pattern layers bar by bar, adds the
family's habits (trap hi-hat rolls, jazz comping snare and feathered kick,
crashes into loud sections), fills into section changes and builds, and
thins or thickens with the energy of each bar. GM drum map, channel 10.

Knobs: density moves the energy the layers switch on at (busier = more
layers, more ghost notes); syncopation and complexity add pushed kicks and
ghost snares; brightness lifts or tames the cymbals; swing and time feel
are the writer's (the phrase stays on the grid)."""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from bandstand.craft.density import doubled, thinned, timekeeping_every
from bandstand.craft.genre_kits import kit_for
from bandstand.craft.kit import (
    CLAP,
    CLOSED_HAT,
    CRASH,
    FILLS,
    HAND_ACCENT,
    HAND_TIME,
    HIHATS,
    KICK,
    LOW_TOM,
    OPEN_HAT,
    PEDAL_HAT,
    RIDE,
    SHAKER,
    SNARE,
    STEP_VELOCITY,
    DrumFamily,
    Layer,
    fill_length,
    groove_choice,
    kick_steps,
)
from bandstand.craft.knobs import bar_rng, base_style, feel_of
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation
from bandstand.craft.style import Style

Raw = tuple[float, float, int, int]

HIT = 0.2  # drum note length in beats (drums ignore note-off, readers want one)
HATS = (CLOSED_HAT, OPEN_HAT)
SPARSE_BELOW = 0.3
SPARSE_VOICES = frozenset({KICK, CLOSED_HAT, PEDAL_HAT, RIDE, SHAKER})
CYMBALS = frozenset({CLOSED_HAT, OPEN_HAT, PEDAL_HAT, RIDE, CRASH})
STICK_CYMBALS = frozenset({CLOSED_HAT, OPEN_HAT, RIDE})  # the time a drummer's hand keeps
# Voices that keep time (one at a time below the lift; the hi-hat foot on two and four is a backbeat, not one)
TIMEKEEPERS = frozenset({CLOSED_HAT, OPEN_HAT, RIDE}) | HAND_TIME
# Hand percussion keeping time over the cymbals that a kit adds at the lift (from HAND_ENTERS): it plays
# quarters at most until the song's last peak, where it plays as written
HAND_ENTERS = 0.7
DENSITY_REACH = 0.8  # energy moved by the density knob from its middle to an end, times two
ROLLS = 0.7  # the chance a trap song rolls its hats (a section's figure), before the knobs and the lift
ROLLS_LIFT = 0.4  # a louder section rolls its hats more readily: one that rolls, every louder one does


def _vel(base: int, energy: float) -> int:
    return max(1, min(127, round(base * (0.72 + 0.38 * energy))))


@lru_cache(maxsize=4096)
def _hits(layer: Layer, bar_in_phrase: int, until: int) -> tuple[tuple[int, int], ...]:
    """(step, base velocity) of a layer's hits in the first `until` steps of a bar."""
    pattern = layer.pattern_for(bar_in_phrase)
    return tuple((step, STEP_VELOCITY[ch]) for step in range(until)
                 if (ch := pattern[step % len(pattern)]) != ".")


def _layers(fam: DrumFamily, bar: Bar, steps: int, until: int, out: list[Raw], groove: int, touch: int,
            every: int = 1) -> None:
    """The family's layers in this bar; the kick as the band's groove shapes it (the bass
    reads the same `kick_steps`), the hats and ghost notes as the drummer's own touch
    shapes them (in the chorus some drummers move from the hats to the ride). Below the
    lift (`every` > 1) one time-keeping voice plays, thinned to eighths or quarters; from the
    lift the cymbals play as written, and the hand percussion a kit adds over them there (a
    tambourine or shaker doubling the hats) plays on the beats (quarters at most) until the
    song's last, loudest peak (`doubled`)."""
    e = bar.energy
    scale = 0.72 + 0.38 * e
    choice = groove_choice(fam, touch)
    ride = touch % 3 == 0 and bar.section_energy >= 0.75 and fam.crash
    keeping = False
    cymbals = any(layer.note in TIMEKEEPERS - HAND_TIME and layer.min_energy <= e < layer.max_energy
                  for layer in fam.layers)
    for layer in fam.layers:
        if layer.note == KICK or not layer.min_energy <= e < layer.max_energy:
            continue
        if e < SPARSE_BELOW and layer.note not in SPARSE_VOICES:  # intros and breaks: time-keepers only
            continue
        hits = _hits(layer, bar.bar_in_phrase, until)
        if layer.note == CLOSED_HAT and choice.hat_shape == "sixteenths" and e >= 0.7 and len(hits) * 2 >= until:
            hits = (*hits, *((k, STEP_VELOCITY["g"]) for k in range(1, until, 2) if all(k != h for h, _ in hits)))
        if layer.note in TIMEKEEPERS:
            if every > 1 and keeping:
                continue
            if every == 1 and cymbals and layer.note in HAND_TIME and layer.min_energy >= HAND_ENTERS \
                    and not doubled(bar.section_energy):  # a tambourine over the hats: on the beats until the last peak
                kept = set(thinned([h for h, _ in hits], 4))
                hits = tuple(h for h in hits if h[0] in kept)
            keeping = True
            if every > 1:
                kept = set(thinned([h for h, _ in hits], every))
                hits = tuple(h for h in hits if h[0] in kept)
        # a stick on the cymbals plays the strokes the pattern writes alike by where they fall in the beat
        hand = fam.hands and layer.note in STICK_CYMBALS and len(set(layer.pattern_for(bar.bar_in_phrase)) - {"."}) == 1
        flat = STEP_VELOCITY[max(layer.pattern_for(bar.bar_in_phrase))] if hand else 0
        for step, base in hits:
            if hand and base == flat:
                base = round(base * HAND_ACCENT[step % 4])
            note = layer.note
            if note in HATS and ((choice.hat_shape == "skip" and step % 8 == 6)
                                 or (choice.hat_shape == "quarters" and step % 4 and e < 0.7)):
                continue
            if note == CLOSED_HAT and choice.hat_shape == "accents" and step == steps - 2 and e >= 0.5:
                note = OPEN_HAT
            elif note == CLOSED_HAT and ride:
                note = RIDE
            out.append((bar.start + step * 0.25, HIT, note, max(1, min(127, round(base * scale)))))
    kicks = kick_steps(fam, e, bar.bar_in_phrase, steps, steps - until, groove)
    if bar.pre_drop:
        kicks = [k for k in kicks if k[0] < steps // 2]
    out.extend((bar.start + step * 0.25, HIT, KICK, max(1, min(127, round(base * scale)))) for step, base in kicks)
    if e >= 0.45 and not fam.comping_snare and any(layer.note == SNARE for layer in fam.layers) \
            and not _own_ghosts(fam):
        # ghost notes are the snare's: a kit without one (a cross-stick bossa, a Latin percussion section) has
        # none, and a kit that writes its own (the church drummer's) plays those, not the groove's as well
        out.extend((bar.start + g * 0.25, HIT, SNARE, 40) for g in choice.ghosts if g < until and g % 4)


def _own_ghosts(fam: DrumFamily) -> bool:
    """Whether `fam` writes ghost notes on its snare (a "g" in a snare layer)."""
    return any(layer.note == SNARE and any("g" in p for p in layer.patterns) for layer in fam.layers)


def _fill(fam: DrumFamily, bar: Bar, steps: int, length: int, out: list[Raw], rng: random.Random) -> None:
    table = FILLS[fam.fill]
    hits = rng.choice(table.get(length) or table[max(table)])
    first = steps - length
    for offset, note, ch in hits:
        out.append((bar.start + (first + offset) * 0.25, HIT, note, _vel(STEP_VELOCITY[ch], bar.energy)))


def _build_roll(bar: Bar, steps: int, out: list[Raw]) -> None:
    """A snare roll that doubles its rate every bar over the last four bars of a build."""
    left = bar.bars_in_section - bar.bar_in_section  # 4, 3, 2, 1
    per_beat = {4: 1, 3: 2, 2: 4, 1: 4}.get(left, 1)
    count = int(steps / 4 * per_beat)
    span = steps * 0.25
    for i in range(count):
        t = i * span / count
        ramp = (4 - left + t / span) / 4
        out.append((bar.start + t, HIT, SNARE, max(1, min(127, round(45 + 75 * ramp)))))
    if left == 1:  # last beat in 32nds
        for i in range(8):
            out.append((bar.start + span - 1.0 + i * 0.125, HIT * 0.5, SNARE, min(127, 100 + i * 3)))


@dataclass(frozen=True, slots=True)
class _Figure:
    """What a drummer keeps through a section, as a producer programs a loop: the hi-hat roll
    (its beat and division) in every bar and the turn (another roll) at the phrase's end. Drawn
    once per section kind (a second chorus plays the first one's figure), so the groove stays put
    from bar to bar and varies where a phrase turns (the kick's own two-bar figure and answer are
    the band's groove, `kick_steps`)."""

    rolls: float  # the song's draw the section's roll chance is compared with (the same in every section)
    roll: tuple[int, int]  # (beat, sixteenths per beat in the roll: 6 triplets, 8 32nds, 12)
    turn: tuple[int, int]


@lru_cache(maxsize=64)
def _figure(seed: int, kind: str) -> _Figure:
    """The figure of the song's (`seed`) sections of `kind`."""
    r = random.Random(seed * 1_000_003 + zlib.crc32(f"figure:{kind}".encode()))
    roll = (r.choice((1, 3, 3, 2)), r.choice((6, 8, 8, 12)))
    turn = (r.choice((2, 3, 3)), r.choice((8, 12, 12)))
    if turn == roll:
        turn = (turn[0], 6 if roll[1] != 6 else 8)
    rolls = random.Random(seed * 1_000_003 + zlib.crc32(b"rolls")).random()
    return _Figure(rolls=rolls, roll=roll, turn=turn)


def _roll_of(fig: _Figure, bar: Bar, fill: int) -> tuple[int, int]:
    """The roll this bar plays: the turn at a phrase's end that has no fill (a fill is the
    variation there, one at a time), else the figure's roll."""
    return fig.turn if bar.bar_in_phrase == 3 and not fill else fig.roll


def _hat_roll(bar: Bar, beat: int, div: int, notes: list[Raw]) -> list[Raw]:
    """Trap hi-hat roll: one beat of the bar re-cut into 16th triplets or 32nds, rising."""
    t0 = bar.start + beat
    kept = [n for n in notes if not (n[2] in HATS and t0 - 1e-6 <= n[0] < t0 + 1.0 - 1e-6)]
    for i in range(div):
        kept.append((t0 + i / div, 0.5 / div, CLOSED_HAT, _vel(round(60 + 55 * i / div), bar.energy)))
    return kept


def _jazz_comping(bar: Bar, rng: random.Random, steps: int, out: list[Raw]) -> None:
    """Comping snare on swung eighths (more of it as the energy rises), ride skips and
    an occasional kick 'bomb' when the band is up."""
    offbeats = [s for s in range(2, steps, 4)] + [s for s in range(4, steps, 8)]
    for _ in range(max(0, round(bar.energy * 5 + rng.uniform(-1.5, 1.0)))):
        step = rng.choice(offbeats)
        out.append((bar.start + step * 0.25, HIT, SNARE, rng.randint(32, 62)))
    if bar.energy >= 0.7:
        for step in (2, 10):
            if step < steps and rng.random() < (bar.energy - 0.55) * 2:
                out.append((bar.start + step * 0.25, HIT, RIDE, rng.randint(58, 76)))
    if bar.energy > 0.6 and rng.random() < 0.25:
        out.append((bar.start + rng.choice(offbeats) * 0.25, HIT, KICK, rng.randint(70, 90)))


def _ghosts(bar: Bar, rng: random.Random, dial: float, steps: int, out: list[Raw]) -> None:
    """Rhythmic dial above 0.5: seeded ghost snares on sixteenth off-beats."""
    chance = (dial - 0.5) * 0.35
    for step in range(1, steps, 2):
        if rng.random() < chance:
            out.append((bar.start + step * 0.25, HIT, SNARE, rng.randint(24, 40)))


def _energy(bar: Bar, style: Style) -> Bar:
    """The bar as the knobs hear it: density moves the energy the layers switch on at."""
    if style.density == 0.5:
        return bar
    return replace(bar, energy=max(0.0, min(1.0, bar.energy + (style.density - 0.5) * DENSITY_REACH)))


def play_drums(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "drums") -> Phrase:
    fam = kit_for(sit.idiom.drum_family, sit.idiom.kit, sit.steps)
    steps = sit.steps
    notes: list[Raw] = []
    prev_energy = 0.0
    seed = rng.getrandbits(64)
    touch = (seed % 65521) + 1  # the drummer's own hats and ghosts (the kick is the band's groove)
    base = base_style(sit, role)
    for heard in sit.active(role):
        style = styles[heard.index]
        r = bar_rng(seed, heard.index)
        bar = _energy(heard, style)
        out: list[Raw] = []
        fill = fill_length(bar.energy) if bar.section_end else 0
        phrase_fill = (not fill and bar.bar_in_section % 8 == 7 and bar.bar_in_section < bar.bars_in_section - 1
                       and r.random() < 0.5)
        if phrase_fill:
            fill = 4
        if not sit.looping and bar.index == len(sit.bars) - 2 and not fill:  # a fill into the last chord
            fill = fill_length(bar.energy)
        if bar.final:
            notes.extend(_final_hit(fam, bar))
            continue
        building = bar.kind == "build" and bar.bars_in_section - bar.bar_in_section <= 4
        # the density knob moves the section's lift as it moves the bar's energy
        lifted = bar.section_energy + (style.density - 0.5) * DENSITY_REACH
        every = 1 if sit.looping else timekeeping_every(lifted, bar.energy)
        if fam.triplets and every > 2:  # a 12/8 drummer thins the triplets to the dotted quarters, not to quarters
            every = 6
        _layers(fam, bar, steps, steps - fill, out, sit.groove, touch, every)
        if building:
            out = [n for n in out if n[2] != SNARE and n[2] != CLAP]
            _build_roll(bar, steps, out)
        elif fill:
            _fill(fam, bar, steps, fill, out, r)
        fig = _figure(seed, bar.kind)
        roll = _roll_of(fig, bar, fill)
        if fam.hat_rolls and bar.energy >= 0.3 \
                and fig.rolls < ROLLS + 0.3 * style.syncopation + ROLLS_LIFT * (bar.section_energy - 0.5):
            out = _hat_roll(bar, *roll, out)
        if fam.comping_snare:
            _jazz_comping(bar, r, steps, out)
        elif style.complexity > 0.5 and bar.energy >= 0.4:
            _ghosts(bar, r, style.complexity, steps, out)
        push = style.syncopation - base.syncopation
        if push > 0.15:  # pushed kicks: anticipate the next beat
            out.extend((bar.start + k * 0.25, HIT, KICK, _vel(84, bar.energy)) for k in (7, 15)[: 1 + (push > 0.3)]
                       if k < steps)
        lift = bar.energy - prev_energy
        top = bar.bar_in_section == 0 and (bar.index > 0 or (sit.looping and bar.energy >= 0.7 and len(sit.bars) > 1))
        if fam.hits and bar.index > 0 and bar.bar_in_section == 0:
            out += [(bar.start, HIT, KICK, _vel(120, bar.energy)), (bar.start, HIT, LOW_TOM, _vel(118, bar.energy))]
        if fam.crash and top and (bar.energy >= 0.5 or lift >= 0.25):
            out.append((bar.start, 1.0, CRASH, _vel(110, bar.energy)))
        elif not fam.crash and top and bar.energy >= 0.5:
            out.append((bar.start, 1.0, RIDE, _vel(100, bar.energy)))
        if style.brightness != 0.5:
            out = _brighten(out, style.brightness)
        notes.extend(out)
        prev_energy = bar.energy
    if "only_kick" in sit.constraints:
        notes = [n for n in notes if n[2] == KICK]
    elif "no_hihats" in sit.constraints:
        notes = [n for n in notes if n[2] not in HIHATS]
    notes.sort()
    bars = len(sit.bars)
    feel = feel_of(sit, styles, role, by_key=True)
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=bars, is_drum=True, style=sit.idiom.drum_family, feel=feel)


def _final_hit(fam: DrumFamily, bar: Bar) -> list[Raw]:
    """The last chord: kick and a crash (a ride bell where the family has no crashes), left to ring."""
    cymbal = CRASH if fam.crash or fam.hits else RIDE
    return [(bar.start, 2.0, cymbal, _vel(112, max(0.6, bar.energy))), (bar.start, HIT, KICK, _vel(112, 0.8))]


def _brighten(out: list[Raw], brightness: float) -> list[Raw]:
    """Cymbals louder when bright, tamed when dark."""
    scale = 0.6 + 0.8 * brightness
    return [(t, d, p, max(1, min(127, round(v * scale)))) if p in CYMBALS else (t, d, p, v) for t, d, p, v in out]
