"""A part from a model server (`compose.parts.remote`): taken when it passes the checks, refused
(and the built-in part played, the part's summary saying why) when it is garbage, late, in the
wrong key, empty or an error — against a local server speaking the protocol."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.compose import codec
from bandstand.compose.parts.remote import PROTOCOL, parse_generators
from bandstand.errors import InvalidInput
from bandstand.producer.composing.compose import compose_song
from tests.peers.part_server import PartServer

PROMPT = "funk in E minor, 100 BPM"


def _compose(tmp_path: Path, url: str, **more: object) -> object:
    return compose_song(PROMPT, seed=3, bars=8, render_audio=False, render_pianoroll=False, out_dir=str(tmp_path),
                        generators={"bass": url}, assume_defaults=True, **more).result


def _bass(result: object) -> tuple[list[tuple[float, int]], str, dict[str, object]]:
    state = result.state  # type: ignore[attr-defined]
    record = state.nodes["parts:bass"]
    return _notes(record.output["track"]), record.summary, record.output["generator"]


def _notes(encoded: object) -> list[tuple[float, int]]:
    return [(round(n.start, 3), n.pitch) for n in codec.decode_track(encoded).notes]


@pytest.mark.parametrize("path", ["/good", "/json"])
def test_a_good_answer_is_the_part(tmp_path: Path, path: str) -> None:
    with PartServer() as peer:
        result = _compose(tmp_path, peer.url + path)
    (asked_path, body), = peer.requests
    assert asked_path == path and body["protocol"] == PROTOCOL and body["role"] == "bass"
    assert body["bars"] == 8 and len(body["chords"]) == 8 and body["tempo"] == 100
    notes, summary, generator = _bass(result)
    chords = {c["bar"]: c["root"] for c in body["chords"]}
    expected = [((bar - 1) * 4.0 + beat, 36 + chords[bar]) for bar in body["plays_in_bars"] for beat in range(4)]
    assert notes == expected  # the peer's notes, exactly
    assert generator == {"url": peer.url + path, "used": True, "refused": None}
    assert "remote (127.0.0.1:" in summary


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/garbage", "not a MIDI file"),
        ("/wrong-key", "of its notes are in"),
        ("/slow", "no answer within 1 s"),
        ("/status", "HTTP 500"),
        ("/empty", "no notes inside the song"),
    ],
)
def test_a_refused_answer_leaves_the_built_in_part_and_says_why(tmp_path: Path, path: str, why: str) -> None:
    with PartServer(slow=4) as peer:
        result = _compose(tmp_path / "remote", peer.url + path, generator_timeout=1)
    built_in = compose_song(PROMPT, seed=3, bars=8, render_audio=False, render_pianoroll=False,
                            out_dir=str(tmp_path / "alone"), assume_defaults=True).result
    notes, summary, generator = _bass(result)
    assert notes == _bass_alone(built_in)  # the built-in part, as without a generator
    assert generator["used"] is False and why in str(generator["refused"])
    assert f"the bass generator at {peer.url + path} was not used" in summary and "built-in bass plays" in summary


def _bass_alone(result: object) -> list[tuple[float, int]]:
    return _notes(result.state.nodes["parts:bass"].output["track"])  # type: ignore[attr-defined]


def test_generator_items_are_checked_before_anything_runs(tmp_path: Path) -> None:
    assert parse_generators(["bass=http://127.0.0.1:9/part", "Sub Bass=https://x/y"]) == {
        "bass": "http://127.0.0.1:9/part", "sub_bass": "https://x/y"}
    for item, words in [("bass", "ROLE=URL"), ("kazoo=http://x", "unknown role 'kazoo'"),
                        ("bass=file:///etc/passwd", "must start with http:// or https://")]:
        with pytest.raises(InvalidInput, match=words):
            parse_generators([item])
    run = subprocess.run([sys.executable, "-m", "bandstand", "compose", "x", "--no-audio", "--out", str(tmp_path),
                          "--generator", "bass=ftp://x"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "must start with http:// or https://" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and not list(tmp_path.iterdir())  # nothing was made
