"""BEAT: the craft's drummer in the jam. The groove is the idea born on a key or
style change (the kick figure busier band by band as the energy rises, fills
on the last bar of the loop, a crash on its top when the band is up); ghost
notes creep in as the idea ages; four on the floor only at full energy, and
only ironically. Making room when someone else solos, taking over when BEAT
does."""

from __future__ import annotations

from dataclasses import replace

from bandstand.craft.kit import KICK, SNARE
from bandstand.jam.musicians._adapt import JAM_IDIOM, idea, perform, situation, style, write
from bandstand.jam.musicians._craft import epoch_rng
from bandstand.jam.turn import TurnInput

GHOST = 60


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    """The drum pattern for this turn and what shaped it (for the thoughts)."""
    s = turn.style
    if s.out:
        return "silence", {"out": True}
    energy = turn.context.energy
    ironic = energy >= 9 and epoch_rng(turn, seed, "groove").random() < 0.35
    someone_solos = any(m.solo and not m.out for m in turn.others())
    age = max(0, turn.round - s.since)
    knobs = style(turn, density=-0.15 if someone_solos else 0.0).turned({"complexity": 0.1 * min(age, 3)})
    idiom = replace(JAM_IDIOM, drum_family="four_on_floor" if ironic else "jam")
    sit = situation(turn, idea(turn, seed, "groove"), idiom=idiom, role="drums")
    phrase = perform(turn, "drums", sit, knobs, seed, "drums")
    if someone_solos:  # under a solo the kit plays softer too
        phrase = replace(phrase, events=tuple(e._replace(velocity=max(1, round(e.velocity * 0.85))) for e in phrase.events))
    first = phrase.in_bar(0)
    kicks = sum(1 for e in first if e.pitch == KICK)
    ghosts = any(e.pitch == SNARE and e.velocity < GHOST for e in phrase.events)
    level = round(sit.bars[0].energy * 4)
    return write(turn, phrase, sit), {"ironic": ironic, "ghosts": ghosts, "level": level, "kicks": kicks, "age": age}
