"""GLITCH: the craft's fx in the jam. A few high blips on the chord's tones (a
texture artist changes colour, not the harmony) through a crushed delay, and
crushed clicks on the kit's noise voices; more of both with the energy, but
always with space."""

from __future__ import annotations

from bandstand.craft import Style
from bandstand.jam.musicians._adapt import idea, perform, situation, style, write
from bandstand.jam.musicians._craft import epoch_rng, gain, num, rng
from bandstand.jam.turn import TurnInput

DELAY_TIMES = ("0.375", "0.25", "0.1875")


def play(turn: TurnInput, seed: int) -> tuple[str, dict[str, object]]:
    s = turn.style
    if s.out:
        return "silence", {"out": True}
    ctx = turn.context
    the_idea = idea(turn, seed, "texture")
    look = epoch_rng(turn, seed, "texture")
    age = max(0, turn.round - s.since)
    mood = rng(turn, seed, "mood", min(age, 5))
    other_solo = any(m.solo and not m.out for m in turn.others())  # make room: a few soft blips only
    sit = situation(turn, the_idea, role="fx")
    blips = perform(turn, "fx", sit, style(turn, density=-0.5 * other_solo), seed, "blips")
    crush = max(3, 10 - ctx.energy // 2 - (1 if min(age, 5) % 2 else 0))
    blip = write(turn, blips, sit, sound=look.choice(("sine", "square")), effects=(
        f".crush({crush}).delay({num(0.5 + 0.05 * min(age, 4))}).delaytime({DELAY_TIMES[look.randrange(3)]})"
        f".delayfeedback({num(0.45)}).gain({gain(turn, -0.35 - 0.1 * other_solo)}).pan({num(round(mood.uniform(0.2, 0.8), 2))})"))
    clicks_played = 0
    code = blip
    if (ctx.energy >= 3 and not other_solo) or s.solo:
        ticks = situation(turn, the_idea, role="texture", textures=("ticks",))
        clicks = perform(turn, "texture", ticks, Style(density=0.0), seed, "clicks")
        clicks_played = len(clicks.in_bar(0))
        tick = write(turn, clicks, ticks, effects=f".crush({crush - 1}).room({num(0.6)})")
        code = f"stack({blip}, {tick})" if tick != "silence" else blip
    return code, {"events": len(blips.in_bar(0)) + clicks_played, "crush": crush}
