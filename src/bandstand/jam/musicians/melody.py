"""ARIA: the craft's melodist in the jam. A motif born on each key or style change,
restated over the chords (chord tones on the strong beats, the scale between),
developed and answered at the end of the loop; as the idea ages the odd bars
vary their last note. It leaves air when the fx is busy or someone else
solos, and climbs an octave and fills in when ARIA solos."""

from __future__ import annotations

from dataclasses import replace

from bandstand.craft import Phrase
from bandstand.jam.musicians._adapt import idea, perform, situation, style, write
from bandstand.jam.musicians._craft import epoch_rng, events_per_cycle, gain, num, rng
from bandstand.jam.turn import TurnInput

SOUNDS = ("triangle", "sine", "square")
HOME = -0.25  # the jam's melody sings an octave below compose's lead


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    s = turn.style
    if s.out:
        return "silence", {"out": True}
    ctx = turn.context
    fx = next((m for m in turn.others() if m.role == "fx" and not m.out), None)
    fx_busy = events_per_cycle(fx.pattern if fx else None) > 5
    other_solo = any(m.solo and not m.out for m in turn.others())
    knobs = style(turn, density=-0.3 * fx_busy - 0.15 * other_solo, register=HOME)
    the_idea = idea(turn, seed, "motif")
    sit = situation(turn, the_idea, role="lead")
    phrase = perform(turn, "lead", sit, knobs, seed, "motif")
    age = max(0, turn.round - s.since)
    if age >= 1:  # the idea ages: the odd bars vary their last note by a scale step
        phrase = _vary(phrase, sit.scale, rng(turn, seed, "variation", min(age, 4)).choice((1, -1, 2)))
    sound = SOUNDS[epoch_rng(turn, seed, "motif").randrange(len(SOUNDS))] if not s.solo else "sawtooth"
    effects = f".lpf({num(1200 + 180 * ctx.energy)}).gain({gain(turn, -0.12 if not s.solo else 0.05)}).room({num(0.35)})"
    if age >= 2 and ctx.energy >= 5 and not fx_busy:
        effects += f".delay({num(0.25)})"
    first = phrase.in_bar(0)
    motif = [e.pitch for e in first][:4]
    return write(turn, phrase, sit, sound=sound, effects=effects), {
        "fx_busy": fx_busy, "other_solo": other_solo, "notes": len(first), "motif": motif}


def _vary(phrase: Phrase, scale: tuple[int, ...], steps: int) -> Phrase:
    """The last note of every odd bar moved `steps` scale steps."""
    ladder = sorted(p for p in range(0, 128) if p % 12 in scale)
    events = list(phrase.events)
    for bar in range(1, phrase.bars, 2):
        inside = [i for i, e in enumerate(events) if int((e.start + 1e-6) // phrase.beats_per_bar) == bar]
        if inside:
            i = inside[-1]
            at = min(range(len(ladder)), key=lambda k: abs(ladder[k] - events[i].pitch))
            events[i] = events[i]._replace(pitch=ladder[max(0, min(len(ladder) - 1, at + steps))])
    return replace(phrase, events=tuple(events))
