"""The blast radius of each kind of change, read off what the compose graph's nodes declare they
are made from."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bandstand.compose.graph import Graph
from bandstand.compose.nodes import Node
from bandstand.craft.edits import KeyEdit, MixEdit, RegenerateEdit, StyleEdit
from bandstand.craft.style import StyleOverride
from bandstand.producer.requests.sensitivity import (
    EXPENSIVE,
    blast_radius,
    changed_by,
    component_node,
    sensitivity,
)

PARTS = ("drums", "bass", "chords", "lead", "pad")


PART_FACTS = {"key", "mode", "genre", "dials", "energy", "form", "metre", "tempo", "instrument"}
SENSITIVITY = sensitivity(PARTS)


def test_the_graph_says_what_the_spec_says() -> None:
    assert set(SENSITIVITY["drums"]) >= {"tempo", "genre", "energy", "arrangement"}
    assert set(SENSITIVITY["bass"]) >= {"key", "progression", "tempo", "genre"}
    assert set(SENSITIVITY["chords"]) >= {"key", "progression"} and SENSITIVITY["pad"] == SENSITIVITY["chords"]
    assert set(SENSITIVITY["lead"]) >= {"key", "progression", "arrangement"}
    assert SENSITIVITY["sound"] == ("genre", "instrument")
    assert set(SENSITIVITY["arrangement"]) >= {"genre", "energy", "form"}
    assert SENSITIVITY["progression"] == ("key", "mode", "genre", "dials")
    assert SENSITIVITY["mix"] == ()
    assert {"key", "genre", "tempo", "form"} <= EXPENSIVE
    for row in SENSITIVITY.values():  # every dependency is a fact or a component the graph makes
        for dep in row:
            assert dep in SENSITIVITY or dep in PART_FACTS, dep


def test_no_part_is_made_from_another() -> None:
    # the bass locks to the groove's kick, which the genre and the arrangement decide; it never
    # reads the drum part, so redoing the drums leaves it as it is (a table once said otherwise)
    assert not any(set(SENSITIVITY[p]) & set(PARTS) for p in PARTS)
    assert blast_radius(["drums"], PARTS).parts == ("drums",)


def test_extra_roles_read_like_their_core_role() -> None:
    rows = sensitivity(("pad", "pad-2", "sub_bass", "arp", "counter_melody"))
    assert rows["pad-2"] == rows["pad"] and rows["sub_bass"] == SENSITIVITY["bass"]
    assert rows["arp"] == SENSITIVITY["chords"] and rows["counter_melody"] == SENSITIVITY["lead"]


def test_the_graph_refuses_reads_it_cannot_honour() -> None:
    def run(ctx: object) -> None:
        return None

    first = Node("harmony", run)
    with pytest.raises(ValueError, match="not one of its inputs"):
        Graph([first, Node("bass", run, reads=("harmony",))])
    with pytest.raises(ValueError, match="neither a fact"):
        Graph([first, Node("bass", run, inputs=("harmony",), reads=("kick",))])


@pytest.mark.parametrize(("changed", "parts", "cost"), [
    (["bass"], ["bass"], "moderate"),
    (["lead"], ["lead"], "moderate"),
    (["drums"], ["drums"], "moderate"),
    (["key"], ["bass", "chords", "lead", "pad"], "expensive"),  # drums untouched
    (["tempo"], ["drums", "bass"], "expensive"),
    (["energy"], ["drums", "lead"], "moderate"),
    (["genre"], list(PARTS), "expensive"),
    (["form"], ["drums", "lead"], "expensive"),
    (["progression"], ["bass", "chords", "lead", "pad"], "expensive"),
    (["instrument"], [], "cheap"),
    (["mix"], [], "cheap"),
    ([], [], "cheap"),
])
def test_blast_radius(changed: list[str], parts: list[str], cost: str) -> None:
    radius = blast_radius(changed, PARTS)
    assert list(radius.parts) == parts and radius.cost == cost
    assert set(radius.preserved) == set(PARTS) - set(parts)


def test_it_is_in_graph_order_and_names_the_nodes() -> None:
    radius = blast_radius(["key"], PARTS)
    assert radius.affected == ("progression", "bass", "chords", "lead", "pad")
    assert radius.nodes == ("harmony", "parts:bass", "parts:chords", "parts:lead", "parts:pad")
    assert blast_radius(["genre"], PARTS).nodes[-1] == "sound"
    assert component_node("mix") is None and component_node("arrangement") == "arrangement"


def test_frozen_parts_never_regenerate_and_pass_nothing_on() -> None:
    radius = blast_radius(["energy"], PARTS, frozen=["drums"])
    assert radius.frozen == ("drums",) and "drums" in radius.preserved
    assert radius.parts == ("lead",)


def test_what_an_edit_changes() -> None:
    busier = StyleEdit(override=StyleOverride(role="bass", knobs={"density": 0.3}))
    assert changed_by(busier, PARTS) == ("bass",)
    everywhere = StyleEdit(override=StyleOverride(role="*", knobs={"brightness": -0.3}))
    assert changed_by(everywhere, PARTS) == PARTS
    assert changed_by(KeyEdit(tonic="F#"), PARTS, "minor") == ("key",)
    assert changed_by(KeyEdit(tonic="F#", mode="major"), PARTS, "minor") == ("key", "mode")
    assert changed_by(RegenerateEdit(target="progression"), PARTS) == ("progression",)
    assert changed_by(MixEdit(role="bass", volume=1.25), PARTS) == ("mix",)


@given(st.lists(st.sampled_from([*SENSITIVITY, "key", "mode", "tempo", "genre", "energy", "form", "metre"]),
                max_size=4),
       st.lists(st.sampled_from(PARTS), unique=True))
def test_the_radius_is_closed_and_respects_freezing(changed: list[str], frozen: list[str]) -> None:
    radius = blast_radius(changed, PARTS, frozen)
    assert not set(radius.parts) & set(frozen)
    assert set(radius.parts) | set(radius.preserved) == set(PARTS)
    reached = set(changed) | set(radius.affected)
    for part in PARTS:  # anything sensitive to what was reached is in the radius (or frozen)
        if part not in frozen and (part in changed or any(d in reached for d in SENSITIVITY[part])):
            assert part in radius.parts
