"""Random pattern code for differential tests against Strudel (seeded, reproducible).

`random_mini(rng)` builds mini-notation from the whole grammar (nesting,
alternation, polymeter, every operator); `random_code(rng)` wraps it in
controls and chains of registered transforms with random arguments.
"""

from __future__ import annotations

import random

WORDS = ["a", "b", "c", "bd", "sd", "hh", "c3", "eb4", "0", "1", "2", "3", "-1", "0.5", "~"]
SMALL = ["1", "2", "3", "4", "0.5", "1.5", "0.25"]


def _number(rng: random.Random) -> str:
    return rng.choice(SMALL)


def _arg(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if r < 0.6 or depth > 2:
        return _number(rng)
    if r < 0.8:
        return f"<{' '.join(rng.choice(SMALL[:4]) for _ in range(rng.randint(1, 3)))}>"
    return f"[{' '.join(rng.choice(SMALL[:4]) for _ in range(rng.randint(1, 3)))}]"


def _element(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if depth > 2 or r < 0.5:
        base = rng.choice(WORDS)
    elif r < 0.65:
        base = f"[{_sequence(rng, depth + 1, stacks=True)}]"
    elif r < 0.8:
        base = f"<{_sequence(rng, depth + 1, stacks=False)}>"
    elif r < 0.9:
        base = f"{{{_sequence(rng, depth + 1, stacks=False)}, {_sequence(rng, depth + 1, stacks=False)}}}"
        if rng.random() < 0.5:
            base += f"%{rng.choice(['2', '3', '4', '<2 3>'])}"
    else:
        base = f"[{_sequence(rng, depth + 1, stacks=False)} | {_sequence(rng, depth + 1, stacks=False)}]"
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        op = rng.random()
        if op < 0.2:
            base += f"*{_arg(rng, depth)}"
        elif op < 0.3:
            base += f"/{_arg(rng, depth)}"
        elif op < 0.4:
            base += rng.choice(["!", "!2", "!3", " !"])
        elif op < 0.55:
            base += rng.choice(["@2", "@1.5", "@3", " _"])
        elif op < 0.7:
            base += rng.choice(["?", "?0.3", "?0.8"])
        elif op < 0.85:
            base += rng.choice(["(3,8)", "(5,8,2)", "(<3 5>,8)", "(3,8,<0 2>)", "(-3,8)", "(2,5)"])
        else:
            base += rng.choice([":2", ":1:0.5"])
    return base


def _sequence(rng: random.Random, depth: int, stacks: bool) -> str:
    seq = " ".join(_element(rng, depth) for _ in range(rng.randint(1, 4)))
    if stacks and rng.random() < 0.2:
        seq += ", " + " ".join(_element(rng, depth) for _ in range(rng.randint(1, 3)))
    elif stacks and rng.random() < 0.1:
        seq += " . " + " ".join(_element(rng, depth) for _ in range(rng.randint(1, 3)))
    return seq


def random_mini(rng: random.Random) -> str:
    return _sequence(rng, 0, stacks=True)


_NUMERIC_TRANSFORMS = [
    "fast({n})",
    "slow({n})",
    "early({f})",
    "late({f})",
    "ply({i})",
    "iter({i})",
    "iterBack({i})",
    "degradeBy({p})",
    "undegradeBy({p})",
    "segment({i})",
    "linger({f})",
    "repeatCycles({i})",
    "swingBy({f}, {i})",
    "shuffle({i})",
    "scramble({i})",
    "chop({i})",
    "seed({i})",
    "pressBy({f})",
    "euclid({i}, 8)",
    "euclidRot(3, 8, {i})",
    "euclidLegato({i}, 8)",
    "fastGap({i})",
    "zoom(0.25, 0.75)",
    "compress(0.25, 0.75)",
    "take({i})",
    "drop({i})",
    "ribbon({f}, {i})",
    'bite({i}, "0 1")',
    "hurry({i})",
    "range(1, 5)",
    "palindrome()",
    "rev()",
    "brak()",
    "press()",
    "degrade()",
]
_FUNCTION_TRANSFORMS = [
    "every({i}, x => x.fast(2))",
    "lastOf({i}, rev)",
    "sometimes(x => x.add(1))",
    "often(add(10))",
    "rarely(x => x.speed(2))",
    "sometimesBy({p}, x => x.late(0.25))",
    "off({f}, x => x.add(7))",
    "superimpose(x => x.fast(2))",
    "layer(rev, x => x.early(0.25))",
    "chunk({i}, x => x.hurry(2))",
    "inside({i}, rev)",
    "outside({i}, rev)",
    "echo({i}, {f}, 0.5)",
    "echoWith({i}, {f}, x => x.add(1))",
    "plyWith({i}, x => x.mul(2))",
    "jux(rev)",
    "juxBy(0.5, fast(2))",
    "within(0, 0.5, x => x.fast(2))",
    'when("1 0", x => x.add(3))',
    "someCyclesBy({p}, x => x.add(1))",
    'struct("1 0 1 1")',
    'mask("<1 [0 1]>")',
    'add("<0 3>")',
    'mul.out("1 2")',
    'sub.mix("1 2 3")',
    'add.squeeze("0 12")',
    'arp("0 1 2")',
]
_CONTROLS = ["n({m})", "s({m})", "note({m})", "{m}"]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        n=rng.choice(["2", "0.5", "1.5", '"<1 2>"', '"1 2"', "3"]),
        f=rng.choice(["0.25", "0.125", "0.5", "1.25", '"<0 0.25>"', "0.1"]),
        i=rng.choice(["2", "3", "4", '"<2 3>"']),
        p=rng.choice(["0.3", "0.5", "0.8", '"<0.2 0.7>"']),
    )


def random_code(rng: random.Random) -> str:
    code = rng.choice(_CONTROLS).format(m=f'"{random_mini(rng)}"')
    for _ in range(rng.randint(0, 3)):
        table = _NUMERIC_TRANSFORMS if rng.random() < 0.6 else _FUNCTION_TRANSFORMS
        code += "." + _fill(rng.choice(table), rng)
    return code


def random_span(rng: random.Random) -> tuple[str, str]:
    denominators = [1, 1, 2, 3, 4, 8]
    d = rng.choice(denominators)
    begin = rng.randint(0, 12 * d)
    length = rng.randint(1, 3 * d)
    return f"{begin}/{d}", f"{begin + length}/{d}"


def _simple_mini(rng: random.Random) -> str:
    return " ".join(_element(rng, 2) for _ in range(rng.randint(1, 4)))


_CONSTRUCTORS = [
    "stack({a}, {b})",
    "cat({a}, {b})",
    "seq({a}, {b})",
    "fastcat({a}, {b})",
    "timeCat([1, {a}], [2, {b}])",
    "stepcat([1.5, {a}], {b})",
    "polymeter({a}, {b})",
    "arrange([1, {a}], [2, {b}])",
    "chooseCycles({a}, {b})",
    "wchooseCycles([{a}, 1], [{b}, 2])",
    'squeeze("0 [1 0]", [{a}, {b}])',
    '"<0 1> 1".pick([{a}, {b}])',
    '"0 <1 0>".inhabit([{a}, {b}])',
    '"0 1 2".pickmod([{a}, {b}])',
    '"<0 1>".pickRestart([{a}, {b}])',
    "n(irand({i}).segment({i}))",
    "sine.range(0, {i}).segment({i})",
    "n(run({i}))",
    "n(choose(1, 2, 3).segment({i}))",
    "perlin.range(0, 4).segment({i})",
    "saw.segment({i}).add({a})",
    "square.segment({i})",
    "tri.range(1, 3).segment({i})",
    "rand.segment({i}).seed({i})",
    "cosine.segment({i})",
    "isaw.segment(4).mul({a})",
    "pure(1).euclidLegatoRot(3, 8, {i})",
    "s({a}).bank('tr909').gain({a})",
    "note({a}).velocity(rand)",
    "n({a}).pan(sine)",
    "s({a}).sound({b})",
    "note({a}).struct({b})",
    "n({a}).mask({b})",
    "n({a}).add.out({b})",
    "n({a}).mul.squeeze({b})",
    "n({a}).set({b})",
    "n({a}).keepif.out({b})",
]


def random_constructor(rng: random.Random) -> str:
    template = rng.choice(_CONSTRUCTORS)
    return template.format(
        a=f'"{_simple_mini(rng)}"',
        b=f'"{_simple_mini(rng)}"',
        i=rng.choice(["2", "3", "4", '"<2 3>"']),
    )


def random_program(rng: random.Random) -> str:
    """Either a transformed mini-notation pattern or a constructor, maybe transformed."""
    if rng.random() < 0.5:
        return random_code(rng)
    code = random_constructor(rng)
    for _ in range(rng.randint(0, 2)):
        table = _NUMERIC_TRANSFORMS if rng.random() < 0.6 else _FUNCTION_TRANSFORMS
        code += "." + _fill(rng.choice(table), rng)
    return code


_DRUMS = ["bd", "sd", "hh", "oh", "cp", "rim", "lt", "mt", "ht", "cr"]
_SCALES = [
    "C:minor",
    "D:dorian",
    "F:major",
    "A:minor:pentatonic",
    "Eb:lydian",
    "G:mixolydian",
    "C4:minor",
    "E:phrygian",
]
_SIGNALS = ["sine", "cosine", "saw", "isaw", "tri", "square", "perlin", "rand"]
_EFFECTS = [
    ".gain({v})",
    ".pan({sig})",
    ".lpf({sig}.range(200, 2000).slow({k}))",
    ".room({v})",
    ".delay({v})",
    '.speed("<1 2>")',
    ".legato({v})",
    ".velocity({sig}.range(0.4, 1))",
    ".hpf(300)",
    '.crush("<4 8>")',
    ".orbit(1)",
    ".release(0.2)",
    ".attack(0.01)",
    '.distort("<0 2>")',
    ".size(0.8)",
    ".cutoff({sig}.segment(4).range(500, 900))",
]


def random_musician(rng: random.Random) -> str:
    """Code in the style the band writes: drums, bass, chords and melody with effects."""

    def drums() -> str:
        hits = " ".join(
            rng.choice(_DRUMS) + rng.choice(["", "*2", "?", "(3,8)", "!2", ":2", "(<3 5>,8,<0 2>)"])
            for _ in range(rng.randint(1, 4))
        )
        return f's("{hits}")' + rng.choice(
            ["", '.bank("RolandTR909")', ".degradeBy(0.2)", ".sometimes(x => x.speed(2))"]
        )

    def melodic() -> str:
        degrees = " ".join(
            rng.choice(["0", "2", "4", "<5 7>", "[0 2]", "~", "-1", "3?", "[4|6]"])
            for _ in range(rng.randint(2, 5))
        )
        scale = (
            rng.choice(_SCALES)
            if rng.random() < 0.7
            else f"<{rng.choice(_SCALES)} {rng.choice(_SCALES)}>"
        )
        return f'n("{degrees}").scale("{scale}").s("{rng.choice(["piano", "sawtooth", "triangle", "gm_bass"])}")'

    def notes() -> str:
        names = " ".join(
            rng.choice(["c2", "eb2", "g1", "bb1", "<c3 e3>", "[c4,e4,g4]", "f#3", "~"])
            for _ in range(rng.randint(1, 4))
        )
        return f'note("{names}")' + rng.choice(
            ["", ".add(12)", '.transpose("<0 3>")', '.arp("0 1 2")', ".off(0.125, x => x.add(7))"]
        )

    layers = []
    for _ in range(rng.randint(1, 3)):
        layer = rng.choice([drums, melodic, notes])()
        for _ in range(rng.randint(0, 3)):
            layer += rng.choice(_EFFECTS).format(
                v=rng.choice(["0.5", "0.8", '"<0.3 0.6>"', "0.25"]),
                sig=rng.choice(_SIGNALS),
                k=rng.choice(["2", "4", "8"]),
            )
        if rng.random() < 0.4:
            layer += "." + _fill(rng.choice(_FUNCTION_TRANSFORMS + _NUMERIC_TRANSFORMS), rng)
        layers.append(layer)
    return layers[0] if len(layers) == 1 else f"stack({', '.join(layers)})"
