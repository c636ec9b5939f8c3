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
FREE: dict[str, tuple[str, ...]] = {
    "drums": ("{kicks} kicks a bar now, ghost notes in the cracks.", "Nudged one kick late — hear how {bass} chases it?", "Same pocket, a touch more hat. {catch}.", "Holding the groove steady under {melody}."),
    "bass": ("Locked to {drums}'s kick — {notes} hits a bar.", "Not adding anything; the groove is already there. {catch}.", "Following {drums} and leaving room for {melody}.", "Roots on the one. {catch}."),
    "melody": ("Varied the answer phrase; the motif stays.", "{fx} is busy, so I'm leaving more air.", "Let the phrase answer {bass}'s move to the next chord.", "Same motif, a step higher the second time. {catch}."),
    "fx": ("Moved the blips; the delay does the rest.", "Crunchier this time — {drums} can take it.", "Panned the glitches around {melody}'s phrase.", "Fewer sounds, longer tails. {catch}."),
}
OBEY: tuple[str, ...] = (
    "You got it, boss: {ask}.",
    "{ask} — on it.",
    "Sure thing — {ask}, coming up at the next bar.",
    "Heard you: {ask}.",
)
GRUMBLE: dict[str, tuple[str, ...]] = {
    "drums": ("'{ask}'? Fine. My way, though. {catch}.", "I'll do {ask}, but the groove decides how. {catch}.", "Corny, but I'll make {ask} swing."),
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
        "ask": _ask(turn),
        **{k: v for k, v in facts.items() if isinstance(v, int | str)},
    }
    comply = True
    if turn.directive:
        comply = rand.random() * 100 >= persona.stubbornness * 0.8
    if turn.style.out:
        thought = rand.choice(OUT)
    elif turn.key_changed:
        thought = rand.choice(KEY_CHANGE)
    elif turn.style.solo and "solo" in turn.intents:
        thought = rand.choice(SOLO)
    elif turn.last_pattern is None:
        thought = rand.choice(OPENERS[role])
    else:
        thought = rand.choice(FREE[role])
    if turn.directive:
        reaction = rand.choice(OBEY if comply else GRUMBLE[role])
    else:
        mates = {m.role for m in turn.others() if m.pattern and m.pattern != "silence"}
        options = [r for r in REACTIONS[role] if not any("{" + k + "}" in r for k in ("drums", "bass", "melody", "fx") if k not in mates)]
        reaction = rand.choice(options or REACTIONS[role][-1:])
    return _sentence(thought.format(**fields)), _sentence(reaction.format(**fields)), comply


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
