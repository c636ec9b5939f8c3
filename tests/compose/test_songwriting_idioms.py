"""The idioms of spec/songwriting.md §4, each measured on the MIDI file of a song
composed from a prompt (read back with mido): swing where the genre swings, a
four-on-the-floor bass that avoids the kick, metal, punk, the waltz, ambient,
film-music builds, a lead motif that returns and develops, choruses that repeat
with variation, and no lead note rubbing a semitone above a held chord tone on a
strong beat."""

from __future__ import annotations

import re
from itertools import pairwise
from statistics import median

import pytest

from .heard import Heard, heard, jaccard

KICKS = frozenset({35, 36})


def _groups(notes):
    out: list[list] = []
    for n in sorted(notes):
        if out and n[0] - out[-1][0][0] <= 0.06:
            out[-1].append(n)
        else:
            out.append([n])
    return out


def _power_share(h: Heard) -> float:
    groups = [g for g in _groups(h.notes("chords")) if len(g) >= 2]
    power = sum(1 for g in groups if {n[2] % 12 for n in g} == {min(n[2] for n in g) % 12,
                                                                 (min(n[2] for n in g) + 7) % 12})
    return power / max(1, len(groups))


@pytest.mark.parametrize("prompt", ["lo-fi hip hop beat to study to", "boom bap hip-hop beat", "neo-soul jam with rhodes",
                                    "jazz quartet playing a standard", "12-bar blues shuffle in A"])
def test_swing_lives_where_the_genre_does(prompt):
    h = heard(prompt)
    drums = [n for name in h.drums for n in h.tracks.get(name, [])]
    offbeats = [n[0] % 1.0 for n in drums if 0.4 <= n[0] % 1.0 <= 0.72]
    assert len(offbeats) >= 8 and median(offbeats) >= 0.55, (prompt, median(offbeats))


@pytest.mark.parametrize("prompt", ["chicago house track", "minimal techno", "uplifting trance anthem", "disco with strings"])
def test_a_four_on_the_floor_bass_avoids_the_kick(prompt):
    h = heard(prompt)
    kicks = [n[0] for n in h.notes("drums") if n[2] in KICKS]
    floor = {h.bar(t) for t in kicks if len({round(k) % 4 for k in kicks if h.bar(k) == h.bar(t)
                                              and abs(k - round(k)) < 0.07}) >= 4}
    bass = [n[0] for n in h.notes("bass") if h.bar(n[0]) in floor]
    assert floor and bass
    on_kick = sum(1 for t in bass if any(abs(t - k) <= 0.125 for k in kicks))
    assert on_kick / len(bass) <= 0.35, (prompt, on_kick / len(bass))


def test_metal_has_double_kick_runs_palm_muted_power_chords_and_no_tambourine():
    h = heard("heavy metal track in E minor")
    steps = {round(n[0] * 4) for n in h.notes("drums") if n[2] in KICKS}
    assert any(all(s + i in steps for i in range(4)) for s in steps), "a double-kick run"
    assert _power_share(h) >= 0.6 and median(n[1] for n in h.notes("chords")) <= 0.5, "palm-muted power chords"
    assert not any(n[2] == 54 for name in h.drums for n in h.tracks[name]), "no tambourine"


def test_punk_is_fast_with_driving_eighths_and_power_chords():
    h = heard("fast punk rock song")
    assert 160 <= h.tempo <= 200
    bars: dict[int, set[int]] = {}
    for n in h.notes("bass"):
        bars.setdefault(h.bar(n[0]), set()).add(round((n[0] % 4) * 2))
    assert sum(1 for s in bars.values() if len(s) >= 7) >= 0.6 * len(bars), "eighth notes on every eighth"
    assert _power_share(h) >= 0.6


def test_a_waltz_goes_oom_pah_pah_in_three():
    h = heard("a gentle waltz")
    assert h.metre == (3, 4)
    oom = {h.bar(n[0]) for n in h.notes("bass") if abs(n[0] % 3) < 0.08 or abs(n[0] % 3 - 3) < 0.08}
    assert len(oom) >= 0.8 * len({h.bar(n[0]) for n in h.notes("bass")})
    pah: dict[int, set[int]] = {}
    for n in h.notes("chords"):
        if abs(n[0] - round(n[0])) < 0.08:
            pah.setdefault(h.bar(n[0]), set()).add(round(n[0]) % 3)
    assert sum(1 for beats in pah.values() if {1, 2} <= beats) >= 0.6 * len(pah)


def test_ambient_has_no_steady_kick():
    h = heard("ambient soundscape")
    per_bar: dict[int, int] = {}
    for n in h.notes("drums"):
        if n[2] in KICKS:
            per_bar[h.bar(n[0])] = per_bar.get(h.bar(n[0]), 0) + 1
    assert sum(1 for c in per_bar.values() if c >= 2) <= 0.1 * h.plan.total_bars


def test_film_music_builds_with_an_ostinato_rising_dynamics_and_hits_not_jazz_chords():
    h = heard("epic cinematic trailer music")
    chords = h.notes("chords")
    bars: dict[int, list] = {}
    for n in chords:
        bars.setdefault(h.bar(n[0]), []).append(n)
    figures = [(b, tuple(round((n[0] % 4) * 4) for n in bars[b]),
                tuple(y[2] - x[2] for x, y in pairwise(bars[b]))) for b in sorted(bars) if len(bars[b]) >= 4]
    runs = [1]
    for a, b in pairwise(figures):
        runs.append(runs[-1] + 1 if b[0] == a[0] + 1 and b[1:] == a[1:] else 1)
    assert max(runs) >= 4, "an ostinato"
    starts = [a for _, a, _ in h.sections()[1:]]
    drums = h.notes("drums")
    hits = sum(1 for s in starts if any(abs(n[0] - s) <= 0.1 and n[2] in (36, 41, 43, 45, 49) for n in drums))
    assert hits >= 0.5 * len(starts), "hits at the sections"
    climax = max(h.plan.sections, key=lambda s: s.energy)
    first = [n[3] for n in chords if h.bar(n[0]) == climax.start_bar - 1]
    last = [n[3] for n in chords if h.bar(n[0]) == climax.start_bar + climax.bars - 3]
    assert sum(last) / len(last) > sum(first) / len(first), "the ostinato swells"
    assert all(len(c.pitch_classes) <= 3 for c in h.harmony.chords), "triads, not jazz chords"


def _figure(h: Heard, notes):
    notes = sorted(notes)
    return (tuple(round(((n[0] + 0.1) % h.bpb - 0.1) * 4) for n in notes),
            tuple(y[2] - x[2] for x, y in pairwise(notes)))


@pytest.mark.parametrize("prompt", ["classic rock anthem in E", "80s synthpop song", "dark trap beat with 808s",
                                    "afrobeats party song"])
def test_the_lead_motif_returns_and_develops(prompt):
    h = heard(prompt)
    bars: dict[int, list] = {}
    for n in h.notes("lead"):
        bars.setdefault(h.bar(n[0]), []).append(n)
    figures = [_figure(h, bars[b]) for b in sorted(bars) if len(bars[b]) >= 3]
    first = figures[0]
    assert sum(1 for f in figures[1:] if f == first) >= 2, "the motif returns"
    assert any(f != first and (f[0] == first[0] or f[1] == first[1]) for f in figures[1:]), "and develops"


@pytest.mark.parametrize("prompt", ["classic rock anthem in E", "motown soul song", "afrobeats party song"])
def test_choruses_repeat_with_variation(prompt):
    h = heard(prompt)
    peaks = [(a, b) for name, a, b in h.sections() if re.match(r"(?i)(chorus|hook)", name)]
    assert len(peaks) >= 2

    def cells(a, b):
        return {(round((n[0] - a) * 4), n[2]) for n in h.notes("lead") if a - 0.1 <= n[0] < b - 0.1}
    assert 0.3 <= jaccard(cells(*peaks[0]), cells(*peaks[-1])) <= 0.9


@pytest.mark.parametrize("prompt", ["neo-soul jam with rhodes", "chicago house track", "jazz quartet playing a standard",
                                    "slow r&b love song", "classic rock anthem in E"])
def test_no_lead_note_rubs_a_semitone_above_a_held_chord_tone_on_a_strong_beat(prompt):
    h = heard(prompt)
    held = h.notes("chords", "pad")
    half = h.bpb / 2 if h.bpb >= 4 else h.bpb  # one and three: in 12/8 the first and third dotted quarters
    strong = [n for n in h.notes("lead") if min(n[0] % half, half - n[0] % half) <= 0.08]
    clashes = [n for n in strong if any(c[0] < n[0] - 0.1 and c[0] + c[1] > n[0] + 0.05
                                        and c[2] % 12 == (n[2] - 1) % 12 for c in held)]
    assert len(clashes) <= 0.03 * len(strong), (prompt, len(clashes), len(strong))
