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

import asyncio
import math
import random
import threading
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from bandstand.errors import DensityLimit, InvalidInput, PatternBudgetExceeded, PatternError
from bandstand.patterns.budget import QueryBudget, metered
from bandstand.patterns.cache import CompileCache
from bandstand.patterns.cycle_cap import CYCLE_BUDGET, MAX_EVENTS_PER_CYCLE, play_cycle
from bandstand.patterns.density import static_density, walk
from bandstand.patterns.expr import ast
from bandstand.patterns.expr.evaluator import Evaluator, evaluate
from bandstand.patterns.expr.host import (
    MATH_CONSTANTS,
    MATH_FUNCTIONS,
    PROGRAM_FUNCTIONS,
    VISUAL_METHODS,
)
from bandstand.patterns.expr.limits import DEFAULT_LIMITS, Limits
from bandstand.patterns.expr.parser import parse
from bandstand.patterns.methods import get_registry
from bandstand.patterns.mini import MiniCache
from bandstand.patterns.pattern import Pattern
from bandstand.patterns.period import static_period
from bandstand.patterns.time import to_time
from bandstand.patterns.to_score import (
    lookup_sound,
    value_pitch,
    value_sound,
)

MIN_IN_SCALE: Final = 0.75  # passing tones allowed: a quarter of the notes may leave the scale
DENSITY_MARGIN: Final = 4  # compute at most this many times the allowed haps before giving up
LOUD_GAIN: Final = 1.5
LOWEST_NOTE: Final = 21  # A0, the piano's range
HIGHEST_NOTE: Final = 108  # C8
_PROBE_START: Final = 1 << 16  # the first span queried in each cycle is 1/_PROBE_START
_PROBE_GROWTH: Final = 16  # each next span is this many times wider
_SAMPLE: Final = 16  # 1/_SAMPLE of each cycle is sampled before the rest is queried at once
_SAMPLE_GROWTH: Final = 256  # inside it, the next span is this many times wider if density allows
# The hard backstop for one validation (evaluating and querying every cycle): at most this
# much engine work (haps made, cycle pieces cut) and wall time, whatever the code. The work
# decides: an ordinary jam pattern needs a few thousand units (a few ms), the worst code about
# 60 ms of CPU (benchmarks/patterns_hostile.py). The seconds only catch what the work does not
# count, generously, so that a loaded machine never refuses an ordinary pattern.
VALIDATION_BUDGET: Final = QueryBudget(max_work=20_000, max_seconds=2.0)
# Past the first cycles, every cycle of the pattern's period is checked against the per-cycle
# cap (`static_period`; up to PERIOD_CYCLES of them), each cycle under the player's own
# CYCLE_BUDGET; a pattern whose period is unknown (random choices) or longer has its first
# SAMPLED_FIRST cycles and SAMPLED_LATER cycles drawn from later in it checked (always the same
# ones for the same code), and the player caps every cycle anyway. A pattern whose static
# density bound already fits the cap needs none of this. The whole scan stops, checking no more
# cycles but refusing nothing, once SCAN_BUDGET would not hold one more cycle's work or its
# seconds (a generous backstop, as VALIDATION_BUDGET's) run out: the clock never refuses code.
PERIOD_CYCLES: Final = 64
SAMPLED_FIRST: Final = 16
SAMPLED_LATER: Final = 16
SAMPLED_HORIZON: Final = 1 << 20  # cycles a pattern of unknown period is sampled from (days of music)
SCAN_BUDGET: Final = QueryBudget(max_work=40_000, max_seconds=2.0)


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
    period: int | None = None  # of the cycles checked past the first ones; None: unknown, or not needed
    cycles_checked: int = 0
    busiest_cycle: int | None = None
    busiest_cycle_events: int = 0
    warnings: list[str] = []


# --------------------------------------------------------------------------- static checks


def _names_used(nodes: list[ast.Node], registry: Any) -> tuple[list[str], list[str]]:
    """(known, unknown) function, method and constant names in the code (all its `nodes`),
    in order of first use."""
    params = {name for n in nodes if isinstance(n, ast.Arrow) for name in n.params}
    params |= {n.name for n in nodes if isinstance(n, ast.Const)}  # the program's own names
    params |= PROGRAM_FUNCTIONS | {"Math", "slider"}
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
            elif isinstance(node.target, ast.Name) and node.target.name == "Math":
                is_math = node.name in MATH_FUNCTIONS or node.name in MATH_CONSTANTS
                found.append((node.pos, f"Math.{node.name}", is_math))
            elif id(node) not in variant_members:
                entry = registry.get(node.name)
                host = node.name in VISUAL_METHODS or node.name == "voicing"
                found.append(
                    (node.pos, node.name, host or (entry is not None and entry.kind != "value"))
                )
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


class _TooDense(DensityLimit):
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
    over_budget: str = ""  # the hard budget stopped the queries: its message
    pitches: tuple[int, ...] = ()
    fixed_pitch: bool = False
    loud: bool = False
    pattern: Any = None
    events: tuple[Any, ...] = ()
    heavy: str = ""  # a cycle past the first ones could not be computed within CYCLE_BUDGET


def _cycles_to_scan(period: int | None, cycles: int, code: str) -> list[int]:
    """The cycles after the first `cycles` whose density is checked: the whole period when it
    is known and short, else a fixed sample (the same for the same code)."""
    if period is not None and period <= PERIOD_CYCLES:
        return list(range(cycles, period))
    first = list(range(cycles, max(cycles, SAMPLED_FIRST)))
    horizon = SAMPLED_HORIZON if period is None else period
    if horizon <= max(cycles, SAMPLED_FIRST):
        return first
    draw = random.Random(zlib.crc32(code.encode("utf-8", "replace")))
    later = sorted({draw.randrange(max(cycles, SAMPLED_FIRST), horizon) for _ in range(SAMPLED_LATER)})
    return first + later


def _scan(pattern: Any, scan: list[int], cap: int) -> tuple[int, tuple[int, int], str]:
    """Check `scan`'s cycles of `pattern` against `cap`, stopping at the first one over it:
    (cycles checked, the busiest cycle checked and its events, why a cycle could not be
    computed or "")."""
    checked, busiest = 0, (0, -1)
    # each cycle may do the player's work; the clock is only the scan's own generous backstop
    per_cycle = QueryBudget(max_work=CYCLE_BUDGET.max_work, max_seconds=SCAN_BUDGET.max_seconds)
    with metered(SCAN_BUDGET) as meter:
        assert meter is not None
        deadline = meter.deadline
        for cycle in scan:
            if meter.work + CYCLE_BUDGET.max_work > meter.limit:
                break  # no room for one more cycle: the player caps the rest
            if time.thread_time() > deadline:
                break
            played = play_cycle(pattern, cycle, cap=cap, budget=per_cycle)
            if played.limit == "seconds":
                break  # a busy machine, not necessarily the code: refuse nothing for the clock
            checked += 1
            if played.muted:
                return checked, busiest, f"cycle {cycle}: {played.muted}"
            if played.found > busiest[1]:
                busiest = (cycle, played.found)
            if played.found > cap:
                break
    return checked, busiest, ""


def _analyse(
    code: str, cycles: int, budget: int, limits: Limits, work: QueryBudget, minis: Any = None,
    cap: int = MAX_EVENTS_PER_CYCLE,
) -> _Analysis:
    fields: dict[str, Any] = {"code": code, "cycles": cycles, "valid": False, "parses": False}
    try:
        tree = parse(code, limits)
    except PatternError as exc:
        return _Analysis(fields | {"error": str(exc), "error_column": exc.column})
    fields["parses"] = True
    registry = get_registry()
    nodes = list(walk(tree))
    fields["functions"], fields["unknown_functions"] = _names_used(nodes, registry)
    try:
        with metered(work):  # one budget for evaluating and every query below
            pattern = Evaluator(code, registry, limits, minis).run(tree).pattern  # the tree parsed above
            if not isinstance(pattern, Pattern):  # evaluate raises the engine's own error for it
                pattern = evaluate(code, limits=limits, minis=minis)
            bound = static_density(nodes, registry)
            if bound is not None and bound * cycles <= budget:
                onsets = _plain_events(pattern, cycles, budget)  # sparse by construction: no probes
            else:
                onsets = _guarded_events(pattern, cycles, budget)
        onsets.sort(key=_onset)  # in time order: the same whichever way the cycles were queried
        per_cycle = [0] * cycles
        for hap in onsets:
            per_cycle[min(cycles - 1, max(0, math.floor(_onset(hap))))] += 1
        busiest = max(range(cycles), key=per_cycle.__getitem__)
        fields.update(busiest_cycle=busiest, busiest_cycle_events=per_cycle[busiest], cycles_checked=cycles)
        heavy = ""
        if (bound is None or bound > cap) and per_cycle[busiest] <= cap:
            # a cycle past the first ones may be denser (the static bound does not rule it out): look
            fields["period"] = period = static_period(nodes, registry)
            checked, over, heavy = _scan(pattern, _cycles_to_scan(period, cycles, code), cap)
            fields["cycles_checked"] = cycles + checked
            if over[1] > per_cycle[busiest]:
                fields.update(busiest_cycle=over[0], busiest_cycle_events=over[1])
    except _TooDense:
        return _Analysis(fields, too_dense=True)
    except PatternBudgetExceeded as exc:
        return _Analysis(fields, too_dense=True, over_budget=exc.message)
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
        heavy=heavy,
    )


def check_pattern(
    code: str,
    *,
    scale: str | Sequence[int] | None = None,
    cycles: int = 4,
    max_events_per_cycle: int = MAX_EVENTS_PER_CYCLE,
    min_in_scale: float = MIN_IN_SCALE,
    limits: Limits = DEFAULT_LIMITS,
    cache: CompileCache | None = None,
    work: QueryBudget = VALIDATION_BUDGET,
    minis: MiniCache | None = None,
) -> Checked:
    """`validate_pattern`, and the evaluated pattern and events it found (see `Checked`).

    The scale-independent work (parsing, evaluating, the guarded queries, names and
    sounds) is kept in `cache` (the caller's own — a jam engine owns one; default: a
    private one) per code, cycles, budget and limits, so the same code checked against
    another scale or limit costs only the in-scale count and the verdict. Evaluating
    and querying run under `work`, whatever the code: past it the code is reported as
    too dense (the limit named), never run on. `minis` is the caller's `MiniCache` for the
    code's mini-notation strings (default: none; the report is the same either way)."""
    if not 1 <= cycles <= 64:
        raise InvalidInput(f"cycles must be 1..64, got {cycles}")
    classes, scale_name = _scale_classes(scale) if scale is not None else (frozenset(), "")
    budget = max(256, DENSITY_MARGIN * max_events_per_cycle * cycles)
    key = (code, cycles, budget, limits, work, max_events_per_cycle)
    found: _Analysis = (_CACHE if cache is None else cache).get_or_make(
        key, lambda: _analyse(code, cycles, budget, limits, work, minis, max_events_per_cycle)
    )
    if found.too_dense:
        message = found.over_budget and f"too dense: {found.over_budget}"
        message = message or (
            f"too dense: more than {budget} events in {cycles} cycles"
            f" (the limit is {max_events_per_cycle} per cycle)"
        )
        return Checked(ValidationReport(**found.fields, error=message, warnings=[message]))
    if "error" in found.fields:
        return Checked(ValidationReport(**found.fields))
    fields, pitches = dict(found.fields), found.pitches
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
    busiest = fields["busiest_cycle_events"]
    if busiest > max_events_per_cycle:
        repeats = f"; the pattern repeats every {fields['period']} cycles" if fields.get("period") else ""
        warnings.append(
            f"too dense: {busiest} events in cycle {fields['busiest_cycle']}"
            f" (the limit is {max_events_per_cycle} per cycle{repeats})"
        )
    if found.heavy:
        warnings.append(f"too dense: {found.heavy}")
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
        and busiest <= max_events_per_cycle
        and not found.heavy
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
    cache: CompileCache | None = None,
    work: QueryBudget = VALIDATION_BUDGET,
    minis: MiniCache | None = None,
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
        cache=cache,
        work=work,
        minis=minis,
    ).report


# --------------------------------------------------------------------------- off the event loop

_CACHE: Final = CompileCache(256)  # for callers that bring no cache of their own
_WORKERS = 2  # validations that may run at once; more wait their turn
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_WORKERS, thread_name_prefix="bandstand-validate")
        return _pool


async def check_pattern_async(
    code: str,
    *,
    scale: str | Sequence[int] | None = None,
    cycles: int = 4,
    max_events_per_cycle: int = MAX_EVENTS_PER_CYCLE,
    min_in_scale: float = MIN_IN_SCALE,
    limits: Limits = DEFAULT_LIMITS,
    cache: CompileCache | None = None,
    work: QueryBudget = VALIDATION_BUDGET,
    minis: MiniCache | None = None,
) -> Checked:
    """`check_pattern` on a worker thread, for event loops: the loop only awaits.

    A thread, not a process: the jam needs the evaluated pattern back (a pattern is
    a tree of closures and cannot cross a process boundary), and the thread stops
    itself — every query inside runs under `work` (events and seconds), checked
    cooperatively in the engine's inner loops, so a worker is never stuck on hostile
    code and memory stays bounded by the work budget. At most two validations run
    at once (the rest queue), so a flood of replies cannot start a flood of threads."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(
        _executor(),
        lambda: check_pattern(
            code,
            scale=scale,
            cycles=cycles,
            max_events_per_cycle=max_events_per_cycle,
            min_in_scale=min_in_scale,
            limits=limits,
            cache=cache,
            work=work,
            minis=minis,
        ),
    )


async def validate_async(code: str, **options: Any) -> ValidationReport:
    """`validate_pattern` off the event loop: `check_pattern_async`'s report (same options)."""
    return (await check_pattern_async(code, **options)).report


__all__ = [
    "MAX_EVENTS_PER_CYCLE",
    "MIN_IN_SCALE",
    "VALIDATION_BUDGET",
    "Checked",
    "ValidationReport",
    "check_pattern",
    "check_pattern_async",
    "validate_async",
    "validate_pattern",
]
