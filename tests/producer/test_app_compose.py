"""`App.compose`, `App.resume` and `App.compose_steps`: what the clients call to compose and continue a
song (#29: no client imports `producer.composing.compose`) — a paused run continued, on real files."""

from __future__ import annotations

from pathlib import Path

from bandstand.producer import App
from bandstand.producer.app import ComposeRequest


def test_compose_pauses_at_a_gate_and_resume_approves_it(tmp_path: Path) -> None:
    app = App(tmp_path / "songs")
    request = ComposeRequest("funk groove in E minor", seed=3, bars=8, assume_defaults=False,
                             approval_gates=("harmony",), stall_timeout=120.0)
    paused = app.compose(request)
    assert paused.result.status == "paused"
    assert paused.result.state.config.approval_gates == ["harmony"]
    assert paused.result.state.config.stall_timeout == 120.0
    assert not (paused.result.session_dir / "manifest.json").exists()

    done = app.resume(paused.result.session_dir, "approve", limits={"pipeline_timeout": 600.0})
    assert done.result.status == "completed" and done.result.session_dir == paused.result.session_dir
    assert done.result.state.config.pipeline_timeout == 600.0
    assert (done.result.session_dir / "manifest.json").is_file()


def test_the_steps_a_progress_display_lists() -> None:
    steps = App.compose_steps()
    assert steps[0] == "intent" and steps[-1] == "output" and "harmony" in steps
