"""How named instruments play: the chord parts a ukulele, a banjo, an accordion, a
tango band, a harpsichord, a mandolin and a shoegaze guitar wall play (each its own
rhythm, register and articulation, not a program change over the genre's comping),
the hand-percussion lines of a güiro and a shaker, and a music box's touch on a lead.

The comping styles here extend `comping.COMPS` (same hit format, same bar loop);
`touches` are what an instrument adds on top of a part the genre wrote (`Idiom.touches`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from bandstand.craft.comping import Comp, Hit, revoice
from bandstand.craft.kit import CABASA, LONG_GUIRO, MARACAS, SHORT_GUIRO, STEP_VELOCITY
from bandstand.craft.knobs import Raw, bar_rng, feel_of, reshape
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Situation
from bandstand.craft.style import Style

__all__ = ["HAND_LINES", "INSTRUMENT_COMPS", "TOUCHES", "music_box", "play_hand_line", "play_instrument_chords"]


def _voiced(bar: Bar, low: int, high: int, count: int) -> tuple[int, ...]:
    """The bar's chord as `count` different notes in low..high (an instrument's own range): each
    chord tone once, the root first, then the lowest of the tones left, doubled an octave up
    where the range has room (a tone repeated only when the range holds fewer notes)."""
    root = bar.chord.root % 12
    pcs = list(dict.fromkeys(bar.chord.pcs)) or [root]
    if root in pcs:  # the root first, the others in the chord's own order (third, fifth, seventh…)
        pcs.remove(root)
        pcs.insert(0, root)
    heard = [p for p in range(low, high + 1) if p % 12 in pcs]
    chosen = [next(p for p in heard if p % 12 == pc) for pc in pcs if any(p % 12 == pc for p in heard)][:count]
    chosen += [p for p in heard if p not in chosen][:count - len(chosen)]
    while len(chosen) < count:
        chosen.append(chosen[-1] if chosen else low)
    return tuple(sorted(chosen))


# A ukulele's strum patterns by energy (step, length, down/up/chuck): the calm downstrokes,
# the "island strum" (down, down-up, up-down-up), the island strum with a muted chuck on 2 and 4.
UKE_STRUMS = (
    (0.45, ((0, 4, "d"), (4, 4, "d"), (8, 4, "d"), (12, 4, "d"))),
    (0.7, ((0, 4, "d"), (4, 2, "d"), (6, 4, "u"), (10, 2, "u"), (12, 2, "d"), (14, 2, "u"))),
    (9.9, ((0, 2, "d"), (2, 2, "u"), (4, 1, "c"), (6, 2, "u"), (8, 2, "d"), (10, 2, "u"), (12, 1, "c"), (14, 2, "u"))),
)


def _uke(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Ukulele: four nylon strings tuned G4 C4 E4 A4 (re-entrant), so every chord sits
    between C4 and E5 and a downstroke starts on the high G string."""
    shape = _voiced(bar, 60, 76, 4)
    strings = (shape[2], shape[0], shape[1], shape[3])  # the order a downstroke crosses them
    pattern = next(p for top, p in UKE_STRUMS if bar.energy < top)
    hits: list[Hit] = []
    for s, ln, how in pattern:
        if s >= sit.steps:
            continue
        if how == "c":  # the chuck: every string muted under the palm, a short percussive chop
            hits.append((s, 0.5, 64, shape))
            continue
        order = strings if how == "d" else tuple(reversed(strings))
        for i, p in enumerate(order):
            hits.append((s + i * 0.08, ln - i * 0.08, 88 if how == "d" else 72, (p,)))
    return hits


# Three-finger banjo rolls over eight notes: 0 thumb (the chord's root or fifth), 1 index,
# 2 middle finger, 3 the fifth string's drone.
ROLLS = ((0, 1, 2, 0, 1, 2, 0, 2), (2, 1, 0, 2, 1, 0, 2, 1), (0, 1, 2, 0, 2, 1, 0, 3))


def _banjo(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Banjo (Scruggs style): forward, backward and forward-reverse rolls, one note at a
    time, in sixteenths when the tune drives (eighths in a verse, quarters when it is calm),
    with the high fifth string droning on the chord's top."""
    thumb, index, middle = _voiced(bar, 55, 74, 3)
    drone = _voiced(bar, 67, 79, 1)[0]
    fingers = (thumb, index, middle, drone)
    roll = ROLLS[(bar.bar_in_section + rng.randrange(2)) % len(ROLLS)]
    step = 1 if bar.energy >= 0.7 else 2 if bar.energy >= 0.35 else 4
    return [(s, step * 1.6, 90 if i % 8 == 0 else 82 if i % 2 == 0 else 74, (fingers[roll[i % 8]],))
            for i, s in enumerate(range(0, sit.steps, step))]


def _bellows(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Accordion right hand: chords held on the bellows (one long push when calm, re-pushed
    on the half bar as it warms), and the bellows shake — the chord on every sixteenth,
    push and pull alternating the lower and upper pair of reeds — when the song is up."""
    chord = _voiced(bar, 60, 81, 4)
    half = max(1, sit.steps // 2)
    if bar.energy < 0.45:
        return [(0, sit.steps - 0.5, 76, chord)]
    if bar.energy < 0.75:
        return [(0, half - 0.5, 84, chord), (half, half - 0.5, 78, chord)]
    lower, upper = chord[:2], chord[2:]
    return [(s, 0.9, 92 if s % 4 == 0 else 76, lower if s % 2 == 0 else upper) for s in range(sit.steps)]


def _tango(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Tango orchestra: the marcato — short, heavy chords on every beat (in two when it is
    quiet), the one and the three leaned on; when the dance is up the bass doubles the
    chords an octave down and alternate bars add the síncopa's pushes (3 + 3 + 2), dragged
    into the next downbeat by an arrastre from below."""
    chord = _voiced(bar, 52, 72, 4)
    if bar.energy < 0.35:
        return [(s, 2.5, 96, chord) for s in range(0, sit.steps, 8)]
    if bar.energy < 0.7:
        return [(s, 1.5, 100 if s % 8 == 0 else 88, chord) for s in range(0, sit.steps, 4)]
    low = (chord[0] - 12, *chord)
    hits: list[Hit] = [(s, 1.5, 106 if s % 8 == 0 else 92, low) for s in range(0, sit.steps, 4)]
    if bar.bar_in_section % 2 == 1:
        hits += [(s, 1.2, 98, chord) for s in (6, 14) if s < sit.steps]
        hits.append((sit.steps - 0.5, 0.45, 70, (low[0] - 1,)))  # the arrastre's drag into the next one
    return hits


def _harpsichord(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Harpsichord: the chord broken into a figure (bass, then the upper notes rising, the
    figure played twice a half bar), every note plucked and released — no sustain, no
    dynamics to speak of: quarters when calm, eighths, sixteenths when the music runs."""
    bass = _voiced(bar, 43, 55, 1)[0]
    upper = _voiced(bar, 60, 79, 3)
    figure = (bass, upper[0], upper[1], upper[2], upper[1], upper[2], upper[0], upper[2])
    step = 1 if bar.energy >= 0.7 else 2 if bar.energy >= 0.35 else 4
    return [(s, min(2.0, step * 0.55), 82 if s % 8 == 0 else 76, (figure[(s // step) % 8],))
            for s in range(0, sit.steps, step)]


def _tremolo(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Mandolin: a double stop high on the neck held by tremolo picking — the same two
    notes re-struck every sixteenth, every thirty-second when it is up, down- and
    upstrokes alternating; the bar's second half climbs to the next pair of chord tones."""
    pair = _voiced(bar, 67, 88, 3)
    step = 0.5 if bar.energy >= 0.7 else 1.0 if bar.energy >= 0.35 else 2.0
    hits: list[Hit] = []
    s, n = 0.0, 0
    while s < sit.steps:
        notes = pair[:2] if s < sit.steps / 2 else pair[1:]
        hits.append((s, step * 0.9, 84 if n % 2 == 0 else 70, notes))
        s += step
        n += 1
    return hits


def _wall(sit: Situation, bar: Bar, voicing: tuple[int, ...], rng: random.Random) -> list[Hit]:
    """Shoegaze guitars: a wall of sound — wide open chords doubled at the octave, strummed
    in ringing eighths that overlap (tremolo-bar blur) through the bar, one long
    wash when it is quiet, ringing quarters in a verse."""
    open_chord = _voiced(bar, 52, 76, 5)
    wall = (open_chord[0] - 12, *open_chord)
    if bar.energy < 0.35:
        return [(0, sit.steps - 0.5, 90, wall)]
    step = 2 if bar.energy >= 0.7 else 4
    return [(s, step * 1.5, 104 if s % 8 == 0 else 96, wall) for s in range(0, sit.steps, step)]


INSTRUMENT_COMPS: dict[str, Comp] = {
    "uke_strum": _uke, "banjo_roll": _banjo, "bellows": _bellows, "tango_marcato": _tango,
    "harpsichord": _harpsichord, "tremolo": _tremolo, "wall_of_sound": _wall,
}


def play_instrument_chords(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "chords",
                           comp_style: str | None = None) -> Phrase:
    """The chord part as the named instrument plays it (`INSTRUMENT_COMPS`): the same bar loop
    as `comping.play_chords` — each bar's own random source, the final chord struck and held,
    velocity following the energy, the style's knobs — with no sustain pedal."""
    name = comp_style or sit.idiom.comp_style
    comp = INSTRUMENT_COMPS[name]
    notes: list[Raw] = []
    seed = rng.getrandbits(64)
    for bar in sit.active(role):
        voicing = revoice(bar, bar.chord.pitches)
        hits = comp(sit, bar, voicing, bar_rng(seed, bar.index))
        if bar.final:
            hits = [(0, sit.steps * 0.95, 92, _voiced(bar, 52, 76, 4))]
        played: list[Raw] = []
        for step, length, vel, pitches in hits:
            if step >= sit.steps:
                continue
            v = max(1, min(127, round(vel * (0.78 + 0.3 * bar.energy))))
            dur = max(0.05, min(length, sit.steps - step) * 0.25)
            played.extend((bar.start + step * 0.25, dur, p, v) for p in pitches)
        notes.extend(reshape(played, styles[bar.index], 28, 96, bar.start + sit.beats_per_bar))
    notes.sort()
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar,
                  pulse=sit.pulse, bars=len(sit.bars), style=name,
                  feel=feel_of(sit, styles, role, lay_back="chords"))


# Hand-percussion lines a named instrument plays (note, 16-step pattern, the energy it enters at).
HAND_LINES: dict[str, tuple[tuple[int, str, float], ...]] = {
    # the güiro's long scrape on the beat and two short ones after it; the long one alone when calm
    "guiro": ((LONG_GUIRO, "x...x...x...x...", 0.0), (SHORT_GUIRO, "..xo..xo..xo..xo", 0.4)),
    # a shaken egg (the cabasa's beads) in sixteenths leaning on the off-beat eighths, and
    # maracas pushing those off-beats when it is up
    "shaker": ((CABASA, "gxoxgxoxgxoxgxox", 0.0), (MARACAS, "..x...x...x...x.", 0.7)),
}


def play_hand_line(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "percussion") -> Phrase:
    """The percussion part as the hand instruments the prompt names play it (`HAND_LINES`,
    in the order named), each line entering as the energy reaches it."""
    lines = [line for touch in sit.idiom.touches for line in HAND_LINES.get(touch, ())]
    raw: list[Raw] = []
    seed = rng.getrandbits(64)
    for bar in sit.active(role):
        r = bar_rng(seed, bar.index)
        for note, pattern, enters in lines:
            if bar.energy < enters:
                continue
            for step in range(sit.steps):
                ch = pattern[step % len(pattern)]
                if ch != "." and r.random() < 0.95:
                    vel = round(STEP_VELOCITY[ch] * (0.6 + 0.35 * bar.energy))
                    length = 0.45 if note == LONG_GUIRO else 0.15
                    raw.append((bar.start + step * 0.25, length, note, max(1, min(127, vel))))
    raw.sort()
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in raw), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), is_drum=True, style="+".join(sit.idiom.touches),
                  feel=feel_of(sit, styles, role))


def music_box(phrase: Phrase) -> Phrase:
    """A lead on a music box: the comb's register (C5 up to C7, the tune moved by whole
    octaves) and its touch — every pin plucked and left to ring short, never held past a
    dotted eighth, as soft as a cylinder plays."""
    if not phrase.events:
        return phrase
    lowest = min(e.pitch for e in phrase.events)
    shift = 12 * max(0, -((lowest - 72) // 12))
    events = tuple(NoteEvent(e.start, min(e.duration, 0.75), min(108, e.pitch + shift), min(e.velocity, 88))
                   for e in phrase.events)
    return replace(phrase, events=events, style=f"{phrase.style}+music_box")


TOUCHES = frozenset({"music_box", *HAND_LINES})
"""What a named instrument adds on top of a part the genre wrote (`Idiom.touches`)."""
