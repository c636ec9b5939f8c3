"""The built-in musicians' lines, by situation and role.

Every table is keyed by role and no two roles share a line, so the members of
a band never say the same words in a round. Lines name only what the member
plays (the facts its craft reports: kicks, notes, blips) and what it heard;
a member that plays silence has lines about sitting out, never promises.
"""

from __future__ import annotations

ROLES = ("drums", "bass", "melody", "fx")

OPENERS: dict[str, tuple[str, ...]] = {
    "drums": ("Counting us in — {key}, {bpm} BPM. {catch}.", "Setting the pocket at {bpm}. Kick and snare first, {catch}.", "Two bars of groove and we're home. {catch}."),
    "bass": ("Roots under {chords}, on {drums}'s kick. {catch}.", "Laying down {chords}, one per bar. {catch}.", "I'll keep it simple on {chords}. {catch}."),
    "melody": ("A small motif in {key} to start. {catch}.", "Opening with a phrase on the chord tones of {chords}. {catch}.", "{notes} notes, then space. {catch}."),
    "fx": ("A few crushed blips through the delay. {catch}.", "Sprinkling {key} dust on top. {catch}.", "Texture only, nothing you'll hum. {catch}."),
}
# free-round thoughts: (condition, line); a line is said only when its condition holds
# (what changed is measured against the member's last pattern: `changes`)
FREE: dict[str, tuple[tuple[str, str], ...]] = {
    "drums": (
        ("ghosts", "{kicks} kicks a bar now, ghost notes in the cracks."),
        ("kick_moved&has:bass", "Moved the kick — hear how {bass} chases it?"),
        ("more", "Same pocket, a touch more going on. {catch}."),
        ("same", "Not touching a thing. {catch}."),
        ("always", "Keeping the pocket. {catch}."),
        ("always", "Hats a little looser this time round."),
        ("always", "Leaning on the backbeat; the two and four carry it."),
        ("has:melody", "Holding the groove steady under {melody}."),
        ("ironic", "Four on the floor. Ironically, of course."),
        ("other_solo", "Thinned out the kit so {soloist} can fly."),
        ("fresh", "New groove: {kicks} kicks a bar, a different fill."),
    ),
    "bass": (
        ("locked", "Locked to {drums}'s kick — {notes} hits a bar."),
        ("same", "Not adding anything; the groove is already there. {catch}."),
        ("always", "Holding the low end down. {catch}."),
        ("always", "Walking between the roots, nothing fancy."),
        ("always", "Sitting a hair behind the beat down here."),
        ("has:melody", "Following the changes and leaving room for {melody}."),
        ("unlocked", "Roots on the one, whole bars. {catch}."),
        ("answers", "A fifth on the off-beat to answer the kick."),
        ("other_solo", "Staying low and simple while {soloist} solos."),
    ),
    "melody": (
        ("changed", "Varied the answer phrase; the motif stays."),
        ("always", "Singing over the changes. {catch}."),
        ("always", "Letting the last note of the phrase hang."),
        ("always", "Answering myself an octave up, softly."),
        ("fx_busy", "{fx} is busy, so I'm leaving more air."),
        ("has:bass", "Let the phrase answer {bass}'s move to the next chord."),
        ("changed", "Same motif, a different last note. {catch}."),
        ("same", "The motif as it was; it's working. {catch}."),
        ("other_solo", "Laying back while {soloist} takes the spotlight."),
        ("fresh", "A new motif — {notes} notes in its first bar."),
    ),
    "fx": (
        ("changed", "Moved the blips; the delay does the rest."),
        ("crunchier&has:drums", "Crunchier this time — {drums} can take it."),
        ("changed&has:melody", "Panned the glitches around {melody}'s phrase."),
        ("fewer", "Fewer sounds, longer tails. {catch}."),
        ("same", "Leaving the texture alone. {catch}."),
        ("always", "Colouring the edges. {catch}."),
        ("always", "A little grit in the gaps between the hits."),
        ("always", "Feeding the delay, letting it talk back."),
        ("other_solo", "Only a few blips now; {soloist} has the floor."),
    ),
}
# what a member says about the directive it just followed (first matching intent), by role
DID: dict[str, dict[str, tuple[str, ...]]] = {
    "double_time": {
        "drums": ("Double-time feel: snare on every 'and', hats in sixteenths.", "Double time. Hats are flying, the kick stays on the grid."),
        "bass": ("Following the double-time kick, {notes} hits a bar.",),
        "melody": ("The motif runs twice a bar now, same chords underneath.",),
        "fx": ("Twice the blips, half the patience.",),
    },
    "half_time": {
        "drums": ("Half time: snare on three, lots of air.", "Dropped into half time. Heavy."),
        "bass": ("First half of the bar only — long notes.",),
        "melody": ("Stretched the motif over the whole bar.",),
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
    "straight": {
        "drums": ("Straight sixteenths again on the hats.",),
        "bass": ("No more swing down here — square and steady.",),
        "melody": ("Phrasing it straight now.",),
        "fx": ("The delays tick straight again.",),
    },
    "come_back": {
        "drums": ("Back behind the kit. Did you miss me?",),
        "bass": ("Rejoining on the low end.",),
        "melody": ("Back in with the motif.",),
        "fx": ("The blips are back.",),
    },
    "solo": {
        "drums": ("Taking a drum break — the kit is all mine.",),
        "bass": ("Bass solo. Up the neck for once.",),
        "melody": ("My turn to speak! Up an octave, more notes.", "Solo time. Stay with me, {drums}."),
        "fx": ("A noise solo. You asked for it.",),
    },
}
SOLO_DONE: dict[str, tuple[str, ...]] = {
    "drums": ("That's my break. Back in the pocket.", "Solo's done — kick and snare where you left them."),
    "bass": ("Back down the neck; roots on the one again.", "Bass solo over. Holding the low end again."),
    "melody": ("That was my say. Back to the motif.", "Solo over — the motif again, an octave down."),
    "fx": ("Noise solo over. Back to colouring the edges.", "That's enough chaos. Texture only again."),
}
CHORDS_CHANGED: dict[str, tuple[str, ...]] = {
    "drums": ("New changes, {chords}. The groove stays, the fill still lands on the turnaround.",),
    "bass": ("New roots under {chords}, voiced smooth.", "Following the new changes: {chords}."),
    "melody": ("Re-aimed the motif at the new chord tones of {chords}.", "{chords} — the phrase now starts on each new root."),
    "fx": ("New changes? My blips follow the key anyway.", "{chords}. Same scale, new colours."),
}
METRE_CHANGED: dict[str, tuple[str, ...]] = {
    "drums": ("{metre} now: the kit counts {beats} to a bar.",),
    "bass": ("Re-spelled the line for {metre}, still on the kick.",),
    "melody": ("The motif fits {beats} beats a bar now.",),
    "fx": ("Blips re-placed for {metre}.",),
}
TEMPO_CHANGED: dict[str, tuple[str, ...]] = {
    "drums": ("{bpm} BPM now. Settling the pocket into it.",),
    "bass": ("Tempo's {bpm}. Same line, new pace.",),
    "melody": ("At {bpm} the phrase breathes differently.",),
    "fx": ("{bpm} BPM — the delays follow the clock.",),
}
ENERGY_CHANGED: dict[str, dict[str, tuple[str, ...]]] = {
    "up": {
        "drums": ("Energy {energy}/10: harder hits, more kicks.",),
        "bass": ("Pushing a bit more at energy {energy}.",),
        "melody": ("Brighter and louder at energy {energy}.",),
        "fx": ("Energy {energy}? More crunch, then.",),
    },
    "down": {
        "drums": ("Pulled it down to energy {energy}: softer, fewer kicks.",),
        "bass": ("Quieter and lower at energy {energy}.",),
        "melody": ("Softer phrase at energy {energy}.",),
        "fx": ("Turned the noise down for energy {energy}.",),
    },
}
KEY_CHANGE: dict[str, tuple[str, ...]] = {
    "drums": ("{key} — the drums don't care, but I reset the groove.",),
    "bass": ("New key, {key}. Rewrote my roots around {chords}.",),
    "melody": ("Moving to {key} — the motif re-spelled: {scale}.",),
    "fx": ("{key} it is. Fresh colours, same chaos.",),
}
OBEY: dict[str, tuple[str, ...]] = {
    "drums": ("You got it, boss: {ask}.", "{ask}? Kit's ready."),
    "bass": ("{ask} — on it, under the kick.", "Heard you: {ask}."),
    "melody": ("Sure thing — {ask}, from the next bar.", "{ask}, coming right up."),
    "fx": ("{ask}. The machines obey.", "Okay, {ask}. Turning knobs."),
}
GRUMBLE: dict[str, tuple[str, ...]] = {
    "drums": ("'{ask}'? Fine. My way, though. {catch}.", "I'll do {ask}, but the groove decides how. {catch}.", "Corny. I'll play {ask}, but it'll still groove."),
    "bass": ("Hmm, {ask}… I'll do it, but less is more.", "Okay, {ask}, without stepping on {drums}."),
    "melody": ("{ask}? I'd rather develop the motif, but all right.", "I'll give you {ask}, phrased properly."),
    "fx": ("{ask}? I'll break it my own way.", "Boss wants {ask}. The delay has opinions.", "Sure, {ask} — with extra crunch."),
}
PUZZLED: dict[str, tuple[str, ...]] = {
    "drums": ("No idea what that means for a drummer, boss — the groove stays as it is.",),
    "bass": ("I didn't catch a musical idea in that — keeping the roots where they are.",),
    "melody": ("I can't hear a melody in those words — same motif for now.",),
    "fx": ("Cryptic. I like cryptic, but I'm not changing anything for it.",),
}
PUZZLED_REACT: dict[str, tuple[str, ...]] = {
    "drums": ("Tempo, feel, energy — tell me one of those.",),
    "bass": ("Say 'simpler', 'busier' or a key, and I'm there.",),
    "melody": ("Give me a mood, a key or 'take a solo'.",),
    "fx": ("Try 'busier', 'simpler' or 'drop out'.",),
}
OUT: dict[str, tuple[str, ...]] = {
    "drums": ("Laying out for a bit. {catch}.", "Sticks down — the band has it."),
    "bass": ("Dropping out. Silence is part of the music.", "Taking the bass out for a while."),
    "melody": ("Resting the motif for a few bars.",),
    "fx": ("Unplugged. Enjoy the quiet.",),
}
STILL_OUT: dict[str, tuple[str, ...]] = {
    "drums": ("Still sitting this one out — say 'come back' when you need me.",),
    "bass": ("Listening from the side for now.",),
    "melody": ("Still resting — call me back when you want the motif.",),
    "fx": ("Still unplugged.",),
}
OUT_REACT: dict[str, tuple[str, ...]] = {
    "drums": ("I'm out — say 'come back' first.",),
    "bass": ("Nothing from me while I'm out.",),
    "melody": ("I'm resting; bring me back in first.",),
    "fx": ("My cables are out. Ask me back in.",),
}
BOSS_CODE: dict[str, tuple[str, ...]] = {
    "drums": ("Playing the beat you wrote, boss. It grooves.",),
    "bass": ("Your line, boss — I'll hold it.",),
    "melody": ("Playing your version of my part.",),
    "fx": ("You patched my rack yourself. Respect.",),
}
REACTIONS: dict[str, tuple[str, ...]] = {
    "drums": ("{bass}, you're sitting right on my kick. Nice.", "{melody}, that motif leaves me room. Respect.", "{fx}, keep those blips off my snare.", "Boss, {catch_lower}."),
    "bass": ("{drums}'s kick is the anchor. I'm with it.", "Lovely phrase, {melody}.", "{fx}, those tails are cool, I'll stay low.", "All good down here."),
    "melody": ("{drums}, that fill sets up my answer nicely.", "{bass} gives me a clear floor.", "{fx}, maybe fewer blips while I phrase?", "I like where this is going."),
    "fx": ("{drums} is too tidy. I'll mess it up a little.", "{melody}'s motif, delayed, sounds like a ghost.", "{bass} is rock solid. Boring. Perfect.", "Chaos, but polite chaos."),
}
ASKS = {
    "simpler": "simpler", "busier": "busier", "double_time": "double time", "half_time": "half time",
    "swing": "swing", "straight": "straight", "drop_out": "drop out", "come_back": "come back", "solo": "a solo",
}
