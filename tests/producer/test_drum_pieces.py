"""Words scoped to a piece of the kit or a section touch only that, as a variation to hear:
"mute the hi-hats in the intro" takes the hi-hats out of the intro (the kick, the snare and
every other bar stay note for note); "mute the drums in the intro" rests the drums there only;
"mute the drums" alone is still the mixer's mute."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bandstand.craft.edits import PresenceEdit
from bandstand.craft.mixer_edits import MuteEdit
from bandstand.craft.requests import parse_request
from bandstand.producer.requests.iteration import edit, vocabulary
from bandstand.producer.sessions.projects import open_project
from bandstand.score import DRUM_PIECES
from bandstand.studio import to_song


def test_words_read_into_pieces_and_sections() -> None:
    def read(words: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
        r = parse_request(words, vocabulary(), studio=True)
        return r.edits, r.mixer

    assert read("mute the hi-hats in the intro") == ((PresenceEdit(role="drums", present=False, pieces=("hats",),
                                                                   sections=("intro",)),), ())
    assert read("drop the kick") == ((PresenceEdit(role="drums", present=False, pieces=("kick",)),), ())
    assert read("mute the drums in the intro") == ((PresenceEdit(role="drums", present=False, sections=("intro",)),), ())
    edits, mixer = read("mute the drums")
    assert edits == () and [type(m) for m in mixer] == [MuteEdit]


def test_only_the_hats_of_the_verses_go(composed_copy: Callable[..., Path]) -> None:
    root = composed_copy("funk groove", 3, 32)
    session = open_project(root)
    verses = [((s.start_bar - 1) * 4, (s.end_bar - 1) * 4) for s in session.head.sections
              if s.name.lower().startswith("verse")]
    assert verses

    def in_verse(beat: float) -> bool:
        return any(a <= beat < b for a, b in verses)

    outcome = edit(root, "mute the hi-hats in the verse", session=session)
    assert outcome.variation is not None and outcome.variation.intent == "drums: hats out in the verse"
    assert outcome.affected == ("drums",)
    before = to_song(session.head).track("drums").notes
    after = to_song(outcome.variation.proposal).track("drums").notes  # type: ignore[arg-type]
    hats = set(DRUM_PIECES["hats"])

    def key(n: object) -> tuple[float, int]:
        return (round(n.start, 6), n.pitch)  # type: ignore[attr-defined]

    gone = {key(n) for n in before} - {key(n) for n in after}
    assert gone and all(p in hats and in_verse(s) for s, p in gone)
    assert {key(n) for n in after} <= {key(n) for n in before}
    assert not any(n.pitch in hats and in_verse(n.start) for n in after)
    assert any(n.pitch in hats and not in_verse(n.start) for n in after)  # the chorus keeps its hats
    assert any(n.pitch not in hats and in_verse(n.start) for n in after)  # the verse keeps its kick and snare
