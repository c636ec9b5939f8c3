"""What the built-in musicians say: thoughts and reactions in character.

Lines (`lines`) are picked by situation (first round, a directive followed
with good grace or grumbling, a key, metre, tempo or energy change, a free
round, dropping out, a solo, a directive it could not make sense of) and
filled with what the member actually plays and what the others played. Words
match deeds: `comply_with_boss` is false only when the member did not do what
was asked (it could not make sense of it, or it is sitting out); stubbornness
only sets the tone of the reaction.
"""

from __future__ import annotations

import random

from bandstand.jam.musicians.lines import (
    ASKS,
    BOSS_CODE,
    CHORDS_CHANGED,
    DID,
    ENERGY_CHANGED,
    FREE,
    GRUMBLE,
    KEY_CHANGE,
    METRE_CHANGED,
    OBEY,
    OPENERS,
    OUT,
    OUT_REACT,
    PUZZLED,
    PUZZLED_REACT,
    REACTIONS,
    STILL_OUT,
    TEMPO_CHANGED,
)
from bandstand.jam.persona import Persona
from bandstand.jam.turn import TurnInput

PRIORITY = ("other_solo", "fresh")
"""Free-round conditions that, when they hold, are what the member talks about."""


def _mate(turn: TurnInput, role: str, fallback: str) -> str:
    return next((m.name for m in turn.others() if m.role == role), fallback)


def _ask(turn: TurnInput) -> str:
    parts = [ASKS[i] for i in turn.intents if i in ASKS]
    if turn.energy_delta > 0:
        parts.append("more energy")
    elif turn.energy_delta < 0:
        parts.append("less energy")
    if turn.key_changed:
        parts.append(turn.context.key)
    if "time_signature" in turn.context_changed:
        parts.append(f"{turn.context.time_signature} time")
    if "bpm" in turn.context_changed:
        parts.append(f"{turn.context.bpm:g} BPM")
    if "chords" in turn.context_changed:
        parts.append("new chords")
    return ", ".join(parts) or "that"


def puzzled(turn: TurnInput) -> bool:
    """Whether the boss said something to this member that asks nothing it can play."""
    return bool(turn.directive) and not turn.understood


def speak(persona: Persona, turn: TurnInput, facts: dict[str, object], rand: random.Random) -> tuple[str, str, bool]:
    """(thoughts, reaction, comply_with_boss) for this turn."""
    role = persona.role if persona.role in OPENERS else "melody"
    catch = rand.choice(persona.catchphrases) if persona.catchphrases else "Let's play"
    ctx = turn.context
    fields = {
        "key": ctx.key,
        "bpm": f"{ctx.bpm:g}",
        "chords": " ".join(ctx.chords),
        "scale": " ".join(ctx.scale),
        "metre": ctx.time_signature,
        "beats": str(ctx.beats_per_bar),
        "energy": str(ctx.energy),
        "catch": catch.rstrip("."),
        "catch_lower": catch[0].lower() + catch[1:].rstrip("."),
        "drums": _mate(turn, "drums", "the kit"),
        "bass": _mate(turn, "bass", "the low end"),
        "melody": _mate(turn, "melody", "the melody"),
        "fx": _mate(turn, "fx", "the texture"),
        "soloist": next((m.name for m in turn.others() if m.solo and not m.out), "the soloist"),
        "ask": _ask(turn),
        "notes": "a few",
        **{k: str(v) for k, v in facts.items() if isinstance(v, int | str) and not isinstance(v, bool)},
    }
    silent = bool(facts.get("out"))
    asked_to_play = bool(turn.directive) and not ({"drop_out", "come_back"} & set(turn.intents))
    comply = not puzzled(turn) and not (silent and asked_to_play)
    if facts.get("boss_code"):
        thought = rand.choice(BOSS_CODE[role])
    elif puzzled(turn):
        thought = rand.choice(PUZZLED[role])
    elif silent and "drop_out" not in turn.intents and turn.last_pattern == "silence":
        thought = rand.choice(STILL_OUT[role])
    elif silent:
        thought = rand.choice(OUT[role])
    elif turn.key_changed:
        thought = rand.choice(KEY_CHANGE[role])
    elif "time_signature" in turn.context_changed:
        thought = rand.choice(METRE_CHANGED[role])
    elif turn.style.solo and "solo" in turn.intents:
        thought = rand.choice(DID["solo"][role])
    elif turn.last_pattern is None:
        thought = rand.choice(OPENERS[role])
    elif "chords" in turn.context_changed:
        thought = rand.choice(CHORDS_CHANGED[role])
    elif (did := next((DID[i][role] for i in turn.intents if i in DID), None)) is not None:
        thought = rand.choice(did)
    elif turn.energy_delta:
        thought = rand.choice(ENERGY_CHANGED["up" if turn.energy_delta > 0 else "down"][role])
    elif "bpm" in turn.context_changed:
        thought = rand.choice(TEMPO_CHANGED[role])
    else:
        heard = facts.get("changes")
        facts = {**(heard() if callable(heard) else {}), **facts}  # what the part changed, heard now
        lines = [text for cond, text in FREE[role] if _holds(cond, turn, facts)]
        first = [text for cond, text in FREE[role] if cond in PRIORITY and _holds(cond, turn, facts)]
        thought = rand.choice(first or lines)
    if puzzled(turn):
        reaction = rand.choice(PUZZLED_REACT[role])
    elif silent and asked_to_play:
        reaction = rand.choice(OUT_REACT[role])
    elif turn.directive and not facts.get("boss_code"):
        grumbles = rand.random() * 100 < persona.stubbornness * 0.8
        reaction = rand.choice(GRUMBLE[role] if grumbles else OBEY[role])
    else:
        mates = {m.role for m in turn.others() if m.pattern and m.pattern != "silence"}
        options = [r for r in REACTIONS[role] if not any("{" + k + "}" in r for k in ("drums", "bass", "melody", "fx") if k not in mates)]
        reaction = rand.choice(options or REACTIONS[role][-1:])
    return _sentence(thought.format(**fields)), _sentence(reaction.format(**fields)), comply


def _holds(condition: str, turn: TurnInput, facts: dict[str, object]) -> bool:
    """Whether a free-round line fits what is actually happening (`a&b`: both)."""
    if "&" in condition:
        return all(_holds(part, turn, facts) for part in condition.split("&"))
    if condition == "always":
        return True
    if condition.startswith("has:"):
        role = condition[4:]
        return any(m.role == role and not m.out and m.pattern not in ("", "silence") for m in turn.others())
    if condition == "other_solo":
        return any(m.solo and not m.out for m in turn.others())
    if condition == "fresh":
        return turn.round == turn.style.since and turn.last_pattern is not None
    if condition == "unlocked":
        return not facts.get("locked", False)
    return bool(facts.get(condition, False))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
