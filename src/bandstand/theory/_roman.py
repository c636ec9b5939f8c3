"""Roman numerals: figure → chord in a key, and chord → figure.

Case gives the triad (upper major, lower minor), ``°``/``o`` diminished,
``ø`` half-diminished, ``+`` augmented; figures give sevenths and inversions
(6, 64, 7, 65, 43, 42). Accidentals (bIII, bVI, bVII, #iv) count from the
major scale on the tonic; unaltered degrees come from the key's scale, and in
minor keys a lower-case vi/vii is the raised degree (as in music21). Sevenths
are diatonic to the key unless the symbol says otherwise (°7, ø7, maj7).
Secondary chords tonicise their target: V7/ii is the V7 of the ii chord's key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from bandstand.errors import TheoryError
from bandstand.theory._chord_grammar import tone, tone_name
from bandstand.theory._chords import Chord, make_chord, parse_chord
from bandstand.theory._intervals import Interval, interval_of, transpose_name
from bandstand.theory._keys import Key, key_from, parse_key
from bandstand.theory._notes import NoteName, parse_note_name
from bandstand.theory._scales import get_scale

_NUMERALS: dict[str, int] = {"i": 0, "ii": 1, "iii": 2, "iv": 3, "v": 4, "vi": 5, "vii": 6}
_ACCIDENTALS: dict[str, int] = {"b": -1, "♭": -1, "#": 1, "♯": 1}
#: quality → (third, fifth, seventh forced by the symbol or None for diatonic)
_QUALITIES: dict[str, tuple[str, str, str | None]] = {
    "major": ("3M", "5P", None),
    "minor": ("3m", "5P", None),
    "dim": ("3m", "5d", "7d"),
    "half": ("3m", "5d", "7m"),
    "aug": ("3M", "5A", None),
}
_SUS: dict[str, str] = {"sus": "4P", "sus4": "4P", "sus2": "2M"}
_SYMBOLS: dict[str, str] = {"°": "dim", "o": "dim", "ø": "half", "Ø": "half", "+": "aug"}
#: figure → (number of chord tones stacked in thirds, inversion: which tone is in the bass)
FIGURES: dict[str, tuple[int, int]] = {
    "": (3, 0), "53": (3, 0), "6": (3, 1), "63": (3, 1), "64": (3, 2),
    "7": (4, 0), "65": (4, 1), "43": (4, 2), "42": (4, 3), "2": (4, 3), "9": (5, 0),
}
_FIGURE_NAMES: dict[tuple[int, int], str] = {(3, 0): "", (3, 1): "6", (3, 2): "64",
                                              (4, 0): "7", (4, 1): "65", (4, 2): "43", (4, 3): "42",
                                              (5, 0): "9"}
_RE = re.compile(
    r"^(?P<acc>[b#♭♯]?)(?P<num>VII|VI|IV|V|III|II|I|vii|vi|iv|v|iii|ii|i|N|It|Ger|Fr)"
    r"(?P<sym>[°oøØ+]?)(?P<maj>maj|M)?(?P<fig>\d*)(?P<sus>sus[24]?)?$"
)
#: chords a secondary dominant or leading-tone chord may tonicise
_TARGETS: dict[str, tuple[str, ...]] = {
    "major": ("V", "ii", "IV", "vi", "iii"),
    "minor": ("V", "iv", "III", "VI", "VII", "v"),
}
#: targets tried only after borrowed and chromatic figures
_RARE_TARGETS: dict[str, tuple[str, ...]] = {
    "major": ("bVII", "bVI", "bIII", "iv", "II", "III", "VI"),
    "minor": ("ii", "II", "IV", "bII", "vi"),
}
_SECONDARY = re.compile(r"^(V|vii[°ø])(7|65|43|42|6|64|9)?$")
_SLASH_FIGURE = re.compile(r"(\d)/(\d)")
_MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11)
#: augmented sixth chords on the lowered sixth degree: name → (tones, figures accepted)
AUGMENTED_SIXTHS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "It": (("1P", "3M", "6A"), ("", "6")),
    "Ger": (("1P", "3M", "5P", "6A"), ("", "6", "65")),
    "Fr": (("1P", "3M", "4A", "6A"), ("", "6", "43")),
}


@dataclass(frozen=True, slots=True)
class RomanNumeral:
    """One parsed numeral (without its secondary targets)."""

    figure: str
    degree: int  # 1..7
    accidental: int
    quality: str  # major, minor, dim, half, aug
    size: int  # 3 triad, 4 seventh, 5 ninth
    inversion: int
    major_seventh: bool = False
    sus: str | None = None  # the tone that replaces the third: "4P" (sus4) or "2M" (sus2)


@dataclass(frozen=True, slots=True)
class RomanFigure:
    """A full figure: the numeral and the chain of targets it is secondary to (innermost first)."""

    text: str
    numeral: RomanNumeral
    targets: tuple[RomanNumeral, ...]


def _numeral(text: str, source: str, offset: int) -> RomanNumeral:
    m = _RE.match(text)
    if m is None:
        raise TheoryError(
            f"not a Roman numeral: {text!r} in {source!r} at position {offset} "
            "(expected e.g. V7, ii65, bVII, viiø7, V/V, N6)",
            text=source, position=offset,
        )
    num, sym, fig = m.group("num"), m.group("sym"), m.group("fig")
    if m.group("sus") and (num in AUGMENTED_SIXTHS or num == "N" or sym):
        raise TheoryError(f"sus goes only on a plain major or minor numeral, not {text!r}",
                          text=source, position=offset + m.start("sus"))
    if num in AUGMENTED_SIXTHS:
        if sym or m.group("maj") or fig not in AUGMENTED_SIXTHS[num][1]:
            raise TheoryError(
                f"the {num} sixth is written {num}{AUGMENTED_SIXTHS[num][1][-1]}, not {text!r}",
                text=source, position=offset + len(num),
            )
        return RomanNumeral(text, 6, -1, num, len(AUGMENTED_SIXTHS[num][0]), 0)
    if num == "N":  # the Neapolitan: a major triad on the lowered second, first inversion unless said
        fig = fig or "6"
        if fig not in ("6", "53", "64"):
            raise TheoryError(f"the Neapolitan takes 6, 53 or 64, not {fig!r}", text=source,
                              position=offset + m.start("fig"))
        return RomanNumeral(text, 2, -1, "major", 3, FIGURES[fig][1])
    if fig not in FIGURES:
        raise TheoryError(
            f"unknown figure {fig!r} in {source!r} at position {offset + m.start('fig')} "
            f"(known: {', '.join(f for f in FIGURES if f)})",
            text=source, position=offset + m.start("fig"),
        )
    size, inversion = FIGURES[fig]
    quality = _SYMBOLS.get(sym) or ("major" if num.isupper() else "minor")
    if (sym in ("°", "o", "ø", "Ø") and num.isupper()) or (sym == "+" and num.islower()):
        raise TheoryError(
            f"{sym!r} does not go with an {'upper' if num.isupper() else 'lower'}-case numeral in {source!r}",
            text=source, position=offset + m.start("sym"),
        )
    if quality == "half" and size == 3:
        size = 4
    major_seventh = m.group("maj") is not None
    if major_seventh and size < 4:
        size = 4
    accidental = _ACCIDENTALS.get(m.group("acc"), 0)
    sus = _SUS.get(m.group("sus") or "")
    return RomanNumeral(text, _NUMERALS[num.lower()] + 1, accidental, quality, size, inversion, major_seventh, sus)


def parse_roman(figure: str) -> RomanFigure:
    """Parse a figure such as ``"V7/ii"``, ``"bVII"``, ``"viiø65"``, ``"N6"`` (no key needed)."""
    text = figure.strip()
    if not text:
        raise TheoryError("empty Roman numeral", text=figure, position=0)
    normal = _SLASH_FIGURE.sub(r"\1\2", text)
    parts = normal.split("/")
    offsets: list[int] = []
    pos = len(figure) - len(figure.lstrip())
    for part in parts:
        offsets.append(pos)
        pos += len(part) + 1
    numerals = [_numeral(p, figure, o) for p, o in zip(parts, offsets, strict=True)]
    return RomanFigure(text, numerals[0], tuple(numerals[1:]))


def _root(numeral: RomanNumeral, key: Key) -> NoteName:
    tonic = parse_note_name(key.tonic)
    index = numeral.degree - 1
    if numeral.accidental:
        major_step = Interval(index, _MAJOR_SCALE[index] + numeral.accidental)
        return transpose_name(tonic, major_step)
    note = parse_note_name(key.scale.notes[index])
    if key.mode == "minor" and index in (5, 6) and numeral.quality in ("minor", "dim", "half"):
        note = NoteName(note.letter, note.alter + 1)
    return note


def _diatonic(root: NoteName, steps: int, key: Key) -> Interval:
    letter = (root.letter + steps) % 7
    target = next(n for n in key.spelled if n.letter == letter)
    iv = interval_of(root, target)
    return Interval(steps, iv.semitones + (12 if iv.steps < steps else 0))


def _tones(numeral: RomanNumeral, key: Key) -> tuple[NoteName, list[str]]:
    root = _root(numeral, key)
    if numeral.quality in AUGMENTED_SIXTHS:
        return root, list(AUGMENTED_SIXTHS[numeral.quality][0])
    third, fifth, forced = _QUALITIES[numeral.quality]
    tones = ["1P", numeral.sus or third, fifth]
    if numeral.size >= 4:
        if numeral.major_seventh:
            seventh = "7M"
        elif forced is not None:
            seventh = forced
        else:
            seventh = tone_name(_diatonic(root, 6, key))
            if seventh not in ("7M", "7m", "7d"):
                seventh = "7m"
        tones.append(seventh)
    if numeral.size >= 5:
        ninth = tone_name(_diatonic(root, 8, key))
        tones.append(ninth if ninth in ("9M", "9m", "9A") else "9M")
    return root, tones


def _tonicised(chord_root: NoteName, third: str) -> Key:
    return key_from(chord_root, "major" if third == "3M" else "minor")


def roman_to_chord(figure: str | RomanFigure, key: Key | str) -> Chord:
    """The chord a figure names in a key: ``roman_to_chord("V7/ii", "C major")`` is A7."""
    return _roman_to_chord(figure, key)


@lru_cache(maxsize=4096)
def _roman_to_chord(figure: str | RomanFigure, key: Key | str) -> Chord:
    parsed = parse_roman(figure) if isinstance(figure, str) else figure
    current = parse_key(key)
    try:
        for target in reversed(parsed.targets):
            root, tones = _tones(target, current)
            current = _tonicised(root, tones[1])
        root, tones = _tones(parsed.numeral, current)
    except TheoryError as exc:
        if not parsed.targets:
            raise
        # a long chain of secondaries walks into spellings no key has (F####)
        text = figure if isinstance(figure, str) else ""
        raise TheoryError(
            f"the chain of {len(parsed.targets)} secondary chords in {text or 'the figure'!r} goes too far "
            f"from {parse_key(key).name} to spell (it reaches {exc.text or 'an unspellable note'}); use fewer '/' levels",
            text=text, position=text.find("/") if text else None,
        ) from None
    bass_tone = tones[parsed.numeral.inversion]
    bass = transpose_name(root, tone(bass_tone))
    chord = make_chord(root, frozenset(tones), bass)
    return chord


def _triad_quality(chord: Chord) -> str | None:
    tones = set(chord.tones)
    table = {("3M", "5P"): "major", ("3m", "5P"): "minor", ("3m", "5d"): "dim", ("3M", "5A"): "aug"}
    for (third, fifth), quality in table.items():
        if third in tones and fifth in tones:
            return quality
    return None


def _candidates(chord: Chord, key: Key) -> list[str]:
    # chords without a plain triad (sus, power, augmented sixths) get the case of their third
    quality = _triad_quality(chord) or ("minor" if "3m" in chord.tones else "major")
    sevenths = [t for t in chord.tones if t.startswith("7")]
    size = (5 if "9M" in chord.tones or "9m" in chord.tones else 4) if sevenths else 3
    if quality == "dim" and sevenths == ["7m"]:
        quality = "half"
    sus = next((t for t in ("4P", "2M") if t in chord.tones), None) if "3M" not in chord.tones and "3m" not in chord.tones else None
    positions = [t for t in chord.tones if t[0] in "1357" or t == sus]
    positions.sort(key=lambda t: (t != "1P", t[0] not in "24", t))
    bass_pos = next((i for i, t in enumerate(positions)
                     if (chord.root + tone(t).semitones) % 12 == chord.bass), 0)
    fig = _FIGURE_NAMES.get((size, bass_pos), "")
    tonic = parse_note_name(key.tonic)
    degree = (parse_note_name(chord.root_name).letter - tonic.letter) % 7
    names = ("I", "II", "III", "IV", "V", "VI", "VII")
    numeral = names[degree] if quality in ("major", "aug") else names[degree].lower()
    symbol = {"dim": "°", "half": "ø", "aug": "+"}.get(quality, "")
    body = numeral + symbol + fig + {"4P": "sus4", "2M": "sus2"}.get(sus or "", "")
    out = [body, "b" + body, "#" + body]
    if sevenths == ["7M"]:
        out += ["maj".join((numeral + symbol, fig)) if fig == "7" else numeral + symbol + "maj" + fig]
    return out


def _secondary(c: Chord, k: Key, targets: tuple[str, ...], same: Callable[[str], bool]) -> str | None:
    for target in targets:
        target_chord = roman_to_chord(target, k)
        local = _tonicised(parse_note_name(target_chord.root_name), target_chord.tones[1])
        for figure in _candidates(c, local):
            if _SECONDARY.match(figure) and same(f"{figure}/{target}"):
                return f"{figure}/{target}"
    return None


def analyse_chord(chord: Chord | str, key: Key | str, strict: bool = False) -> str:
    """The Roman figure of a chord in a key: ``analyse_chord("A7", "C major") == "V7/ii"``.

    Tries diatonic and borrowed figures, then secondary dominants and leading-tone
    chords, then the Neapolitan; the first whose chord has the same pitch classes
    and bass wins. A chord no figure names exactly (a sus chord, an 11th) gets its
    nearest plain figure, or with ``strict=True`` raises `TheoryError`.
    """
    return _analyse(parse_chord(chord), parse_key(key), strict)


@lru_cache(maxsize=4096)
def _analyse(c: Chord, k: Key, strict: bool) -> str:
    direct = _candidates(c, k)

    def same(figure: str) -> bool:
        try:
            other = roman_to_chord(figure, k)
        except TheoryError:
            return False
        return other.pitch_classes == c.pitch_classes and other.bass == c.bass

    # a minor key's own chords include those of its harmonic and melodic forms (V, IV, vii°)
    own = [k.scale] + [get_scale(f"{k.tonic} {form} minor") for form in ("harmonic", "melodic") if k.mode == "minor"]
    if any(all(pc in scale.pitch_classes for pc in c.pitch_classes) for scale in own):
        for figure in direct:
            if same(figure):
                return figure
    mode = "minor" if k.is_minor else "major"
    found = _secondary(c, k, _TARGETS[mode], same)
    if found:
        return found
    for figure in ("N6", "It6", "Ger65", "Fr43", *direct):
        if same(figure):
            return figure
    found = _secondary(c, k, _RARE_TARGETS[mode], same)
    if found:
        return found
    if strict:
        raise TheoryError(f"no Roman numeral names {c.symbol!r} exactly in {k.name}", text=c.symbol, position=0)
    return direct[0]
