"""Each musical fact lives once, in the lowest layer that owns it: a scan of `src/` (its syntax
trees) for a second table of a kind that has a home — a role → GM program map, the Krumhansl
key profiles, a 12-name table of pitch names, a letter → pitch-class table, a key-signature table, a tempo (BPM) regex,
a mood → energy map. A copy
elsewhere fails here, naming the file, the line and the home to import from instead."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bandstand.compose.lexicon.moods import MOODS
from bandstand.craft.roles import ROLES
from bandstand.errors import TheoryError
from bandstand.theory import pitch_class

SRC = Path(__file__).resolve().parents[1] / "src" / "bandstand"
HOMES = {
    "GM program map": "craft/roles.py",
    "Krumhansl profile": "theory/_detect.py",
    "pitch-name table": "theory/_notes.py",
    "letter → pitch-class table": "theory/_notes.py",
    "key-signature table": "theory/_keys.py",
    "BPM regex": "craft/_request_words.py",
    "mood → energy map": "compose/lexicon/moods.py",
}
KRUMHANSL = {6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88,
             6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17}
ENERGY = {m.label: m.energy for m in MOODS}
_BPM = re.compile(r"bpm|beats per minute", re.I)


def _const(node: ast.AST) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _numbers(node: ast.AST) -> list[float]:
    return [v for n in ast.walk(node) if isinstance(v := _const(n), float | int) and not isinstance(v, bool)]


def _gm_map(node: ast.AST) -> bool:
    """A dict literal of six or more roles, each to a GM program number (0–127)."""
    if not isinstance(node, ast.Dict) or len(node.keys) < 6:
        return False
    keys = [_const(k) for k in node.keys if k is not None]
    values = [_const(v) for v in node.values]
    return (sum(k in ROLES for k in keys) >= 6
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 127 for v in values))


def _profile(node: ast.AST) -> bool:
    """A sequence of 12 numbers, most of them the Krumhansl–Kessler profile's."""
    if not isinstance(node, ast.Tuple | ast.List) or len(node.elts) != 12:
        return False
    values = [_const(e) for e in node.elts]
    return sum(isinstance(v, float) and v in KRUMHANSL for v in values) >= 8


def _named(node: ast.AST) -> tuple[list[str], list[int]] | None:
    """The names (upper case) and pitch classes of a sequence of note names (any case, any
    spelling), or None when the node is not one."""
    if not isinstance(node, ast.Tuple | ast.List) or not node.elts:
        return None
    values = [_const(e) for e in node.elts]
    if not all(isinstance(v, str) and 0 < len(v) <= 3 for v in values):
        return None
    try:
        return [str(v).upper() for v in values], [pitch_class(str(v)[0].upper() + str(v)[1:]) for v in values]
    except TheoryError:
        return None


def _names(node: ast.AST) -> bool:
    """A sequence of 12 strings naming the 12 pitch classes in order, C first (any case, any
    spelling) — or only their letters, the accidentals kept in a table beside it ("C", "C", "D", …:
    each pitch class's letter, a semitone away at most, every letter there, in order)."""
    named = _named(node)
    if named is None or len(named[1]) != 12:
        return False
    letters, pcs = named
    if pcs == list(range(12)):
        return True
    return (all(len(v) == 1 for v in letters) and set(letters) == set("CDEFGAB") and letters == sorted(letters, key="CDEFGAB".index)
            and all(min((pc - i) % 12, (i - pc) % 12) <= 1 for i, pc in enumerate(pcs)))


def _fifths(node: ast.AST) -> bool:
    """Eight or more key names in circle-of-fifths order, a key by its signature
    (`theory.key_with_signature`): each a fifth above the one before."""
    named = _named(node)
    return named is not None and len(named[1]) >= 8 and all((b - a) % 12 == 7 for a, b in itertools.pairwise(named[1]))


def _letter_pcs(node: ast.AST) -> bool:
    """A dict of the seven natural letters (either case) to their pitch classes (`theory.letter_pc`)."""
    if not isinstance(node, ast.Dict) or len(node.keys) < 7:
        return False
    pairs = {str(k).upper(): v for key, value in zip(node.keys, node.values, strict=True)
             if key is not None and isinstance(k := _const(key), str) and len(k) == 1
             and isinstance(v := _const(value), int)}
    return pairs == {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}


def _bpm_regex(node: ast.AST) -> bool:
    """A string constant that reads a number of beats per minute: a digit class and 'bpm'."""
    value = _const(node)
    return isinstance(value, str) and "\\d" in value and bool(_BPM.search(value))


def _mood_energy(node: ast.AST) -> bool:
    """A dict of five or more moods whose values hold each mood's energy at one position."""
    if not isinstance(node, ast.Dict):
        return False
    rows = [(k, _numbers(v)) for key, v in zip(node.keys, node.values, strict=True)
            if key is not None and isinstance(k := _const(key), str) and k in ENERGY]
    if len(rows) < 5:
        return False
    width = min(len(numbers) for _, numbers in rows)
    return any(sum(abs(numbers[i] - ENERGY[k]) < 1e-9 for k, numbers in rows) >= 0.8 * len(rows)
               for i in range(width))


KINDS = {
    "GM program map": _gm_map,
    "Krumhansl profile": _profile,
    "pitch-name table": _names,
    "letter → pitch-class table": _letter_pcs,
    "key-signature table": _fifths,
    "BPM regex": _bpm_regex,
    "mood → energy map": _mood_energy,
}


def tables(source: str) -> Iterator[tuple[str, int]]:
    """(kind, line) of every table of a homed kind in Python source."""
    for node in ast.walk(ast.parse(source)):
        for kind, found in KINDS.items():
            if found(node):
                yield kind, getattr(node, "lineno", 0)


def _copies() -> list[str]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        for kind, line in tables(path.read_text(encoding="utf-8")):
            if where != HOMES[kind]:
                out.append(f"src/bandstand/{where}:{line}: a {kind} outside its home; import it from "
                           f"src/bandstand/{HOMES[kind]}")
    return out


def test_each_fact_has_one_table() -> None:
    assert _copies() == []


def test_each_home_holds_its_table() -> None:
    for kind, home in HOMES.items():
        if kind in ("mood → energy map", "letter → pitch-class table", "key-signature table"):  # rows, or worked out
            continue
        assert kind in {k for k, _ in tables((SRC / home).read_text(encoding="utf-8"))}, (kind, home)


@pytest.mark.parametrize(("kind", "source"), [
    ("GM program map", 'P = {"drums": 0, "bass": 33, "chords": 0, "lead": 80, "pad": 89, "arp": 81,'
                       ' "counter_melody": 73}'),
    ("Krumhansl profile", "MAJOR = (6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88)"),
    ("pitch-name table", 'NAMES = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")'),
    ("pitch-name table", 'NAMES = ["c", "db", "d", "eb", "e", "f", "gb", "g", "ab", "a", "bb", "b"]'),
    ("pitch-name table", '_SHARP_STEPS = ("C", "C", "D", "D", "E", "F", "F", "G", "G", "A", "A", "B")'),
    ("pitch-name table", '_FLAT_STEPS = ("C", "D", "D", "E", "E", "F", "G", "G", "A", "A", "B", "B")'),
    ("letter → pitch-class table", '_CHROMAS = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}'),
    ("letter → pitch-class table", 'N = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}'),
    ("key-signature table", '_MAJOR_BY_SHARPS = ("Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B",'
                            ' "F#", "C#")'),
    ("BPM regex", r'TEMPO = re.compile(r"\b(\d{2,3})\s*bpm\b", re.I)'),
    ("mood → energy map", 'E = {"dark": (0.6, 0.2), "sad": (0.3, 0.1), "happy": (0.75, 0.9), "chill": (0.3, 0.6),'
                          ' "epic": (0.85, 0.6), "mechanical": (0.6, 0.45)}'),
])
def test_a_copy_is_found(kind: str, source: str) -> None:
    assert kind in {k for k, _ in tables(source)}


def test_tables_of_other_facts_are_not_copies() -> None:
    others = ('FEEL = {"dark": (0.2, 0.7), "sad": (0.1, 0.45), "happy": (0.9, 0.2), "chill": (0.6, 0.2),'
              ' "epic": (0.6, 0.6)}\n'
              'STRINGS = {"lead": 40, "counter_melody": 40, "pad": 41, "bass": 42, "chords": 45}\n'
              'ASK = re.compile(r"\\b(?:tempo|bpm|how fast)\\b")\n'
              'DEGREES = ("1", "b2", "2", "b3", "3", "4", "#4", "5", "b6", "6", "b7", "7")\n')
    assert list(tables(others)) == []
