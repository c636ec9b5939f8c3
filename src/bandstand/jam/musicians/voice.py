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
from collections.abc import Sequence
from string import Formatter

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
    SOLO_DONE,
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


def _mark(line: str) -> str:
    """What makes a line that line: its longest stretch of fixed words (the fields filled in
    around it differ from round to round), lower-cased."""
    return max((literal for literal, *_ in Formatter().parse(line)), key=len).strip().lower()


def _fresh(options: Sequence[str], recent: str) -> list[str]:
    """The lines of `options` the member did not say recently (`recent`: its recent lines,
    oldest first, lower-cased); a line too short to tell counts as fresh."""
    return [o for o in options if len(mark := _mark(o)) < 4 or mark not in recent]


def _stalest(options: Sequence[str], recent: str) -> list[str]:
    """Every line said lately: the one said longest ago (each line's last saying, compared)."""
    last = {o: recent.rfind(_mark(o)) for o in options}
    oldest = min(last.values())
    return [o for o in options if last[o] == oldest]


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
    recent = " | ".join(turn.recent_lines).lower()

    def free_lines() -> list[str]:
        nonlocal facts
        heard = facts.get("changes")
        facts = {**(heard() if callable(heard) else {}), **facts}  # what the part changed, heard now
        lines = [text for cond, text in FREE[role] if _holds(cond, turn, facts)]
        first = [text for cond, text in FREE[role] if cond in PRIORITY and _holds(cond, turn, facts)]
        return _fresh(first, recent) or lines

    free = False
    options: Sequence[str]
    if facts.get("boss_code"):
        options = BOSS_CODE[role]
    elif puzzled(turn):
        options = PUZZLED[role]
    elif silent and "drop_out" not in turn.intents and turn.last_pattern == "silence":
        options = STILL_OUT[role]
    elif silent:
        options = OUT[role]
    elif turn.key_changed:
        options = KEY_CHANGE[role]
    elif "time_signature" in turn.context_changed:
        options = METRE_CHANGED[role]
    elif turn.style.solo and "solo" in turn.intents:
        options = DID["solo"][role]
    elif turn.solo_ended:
        options = SOLO_DONE[role]
    elif turn.last_pattern is None:
        options = OPENERS[role]
    elif "chords" in turn.context_changed:
        options = CHORDS_CHANGED[role]
    elif (did := next((DID[i][role] for i in turn.intents if i in DID), None)) is not None:
        options = did
    elif turn.energy_delta:
        options = ENERGY_CHANGED["up" if turn.energy_delta > 0 else "down"][role]
    elif "bpm" in turn.context_changed:
        options = TEMPO_CHANGED[role]
    else:
        options, free = free_lines(), True
    # a line said in the last rounds is not said again: another of its kind, else what the member
    # would say in a free round, else (everything said lately) the lines of its kind after all
    fresh = _fresh(options, recent)
    if not fresh and not free and not silent and not puzzled(turn):
        fresh = _fresh(free_lines(), recent)
    thought = rand.choice(fresh or _stalest(options, recent))
    if puzzled(turn):
        reactions: Sequence[str] = PUZZLED_REACT[role]
    elif silent and asked_to_play:
        reactions = OUT_REACT[role]
    elif turn.directive and not facts.get("boss_code"):
        grumbles = rand.random() * 100 < persona.stubbornness * 0.8
        reactions = GRUMBLE[role] if grumbles else OBEY[role]
    else:
        mates = {m.role for m in turn.others() if m.pattern and m.pattern != "silence"}
        reactions = [r for r in REACTIONS[role] if not any("{" + k + "}" in r for k in ("drums", "bass", "melody", "fx") if k not in mates)]
        reactions = reactions or REACTIONS[role][-1:]
    reaction = rand.choice(_fresh(reactions, recent) or _stalest(reactions, recent))
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
