"""GROOVE: the craft's bassist in the jam. The chord roots bar by bar, voiced low
with smooth motion, struck with the kick the drummer is heard playing (through
the pattern engine); a fifth answers on the off-beats when the band is busy.
Less is more: the line changes only when the harmony or the groove does."""

from __future__ import annotations

from bandstand.jam.musicians._adapt import idea, perform, situation, style, write
from bandstand.jam.musicians._craft import epoch_rng, gain, num
from bandstand.jam.turn import TurnInput

SOUNDS = ("sawtooth", "square", "triangle")


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    s = turn.style
    if s.out:
        return "silence", {"out": True}
    energy = turn.context.energy
    sit = situation(turn, idea(turn, seed, "bass"), role="bass")
    heard = [b.kick for b in sit.bars]
    other_solo = any(m.solo and not m.out for m in turn.others())  # make room: fewer notes, softer
    knobs = style(turn, density=-0.3 * other_solo, feel=not any(heard))  # the kick carries the feel
    phrase = perform(turn, "bass", sit, knobs, seed, "bass")
    sound = SOUNDS[epoch_rng(turn, seed, "bass").randrange(2)] if energy >= 4 else "triangle"
    cutoff = 260 + 70 * energy + 60 * s.density
    code = write(turn, phrase, sit, sound=sound, effects=f".lpf({num(cutoff)}).gain({gain(turn, 0.05 - 0.1 * other_solo)})",
                 degrees=False)
    first = phrase.in_bar(0)
    roots = {b.chord.root for b in sit.bars}
    answers = any(e.pitch % 12 not in roots for e in phrase.events)
    return code, {"locked": any(heard) and len(first) > 1, "kicks": len(heard[0] or ()), "notes": len(first),
                  "answers": answers}
