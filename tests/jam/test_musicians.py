"""The built-in musicians play idiomatically, listen, evolve and obey."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bandstand.jam._harmony import pitch_class
from bandstand.jam.context import MusicalContext
from bandstand.jam.musicians import Musician
from bandstand.jam.persona import builtin_personas
from bandstand.jam.turn import BandMate, Style, TurnInput
from bandstand.patterns import evaluate, validate_pattern
from bandstand.patterns.to_score import value_pitch
from tests.jam.helpers import pitch_classes

P = builtin_personas()
KEYS = [("c", "minor"), ("d", "major"), ("f#", "minor"), ("eb", "dorian"), ("a", "mixolydian"), ("bb", "major")]


def turn(name: str, ctx: MusicalContext | None = None, *, round_: int = 1, band: list[BandMate] | None = None,
         style: Style | None = None, directive: str | None = None, **kw) -> TurnInput:
    return TurnInput(round=round_, member=name, role=P[name].role, context=ctx or MusicalContext(), band=band or [],
                     style=style or Style(), directive=directive, **kw)


def play(name: str, *args, seed: int = 0, **kw):
    return Musician(P[name], seed).play(turn(name, *args, **kw))


def onsets(code: str, cycle: int = 0) -> int:
    return sum(1 for h in evaluate(code).query_arc(cycle, cycle + 1) if h.has_onset())


def test_the_bass_follows_the_progression_bar_by_bar_in_its_register() -> None:
    assert play("GROOVE", MusicalContext(energy=2)).pattern.startswith('note("<c2 ab1 eb2 bb1>")')
    code = play("GROOVE", MusicalContext(tonic="d", mode="major", chords=["D", "Bm", "G", "A"], energy=2)).pattern
    for bar, root in enumerate([2, 11, 7, 9]):
        notes = {round(value_pitch(h.value)) for h in evaluate(code).query_arc(bar, bar + 1)}
        assert {n % 12 for n in notes} == {root} and all(24 <= n <= 48 for n in notes)


def test_the_bass_locks_to_the_kick() -> None:
    drums = BandMate(name="BEAT", emoji="🥁", role="drums", pattern='s("bd ~ ~ ~ ~ ~ ~ ~ ~ ~ bd ~ ~ ~ ~ ~, ~ sd")')
    code = play("GROOVE", MusicalContext(energy=6), band=[drums]).pattern
    starts = sorted({h.whole.begin % 1 for h in evaluate(code).query_arc(0, 1) if h.has_onset()})
    assert [float(s) for s in starts] == [0.0, 10 / 16]


def test_the_melody_uses_scale_degrees_leaves_space_and_thins_out_for_busy_fx() -> None:
    code = play("ARIA").pattern
    assert code.startswith('n("<') and '.scale("C4:minor")' in code and "~" in code
    busy_fx = BandMate(name="GLITCH", emoji="🎛️", role="fx", pattern='s("hh*16")')
    calm, crowded = play("ARIA", MusicalContext(energy=8)).pattern, play("ARIA", MusicalContext(energy=8), band=[busy_fx]).pattern
    assert onsets(crowded) < onsets(calm)


def test_drums_groove_with_a_fill_on_the_last_bar_and_follow_energy() -> None:
    code = play("BEAT").pattern
    sounds = [{h.value["s"] for h in evaluate(code).query_arc(bar, bar + 1)} for bar in range(4)]
    assert {"bd", "sd", "hh"} <= sounds[0] and not sounds[0] & {"lt", "mt", "ht"}
    assert sounds[3] & {"lt", "mt", "ht"} or sounds[3] == sounds[0] | {"sd"}
    assert onsets(play("BEAT", MusicalContext(energy=9)).pattern) > onsets(play("BEAT", MusicalContext(energy=2)).pattern)
    gains = [[h.value.get("gain", 1) for h in evaluate(play("BEAT", MusicalContext(energy=e)).pattern).query_arc(0, 1) if h.value["s"] == "bd"] for e in (2, 9)]
    assert max(gains[0]) < max(gains[1])


def test_fx_is_sparse() -> None:
    for energy in (1, 5, 10):
        code = play("GLITCH", MusicalContext(energy=energy)).pattern
        assert sum(onsets(code, c) for c in range(4)) / 4 <= 8


def test_directives_shape_the_pattern_whatever_the_words() -> None:
    assert play("BEAT", style=Style(out=True)).pattern == "silence"
    assert ".fast(2)" not in play("BEAT", style=Style(time=2)).pattern  # a feel, not the kit sped up
    assert ".swingBy(1/3, 4)" in play("GROOVE", style=Style(swing=True)).pattern
    simple, busy = play("BEAT", style=Style(density=-2)).pattern, play("BEAT", style=Style(density=2)).pattern
    assert onsets(simple) < onsets(busy)
    solo = play("ARIA", style=Style(solo=True)).pattern
    assert '"C5:minor"' in solo and onsets(solo) > onsets(play("ARIA").pattern)


def test_a_stubborn_drummer_may_grumble_but_complies_when_it_plays_the_energy() -> None:
    ctx_low, ctx_high = MusicalContext(energy=5), MusicalContext(energy=7)
    replies = [Musician(P["BEAT"], seed).play(turn("BEAT", ctx_high, directive="more energy", energy_delta=2, last_pattern="x"))
               for seed in range(30)]
    grumbles = [r for r in replies if r.reaction.startswith(("'", "I'll do", "Corny"))]
    assert 10 <= len(grumbles) <= 25  # 70% stubborn, scaled: about half the time
    # words match deeds: it played the energy, so it complied, grumbling or not
    assert all(r.comply_with_boss for r in replies)
    assert all(onsets(r.pattern) >= onsets(play("BEAT", ctx_low).pattern) for r in grumbles)


def test_words_are_in_character_varied_and_refer_to_the_others_and_the_boss() -> None:
    band = [BandMate(name=n, emoji=p.emoji, role=p.role, pattern='s("bd")') for n, p in P.items() if n != "GROOVE"]
    lines = {Musician(P["GROOVE"], 0).play(turn("GROOVE", round_=r, band=band, last_pattern="x")).thoughts for r in range(2, 12)}
    assert len(lines) >= 3
    words = " ".join(lines)
    assert "BEAT" in words or "ARIA" in words
    reply = Musician(P["ARIA"], 1).play(turn("ARIA", directive="take a solo", intents=["solo"], style=Style(solo=True), last_pattern="x"))
    assert "solo" in reply.reaction.lower() or "solo" in reply.thoughts.lower()


def test_the_same_seed_and_turn_give_the_same_reply() -> None:
    assert play("ARIA", seed=3) == play("ARIA", seed=3)
    assert play("BEAT", seed=3, round_=5) == play("BEAT", seed=3, round_=5)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(P)),
    st.sampled_from(KEYS),
    st.integers(1, 10),
    st.integers(1, 8),
    st.builds(Style, density=st.integers(-2, 2), time=st.sampled_from([0.5, 1.0, 2.0]), swing=st.booleans(), solo=st.booleans()),
    st.sampled_from([(4, 4), (3, 4), (7, 8), (5, 4), (12, 8), (15, 4), (2, 4)]),
)
# a long bar in half time at full tilt: 65 events in a cycle before `thin` capped half time at 64
@example("BEAT", ("c", "minor"), 9, 1, Style(density=0, time=0.5, swing=False, solo=False), (15, 4))
# a long busy bar swung on every beat: `swingBy(1/3, 15)` over eight drum layers passed the query budget
@example("BEAT", ("d", "major"), 2, 1, Style(density=2, time=1.0, swing=True, solo=True), (15, 4))
def test_every_pattern_is_valid_and_entirely_in_the_scale(name, key, energy, round_, style, metre) -> None:
    chords = {"minor": ["{}m"], "major": ["{}"], "dorian": ["{}m"], "mixolydian": ["{}"]}
    tonic, mode = key
    ctx = MusicalContext(tonic=tonic, mode=mode, chords=[chords[mode][0].format(tonic.upper() if len(tonic) == 1 else tonic[0].upper() + tonic[1:])], energy=energy)
    from bandstand.jam.context import reharmonize

    ctx = ctx.model_copy(update={
        "chords": reharmonize([0, 5, 2, 6], ctx.scale),
        "beats_per_bar": metre[0], "beat_unit": metre[1],
    })
    code = play(name, ctx, round_=round_, style=style).pattern
    report = validate_pattern(code, scale=[pitch_class(n) for n in ctx.scale])
    assert report.valid, (code, report.error, report.warnings)
    assert pitch_classes(code) <= {pitch_class(n) for n in ctx.scale}


def test_words_fit_what_is_happening() -> None:
    drums = BandMate(name="BEAT", emoji="🥁", role="drums", pattern='s("bd ~ sd ~")')
    alone = [Musician(P["ARIA"], s).play(turn("ARIA", round_=3, band=[drums], last_pattern="x")).thoughts for s in range(25)]
    assert not any("GLITCH" in t or "busy" in t for t in alone)
    changed = Musician(P["GROOVE"], 0).play(turn("GROOVE", round_=3, last_pattern="x", directive="chords Fm Db",
                                                 context_changed=["chords"]))
    assert "Cm Ab Eb Bb" in changed.thoughts  # the context of this turn
    out = Musician(P["GLITCH"], 0).play(turn("GLITCH", round_=4, style=Style(out=True), last_pattern="silence"))
    assert out.pattern == "silence" and out.thoughts.startswith("Still")


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([4.0, 3.0, 3.5, 2.5]),
    st.lists(st.tuples(st.integers(0, 63), st.sampled_from([36, 38, 42, 60, 64]), st.integers(30, 127)), max_size=40),
    st.booleans(),
)
def test_double_feel_stays_on_the_sixteenth_grid_inside_each_bar(bpb: float, notes, is_drum: bool) -> None:
    from bandstand.craft import NoteEvent, Phrase
    from bandstand.craft.phrase import Feel
    from bandstand.jam.musicians._adapt import double_feel

    steps = int(bpb * 4)
    events = sorted({NoteEvent((bar_step % steps) / 4 + (bar_step // steps % 4) * bpb, 0.25, p, v)
                     for bar_step, p, v in notes})
    phrase = Phrase("drums" if is_drum else "lead", tuple(events), beats_per_bar=bpb, bars=4, is_drum=is_drum,
                    feel=Feel(time_feel=(2.0,) * 4))
    doubled = double_feel(phrase)
    assert doubled.feel.time_feel == ()
    for e in doubled.events:
        assert abs(e.start * 4 - round(e.start * 4)) < 1e-9  # no 32nds
    for bar in range(4):
        source = [e for e in events if bar * bpb <= e.start < (bar + 1) * bpb]
        played = [e for e in doubled.events if bar * bpb <= e.start < (bar + 1) * bpb]
        assert len(played) <= 2 * len(source)
        assert {e.pitch for e in played} <= {e.pitch for e in source}
        if not is_drum:  # a pitched note is moved, never dropped: each sounds in the first half
            assert {e.pitch for e in played} == {e.pitch for e in source}
    assert len(doubled.events) == len({(round(e.start, 6), e.pitch) for e in doubled.events})
