"""`bandstand edit` and `bandstand alternatives` as a user meets them: the printed blast
radius, cost, diff and phrases; the JSON; one-line errors with exit 2; help examples."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.producer.composing.compose import compose_song


@pytest.fixture(scope="module")
def song(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli-edit")
    return compose_song("funk groove", seed=3, bars=16, out_dir=str(out), render_audio=False).result.session_dir


def test_edit_prints_what_it_redoes_keeps_costs_and_changes(song: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["edit", str(song), "make the bass busier"]) == 0
    out = capsys.readouterr().out
    assert "against revision 1: bass: density +0.3" in out
    assert "redoes:    bass" in out and "keeps:     drums, chords, lead" in out and "cost:      moderate" in out
    assert "bass: " in out and "same roots" in out and "Phrases (" in out and "bandstand accept" in out


def test_an_expensive_edit_says_so(song: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["edit", str(song), "change the key to F# minor"]) == 0
    assert "EXPENSIVE — this redoes a lot; listen before you accept" in capsys.readouterr().out


def test_edit_json(song: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["edit", str(song), "regenerate the lead", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["affected_parts"] == ["lead"] and data["base_revision"] == 1 and data["cost"] == "moderate"
    assert data["phrases"] and {"id", "part", "bars", "added", "removed", "modified"} <= set(data["phrases"][0])
    assert set(data["diff"]) >= {"drums", "bass", "lead"} and data["diff"]["drums"] == "unchanged"


def test_alternatives_print_labels_scores_and_diffs(song: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["alternatives", str(song), "drums", "--count", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 alternatives of the drums" in out and "A  " in out and "B  " in out and "score: harmony" in out


@pytest.mark.parametrize(("args", "fragment"), [
    (["edit", "{song}", "make it sparkle"], "not understood"),
    (["edit", "{song}", ""], "say what to change"),
    (["edit", "{song}", "regenerate the arp"], "has no arp part"),
    (["edit", "{song}", "more energy in the bridge"], "has no bridge"),
    (["edit", "/nowhere/session", "make the bass busier"], "does not exist"),
    (["alternatives", "{song}", "kazoo"], "no 'kazoo'"),
    (["alternatives", "{song}", "bass", "--count", "9"], "1 to 5"),
])
def test_bad_input_is_one_line_exit_2(song: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                      fragment: str) -> None:
    assert run([a.format(song=song) for a in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bandstand: error:") and fragment in err[0]


@pytest.mark.parametrize("command", ["edit", "ask", "alternatives"])
def test_help_has_examples_for_the_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([command, "--help"]) == 0
    text = capsys.readouterr().out
    examples = [line.strip() for line in text.split("Examples:", 1)[1].splitlines() if "bandstand " in line]
    assert examples and all(shlex.split(line)[1] == command for line in examples)


def test_the_mixers_words_make_a_revision_and_questions_get_answers(
        tmp_path: Path, song: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    mine = tmp_path / song.name
    shutil.copytree(song, mine)
    assert run(["edit", str(mine), "mute the drums"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Revision 2: ") and "✓ Mute Drums" in out and "bandstand undo" in out
    assert run(["ask", str(mine), "what key is this in?", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "answer" and data["answer"].startswith("It is in ") and data["reasoning"]
    assert run(["ask", str(mine), "mute the bass"]) == 2
    assert "is not a question" in capsys.readouterr().err
