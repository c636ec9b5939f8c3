"""`producer.execution.running.Control`: progress heard and cancel honoured by the long use cases — compose (stops at
the next node, resumable), alternatives (the takes made are discarded), export (nothing is
written)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.producer.composing.compose import compose_song
from bandstand.producer.execution.running import Cancelled, Control
from bandstand.producer.requests.alternatives import alternatives
from bandstand.producer.sessions.export import export_session
from bandstand.producer.sessions.projects import open_project


def test_a_control_reports_and_checks() -> None:
    heard: list[tuple[float, float | None, str]] = []
    control = Control(progress=lambda d, t, m: heard.append((d, t, m)))
    control.report(1, 3, "one")
    control.check("working")
    control.cancel.set()
    assert control.cancelled
    with pytest.raises(Cancelled, match=r"^cancelled while working$"):
        control.check("working")
    assert heard == [(1, 3, "one")]
    Control().report(1, None, "nobody listens")


def test_compose_tells_its_nodes_and_stops_when_cancelled(tmp_path: Path) -> None:
    heard: list[tuple[float, float | None, str]] = []
    done = compose_song("bossa nova", seed=4, bars=8, out_dir=str(tmp_path / "a"), render_audio=False,
                        control=Control(progress=lambda d, t, m: heard.append((d, t, m)))).result
    assert done.status == "completed"
    assert [d for d, _, _ in heard] == list(range(1, len(heard) + 1)) and heard[-1][0] == heard[-1][1]
    assert len(heard) == len(done.state.nodes)

    control = Control()

    def cancel_after_harmony(done: float, total: float | None, message: str) -> None:
        if message.startswith("✓ harmony"):
            control.cancel.set()
    control = Control(cancel=control.cancel, progress=cancel_after_harmony)
    stopped = compose_song("bossa nova", seed=4, bars=8, out_dir=str(tmp_path / "b"), render_audio=False,
                           control=control).result
    assert stopped.status == "cancelled" and stopped.state.nodes["harmony"].status == "completed"
    assert stopped.state.nodes["arrangement"].status != "completed"
    assert not (stopped.session_dir / "revisions").exists()


def test_alternatives_cancelled_midway_discard_the_takes_made(composed_copy: Callable[..., Path]) -> None:
    root = composed_copy("funk groove", 3, 16)
    control = Control()
    heard: list[float] = []

    def cancel_after_first(done: float, total: float | None, message: str) -> None:
        heard.append(done)
        control.cancel.set()
    with pytest.raises(Cancelled, match=r"^cancelled while making take 2 of 3 of the bass$"):
        alternatives(root, "bass", count=3, control=Control(cancel=control.cancel, progress=cancel_after_first))
    assert heard == [1]
    # the takes are ranked before any is proposed: a cancel midway leaves none waiting
    assert all(v.state == "discarded" for v in open_project(root).variations())
    made = alternatives(root, "bass", count=2)  # and the next set is made as if nothing happened
    assert [a.label for a in made.alternatives] == ["A", "B"]


def test_export_cancelled_during_the_render_writes_nothing(composed_copy: Callable[..., Path], tmp_path: Path) -> None:
    root = composed_copy("funk groove", 3, 16)
    cancel = threading.Event()

    def cancel_on_render(done: float, total: float | None, message: str) -> None:
        if message == "rendering the audio":
            cancel.set()
    with pytest.raises(Cancelled, match=r"^cancelled while rendering the audio$"):
        export_session(root, "wav", tmp_path / "out", control=Control(cancel=cancel, progress=cancel_on_render))
    assert not (tmp_path / "out").exists()
    heard: list[tuple[float, float | None, str]] = []
    done = export_session(root, "musicxml", tmp_path / "out", control=Control(progress=lambda *a: heard.append(a)))
    assert heard == [(0, 2, "reading the song"), (1, 2, "writing musicxml"), (2, 2, "wrote 1 file")]
    assert done.files == (tmp_path / "out" / "lead-sheet.musicxml",)
