"""Real-world Strudel programs play exactly as in strudel.cc's REPL, or are refused clearly.

Each program of tests/patterns/realworld/ runs under node through
@strudel/transpiler + core + mini + tonal 1.2.6 as the REPL runs it
(program.mjs) and through `run_program`; over the first cycles both must give
the same haps (onsets, durations, values) and the same tempo. A program we
cannot run must fail with the engine's own one-line error — never a different
sound. The figure (how many identical, how many refused) is the one
docs/patterns.md states.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bandstand.errors import PatternError
from bandstand.patterns.expr.evaluator import run_program
from tests.patterns.reference import (
    describe_difference,
    haps_json,
    node_ready,
    same_haps,
    strudel_programs,
)

pytestmark = pytest.mark.node

CYCLES = 4
HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "realworld").glob("*.strudel"))
DOCS = HERE.parent.parent / "docs" / "patterns.md"
_FIGURE = re.compile(r"\*\*(\d+) of (\d+) programs play identically; (\d+) are refused\*\*")


def _outcome(code: str, theirs: dict) -> str:
    """'identical', 'refused: <message>' or 'DIFFERENT: <how>'."""
    try:
        program = run_program(code)
        cps = 0.5 if program.cps is None else float(program.cps)
        ours = haps_json(program.pattern.query_arc(0, CYCLES, {"_cps": cps}))
    except PatternError as exc:
        return f"refused: {exc.message}"
    if abs(cps - theirs["cps"]) > 1e-12:
        return f"DIFFERENT: tempo {cps} cps here, {theirs['cps']} in Strudel"
    if not same_haps(ours, theirs["haps"]):
        return "DIFFERENT: " + describe_difference(ours, theirs["haps"])
    return "identical"


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    problem = node_ready()
    assert problem is None, problem
    codes = [p.read_text(encoding="utf-8") for p in PROGRAMS]
    answers = strudel_programs([{"code": c, "begin": 0, "end": CYCLES} for c in codes])
    found = {}
    for path, code, theirs in zip(PROGRAMS, codes, answers, strict=True):
        assert "error" not in theirs, f"Strudel cannot run {path.name}: {theirs['error']}"
        found[path.name] = _outcome(code, theirs)
    return found


def test_every_program_names_its_source() -> None:
    assert len(PROGRAMS) >= 400
    for path in PROGRAMS:
        assert path.read_text(encoding="utf-8").startswith("// source: "), path.name


@pytest.mark.parametrize("name", [p.name for p in PROGRAMS])
def test_plays_as_strudel_or_is_refused_in_one_line(name: str, outcomes: dict[str, str]) -> None:
    outcome = outcomes[name]
    assert not outcome.startswith("DIFFERENT"), f"{name}: {outcome}"
    if outcome.startswith("refused"):
        assert "\n" not in outcome and "column" in outcome, outcome


def test_the_documented_figure_is_the_measured_one(outcomes: dict[str, str]) -> None:
    found = _FIGURE.search(DOCS.read_text(encoding="utf-8"))
    assert found is not None, "docs/patterns.md states the corpus figure"
    identical = sum(o == "identical" for o in outcomes.values())
    refused = sum(o.startswith("refused") for o in outcomes.values())
    assert (int(found[1]), int(found[2]), int(found[3])) == (identical, len(outcomes), refused)


def test_the_programs_people_paste_play_identically(outcomes: dict[str, str]) -> None:
    """The programs written in the shape of pasted ones (tempo, const, blocks, samples,
    banks, visuals, voicings) all play as in Strudel, but the one refused on purpose."""
    own = {p.name: outcomes[p.name] for p in PROGRAMS if p.name.startswith("own-")}
    assert len(own) >= 40
    several = [p for p in PROGRAMS if p.name in own and re.search(r"^\s*\S*\$\w*:|setc[pm]", p.read_text(), re.M)]
    assert len(several) >= 20
    refused = {name: o for name, o in own.items() if o != "identical"}
    assert list(refused) == ["own-voicings-old.strudel"], refused
    assert "remembers the last chord" in refused["own-voicings-old.strudel"]
