"""Mini-notation → Pattern, following @strudel/mini 1.2.6's patternifyAST.

``mini("bd [sd sd] <hh oh>*2")`` parses the text (`mini_parse`) and builds the
pattern exactly as Strudel does: a sequence is a `stepcat` of its weighted
elements, ``<…>`` stacks each layer slowed by its weight, ``{…}`` aligns
layers to the first layer's steps (or ``%n``), ``?`` and ``|`` draw from the
seeded random signal offset by 0.0003 × their seed. Each atom carries its
(start, end) character offsets in the text (+ `offset`) as hap context.

A `MiniCache` (owned by one caller, such as a jam engine's pattern book) keeps
what strings were made into, by their exact text: the parsed tree, and the
pattern built at one offset. A pattern is a value, so a kept one is shared as
is; the work its building counted against a query budget is counted again on
every use, so budgets see the same work with or without the cache.
"""

from __future__ import annotations

from typing import Any

from gmpy2 import mpq

from bandstand.errors import PatternError, PatternParseError
from bandstand.patterns.budget import charge, reserve, running_meter
from bandstand.patterns.cache import CompileCache
from bandstand.patterns.constructors import fastcat, pure, reify, stack, stepcat
from bandstand.patterns.mini_parse import LIMITS, Atom, Element, MiniLimits, Seq, parse_mini
from bandstand.patterns.pattern import Pattern, silence, time_lcm
from bandstand.patterns.signals import choose_in_with, degrade_by_with, rand
from bandstand.patterns.time import ONE, ZERO, to_time
from bandstand.patterns.values import js_number

__all__ = ["RAND_OFFSET", "MiniCache", "mini", "mini_ast", "mini_at", "mini_raw", "mini_sequence", "minify"]

RAND_OFFSET = 0.0003


def mini_ast(text: str, limits: MiniLimits = LIMITS) -> Seq:
    """The parsed tree of a mini-notation string."""
    return parse_mini(text, limits)


def mini(
    text: str, offset: int = 0, limits: MiniLimits = LIMITS, cache: MiniCache | None = None
) -> Pattern:
    """Parse mini-notation into a Pattern (PatternParseError on bad syntax or beyond limits).

    With `cache`, a string parsed or built before is taken from it (the same pattern)."""
    if cache is not None:
        return cache.pattern(text, offset, limits)
    return _build(parse_mini(text, limits), text, offset)


def _build(tree: Seq, text: str, offset: int) -> Pattern:
    try:
        return _Builder(offset).enter(tree)
    except PatternError:
        raise
    except (ValueError, TypeError, ZeroDivisionError, ArithmeticError) as exc:
        raise PatternParseError(f"mini-notation: {exc}", text=text, position=0) from None


class MiniCache:
    """Mini-notation strings already parsed (by text and limits) and built (by text,
    offset and limits), at most `size` of each, the least recently used going first.
    Strings that fail are not kept: they fail the same way again. Safe across threads."""

    def __init__(self, size: int = 2048) -> None:
        self.trees = CompileCache(size)  # (text, limits) → the parsed tree (never changed)
        self.patterns = CompileCache(size)  # (text, offset, limits) → (Pattern, work or None)

    def pattern(self, text: str, offset: int, limits: MiniLimits = LIMITS) -> Pattern:
        """`mini(text, offset, limits)`, from the cache when it was made before.

        Building counts work against the running query budget (each pattern made is
        work); a kept pattern counts the same work again when it is used under a budget,
        so the same code fits or exceeds a budget whether it was cached or not."""
        key = (text, offset, limits)
        meter = running_meter()
        found = self.patterns.get(key)
        if found is not None:
            pattern: Pattern = found[0]
            work: int | None = found[1]
            if meter is None:
                return pattern  # nothing counts work here
            if work is not None:
                if work:
                    charge(work)
                return pattern
        tree_key = (text, limits)
        tree = self.trees.get(tree_key)
        if tree is None:
            tree = self.trees.put(tree_key, parse_mini(text, limits))
        before = None if meter is None else meter.work
        built = _build(tree, text, offset)
        self.patterns.put(key, (built, None if meter is None or before is None else meter.work - before))
        return built

    def clear(self) -> None:
        self.trees.clear()
        self.patterns.clear()


# Strudel's exported constructors that take mini-notation, for the expression language.
# A "…" string there is already a mini pattern when it arrives (the REPL's rule), so a
# pattern passes through unchanged; Strudel would stringify it instead ("[object Object]").


def _text(x: Any, name: str) -> str | Pattern:
    if isinstance(x, str | Pattern):
        return x
    if isinstance(x, int | float) and not isinstance(x, bool):  # JavaScript writes 3, not 3.0
        return str(int(x)) if float(x).is_integer() else repr(float(x))
    raise PatternError(f"{name}() takes mini-notation strings, not {type(x).__name__} {x!r}")


def mini_sequence(*strings: Any) -> Pattern:
    """Strudel's ``mini('a b', 'c')``: each string as mini-notation, the results in sequence."""
    pats = [t if isinstance(t, Pattern) else mini(t) for t in (_text(s, "mini") for s in strings)]
    return fastcat(*pats) if pats else silence


def mini_at(text: Any, offset: Any = 0) -> Pattern:
    """Strudel's ``m('a b', offset)``: one mini-notation string whose haps point `offset`
    characters further into the code."""
    found = _text(text, "m")
    if isinstance(found, Pattern):
        return found
    return mini(found, offset=int(offset) if isinstance(offset, int | float) else 0)


def mini_raw(text: Any) -> Pattern:
    """Strudel's ``h('"a b"')``: mini-notation written with its own quotes (Haskell style)."""
    found = _text(text, "h")
    if isinstance(found, Pattern):
        return found
    inner = found.strip()
    if len(inner) < 2 or inner[0] != inner[-1] or inner[0] not in "\"'":
        raise PatternParseError(
            'h() takes mini-notation in its own quotes, e.g. h(\'"bd sd"\')', text=found, position=0
        )
    return mini(inner[1:-1], offset=found.index(inner[0]) + 1)


def minify(thing: Any) -> Pattern:
    """Strudel's ``minify``: a string as mini-notation, anything else as a pattern."""
    return mini(thing) if isinstance(thing, str) else reify(thing)


def _method(pat: Pattern, name: str, *args: Any) -> Pattern:
    result: Pattern = getattr(pat, name)(*args)  # a registered method (`Pattern.method_lookup`)
    return result


def _array_range(start: Any, stop: Any) -> list[Any]:
    if not isinstance(start, (int, float)) or not isinstance(stop, (int, float)):
        return []
    length = int(abs(stop - start) + 1)
    reserve(length)
    return [start + i if start < stop else start - i for i in range(length)]


def _ranger(friend: Pattern) -> Any:
    return lambda a: friend.bind(lambda b: fastcat(*_array_range(a, b)))


def _divider(weight: Any) -> Any:
    return lambda x: x / weight


def _append(a: Any) -> Any:
    return lambda b: [*a, b] if isinstance(a, list) else [a, b]


class _Builder:
    def __init__(self, offset: int) -> None:
        self.offset = offset

    def enter(self, node: Any) -> Pattern:
        if isinstance(node, Element):
            return self.enter(node.source)
        if isinstance(node, Atom):
            return self.atom(node)
        return self.seq(node)

    def atom(self, node: Atom) -> Pattern:
        if node.source in ("~", "-"):
            return silence
        number = js_number(node.source)
        value = node.source if number is None else number
        return pure(value, (node.start + self.offset, node.end + self.offset))

    def options(self, node: Any, pat: Pattern) -> Pattern:
        if not isinstance(node, Element):
            return pat
        steps_source = pat.steps_source
        for op in node.ops:
            args = op.args
            if op.kind == "stretch":
                pat = _method(reify(pat), args["type"], self.enter(args["amount"]))
            elif op.kind == "replicate":
                amount = args["amount"]
                pat = reify(pat)._repeat_cycles(amount)._fast(amount)
            elif op.kind == "bjorklund":
                pulse, steps = self.enter(args["pulse"]), self.enter(args["step"])
                if args["rotation"] is not None:
                    pat = _method(pat, "euclidRot", pulse, steps, self.enter(args["rotation"]))
                else:
                    pat = _method(pat, "euclid", pulse, steps)
            elif op.kind == "degradeBy":
                amount = 0.5 if args["amount"] is None else args["amount"]
                randomness = _method(rand, "early", RAND_OFFSET * args["seed"])
                pat = degrade_by_with(randomness, amount, reify(pat)).set_steps(pat.steps)
            elif op.kind == "tail":
                pat = pat.fmap(_append).app_left(self.enter(args["element"]))
            elif op.kind == "range":
                pat = reify(pat).squeeze_bind(_ranger(self.enter(args["element"])))
        if not pat.steps_source and steps_source:
            pat = pat._replace(steps_source=True)
        return pat

    def seq(self, node: Seq) -> Pattern:
        children = [self.enter(child) for child in node.source]
        children = [
            self.options(child, pat) for child, pat in zip(node.source, children, strict=True)
        ]
        with_steps = [c for c in children if c.steps_source]
        steps_lcm = time_lcm(*(c.steps for c in with_steps)) if with_steps else None
        alignment = node.alignment
        if alignment == "stack":
            pat = stack(*children)
            if with_steps:
                pat = pat.set_steps(steps_lcm)
        elif alignment == "polymeter_slowcat":
            pat = stack(*[c._slow(c.weight if c.weight is not None else ONE) for c in children])
            if with_steps:
                pat = pat.set_steps(steps_lcm)
        elif alignment == "polymeter":
            pat = self.polymeter(node, children)
        elif alignment == "rand":
            randomness = _method(
                _method(rand, "early", RAND_OFFSET * (node.seed or 0)), "segment", 1
            )
            pat = choose_in_with(randomness, *children)
            if with_steps:
                pat = pat.set_steps(steps_lcm)
        elif alignment == "feet":
            pat = fastcat(*children)
        else:
            pat = self.weighted(node, children, steps_lcm if with_steps else None)
        if with_steps:
            pat = pat._replace(steps_source=True)
        return pat

    def weighted(self, node: Seq, children: list[Pattern], steps_lcm: Any) -> Pattern:
        weights = [el.weight if isinstance(el, Element) else 1 for el in node.source]
        if any(w != 0 for w in weights):
            total = ZERO
            pairs = []
            for w, child in zip(weights, children, strict=True):
                weight = to_time(w) if w != 0 else ONE
                total += weight
                pairs.append([weight, child])
            pat = stepcat(*pairs)._replace(
                weight=total, steps=total if steps_lcm is None else total * steps_lcm
            )
        else:
            pat = fastcat(*children).set_steps(mpq(len(children)))
        if node.steps_marker:
            pat = pat._replace(steps_source=True)
        return pat

    def polymeter(self, node: Seq, children: list[Pattern]) -> Pattern:
        if node.steps_per_cycle is not None:
            steps_pat = self.enter(node.steps_per_cycle).fmap(to_time)
        else:
            first = children[0].weight if children and children[0].weight is not None else ONE
            steps_pat = pure(first)
        aligned = []
        for child in children:
            weight = child.weight if child.weight is not None else ONE
            aligned.append(_method(child, "fast", steps_pat.fmap(_divider(weight))))
        return stack(*aligned)
