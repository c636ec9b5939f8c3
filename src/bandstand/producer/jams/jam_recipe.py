"""The compose recipe of a song made from a jam, so the studio can regenerate its parts ("make
the bass busier"): the intent, harmony and arrangement compose would plan for the song's tempo,
key and length, the arrangement's sections made the song's own form (which parts play where),
the key map (each key the jam played in, with the harmony compose plans for it), and the bars
each part played in (a part made again plays there only).
"""

from __future__ import annotations

from typing import Any

from bandstand.errors import TheoryError
from bandstand.score import Song

__all__ = ["KINDS", "recipe"]

KINDS = {"intro": "intro", "verse": "verse", "chorus": "chorus", "bridge": "bridge", "breakdown": "break",
         "outro": "outro"}


def recipe(song: Song, prompt: str) -> dict[str, object]:
    """A compose recipe for the arranged song, so the studio can regenerate its parts
    ('make the bass busier'): the intent, harmony and arrangement compose would plan for the
    song's tempo, key and length, with the arrangement's sections made the song's own form
    (which parts play where), each part's track named, the bars each part played in, and the
    key map of the bars the jam played in another key."""
    from bandstand.compose.api import Overrides, Recipe, SectionPlan, plans_for

    tonic, _, mode = (song.key or "C minor").partition(" ")
    bars = sum(s.bars for s in song.sections)
    ts = song.time_signature
    roles = [t.role for t in song.tracks]
    intent, harmony, base = plans_for(prompt, Overrides(tempo=min(300.0, max(30.0, song.tempo)), key=tonic,
                                                        mode=mode or "minor", bars=max(4, bars)),
                                      list(dict.fromkeys(roles)), time_signature=(ts.numerator, ts.denominator))
    loop = harmony.loop or list(range(len(harmony.chords)))
    sections = []
    for section in song.sections:
        first, last = song.bar_to_beat(section.start_bar), song.bar_to_beat(section.end_bar)  # the metre map's
        playing = [r for r, t in zip(roles, song.tracks, strict=True) if any(first <= n.start < last for n in t.notes)]
        sections.append(SectionPlan(name=section.name, kind=KINDS.get(section.name, "loop"),  # type: ignore[arg-type]
                                    start_bar=section.start_bar, bars=section.bars, energy=section.energy,
                                    roles=list(dict.fromkeys(playing)),
                                    chord_indices=[loop[i % len(loop)] for i in range(section.bars)]))
    energy = [s.energy for s in song.sections for _ in range(s.bars)]
    arrangement = base.model_copy(update={"form_name": "jam", "total_bars": bars, "sections": sections,
                                          "bar_energy": energy})
    key_map = _key_spans(song, intent, [s.chord_indices for s in sections])
    parts: dict[str, str] = {}
    spans: dict[str, list[tuple[int, int]]] = {}
    for track in song.tracks:
        key = track.role if track.role not in parts else f"{track.role}-{sum(k.split('-')[0] == track.role for k in parts) + 1}"
        parts[key] = track.name
        played = sorted({song.beat_to_bar(n.start) for n in track.notes})
        if played and len(played) < bars:  # where the member played: a part made again plays there only
            spans[key] = _runs(played)
    made = Recipe(prompt=prompt, seed=0, intent=intent, harmony=harmony, arrangement=arrangement, form="jam", parts=parts,
                  key_map=key_map, spans=spans)
    return made.model_dump(mode="json")


def _runs(bars: list[int]) -> list[tuple[int, int]]:
    """Sorted bar numbers as runs of consecutive bars (first, last)."""
    runs: list[tuple[int, int]] = []
    for b in bars:
        runs[-1:] = [(runs[-1][0], b)] if runs and runs[-1][1] == b - 1 else [*runs[-1:], (b, b)]
    return runs


def _key_spans(song: Song, intent: Any, sections: list[list[int]]) -> list[Any]:
    """The recipe's key map for the bars the jam played in another key than its first: each key's
    harmony as compose plans it for that key, its main loop laid over the bars as the song's own is."""
    from bandstand.compose.api import KeySpan, build_harmony
    from bandstand.theory import parse_key

    keys = [song.key_at(song.bar_to_beat(bar)) for bar in range(1, sum(len(s) for s in sections) + 1)]
    spans: list[Any] = []
    for key in dict.fromkeys(k for k in keys if k and k != song.key):
        try:
            parsed = parse_key(key)
        except TheoryError:  # a key the theory cannot read is left in the song's own
            continue
        tonic, mode = parsed.tonic, parsed.mode
        analysis = intent.key_analysis.model_copy(update={"root": tonic, "mode": mode, "source": "explicit"})
        there = intent.model_copy(update={"key": tonic, "mode": mode, "key_analysis": analysis})
        harmony = build_harmony(there, 0)
        loop = harmony.loop or list(range(len(harmony.chords)))
        chords = [loop[i % len(loop)] for bars in sections for i in range(len(bars))]
        runs = _runs([b for b, k in enumerate(keys, start=1) if k == key])
        spans += [KeySpan(first_bar=a, last_bar=z, intent=there, harmony=harmony, chords=chords) for a, z in runs]
    return sorted(spans, key=lambda s: s.first_bar)
