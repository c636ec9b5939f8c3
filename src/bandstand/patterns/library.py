"""The registry's table: every pattern function by Strudel name, built explicitly.

Rows are data (name, plain function, arity, which arguments are functions,
aliases); `bandstand.patterns.registry` turns them into the function and
method forms. Keep one row per transform.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bandstand.patterns import euclid as eu
from bandstand.patterns import filters, fitting, pieces, presets, tonal
from bandstand.patterns import pick as pk
from bandstand.patterns import signals as sig
from bandstand.patterns import steps as st
from bandstand.patterns import transforms as tr
from bandstand.patterns import voicing as vc
from bandstand.patterns.constructors import fastcat, pure, reify, slowcat, stack, steady, stepcat
from bandstand.patterns.controls import CONTROLS, control_function
from bandstand.patterns.mini import mini_at, mini_raw, mini_sequence, minify
from bandstand.patterns.ops import ALIGNMENTS, OPERATORS, apply_op
from bandstand.patterns.pattern import Pattern, gap, nothing, silence
from bandstand.patterns.registry import PatternFunction

__all__ = ["ENTRIES"]


def _t(
    name: str,
    func: Callable[..., Any],
    arity: int,
    *,
    fn: tuple[int, ...] = (),
    aliases: tuple[str, ...] = (),
    patternify: bool = True,
    preserve_steps: bool = False,
    join: str = "inner",
    doc: str = "",
) -> PatternFunction:
    return PatternFunction(
        name=name,
        kind="transform",
        join=join,
        func=func,
        arity=arity,
        patternify=patternify,
        function_args=frozenset(fn),
        aliases=aliases,
        preserve_steps=preserve_steps,
        doc=doc or (func.__doc__ or "").strip().split("\n")[0],
    )


def _c(
    name: str,
    func: Callable[..., Any],
    *,
    method: bool = False,
    aliases: tuple[str, ...] = (),
    fn: tuple[int, ...] = (),
    variadic_functions: bool = False,
    doc: str = "",
) -> PatternFunction:
    return PatternFunction(
        name=name,
        kind="constructor",
        func=func,
        method=method,
        aliases=aliases,
        function_args=frozenset(fn),
        variadic_functions=variadic_functions,
        doc=doc or (func.__doc__ or "").strip().split("\n")[0],
    )


def _v(
    name: str, value: Pattern, *, aliases: tuple[str, ...] = (), doc: str = ""
) -> PatternFunction:
    return PatternFunction(
        name=name, kind="value", value=value, method=False, aliases=aliases, doc=doc
    )


def _operator_entries() -> list[PatternFunction]:
    entries = []
    for what in OPERATORS:
        variants: dict[str, Callable[..., Pattern]] = {
            how: (lambda pat, *args, _w=what, _h=how: apply_op(_w, _h, reify(pat), *args))
            for how in ALIGNMENTS
        }
        variants["squeezein"] = variants["squeeze"]

        def as_function(*args: Any, _w: str = what) -> Any:
            # add(amount, pat) as a function; add(amount) alone waits for the pattern
            if len(args) < 2:
                return lambda pat: apply_op(_w, "in", reify(pat), *args)
            return apply_op(_w, "in", reify(args[-1]), *args[:-1])

        entries.append(
            PatternFunction(
                name=what,
                kind="operator",
                func=as_function,
                arity=2,
                variants=variants,
                doc=f"{what} values (structure from the left; .out/.mix/.squeeze/... for other alignments)",
            )
        )
    return entries


def _struct_like(name: str, what: str, how: str, doc: str) -> PatternFunction:
    def func(b: Any, pat: Pattern) -> Pattern:
        return apply_op(what, how, pat, b)

    return _t(name, func, 2, patternify=False, doc=doc)


def _controls() -> list[PatternFunction]:
    entries: dict[str, PatternFunction] = {}
    for names, aliases in CONTROLS:
        func = control_function(names)
        for n in (names[0], *aliases):
            entries[n] = PatternFunction(
                name=n, kind="control", func=func, doc=f"the {names[0]} control"
            )
    return list(entries.values())


def _pick_entries() -> list[PatternFunction]:
    rows = [
        ("pick", "inner", False),
        ("pickmod", "inner", True),
        ("pickOut", "outer", False),
        ("pickmodOut", "outer", True),
        ("pickRestart", "restart", False),
        ("pickmodRestart", "restart", True),
        ("pickReset", "reset", False),
        ("pickmodReset", "reset", True),
        ("inhabit", "squeeze", False),
        ("inhabitmod", "squeeze", True),
    ]
    aliases = {"inhabit": ("pickSqueeze",), "inhabitmod": ("pickmodSqueeze",)}
    return [
        _t(name, pk.pick_join(how, mod), 2, aliases=aliases.get(name, ()))
        for name, how, mod in rows
    ]


def _squeeze(*args: Any) -> Pattern:
    """squeeze(pat, [xs]) or pat.squeeze([xs]): each index event plays that pattern squeezed in."""
    return pk.squeeze(*args)


def _method_or_function(args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    # method form: (pat, f, g, ...); Strudel's function form: ([f, g, ...], pat)
    if len(args) == 2 and isinstance(args[0], list):
        return args[1], tuple(args[0])
    return args[0], args[1:]


def _superimpose(*args: Any) -> Pattern:
    """p.superimpose(f, g) = stack(p, f(p), g(p)); also superimpose([f, g], p)."""
    pat, funcs = _method_or_function(args)
    return tr.superimpose(*funcs, reify(pat))


def _layer(*args: Any) -> Pattern:
    """p.layer(f, g) = stack(f(p), g(p)); also layer([f, g], p)."""
    pat, funcs = _method_or_function(args)
    return tr.layer(*funcs, reify(pat))


def _seq_pairs(*pairs: Any) -> Pattern:
    return stepcat(*pairs)


ENTRIES: list[PatternFunction] = [
    # constructors
    _c("pure", pure, doc="a value once per cycle"),
    _c("stack", stack, method=True, aliases=("polyrhythm", "pr"), doc="play patterns at once"),
    _c(
        "sequence",
        fastcat,
        method=True,
        aliases=("seq", "fastcat"),
        doc="patterns squeezed into one cycle",
    ),
    _c("cat", slowcat, method=True, aliases=("slowcat",), doc="one pattern per cycle, in turn"),
    _c(
        "stepcat",
        _seq_pairs,
        aliases=("timeCat", "timecat", "s_cat"),
        doc="concatenate [steps, pattern] pairs",
    ),
    _c(
        "polymeter",
        st.polymeter,
        aliases=("pm", "s_polymeter"),
        doc="patterns aligned to a common step count",
    ),
    _c("arrange", tr.arrange, doc="sections of [cycles, pattern]"),
    _c("mini", mini_sequence, doc="mini-notation strings, in sequence"),
    _c("m", mini_at, doc="one mini-notation string (with a code offset)"),
    _c("h", mini_raw, doc="mini-notation in its own quotes"),
    _c("minify", minify, doc="a string as mini-notation, anything else as a pattern"),
    _c("run", sig.run, doc="0 .. n-1, one per step"),
    _c("irand", sig.irand, doc="random integers 0 .. n-1"),
    _c("brandBy", sig.brand_by, doc="random booleans, true with probability p"),
    _c("choose", sig.choose, aliases=("chooseOut",), doc="a random choice of values"),
    _c("chooseIn", sig.choose_in, doc="a random choice (inner join)"),
    _c("partials", presets.partials, method=True, doc="harmonic magnitudes for the core synths"),
    _c("phases", presets.phases, method=True, doc="harmonic phases for the core synths"),
    _c("randL", sig.rand_list, doc="a list of n random numbers at each moment"),
    _c("morph", eu.morph, doc="a rhythm between two rhythms"),
    _c("tour", st.tour, method=True, doc="the pattern between each of the others in turn"),
    _c("xfade", pieces.xfade, method=True, doc="two patterns, their gains crossfaded"),
    _c("zip", st.zip_steps, doc="one step of each pattern in turn"),
    _c("stepalt", st.stepalt, aliases=("s_alt",), doc="lists take turns, one element each"),
    _c("chooseWith", sig.choose_with_list, doc="a choice of values by a pattern of 0…1"),
    _c("chooseInWith", sig.choose_in_with_list, doc="a choice by a pattern of 0…1 (inner join)"),
    _c("chooseCycles", sig.choose_cycles, aliases=("randcat",), doc="a random pattern per cycle"),
    _c("wchoose", sig.wchoose, doc="a weighted random choice of [value, weight] pairs"),
    _c(
        "wchooseCycles",
        sig.wchoose_cycles,
        aliases=("wrandcat",),
        doc="a weighted random pattern per cycle",
    ),
    _c(
        "squeeze",
        _squeeze,
        method=True,
        doc="each index plays that pattern squeezed into its event",
    ),
    # values
    _v("silence", silence, doc="nothing"),
    _v("nothing", nothing, doc="nothing, with zero steps"),
    _v("sine", sig.sine),
    _v("per", sig.per, aliases=("perCycle",), doc="events per cycle of the events it takes structure from"),
    _v("cyclesPer", sig.cycles_per, doc="the duration in cycles of the events it takes structure from"),
    _v("sine2", sig.sine2),
    _v("cosine", sig.cosine),
    _v("cosine2", sig.cosine2),
    _v("saw", sig.saw),
    _v("saw2", sig.saw2),
    _v("isaw", sig.isaw),
    _v("isaw2", sig.isaw2),
    _v("tri", sig.tri),
    _v("tri2", sig.tri2),
    _v("itri", sig.itri),
    _v("itri2", sig.itri2),
    _v("square", sig.square),
    _v("square2", sig.square2),
    _v("rand", sig.rand),
    _v("rand2", sig.rand2),
    _v("perlin", sig.perlin),
    _v("brand", sig.brand),
    _v("berlin", sig.berlin),
    _c("binary", sig.binary, doc="the bits of a number as a 0/1 sequence"),
    _c("binaryN", sig.binary_n, doc="the bits of a number, with a given bit count"),
    _c("binaryL", sig.binary_l, doc="the bits of a number as one list value"),
    _c("binaryNL", sig.binary_nl, doc="the bits of a number as one list value, with a given bit count"),
    _c("seqPLoop", pieces.seq_p_loop, doc="patterns placed over their spans of a loop"),
    _c("steady", steady, doc="a continuous constant value"),
    _c("gap", gap, doc="silence taking the given steps"),
    # time
    _t("fast", tr.fast, 2, preserve_steps=True),  # `density` is the control, as in Strudel 1.2.6
    _t("slow", tr.slow, 2, aliases=("sparsity",)),
    _t("early", tr.early, 2, preserve_steps=True),
    _t("late", tr.late, 2, preserve_steps=True),
    _t("hurry", tr.hurry, 2),
    _t("cpm", tr.cpm, 2),
    _t("compress", tr.compress, 3),
    _t("fastGap", tr.fast_gap, 2, aliases=("fastgap",)),
    _t("focus", tr.focus, 3),
    _t("zoom", tr.zoom, 3),
    _t("linger", tr.linger, 2, preserve_steps=True),
    _t("inside", tr.inside, 3, fn=(1,)),
    _t("outside", tr.outside, 3, fn=(1,)),
    _t("rev", tr.rev, 1, patternify=False, preserve_steps=True),
    _t("revv", tr.revv, 1),
    _t("repeatCycles", tr.repeat_cycles, 2, preserve_steps=True),
    _t("ply", tr.ply, 2),
    _t("plyWith", tr.ply_with, 3, fn=(1,), aliases=("plywith",)),
    _t("plyForEach", tr.ply_for_each, 3, fn=(1,), aliases=("plyforeach",)),
    _t("iter", tr.iter_, 2, preserve_steps=True),
    _t("iterBack", tr.iter_back, 2, aliases=("iterback",), preserve_steps=True),
    _t("palindrome", tr.palindrome, 1, preserve_steps=True),
    _t("every", tr.every, 3, fn=(1,), aliases=("firstOf",)),
    _t("lastOf", tr.last_of, 3, fn=(1,)),
    _t("when", tr.when, 3, fn=(1,)),
    _t("within", tr.within, 4, fn=(2,)),
    _t("chunk", tr.chunk, 3, fn=(1,), aliases=("slowchunk", "slowChunk"), preserve_steps=True),
    _t("chunkBack", tr.chunk_back, 3, fn=(1,), aliases=("chunkback",), preserve_steps=True),
    _t("fastChunk", tr.fast_chunk, 3, fn=(1,), aliases=("fastchunk",), preserve_steps=True),
    _t("off", tr.off, 3, fn=(1,)),
    _t("brak", tr.brak, 1),
    _t("press", tr.press, 1),
    _t("pressBy", tr.press_by, 2),
    _t("swingBy", tr.swing_by, 3),
    _t("swing", tr.swing, 2),
    _t("segment", tr.segment, 2, aliases=("seg",)),
    _t("invert", tr.invert, 1, aliases=("inv",), preserve_steps=True),
    _t("echoWith", tr.echo_with, 4, fn=(2,), aliases=("echowith", "stutWith", "stutwith")),
    _t("echo", tr.echo, 4),
    _t("stut", tr.stut, 4),
    _t("jux", tr.jux, 2, fn=(0,)),
    _t("juxBy", tr.jux_by, 3, fn=(1,), aliases=("juxby",)),
    _t("bite", tr.bite, 3, patternify=False),
    _t("ribbon", tr.ribbon, 3, aliases=("rib",)),
    _t("into", pieces.into, 3, fn=(1,), patternify=False),
    _t("chunkInto", pieces.chunk_into, 3, fn=(1,), aliases=("chunkinto",)),
    _t("chunkBackInto", pieces.chunk_back_into, 3, fn=(1,), aliases=("chunkbackinto",)),
    _t("chop", tr.chop, 2),
    _t("slice", tr.slice_, 3, patternify=False),
    _t("splice", tr.splice, 3, patternify=False),
    _t("striate", tr.striate, 2),
    _t("take", st.take, 2, aliases=("s_add",), join="step"),
    _t("shrink", st.shrink, 2, aliases=("s_taper",), join="step"),
    _t("grow", st.grow, 2, join="step"),
    _t("drop", st.drop, 2, aliases=("s_sub",), join="step"),
    _t("pace", st.pace, 2, aliases=("steps",)),
    _t("expand", st.expand, 2, aliases=("s_expand",), join="step"),
    _t("contract", st.contract, 2, aliases=("s_contract",), join="step"),
    _t("extend", st.extend, 2, aliases=("s_extend",), join="step"),
    _t("replicate", st.replicate, 2, join="step"),
    # numbers
    _t("round", tr.round_, 1),
    _t("floor", tr.floor_, 1),
    _t("ceil", tr.ceil_, 1),
    _t("toBipolar", tr.to_bipolar, 1),
    _t("fromBipolar", tr.from_bipolar, 1),
    _t("range", tr.range_, 3),
    _t("rangex", tr.rangex, 3),
    _t("range2", tr.range2, 3),
    # structure
    _struct_like(
        "struct", "keepif", "out", "keep the truthy steps of a boolean pattern (its structure)"
    ),
    _struct_like("structAll", "keep", "out", "take the structure of another pattern"),
    _struct_like(
        "mask", "keepif", "in", "silence where a boolean pattern is false (keeps structure)"
    ),
    _struct_like("maskAll", "keep", "in", "keep the structure where another pattern has events"),
    _struct_like("reset", "keepif", "reset", "restart the cycle at each true step"),
    _struct_like("restart", "keepif", "restart", "restart from zero at each true step"),
    _t("euclid", eu.euclid, 3),
    _t("euclidish", eu.euclidish, 4, aliases=("eish",)),
    _t("euclidRot", eu.euclid_rot, 4, aliases=("euclidrot",)),
    _t("euclidLegato", eu.euclid_legato, 3),
    _t("euclidLegatoRot", eu.euclid_legato_rot, 4),
    _t("bjork", eu.bjork, 2),
    _t("arp", pk.arp, 2, patternify=False),
    _t("arpWith", pk.arp_with, 2, fn=(0,)),
    _t("filterHaps", filters.filter_haps, 2, fn=(0,)),
    _t("filter", filters.filter_haps, 2, fn=(0,), preserve_steps=True),
    _t("filterValues", filters.filter_values, 2, fn=(0,)),
    _t("filterWhen", filters.filter_when, 2, fn=(0,)),
    _t("withValue", filters.with_value, 2, fn=(0,), aliases=("fmap",)),
    _c(
        "superimpose",
        _superimpose,
        method=True,
        variadic_functions=True,
        doc="stack the pattern with functions of it",
    ),
    _c("layer", _layer, method=True, variadic_functions=True, doc="stack functions of the pattern"),
    _c("FX", pieces.fx, method=True, doc="append effects to each event's effect chain"),
    _c("tag", filters.tag, method=True, doc="mark every event with a name a filter can test"),
    _t("apply", tr.apply_, 2, fn=(0,)),
    _t("pickF", pk.pick_functions, 3, patternify=False),
    _t("ratio", tr.ratio, 1),
    _t("bypass", tr.bypass, 2, preserve_steps=True),
    _t("hush", tr.hush, 1),
    _t("adsr", presets.adsr, 2),
    _t("piano", presets.piano, 1),
    _t("loopAt", fitting.loop_at, 2, aliases=("loopat",)),
    _t("loopAtCps", fitting.loop_at_cps, 3, aliases=("loopatcps",)),
    _t("as", presets.as_controls, 2),
    _t("scrub", presets.scrub, 2, patternify=False),
    _t("fit", fitting.fit, 1),
    _t("voicing", vc.voicing, 1),
    _t("rootNotes", vc.root_notes, 2),
    _t("beat", tr.beat, 3),
    _t("applyN", tr.apply_n, 3, fn=(1,)),
    # randomness
    _t("degradeBy", sig.degrade_by, 2, preserve_steps=True),
    _t("undegradeBy", sig.undegrade_by, 2, preserve_steps=True),
    _t("degrade", sig.degrade, 1, preserve_steps=True),
    _t("undegrade", sig.undegrade, 1, preserve_steps=True),
    _t("sometimesBy", sig.sometimes_by, 3, fn=(1,)),
    _t("sometimes", sig.sometimes, 2, fn=(0,)),
    _t("often", sig.often, 2, fn=(0,)),
    _t("rarely", sig.rarely, 2, fn=(0,)),
    _t("almostNever", sig.almost_never, 2, fn=(0,)),
    _t("almostAlways", sig.almost_always, 2, fn=(0,)),
    _t("someCyclesBy", sig.some_cycles_by, 3, fn=(1,)),
    _t("someCycles", sig.some_cycles, 2, fn=(0,)),
    _t("never", sig.never, 2, fn=(0,)),
    _t("always", sig.always, 2, fn=(0,)),
    _t("seed", sig.seed, 2),
    _t("shuffle", sig.shuffle, 2),
    _t("scramble", sig.scramble, 2),
    _t("scale", tonal.scale, 2, preserve_steps=True),
    _t("transpose", tonal.transpose, 2, aliases=("trans",)),
    _t("scaleTranspose", tonal.scale_transpose, 2, aliases=("scaleTrans", "strans")),
    *_pick_entries(),
    *_operator_entries(),
    *_controls(),
]
