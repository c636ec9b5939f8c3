"""Calibrate the quality model: measure every figure of `bandstand.compose.quality`
on reference music and on our own songs, and write the ranges the model rates
against into `src/bandstand/compose/quality/ranges.py`.

- reference music: Bach's four-part chorales as music21's corpus ships them
  (read offline; soprano → lead, inner voices → chords, bass → bass), framed
  by the key the theory's key finder hears (they have no chord plan, no
  energy plan and no drums, so they calibrate the key, pitch, melody, density
  and bass figures);
- our songs: every prompt of `songwriting_prompts.json` composed in process
  (no audio) with the seeds asked for, framed by their own plans; and the
  first ``--audio`` of them rendered, for the stems' loudness against the mix
  and their spectral balance (a range per role).

A figure's range is the 5th–95th percentile of each source's values (the
per-role figures of a kind pooled: in-scale rates of every role), merged
(the lower of the two lows, the higher of the two highs, the mean of the
medians). Prints JSON (per source: n, p5, median, p95 of every figure);
``--write`` rewrites the ranges table.

    python benchmarks/quality_calibrate.py [--chorales 60] [--seeds 2] [--write]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TABLE = HERE.parent / "src" / "bandstand" / "compose" / "quality" / "ranges.py"
POOLED = frozenset({"in_scale", "chord_tones"})
PROMPTS = json.loads((HERE / "songwriting_prompts.json").read_text())["prompts"]


def chorale_songs(count: int) -> Iterator[tuple[str, Any]]:
    """The first `count` four-voice chorales of music21's Bach corpus as bandstand songs."""
    from music21 import corpus, meter, note

    from bandstand.score import Note, Song, TimeSignature, Track

    for path in corpus.getComposer("bach"):
        if count <= 0:
            return
        score = corpus.parse(path)
        parts = list(score.parts)
        if len(parts) != 4:
            continue
        sigs = list(score.recurse().getElementsByClass(meter.TimeSignature))
        ts = TimeSignature(sigs[0].numerator, sigs[0].denominator) if sigs else TimeSignature()
        bar = ts.beats_per_bar
        first = parts[0].getElementsByClass("Measure")
        pickup = 0.0
        if first and first[0].duration.quarterLength < bar:  # an anacrusis: the first full bar starts bar 2
            pickup = bar - float(first[0].duration.quarterLength)
        roles = ("lead", "chords", "chords", "bass")
        tracks = []
        for role, part in zip(roles, parts, strict=True):
            notes = [Note(float(n.getOffsetInHierarchy(part)) + pickup, float(n.quarterLength), n.pitch.midi, 80)
                     for n in part.recurse().getElementsByClass(note.Note) if n.quarterLength > 0]
            tracks.append(Track(name=part.partName or role, role=role, notes=notes))
        count -= 1
        yield path.stem, Song(title=path.stem, tempo=80.0, time_signature=ts, tracks=tracks)


def reference_figures(count: int) -> list[dict[str, float | None]]:
    from bandstand.compose.quality import from_song, measure

    return [measure(song, from_song(song)) for _, song in chorale_songs(count)]


def our_songs(seeds: int, limit: int | None = None) -> Iterator[tuple[str, int, Any, Any]]:
    """(prompt id, seed, song, context) of our songs composed in process."""
    from bandstand.compose.api import Pipeline
    from bandstand.compose.lexicon import primary_genre
    from bandstand.compose.quality import from_plans

    with tempfile.TemporaryDirectory() as tmp:
        for entry in PROMPTS[:limit]:
            for seed in range(1, seeds + 1):
                pipeline = Pipeline.create(entry["prompt"], seed=seed, out_dir=tmp, render_audio=False,
                                           render_pianoroll=False, checkpoints=False)
                result = pipeline.run()
                art = pipeline.engine.artifacts
                if result.song is None:
                    continue
                ctx = from_plans(result.song.beats_per_bar, art["harmony"], art["arrangement"],
                                 primary_genre(art["intent"]).bass_style)
                yield entry["id"], seed, result.song, ctx


def audio_rows(count: int) -> list[dict[str, float | None]]:
    """The audio figures (stem loudness against the mix, spectral balance) of the first `count`
    prompts, composed and rendered (seed 1)."""
    from bandstand.compose.api import compose
    from bandstand.compose.quality.audio import audio_figures, stems_by_role

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in PROMPTS[:count]:
            result = compose(entry["prompt"], seed=1, out_dir=tmp, render_pianoroll=False, checkpoints=False)
            root = result.session_dir
            parts = list((result.manifest or {}).get("parts", []))
            rows.append(audio_figures(root / "audio" / "full-arrangement.wav", stems_by_role(root, parts)))
    return rows


def our_figures(seeds: int, limit: int | None = None) -> list[dict[str, float | None]]:
    from bandstand.compose.quality import measure

    return [measure(song, ctx) for _, _, song, ctx in our_songs(seeds, limit)]


def spread(rows: list[dict[str, float | None]]) -> dict[str, dict[str, float]]:
    """Per figure (the per-role pitch figures of a kind pooled: "in_scale.bass" counts as
    "in_scale"; the audio figures keep a range per role):
    n, 5th percentile, median, 95th percentile."""
    from bandstand.compose.quality.model import figure_key

    pooled: dict[str, list[float]] = {}
    for r in rows:
        for name, v in r.items():
            if v is not None:
                key = figure_key(name) if figure_key(name) in POOLED else name
                pooled.setdefault(key, []).append(v)
    out: dict[str, dict[str, float]] = {}
    for name, values in sorted(pooled.items()):
        if len(values) < 5:
            continue
        cuts = statistics.quantiles(values, n=20, method="inclusive")
        out[name] = {"n": len(values), "p5": round(cuts[0], 4), "median": round(statistics.median(values), 4),
                     "p95": round(cuts[-1], 4)}
    return out


def merged(sources: dict[str, dict[str, dict[str, float]]]) -> dict[str, tuple[float, float, float, tuple[str, ...]]]:
    table: dict[str, tuple[float, float, float, tuple[str, ...]]] = {}
    for name in sorted({n for s in sources.values() for n in s}):
        have = {src: s[name] for src, s in sources.items() if name in s}
        table[name] = (round(min(r["p5"] for r in have.values()), 4),
                       round(statistics.fmean(r["median"] for r in have.values()), 4),
                       round(max(r["p95"] for r in have.values()), 4), tuple(sorted(have)))
    return table


def write_table(table: dict[str, tuple[float, float, float, tuple[str, ...]]], about: str) -> None:
    head = TABLE.read_text(encoding="utf-8").partition("__all__")[0] + '__all__ = ["RANGES"]\n\n'

    lines = [f"    {name!r}: {entry!r}," for name, entry in table.items()]
    body = (f"# calibrated on {about}\n"
            "RANGES: dict[str, tuple[float, float, float, tuple[str, ...]]] = {\n" + "\n".join(lines) + "\n}\n")
    tmp = TABLE.with_suffix(".tmp")
    tmp.write_text(head + body, encoding="utf-8")
    tmp.replace(TABLE)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chorales", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--prompts", type=int, default=None, help="only the first N prompts")
    ap.add_argument("--audio", type=int, default=20, help="prompts rendered for the audio figures")
    ap.add_argument("--write", action="store_true", help="rewrite the package's ranges table")
    args = ap.parse_args()
    ours = our_figures(args.seeds, args.prompts) + audio_rows(args.audio)
    sources = {"bach": spread(reference_figures(args.chorales)), "ours": spread(ours)}
    table = merged(sources)
    if args.write:
        about = (f"{args.chorales} Bach chorales (music21 corpus), "
                 f"{len(PROMPTS[:args.prompts])} prompts x {args.seeds} seeds of ours, {args.audio} rendered")
        write_table(table, about)
    json.dump({"sources": sources, "ranges": {k: list(v) for k, v in table.items()}}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
