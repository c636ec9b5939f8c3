"""A section's role in the form: the words of one genre reach the sections of another."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bandstand.compose.models.arrangement import SectionKind
from bandstand.craft import form
from bandstand.craft.form import FORM_ROLES, corresponding

EDM = ["intro", "build", "drop", "break", "build", "drop", "outro"]
POP = ["intro", "verse", "prechorus", "chorus", "verse", "chorus", "bridge", "chorus", "outro"]
KINDS = list(SectionKind.__args__)  # type: ignore[attr-defined]


def test_exports_are_pinned() -> None:
    assert sorted(form.__all__) == ["FORM_ROLES", "NEAR_ROLES", "corresponding", "form_role"]


def test_every_section_kind_has_a_role() -> None:
    assert set(KINDS) == set(FORM_ROLES)


def test_across_genres() -> None:
    assert corresponding("chorus", EDM) == ("drop",)
    assert corresponding("hook", EDM) == ("drop",)
    assert corresponding("drop", POP) == ("chorus",)
    assert corresponding("bridge", EDM) == ("break",)
    assert corresponding("break", POP) == ("bridge",)
    assert corresponding("verse", EDM) == ("build",)  # no body: the lift
    assert corresponding("build", POP) == ("prechorus",)  # the same role first
    assert corresponding("build", ["intro", "verse", "chorus"]) == ("verse",)


def test_a_kind_the_song_has_is_itself_and_nothing_corresponds_is_empty() -> None:
    assert corresponding("Chorus", POP) == ("chorus",)
    assert corresponding("bridge", ["intro", "verse", "chorus", "outro"]) == ()
    assert corresponding("intro", ["verse", "chorus"]) == ()
    assert corresponding("kazoo", POP) == ()


@given(st.sampled_from(KINDS), st.lists(st.sampled_from(KINDS), max_size=9))
def test_what_corresponds_is_in_the_song_and_plays_a_related_role(wanted: str, song: list[str]) -> None:
    found = corresponding(wanted, song)
    assert set(found) <= set(song)
    if wanted in song:
        assert found == (wanted,)
    elif found:
        role = FORM_ROLES[wanted]
        assert len({FORM_ROLES[k] for k in found}) == 1
        assert FORM_ROLES[found[0]] in (role, *form.NEAR_ROLES.get(role, ()))
