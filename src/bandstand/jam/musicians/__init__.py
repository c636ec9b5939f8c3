"""The built-in musicians: deterministic responders that write idiomatic pattern
code for their role in the current key, scale and chords, listen to the others,
evolve gradually, obey directives and talk in character; a part the boss wrote
is played as written until the boss asks for something else, and words that
ask nothing playable leave the part as it was.

`Musician(persona, seed)` is a responder for `bandstand.agents.AlgorithmicBackend`:
it reads the structured `TurnInput` of each turn and answers a `JamReply`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bandstand.jam.musicians import bass, drums, fx, melody
from bandstand.jam.musicians._craft import EARS, changes, rng
from bandstand.jam.musicians.voice import puzzled, speak
from bandstand.jam.persona import Persona
from bandstand.jam.turn import JamReply, TurnInput

Craft = Callable[[TurnInput, int], tuple[str, dict[str, object]]]

CRAFTS: dict[str, Craft] = {
    "drums": drums.play,
    "percussion": drums.play,
    "bass": bass.play,
    "melody": melody.play,
    "keys": melody.play,
    "lead": melody.play,
    "fx": fx.play,
    "texture": fx.play,
}


class Musician:
    """A built-in band member: `musician(request) -> JamReply` (request.data is a TurnInput)."""

    def __init__(self, persona: Persona, seed: int = 0, book: Any = None) -> None:
        self.persona = persona
        self.seed = seed
        self.book = book  # the engine's PatternBook the musician hears the others through
        self.craft = CRAFTS.get(persona.role, melody.play)

    def __call__(self, request: Any) -> JamReply:
        data = getattr(request, "data", request)
        turn = data if isinstance(data, TurnInput) else TurnInput.model_validate(data)
        return self.play(turn)

    async def respond(self, request: Any) -> JamReply:
        """`self(request)` in a worker thread: a musician writing its part (and hearing the
        others') never holds the event loop — a sixteen-member band's round would otherwise
        hold it for every member in turn."""
        return await asyncio.to_thread(self, request)

    def play(self, turn: TurnInput) -> JamReply:
        ears = EARS.set(self.book)
        try:
            return self._play(turn)
        finally:
            EARS.reset(ears)

    def _play(self, turn: TurnInput) -> JamReply:
        facts: dict[str, object]
        keeps = turn.last_pattern is not None and not turn.key_changed and not turn.context_changed
        if turn.boss_code is not None and not turn.intents and not turn.energy_delta and keeps:
            pattern, facts = turn.boss_code, {"boss_code": True}  # the boss wrote my part: I play it
        elif puzzled(turn) and keeps:
            pattern, facts = turn.last_pattern or "silence", {}  # nothing to act on: my part as it was
        else:
            pattern, facts = self.craft(turn, self.seed)
            last = turn.last_pattern
            facts["changes"] = lambda: changes(last, pattern)  # heard only when the words need it
        thoughts, reaction, comply = speak(self.persona, turn, facts, rng(turn, self.seed, "voice", turn.round))
        return JamReply(pattern=pattern, thoughts=thoughts, reaction=reaction, comply_with_boss=comply)


__all__ = ["CRAFTS", "Musician"]
