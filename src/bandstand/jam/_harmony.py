"""The harmony the jam needs, in mini-notation spelling, on top of `bandstand.theory`.

Note names inside the jam are lower-case mini-notation names (`c`, `f#`, `eb`;
with an octave `f#2`, c4 = MIDI 60 as in Strudel). Scales and chord symbols
come from `bandstand.theory`; the one jam-specific rule here is the diatonic
re-harmonization used on key changes (`diatonic_triad`).
"""

from __future__ import annotations

from functools import lru_cache

from bandstand import theory

MODES: tuple[str, ...] = tuple(theory.KEY_MODES)


@lru_cache(maxsize=1024)
def pitch_class(name: str) -> int:
    """Pitch class 0–11 of a note name such as `f#` or `Eb` (octave optional)."""
    return theory.pitch_class(name)


def spell_scale(tonic: str, mode: str) -> list[str]:
    """The scale of `tonic` `mode`, spelled one letter per degree (`d major` → d e f# …)."""
    return list(_scale(tonic, mode))


@lru_cache(maxsize=256)
def _scale(tonic: str, mode: str) -> tuple[str, ...]:
    return tuple(n.lower() for n in theory.get_scale(f"{tonic} {mode}").notes)


def chord_tones(symbol: str) -> tuple[int, list[int]]:
    """(root pitch class, pitch classes) of a chord symbol like `Cm`, `Ab7`, `F#m7b5`."""
    root, pcs = _chord(symbol)
    return root, list(pcs)


@lru_cache(maxsize=1024)
def _chord(symbol: str) -> tuple[int, tuple[int, ...]]:
    chord = theory.parse_chord(symbol)
    return chord.root, tuple(sorted(set(chord.pitch_classes)))


def name_in_scale(pc: int, scale: list[str]) -> str | None:
    """The scale's spelling of pitch class `pc`, or None when it is not in the scale."""
    return next((n for n in scale if pitch_class(n) == pc), None)


def diatonic_triad(degree: int, scale: list[str]) -> str:
    """The triad on a scale degree (0-based) as a chord symbol; diminished triads become the
    nearest stable chord (vii° → V, others two degrees down, or up if that is diminished
    too) so a re-harmonized progression stays singable."""
    pcs = [pitch_class(n) for n in scale]
    root, third, fifth = pcs[degree % 7], pcs[(degree + 2) % 7], pcs[(degree + 4) % 7]
    quality = {(4, 7): "", (3, 7): "m"}.get(((third - root) % 12, (fifth - root) % 12))
    if quality is None:
        for other in (4,) if degree % 7 == 6 else ((degree - 2) % 7, (degree + 2) % 7):
            symbol = diatonic_triad(other, scale) if _stable(other, pcs) else ""
            if symbol:
                return symbol
        return scale[0][0].upper() + scale[0][1:]
    name = scale[degree % 7]
    return name[0].upper() + name[1:] + quality


def _stable(degree: int, pcs: list[int]) -> bool:
    root, third, fifth = pcs[degree % 7], pcs[(degree + 2) % 7], pcs[(degree + 4) % 7]
    return ((third - root) % 12, (fifth - root) % 12) in {(4, 7), (3, 7)}
