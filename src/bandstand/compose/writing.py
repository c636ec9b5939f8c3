"""Measures of how a song is written, read off the assembled song and its plans:
whether it ends on its tonic in the bass, whether its sections have harmonies
of their own, whether a chord is voiced more than one way, and whether the key
an independent reading of the notes hears (Krumhansl–Schmuckler, as
`bandstand.theory.detect_key` does it) is the key the song declares, or its
relative. Validation scores them and reports them in the manifest."""

from __future__ import annotations

import re

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.errors import TheoryError
from bandstand.score import Note, Song
from bandstand.theory import detect_key, get_scale

__all__ = ["BODY", "ends_on_tonic", "key_heard", "section_variety", "sounding_notes", "voicing_variety"]

BODY = re.compile(r"(?i)^(?!intro|outro)")  # sections that carry the song (intros and outros aside)
UNPITCHED_ROLES = frozenset({"texture"})


def sounding_notes(song: Song) -> list[Note]:
    """The pitched notes of the song (drums and noise textures aside)."""
    return [n for t in song.tracks if not t.is_drum and t.role not in UNPITCHED_ROLES for n in t.notes]


def ends_on_tonic(song: Song, harmony: HarmonyPlan) -> float | None:
    """1.0 when the lowest note of the final sonority is the tonic, else 0.0."""
    notes = sounding_notes(song)
    if not notes or not harmony.scale_pitch_classes:
        return None
    last = max(n.start for n in notes)
    final = [n for n in notes if n.start <= last + 0.05 and n.end > last + 0.05]  # what rings once it is struck
    return 1.0 if min(n.pitch for n in final) % 12 == harmony.scale_pitch_classes[0] else 0.0


def section_variety(arrangement: ArrangementPlan) -> tuple[float | None, int]:
    """(1.0 when at least two kinds of body section play harmonies that differ in half their
    bars or more, else 0.0 — None with fewer than two kinds; the number of different
    body progressions)."""
    first: dict[str, list[int]] = {}
    for s in arrangement.sections:
        if BODY.match(s.kind) and s.kind not in first:
            first[s.kind] = s.chord_indices
    kinds = list(first)
    if len(kinds) < 2:
        return None, len(kinds)
    distinct: list[list[int]] = []
    for k in kinds:
        if all(_differ(first[k], d) for d in distinct):
            distinct.append(first[k])
    return (1.0 if len(distinct) >= 2 else 0.0), len(distinct)


def _differ(a: list[int], b: list[int]) -> bool:
    n = min(len(a), len(b))
    return n > 0 and sum(1 for i in range(n) if a[i] != b[i]) * 2 >= n


def voicing_variety(song: Song) -> float | None:
    """Of the chords the comping plays more than once, the share voiced at least two ways
    (the set of notes struck in a bar, grouped by the chord's pitch classes)."""
    track = next((t for t in song.tracks if t.role == "chords"), None) or \
        next((t for t in song.tracks if t.role == "pad"), None)
    if track is None or not track.notes:
        return None
    bpb = song.beats_per_bar
    bars: dict[int, set[int]] = {}
    for n in track.notes:
        bars.setdefault(int((n.start + 0.1) // bpb), set()).add(n.pitch)
    voicings: dict[frozenset[int], list[tuple[int, ...]]] = {}
    for pitches in bars.values():
        voicings.setdefault(frozenset(p % 12 for p in pitches), []).append(tuple(sorted(pitches)))
    repeated = [v for v in voicings.values() if len(v) >= 2]
    if not repeated:
        return None
    return sum(1 for v in repeated if len(set(v)) >= 2) / len(repeated)


def key_heard(song: Song, harmony: HarmonyPlan) -> tuple[float | None, int | None]:
    """(1.0 when the key heard in the notes is the declared key, its relative or another mode
    of the same scale, falling with the declared key's rank among the 24 otherwise; that rank)."""
    notes = sounding_notes(song)
    if not notes:
        return None, None
    try:
        est = detect_key(notes)
        scale = get_scale(f"{harmony.key} {harmony.mode}")
    except TheoryError:
        return None, None
    minor = len(scale.intervals) > 2 and scale.intervals[2] == 3
    keys = [k for k, _ in est.ranking]
    rank = next((i for i, k in enumerate(keys) if k.tonic_pc == scale.tonic_pc and k.is_minor == minor), 23)
    top = keys[0]
    if rank == 0 or set(top.scale.pitch_classes) == set(scale.pitch_classes):
        return 1.0, rank
    return max(0.0, 0.8 - rank / 10), rank
