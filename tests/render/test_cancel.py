"""Cancelling a render: it stops at the first check after `cancelled()` says yes, in any stage,
writes no file, and leaves no synthesis process behind; a render nobody cancels is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.render import render_wav
from bandstand.render.cancel import RenderCancelled, checker, never
from tests.midi.songs import demo_song


def children() -> list[str]:
    kids: list[str] = []
    for task in Path("/proc/self/task").glob("*"):
        try:
            kids += (task / "children").read_text().split()
        except OSError:
            continue
    return kids


class After:
    """Says yes from the `n`th question on, and counts the questions."""

    def __init__(self, n: int) -> None:
        self.n, self.asked = n, 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked >= self.n


def test_checker() -> None:
    assert checker(None) is never
    checker(lambda: False)()
    with pytest.raises(RenderCancelled):
        checker(lambda: True)()


@pytest.mark.parametrize(("workers", "share"), [(1, 0.0), (1, 0.1), (1, 0.95), (2, 0.0), (2, 0.05), (2, 0.95)])
def test_a_cancelled_render_stops_writes_nothing_and_leaves_no_child(tmp_path: Path, workers: int,
                                                                     share: float) -> None:
    """Cancelled at the first question, in the synthesis (the first tenth of the questions: the
    synthesis threads ask every slice) and late (the master or the write)."""
    total = After(10**9)
    render_wav(demo_song(8), tmp_path / "whole.wav", workers=workers, cancelled=total)
    (tmp_path / "whole.wav").unlink()
    at = max(1, int(total.asked * share))
    before = children()
    asked = After(at)
    with pytest.raises(RenderCancelled):
        render_wav(demo_song(8), tmp_path / "song.wav", workers=workers, stems_dir=tmp_path / "stems",
                   cancelled=asked)
    # stopped at the first check that said yes: every other thread asking then (the two synthesis threads; late,
    # the master's writer and the four stems' writers) asks once more, and stops there
    assert at <= asked.asked <= at + 4
    assert not (tmp_path / "song.wav").exists()
    left = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert all(p.parent.name == "stems" and p.suffix == ".wav" for p in left), left  # whole stems at most
    assert children() == before


def test_questions_asked_leave_the_bytes_alone(tmp_path: Path) -> None:
    asked = After(10**9)
    plain = render_wav(demo_song(4), tmp_path / "plain.wav", workers=2).read_bytes()
    assert render_wav(demo_song(4), tmp_path / "asked.wav", workers=2, cancelled=asked).read_bytes() == plain
    assert asked.asked > 100  # slices, chunks of the chains, the sum, the master and the write all ask
