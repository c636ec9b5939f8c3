"""Each family of requests on several genres, through real `bandstand` processes: compose
a song, then `bandstand edit SESSION "REQUEST" --json` for each family, and check what the
variation says it changes and keeps (nothing is accepted here, so every request is made
against the first take); then a freeze, praise, the mix desk's words (a level, a tempo, a key
in the song's own mode: one revision each, as the studio's router says) and a request nobody
understands."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GENRES = ["house music", "dark trap beat"]  # genres whose songs have the five core parts (a four-on-the-floor and a trap kit)
PARTS = {"drums", "bass", "chords", "lead", "pad"}


def bandstand(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "bandstand", *args], capture_output=True, text=True, timeout=180,
                          check=False)
    assert proc.returncode == code, (args, proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def edit(session: Path, request: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bandstand("edit", str(session), request, "--json").stdout)
    for key in ("variation_id", "base_revision", "affected_parts", "preserved_parts", "cost", "phrases", "diff"):
        assert key in data, key
    return data


def edit_or_revision(session: Path, request: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(bandstand("edit", str(session), request, "--json").stdout)
    return data


@pytest.fixture(scope="module", params=GENRES)
def song(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("edits")
    proc = bandstand("compose", request.param, "--seed", "4", "--bars", "32", "--no-audio", "--out", str(out),
                     "--json")
    data = json.loads(proc.stdout)
    assert set(data["parts"]) == PARTS, data["parts"]
    return Path(data["session_dir"])


# request → (parts that must be redone, parts that may be redone too, cost classes allowed)
FAMILIES: dict[str, tuple[set[str], set[str], set[str]]] = {
    "make the bass busier": ({"bass"}, set(), {"moderate"}),
    "simpler drums": ({"drums"}, {"bass"}, {"moderate"}),
    "darker": (set(), PARTS, {"expensive"}),
    "more energy": (set(), {"drums", "bass", "lead"}, {"moderate", "expensive"}),
    "switch to lydian": ({"chords"}, {"bass", "lead", "pad"}, {"expensive"}),
    "in 3/4": ({"drums", "chords"}, PARTS, {"expensive"}),
    "double-time drums in bars 9-16": ({"drums"}, {"bass"}, {"moderate"}),
    "swap the lead for a flute": ({"lead"}, set(), {"cheap"}),
    "add a string pad": ({"pad-2"}, set(), {"moderate"}),
    "add an arp to bars 17-24": ({"arp"}, set(), {"moderate"}),
    "remove the pad": ({"pad"}, set(), {"cheap"}),
    "regenerate the lead": ({"lead"}, set(), {"moderate"}),
    "new chord progression": ({"chords"}, {"bass", "lead", "pad"}, {"expensive"}),
    "make it disco": ({"drums"}, PARTS, {"expensive"}),
}


def test_every_family(song: Path) -> None:
    """Two requests at a time, as two people could send them: each proposes its own variation
    against revision 1 (the session's lock keeps their writes apart)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = dict(zip(FAMILIES, pool.map(lambda r: edit(song, r), FAMILIES), strict=True))
    for request, (must, may, costs) in FAMILIES.items():
        data = answers[request]
        affected = set(data["affected_parts"])
        assert must <= affected <= must | may, (request, affected)
        assert data["cost"] in costs, (request, data["cost"])
        assert data["base_revision"] == 1 and data["variation_id"]
        assert set(data["preserved_parts"]) == (PARTS - affected), request
        assert any(text != "unchanged" for text in data["diff"].values()), request
        if "drums" not in affected:
            assert data["diff"].get("drums") in (None, "unchanged"), request
    assert len({d["variation_id"] for d in answers.values()}) == len(FAMILIES)


def test_freeze_praise_alternatives_and_words_it_does_not_know(song: Path) -> None:
    frozen = edit(song, "keep the drums")
    assert frozen["kind"] == "freeze" and frozen["revision"] == 2 and frozen["frozen_parts"] == ["drums"]
    busier = edit(song, "make it busier")
    assert "drums" not in busier["affected_parts"] and busier["base_revision"] == 2
    assert edit(song, "love it")["kind"] == "praise"
    first = edit(song, "try a different bassline")
    second = edit(song, "try something different")
    assert first["affected_parts"] == second["affected_parts"] == ["bass"]
    assert first["variation_id"] != second["variation_id"]
    for words, step in (("the bass louder", "Turn Bass up"), ("slow it down to 85", "Set tempo to 85 BPM")):
        made = edit_or_revision(song, words)  # the mix desk's: one revision
        assert made["kind"] == "revision" and step in made["steps"], (words, made)
    moved = edit_or_revision(song, "change the key to F# minor")  # same mode: transposed; else composed again
    if moved["kind"] == "revision":
        assert "Set key to F# minor" in moved["steps"], moved
    else:
        assert moved["cost"] == "expensive" and {"chords", "pad"} <= set(moved["affected_parts"]), moved
    refused = bandstand("edit", str(song), "make it sparkle like the sea", code=2)
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bandstand: error: not understood") and "try e.g." in lines[0]
    shown = json.loads(bandstand("alternatives", str(song), "lead", "--count", "2", "--json").stdout)
    assert [a["label"] for a in shown["alternatives"]] == ["A", "B"]
