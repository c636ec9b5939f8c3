"""The output node says what its render does while it runs: `NodeProgress` events between
its start and its end — each part as it is played, then mixing, mastering and writing — and
the compose CLI shows them (one line per outcome in a log; the live table's row otherwise)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bandstand.compose.api import compose
from bandstand.protocol import compose as ev


def test_the_render_tells_each_part_then_the_mix_master_and_files(tmp_path: Path) -> None:
    events: list[Any] = []
    result = compose("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), on_event=events.append)
    assert result.state.status == "completed"
    started = next(i for i, e in enumerate(events) if isinstance(e, ev.NodeStarted) and e.node == "output")
    ended = next(i for i, e in enumerate(events) if isinstance(e, ev.NodeCompleted) and e.node == "output")
    said = [e.message for e in events[started:ended] if isinstance(e, ev.NodeProgress)
            and e.message != "rendering: loading the synthesizer"]  # said while compose's warm-up still loads
    assert {e.node for e in events if isinstance(e, ev.NodeProgress)} == {"output"}
    assert not [e for e in events[:started] + events[ended:] if isinstance(e, ev.NodeProgress)]
    song = result.song
    assert song is not None
    parts = len(song.tracks)
    played = [m for m in said if m.startswith("rendering: played ")]
    assert [m.split(" (")[0] for m in played] == [f"rendering: played {k} of {parts} parts" for k in range(1, parts + 1)]
    assert {m.split(" (")[1].rstrip(")") for m in played} == {t.name for t in song.tracks}
    assert said[len(played):] == ["rendering: mixing (sends and buses)", "rendering: mastering",
                                  f"rendering: writing the WAV and {parts + 1} stems"]
    assert ev.NodeProgress(pipeline_id="p", node="output", message="rendering: mastering").line() == \
        "… output: rendering: mastering"


def test_no_audio_says_nothing_of_a_render(tmp_path: Path) -> None:
    events: list[Any] = []
    compose("funk groove in E minor", seed=3, bars=8, out_dir=str(tmp_path), render_audio=False,
            on_event=events.append)
    assert not [e for e in events if isinstance(e, ev.NodeProgress)]
