"""Hostile pattern code: replies a careless or malicious musician could send, each of which
must be refused (or answered) within the validation budget — never hang, never eat memory.

Used by tests/patterns/test_hostile_corpus.py and by benchmarks/jam.py (the figure
"validation worst case over the hostile corpus")."""

from __future__ import annotations

HOSTILE: dict[str, list[str]] = {
    "chained fast": [
        's("bd").fast(1000).fast(1000).fast(1000).fast(1000)',
        's("bd*16").fast(1000).fast(1000)',
        's("bd").fast(1000).fast(1000).slow(0.001)',
        's("bd")' + ".fast(100)" * 12,
        'note("c3 e3 g3").hurry(1000).hurry(1000).ply(1000)',
        's("bd").fast(1000000).fast(1000000)',
    ],
    "patterned fast": [
        's("bd").fast("<1000000>").fast("<1000000>")',
        's("bd").fast("1 1000000").fast("<1 1000000>")',
        's("bd").fast(sine.range(1, 1000000)).fast(1000)',
        's("bd").fast(rand.mul(1000000)).fast("<1000 100000>")',
        's("bd").fast("[1000000 1000000]*1000")',
        's("bd*<1000 1000>").fast("<1000000>")',
        's("bd").slow("<0.000001>").slow(0.000001)',
    ],
    "huge ply, segment, euclid": [
        's("bd").ply(1024).ply(1024).ply(1024)',
        's("bd").segment(1024).segment(1024).fast(1024)',
        'sine.segment(1024).fast(1024).range(1, 5)',
        's("bd(1024,1024)").fast(1024)',
        's("bd").euclid(1024, 1024).ply(1024)',
        's("bd").chop(1024).striate(1024)',
        's("bd*1024!1024")',
        'n("0 .. 1024").fast(1024)',
        's("bd").ply("<1024 1024>").hurry("<1024>")',
        # counts computed while querying, out of reach of the evaluator's literal checks
        's("bd").euclid(3, sine.range(1, 1000000).segment(1))',
        's("bd").chunk(sine.range(1, 1000000).segment(1), x => x.fast(2))',
        's("bd").plyWith(sine.range(1, 1000000).segment(1), x => x.fast(2))',
        's("bd").shuffle(sine.range(1, 1000000).segment(1))',
        'n(run(sine.range(1, 1000000).segment(1)))',
        's("bd").linger(sine.range(0.000001, 0.00001).segment(1))',
    ],
    "deeply nested mini brackets": [
        's("' + "[" * 60 + "bd*1024" + "]*1024" * 60 + '")',
        's("' + "<" * 60 + "bd" + ">" * 60 + '").fast(1000000)',
        's("' + "{" * 40 + "bd sd" + "}%1024" * 40 + '")',
        's("' + "[bd " * 200 + "]" * 200 + '")',
    ],
    "giant numbers": [
        's("bd").fast(999999).fast(999999).fast(999999)',
        's("bd").late(999999.999).fast(999999)',
        'n("999999 -999999").add(999999).fast(999999)',
        's("bd").fast(1e6).fast(1e6)',
        's("bd").fast(0.000001).slow(0.000001).fast(1e6)',
    ],
    "long strings": [
        's("' + "bd " * 3000 + '")',
        's("' + "bd*1024 " * 1000 + '")',
        "s('" + "x" * 3990 + "')",
        'note("' + "c3 " * 1300 + '").fast(1000)',
    ],
    "recursion depth": [
        "stack(" * 60 + 's("bd")' + ").fast(1000)" * 60,
        "s('bd')" + ".every(2, x => x.fast(1000))" * 40,
        "s('bd')" + ".off(0.125, x => x.fast(100))" * 20,
        "s('bd')" + ".superimpose(x => x.ply(8))" * 20,
        "s('bd')" + ".jux(x => x.fast(1000))" * 30,
        "s('bd')" + ".chunk(4, x => x.hurry(1000))" * 30,
    ],
    # dense only past the first four cycles (#24): checked over the pattern's period
    "late cycles": [
        's("<bd bd bd bd [bd*1024]>")',
        's("<' + "bd " * 39 + '[bd*1024]>")',
        's("bd").lastOf(8, x => x.ply(1000))',
        's("<bd*8 hh*8>").slow(4).lastOf(6, x => x.fast(100))',
        's("<bd bd bd bd bd [bd*1024]>").ply(32)',
    ],
}

ALL: list[str] = [code for codes in HOSTILE.values() for code in codes]

__all__ = ["ALL", "HOSTILE"]
