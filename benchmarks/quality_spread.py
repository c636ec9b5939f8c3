"""Quality spread: does stage 7's score tell good music from broken music?

Scores (the quality model of `bandstand.compose.quality`, as stage 7 computes
it) on three kinds of music:

- reference: Bach chorales from music21's corpus (no plans: the figures a
  song without plans can be measured on, rated and combined as a take is);
- ours: songs composed from `songwriting_prompts.json`, in process, no audio;
- broken: each of our songs broken deliberately (`quality.broken`: shuffled
  bars, wrong key, no bass) and scored against its own plans.

For ours and broken both the figure score (`take_score` of every figure) and
stage 7's mean over the four axes, and the share the gate passes, are
printed; target: every kind of broken song scores clearly lower than ours
(mean at least 0.1 lower) and the gate fails most of them.

    python benchmarks/quality_spread.py [--prompts 12] [--seeds 2] [--chorales 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from quality_calibrate import PROMPTS, chorale_songs  # noqa: E402


def _summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "mean": round(statistics.fmean(values), 4), "min": round(min(values), 4),
            "max": round(max(values), 4)} if values else {"n": 0}


def measure(prompts: int, seeds: int, chorales: int) -> dict[str, Any]:
    import tempfile

    from bandstand.compose.api import Pipeline
    from bandstand.compose.lexicon import primary_genre
    from bandstand.compose.quality import from_plans, from_song, measure, take_score
    from bandstand.compose.quality.broken import BREAKS
    from bandstand.compose.validation import evaluate_quality, gate

    groups: dict[str, dict[str, list[float]]] = {}

    def add(group: str, figure: float, mean: float | None = None, passed: bool | None = None) -> None:
        g = groups.setdefault(group, {"figure_score": [], "axes_mean": [], "gate_passed": []})
        g["figure_score"].append(figure)
        if mean is not None:
            g["axes_mean"].append(mean)
        if passed is not None:
            g["gate_passed"].append(1.0 if passed else 0.0)

    for _, song in chorale_songs(chorales):
        add("reference (bach)", take_score(measure(song, from_song(song))))
    with tempfile.TemporaryDirectory() as tmp:
        for entry in PROMPTS[:prompts]:
            for seed in range(1, seeds + 1):
                pipeline = Pipeline.create(entry["prompt"], seed=seed, out_dir=tmp, render_audio=False,
                                           render_pianoroll=False, checkpoints=False)
                result = pipeline.run()
                art = pipeline.engine.artifacts
                if result.song is None:
                    continue
                intent, harmony, arrangement = art["intent"], art["harmony"], art["arrangement"]
                ctx = from_plans(result.song.beats_per_bar, harmony, arrangement, primary_genre(intent).bass_style)
                for group, song in [("ours", result.song),
                                    *((f"broken: {name}", brk(result.song, seed)) for name, brk in BREAKS.items())]:
                    score = evaluate_quality(song, intent, harmony, arrangement)
                    add(group, take_score(measure(song, ctx), ctx.colour), score.mean, gate(score).passed)
    return {group: {k: _summary(v) for k, v in g.items()} for group, g in groups.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--chorales", type=int, default=20)
    args = ap.parse_args()
    json.dump(measure(args.prompts, args.seeds, args.chorales), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
