"""Run Strudel (the reference) under node and put our haps in the same shape.

`strudel_program(code, cycles)` runs a whole program as the REPL would.
`strudel_query(jobs)` sends ``[{code, begin, end}]`` to
tests/patterns/strudel/query.mjs and returns, per job, ``{"haps": [...]}`` or
``{"error": ...}``; `haps_json(haps)` renders our haps the same way: spans as
exact ``"n/d"`` strings, values as JSON (integral floats as ints, exact
rationals as ``{"fraction": "n/d"}``). `same_haps` compares two such lists
as multisets, floats to 1e-9 (V8's and libm's sin may differ in the last bit).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

from bandstand.patterns import Hap

STRUDEL_DIR = Path(os.environ.get("BANDSTAND_STRUDEL_DIR", Path(__file__).parent / "strudel"))


def node_ready() -> str | None:
    """None if the reference can run, else why not (a message naming the fix)."""
    if shutil.which("node") is None:
        return "node is not installed (scripts/setup.d/strudel.sh installs it)"
    if not (STRUDEL_DIR / "node_modules" / "@strudel" / "core").is_dir():
        return f"the Strudel reference is not installed: run `npm ci` in {STRUDEL_DIR}"
    return None


def _node(script: str, payload: Any, timeout: float) -> Any:
    """Run `script` (a file in STRUDEL_DIR) under node with `payload` as JSON on stdin; its JSON
    answer. Raises if node fails."""
    proc = subprocess.run(
        ["node", "--import", "./register.mjs", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=STRUDEL_DIR,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"node {script} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def _spans(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**j, "begin": str(j["begin"]), "end": str(j["end"])} for j in jobs]


def strudel_query(jobs: list[dict[str, Any]], timeout: float = 240) -> list[dict[str, Any]]:
    """Query Strudel for each job ({code, begin, end}); raises if node fails."""
    answer: list[dict[str, Any]] = _node("query.mjs", _spans(jobs), timeout)
    return answer


def strudel_program(code: str, cycles: int, timeout: float = 240) -> dict[str, Any]:
    """Evaluate a whole Strudel program with @strudel/core's own `repl` (repl.mjs: the
    transpiler, `setcpm`, the last expression is the pattern) and return ``{"cps", "haps"}`` for
    its first `cycles` cycles (haps with onsets: begin, end, value), or ``{"error"}``."""
    answer: dict[str, Any] = _node("repl.mjs", {"code": code, "cycles": cycles}, timeout)
    return answer


def strudel_programs(jobs: list[dict[str, Any]], timeout: float = 400) -> list[dict[str, Any]]:
    """Run whole programs ({code, begin, end}) as strudel.cc's REPL does (program.mjs):
    per job ``{"haps": [...], "cps": float}`` or ``{"error": ...}``; raises if node fails."""
    answer: list[dict[str, Any]] = _node("program.mjs", _spans(jobs), timeout)
    return answer


def strudel_steps(codes: list[str], timeout: float = 240) -> list[str | None]:
    """Strudel's step count (``_steps``) of each pattern, as "n/d", None, or "error"."""
    answer: list[str | None] = _node("steps.mjs", codes, timeout)
    return answer


def _frac(t: Any) -> str:
    f = Fraction(t)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def value_json(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if callable(v):
        return "<function>"
    if hasattr(v, "numerator") and hasattr(v, "denominator"):
        return {"fraction": _frac(v)}
    if isinstance(v, (list, tuple)):
        return [value_json(x) for x in v]
    if isinstance(v, dict):
        return {k: value_json(x) for k, x in v.items()}
    return repr(v)


def haps_json(haps: list[Hap]) -> list[dict[str, Any]]:
    return [
        {
            "whole": None if h.whole is None else [_frac(h.whole.begin), _frac(h.whole.end)],
            "part": [_frac(h.part.begin), _frac(h.part.end)],
            "value": value_json(h.value),
        }
        for h in haps
    ]


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return bool(a == b)


def _key(h: dict[str, Any]) -> str:
    def rounded(v: Any) -> Any:
        if isinstance(v, float):
            return round(v, 6)
        if isinstance(v, list):
            return [rounded(x) for x in v]
        if isinstance(v, dict):
            return {k: rounded(x) for k, x in sorted(v.items())}
        return v

    return json.dumps([h["part"], h["whole"], rounded(h["value"])], sort_keys=True)


def same_haps(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> bool:
    """Equal as multisets (order-free), spans exact, numbers to 1e-9."""
    if len(ours) != len(theirs):
        return False
    a = sorted(ours, key=_key)
    b = sorted(theirs, key=_key)
    return all(
        x["whole"] == y["whole"] and x["part"] == y["part"] and _close(x["value"], y["value"])
        for x, y in zip(a, b, strict=True)
    )


def describe_difference(
    ours: list[dict[str, Any]], theirs: list[dict[str, Any]], limit: int = 8
) -> str:
    a = {_key(h) for h in ours}
    b = {_key(h) for h in theirs}
    only_ours = sorted(a - b)[:limit]
    only_theirs = sorted(b - a)[:limit]
    return (
        f"{len(ours)} haps here, {len(theirs)} in Strudel\n"
        f"  only here:    {only_ours}\n  only Strudel: {only_theirs}"
    )
