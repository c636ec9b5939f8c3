"""A recipe's key map: which key (intent, harmony and chords) each bar of the song is in.

The recipe's own intent, harmony and arrangement are its first layer; its
`key_map` spans (`KeySpan`) put other bars in other keys. A recipe without
spans — every song composed in one key, and every project saved before key
maps existed — is a one-key map. `overlay` is what accepting a key change in
some bars makes: the new key there, the old map everywhere else.
`layers` is what regenerating a part reads: each key with the bars it holds,
so a part written again is written in each bar's own key, over its chords.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan, ProgressionChord
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.key_map import KeySpan
from bandstand.compose.recipe import Recipe

__all__ = ["Layer", "bar_chords", "bar_keys", "key_changes", "layers", "overlay", "with_chords"]


@dataclass(frozen=True, slots=True)
class Layer:
    """One key of the map: its intent, harmony, every bar's chord over it, and the bars
    (1-based inclusive runs) that are in it."""

    intent: Intent
    harmony: HarmonyPlan
    chords: tuple[int, ...]
    bars: tuple[tuple[int, int], ...]

    @property
    def key(self) -> str:
        return self.harmony.key_name

    def same_key(self, other: Layer) -> bool:
        """Whether two layers are the same plan (the same harmony and the same chords)."""
        return self.harmony == other.harmony and self.chords == other.chords


def _chords(arrangement: ArrangementPlan) -> tuple[int, ...]:
    out = []
    for bar in range(1, arrangement.total_bars + 1):
        try:
            out.append(arrangement.chord_index_at(bar))
        except IndexError:  # a bar no section holds plays the first chord
            out.append(0)
    return tuple(out)


def with_chords(arrangement: ArrangementPlan, chords: tuple[int, ...] | list[int]) -> ArrangementPlan:
    """The arrangement with each bar playing `chords[bar - 1]` (cycled when it is shorter)."""
    if not chords:
        return arrangement
    sections = [s.model_copy(update={"chord_indices": [chords[(s.start_bar - 1 + i) % len(chords)]
                                                       for i in range(s.bars)]})
                for s in arrangement.sections]
    return arrangement.model_copy(update={"sections": sections})


def _per_bar(recipe: Recipe) -> list[Layer]:
    """Every bar's layer (the bars field left empty), bar 1 first."""
    own = Layer(recipe.intent, recipe.harmony, _chords(recipe.arrangement), ())
    total = recipe.arrangement.total_bars
    out = [own] * total
    for span in recipe.key_map:
        layer = Layer(span.intent, span.harmony, tuple(span.chords), ())
        for bar in range(span.first_bar, min(span.last_bar, total) + 1):
            out[bar - 1] = layer
    return out


def _runs(bars: list[int]) -> tuple[tuple[int, int], ...]:
    runs: list[tuple[int, int]] = []
    for bar in sorted(bars):
        if runs and runs[-1][1] == bar - 1:
            runs[-1] = (runs[-1][0], bar)
        else:
            runs.append((bar, bar))
    return tuple(runs)


def _group(per_bar: list[Layer]) -> list[Layer]:
    groups: list[tuple[Layer, list[int]]] = []
    for bar, layer in enumerate(per_bar, start=1):
        found = next((g for g in groups if g[0] is layer or g[0].same_key(layer)), None)
        if found is None:
            groups.append((layer, [bar]))
        else:
            found[1].append(bar)
    return [Layer(layer.intent, layer.harmony, layer.chords, _runs(bars)) for layer, bars in groups]


def layers(recipe: Recipe) -> list[Layer]:
    """The keys of the map with the bars each holds: the recipe's own first (its bars may be
    none), then the others in the order they first come."""
    own = Layer(recipe.intent, recipe.harmony, _chords(recipe.arrangement), ())
    grouped = _group(_per_bar(recipe))
    first = next((g for g in grouped if g.same_key(own)), None)
    rest = [g for g in grouped if g is not first]
    return [first or own, *rest]


def bar_keys(recipe: Recipe) -> list[str]:
    """The key of every bar, bar 1 first."""
    return [layer.key for layer in _per_bar(recipe)]


def key_changes(recipe: Recipe) -> list[tuple[int, str]]:
    """(bar, key) where the key changes after bar 1."""
    keys = bar_keys(recipe)
    return [(bar, key) for bar, key in enumerate(keys, start=1) if bar > 1 and key != keys[bar - 2]]


def overlay(base: Recipe, new: Recipe, bars: Collection[int]) -> Recipe:
    """`new` with the key map of `base` everywhere but in `bars`, where `new`'s map holds: what
    accepting a key change in those bars only makes. The key of bar 1 is the recipe's own; the
    bars in other keys are its spans. Songs of different lengths cannot be overlaid: `new`."""
    total = new.arrangement.total_bars
    if base.arrangement.total_bars != total:
        return new
    old, fresh = _per_bar(base), _per_bar(new)
    per_bar = [fresh[b] if b + 1 in bars else old[b] for b in range(total)]
    main = per_bar[0]
    intent = main.intent.model_copy(update={"tempo": new.intent.tempo,
                                            "time_signature": new.intent.time_signature})
    spans = []
    for layer in _group(per_bar):
        if layer.same_key(main):
            continue
        spans += [KeySpan(first_bar=a, last_bar=b, intent=layer.intent, harmony=layer.harmony,
                          chords=list(layer.chords)) for a, b in layer.bars]
    spans.sort(key=lambda s: s.first_bar)
    return new.model_copy(update={"intent": intent, "harmony": main.harmony,
                                  "arrangement": with_chords(new.arrangement, main.chords), "key_map": spans})


def bar_chords(recipe: Recipe) -> list[ProgressionChord]:
    """The chord the map plans for every bar, bar 1 first (each bar's own key's harmony)."""
    out: list[ProgressionChord] = []
    for layer, index in zip(_per_bar(recipe), _chords(recipe.arrangement), strict=True):
        chords = layer.harmony.chords
        bar = len(out)
        at = layer.chords[bar] if bar < len(layer.chords) else index
        out.append(chords[at] if 0 <= at < len(chords) else chords[0])
    return out
