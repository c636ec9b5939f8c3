"""The melodist: builds each section's line from a motif.

A motif is a one-bar rhythm cell (from the genre's lead style) plus a
contour in scale steps. Four-bar phrases develop it — statement,
repetition (re-fitted to the new chord), sequence (moved by scale steps) or
variation (new ending), and a cadence that lands on a chord tone and leaves
room to breathe. Strong beats take chord tones, the notes between walk the
scale. Sections of the same kind share their motif, so a chorus comes back
recognisable. The same code, lower and sparser, answers the lead as the
counter-melody.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from bandstand.craft.density import LIFT_ENERGY, breathes
from bandstand.craft.knobs import Raw, bar_rng, feel_of, reshape
from bandstand.craft.montuno import Turn, coro_rhythm, harmony_below, pregon, turn_of
from bandstand.craft.ornaments import lead_ornament_chance, ornament_line
from bandstand.craft.phrase import NoteEvent, Phrase
from bandstand.craft.situation import Bar, Chord, Situation
from bandstand.craft.style import Style

Cell = tuple[tuple[float, float], ...]  # (onset beat, length beats)

RHYTHMS: dict[str, tuple[Cell, ...]] = {
    "hook": (((0, 0.5), (0.5, 0.5), (1, 1), (2.5, 0.5), (3, 0.75)),
             ((0, 0.75), (0.75, 0.75), (1.5, 0.5), (2, 1.5)),
             ((0.5, 0.5), (1, 0.5), (1.5, 1), (3, 0.5), (3.5, 0.5))),
    "sparse": (((0, 1.5), (2, 1.75)), ((0.5, 1), (2, 1.5)), ((0, 2.5), (3, 0.75))),
    "lyrical": (((0, 1), (1, 0.5), (1.5, 0.5), (2, 1.75)),
                ((0, 1.5), (1.5, 0.5), (2, 1), (3, 0.75)),
                ((0.5, 0.5), (1, 1), (2, 0.5), (2.5, 1.25))),
    "riffy": (((0, 0.25), (0.25, 0.25), (0.5, 0.5), (1.5, 0.25), (1.75, 0.25), (2, 0.5), (3, 0.5)),
              ((0, 0.5), (0.75, 0.25), (1, 0.5), (2, 0.25), (2.25, 0.25), (2.5, 0.5), (3.5, 0.25)),
              ((0, 0.25), (0.5, 0.25), (0.75, 0.5), (2, 0.5), (2.75, 0.25), (3, 0.75))),
    "bebop": (tuple((i * 0.5, 0.5) for i in range(8)),
              tuple((0.5 + i * 0.5, 0.5) for i in range(7)),
              ((0, 0.5), (0.5, 0.5), (1, 0.5), (1.5, 0.5), (2, 1), (3, 0.5), (3.5, 0.5))),
    "ambient": (((0, 3.75),), ((0, 2), (2, 1.75)), ((1, 2.75),)),
}
# Four-bar phrase plans; each step develops the section's motif.
PLANS = (("motif", "repeat", "sequence", "cadence"), ("motif", "variation", "motif", "cadence"),
         ("motif", "sequence", "variation", "cadence"))
REGISTER: dict[str, tuple[int, int]] = {"lead": (62, 86), "counter_melody": (52, 72)}


@dataclass(frozen=True, slots=True)
class Motif:
    rhythm: Cell
    contour: tuple[int, ...]  # scale steps between consecutive notes
    plan: tuple[str, ...]
    answer: Cell  # a second cell used by variations


def _contour(rng: random.Random, n: int, bebop: bool) -> tuple[int, ...]:
    steps: list[int] = []
    for _ in range(max(0, n - 1)):
        if steps and abs(steps[-1]) >= 3:  # a leap is answered by a step back
            steps.append(-1 if steps[-1] > 0 else 1)
        else:
            steps.append(rng.choice((-1, 1, -1, 1, 2, -2) if bebop else (-1, 1, 2, -2, 1, -1, 3, -3, 0)))
    # a motif comes back near where it started (an arch or a wave, not a slide):
    # shrink the steps pulling it away until it ends within two scale steps
    while abs(sum(steps)) > 2:
        drift = 1 if sum(steps) > 0 else -1
        i = max(range(len(steps)), key=lambda k: steps[k] * drift)
        steps[i] -= drift
    return tuple(steps)


def make_motif(rng: random.Random, style: str) -> Motif:
    cells = RHYTHMS.get(style, RHYTHMS["lyrical"])
    rhythm = rng.choice(cells)
    return Motif(rhythm, _contour(rng, len(rhythm), style == "bebop"), rng.choice(PLANS), rng.choice(cells))


def singable(pcs: tuple[int, ...]) -> tuple[int, ...]:
    """The chord tones a melody may hold on a strong beat: not one a semitone above another
    tone of the chord (the root of a major seventh, the minor third of a minor ninth rub
    against the tone just below them)."""
    kept = tuple(pc for pc in pcs if (pc - 1) % 12 not in pcs)
    return kept or pcs


def home_triad(sit: Situation) -> frozenset[int]:
    """The tonic triad's pitch classes (the third the scale has; a major one when it has both)."""
    third = 4 if (sit.tonic + 4) % 12 in sit.scale else 3
    return frozenset({sit.tonic % 12, (sit.tonic + third) % 12, (sit.tonic + 7) % 12})


def at_home(targets: tuple[int, ...], chord: Chord, home: frozenset[int]) -> tuple[int, ...]:
    """The tones a phrase may land on: of `targets`, those of the tonic triad; else the chord's
    other tones the tonic triad shares (over IV its fifth, the tonic); else `targets`. A phrase
    that ends on the sixth over IV, bar after bar, is heard in the key a fifth below."""
    kept = tuple(pc for pc in targets if pc in home)
    if kept:
        return kept
    shared = tuple(pc for pc in (chord.root, chord.third, chord.fifth) if pc in home and pc in chord.pcs)
    return shared or targets


def _compound(sit: Situation) -> bool:
    """Whether the metre counts dotted quarters (6/8, 9/8, 12/8): eighths in threes."""
    eighths = round(sit.beats_per_bar * 2)
    return sit.pulse == 0.5 and eighths >= 6 and eighths % 3 == 0


def _snap(pitch: int, pcs: tuple[int, ...]) -> int:
    """The chord tone nearest to `pitch` (ties go down)."""
    for d in (0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6):
        if (pitch + d) % 12 in pcs:
            return pitch + d
    return pitch


def _realise(sit: Situation, bar: Bar, rhythm: Cell, contour: tuple[int, ...], anchor: int,
             ladder: list[int], lo: int, hi: int, bebop: bool) -> list[tuple[float, float, int]]:
    """Pitches for one bar: walk the scale ladder by the contour from `anchor`;
    notes on strong beats (1 and 3; in 6/8 and 12/8 the first and third dotted quarters) and
    notes held a beat or longer become chord tones."""
    idx = max(0, min(len(ladder) - 1, anchor))
    out: list[tuple[float, float, int]] = []
    beats = sit.beats_per_bar
    strong_every = 3 if _compound(sit) else 2  # quarter beats between strong beats
    for i, (onset, length) in enumerate(rhythm):
        if onset >= beats:
            break
        if i > 0:
            step = contour[(i - 1) % len(contour)] if contour else 0
            if not 0 <= idx + step < len(ladder):  # at the edge of the register the line turns back
                step = -step
            idx = max(0, min(len(ladder) - 1, idx + step))
        pitch = ladder[idx]
        strong = abs(onset - round(onset)) < 1e-6 and round(onset) % strong_every == 0
        if strong or length >= 1.0:  # strong beats and held notes sit on chord tones
            pitch = _snap(pitch, singable(bar.chord.pcs))
            if not lo <= pitch <= hi:
                pitch += 12 if pitch < lo else -12
        out.append((onset, min(length, beats - onset), pitch))
    if bebop and len(out) >= 3:  # chromatic approach into beat 3
        for j, (onset, length, _) in enumerate(out):
            if abs(onset - 1.5) < 1e-6 and j + 1 < len(out):
                out[j] = (onset, length, out[j + 1][2] - 1)
    return out


def _busier(rhythm: Cell) -> Cell:
    """A chorus line sings more words: its two longest notes (a half beat or more) split in two."""
    longest = sorted(range(len(rhythm)), key=lambda i: -rhythm[i][1])[:2]
    out: list[tuple[float, float]] = []
    for i, (onset, length) in enumerate(rhythm):
        if i in longest and length >= 0.5:
            half = round(length / 2 * 4) / 4
            out += [(onset, half), (onset + half, length - half)]
        else:
            out.append((onset, length))
    return tuple(out)


def _nearest_index(ladder: list[int], pitch: int) -> int:
    return min(range(len(ladder)), key=lambda i: abs(ladder[i] - pitch))


Line = list[tuple[float, float, int]]


@dataclass(frozen=True, slots=True)
class _Voice:
    """What the melodist keeps while it sings: its scale ladder, register and the note it left off on."""

    sit: Situation
    ladder: list[int]
    lo: int
    hi: int
    anchor: int


def _land(sit: Situation, bar: Bar, events: Line, lo: int, hi: int) -> None:
    """The phrase's last note moved to the nearest tone of the tonic triad the chord holds (its
    root or third else), as a cadence lands."""
    onset, length, pitch = events[-1]
    targets = at_home((bar.chord.root, bar.chord.third), bar.chord, home_triad(sit))
    landed = _snap(pitch, singable(targets) if len(targets) > 1 else targets)
    events[-1] = (onset, length, landed if lo <= landed <= hi else pitch)


def _call_and_response(v: _Voice, bar: Bar, turn: Turn, motif: Motif, home: int, sung: dict[tuple[object, ...], Line],
                       ) -> tuple[Line, Line]:
    """A bar of a section sung as coro and pregón (`montuno`): (the line, the coro's second voice).
    The coro is the chorus's motif, realised once over each of its bars' chords and sung the same
    every time it comes back, in thirds; the pregón develops it alone, a new answer each time (a
    line already heard in this section is moved a step up until it is new)."""
    if turn.call:
        key: tuple[object, ...] = ("coro", turn.bar, bar.chord.symbol)
        if key not in sung:
            rhythm = coro_rhythm(motif.rhythm, motif.answer, turn)
            contour = motif.contour if turn.bar == 0 else tuple(reversed(motif.contour))
            line = _realise(v.sit, bar, rhythm, contour, home if turn.bar == 0 else v.anchor, v.ladder, v.lo, v.hi,
                            False)
            if turn.bar == turn.length - 1 and line:
                _land(v.sit, bar, line, v.lo, v.hi)
            sung[key] = line
            sung[("below", *key)] = harmony_below(line, singable(bar.chord.pcs), v.ladder)
        return list(sung[key]), list(sung[("below", *key)])
    rhythm, contour, lift = pregon(motif.rhythm, motif.answer, motif.contour, turn)
    heard = {tuple((o, p) for o, _, p in line) for k, line in sung.items() if k[0] in ("coro", "pregon")}
    line = []
    for extra in range(4):
        line = _realise(v.sit, bar, rhythm, contour, home + lift + extra, v.ladder, v.lo, v.hi, False)
        if turn.bar == turn.length - 1 and line:
            _land(v.sit, bar, line, v.lo, v.hi)
        if tuple((o, p) for o, _, p in line) not in heard:
            break
    sung[("pregon", turn.answer, turn.bar)] = line
    return line, []


def play_lead(sit: Situation, styles: Sequence[Style], rng: random.Random, role: str = "lead") -> Phrase:
    style = sit.idiom.lead_style
    if role == "counter_melody":
        style = "sparse" if style in ("hook", "riffy", "bebop") else style
    lo, hi = REGISTER.get(role, REGISTER["lead"])
    ladder = [p for p in range(lo, hi + 1) if p % 12 in sit.scale]
    base = rng.getrandbits(32)
    motifs: dict[str, Motif] = {}
    notes: list[Raw] = []
    centre = _nearest_index(ladder, (lo + hi) // 2)
    anchor = centre
    offset = 2.0 if role == "counter_melody" else 0.0  # the counter-melody answers in the gaps
    said: dict[tuple[str, str, bool, bool], list[tuple[float, float, int]]] = {}
    said_turns: dict[tuple[object, ...], Line] = {}
    for bar in sit.active(role):
        if bar.final:  # the last chord: land on its root (or its third) and hold
            target = _snap(ladder[anchor], (bar.chord.root,) if role == "lead" else (bar.chord.third,))
            notes.append((bar.start, sit.beats_per_bar * 0.95, target if lo - 5 <= target <= hi else ladder[anchor],
                          max(1, min(127, round(84 * (0.78 + 0.3 * bar.energy))))))
            continue
        turn = turn_of(sit.idiom.name, bar.kind, bar.bar_in_section) if role == "lead" else None
        if turn is not None:  # a salsa's montuno: coro and pregón
            motif = motifs.setdefault("chorus", make_motif(random.Random(base + zlib.crc32(b"chorus")), style))
            home = _nearest_index(ladder, _snap(ladder[max(0, min(len(ladder) - 1, centre + round(
                (bar.section_energy - 0.5) * 12)))], bar.chord.pcs))
            events, below = _call_and_response(_Voice(sit, ladder, lo, hi, anchor), bar, turn, motif, home, said_turns)
            notes.extend(reshape(_sung(sit, bar, events, 0) + _sung(sit, bar, below, 12), styles[bar.index], 36, 108,
                                 bar.start + sit.beats_per_bar))
            if events:
                anchor = _nearest_index(ladder, events[-1][2])
            continue
        kind_style = "lyrical" if style == "bebop" and bar.kind == "head" else style
        if bar.kind == "solo":  # a solo improvises over the changes: a new idea every bar
            motif = make_motif(bar_rng(base, bar.index), kind_style)
            op = "motif"
        else:
            if bar.kind not in motifs:
                # a jazz head states a singable theme; the solos are where the bebop lines run
                motifs[bar.kind] = make_motif(random.Random(base + zlib.crc32(bar.kind.encode())), kind_style)
            motif = motifs[bar.kind]
            op = motif.plan[bar.bar_in_section % 4]
            breath = breathes(bar.bar_in_section, bar.bars_in_section, bar.section_energy)
            if role == "lead" and breath == "rest":  # between periods the lead breathes; others answer
                continue
            if role == "counter_melody" and not (breath or bar.bar_in_section % 4 == 3):
                continue  # the counter-melody answers: where the lead holds its cadence or rests
            if breath == "land":
                op = "cadence"
        # every phrase starts from home (the register's centre, a chord tone, lifted
        # when the energy is up so choruses sing higher); the repetition and
        # variation restate the motif from there, the sequence moves it
        lift = round((bar.energy - 0.5) * 12) + (2 if bar.bar_in_section % 8 >= 4 else 0)
        home = _nearest_index(ladder, _snap(ladder[max(0, min(len(ladder) - 1, centre + lift))], bar.chord.pcs))
        rhythm, contour, start = motif.rhythm, motif.contour, home
        if op == "sequence":
            start = home + bar_rng(base, bar.index).choice((2, -2, 1))
        elif op == "variation":  # the motif's rhythm with a new ending
            contour = motif.contour[:-1] + tuple(-c or 1 for c in motif.contour[-1:])
        elif op == "cadence":
            start = anchor
            rhythm = tuple((o, ln) for o, ln in motif.rhythm if o < 2.0) or motif.rhythm[:1]
            last_on, _ = rhythm[-1]
            rhythm = (*rhythm[:-1], (last_on, max(1.0, 3.0 - last_on)))  # land and hold, then breathe
        if bar.repeat and bar.kind in ("chorus", "hook", "drop") and bar.bar_in_section >= bar.bars_in_section // 2 \
                and op in ("motif", "repeat"):  # a chorus that comes back answers itself in its second half
            rhythm, op, start = motif.answer, "variation", home + min(2, bar.repeat)
        sparse = bar.energy < 0.35 and len(rhythm) > 2
        busy = not sparse and bar.section_energy >= LIFT_ENERGY and op != "cadence"
        if sparse:
            rhythm = rhythm[::2]
        elif busy:  # the same in every chorus
            rhythm = _busier(rhythm)
        # the motif comes back as it was first sung whenever it returns over the same chord
        key = (bar.kind, bar.chord.symbol, busy, sparse)
        if op in ("motif", "repeat") and bar.kind != "solo" and key in said:
            events = list(said[key])
        else:
            events = _realise(sit, bar, rhythm, contour, start, ladder, lo, hi, style == "bebop" and bar.kind != "head")
            if op in ("motif", "repeat"):
                said.setdefault(key, list(events))
        if op == "cadence" and events:  # the phrase lands on the root or third (later choruses: the third)
            onset, length, pitch = events[-1]
            targets: tuple[int, ...] = (bar.chord.third,) if bar.repeat and bar.kind in ("chorus", "hook", "drop") \
                else (bar.chord.root, bar.chord.third)
            targets = at_home(targets, bar.chord, home_triad(sit))
            landed = _snap(pitch, singable(targets) if len(targets) > 1 else targets)
            events[-1] = (onset, length, landed if lo <= landed <= hi else pitch)
        if role == "lead" and not sit.diatonic_only and op not in ("motif", "repeat") and len(events) >= 3:
            # a suspension, appoggiatura or anticipation now and then where a moving line develops
            # (the motif itself comes back as it was first sung; long held notes are left plain)
            previous = notes[-1][2] if notes and notes[-1][0] + notes[-1][1] >= bar.start - 0.6 else None
            where = zlib.crc32(bar.kind.encode()) % 65521 * 64 + bar.bar_in_section  # a chorus leans alike each time
            events = ornament_line(bar, events, previous, ladder, sit.beats_per_bar,
                                   bar_rng(base ^ 0x5EED, where), lead_ornament_chance(sit.idiom.harmonic))
        if role == "counter_melody":
            events = [(o + offset, ln, p) for o, ln, p in events if o + offset < sit.beats_per_bar][:2]
        played = _sung(sit, bar, events, 14 if role == "counter_melody" else 0)
        notes.extend(reshape(played, styles[bar.index], 36, 108, bar.start + sit.beats_per_bar))
        if events:
            anchor = _nearest_index(ladder, events[-1][2])
    notes.sort()
    return Phrase(role=role, events=tuple(NoteEvent(*n) for n in notes), beats_per_bar=sit.beats_per_bar, pulse=sit.pulse,
                  bars=len(sit.bars), style=style, feel=feel_of(sit, styles, role))


def _sung(sit: Situation, bar: Bar, events: Line, softer: int) -> list[Raw]:
    """A bar's line as notes: accents on the strong beats, a swell over the four-bar phrase."""
    played: list[Raw] = []
    for onset, length, pitch in events:
        accent = 10 if abs(onset - round(onset)) < 1e-6 and round(onset) % 2 == 0 else 0
        arc = math.sin(math.pi * ((bar.bar_in_section % 4) + onset / sit.beats_per_bar) / 4)  # phrase swell
        vel = round((76 + accent + 16 * arc) * (0.78 + 0.3 * bar.energy)) - softer
        played.append((bar.start + onset, max(0.1, length * 0.92), pitch, max(1, min(127, vel))))
    return played
