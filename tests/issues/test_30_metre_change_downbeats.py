"""Issue #30, odd metres per section: a part is written once per metre of the song's map and each
bar taken from the writing in its own metre (`compose.metres.on_map`). A downbeat humanized a hair
early starts before its bar line: it is its own bar's note, taken from that bar's metre — not
dropped, and not taken from the neighbouring metre's writing, whose bar before the change it would
otherwise seem to end."""

from __future__ import annotations

from functools import cache

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.metres import in_metre, metre_map, on_map
from bandstand.compose.parts import ROLES, generate_part
from bandstand.score import TimeSignature, Track
from bandstand.score.metre_map import EARLY, MetreMap

PROMPT = "progressive rock epic with odd time signatures"


def _first_beat(track: Track, metres: MetreMap, bar: int) -> set[tuple[int, float]]:
    """(pitch, beats from the downbeat) of the notes struck on `bar`'s first beat, early ones included."""
    start = metres.start(bar)
    return {(n.pitch, round(n.start - start, 6)) for n in track.notes if -EARLY <= n.start - start < 1.0 - EARLY}


@cache
def _laid(seed: int) -> tuple[MetreMap, int, list[tuple[str, Track, dict[TimeSignature, Track]]]]:
    intent = decompose(PROMPT, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed)
    parts = []
    for i, role in enumerate(roles):
        writings: dict[TimeSignature, Track] = {}

        def write(there, role=role, i=i, writings=writings):
            track = generate_part(role, there, harmony, plan, seed + i).track
            writings[TimeSignature(*there.time_signature)] = track
            return track

        parts.append((role, on_map(write, intent, plan), writings))
    return metre_map(intent, plan), plan.total_bars, parts


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
def test_every_bar_s_first_beat_comes_from_the_writing_in_its_own_metre(seed: int) -> None:
    metres, total, parts = _laid(seed)
    assert metres.changes, "the song changes metre"
    early = 0
    for role, track, writings in parts:
        for bar in range(1, total + 1):
            ts = metres.at(bar)
            own = _first_beat(writings[ts], MetreMap(ts), bar)
            assert _first_beat(track, metres, bar) == own, (role, bar, str(ts))
            early += sum(1 for _, at in own if at < 0)
    assert early, "some downbeat is humanized early (else the test shows nothing)"


def test_in_metre_writes_the_whole_song_in_one_metre() -> None:
    intent = decompose(PROMPT, seed=1)
    there = in_metre(intent, TimeSignature(4, 4))
    assert there.time_signature == (4, 4) and there.section_metres == {}
