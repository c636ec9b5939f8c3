"""The tempo map holds under any directing: whatever sequence of tempo words (the whole song or a
section or some bars; a BPM, slower/faster, half the tempo), idioms said with tempo words and
accepted in all or some phrases, "make the drums busier", undos and redos — the MIDI file's tempo
events say, bar by bar, exactly what a plain per-bar model of those requests says, and the same as
the project's own map (`Project.tempo` and `tempo_changes`).

The model is a list of one tempo per bar: a request sets (or moves) the tempo of the bars it names
and leaves every other bar alone; an undo goes back one state, a redo forward one. It shares no
code with the engine's tempo map (`score.tempo_map`)."""

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
BPB_TICKS = 4 * 480
SECTIONS = ("chorus", "verse", "intro")

words = st.one_of(
    st.builds(lambda bpm: (f"set the tempo to {bpm}", None, ("=", bpm)), st.integers(60, 180)),
    st.builds(lambda s, bpm: (f"set the {s} to {bpm} BPM", s, ("=", bpm)), st.sampled_from(SECTIONS),
              st.integers(60, 180)),
    st.builds(lambda a, n, bpm: (f"{bpm} BPM in bars {a}-{a + n}", (a, a + n), ("=", bpm)),
              st.integers(1, 28), st.integers(0, 6), st.integers(60, 180)),
    st.builds(lambda s, d: (f"slow the {s} down by {d}", s, ("+", -d)), st.sampled_from(SECTIONS),
              st.integers(1, 30)),
    st.builds(lambda a: (f"half the tempo in bars {a}-{a + 3}", (a, a + 3), ("*", 0.5)), st.integers(1, 29)),
    st.just(("faster", None, ("+", 10))),
)
step = st.one_of(
    st.tuples(st.just("tempo"), words, st.just([])),
    st.tuples(st.just("idiom"), words.filter(lambda w: w[1] is not None), st.lists(st.integers(0, 99), max_size=3)),
    st.tuples(st.just("busier"), st.just(("make the drums busier", None, None)), st.just([])),
    st.tuples(st.sampled_from(["undo", "redo"]), st.just(("", None, None)), st.just([])),
)


def _file_tempos(path: Path) -> list[float]:
    """The tempo at the start of every bar, from the file's tempo events (each on a bar line)."""
    events: list[tuple[int, float]] = []
    tick = 0
    for msg in mido.MidiFile(path).tracks[0]:
        tick += msg.time
        if msg.type == "set_tempo":
            assert tick % BPB_TICKS == 0, tick
            events.append((tick, round(mido.tempo2bpm(msg.tempo), 2)))
    return [[bpm for t, bpm in events if t <= (bar - 1) * BPB_TICKS][-1] for bar in range(1, BARS + 1)]


def _project_tempos(project: Project) -> list[float]:
    out = []
    for bar in range(1, BARS + 1):
        beat = (bar - 1) * 4.0
        out.append([project.tempo, *(c.bpm for c in project.tempo_changes if c.beat <= beat)][-1])
    return out


def _bars_of(project: Project, scope: str | tuple[int, int] | None) -> set[int]:
    if scope is None:
        return set(range(1, BARS + 1))
    if isinstance(scope, tuple):
        return set(range(scope[0], min(scope[1], BARS) + 1))
    return {b for s in project.sections if re.sub(r"[\s\d]+$", "", s.name.lower()) == scope
            for b in range(s.start_bar, s.start_bar + s.bars)}


def _apply(model: list[float], bars: set[int], how: tuple[str, float], whole: bool) -> list[float]:
    op, x = how
    if whole and op == "=":
        return [float(x)] * len(model)
    new = [x if op == "=" else t + x if op == "+" else t * x for t in model]
    clamp = [round(min(300.0, max(30.0, float(v))), 2) for v in new]
    return [clamp[i] if i + 1 in bars else model[i] for i in range(len(model))]


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=5))
def test_the_midi_tempo_events_equal_the_map(composed: Callable[..., Path],
                                             steps: list[tuple[str, tuple[str, object, object], list[int]]]) -> None:
    source = composed("pop song in Bb major", 3, BARS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root)
        full = root / "midi" / "full-arrangement.mid"
        head = open_project(root).head
        history, at = [_project_tempos(head)], 0  # the model's states and where HEAD is among them
        assert _file_tempos(full) == history[0]
        for kind, (text, scope, how), picks in steps:
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
                request = text if kind != "idiom" else f"make the bass busier and {text}"
                try:
                    done = direct(root, request)
                except InvalidInput:  # nothing would change: the song already is what was asked
                    continue
                if done.kind == "variation":
                    variation = session.variation(None)
                    ids = variation.phrase_ids()
                    chosen = sorted({ids[i % len(ids)] for i in picks}) if picks and ids else None
                    open_project(root).accept(variation.id, chosen)
                    accepted = set(range(1, BARS + 1)) if chosen is None else {
                        b for p in variation.phrases if p.id in chosen for b in range(p.start_bar, p.end_bar + 1)}
                else:
                    accepted = set(range(1, BARS + 1))
                if how is not None:
                    assert isinstance(how, tuple)
                    model = _apply(model, _bars_of(head, scope) & accepted, how,  # type: ignore[arg-type]
                                   scope is None and accepted == set(range(1, BARS + 1)))
                history, at = [*history[:at + 1], model], at + 1
            project = open_project(root).head
            expected = history[at]
            assert _project_tempos(project) == expected, (kind, text, picks)
            assert _file_tempos(full) == expected, (kind, text, picks)
