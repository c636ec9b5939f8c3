"""`producer.requests.direct`: a request in words on one session, for clients that are not a stream
(the CLI). Idioms become variations; the mixer's words run through the studio stream as one
revision; questions are answered; what asks for a new song is sent to compose."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.direct import ask, direct
from bandstand.producer.sessions.projects import open_project


def _reverb(session_dir: Path, track: str) -> float:
    head = open_project(session_dir).head
    buses = {b.id for b in head.buses if b.name == "Reverb"}
    [found] = [t for t in head.tracks if t.name == track]
    return max((s.level for s in found.sends if s.bus_id in buses), default=0.0)


def test_an_idiom_is_a_variation_and_nothing_changes(composed_copy: Callable[..., Path]) -> None:
    song = composed_copy()
    directed = direct(song, "make the bass busier")
    assert directed.kind == "variation" and directed.edit.variation is not None
    assert open_project(song).head.revision == 1


def test_reverb_words_move_the_send_as_one_revision_each(composed_copy: Callable[..., Path]) -> None:
    song = composed_copy()
    start = _reverb(song, "Lead")
    more = direct(song, "more reverb on the lead")
    assert more.kind == "revision" and more.revision == 2 and more.steps[0].startswith("More reverb on Lead")
    raised = _reverb(song, "Lead")
    assert raised == pytest.approx(round(max(0.3, start * 1.5), 3))
    less = direct(song, "less reverb on the lead")
    assert less.revision == 3 and _reverb(song, "Lead") == pytest.approx(round(raised * 0.5, 3))
    off = direct(song, "take the reverb off the lead")
    assert off.revision == 4 and _reverb(song, "Lead") == 0.0
    with pytest.raises(InvalidInput, match="nothing to change: 'less reverb on the lead' is already"):
        direct(song, "less reverb on the lead")  # a request that changes nothing is never a success
    assert open_project(song).head.revision == 4
    session = open_project(song)
    session.undo(steps=3)
    assert _reverb(song, "Lead") == pytest.approx(start)


def test_a_mute_is_a_revision_a_question_an_answer(composed_copy: Callable[..., Path]) -> None:
    song = composed_copy()
    muted = direct(song, "mute the drums")
    head = open_project(song).head
    assert muted.to_json() == {"kind": "revision", "revision": 2, "summary": muted.summary, "steps": ["Mute Drums"],
                               "specialist": "mix"}
    assert [t.mute for t in head.tracks if t.name == "Drums"] == [True]
    answered = direct(song, "what key is this in?")
    assert answered.kind == "answer" and str(head.key).split()[0] in answered.answer and answered.reasoning
    assert ask(song, "which chords are in the verse?").answer


@pytest.mark.parametrize(("request_text", "fragment"), [
    ("blorp the flange", "not understood"),
    ("write me a new techno song", "bandstand compose"),
])
def test_what_it_cannot_do_is_one_line(composed_copy: Callable[..., Path], request_text: str, fragment: str) -> None:
    song = composed_copy()
    with pytest.raises(InvalidInput, match=fragment):
        direct(song, request_text)
    assert open_project(song).head.revision == 1


def test_ask_wants_a_question_and_a_session(composed_copy: Callable[..., Path], tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="not a question"):
        ask(composed_copy(), "mute the drums")
    with pytest.raises(InvalidInput, match="does not exist"):
        direct(tmp_path / "nowhere", "mute the drums")


def test_a_question_about_a_section_the_song_lacks_says_so(composed_copy: Callable[..., Path]) -> None:
    song = composed_copy()
    sections = [s.name for s in open_project(song).head.sections]
    assert not any(name.lower().startswith("bridge") for name in sections)
    answered = ask(song, "why does the bridge feel flat?")
    assert answered.answer.startswith("This song has no bridge (its sections are " + ", ".join(sections[:2]))
