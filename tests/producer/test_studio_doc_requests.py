"""Every example of docs/studio.md's table of request families is said, through the engine
`bandstand edit` runs (`producer.requests.direct`), to a copy of the song the page composes: each is
understood — a variation to hear, a revision, praise, or one line saying the song already is what
was asked (nothing is refused as not understood)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer.requests.direct import direct

DOC = Path(__file__).resolve().parents[2] / "docs" / "studio.md"


def _families() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| family | examples |"):]
    rows = table[:table.index("\n\n")].splitlines()[2:]
    return [(row.split("|")[1].strip(), example) for row in rows
            for example in re.findall(r'"([^"]+)"', row.split("|")[2])]


FAMILIES = _families()


def test_the_table_has_every_family() -> None:
    assert len({f for f, _ in FAMILIES}) == 12 and len(FAMILIES) >= 40


@pytest.mark.slow
def test_every_example_of_every_family_is_understood(composed: Callable[..., Path], tmp_path: Path) -> None:
    source = composed("deep house, 122 bpm", 5, 32)
    done: dict[str, str] = {}
    for family, example in FAMILIES:
        copy = tmp_path / source.name  # a project's folder is named by its id
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(source, copy)
        try:
            directed = direct(copy, example)
        except InvalidInput as exc:  # only "the song already is that" (no bridge, nothing frozen …)
            assert str(exc).startswith(("nothing would change", "nothing to change")), (family, example, str(exc))
            assert "\n" not in str(exc)
            done[example] = "nothing to change"
            continue
        done[example] = directed.edit.kind if directed.kind == "variation" else directed.kind
    assert set(done) == {e for _, e in FAMILIES}
    assert done["mute the drums"] == "revision"  # the mixer's mute of the whole track
    assert (done["love it"], done["keep the drums"], done["make the bass busier"]) == ("praise", "freeze", "variation")
