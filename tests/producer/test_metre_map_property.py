"""The metre map holds under any directing: whatever sequence of metre words for a section or some
bars ("put the chorus in 3/4", "7/8 in bars 5-8"), accepted in all or some phrases, "make the
drums busier", undos and redos — the MIDI file's time-signature events say, bar by bar, exactly
what a plain per-bar model of those requests says, and the same as the project's own map
(`Project.time_signature` and `metre_changes`); every section marker stands on its bar's line.

The model is a list of one time signature per bar: a request puts the bars it names (and that
were accepted) in its metre and leaves every other bar alone; an undo goes back one state, a redo
forward one. It shares no code with the engine's metre map (`score.metre_map`)."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import mido
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.producer.requests.direct import direct
from bandstand.producer.sessions.projects import open_project
from bandstand.studio import Project

BARS = 32
PPQ = 480
SECTIONS = ("chorus", "verse", "intro")
METRES = ((3, 4), (6, 8), (7, 8), (4, 4), (5, 4))

words = st.one_of(
    st.builds(lambda s, m: (f"put the {s} in {m[0]}/{m[1]}", s, m), st.sampled_from(SECTIONS), st.sampled_from(METRES)),
    st.builds(lambda a, n, m: (f"{m[0]}/{m[1]} in bars {a}-{a + n}", (a, a + n), m),
              st.integers(2, 28), st.integers(0, 5), st.sampled_from(METRES)),
)
step = st.one_of(
    st.tuples(st.just("metre"), words, st.lists(st.integers(0, 99), max_size=3)),
    st.tuples(st.just("busier"), st.just(("make the drums busier", None, None)), st.just([])),
    st.tuples(st.sampled_from(["undo", "redo"]), st.just(("", None, None)), st.just([])),
)

Metre = tuple[int, int]


def _ticks(metre: Metre) -> int:
    return metre[0] * 4 * PPQ // metre[1]


def _file_metres(path: Path) -> tuple[list[Metre], list[int]]:
    """The time signature of every bar from the file's time-signature events (each on a bar line),
    and the tick of every section marker."""
    events: list[tuple[int, Metre]] = []
    markers: list[int] = []
    tick = 0
    for msg in mido.MidiFile(path).tracks[0]:
        tick += msg.time
        if msg.type == "time_signature":
            events.append((tick, (msg.numerator, msg.denominator)))
        elif msg.type == "marker":
            markers.append(tick)
    out: list[Metre] = []
    at = 0
    for _ in range(BARS):
        here = [m for t, m in events if t <= at]
        out.append(here[-1])
        at += _ticks(out[-1])
    starts = [0]
    for metre in out:
        starts.append(starts[-1] + _ticks(metre))
    assert all(t in starts for t, _ in events), (events, starts)
    assert all(t in starts for t in markers), (markers, starts)
    return out, markers


def _project_metres(project: Project) -> list[Metre]:
    out = []
    for bar in range(1, BARS + 1):
        ts = project.time_signature
        for c in project.metre_changes:
            if c.bar <= bar:
                ts = c.time_signature
        out.append((ts.numerator, ts.denominator))
    return out


def _bars_of(project: Project, scope: str | tuple[int, int]) -> set[int]:
    if isinstance(scope, tuple):
        return set(range(scope[0], min(scope[1], BARS) + 1))
    return {b for s in project.sections if re.sub(r"[\s\d]+$", "", s.name.lower()) == scope
            for b in range(s.start_bar, s.start_bar + s.bars)}


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=4))
def test_the_midi_time_signatures_equal_the_map(composed: Callable[..., Path],
                                                steps: list[tuple[str, tuple[str, object, object], list[int]]]) -> None:
    source = composed("pop song in Bb major", 3, BARS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root)
        full = root / "midi" / "full-arrangement.mid"
        head = open_project(root).head
        history, at = [_project_metres(head)], 0
        assert _file_metres(full)[0] == history[0] == [(4, 4)] * BARS
        for kind, (text, scope, metre), picks in steps:
            session = open_project(root)
            model = history[at]
            if kind in ("undo", "redo"):
                if kind == "undo" and session.revision > 1:
                    session.undo()
                    at -= 1
                elif kind == "redo" and at + 1 < len(history):
                    session.redo()
                    at += 1
            else:
                try:
                    done = direct(root, text)
                except InvalidInput:  # nothing would change: those bars already are in that metre
                    continue
                assert done.kind == "variation", text
                variation = session.variation(None)
                ids = variation.phrase_ids()
                chosen = sorted({ids[i % len(ids)] for i in picks}) if picks and ids else None
                open_project(root).accept(variation.id, chosen)
                accepted = set(range(1, BARS + 1)) if chosen is None else {
                    b for p in variation.phrases if p.id in chosen for b in range(p.start_bar, p.end_bar + 1)}
                if metre is not None:
                    assert isinstance(scope, (str, tuple)) and isinstance(metre, tuple)
                    bars = _bars_of(head, scope) & accepted
                    model = [metre if i + 1 in bars else m for i, m in enumerate(model)]
                history, at = [*history[:at + 1], model], at + 1
            project = open_project(root).head
            expected = history[at]
            assert _project_metres(project) == expected, (kind, text, picks)
            assert _file_metres(full)[0] == expected, (kind, text, picks)
