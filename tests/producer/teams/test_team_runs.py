"""Team runs through `App.team_runs`, on real files: a run made ready from a team file (its log folder
made first, a mistake one line), run offline with the example team, then listed, followed and — done —
not continued; a run the log view cannot find is `NotFound`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bandstand.errors import InvalidInput, NotFound, OutputNotWritable
from bandstand.producer import App

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "team.toml"


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./bandstand.toml
    for name in ("BANDSTAND_CONFIG", "BANDSTAND_RUNS_DIR", "BANDSTAND_BACKEND"):
        monkeypatch.delenv(name, raising=False)


def test_a_run_made_ready_runs_and_is_listed_followed_and_found_done(tmp_path: Path) -> None:
    runs = App.team_runs(tmp_path / "runs")
    ready = runs.start(EXAMPLE, "a late-night groove in A minor")
    assert ready.log_dir.parent == tmp_path / "runs" and ready.log_dir.is_dir() and ready.team is not None
    result = asyncio.run(ready.team.run(ready.prompt))
    assert result.done

    [listed] = runs.runs()
    assert listed.name == ready.log_dir.name and listed.as_dict()["kind"] == "team"
    follower = runs.follow(listed.name)
    events = follower.read()
    assert events[0]["type"] == "team_started" and events[-1]["type"] == "team_ended"
    assert follower.read() == []  # nothing new since

    again = runs.resume(ready.log_dir)
    assert again.team is None and again.done == result.answer and again.log_dir == ready.log_dir


def test_the_runs_folder_is_the_configurations_unless_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_RUNS_DIR", str(tmp_path / "elsewhere"))
    assert App.team_runs().root == tmp_path / "elsewhere"
    assert App.team_runs(tmp_path / "here").root == tmp_path / "here"
    assert App.team_runs().runs() == []  # a runs folder that does not exist has no runs


def test_mistakes_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="the prompt is empty"):
        App.team_runs(tmp_path / "runs").start(EXAMPLE, "  ")
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(OutputNotWritable, match="cannot create the log folder"):
        App.team_runs(tmp_path / "file").start(EXAMPLE, "a groove")
    with pytest.raises(NotFound, match="no run named"):
        App.team_runs(tmp_path / "runs").follow("../escape")
