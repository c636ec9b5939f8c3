"""The validation API: is this piece of agent code a pattern the band can play?

`validate_pattern(code, scale=..., cycles=...)` parses and evaluates the code
(never raising for a bad pattern), lists the functions and sounds it uses and
the unknown ones, counts events per cycle, measures how many pitched notes lie
in the given scale, and collects warnings (too dense, silent, out of range,
…). Querying is guarded: code whose density a static bound read from the code
keeps under the event budget is queried once per cycle; any other code is
probed on growing spans first, so `s("bd").fast(100000)` is reported as too
dense instead of hanging. `check_pattern` also returns the evaluated pattern
and its events, and the work that does not depend on the scale is cached per
code, for callers that validate and then play (the jam).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from bandstand.errors import InvalidInput, PatternError
from bandstand.patterns.expr import ast
from bandstand.patterns.expr.evaluator import Evaluator, evaluate
from bandstand.patterns.expr.limits import DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.time import to_time
from bandstand.patterns.to_score import (
    lookup_sound,
    value_pitch,
    value_sound,
)

MAX_EVENTS_PER_CYCLE: Final = 64  # more than this is "too dense" for a musician's part
MIN_IN_SCALE: Final = 0.75  # passing tones allowed: a quarter of the notes may leave the scale
DENSITY_MARGIN: Final = 4  # compute at most this many times the allowed haps before giving up
LOUD_GAIN: Final = 1.5
LOWEST_NOTE: Final = 21  # A0, the piano's range
HIGHEST_NOTE: Final = 108  # C8
_PROBE_START: Final = 1 << 16  # the first span queried in each cycle is 1/_PROBE_START
_PROBE_GROWTH: Final = 16  # each next span is this many times wider
_SAMPLE: Final = 16  # 1/_SAMPLE of each cycle is sampled before the rest is queried at once
_SAMPLE_GROWTH: Final = 256  # inside it, the next span is this many times wider if density allows


class ValidationReport(BaseModel):
    """What the validator found. `valid` is the jam band's verdict."""

    model_config = ConfigDict(frozen=True)

    code: str
    valid: bool
    parses: bool
    error: str | None = None
    error_column: int | None = None
    functions: list[str] = []
    unknown_functions: list[str] = []
    sounds: list[str] = []
    unknown_sounds: list[str] = []
    cycles: int = 0
    events: int = 0
    events_per_cycle: float = 0.0
    pitched_notes: int = 0
    notes_in_scale: int = 0
    in_scale_ratio: float | None = None
    lowest_note: int | None = None
    highest_note: int | None = None
    warnings: list[str] = []


# --------------------------------------------------------------------------- static checks


def _walk(node: ast.Node) -> Iterator[ast.Node]:
    stack: list[ast.Node] = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ast.Array):
            stack.extend(current.items)
        elif isinstance(current, ast.Object):
            stack.extend(v for _, v in current.entries)
        elif isinstance(current, ast.Member):
            stack.append(current.target)
        elif isinstance(current, ast.Call):
            stack.append(current.callee)
            stack.extend(current.args)
        elif isinstance(current, ast.Arrow):
            stack.append(current.body)
        elif isinstance(current, ast.Unary):
            stack.append(current.operand)
        elif isinstance(current, ast.Binary):
            stack.extend((current.left, current.right))


def _names_used(nodes: list[ast.Node], registry: Any) -> tuple[list[str], list[str]]:
    """(known, unknown) function, method and constant names in the code (all its `nodes`),
    in order of first use."""
    params = {n.param for n in nodes if isinstance(n, ast.Arrow)}
    variant_members = {
        id(n.callee.target)
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.callee, ast.Member)
        and isinstance(n.callee.target, ast.Member)
    }
    found: list[tuple[int, str, bool]] = []
    for node in nodes:
        if isinstance(node, ast.Name) and node.name not in params:
            found.append((node.pos, node.name, node.name in registry))
        elif isinstance(node, ast.Member):
            if id(node.target) in variant_members and isinstance(node.target, ast.Member):
                entry = registry.get(node.target.name)
                ok = entry is not None and node.name in entry.variants
                found.append((node.pos, f"{node.target.name}.{node.name}", ok))
            elif id(node) not in variant_members:
                entry = registry.get(node.name)
                found.append((node.pos, node.name, entry is not None and entry.kind != "value"))
            else:
                found.append((node.pos, node.name, node.name in registry))
    known: list[str] = []
    unknown: list[str] = []
    for _, name, ok in sorted(found):
        bucket = known if ok else unknown
        if name not in bucket:
            bucket.append(name)
    return known, unknown


# --------------------------------------------------------------------------- static density

# Functions that never multiply the haps a pattern computes per cycle (values, controls,
# shifts, filters, per-cycle choices, structure taken from a mini-notation argument that is
# itself counted); functions that do, by at most their first argument (a literal number) or
# its reciprocal, or by a fixed factor. Any other function: no static bound.
_NEUTRAL: Final = frozenset(
    {
        "add", "sub", "mul", "div", "scale", "range", "rangex", "late", "early", "degrade",
        "degradeBy", "undegradeBy", "sometimes", "sometimesBy", "often", "rarely", "almostNever",
        "almostAlways", "always", "never", "someCycles", "someCyclesBy", "every", "firstOf",
        "lastOf", "rev", "palindrome", "iter", "iterBack", "struct", "mask", "stack", "seq",
        "cat", "fastcat", "slowcat", "sequence", "swing", "swingBy", "note", "n", "s", "sound",
        "silence", "sine", "cosine", "saw", "square", "tri", "rand", "irand", "perlin", "velocity",
    }
)  # fmt: skip
_BY_ARGUMENT: Final = frozenset(
    {"fast", "density", "hurry", "ply", "segment", "seg", "chop", "striate", "echo", "stut"}
)
_BY_RECIPROCAL: Final = frozenset({"slow", "sparsity"})
_FIXED: Final = {"off": 2, "superimpose": 2, "jux": 2, "juxBy": 2}
_MINI_SAFE: Final = re.compile(r"[\w\s~\[\]<>{},.*!@?:#'|()%/-]*")
_MINI_ATOM: Final = re.compile(r"(?<![*!@?%/:\w.#'-])[A-Za-z0-9#.'-]+")
_MINI_OP: Final = re.compile(r"([*!%/@?])(\d+(?:\.\d+)?(?![\w.]))?")
_MINI_EUCLID: Final = re.compile(r"\(\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\)")


def _mini_density(text: str) -> float | None:
    """An upper bound on the events per cycle of one mini-notation string: its atoms, each
    repeated at most the product of every `*n`, `!n`, `%n`, `/x` (x < 1) and euclid `(…)`
    number in it; None for notation this does not bound (ranges, patterned factors, …)."""
    if ".." in text or not _MINI_SAFE.fullmatch(text):
        return None
    factor = 1.0
    for op, number in _MINI_OP.findall(text):
        if op in "*%/" and not number:
            return None  # a patterned or odd factor
        if op == "!":
            factor *= max(2.0, float(number or 2))
        elif op in "*%":
            factor *= max(1.0, float(number))
        elif op == "/":
            factor *= max(1.0, 1 / float(number)) if float(number) else math.inf
    euclids = _MINI_EUCLID.findall(text)
    if len(euclids) != text.count("("):
        return None
    for numbers in euclids:
        for part in numbers.split(","):
            factor *= max(1.0, abs(float(part)))
    atoms = sum(1 for a in _MINI_ATOM.findall(text) if a not in {"-", "."})
    return max(1, atoms) * factor


def _static_density(nodes: list[ast.Node], registry: Any) -> float | None:
    """An upper bound on the haps per cycle the code can compute, from the code alone:
    every string's bound, times every multiplying function's factor; None when some
    function, argument or notation is not one this bound knows."""
    total, factor = 0.0, 1.0
    callees = {id(n.callee) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if isinstance(node, ast.Name | ast.Member) and id(node) not in callees:
            entry = registry.get(node.name)  # a function passed as a value: its factor is unknown
            if entry is not None and node.name not in _NEUTRAL and entry.kind != "control":
                return None
        if isinstance(node, ast.Str):
            found = _mini_density(node.value) if node.mini else 1.0
            if found is None:
                return None
            total += found
        elif isinstance(node, ast.Num | ast.Name):
            total += 1
        elif isinstance(node, ast.Call):
            callee = node.callee
            name = callee.name if isinstance(callee, ast.Name | ast.Member) else None
            entry = registry.get(name) if name else None
            if name is None or entry is None:
                return None
            if name in _FIXED:
                factor *= _FIXED[name]
            elif name in _BY_ARGUMENT or name in _BY_RECIPROCAL:
                arg = node.args[0] if node.args else None
                if not isinstance(arg, ast.Num) or arg.value <= 0:
                    return None  # a patterned, computed or odd factor
                value = float(arg.value)
                factor *= max(1.0, value if name in _BY_ARGUMENT else 1 / value)
            elif name not in _NEUTRAL and entry.kind != "control":
                return None
    return total * factor


# --------------------------------------------------------------------------- querying


class _TooDense(Exception):
    pass


def _plain_events(pattern: Any, cycles: int, budget: int) -> list[Any]:
    """The same events as `_guarded_events`, one query per cycle, for code whose static
    density bound fits the budget; _TooDense all the same if a cycle computes too many."""
    events: list[Any] = []
    computed = 0
    for cycle in range(cycles):
        haps = pattern.query_arc(to_time(cycle), to_time(cycle + 1))
        computed += len(haps)
        if computed > budget:
            raise _TooDense
        events += [h for h in haps if h.whole is None or h.whole.begin == h.part.begin]
    return events


def _guarded_events(pattern: Any, cycles: int, budget: int) -> list[Any]:
    """The events (onsets, and continuous values sampled at each cycle start) of the
    first `cycles` cycles; _TooDense as soon as more than `budget` haps were computed.

    Each cycle starts with a probe 2^-16 cycles wide and is sampled up to 1/16 of the
    cycle before the rest is queried at once. While an estimate of what the next span
    would compute does not fit the budget, the next span is only 16× wider, so a pattern
    of absurd density is caught after computing about 16 × `budget` haps at most instead
    of hanging in one huge query. Inside the sample the estimate is the local density
    (each hap counts 1 / its length, at most 1 / the span: a long note overlapping the
    probe says little about density, unlike a count of haps per probe width), so an
    ordinary pattern grows its spans 256× at a time (2^-16, 2^-8, 1/16 of the cycle);
    the rest of the cycle is estimated from the number of haps in the last span, so it
    is reached only after the whole sample. Ordinary patterns take four queries per
    cycle. An event's onset lies in exactly one span, so none is lost or doubled."""
    events: list[Any] = []
    computed = 0
    sample = to_time(1) / _SAMPLE
    for cycle in range(cycles):
        begin, end = to_time(cycle), to_time(cycle + 1)
        sample_end = begin + sample
        width = to_time(1) / _PROBE_START
        first = True
        while begin < end:
            stop = min(begin + width, end)
            haps = pattern.query_arc(begin, stop)
            computed += len(haps)
            if computed > budget:
                raise _TooDense
            span = stop - begin
            density = 0.0
            for h in haps:
                whole = h.whole
                if whole is None:
                    if first:
                        events.append(h)
                    continue
                if whole.begin == h.part.begin:
                    events.append(h)
                density += 1 / max(span, whole.end - whole.begin)
            begin, first = stop, False
            if stop < sample_end:  # sampling: as far as the local density allows, within reason
                width = min(width * _SAMPLE_GROWTH, sample_end - stop)
                if computed + density * width > budget:
                    width = span * _PROBE_GROWTH
            elif computed + len(haps) * (end - stop) / span <= budget:
                width = end - stop
            else:
                width = span * _PROBE_GROWTH
    return events


def _onset(hap: Any) -> Any:
    return (hap.whole or hap.part).begin


def _scale_classes(scale: str | Sequence[int]) -> tuple[frozenset[int], str]:
    if isinstance(scale, str):
        from bandstand.theory import get_scale

        found = get_scale(scale)
        return frozenset(found.pitch_classes), found.name
    return frozenset(int(p) % 12 for p in scale), "the given scale"


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True, slots=True)
class Checked:
    """A validation with what it computed on the way, for callers that will play the
    pattern (the jam): the evaluated `pattern` and its `events` over the report's
    cycles (None and () when it did not parse, failed to evaluate or is too dense).
    Shared between callers: treat both as read-only."""

    report: ValidationReport
    pattern: Any = None
    events: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class _Analysis:
    """Everything about one piece of code that does not depend on the scale or the
    per-cycle limit: computed once per (code, cycles, budget, limits)."""

    fields: dict[str, Any]  # report fields; `error` set when the code cannot play
    too_dense: bool = False  # the guarded queries gave up
    pitches: tuple[int, ...] = ()
    fixed_pitch: bool = False
    loud: bool = False
    pattern: Any = None
    events: tuple[Any, ...] = ()


@lru_cache(maxsize=256)
def _analyse(code: str, cycles: int, budget: int, limits: Limits) -> _Analysis:
    from bandstand.patterns.registry import get_registry

    fields: dict[str, Any] = {"code": code, "cycles": cycles, "valid": False, "parses": False}
    try:
        tree = parse(code, limits)
    except PatternError as exc:
        return _Analysis(fields | {"error": str(exc), "error_column": exc.column})
    fields["parses"] = True
    registry = get_registry()
    nodes = list(_walk(tree))
    fields["functions"], fields["unknown_functions"] = _names_used(nodes, registry)
    try:
        pattern = Evaluator(code, registry, limits).eval(tree, {})  # the tree parsed above
        if not isinstance(pattern, Pattern):  # evaluate raises the engine's own error for it
            pattern = evaluate(code, limits=limits)
        bound = _static_density(nodes, registry)
        if bound is not None and bound * cycles <= budget:
            onsets = _plain_events(pattern, cycles, budget)  # sparse by construction: no probes
        else:
            onsets = _guarded_events(pattern, cycles, budget)
        onsets.sort(key=_onset)  # in time order: the same whichever way the cycles were queried
    except _TooDense:
        return _Analysis(fields, too_dense=True)
    except PatternError as exc:
        return _Analysis(fields | {"error": str(exc), "error_column": exc.column})
    except Exception as exc:  # the engine failed while playing agent code (RecursionError too)
        return _Analysis(
            fields | {"error": f"the pattern fails when played: {type(exc).__name__}: {exc}"}
        )

    sounds: list[str] = []
    unknown_sounds: list[str] = []
    pitches: list[int] = []
    kinds: dict[str, str | None] = {}  # sound name → its kind (None: unknown), looked up once
    fixed_pitch = loud = False
    for hap in onsets:
        value = hap.value
        name = value_sound(value)
        if name is not None and name not in kinds:
            sound = lookup_sound(name)
            kinds[name] = None if sound is None else sound.kind
            (unknown_sounds if sound is None else sounds).append(name)
        pitch = value_pitch(value)
        if pitch is not None:
            pitches.append(round(pitch))
        elif isinstance(value, dict) and "n" in value and (name is None or kinds[name] != "drum"):
            fixed_pitch = True
        if (
            isinstance(value, dict)
            and isinstance(value.get("gain"), int | float)
            and value["gain"] > LOUD_GAIN
        ):
            loud = True
    fields.update(
        sounds=sounds,
        unknown_sounds=unknown_sounds,
        events=len(onsets),
        events_per_cycle=len(onsets) / cycles,
        pitched_notes=len(pitches),
        lowest_note=min(pitches, default=None),
        highest_note=max(pitches, default=None),
    )
    return _Analysis(
        fields,
        pitches=tuple(pitches),
        fixed_pitch=fixed_pitch,
        loud=loud,
        pattern=pattern,
        events=tuple(onsets),
    )


def check_pattern(
    code: str,
    *,
    scale: str | Sequence[int] | None = None,
    cycles: int = 4,
    max_events_per_cycle: int = MAX_EVENTS_PER_CYCLE,
    min_in_scale: float = MIN_IN_SCALE,
    limits: Limits = DEFAULT_LIMITS,
) -> Checked:
    """`validate_pattern`, and the evaluated pattern and events it found (see `Checked`).

    The scale-independent work (parsing, evaluating, the guarded queries, names and
    sounds) is cached per code, cycles, budget and limits, so the same code checked
    against another scale or limit costs only the in-scale count and the verdict."""
    if not 1 <= cycles <= 64:
        raise InvalidInput(f"cycles must be 1..64, got {cycles}")
    classes, scale_name = _scale_classes(scale) if scale is not None else (frozenset(), "")
    budget = max(256, DENSITY_MARGIN * max_events_per_cycle * cycles)
    found = _analyse(code, cycles, budget, limits)
    if found.too_dense:
        message = (
            f"too dense: more than {budget} events in {cycles} cycles"
            f" (the limit is {max_events_per_cycle} per cycle)"
        )
        return Checked(ValidationReport(**found.fields, error=message, warnings=[message]))
    if "error" in found.fields:
        return Checked(ValidationReport(**found.fields))
    fields, pitches = dict(found.fields), found.pitches
    per_cycle: float = fields["events_per_cycle"]
    warnings: list[str] = []
    in_scale_ok = True
    if scale is not None and pitches:
        outside = [p for p in pitches if p % 12 not in classes]
        inside = len(pitches) - len(outside)
        ratio = inside / len(pitches)
        fields.update(notes_in_scale=inside, in_scale_ratio=ratio)
        if outside:
            shown = ", ".join(map(str, sorted(set(outside))[:8]))
            warnings.append(
                f"{len(outside)} of {len(pitches)} notes are outside {scale_name} (MIDI {shown})"
            )
        in_scale_ok = ratio >= min_in_scale
    if not found.events:
        warnings.append(f"silent: no events in {cycles} cycles")
    if per_cycle > max_events_per_cycle:
        warnings.append(
            f"too dense: {per_cycle:g} events per cycle (the limit is {max_events_per_cycle})"
        )
    if fields["unknown_sounds"]:
        warnings.append(f"unknown sounds: {', '.join(fields['unknown_sounds'])}")
    if pitches and (min(pitches) < LOWEST_NOTE or max(pitches) > HIGHEST_NOTE):
        warnings.append(
            f"notes out of range: MIDI {min(pitches)}..{max(pitches)} (keep within {LOWEST_NOTE}..{HIGHEST_NOTE})"
        )
    if found.fixed_pitch:
        warnings.append(
            'n(...) without .scale(...) does not set a pitch on a synth or instrument; use note(...) or add .scale("C:minor")'
        )
    if found.loud:
        warnings.append(f"very loud: gain above {LOUD_GAIN}")
    fields["valid"] = (
        not fields["unknown_functions"]
        and not fields["unknown_sounds"]
        and per_cycle <= max_events_per_cycle
        and in_scale_ok
    )
    return Checked(ValidationReport(**fields, warnings=warnings), found.pattern, found.events)


def validate_pattern(
    code: str,
    *,
    scale: str | Sequence[int] | None = None,
    cycles: int = 4,
    max_events_per_cycle: int = MAX_EVENTS_PER_CYCLE,
    min_in_scale: float = MIN_IN_SCALE,
    limits: Limits = DEFAULT_LIMITS,
) -> ValidationReport:
    """Check `code` without ever raising for a bad pattern (a bad `scale` name is the
    caller's mistake and raises `TheoryError`)."""
    return check_pattern(
        code,
        scale=scale,
        cycles=cycles,
        max_events_per_cycle=max_events_per_cycle,
        min_in_scale=min_in_scale,
        limits=limits,
    ).report


__all__ = [
    "MAX_EVENTS_PER_CYCLE",
    "MIN_IN_SCALE",
    "Checked",
    "ValidationReport",
    "check_pattern",
    "validate_pattern",
]
