"""The validation API: is this piece of agent code a pattern the band can play?

`validate_pattern(code, scale=..., cycles=...)` parses and evaluates the code
(never raising for a bad pattern), lists the functions and sounds it uses and
the unknown ones, counts events per cycle, measures how many pitched notes lie
in the given scale, and collects warnings (too dense, silent, out of range,
…). Querying is guarded: the event count is probed on growing spans first, so
`s("bd").fast(100000)` is reported as too dense instead of hanging.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from bandstand.errors import InvalidInput, PatternError
from bandstand.patterns.expr import ast
from bandstand.patterns.expr.evaluator import evaluate
from bandstand.patterns.expr.limits import DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse
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


def _names_used(tree: ast.Node, registry: Any) -> tuple[list[str], list[str]]:
    """(known, unknown) function, method and constant names in the code, in order of first use."""
    params = {n.param for n in _walk(tree) if isinstance(n, ast.Arrow)}
    variant_members = {
        id(n.callee.target)
        for n in _walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.callee, ast.Member)
        and isinstance(n.callee.target, ast.Member)
    }
    found: list[tuple[int, str, bool]] = []
    for node in _walk(tree):
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


# --------------------------------------------------------------------------- querying


class _TooDense(Exception):
    pass


def _guarded_events(pattern: Any, cycles: int, budget: int) -> list[Any]:
    """The events (onsets, and continuous values sampled at each cycle start) of the
    first `cycles` cycles; _TooDense as soon as more than `budget` haps were computed.

    Each cycle is queried in spans growing from 2^-16 cycles by 16×, so a pattern
    of absurd density is caught after computing about 16 × `budget` haps at most
    instead of hanging in one huge query. Once the haps seen so far, spread over the
    rest of the cycle, fit in what is left of the budget, the rest is one query
    (ordinary patterns take four queries per cycle). An event's onset lies in
    exactly one span, so none is lost or doubled."""
    events: list[Any] = []
    computed = 0
    for cycle in range(cycles):
        begin, end = to_time(cycle), to_time(cycle + 1)
        width = to_time(1) / _PROBE_START
        first = True
        while begin < end:
            stop = min(begin + width, end)
            haps = pattern.query_arc(begin, stop)
            computed += len(haps)
            if computed > budget:
                raise _TooDense
            events += [h for h in haps if h.has_onset() or (first and h.whole is None)]
            estimate = len(haps) * (end - stop) / (stop - begin)
            begin, first = stop, False
            width = end - begin if computed + estimate <= budget else width * _PROBE_GROWTH
    return events


def _scale_classes(scale: str | Sequence[int]) -> tuple[set[int], str]:
    if isinstance(scale, str):
        from bandstand.theory import get_scale

        found = get_scale(scale)
        return set(found.pitch_classes), found.name
    return {int(p) % 12 for p in scale}, "the given scale"


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
    from bandstand.patterns.registry import get_registry

    if not 1 <= cycles <= 64:
        raise InvalidInput(f"cycles must be 1..64, got {cycles}")
    classes, scale_name = _scale_classes(scale) if scale is not None else (set(), "")
    report: dict[str, Any] = {"code": code, "cycles": cycles, "valid": False, "parses": False}
    warnings: list[str] = []
    try:
        tree = parse(code, limits)
    except PatternError as exc:
        return ValidationReport(**report, error=str(exc), error_column=exc.column)
    report["parses"] = True
    registry = get_registry()
    known, unknown = _names_used(tree, registry)
    report["functions"], report["unknown_functions"] = known, unknown
    budget = max(256, DENSITY_MARGIN * max_events_per_cycle * cycles)
    try:
        pattern = evaluate(code, limits=limits)
        onsets = _guarded_events(pattern, cycles, budget)
    except _TooDense:
        message = (
            f"too dense: more than {budget} events in {cycles} cycles"
            f" (the limit is {max_events_per_cycle} per cycle)"
        )
        return ValidationReport(**report, error=message, warnings=[message])
    except PatternError as exc:
        return ValidationReport(**report, error=str(exc), error_column=exc.column)
    except Exception as exc:  # the engine failed while playing agent code (RecursionError too)
        message = f"the pattern fails when played: {type(exc).__name__}: {exc}"
        return ValidationReport(**report, error=message)

    sounds: list[str] = []
    unknown_sounds: list[str] = []
    pitches: list[int] = []
    fixed_pitch = loud = False
    for hap in onsets:
        value = hap.value
        name = value_sound(value)
        if name is not None:
            target = sounds if lookup_sound(name) is not None else unknown_sounds
            if name not in target:
                target.append(name)
        pitch = value_pitch(value)
        sound = lookup_sound(name) if name else None
        if pitch is not None:
            pitches.append(round(pitch))
        elif isinstance(value, dict) and "n" in value and (sound is None or sound.kind != "drum"):
            fixed_pitch = True
        if (
            isinstance(value, dict)
            and isinstance(value.get("gain"), int | float)
            and value["gain"] > LOUD_GAIN
        ):
            loud = True
    per_cycle = len(onsets) / cycles
    report.update(
        sounds=sounds,
        unknown_sounds=unknown_sounds,
        events=len(onsets),
        events_per_cycle=per_cycle,
        pitched_notes=len(pitches),
        lowest_note=min(pitches, default=None),
        highest_note=max(pitches, default=None),
    )
    in_scale_ok = True
    if scale is not None and pitches:
        inside = sum(1 for p in pitches if p % 12 in classes)
        ratio = inside / len(pitches)
        report.update(notes_in_scale=inside, in_scale_ratio=ratio)
        if ratio < 1:
            outside = sorted({p for p in pitches if p % 12 not in classes})
            warnings.append(
                f"{len(pitches) - inside} of {len(pitches)} notes are outside {scale_name} (MIDI {', '.join(map(str, outside[:8]))})"
            )
        in_scale_ok = ratio >= min_in_scale
    if not onsets:
        warnings.append(f"silent: no events in {cycles} cycles")
    if per_cycle > max_events_per_cycle:
        warnings.append(
            f"too dense: {per_cycle:g} events per cycle (the limit is {max_events_per_cycle})"
        )
    if unknown_sounds:
        warnings.append(f"unknown sounds: {', '.join(unknown_sounds)}")
    if pitches and (min(pitches) < LOWEST_NOTE or max(pitches) > HIGHEST_NOTE):
        warnings.append(
            f"notes out of range: MIDI {min(pitches)}..{max(pitches)} (keep within {LOWEST_NOTE}..{HIGHEST_NOTE})"
        )
    if fixed_pitch:
        warnings.append(
            'n(...) without .scale(...) does not set a pitch on a synth or instrument; use note(...) or add .scale("C:minor")'
        )
    if loud:
        warnings.append(f"very loud: gain above {LOUD_GAIN}")
    valid = not unknown and not unknown_sounds and per_cycle <= max_events_per_cycle and in_scale_ok
    return ValidationReport(**report | {"valid": valid}, warnings=warnings)


__all__ = ["MAX_EVENTS_PER_CYCLE", "MIN_IN_SCALE", "ValidationReport", "validate_pattern"]
