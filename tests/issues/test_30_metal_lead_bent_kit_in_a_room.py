"""Issue #30, heavy metal read by an audio tagger: "metal" sat 6th, under "jazz" — the lead guitar
alone tagged jazz, and the close kit read as a machine. A metal guitarist bends the lead as he
plays it (a scoop into a phrase's first note and into a leap, wide vibrato on held notes:
`craft.bends.BENT_LEADS`), and the kit of a heavy metal anthem is heard in its big live room
(`compose.sound.DRUM_ROOM_SEND_BY_GENRE`: 0.6 to the room against a rock kit's 0.4). Other
genres' leads are not bent as compose writes them (bends stay a studio edit there)."""

from __future__ import annotations

import pytest

from bandstand.compose.arrangement import build_arrangement, resolve_roles
from bandstand.compose.harmony import build_harmony
from bandstand.compose.intent import decompose
from bandstand.compose.parts import ROLES, generate_part
from bandstand.compose.sound import build_sound
from bandstand.craft.bends import SEMITONE
from bandstand.score import Track

METAL = "a heavy metal anthem with double kick drums"
ROCK = "a classic rock song with a big guitar riff"


def _lead(prompt: str, seed: int) -> Track:
    intent = decompose(prompt, seed=seed)
    harmony = build_harmony(intent, seed)
    roles = resolve_roles(intent, None, ROLES)
    plan = build_arrangement(intent, harmony, roles, seed)
    return generate_part("lead", intent, harmony, plan, seed + roles.index("lead")).track


@pytest.mark.parametrize("seed", [1, 2])
def test_the_metal_lead_is_bent_as_played_and_always_back_in_tune(seed: int) -> None:
    track = _lead(METAL, seed)
    bends = track.pitch_bends
    assert bends, "a metal lead is written with its scoops and vibrato"
    assert max(abs(b.value) for b in bends) <= 2 * SEMITONE  # within the default ±2-semitone range
    starts = sorted({round(n.start, 6) for n in track.notes})
    # a scoop starts under the note: some note opens with the bend below centre
    assert any(b.value < 0 and round(b.time, 6) in starts for b in bends)
    # vibrato on held notes: a bend that goes above centre (a scoop never does)
    assert any(b.value > 0 for b in bends)
    # every gesture is back at centre before the next note starts, and at the end
    times = [b.time for b in bends]
    for start in starts[1:]:
        before = [b for b, t in zip(bends, times, strict=True) if t < start - 1e-6]
        assert not before or before[-1].value == 0, (start, before[-1])
    assert bends[-1].value == 0


def test_a_rock_lead_is_written_unbent() -> None:
    assert not _lead(ROCK, 1).pitch_bends


def test_the_metal_kit_plays_in_a_bigger_room_than_a_rock_kit() -> None:
    programs = {"drums": 0, "bass": 34, "chords": 30, "lead": 30}
    sends: dict[str, float] = {}
    for prompt in (METAL, ROCK):
        drums = build_sound(decompose(prompt), programs).for_role("drums")
        assert drums is not None
        sends[prompt] = drums.sends[0].level
    assert sends == {METAL: 0.6, ROCK: 0.4}
