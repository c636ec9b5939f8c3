"""What the built-in musicians say: thoughts and reactions in character.

Lines are picked from tables by situation (first round, a directive obeyed or
grumbled at, a key change, a free round, dropping out, a solo) and filled with
what the others actually played and what the boss said. Stubbornness decides
`comply_with_boss`; it never changes the pattern, which always follows the
directive and the context.
"""

from __future__ import annotations

import random

from bandstand.jam.persona import Persona
from bandstand.jam.turn import TurnInput

OPENERS: dict[str, tuple[str, ...]] = {
    "drums": ("Counting us in — {key}, {bpm} BPM. {catch}.", "Setting the pocket at {bpm}. Kick and snare first, {catch}.", "Two bars of groove and we're home. {catch}."),
    "bass": ("Roots under {chords}. {catch}.", "Laying down {chords}, one per bar. {catch}.", "I'll keep it simple on {chords}. {catch}."),
    "melody": ("A small motif in {key} to start. {catch}.", "Opening with a phrase on the chord tones of {chords}. {catch}.", "Four notes, then space. {catch}."),
    "fx": ("A few crushed blips through the delay. {catch}.", "Sprinkling {key} dust on top. {catch}.", "Texture only, nothing you'll hum. {catch}."),
}
# free-round thoughts: (condition, line); a line is said only when its condition holds
FREE: dict[str, tuple[tuple[str, str], ...]] = {
    "drums": (
        ("ghosts", "{kicks} kicks a bar now, ghost notes in the cracks."),
        ("has:bass", "Nudged one kick late — hear how {bass} chases it?"),
        ("always", "Same pocket, a touch more hat. {catch}."),
        ("has:melody", "Holding the groove steady under {melody}."),
        ("ironic", "Four on the floor. Ironically, of course."),
        ("other_solo", "Thinned out the kit so {soloist} can fly."),
    ),
    "bass": (
        ("locked", "Locked to {drums}'s kick — {notes} hits a bar."),
        ("always", "Not adding anything; the groove is already there. {catch}."),
        ("has:melody", "Following the changes and leaving room for {melody}."),
        ("unlocked", "Roots on the one, whole bars. {catch}."),
        ("answers", "A fifth on the off-beat to answer the kick."),
    ),
    "melody": (
        ("always", "Varied the answer phrase; the motif stays."),
        ("fx_busy", "{fx} is busy, so I'm leaving more air."),
        ("has:bass", "Let the phrase answer {bass}'s move to the next chord."),
        ("always", "Same motif, a step higher the second time. {catch}."),
        ("other_solo", "Laying back while {soloist} takes the spotlight."),
    ),
    "fx": (
        ("always", "Moved the blips; the delay does the rest."),
        ("has:drums", "Crunchier this time — {drums} can take it."),
        ("has:melody", "Panned the glitches around {melody}'s phrase."),
        ("always", "Fewer sounds, longer tails. {catch}."),
    ),
}
# what a member says about the directive it just followed (first matching intent), by role
DID: dict[str, dict[str, tuple[str, ...]]] = {
    "double_time": {
        "drums": ("Doubled up — the snare's on every beat now.", "Double time. Hats are flying."),
        "bass": ("Eighths on the kicks now, twice the push.",),
        "melody": ("The motif runs twice as fast now.",),
        "fx": ("Twice the blips, half the patience.",),
    },
    "half_time": {
        "drums": ("Half time: snare on three, lots of air.", "Dropped into half time. Heavy."),
        "bass": ("First half of the bar only — long notes.",),
        "melody": ("Stretched the motif over two bars.",),
        "fx": ("Slower glitches, longer tails.",),
    },
    "simpler": {
        "drums": ("Stripped it back: kick, snare, hats.",),
        "bass": ("Simpler? Gladly. Fewer notes.", "Back to roots only."),
        "melody": ("Fewer notes, more space around the motif.",),
        "fx": ("Just a couple of blips now.",),
    },
    "busier": {
        "drums": ("More kicks, more ghost notes.",),
        "bass": ("Filling in around the kick.",),
        "melody": ("More notes in the phrase — still the same motif.",),
        "fx": ("More glitches, as requested. Careful what you wish for.",),
    },
    "swing": {
        "drums": ("Swung the hats — the off-beats lean back now.",),
        "bass": ("Swinging with the hats.",),
        "melody": ("A lazy swing on the phrase.",),
        "fx": ("Even the delays swing now.",),
    },
    "straight": {role: ("Straightened out, no more swing.",) for role in ("drums", "bass", "melody", "fx")},
    "come_back": {role: ("Back in. Did you miss me?", "Rejoining the band.") for role in ("drums", "bass", "melody", "fx")},
}
CHORDS_CHANGED: dict[str, tuple[str, ...]] = {
    "drums": ("New changes, {chords}. The groove stays, the fill still lands on the turnaround.",),
    "bass": ("New roots under {chords}, voiced smooth.", "Following the new changes: {chords}."),
    "melody": ("Re-aimed the motif at the new chord tones of {chords}.", "{chords} — the phrase now starts on each new root."),
    "fx": ("New changes? My blips follow the key anyway.", "{chords}. Same scale, new colours."),
}
TEMPO_CHANGED = ("{bpm} BPM now. Settling into the new tempo.", "Tempo's {bpm}. Adjusting the feel.")
OBEY: tuple[str, ...] = (
    "You got it, boss: {ask}.",
    "{ask} — on it.",
    "Sure thing — {ask}, coming up at the next bar.",
    "Heard you: {ask}.",
)
GRUMBLE: dict[str, tuple[str, ...]] = {
    "drums": ("'{ask}'? Fine. My way, though. {catch}.", "I'll do {ask}, but the groove decides how. {catch}.", "Corny. I'll play {ask}, but it'll still groove."),
    "bass": ("Hmm, {ask}… I'll try, but less is more.", "Okay, {ask}, without stepping on {drums}."),
    "melody": ("{ask}? I'd rather develop the motif, but all right.", "I'll give you {ask}, phrased properly."),
    "fx": ("{ask}? I'll break it my own way.", "Boss wants {ask}. The delay has opinions.", "Sure, {ask} — with extra crunch."),
}
KEY_CHANGE: tuple[str, ...] = (
    "New key, {key}. Rewrote my part around {chords}.",
    "Moving to {key} — everything re-spelled: {scale}.",
    "{key} it is. Fresh idea, same feel.",
)
REACTIONS: dict[str, tuple[str, ...]] = {
    "drums": ("{bass}, you're sitting right on my kick. Nice.", "{melody}, that motif leaves me room. Respect.", "{fx}, keep those blips off my snare.", "Boss, {catch_lower}."),
    "bass": ("{drums}'s kick is the anchor. I'm with it.", "Lovely phrase, {melody}.", "{fx}, those tails are cool, I'll stay low.", "All good down here."),
    "melody": ("{drums}, that fill sets up my answer nicely.", "{bass} gives me a clear floor.", "{fx}, maybe fewer blips while I phrase?", "I like where this is going."),
    "fx": ("{drums} is too tidy. I'll mess it up a little.", "{melody}'s motif, delayed, sounds like a ghost.", "{bass} is rock solid. Boring. Perfect.", "Chaos, but polite chaos."),
}
OUT: tuple[str, ...] = ("Laying out for a bit. {catch}.", "Taking a break — the band has it.", "Dropping out. Silence is part of the music.")
STILL_OUT: tuple[str, ...] = ("Still sitting this one out — say 'come back' when you need me.", "Listening from the side for now.")
SOLO: tuple[str, ...] = ("My turn to speak! Up an octave, more notes.", "Solo time. Stay with me, {drums}.", "Stepping to the front for a while.")
ASKS = {
    "simpler": "simpler", "busier": "busier", "double_time": "double time", "half_time": "half time",
    "swing": "swing", "straight": "straight", "drop_out": "drop out", "come_back": "come back", "solo": "a solo",
}


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
    return ", ".join(parts) or (turn.directive or "").strip().rstrip(".!")


def speak(persona: Persona, turn: TurnInput, facts: dict[str, object], rand: random.Random) -> tuple[str, str, bool]:
    """(thoughts, reaction, comply_with_boss) for this turn."""
    role = persona.role if persona.role in OPENERS else "melody"
    catch = rand.choice(persona.catchphrases) if persona.catchphrases else "Let's play"
    fields = {
        "key": turn.context.key,
        "bpm": f"{turn.context.bpm:g}",
        "chords": " ".join(turn.context.chords),
        "scale": " ".join(turn.context.scale),
        "catch": catch.rstrip("."),
        "catch_lower": catch[0].lower() + catch[1:].rstrip("."),
        "drums": _mate(turn, "drums", "the kit"),
        "bass": _mate(turn, "bass", "the low end"),
        "melody": _mate(turn, "melody", "the melody"),
        "fx": _mate(turn, "fx", "the texture"),
        "soloist": next((m.name for m in turn.others() if m.solo and not m.out), "the soloist"),
        "ask": _ask(turn),
        **{k: v for k, v in facts.items() if isinstance(v, int | str)},
    }
    comply = True
    if turn.directive:
        comply = rand.random() * 100 >= persona.stubbornness * 0.8
    if turn.style.out and "drop_out" not in turn.intents and turn.last_pattern == "silence":
        thought = rand.choice(STILL_OUT)
    elif turn.style.out:
        thought = rand.choice(OUT)
    elif turn.key_changed:
        thought = rand.choice(KEY_CHANGE)
    elif turn.style.solo and "solo" in turn.intents:
        thought = rand.choice(SOLO)
    elif turn.last_pattern is None:
        thought = rand.choice(OPENERS[role])
    elif "chords" in turn.context_changed:
        thought = rand.choice(CHORDS_CHANGED[role])
    elif (did := next((DID[i][role] for i in turn.intents if i in DID), None)) is not None:
        thought = rand.choice(did)
    elif "bpm" in turn.context_changed:
        thought = rand.choice(TEMPO_CHANGED)
    else:
        lines = [text for cond, text in FREE[role] if _holds(cond, turn, facts)]
        thought = rand.choice(lines)
    if turn.directive:
        reaction = rand.choice(OBEY if comply else GRUMBLE[role])
    else:
        mates = {m.role for m in turn.others() if m.pattern and m.pattern != "silence"}
        options = [r for r in REACTIONS[role] if not any("{" + k + "}" in r for k in ("drums", "bass", "melody", "fx") if k not in mates)]
        reaction = rand.choice(options or REACTIONS[role][-1:])
    return _sentence(thought.format(**fields)), _sentence(reaction.format(**fields)), comply


def _holds(condition: str, turn: TurnInput, facts: dict[str, object]) -> bool:
    """Whether a free-round line fits what is actually happening."""
    if condition == "always":
        return True
    if condition.startswith("has:"):
        role = condition[4:]
        return any(m.role == role and not m.out and m.pattern not in ("", "silence") for m in turn.others())
    if condition == "other_solo":
        return any(m.solo and not m.out for m in turn.others())
    if condition == "unlocked":
        return not facts.get("locked", False)
    return bool(facts.get(condition, False))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
