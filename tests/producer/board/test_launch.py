"""`bandstand board launch` on the built-in backend: a conductor and 3 musicians finish a 6-task
board on SQLite and on PostgreSQL, as real processes, exactly as the protocol's states allow."""

from __future__ import annotations

from pathlib import Path

import mido

from bandstand.board import CONDUCTOR_TASK, Board, State

from .launching import message_types, run_launch

#: What one task's thread holds from claim to complete, in order (the protocol's two reviews).
LIFE = ["instruction", "result", "review_request", "approval", "resumption", "completion", "approval",
        "completion_ack"]


def test_three_musicians_finish_six_tasks(board_url: str, tmp_path: Path) -> None:
    done, outcome = run_launch(board_url, tmp_path, "--musicians", "3", "--tasks", "6")
    assert sorted(outcome["tasks"]) == [f"task-{k:02d}" for k in range(1, 7)]
    assert {t["state"] for t in outcome["tasks"].values()} == {"complete"}
    assert outcome["approved"] == 12 and outcome["rejected"] == 0
    assert set(outcome["musicians"].values()) == {0}, outcome["musicians"]  # each ended cleanly
    assert "complete" in done.stderr.splitlines()[-1]  # progress was shown while it ran
    with Board.open(board_url, workdir=tmp_path) as board:
        assert board.task(CONDUCTOR_TASK).state is State.COMPLETE
        workers = set()
        for task_id in outcome["tasks"]:
            task = board.task(task_id)
            workers.add(task.session_id)
            assert message_types(board, task_id) == LIFE
            assert task.worked_by == f"musician-{task_id}"
            song = tmp_path / "output" / "board" / task_id
            notes = sum(1 for track in mido.MidiFile(song / "midi" / "full-arrangement.mid").tracks
                        for msg in track if msg.type == "note_on" and msg.velocity > 0)
            assert notes > 50, (task_id, notes)
            status = (tmp_path / "temp" / f"{task_id}-status").read_text()
            assert "step 1 started" in status and "[ctx: " in status
            assert "files verified; checks: state 0 · temp 0 · headroom 0" in status
        assert not [t for t in board.tasks() if t.task_id.startswith("fallback-")]
    assert workers <= set(outcome["musicians"])


def test_a_launch_run_again_on_a_finished_board_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'board.db'}"
    run_launch(url, tmp_path, "--musicians", "1", "--tasks", "1")
    song = tmp_path / "output" / "board" / "task-01" / "midi" / "full-arrangement.mid"
    before = song.read_bytes()
    _, outcome = run_launch(url, tmp_path, "--musicians", "1", "--tasks", "1")
    assert outcome["tasks"] == {"task-01": {"state": "complete", "worked_by": "musician-task-01"}}
    assert outcome["approved"] == 0 and song.read_bytes() == before


def test_a_task_song_is_the_song_composed_alone(tmp_path: Path) -> None:
    """Same instruction + seed (the task's number) → the same MIDI bytes as composing it alone."""
    from bandstand.producer.app import App, ComposeRequest
    from bandstand.producer.board.board_launch import BUILTIN_TASKS
    from bandstand.producer.board.board_work import BARS

    url = f"sqlite:///{tmp_path / 'board.db'}"
    run_launch(url, tmp_path / "band", "--musicians", "1", "--tasks", "2")
    alone = App(tmp_path / "alone").compose(ComposeRequest(BUILTIN_TASKS[1], seed=2, bars=BARS))
    for name in ("full-arrangement.mid", "bass.mid", "drums.mid"):
        launched = tmp_path / "band" / "output" / "board" / "task-02" / "midi" / name
        assert launched.read_bytes() == (Path(alone.result.state.session_dir) / "midi" / name).read_bytes(), name


def test_a_check_that_keeps_failing_ends_in_a_handoff(tmp_path: Path) -> None:
    """A High deviation in the task's file makes the temp-files check fail at every checkpoint: the
    musician reports an error, the conductor proposes a fix three times, then asks for an exit, and
    the musician hands off (HANDOFF written, state exited); the launch exits 1 naming the task."""
    import json
    import subprocess

    from .launching import env, launch_cmd

    (tmp_path / "temp").mkdir()
    (tmp_path / "temp" / "task-01-deviations").write_text("High: the form changed to AABA\n")
    url = f"sqlite:///{tmp_path / 'board.db'}"
    done = subprocess.run(launch_cmd(url, tmp_path, "--musicians", "1", "--tasks", "1"), env=env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["tasks"]["task-01"]["state"] == "exited"
    with Board.open(url, workdir=tmp_path) as board:
        kinds = message_types(board, "task-01")
        errors = [m.message for m in board.messages_since(0, task_id="task-01") if m.message_type == "error"]
    assert kinds.count("error") == 4 and kinds.count("fix_proposal") == 3
    assert kinds[-2:] == ["exit_request", "handoff"]
    assert all("the temp check found issues (exit 1)" in e for e in errors)
    handoff = (tmp_path / "temp" / "task-01-HANDOFF").read_text()
    assert "High: the form changed to AABA" in handoff
