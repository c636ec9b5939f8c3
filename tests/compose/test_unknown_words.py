"""Honest words (issue #30): a genre word bandstand does not know is played as its nearest
genre and said so — a warning on the CLI naming the word and what was chosen, and the same
note in the manifest; genres that used to be played as a neighbour are their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.compose.intent import decompose


def test_an_unknown_genre_word_is_a_cli_warning_and_a_manifest_note(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bandstand", "compose", "skiffle for the village fair", "--bars", "8",
                           "--seed", "2", "--no-audio", "--yes", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr
    warning = "'skiffle' is not a genre bandstand knows; playing country, the nearest"
    assert f"warning: {warning}" in " ".join(proc.stderr.split()), proc.stderr
    manifest = json.loads(next(tmp_path.glob("session-*/manifest.json")).read_text())
    assert manifest["genre"] == ["country"] and warning in manifest["assumptions"]


@pytest.mark.parametrize("prompt, genre", [("a tango", "tango"), ("a cumbia for dancing", "cumbia"),
                                           ("a polka", "polka"), ("flamenco rumba in E phrygian", "flamenco"),
                                           ("highlife", "highlife"), ("some grime", "grime"),
                                           ("hyperpop", "hyperpop"), ("an industrial track", "industrial"),
                                           ("80s Japanese city pop", "city pop"), ("k-pop", "k-pop"),
                                           ("shoegaze", "shoegaze"), ("bluegrass", "bluegrass")])
def test_genres_once_played_as_a_neighbour_are_known(prompt, genre):
    intent = decompose(prompt)
    assert intent.genre[0] == genre and not intent.substitutions
    assert not any(a.field == "genre" for a in intent.ambiguities)


def test_a_manifest_without_assumptions_says_so(tmp_path: Path) -> None:
    from bandstand.compose import compose

    result = compose("chicago house track", seed=1, bars=8, out_dir=str(tmp_path), render_audio=False,
                     render_pianoroll=False)
    assert result.manifest is not None and result.manifest["assumptions"] == []
