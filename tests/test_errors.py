"""The error tree: the module's drawing is the classes' hierarchy; the control-flow signals are
the ones the code raises (a compose node's cancellation and attempt timeouts, the validator's
density limit), apart from errors; a pattern a musician wrote is a runtime failure naming the
musician, never a person's mistake (exit 2)."""

from __future__ import annotations

import inspect
import re

import pytest

import bandstand.errors as errors
from bandstand.cli import run


def _classes() -> dict[str, type]:
    return {name: value for name, value in vars(errors).items()
            if inspect.isclass(value) and value.__module__ == errors.__name__ and not name.startswith("_")}


def test_all_names_every_public_class() -> None:
    assert sorted(errors.__all__) == sorted(_classes())


def test_the_drawn_tree_is_the_hierarchy() -> None:
    drawn: dict[str, str] = {}  # class → its parent in the drawing
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").split("::", 1)[1].splitlines():
        m = re.match(r"^(\s*(?:[│ ]   )*)([├└]── )?([A-Z]\w+)\s", line + " ")
        if m is None or m.group(3) not in _classes():
            continue
        depth = len(m.group(1)) + (4 if m.group(2) else 0)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            drawn[m.group(3)] = stack[-1][1]
        stack.append((depth, m.group(3)))
    classes = _classes()
    roots = {"BandstandError", "Signal"}
    assert set(drawn) | roots == set(classes), set(classes) ^ (set(drawn) | roots)
    for name, parent in drawn.items():
        base = classes[name].__mro__[1]
        while base.__name__.startswith("_"):  # drawn past a private helper base (_SourceError)
            base = base.__mro__[1]
        assert base.__name__ == parent, f"{name} is drawn under {parent}, but is a {base.__name__}"


def test_signals_are_not_errors_and_are_the_ones_the_code_raises() -> None:
    from bandstand.compose import engine, nodes
    from bandstand.patterns import validate

    assert not issubclass(errors.Signal, errors.BandstandError)
    assert nodes.Cancelled is errors.Cancelled  # a compose node's cancellation
    assert engine.AttemptTimeout is errors.AttemptTimeout  # a node attempt over its limit
    assert issubclass(validate._TooDense, errors.DensityLimit)  # the validator's density budget
    for gone in ("RetryStage", "UseFallback"):  # signals nothing raised
        assert not hasattr(errors, gone)


def test_a_musicians_pattern_is_a_runtime_failure_that_names_the_musician() -> None:
    from bandstand.jam.recording import _Replay
    from bandstand.jam.transport import PlayedCycle

    cycle = PlayedCycle(cycle=0, round=1, layers=(("ARIA", 'note("c4 e4").frobnicate(2)'),), bpm=120, seconds=2)
    with pytest.raises(errors.MusicianError) as caught:
        _Replay("ARIA", (cycle,)).query_arc(0, 1)
    assert not isinstance(caught.value, errors.UserError)
    assert caught.value.musician == "ARIA" and caught.value.code == "MUSICIAN_PATTERN"
    assert isinstance(caught.value.__cause__, errors.PatternError)
    assert caught.value.exit_code == 1


def test_the_cli_exits_1_not_2_for_a_musicians_failure(capsys: pytest.CaptureFixture[str]) -> None:
    # the CLI's one place that turns errors into exit codes keeps the kinds apart
    from bandstand.cli import _fail

    assert _fail("ARIA's pattern could not be recorded", errors.MusicianError("x").exit_code) == 1
    assert "bandstand: error: ARIA's pattern" in capsys.readouterr().err
    assert run(["theory", "chord", "H7"]) == 2  # a person's mistake stays 2
