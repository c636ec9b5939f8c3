"""The jam's adapter to the musical core: a turn becomes a craft `Situation` (the
loop's chords one per bar, energy 1–10 read as 0–1, the metre, the kick the
drummer is heard playing), the boss's wishes become craft `Style` knobs, and
the phrase the craft plays becomes pattern code (`to_pattern`), with the
member's sounds and effects. The built-in musicians keep only their voices
and their sound palettes; what they play is the craft's, as in compose."""

from __future__ import annotations

import random
from dataclasses import replace

from bandstand.craft import Bar, Chord, Idiom, NoteEvent, Phrase, Situation, Style, play
from bandstand.craft.to_pattern import to_pattern
from bandstand.jam._harmony import pitch_class
from bandstand.jam.context import energy_level
from bandstand.jam.musicians._craft import epoch_rng, kick_steps, listen, steps_per_bar
from bandstand.jam.turn import TurnInput

__all__ = ["JAM_IDIOM", "energy", "idea", "perform", "situation", "style", "write"]

# The jam band's habits: a syncopated session drummer, a bass locked to his kick, a
# lyrical, motif-minded melody.
JAM_IDIOM = Idiom(name="jam", drum_family="jam", bass_style="locked", comp_style="stabs", lead_style="lyrical",
                  harmonic=0.3, rhythmic=0.5)
DENSITY_STEP = 0.15  # one "busier" from the boss moves the density knob this far
MAX_EVENTS = 56  # a bar's events stay under the pattern engine's density limit (64)


def energy(turn: TurnInput) -> float:
    """The jam's energy 1–10 as the craft reads it, 0–1."""
    return energy_level(turn.context.energy)


def _kicks(turn: TurnInput, bars: int, length: int) -> list[tuple[tuple[int, int], ...]] | None:
    """The drummer's kicks bar by bar, as heard through the pattern engine (None: no drummer)."""
    drums = next((m for m in turn.others() if m.role == "drums" and not m.out), None)
    if drums is None or not drums.pattern or drums.pattern == "silence":
        return None
    heard: list[set[int]] = [set() for _ in range(bars)]
    for time, value in listen(drums.pattern, bars):
        if str(value.get("s", "")).split(":")[0] in {"bd", "kick"}:
            bar = int(time)
            if 0 <= bar < bars:
                heard[bar].add(int((time - bar) * length))
    if not any(heard):
        first = kick_steps(drums.pattern, length)
        heard = [set(first) for _ in range(bars)]
    return [tuple((s, 100) for s in sorted(h)) for h in heard]


def situation(turn: TurnInput, idea: int, *, idiom: Idiom = JAM_IDIOM, role: str = "lead",
              textures: tuple[str, ...] = ()) -> Situation:
    """The loop as a craft situation: one bar per chord, a loop that repeats."""
    ctx = turn.context
    length = steps_per_bar(turn)
    beats = ctx.beats_per_bar * 4 / ctx.beat_unit
    symbols = ctx.chords or ["C"]
    chords: list[Chord] = []
    previous: tuple[int, ...] | None = None
    for symbol in symbols:
        chord = Chord.of_symbol(symbol, previous)
        chords.append(chord)
        previous = chord.pitches
    kicks = _kicks(turn, len(symbols), length) if role == "bass" else None
    e = energy(turn)
    n = len(symbols)
    bars = tuple(Bar(
        index=i, start=i * beats, section=0, kind="verse", bar_in_section=i, bars_in_section=n, energy=e,
        chord=chords[i], next_chord=chords[(i + 1) % n], roles=frozenset({role}),
        section_end=n > 1 and i == n - 1, next_kind="verse", section_energy=e, name="Loop",
        kick=kicks[i] if kicks is not None else (() if role == "bass" else None),  # no drummer: the one
    ) for i in range(n))
    scale = tuple(sorted({pitch_class(name) for name in ctx.scale}))
    return Situation(tonic=pitch_class(ctx.scale[0]), mode=ctx.mode, scale=scale, tempo=ctx.bpm,
                     beats_per_bar=beats, steps=length, bars=bars, idiom=idiom, groove=idea,
                     diatonic_only=True, pulse=4 / ctx.beat_unit, textures=textures, looping=True)


def style(turn: TurnInput, *, density: float = 0.0, register: float = 0.0, feel: bool = True) -> Style:
    """The boss's wishes as knobs: 'busier'/'simpler' move density, a solo lifts the part
    an octave and fills it in, swing is a full triplet shuffle, time feel as asked (unless
    `feel` is off: a bass locked to a kick that already plays the feel)."""
    s = turn.style
    knobs = {"density": s.density * DENSITY_STEP + density + (0.3 if s.solo else 0.0),
             "register": register + (0.25 if s.solo else 0.0),
             "swing": 1.0 if s.swing else -1.0}
    return Style().turned(knobs, time_feel=s.time if feel and s.time in (0.5, 1.0, 2.0) else 1.0)


def idea(turn: TurnInput, seed: int, salt: str) -> int:
    """The member's idea for this key and style: a number the craft reads as its groove."""
    return epoch_rng(turn, seed, salt).getrandbits(16) + 1


def in_scale(phrase: Phrase, scale: tuple[int, ...]) -> Phrase:
    """Every pitched note moved onto the scale (the jam's validator allows no other)."""
    if phrase.is_drum or all(e.pitch % 12 in scale for e in phrase.events):
        return phrase
    fixed = []
    for e in phrase.events:
        pitch = e.pitch
        for d in (0, -1, 1, -2, 2):
            if (e.pitch + d) % 12 in scale:
                pitch = e.pitch + d
                break
        fixed.append(e._replace(pitch=pitch))
    return replace(phrase, events=tuple(fixed))


def thin(phrase: Phrase) -> Phrase:
    """A bar with more events than the pattern engine allows loses its softest ones."""
    bars: dict[int, list[NoteEvent]] = {}
    for e in phrase.events:
        bars.setdefault(int((e.start + 1e-6) // phrase.beats_per_bar), []).append(e)
    # double time plays a bar twice a cycle; half time never makes room for more than a cycle holds
    limit = int(MAX_EVENTS / max(1.0, *phrase.feel.time_feel))
    if all(len(b) <= limit for b in bars.values()):
        return phrase
    kept: list[NoteEvent] = []
    for events in bars.values():
        kept += sorted(sorted(events, key=lambda e: -e.velocity)[:limit], key=lambda e: (e.start, e.pitch))
    return replace(phrase, events=tuple(kept))


def perform(turn: TurnInput, role: str, sit: Situation, knobs: Style, seed: int, salt: str) -> Phrase:
    """The craft plays `role` in the loop (its choices fixed by the member's idea, so the
    part changes when the idea does, not every round)."""
    rng = random.Random(f"{seed}:{turn.member}:{salt}:{sit.groove}")
    return thin(in_scale(play(role, sit, rng, (knobs,) * len(sit.bars)), sit.scale))


LONG_SWING = 8
"""Swing subdivisions a cycle past which a swung pattern's cost is checked: `swingBy(x, n)` queries the pattern
n times a cycle, and a 15/4 bar of eight busy drum layers swung on every beat passes the validator's query budget
(such a bar is played straight; every shorter bar swings as written)."""


def write(turn: TurnInput, phrase: Phrase, sit: Situation, *, sound: str | None = None, effects: str = "",
          degrees: bool = True) -> str:
    """The phrase as pattern code in the jam's key (melodies in scale degrees, a bass line
    in note names), with the member's sound and effects. Half time is written into the
    notes; double time too, as a feel on the sixteenth grid (`double_feel`) — never
    `.fast(2)`, which would put a kick on 32nds and run the loop's chords twice a bar."""
    name = turn.context.scale[0]
    if set(phrase.feel.time_feel) == {2.0}:
        phrase = double_feel(phrase)

    def written(p: Phrase) -> str:
        return to_pattern(p, sound=sound, scale=sit.scale if degrees else None, tonic=sit.tonic,
                          scale_name=f"{name[0].upper()}{name[1:]}:{turn.context.mode}",
                          sharps="#" in "".join(turn.context.scale), effects=effects)

    code = written(phrase)
    if ".swingBy(" in code and phrase.beats_per_bar / (2 * phrase.feel.swing_unit) > LONG_SWING:
        from bandstand.patterns.validate import validate_pattern

        if validate_pattern(code).error:  # swung, a long busy bar passes the engine's budget: played straight
            code = written(replace(phrase, feel=replace(phrase.feel, swing=())))
    return code


def double_feel(phrase: Phrase) -> Phrase:
    """Double time as a player feels it: each bar's figure played twice as fast, once in
    each half of the bar on the sixteenth grid — the hats and the backbeat double, the kick
    keeps a double-time figure, no drum falls on a 32nd (a drum that would is left out, a
    pitched note moves onto the sixteenth before it). The harmony stays one chord per bar."""
    bpb = phrase.beats_per_bar
    half = bpb / 2
    out: dict[tuple[float, int], NoteEvent] = {}
    for e in phrase.events:
        bar = int((e.start + 1e-9) // bpb)
        rel = (e.start - bar * bpb) / 2
        if abs(rel * 4 - round(rel * 4)) > 1e-6:  # would be a 32nd
            if phrase.is_drum:
                continue
            rel = int(rel * 4 + 1e-6) / 4
        for start in (bar * bpb + rel, bar * bpb + half + rel):
            if start < (bar + 1) * bpb - 1e-9:
                out.setdefault((round(start, 6), e.pitch), e._replace(start=start, duration=max(0.1, e.duration / 2)))
    events = tuple(sorted(out.values(), key=lambda e: (e.start, e.pitch)))
    return replace(phrase, events=events, feel=replace(phrase.feel, time_feel=()))
