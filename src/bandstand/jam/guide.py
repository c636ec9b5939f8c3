"""The pattern cheat sheet LLM members get after their persona: enough of the
language to write valid parts (every example here is validated by a test)."""

from __future__ import annotations

EXAMPLES: dict[str, str] = {
    "drums": 'stack(s("bd ~ ~ bd ~ ~ bd ~").gain(0.9), s("~ sd ~ sd"), s("hh*8").gain("0.6 0.3"))',
    "bass": 'note("<c2 ab1 eb2 bb1>").struct("x ~ ~ x ~ ~ x ~").s("sawtooth").lpf(600)',
    "melody": 'n("<[0 2 ~ 4] [~ 3 2 ~]>").scale("C4:minor").s("triangle").room(0.3)',
    "fx": 'n("<[~ ~ 7 ~] ~>").scale("C6:minor").s("square").crush(6).delay(0.5).gain(0.3)',
}

GUIDE = """PATTERN LANGUAGE (Strudel). One cycle is one bar.
Mini-notation inside double quotes: "a b c d" spreads events over the bar, "~" is a rest,
"[a b]" squeezes into one step, "<a b c d>" plays one per bar (a progression), "a*4" repeats,
"a, b" plays layers together, "a(3,8)" is a euclidean rhythm.
Functions: s("…") sounds, note("c2 eb2") pitches, n("0 2 4").scale("C4:minor") scale degrees,
stack(a, b, …), .fast(2), .slow(2), .struct("x ~ x ~"), .gain(0.8), .lpf(800), .room(0.3),
.delay(0.5), .crush(6), .pan(0.3), .swingBy(1/3, 4); "silence" takes a break.
Sounds: drums bd sd hh oh cp rim lt mt ht cr rd cb; synths sine triangle square sawtooth;
instruments piano epiano organ pad strings lead supersaw bass synthbass bell marimba.
Keep every pitched note in the scale of the turn and follow the chords bar by bar.
Examples:
""" + "\n".join(f"  {role}: {code}" for role, code in EXAMPLES.items())
