"""The deterministic enrichment rules of stage 1: tempo (with the half-time
rule), key and mode, creativity dials, energy and the genre DNA blend."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from bandstand.compose.lexicon import GENRE_BY_NAME, Artist, GenreTraits, Mood
from bandstand.compose.models.intent import (
    CreativityDials,
    GenreDNA,
    KeyAnalysis,
    KeySource,
    TempoAnalysis,
    TempoSource,
)
from bandstand.score import clamp_tempo

Range = tuple[float, float]


def _overlap(a: Range, b: Range) -> Range | None:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def _mid(r: Range) -> float:
    return round((r[0] + r[1]) / 2, 1)


def _fmt(r: Range) -> str:
    return f"{r[0]:g}–{r[1]:g}"


def tempo_from_ranges(named: Sequence[tuple[str, Range]]) -> TempoAnalysis:
    """Intersect the influences' tempo ranges; when two do not overlap, try halving the
    faster one: if that overlaps the slower, the song is half-time at the faster range."""
    (first_name, current), *rest = named
    half = False
    notes = [f"{first_name} {_fmt(current)}"]
    confidence = 0.85
    for name, rng in rest:
        notes.append(f"{name} {_fmt(rng)}")
        both = _overlap(current, rng)
        if both is not None:
            current = both
            continue
        faster, slower = (current, rng) if current[0] > rng[0] else (rng, current)
        halved = (faster[0] / 2, faster[1] / 2)
        if _overlap(halved, slower) is not None:
            half = True
            current = faster
            notes.append(f"no overlap; half of {_fmt(faster)} is {_fmt(halved)}, which meets {_fmt(slower)}: half-time")
        else:
            confidence = 0.5
            notes.append(f"no overlap even at half speed; keeping {_fmt(current)}")
    bpm = float(int(_mid(current) + 0.5))
    if half:
        bpm = _mid(current)
    perceived = bpm / 2 if half else bpm
    return TempoAnalysis(bpm=bpm, source="influence_intersection", half_time=half, perceived_bpm=perceived,
                         confidence=confidence, reasoning="; ".join(notes) + f" → {bpm:g} BPM")


def tempo_from_genre(genre: GenreTraits, bias: int, half_hint: bool, rng: random.Random | None = None) -> TempoAnalysis:
    """The genre's tempo moved by the prompt's tempo words and moods (`bias`: ±2 reach the
    range's ends, −3, a ballad, a step below it) and, given the seed's `rng`, placed by the
    seed within the idiom: anywhere in the middle half of the range when no word pulls it,
    within a quarter step of where the words put it when one does (a fast bluegrass stays fast)."""
    lo, hi = genre.tempo_range
    step = (hi - lo) / 4
    pull = max(-3, min(2, bias))
    centre = _mid(genre.tempo_range) + pull * step
    spread = (step if not pull else step / 4) * (rng.uniform(-1.0, 1.0) if rng is not None else 0.0)
    floor = lo - step if pull < -2 else lo
    bpm = round(clamp_tempo(max(floor, min(hi, centre + spread))))
    source: TempoSource = "mood_inferred" if bias else "genre_default"
    why = f"{genre.name} usually sits at {_fmt(genre.tempo_range)} BPM"
    if bias:
        why += f"; the prompt's words (tempo words, moods) pull it {'up' if bias > 0 else 'down'}"
    if rng is not None:
        why += "; the seed places it within that"
    return TempoAnalysis(bpm=float(bpm), source=source, half_time=half_hint,
                         perceived_bpm=bpm / 2 if half_hint else float(bpm),
                         confidence=0.6, reasoning=why + f" → {bpm} BPM")


def explicit_tempo(bpm: float, half_hint: bool) -> TempoAnalysis:
    return TempoAnalysis(bpm=bpm, source="explicit", half_time=half_hint,
                         perceived_bpm=bpm / 2 if half_hint else bpm, confidence=1.0,
                         reasoning=f"{bpm:g} BPM was asked for" + (" (half-time feel)" if half_hint else ""))


def mood_mode(moods: Sequence[Mood]) -> tuple[str | None, bool]:
    """The mode the moods vote for, and whether they disagree."""
    votes = Counter(m.mode for m in moods if m.mode)
    if not votes:
        return None, False
    ranked = votes.most_common()
    conflict = len(ranked) > 1 and {"major", "minor"} <= set(votes)
    return ranked[0][0], conflict


# Tonics whose key signature would need double flats or sharps in that mode family, and the
# enharmonic spelling players use instead (Db minor → C# minor, C# major → Db major).
_MINORISH = {"minor", "dorian", "phrygian", "locrian", "harmonic minor", "melodic minor", "aeolian"}
_FOR_MINOR = {"Db": "C#", "Gb": "F#", "Ab": "G#", "Cb": "B", "Fb": "E"}
_FOR_MAJOR = {"C#": "Db", "D#": "Eb", "G#": "Ab", "A#": "Bb", "Cb": "B", "Fb": "E", "E#": "F", "B#": "C"}


def playable_spelling(root: str, mode: str) -> str:
    """The usual spelling of a tonic chosen by bandstand for `mode` (explicit keys are kept)."""
    table = _FOR_MINOR if mode in _MINORISH else _FOR_MAJOR
    return table.get(root, root)


def key_analysis(root: str | None, mode: str | None, genre: GenreTraits, moods: Sequence[Mood],
                 rng: random.Random) -> KeyAnalysis:
    """Explicit root/mode win; a missing mode comes from the moods, else the genre; a missing
    root is one of the genre's usual keys (picked with the stage's seed)."""
    if root and mode:
        return KeyAnalysis(root=root, mode=mode, source="explicit", confidence=1.0,
                           reasoning=f"{root} {mode} was asked for")
    reasons = []
    source: KeySource = "genre_convention"
    confidence = 0.6
    if mode:
        reasons.append(f"{mode} was asked for")
        confidence = 0.8
    else:
        mood_pick, _ = mood_mode(moods)
        if mood_pick:
            mode, source, confidence = mood_pick, "mood_mapping", 0.7
            reasons.append(f"{', '.join(m.label for m in moods if m.mode)} → {mood_pick}")
        else:
            mode = genre.modes[0]
            reasons.append(f"{genre.name} is usually {mode}")
    if root is None:
        root = playable_spelling(rng.choice(genre.keys), mode)
        reasons.append(f"{root} is a common {genre.name} key")
    else:
        spelled = playable_spelling(root, mode)
        reasons.append(f"{root} was asked for" + (f" (spelled {spelled} in {mode})" if spelled != root else ""))
        root = spelled
    return KeyAnalysis(root=root, mode=mode, source=source, confidence=confidence, reasoning="; ".join(reasons))


def genre_weights(explicit: Sequence[str], artists: Sequence[Artist]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for name in explicit:
        weights[name] = weights.get(name, 0.0) + 1.0
    for artist in artists:
        for i, name in enumerate(artist.genres):
            weights[name] = weights.get(name, 0.0) + (0.6 if i == 0 else 0.3)
    total = sum(weights.values()) or 1.0
    return {k: round(v / total, 3) for k, v in weights.items()}


def blend(weights: dict[str, float]) -> GenreDNA:
    def mix(attr: str) -> float:
        return round(sum(w * _trait(GENRE_BY_NAME[g], attr) for g, w in weights.items()), 3)

    return GenreDNA(weights=weights, swing=mix("swing"), tempo_center=mix("tempo"), harmonic=mix("harmonic"),
                    rhythmic=mix("rhythmic"), energy=mix("energy"), electronic=mix("electronic"))


def _trait(g: GenreTraits, attr: str) -> float:
    table = {"swing": g.swing, "tempo": _mid(g.tempo_range), "harmonic": g.dials[0], "rhythmic": g.dials[1],
             "energy": g.energy, "electronic": g.electronic}
    return table[attr]


def dials(dna: GenreDNA, moods: Sequence[Mood]) -> CreativityDials:
    harmonic = dna.harmonic + sum(m.harmonic for m in moods)
    rhythmic = dna.rhythmic + sum(m.rhythmic for m in moods)
    return CreativityDials(harmonic=round(min(1.0, max(0.0, harmonic)), 3),
                           rhythmic=round(min(1.0, max(0.0, rhythmic)), 3))


def energy(dna: GenreDNA, moods: Sequence[Mood]) -> float:
    if not moods:
        return dna.energy
    return round(0.3 * dna.energy + 0.7 * sum(m.energy for m in moods) / len(moods), 3)


# Moods that name an occasion decide a mood-only song's genre over the moods that colour it
# (a rainy funeral is a funeral first, a rainy wedding a wedding).
OCCASIONS = frozenset({"funereal", "lullaby", "celebration", "meditative"})


def suggested_genres(moods: Sequence[Mood], instrument_genres: Sequence[Sequence[str]]) -> list[str]:
    """The genres a prompt without one suggests, best first: every mood and named instrument
    votes for its genres (its first choice most), an occasion twice as loud, so the words
    choose together and no single word's favourite is forced on the song."""
    score: dict[str, float] = {}
    voters = [(m.genres, 2.0 if m.label in OCCASIONS else 1.0) for m in moods]
    voters += [(tuple(g), 1.5) for g in instrument_genres]
    for genres, weight in voters:
        for rank, genre in enumerate(genres):
            score[genre] = score.get(genre, 0.0) + weight * (len(genres) - rank) / len(genres)
    order = list(score)
    return sorted(order, key=lambda g: (-score[g], order.index(g)))


def tempo_clash(words: Sequence[tuple[str, int]], tempo: TempoAnalysis, genre: GenreTraits) -> str | None:
    """A note when the tempo words contradict each other or the tempo asked for ("fast slow
    ballad at 200 BPM"), saying what was played; None when they agree."""
    ups = [w for w, pull in words if pull > 0]
    downs = [w for w, pull in words if pull < 0]
    if not ups and not downs:
        return None
    if tempo.source == "explicit":
        lo, hi = genre.tempo_range
        against = downs if tempo.bpm > (lo + hi) / 2 and downs else ups if tempo.bpm < (lo + hi) / 2 and ups else []
        if ups and downs:
            return (f"'{ups[0]}' and '{downs[0]}' contradict each other; playing the {tempo.bpm:g} BPM that was "
                    "asked for")
        if against:
            return (f"'{against[0]}' does not fit {tempo.bpm:g} BPM, which was asked for; playing {tempo.bpm:g} BPM "
                    "(drop the number for a tempo from the words)")
        return None
    if ups and downs:
        way = "down" if sum(p for _, p in words) < 0 else "up" if sum(p for _, p in words) > 0 else "nowhere"
        return (f"'{ups[0]}' and '{downs[0]}' pull the tempo both ways; together they pull it {way}: "
                f"{tempo.bpm:g} BPM (name one, or a BPM)")
    return None
