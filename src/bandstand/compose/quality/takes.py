"""Best of N: several takes of one part, each scored by the quality model on
the figures a part alone can be measured on (`figures.part_figures`, rated by
`model.take_score`), the best kept. Take k is the part made with its node's
seed k variants on, so the kept take is the part its recipe makes again at
that variant; ties keep the earlier take. The quality presets name how many
takes a run makes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.parts import PartResult
from bandstand.compose.quality.context import SongContext, from_plans
from bandstand.compose.quality.figures import part_figures
from bandstand.compose.quality.model import take_score
from bandstand.errors import InvalidInput
from bandstand.score.metre_map import MetreMap

__all__ = ["MAX_TAKES", "PRESETS", "best_take", "score_part", "takes_for"]

MAX_TAKES = 8
# --quality: how many takes of each part a preset makes.
PRESETS: dict[str, int] = {"fast": 1, "balanced": 3, "best": 6}


def takes_for(takes: int | None, quality: str | None) -> int:
    """The takes a run makes: `takes` when given, else the `quality` preset's, else one.
    Naming both, or a preset or a count that does not exist, is an `InvalidInput`."""
    if quality is not None and quality not in PRESETS:
        raise InvalidInput(f"--quality {quality!r} is not a preset; use one of {', '.join(PRESETS)}",
                           field="quality")
    if takes is not None and quality is not None and takes != PRESETS[quality]:
        raise InvalidInput(f"--takes {takes} and --quality {quality} ({PRESETS[quality]} takes) disagree; "
                           "give one of them", field="takes")
    if takes is not None and not 1 <= takes <= MAX_TAKES:
        raise InvalidInput(f"--takes {takes}: give 1 to {MAX_TAKES} takes", field="takes")
    return takes if takes is not None else PRESETS[quality] if quality is not None else 1


def score_part(part: PartResult, ctx: SongContext) -> float:
    """A take's quality score: its part figures, rated and combined."""
    return take_score(part_figures(part.track, ctx), ctx.colour)


def best_take(make: Callable[[int], PartResult], takes: int, beats_per_bar: float, harmony: HarmonyPlan,
              arrangement: ArrangementPlan, bass_style: str | None = None, *,
              metres: MetreMap | None = None) -> PartResult:
    """Make `takes` takes (`make(k)` makes take k), keep the best; its stats name the take kept
    and every take's score (measured on the bars of `metres` when the song's metre changes)."""
    ctx = from_plans(beats_per_bar, harmony, arrangement, bass_style, metres)
    made = [make(k) for k in range(takes)]
    scores = [score_part(p, ctx) for p in made]
    best = max(range(takes), key=lambda k: (scores[k], -k))
    kept = made[best]
    return replace(kept, stats=kept.stats.model_copy(update={"take": best, "takes": scores}))
