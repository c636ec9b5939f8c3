"""Accepting a key or tempo change in some phrases only: the key map and the tempo map move only
where it was accepted.

A variation that puts bars in another key ("change the key to F# minor") is
accepted per window of bars: a phrase accepted in bars 17–20 takes every
part's phrase of bars 17–20 with it (the chords in F# minor over a bass left
in Bb is not a song), and the result's recipe is the old key map with the new
key in exactly those bars (`compose.key_map.overlay`). Every later edit
regenerates a part bar by bar in the key the map declares there, and the
song's key signatures follow the map. The tempo map likewise (`with_tempo_map`): the
proposal's tempos in the bars of the accepted phrases, HEAD's everywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bandstand.compose.api import Recipe, bar_keys, key_changes, overlay
from bandstand.score import TempoChange as ScoreChange
from bandstand.studio import KeyChange, Project, TempoChange, Variation
from bandstand.studio.variations import resolve_phrases

__all__ = ["KeyAccept", "accepted_bars", "key_accept", "with_key_map", "with_tempo_map"]


@dataclass(frozen=True, slots=True)
class KeyAccept:
    """The phrases a partial acceptance of a key change takes (whole windows of bars) and the
    recipe its result carries."""

    phrase_ids: tuple[str, ...]
    bars: frozenset[int]
    recipe: Recipe

    def apply(self, result: Project) -> Project:
        """The committed project carrying this key map (recipe, key and key signatures)."""
        return with_key_map(result, self.recipe)


def with_key_map(project: Project, recipe: Recipe) -> Project:
    """`project` with `recipe` as its recipe, its key the key of bar 1 and its key changes the map's."""
    provenance = project.provenance.model_copy(update={"recipe": recipe.model_dump(mode="json")})
    changes = tuple(KeyChange(beat=project.bar_to_beat(bar), key=key) for bar, key in key_changes(recipe))
    return project.model_copy(update={"provenance": provenance, "key": recipe.harmony.key_name,
                                      "key_changes": changes})


def key_accept(base: Project, variation: Variation, phrase_ids: Sequence[str] | None) -> KeyAccept | None:
    """How accepting `phrase_ids` of `variation` moves the key map, or None when it does not
    (all phrases accepted, no recipe on either side, or no bar changes key)."""
    if phrase_ids is None or not variation.recipe or not base.provenance.recipe:
        return None
    before = Recipe.model_validate(base.provenance.recipe)
    after = Recipe.model_validate(variation.recipe)
    if bar_keys(before) == bar_keys(after):
        return None
    chosen = resolve_phrases(variation, phrase_ids)
    bars = frozenset(bar for p in variation.phrases if p.id in chosen for bar in range(p.start_bar, p.end_bar + 1))
    whole = tuple(p.id for p in variation.phrases if p.start_bar in bars)
    return KeyAccept(whole, bars, overlay(before, after, bars))


def accepted_bars(variation: Variation, phrase_ids: Sequence[str]) -> frozenset[int]:
    """The bars (1-based) the accepted phrases hold."""
    chosen = resolve_phrases(variation, phrase_ids)
    return frozenset(bar for p in variation.phrases if p.id in chosen for bar in range(p.start_bar, p.end_bar + 1))


def with_tempo_map(result: Project, base: Project, bars: frozenset[int]) -> Project:
    """`result` with HEAD's (`base`) tempo map everywhere but in `bars`, where its own holds."""
    from bandstand.score.tempo_map import overlay

    def of(p: Project) -> tuple[float, tuple[ScoreChange, ...]]:
        return p.tempo, tuple(ScoreChange(c.beat, c.bpm) for c in p.tempo_changes)

    if of(result) == of(base):
        return result
    windows = [(base.bar_to_beat(bar), base.bar_to_beat(bar + 1)) for bar in sorted(bars)]  # the metre map's
    tempo, changes = overlay(of(base), of(result), windows)
    return result.model_copy(update={"tempo": tempo, "tempo_changes": tuple(
        TempoChange(beat=c.beat, bpm=c.bpm) for c in changes)})
