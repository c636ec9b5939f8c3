"""Stage 4 — parts: each generator against the musical facts it promises
(drum families, fills, density following energy, bass locked to kick and
harmony, walking lines, 808 glides, comping with pedal, motif-built leads,
pad swells, humanization and swing), determinism, extra roles."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from statistics import fmean

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandstand.compose.harmony import build_harmony
from bandstand.compose.lexicon import DRUM_FAMILIES, GENRES
from bandstand.compose.parts import ROLES, build_situation, generate_part
from bandstand.craft.groove import swing_time
from bandstand.craft.kit import (
    CLAP,
    CLOSED_HAT,
    CRASH,
    KICK,
    OPEN_HAT,
    PEDAL_HAT,
    RIDE,
    SNARE,
)
from bandstand.errors import InvalidInput

from .musicfix import make_arrangement, make_intent


def _song(genre: str, seed: int = 1, **kw):
    intent = make_intent(genre, **kw)
    harmony = build_harmony(intent, seed)
    arrangement = make_arrangement([c.bars for c in harmony.chords])
    return intent, harmony, arrangement


def _part(role: str, genre: str, seed: int = 5, **kw):
    intent, harmony, arrangement = _song(genre, **kw)
    return generate_part(role, intent, harmony, arrangement, seed), intent, harmony, arrangement


def _bar_steps(notes, bar: int, pitch: int, tol: float = 0.06) -> set[int]:
    """Sixteenth steps (0..15) of `pitch` hits in 0-based `bar`, when close to the grid."""
    out = set()
    for n in notes:
        if n.pitch == pitch and bar * 4 - tol <= n.start < bar * 4 + 4 - tol:
            pos = (n.start - bar * 4) * 4
            if abs(pos - round(pos)) * 0.25 <= tol:
                out.add(round(pos) % 16)
    return out


CHORUS = range(12, 19)  # 0-based bars of the first chorus in the test form (energy 0.9), fill bar excluded
VERSE = range(4, 11)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("genre", ["trap", "house", "jazz", "neo-soul", "rock", "afrobeat", "bossa nova",
                                   "drum & bass", "reggae", "reggaeton", "uk garage", "ambient", "funk"])
def test_every_role_generates_valid_deterministic_parts(role, genre):
    intent, harmony, arrangement = _song(genre)
    a = generate_part(role, intent, harmony, arrangement, 11)
    b = generate_part(role, intent, harmony, arrangement, 11)
    assert a.track.notes == b.track.notes and a.track.controls == b.track.controls
    assert a.track.pitch_bends == b.track.pitch_bends
    assert a.track.notes, (role, genre)
    assert a.stats.role == role and a.stats.note_count == len(a.track.notes)
    assert a.track.is_drum == (role in ("drums", "percussion", "texture"))
    end = arrangement.total_bars * 4
    assert all(0 <= n.start < end + 0.1 for n in a.track.notes)
    if not a.track.is_drum:  # no key struck again while still held
        by_pitch: dict[int, list] = {}
        for n in a.track.notes:
            by_pitch.setdefault(n.pitch, []).append(n)
        for notes in by_pitch.values():
            notes.sort(key=lambda n: n.start)
            assert all(x.end <= y.start + 1e-9 for x, y in pairwise(notes)), role
    c = generate_part(role, intent, harmony, arrangement, 12)
    assert c.track.notes != a.track.notes  # the seed matters (humanization at least)


def test_unknown_role_is_refused():
    intent, harmony, arrangement = _song("pop")
    with pytest.raises(InvalidInput, match="unknown part role"):
        generate_part("kazoo", intent, harmony, arrangement, 1)


def test_parts_play_only_in_their_sections():
    intent, harmony, arrangement = _song("pop")
    lead = generate_part("lead", intent, harmony, arrangement, 3).track
    assert all(12 * 4 - 0.1 <= n.start < 20 * 4 or 24 * 4 - 0.1 <= n.start < 32 * 4 for n in lead.notes)
    pad = generate_part("pad", intent, harmony, arrangement, 3).track
    assert any(n.start < 16 for n in pad.notes)  # the intro has the pad


# --------------------------------------------------------------------------- drums


def test_four_on_the_floor_with_open_hats_and_claps():
    part, *_ = _part("drums", "house")
    notes = part.track.notes
    for bar in CHORUS:
        assert _bar_steps(notes, bar, KICK) >= {0, 4, 8, 12}
        assert {4, 12} <= _bar_steps(notes, bar, CLAP)
    assert {2, 6, 10, 14} <= _bar_steps(notes, 13, OPEN_HAT, tol=0.08)


def test_trap_half_time_snare_hat_rolls_and_sparse_kick():
    part, *_ = _part("drums", "trap")
    notes = part.track.notes
    assert all(_bar_steps(notes, b, CLAP) == {8} for b in CHORUS)  # backbeat on 3 (half-time)
    hats = sorted(n.start for n in notes if n.pitch == CLOSED_HAT)
    gaps = [b - a for a, b in pairwise(hats)]
    assert sum(1 for g in gaps if g < 0.2) >= 20, "hi-hat rolls (16th triplets / 32nds)"
    assert max(len(_bar_steps(notes, b, KICK)) for b in CHORUS) <= 4


def test_jazz_ride_pedal_hat_feathered_kick_and_comping_snare():
    part, *_ = _part("drums", "jazz")
    notes = part.track.notes
    verse = [n for n in notes if 16 <= n.start < 48]
    assert Counter(n.pitch for n in verse).most_common(1)[0][0] == RIDE
    assert all({4, 12} <= _bar_steps(notes, b, PEDAL_HAT, tol=0.1) for b in VERSE)
    kicks = [n for n in verse if n.pitch == KICK]
    assert kicks and fmean(n.velocity for n in kicks) < 60  # feathered
    snares = [n for n in verse if n.pitch == SNARE]
    assert snares and len({round(n.start % 4, 1) for n in snares}) >= 3  # comping, not a fixed backbeat
    assert part.stats.swing >= 0.2  # swung eighths from the genre


def test_dembow_and_rock_backbeat_and_boom_bap_patterns():
    dembow, *_ = _part("drums", "reggaeton")
    assert _bar_steps(dembow.track.notes, 13, SNARE) >= {3, 6, 11, 14}
    assert _bar_steps(dembow.track.notes, 13, KICK) >= {0, 4, 8, 12}
    rock, *_ = _part("drums", "rock")
    for b in VERSE:
        assert {4, 12} <= _bar_steps(rock.track.notes, b, SNARE, tol=0.1)
        assert 0 in _bar_steps(rock.track.notes, b, KICK, tol=0.1)


def test_fills_into_section_changes_and_crash_on_arrival():
    part, _, _, arrangement = _part("drums", "rock")
    notes = part.track.notes
    toms = {45, 47, 48, 50}
    verse_end = arrangement.sections[1].end_bar  # 1-based last bar of the verse
    last_beat = [n for n in notes if (verse_end - 1) * 4 + 2 <= n.start < verse_end * 4]
    assert any(n.pitch in toms for n in last_beat), "tom fill before the chorus"
    chorus_start = arrangement.sections[2].start_bar
    assert any(n.pitch == CRASH and abs(n.start - (chorus_start - 1) * 4) < 0.1 for n in notes)
    middle = [n for n in notes if 6 * 4 <= n.start < 7 * 4]
    assert not any(n.pitch in toms for n in middle)


def test_density_follows_energy_in_every_drum_family():
    one_per_family = {g.drum_family: g.name for g in reversed(GENRES)}
    assert set(DRUM_FAMILIES) - set(one_per_family) <= {"garage_halftime"}  # a half-time feel: by tempo
    for fam, genre in one_per_family.items():
        part, intent, *_ = _part("drums", genre)
        bpb = intent.time_signature[0] * 4 / intent.time_signature[1]
        per_bar = Counter(int((n.start + 0.05) // bpb) for n in part.track.notes)
        verse = fmean(per_bar[b] for b in range(4, 11))
        chorus = fmean(per_bar[b] for b in range(12, 19))
        assert chorus >= 1.15 * verse, (fam, genre, verse, chorus)


def test_only_kick_constraint_keeps_only_the_kick():
    part, *_ = _part("drums", "lo-fi", constraints=("only_kick",))
    assert {n.pitch for n in part.track.notes} == {KICK}


def test_swing_and_humanization_from_the_groove_template():
    part, _intent, _harmony, _arrangement = _part("drums", "hip-hop")
    notes = part.track.notes
    offbeats = [n.start % 1.0 for n in notes if n.pitch == CLOSED_HAT and 0.4 < n.start % 1.0 < 0.75]
    assert offbeats and fmean(offbeats) >= 0.55  # boom-bap's swung eighths: the 'and' lands late
    assert len({n.velocity for n in notes}) > 10
    straight = [n for n in notes if n.pitch == KICK]
    assert any(abs(n.start * 4 - round(n.start * 4)) > 0.01 for n in straight)  # not quantized
    assert swing_time(0.25, 0.33, 0.25) == pytest.approx(0.3325)
    assert swing_time(0.5, 0.33, 0.25) == 0.5


# --------------------------------------------------------------------------- bass


def _onsets(track, lo, hi):
    return [n.start for n in track.notes if lo <= n.start < hi]


def test_808_locks_to_the_kick_plays_roots_and_glides():
    intent, harmony, arrangement = _song("trap")
    bass = generate_part("bass", intent, harmony, arrangement, 2).track
    drums = generate_part("drums", intent, harmony, arrangement, 3).track
    kicks = [n.start for n in drums.notes if n.pitch == KICK and 16 <= n.start < 80]
    onsets = _onsets(bass, 15.8, 80.2)
    for k in kicks:  # each kick strikes the 808, or lands just after a strike while the note is held
        assert any(abs(k - b) < 0.1 for b in onsets) or any(
            n.start < k < n.start + 1.1 and n.end > k for n in bass.notes), k
    assert sum(1 for k in kicks if any(abs(k - b) < 0.1 for b in onsets)) >= 0.6 * len(kicks)
    ctx = build_situation(intent, harmony, arrangement)
    roots = sum(1 for n in bass.notes if n.pitch % 12 == ctx.bars[int((n.start + 0.1) // 4)].chord.root)
    assert roots / len(bass.notes) > 0.75
    assert bass.pitch_bends and any(b.value != 0 for b in bass.pitch_bends)
    rpn = [c.control for c in bass.controls[:4]]
    assert set(rpn[:2]) == {100, 101} and rpn[2:] == [6, 38]  # bend range by RPN, data entry after
    assert all(24 <= n.pitch <= 48 for n in bass.notes)


def test_walking_bass_for_jazz():
    part, intent, harmony, arrangement = _part("bass", "jazz")
    ctx = build_situation(intent, harmony, arrangement)
    notes = part.track.notes
    quarter = [n for n in notes if abs(n.start * 2 - round(n.start * 2)) < 0.1 and n.duration > 0.5]
    per_bar = Counter(int(n.start // 4) for n in quarter)
    assert fmean(per_bar.values()) >= 3.5  # four to the bar
    downbeats = [n for n in notes if abs(n.start % 4) < 0.1 or abs(n.start % 4 - 4) < 0.1]
    roots = sum(1 for n in downbeats if n.pitch % 12 == ctx.bars[round(n.start / 4) % len(ctx.bars)].chord.root)
    assert roots / len(downbeats) > 0.85
    leaps = [abs(b.pitch - a.pitch) for a, b in pairwise(notes)]
    assert fmean(leaps) < 5  # a line, mostly steps


@pytest.mark.parametrize("genre", ["rock", "pop", "hip-hop", "funk", "reggae", "drum & bass"])
def test_bass_sits_on_the_kick_and_the_harmony(genre):
    intent, harmony, arrangement = _song(genre)
    bass = generate_part("bass", intent, harmony, arrangement, 2).track
    drums = generate_part("drums", intent, harmony, arrangement, 3).track
    ctx = build_situation(intent, harmony, arrangement)
    kicks = [n.start for n in drums.notes if n.pitch == KICK and 16 <= n.start < 80]
    covered = sum(1 for k in kicks if any(abs(k - b) < 0.125 for b in _onsets(bass, 15, 81)))
    assert covered / len(kicks) >= 0.8, genre
    in_chord = sum(1 for n in bass.notes if n.pitch % 12 in ctx.bars[min(len(ctx.bars) - 1, int((n.start + 0.1) // 4))].chord.pcs
                   or n.pitch % 12 in ctx.scale)
    assert in_chord / len(bass.notes) > 0.85


# --------------------------------------------------------------------------- chords, lead, pad


def test_chords_use_the_voicings_with_pedal_for_keys():
    part, intent, harmony, arrangement = _part("chords", "gospel")
    ctx = build_situation(intent, harmony, arrangement)
    assert any(c.control == 64 and c.value == 127 for c in part.track.controls)
    assert any(c.control == 64 and c.value == 0 for c in part.track.controls)
    bar = ctx.bars[5]
    pitches = {n.pitch for n in part.track.notes if bar.start <= n.start < bar.start + 4}
    assert set(bar.chord.pitches) <= pitches


def test_jazz_comping_is_rootless_and_syncopated():
    part, intent, harmony, arrangement = _part("chords", "jazz")
    ctx = build_situation(intent, harmony, arrangement)
    off = [n for n in part.track.notes if abs((n.start % 1) - 0.5) < 0.2]
    assert len(off) / len(part.track.notes) > 0.25
    root_hits = sum(1 for n in part.track.notes
                    if n.pitch % 12 == ctx.bars[int((n.start + 0.1) // 4)].chord.root)
    assert root_hits / len(part.track.notes) < 0.1


def test_reggae_skank_on_the_offbeats():
    part, *_ = _part("chords", "reggae")
    positions = Counter(round((n.start % 4) * 2) / 2 for n in part.track.notes if 16 <= n.start < 48)
    assert set(positions) <= {1.0, 3.0, 1.5, 3.5}


def test_lead_motifs_chord_tones_on_strong_beats_and_breath():
    for genre in ("pop", "neo-soul", "house", "jazz", "trap"):
        part, intent, harmony, arrangement = _part("lead", genre)
        ctx = build_situation(intent, harmony, arrangement)
        notes = part.track.notes
        strong = [n for n in notes if min(abs(n.start % 2), abs(n.start % 2 - 2)) < 0.1]
        ct = sum(1 for n in strong if n.pitch % 12 in ctx.bars[round(n.start) // 4 % len(ctx.bars)].chord.pcs)
        assert ct / len(strong) >= 0.8, genre
        assert all(60 <= n.pitch <= 88 for n in notes)
        in_scale = sum(1 for n in notes if n.pitch % 12 in ctx.scale or
                       n.pitch % 12 in ctx.bars[int(n.start // 4)].chord.pcs)
        assert in_scale / len(notes) > 0.9
        # phrases breathe: every 4-bar phrase has a rest of at least a beat
        for phrase in range(12, 20, 4):
            ps = sorted((n.start, n.end) for n in notes if phrase * 4 <= n.start < phrase * 4 + 16)
            gaps = [b[0] - a[1] for a, b in pairwise(ps)] + [phrase * 4 + 16 - ps[-1][1]]
            assert max(gaps) >= 0.9, (genre, phrase)


def test_lead_repeats_its_motif_when_the_section_returns():
    part, *_ = _part("lead", "pop")
    notes = part.track.notes

    def rhythm(bar):
        return [round(n.start - bar * 4, 1) for n in notes if bar * 4 - 0.1 <= n.start < bar * 4 + 3.9]
    assert rhythm(12) == rhythm(24)  # chorus 1 and chorus 2 open with the same motif rhythm
    assert rhythm(12) == rhythm(16)


def test_pad_keeps_the_voice_leading_of_stage_2():
    for genre in ("afrobeat", "neo-soul", "ambient", "trap"):
        part, intent, harmony, arrangement = _part("pad", genre)
        ctx = build_situation(intent, harmony, arrangement)
        shifts = set()
        for bar in ctx.active("pad"):
            if bar.final:  # the last chord is voiced in root position
                continue
            played = sorted(n.pitch for n in part.track.notes if abs(n.start - bar.start) < 0.1)
            if played:
                shifts |= {p - q for p, q in zip(played, bar.chord.pitches, strict=True)}
        assert len(shifts) == 1, (genre, shifts)  # one transposition for the whole song


def test_pad_sustains_and_swells():
    part, *_ = _part("pad", "ambient")
    notes = part.track.notes
    assert fmean(n.duration for n in notes) >= 3.5
    cc11 = [c for c in part.track.controls if c.control == 11]
    assert len(cc11) > 20
    first = [c.value for c in cc11 if c.time < 4]
    assert max(first) > first[0]  # a swell rises


def test_extra_roles_follow_their_parents_and_registers():
    intent, harmony, arrangement = _song("house")
    counter = generate_part("counter_melody", intent, harmony, arrangement, 4).track
    assert counter.notes and all(50 <= n.pitch <= 74 for n in counter.notes)
    sub = generate_part("sub_bass", intent, harmony, arrangement, 4).track
    assert sub.notes and max(n.pitch for n in sub.notes) <= 43
    perc = generate_part("percussion", intent, harmony, arrangement, 4).track
    assert perc.is_drum and perc.notes
    arp = generate_part("arp", intent, harmony, arrangement, 4).track
    assert all(len([m for m in arp.notes if abs(m.start - n.start) < 0.01]) == 1 for n in arp.notes[:32])


def test_intro_drums_keep_time_only():
    intent, harmony, _ = _song("house")
    form = (("Intro", "intro", 4, 0.2, ["drums", "pad"], "cut"), ("Drop", "drop", 4, 0.9, ["drums", "pad"], "cut"))
    arrangement = make_arrangement([c.bars for c in harmony.chords], form=form)
    notes = generate_part("drums", intent, harmony, arrangement, 1).track.notes
    intro = {n.pitch for n in notes if n.start < 11.5}  # before the fill into the drop
    assert KICK in intro and CLAP not in intro and SNARE not in intro
    assert CLAP in {n.pitch for n in notes if n.start >= 16.5}


@pytest.mark.parametrize("signature", [(3, 4), (6, 8), (7, 8), (5, 4)])
def test_odd_meters_fill_their_bars_and_swing_alike_in_every_bar(signature):
    intent = make_intent("jazz", time_signature=signature)
    harmony = build_harmony(intent, 1)
    arrangement = make_arrangement([c.bars for c in harmony.chords])
    bar = signature[0] * 4 / signature[1]
    end = arrangement.total_bars * bar
    for role in ROLES:
        notes = generate_part(role, intent, harmony, arrangement, 2).track.notes
        assert notes and all(n.start < end for n in notes), role
    ride = [n.start for n in generate_part("drums", intent, harmony, arrangement, 2).track.notes if n.pitch == RIDE]
    swung = {parity: [t % bar for t in ride if int(t // bar) % 2 == parity and 1.4 < t % bar < 1.9] for parity in (0, 1)}
    swing = make_intent("jazz").genre_dna.swing
    for parity in (0, 1):  # the "and" of 2 lands late by the same amount in even and odd bars
        assert fmean(swung[parity]) == pytest.approx(1.5 + swing * 0.5, abs=0.04)
    assert swing_time(3.5 + 0.5, 0.3, 0.5, 3.5) == pytest.approx(4.15)  # the 2nd eighth of bar 2 in 7/8


def test_the_lead_sings_higher_when_the_energy_is_up():
    intent, harmony, _ = _song("pop")
    form = (("Verse", "verse", 8, 0.5, ["lead"], "cut"), ("Chorus", "chorus", 8, 0.9, ["lead"], "cut"))
    arrangement = make_arrangement([c.bars for c in harmony.chords], form=form)
    lifts = []
    for seed in range(10):
        notes = generate_part("lead", intent, harmony, arrangement, seed).track.notes
        lifts.append(fmean(n.pitch for n in notes if n.start >= 32) - fmean(n.pitch for n in notes if n.start < 32))
    assert fmean(lifts) > 2.5 and sum(x > 0 for x in lifts) >= 7


def test_arp_above_the_comping_and_feel_reported_per_role():
    intent, harmony, arrangement = _song("trance")
    arp = generate_part("arp", intent, harmony, arrangement, 1)
    chords = generate_part("chords", intent, harmony, arrangement, 1)
    assert fmean(n.pitch for n in arp.track.notes) > fmean(n.pitch for n in chords.track.notes) + 6
    drums = generate_part("drums", intent, harmony, arrangement, 1).stats
    pad = generate_part("pad", intent, harmony, arrangement, 1).stats
    assert drums.humanization["amount"] == 1.0 and pad.humanization["amount"] < 0.5
    assert drums.groove == "four_on_floor" and drums.style == "four_on_floor"


def test_part_level_constraints():
    hats = {CLOSED_HAT, OPEN_HAT, PEDAL_HAT}
    part, *_ = _part("drums", "trap", constraints=("no_hihats",))
    assert not hats & {n.pitch for n in part.track.notes} and part.track.notes
    bass, *_ = _part("bass", "trap", constraints=("no_808",))
    assert bass.stats.style == "root_fifth" and not bass.track.pitch_bends
    straight, *_ = _part("drums", "hip-hop", constraints=("no_swing",))
    assert straight.stats.swing == 0.0
    offbeats = [n.start % 0.5 for n in straight.track.notes if n.pitch == CLOSED_HAT and 0.15 < n.start % 0.5 < 0.4]
    assert offbeats and fmean(offbeats) < 0.26


@settings(max_examples=200, deadline=None)
@given(beat=st.floats(0, 64), swing=st.floats(0, 0.33), unit=st.sampled_from([0.25, 0.5]),
       bar=st.sampled_from([3.0, 3.5, 4.0, 5.0]))
def test_swing_moves_only_off_beats_and_keeps_order(beat, swing, unit, bar):
    grid = round(beat / unit) * unit
    moved = swing_time(grid, swing, unit, bar)
    index = round((grid % bar) / unit)
    if index % 2 == 0:
        assert moved == grid
    else:
        assert moved == pytest.approx(grid + swing * unit)
    assert swing_time(grid + unit, swing, unit, bar) >= moved  # the next grid point never overtakes


def test_public_exports_are_pinned():
    import bandstand.compose.harmony as harmony_pkg
    import bandstand.compose.parts as parts_pkg

    assert set(parts_pkg.__all__) == {"CORE_ROLES", "DEFAULT_PROGRAMS", "ROLES", "TRACK_NAMES", "build_situation",
                                      "generate_part", "program_for", "styles_for"}
    assert set(harmony_pkg.__all__) == {"CHORD_REGISTER", "build_harmony", "progression_file", "spell_slot"}
    assert set(ROLES) == {"drums", "bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody", "sub_bass",
                          "texture", "fx"}


def test_jazz_head_states_a_theme_and_the_solo_runs_bebop_lines():
    intent, harmony, _ = _song("jazz")
    form = (("Head", "head", 8, 0.65, ["lead"], "cut"), ("Solo", "solo", 8, 0.75, ["lead"], "cut"))
    arrangement = make_arrangement([c.bars for c in harmony.chords], form=form)
    notes = generate_part("lead", intent, harmony, arrangement, 2).track.notes
    head = [n for n in notes if n.start < 32]
    solo = [n for n in notes if n.start >= 32]
    assert len(solo) > 1.3 * len(head)
    eighths = sum(1 for n in solo if n.duration < 0.5)
    assert eighths / len(solo) > 0.6  # running eighth-note lines


def test_kick_and_bass_hold_their_breath_before_the_drop():
    intent, harmony, _ = _song("house")
    form = (("Build", "build", 4, 0.6, ["drums", "bass"], "build"), ("Drop", "drop", 4, 0.9, ["drums", "bass"], "cut"))
    arrangement = make_arrangement([c.bars for c in harmony.chords], form=form)
    drums = generate_part("drums", intent, harmony, arrangement, 1).track.notes
    bass = generate_part("bass", intent, harmony, arrangement, 1).track.notes
    assert not [n for n in drums if n.pitch == KICK and 14.1 <= n.start < 15.9]
    assert not [n for n in bass if 14.1 <= n.start < 15.9] and not [n for n in bass if n.start < 14 < n.end - 0.05]
    assert [n for n in drums if n.pitch == KICK and abs(n.start - 16) < 0.1]  # and everything lands on the one
    assert [n for n in bass if abs(n.start - 16) < 0.1]


def test_the_bass_plays_the_slash_note_of_an_inversion():
    for seed in range(12):
        intent = make_intent("pop", harmonic=0.6)
        harmony = build_harmony(intent, seed)
        if any("/" in c.symbol for c in harmony.chords):
            break
    arrangement = make_arrangement([c.bars for c in harmony.chords])
    ctx = build_situation(intent, harmony, arrangement)
    bass = generate_part("bass", intent, harmony, arrangement, 1).track.notes
    slash_bars = [b for b in ctx.active("bass") if b.chord.bass != b.chord.root]
    assert slash_bars
    for bar in slash_bars:
        first = min((n for n in bass if abs(n.start - bar.start) < 0.1), key=lambda n: n.start)
        assert first.pitch % 12 == bar.chord.bass


def test_held_lead_notes_are_chord_tones():
    for genre in ("pop", "neo-soul", "ambient", "deep house"):
        part, intent, harmony, arrangement = _part("lead", genre)
        ctx = build_situation(intent, harmony, arrangement)
        held = [n for n in part.track.notes if n.duration >= 0.92]
        assert held
        ok = sum(1 for n in held if n.pitch % 12 in ctx.bars[int((n.start + 0.05) // 4)].chord.pcs)
        assert ok / len(held) >= 0.9, genre
