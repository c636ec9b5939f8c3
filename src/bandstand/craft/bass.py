"""The bassist: locked to the kick (it reads the same kick grid the drummer
plays) and to the harmony (chord roots on the downbeats, fifths and octaves
between, approach notes into chord changes). One function per bass style:
808 sub with pitch-bend glides, root–fifth, walking lines, synth pulses,
syncopated funk, reggae, reese, tumbao/bossa, picked rock, sustained."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from bandstand.craft.bass_dance import marcato, two_beat
from bandstand.craft.density import LIFT_ENERGY, STEADY_BASSES, steady
from bandstand.craft.genre_kits import kit_for
from bandstand.craft.kit import fill_length, kick_steps
from bandstand.craft.knobs import Raw, bar_rng, base_style, feel_of, reshape
from bandstand.craft.phrase import BEND_RANGE, NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation, pitch_near
from bandstand.craft.style import Style
from bandstand.score import ControlChange

LOW, HIGH = 28, 52  # E1..E3

# A bass event inside a bar: (step, length in steps, pitch, velocity)
Event = tuple[int, float, int, int]
Figure = Callable[[Situation, Bar, list[tuple[int, int]], random.Random, int, Style], list[Event]]


def _kicks(sit: Situation, bar: Bar) -> list[tuple[int, int]]:
    if bar.kick is not None:  # the drummer was heard: lock to what it plays
        return list(bar.kick) or [(0, 100)]
    fam = kit_for(sit.idiom.drum_family, sit.idiom.kit, sit.steps)
    fill = fill_length(bar.energy) if bar.section_end else 0
    hits = kick_steps(fam, bar.energy, bar.bar_in_phrase, sit.steps, fill, sit.groove)
    if bar.pre_drop:
        hits = [h for h in hits if h[0] < sit.steps // 2]
    return hits or [(0, 100)]


def _lengths(starts: list[int], steps: int, cap: float) -> list[float]:
    out = []
    for i, s in enumerate(starts):
        nxt = starts[i + 1] if i + 1 < len(starts) else steps
        out.append(max(1.0, min(cap, nxt - s)))
    return out


def _approach(sit: Situation, bar: Bar, rng: random.Random, center: int, style: Style) -> int:
    """A note leading into the next chord's root: the scale step below or above it, or —
    the more complex the style — the chromatic half step (never when only scale tones
    may sound)."""
    target = pitch_near(bar.next_chord.bass, center, LOW, HIGH)
    diatonic = [p for p in (target - 2, target - 1, target + 1, target + 2) if p % 12 in sit.scale]
    if diatonic and (sit.diatonic_only or rng.random() >= style.complexity * 0.6):
        return rng.choice(diatonic)
    return rng.choice((target - 1, target + 1))


HOLD_808 = 4  # sixteenths: a kick this soon after the 808 struck plays over the held note


def _sub_808(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    """Long sub notes struck with the kick and held to the next strike (a kick right after
    one is heard over the held note); some strikes jump an octave to be slid into."""
    root = pitch_near(bar.chord.bass, center, 24, 43)
    struck: list[tuple[int, int]] = []
    for s, v in kicks:
        if not struck or s - struck[-1][0] >= HOLD_808:
            struck.append((s, v))
    lengths = _lengths([s for s, _ in struck], sit.steps, 16.0)
    events: list[Event] = []
    for i, (s, v) in enumerate(struck):
        pitch = root
        if i > 0 and rng.random() < 0.3 + 0.2 * style.syncopation:
            pitch = root + 12 if root + 12 <= 48 else root - 12
        events.append((s, lengths[i], pitch, min(127, v)))
    return events


def _root_fifth(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    fifth = pitch_near(bar.chord.fifth, root + 5, LOW, HIGH)
    if sit.idiom.drum_family == "bossa":
        return [(0, 5.5, root, 96), (6, 1.8, root, 80), (8, 5.5, fifth, 90), (14, 1.8, fifth, 78)]
    starts = [s for s, _ in kicks]
    lengths = _lengths(starts, sit.steps, 6.0)
    events: list[Event] = []
    for i, (s, v) in enumerate(kicks):
        pitch = root if i == 0 or rng.random() < 0.65 else rng.choice((fifth, root + 12 if root + 12 <= HIGH else root))
        events.append((s, lengths[i] * 0.9, pitch, min(127, v - 6)))
    if bar.chord_changes and bar.energy >= 0.4 and starts[-1] < sit.steps - 2:
        events.append((sit.steps - 2, 1.8, _approach(sit, bar, rng, root, style), 82))
    return events


def _walking(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    beats = max(1, sit.steps // 4)
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    target = pitch_near(bar.next_chord.bass, root, LOW, HIGH)
    pool = sorted({p for p in range(LOW, HIGH + 1) if p % 12 in sit.scale or p % 12 in bar.chord.pcs})
    line = [root]
    for beat in range(1, beats - 1):
        cur = line[-1]
        remaining = beats - beat
        direction = 1 if target > cur else -1 if target < cur else rng.choice((1, -1))
        want_chord = beat % 2 == 0
        cands = [p for p in pool if 1 <= (p - cur) * direction <= max(2, abs(target - cur) // remaining + 3)
                 and (not want_chord or p % 12 in bar.chord.pcs)]
        if not cands:
            cands = [p for p in pool if 1 <= abs(p - cur) <= 4]
        line.append(rng.choice(cands) if cands else cur)
    if beats > 1:
        line.append(target + (1 if line[-1] > target else -1) if rng.random() < 0.7
                    else pitch_near(bar.next_chord.fifth, target, LOW, HIGH))
    events = [(b * 4, 3.6, p, 92 if b % 2 == 0 else 86) for b, p in enumerate(line)]
    if rng.random() < bar.energy * 0.5 - 0.1 and beats >= 3:  # a skip note into beat 3, likelier when up
        events.append((7, 0.9, line[1], 62))
    return events


def _synth_pulse(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    octave = root + 12 if root + 12 <= HIGH + 7 else root
    events: list[Event] = []
    if sit.idiom.drum_family == "four_on_floor":  # house: root with the kick, pumping off-beats
        for s in range(0, sit.steps, 4):
            if s % 8 == 0 or bar.energy >= 0.75:
                events.append((s, 1.6, root, 100))
            events.append((s + 2, 1.6, octave if bar.energy >= 0.7 and s % 8 == 4 else root, 92))
        return events
    if sit.idiom.drum_family in ("two_step", "garage_halftime", "trap"):
        # garage: the bass rides the skipping kick, octave pickups between (in half time only when up); grime,
        # garage's child on a half-time kit, rides its kick the same way with its sublow held to the next hit
        pickups = 0.5 if sit.idiom.drum_family == "two_step" else 0.85
        starts = sorted({k for k, _ in kicks} | ({6, 14} if bar.energy >= pickups else set()))
        starts = [k for k in starts if k < sit.steps]
        lengths = _lengths(starts, sit.steps, 6.0)
        return [(k, lengths[i] * 0.85, octave if k in (6, 14) else root, 100 if k in dict(kicks) else 84)
                for i, k in enumerate(starts)]
    step = 2 if bar.energy >= 0.45 else 4
    for s in range(0, sit.steps, step):
        pitch = octave if bar.energy >= 0.7 and s % 8 == 6 else root
        events.append((s, step * 0.85, pitch, 98 if s % 4 == 0 else 82))
    return events


FUNK_FIGURES = ("R..gR.O.5.R..7a.", "R.gR..O..R.5.Oa.", "R..R.gO.R..5g7a.", "R.O..gR.5..RgO..")


def _funk(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH - 5)
    tones = {"R": root, "O": root + 12, "5": pitch_near(bar.chord.fifth, root + 7, LOW, HIGH + 7),
             "7": pitch_near(bar.chord.seventh, root + 10, LOW, HIGH + 7), "g": root}
    figure = FUNK_FIGURES[(bar.bar_in_phrase + rng.randrange(2)) % len(FUNK_FIGURES)]
    kick_set = {s for s, _ in kicks}
    events: list[Event] = []
    starts = sorted({i for i, ch in enumerate(figure[: sit.steps]) if ch != "."} | kick_set)
    if bar.energy < 0.45:
        starts = sorted(kick_set | {0})
    elif bar.section_energy < LIFT_ENERGY:  # the ghosted sixteenths are the chorus's: a verse line leaves space
        starts = [s for s in starts if figure[s % len(figure)] != "g" or s in kick_set]
    lengths = _lengths(starts, sit.steps, 3.0)
    for i, s in enumerate(starts):
        ch = figure[s % len(figure)]
        if ch == "a":
            pitch = _approach(sit, bar, rng, root, style) if bar.chord_changes else tones["5"]
        else:
            pitch = tones.get(ch, root)
        ghost = ch == "g"
        events.append((s, 0.5 if ghost else lengths[i] * 0.7, pitch, 48 if ghost else (104 if s in kick_set else 88)))
    return events


REGGAE_FIGURES = ("R.....R.R..5.3..", "..R..R..R.5..3.R", "R.....5.R...3.5.")


def _reggae(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    tones = {"R": root, "5": pitch_near(bar.chord.fifth, root + 7, LOW, HIGH + 5),
             "3": pitch_near(bar.chord.third, root + 4, LOW, HIGH + 5)}
    figure = REGGAE_FIGURES[rng.randrange(len(REGGAE_FIGURES))]
    starts = sorted({i for i, ch in enumerate(figure[: sit.steps]) if ch != "."} | {s for s, _ in kicks})
    lengths = _lengths(starts, sit.steps, 4.0)
    return [(s, lengths[i] * 0.85, tones.get(figure[s % len(figure)], root), 96) for i, s in enumerate(starts)]


def _reese(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center - 2, 26, 45)
    starts = [s for s, _ in kicks]
    lengths = _lengths(starts, sit.steps, 16.0)
    return [(s, lengths[i] - 0.2, root if i % 2 == 0 or rng.random() < 0.5 else root + 12, 100)
            for i, s in enumerate(starts)]


def _tumbao(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    fifth = pitch_near(bar.chord.fifth, root, LOW, HIGH)
    nxt = pitch_near(bar.next_chord.bass, root, LOW, HIGH)
    events: list[Event] = [(6, 6.0, fifth, 96), (12, 6.0, nxt, 100)]
    if bar.bar_in_section == 0:  # establish the root on the first downbeat of a section
        events.insert(0, (0, 5.5, root, 92))
    return events


def _picked(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    step = 2 if bar.energy >= 0.45 else 4
    events: list[Event] = [(s, step * 0.8, root, 100 if s % 4 == 0 else 86) for s in range(0, sit.steps, step)]
    if bar.chord_changes and step == 2:
        events[-1] = (events[-1][0], 1.6, _approach(sit, bar, rng, root, style), 90)
    kick_set = {s for s, _ in kicks}
    events += [(s, 1.6, root, 96) for s in kick_set if s % step]
    return events


def _sustained(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
        style: Style) -> list[Event]:
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    return [(0, sit.steps - 0.3, root, 88)]


# Four-on-the-floor bass around the kick: (step, octave up?) per figure, chosen by the groove.
OFFBEAT_FIGURES: tuple[tuple[tuple[int, bool], ...], ...] = (
    ((2, False), (6, False), (10, False), (14, False)),
    ((2, False), (6, True), (10, False), (14, True)),
    ((2, False), (3, False), (6, False), (10, False), (11, False), (14, False)),
    ((2, False), (6, False), (7, True), (10, False), (14, False), (15, True)),
)


def _offbeat(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
             style: Style) -> list[Event]:
    """House, techno, disco, trance: the bass on the off-beats, out of the kick's way
    (the figure is the band's groove; calm bars keep the 'and' of every beat only)."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    figure = OFFBEAT_FIGURES[sit.groove % len(OFFBEAT_FIGURES)] if bar.energy >= 0.5 else OFFBEAT_FIGURES[0]
    kick_at = {k for k, _ in kicks}
    events = [(s, 1.5, root + 12 if up and root + 12 <= HIGH + 7 else root, 98 if s % 4 == 2 else 84)
              for s, up in figure if s < sit.steps and s not in kick_at]
    if bar.bar_in_section == 0 and bar.kind in ("drop", "chorus", "hook"):  # the arrival lands on the one
        events.insert(0, (0, 1.5, root, 104))
    return events


def _oom(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
         style: Style) -> list[Event]:
    """Waltz: the 'oom' on beat one (root, then the fifth in the bar that repeats a chord)."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    fifth = pitch_near(bar.chord.fifth, root - 5, LOW, HIGH)
    return [(0, 3.6, fifth if bar.bar_in_section % 2 == 1 and not bar.chord_changes else root, 100)]


def _driving(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
             style: Style) -> list[Event]:
    """Punk and metal: the root on every eighth, picked, with a lead-in to a new chord."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    step = 2 if bar.energy >= 0.3 else 4
    events: list[Event] = [(s, step * 0.8, root, 104 if s % 4 == 0 else 92) for s in range(0, sit.steps, step)]
    if bar.chord_changes and step == 2 and events:
        events[-1] = (events[-1][0], 1.6, _approach(sit, bar, rng, root, style), 96)
    return events


def _ostinato(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
              style: Style) -> list[Event]:
    """Film music: held roots when calm, an eighth-note pedal as it builds, sixteenths at the climax."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    if bar.energy < 0.5:
        return [(0, sit.steps - 0.3, root, 90)]
    step = 1 if bar.energy >= 0.85 else 2
    return [(s, step * 0.85, root + (12 if s % 8 == 6 and step == 2 else 0), 100 if s % 4 == 0 else 86)
            for s in range(0, sit.steps, step)]


def _locked(sit: Situation, bar: Bar, kicks: list[tuple[int, int]], rng: random.Random, center: int,
            style: Style) -> list[Event]:
    """Less is more: the root on the kick the drummer plays (only the first half's when
    calm), held to the next strike; busier, a fifth answers on the off-beats."""
    root = pitch_near(bar.chord.bass, center, LOW, HIGH)
    busy = bar.energy + (style.density - 0.5) * 2
    starts = [k for k, _ in kicks] if busy >= 0.45 else [k for k, _ in kicks if k < sit.steps // 2] or [0]
    lengths = _lengths(starts, sit.steps, 16.0)
    events: list[Event] = [(s, lengths[i] - 0.3, root, 100) for i, s in enumerate(starts)]
    if busy >= 0.8 and len(starts) >= 2:
        fifth = next((pc for pc in (bar.chord.fifth, bar.chord.third) if pc in sit.scale), bar.chord.root)
        up = pitch_near(fifth, root + 7, LOW, HIGH + 7)
        events += [(s, 1.8, up, 84) for s in (sit.steps // 2 - 2, sit.steps - 2) if s not in starts and s > 0]
    return sorted(events)


FIGURES: dict[str, Figure] = {
    "two_beat": two_beat, "marcato": marcato,
    "sub_808": _sub_808, "root_fifth": _root_fifth, "walking": _walking, "synth_pulse": _synth_pulse,
    "syncopated_funk": _funk, "reggae": _reggae, "dnb_reese": _reese, "tumbao": _tumbao,
    "picked_rock": _picked, "sustained": _sustained, "offbeat": _offbeat, "oom": _oom,
    "driving_eighths": _driving, "ostinato": _ostinato, "locked": _locked,
}
CENTER: dict[str, int] = {"sub_808": 33, "dnb_reese": 35, "walking": 38, "sustained": 36, "ostinato": 36}


# The band's groove varies lines that do not follow the kick: (steps added, steps dropped),
# one entry chosen by the groove number (the first leaves the line as written).
SPICE: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = {
    "picked_rock": (((), ()), ((3, 11), ()), ((), (6, 14)), ((7, 15), (6,))),
    "driving_eighths": (((), ()), ((3, 11), ()), ((1, 9), ()), ((), (14,))),
    "synth_pulse": (((), ()), ((3, 11), ()), ((), (4, 12)), ((7, 15), ())),
    "sustained": (((), ()), ((8,), ()), ((6, 12), ()), ((10,), ())),
    "ostinato": (((), ()), ((8,), ()), ((6, 12), ()), ((3, 11), ())),
    "walking": (((), ()), ((7,), ()), ((15,), ()), ((11,), ())),
    "oom": (((), ()), ((8,), ()), ((10,), ()), ((6,), ())),
    "tumbao": (((), ()), ((0,), ()), ((3,), ()), ((14,), ())),
    "reggae": (((), ()), ((), (0,)), ((11,), ()), ((), (6,))),
    "root_fifth": (((), ()), ((14,), ()), ((6,), ()), ((3, 11), ()), ((10,), ())),
    "syncopated_funk": (((), ()), ((15,), (6,)), ((7, 11), ()), ((), (10, 13)), ((1, 9), ())),
}


def _spice(sit: Situation, name: str, events: list[Event], energy: float, touch: int) -> list[Event]:
    """The line as the band's groove and the bassist's own touch shape it: a note added
    here, one left out there."""
    options = SPICE.get(name)
    if not options or sit.groove == 0 or not events or energy < 0.3:
        return events
    added, dropped = options[(sit.groove + touch) % len(options)]
    kept = [e for e in events if e[0] not in dropped or e[0] == 0]
    taken = {e[0] for e in kept}
    extra = []
    for step in added:
        if step < sit.steps and step not in taken:
            before = max((e for e in kept if e[0] < step), key=lambda e: e[0], default=kept[0])
            extra.append((step, 1.6, before[2], max(1, before[3] - 10)))
    return sorted([*kept, *extra])


def _push(sit: Situation, bar: Bar, events: list[Event], push: float) -> list[Event]:
    """Syncopation turned up: the next chord's root anticipated on the last eighth (and,
    further up, an off-beat answer on the 'and' of two)."""
    if push <= 0.15 or not events:
        return events
    taken = {e[0] for e in events}
    root = pitch_near(bar.next_chord.bass, events[0][2], 12, 64)
    extra = [(sit.steps - 2, 1.8, root, 90)] + ([(7, 0.9, events[0][2], 80)] if push > 0.3 else [])
    return sorted([*events, *(e for e in extra if e[0] not in taken and e[0] < sit.steps)])


def play_bass(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "bass") -> Phrase:
    # a sub bass under a bass holds roots; one asked for instead of the bass (an "808") is the bass
    leading = role == "bass" or "bass" not in sit.named_roles
    name = sit.idiom.bass_style if leading else "sustained"
    if name == "sub_808" and "no_808" in sit.constraints:  # same lock to the kick, no 808 slides
        name = "root_fifth"
    fn = FIGURES.get(name, _root_fifth)
    center = CENTER.get(name, 38) - (7 if not leading else 0)
    notes: list[Raw] = []
    seed = rng.getrandbits(64)
    base = base_style(sit, role)
    previous = center
    for bar in sit.active(role):
        center = round((2 * previous + CENTER.get(name, 38) - (7 if not leading else 0)) / 3)  # smooth roots
        style = styles[bar.index]
        stop = sit.steps // 2 if bar.pre_drop else sit.steps
        played: list[Raw] = []
        if bar.final:  # the last chord: its bass note, held
            root = pitch_near(bar.chord.bass, center, LOW, HIGH)
            notes.append((bar.start, sit.beats_per_bar * 0.95, root, max(1, min(127, round(100 * (0.8 + 0.25 * bar.energy))))))
            continue
        figure = _spice(sit, name, fn(sit, bar, _kicks(sit, bar), bar_rng(seed, bar.index), center, style),
                        bar.energy, seed % 7)
        if figure:
            previous = figure[0][2]
        for step, length, pitch, vel in _push(sit, bar, figure, style.syncopation - base.syncopation):
            if step >= stop:
                continue
            length = min(length, stop - step)
            v = max(1, min(127, round(vel * (0.8 + 0.25 * bar.energy))))
            played.append((bar.start + step * 0.25, max(0.05, length * 0.25), max(12, pitch), v))
        if name in STEADY_BASSES:  # the eighths' rate is the section's, not the mood's
            style = replace(style, density=steady(style.density, sit.mood_density))
        notes.extend(reshape(played, style, 12, 64, bar.start + stop * 0.25))
    notes.sort()
    controls: tuple[ControlChange, ...] = ()
    if name == "sub_808":
        # RPN 0 (pitch-bend range); data entry a moment later so a time sort keeps the order
        controls = (ControlChange(0.0, 101, 0), ControlChange(0.0, 100, 0),
                    ControlChange(0.02, 6, BEND_RANGE), ControlChange(0.02, 38, 0))
    glide = 0.0
    if name == "sub_808":
        pushes = [styles[b.index].syncopation for b in sit.active(role)] or [0.5]
        glide = 0.4 + 0.3 * sum(pushes) / len(pushes)
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style=name, controls=controls, feel=feel_of(sit, styles, role, lay_back="bass"),
                  monophonic=True, glide=glide)
