"""A band that listens: within the round, over time, to the metre, a solo, double time,
'quieter' — measured on the recorded MIDI or on the patterns' events."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import mido

from bandstand.jam.engine import JamEngine
from bandstand.jam.headless import run_headless
from bandstand.jam.persona import resolve_members
from bandstand.jam.sound import cycle_events, onsets
from tests.jam.helpers import Recorder

KICKS = {35, 36}


def _record(tmp_path: Path, directives: list[str], cycles: int = 16, **kw) -> Path:
    import asyncio

    asyncio.run(run_headless(resolve_members(None), directives=directives, cycles=cycles, out=tmp_path, wav=False,
                             echo=lambda _: None, **kw))
    return tmp_path / "jam.mid"


def _onsets_by_bar(path: Path) -> dict[str, dict[int, set[int]]]:
    """Per member (track name's first word; 'kick' for the drummer's kicks): bar → onset ticks in the bar,
    read by an independent MIDI reader (4/4 bars)."""
    mid = mido.MidiFile(path)
    bar_ticks = 4 * mid.ticks_per_beat
    out: dict[str, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for track in mid.tracks:
        name = next((m.name for m in track if m.type == "track_name"), "").split(" ")[0]
        now = 0
        for message in track:
            now += message.time
            if message.type == "note_on" and message.velocity > 0:
                bar, at = divmod(now, bar_ticks)
                out[name][bar].add(at)
                if message.channel == 9 and message.note in KICKS:
                    out["kick"][bar].add(at)
    return out


def test_the_bass_strikes_the_kicks_the_drummer_plays_in_the_same_bar(tmp_path: Path) -> None:
    heard = _onsets_by_bar(_record(tmp_path, ["4:busier", "8:double time", "12:more energy"]))
    half = mido.MidiFile(tmp_path / "jam.mid").ticks_per_beat * 2
    for bar in range(16):
        kicks = {t for t in heard["kick"][bar] if t < half}  # a calm bass takes the first half's kicks
        assert kicks, bar
        missed = kicks - heard["GROOVE"][bar]
        assert not missed, f"bar {bar}: the bass missed the kicks at ticks {sorted(missed)} (a round late?)"


async def test_a_new_kick_brings_the_bass_along_in_the_same_round() -> None:
    rec = Recorder()
    engine = JamEngine(resolve_members(None), emitter=rec.emitter)
    await engine.start()
    try:
        rec.clear()
        record = await engine.directive("@BEAT busier")
        assert [m["member"] for m in rec.of("agent_thought")] == ["BEAT", "GROOVE"]  # drums first, then the bass
        assert {n for n, m in record.members.items() if m["asked"]} == {"BEAT", "GROOVE"}
        kicks = {Fraction(h.whole.begin) for h in onsets(engine.members["BEAT"].pattern, 1) if h.value.get("s") == "bd"}
        bass = {Fraction(h.whole.begin) for h in onsets(engine.members["GROOVE"].pattern, 1)}
        assert {k for k in kicks if k < Fraction(1, 2)} <= bass
        assert rec.of("agent_thought")[1]["complied_with_boss"] is True  # not addressed: nothing to refuse
    finally:
        await engine.stop()


def _bar_shape(heard: dict[str, dict[int, set[int]]], member: str, bar: int) -> frozenset[int]:
    return frozenset(heard[member][bar])


def test_a_headless_jam_without_directives_evolves(tmp_path: Path) -> None:
    heard = _onsets_by_bar(_record(tmp_path / "on", [], cycles=32))
    rounds = (tmp_path / "on" / "rounds.jsonl").read_text().splitlines()
    assert len(rounds) >= 3  # the autopilot offered rounds every 8 cycles
    changed = [m for m in ("BEAT", "GROOVE", "ARIA", "GLITCH")
               if {_bar_shape(heard, m, b) for b in range(4)} != {_bar_shape(heard, m, b) for b in range(28, 32)}]
    assert len(changed) >= 3, changed
    still = _onsets_by_bar(_record(tmp_path / "off", [], cycles=32, autopilot=False))
    assert len((tmp_path / "off" / "rounds.jsonl").read_text().splitlines()) == 1
    assert all(still[m][0] == still[m][28] for m in ("BEAT", "GROOVE"))


def _events(engine: JamEngine, name: str, cycles: int = 4) -> list:
    """The member's events as they sound: its layer of the composition (with the boss's volume)."""
    code = dict(engine.composition.layers).get(name, "silence")
    return [e for c in range(cycles) for e in cycle_events(name, code, c)]


async def _band(**kw) -> JamEngine:
    engine = JamEngine(resolve_members(None), **kw)
    await engine.start()
    return engine


async def test_three_four_time_re_spells_every_member() -> None:
    engine = await _band()
    try:
        await engine.directive("3/4 time")
        for name, steps in (("BEAT", 12), ("GROOVE", 12), ("ARIA", 12), ("GLITCH", 24)):
            events = _events(engine, name)
            assert events, name
            # every onset sits on the sixteenth grid of a three-beat bar (twelve steps a cycle;
            # the fx's crushed clicks may fall on its 32nds)
            off = [e.begin for e in events if abs(e.begin * steps - round(e.begin * steps)) > 1e-6]
            assert not off, (name, off)
        beat = _events(engine, "BEAT", 1)
        assert any(abs(e.begin * 12 % 4) > 1e-6 for e in beat)  # not a 4/4 groove squeezed: sixteenths of 3/4
        kicks = {round(e.begin * 12) for e in beat if e.sound == "bd"}
        bass = {round(e.begin * 12) for e in _events(engine, "GROOVE", 1)}
        assert {k for k in kicks if k < 6} <= bass  # the bass on the new kick, in this round
    finally:
        await engine.stop()


def _mean_gain(events: list) -> float:
    return sum(e.gain for e in events) / len(events)


async def test_a_solo_makes_the_others_make_room() -> None:
    engine = await _band()
    try:
        before = {n: _events(engine, n) for n in engine.members}
        record = await engine.directive("@ARIA take a solo")
        after = {n: _events(engine, n) for n in engine.members}
        assert all(m["asked"] for m in record.members.values())  # the others were asked to make room
        assert len(after["ARIA"]) > len(before["ARIA"])
        for name in ("BEAT", "GROOVE", "GLITCH"):
            thinner = len(after[name]) < len(before[name])
            quieter = _mean_gain(after[name]) < _mean_gain(before[name])
            assert thinner or quieter, name
            assert _mean_gain(after[name]) <= _mean_gain(before[name]) and len(after[name]) <= len(before[name]), name
    finally:
        await engine.stop()


async def test_double_time_is_a_feel_not_the_kit_sped_up() -> None:
    engine = await _band()
    try:
        before = _events(engine, "BEAT", 1)
        await engine.directive("double time")
        beat = _events(engine, "BEAT", 1)
        assert all(".fast(2)" not in m.pattern for m in engine.members.values())
        assert all(abs(e.begin * 16 - round(e.begin * 16)) < 1e-6 for e in beat)  # nothing on 32nds
        count = {s: sum(e.sound == s for e in beat) for s in ("bd", "sd", "hh")}
        was = {s: sum(e.sound == s for e in before) for s in ("bd", "sd", "hh")}
        assert count["hh"] >= 2 * was["hh"] - 1 and count["sd"] >= 2 * was["sd"]
        assert count["bd"] <= 16 // 2  # a double-time kick figure, not a roll
        bass = engine.members["GROOVE"].pattern
        for bar in range(4):  # the harmony still moves one chord a bar
            pitches = {round(e.note) % 12 for e in cycle_events("GROOVE", bass, bar) if e.note is not None}
            assert [0, 8, 3, 10][bar] in pitches and len(pitches) <= 2
    finally:
        await engine.stop()


async def test_everyone_quieter_is_quieter_than_before() -> None:
    engine = await _band()
    try:
        await engine.directive("@ARIA take a solo")
        before = {n: _mean_gain(_events(engine, n)) for n in engine.members}
        await engine.directive("everyone quieter")
        after = {n: _mean_gain(_events(engine, n)) for n in engine.members}
        assert all(after[n] < before[n] for n in engine.members), (before, after)
    finally:
        await engine.stop()


async def test_quieter_at_the_lowest_energy_is_still_quieter() -> None:
    engine = await _band()
    try:
        await engine.directive("energy 1")
        before = {n: _mean_gain(_events(engine, n)) for n in engine.members if _events(engine, n)}
        await engine.directive("everyone quieter")
        assert engine.context.energy == 1
        after = {n: _mean_gain(_events(engine, n)) for n in before}
        assert all(after[n] < before[n] for n in before), (before, after)
        await engine.directive("@GROOVE louder")
        assert _mean_gain(_events(engine, "GROOVE")) > after["GROOVE"]
    finally:
        await engine.stop()


async def test_half_time_keeps_the_chords_one_a_bar() -> None:
    engine = await _band()
    try:
        await engine.directive("half time")
        assert all(".slow(2)" not in m.pattern for m in engine.members.values())
        for name in ("GROOVE", "ARIA"):
            code = engine.members[name].pattern
            for bar, chord in enumerate(([0, 3, 7], [8, 0, 3], [3, 7, 10], [10, 2, 5])):  # Cm Ab Eb Bb
                pitches = {round(e.note) % 12 for e in cycle_events(name, code, bar) if e.note is not None}
                assert pitches and (name != "GROOVE" or pitches <= set(chord)), (name, bar, pitches)
    finally:
        await engine.stop()


async def test_the_musicians_hear_each_other_through_their_engines_patterns() -> None:
    from bandstand.jam.sound import PatternBook

    engine = await _band()
    other = await _band()
    try:
        books = {m.session.backend.responder.__self__.book for m in engine.members.values()}
        assert books == {engine.patterns} and isinstance(engine.patterns, PatternBook)
        assert engine.patterns is not other.patterns  # no two jams share a cache
        drums = engine.members["BEAT"].pattern
        assert engine.patterns.heard.get(drums) is not None  # the bass heard what validation played
    finally:
        await engine.stop()
        await other.stop()
