"""Songwriting: are the songs written? Measured on the MIDI a compose run writes.

Every prompt of `songwriting_prompts.json` is composed (in process, no audio)
with two seeds; each `full-arrangement.mid` is read back with mido (an
independent reader) and measured:

- ends_on_tonic: the lowest note of the final sonority is the declared tonic;
- section_variety: songs with ≥ 3 sections that have ≥ 2 body section types
  (intro/outro aside) whose bar-by-bar harmony (bass + chord pitch classes)
  differs in at least half of their bars;
- key_heard: music21's key finder (and bandstand's, for comparison) agrees
  with the declared key or its relative (any mode of the same scale);
- voicing_variety: some chord (pitch-class set) is voiced with ≥ 2 different
  pitch sets on the chords track;
- pair_overlap: prompts that must differ, note overlap (Jaccard of
  (16th step, pitch relative to the tonic) and drum (step, key) sets) after
  transposing to the same tonic, target < 0.7;
- seed_overlap: the same prompt with two seeds, Jaccard of the drum
  (step, key) and bass (step) onsets, target < 0.8;
- distinctness (``--distinct``): every genre of the lexicon and a pop song with each
  instrument word, same seed, pairwise note overlap as `pair_overlap` measures it,
  and the pairs whose one-bar drum grids are identical (target: every pair < 0.5);
- note-level musicianship (`songwriting_notes`): strong-beat chord-tone rates,
  notes per bar against the idiom's reference range, chord notes below C3, the
  bass in the final bar on the tonic;
- idioms (`IDIOMS`), the prompt's promises (`EXPECT`), and compose speed
  (64 bars × 5 parts in process, no audio, target ≤ 300 ms median);
- the mix (``--mix``, rendered, `songwriting_mix`): stems within the genre's balance target
  + 2 dB (pyloudnorm on audio/stems/), songs whose lead is the loudest stem, intros whose
  second half is ≥ 1.2× as busy as the first, instrument words heard on another sound with
  other notes (target: all of them, note overlap < 0.5).

With ``--baseline DIR`` the same measuring code also runs (in a child
process) against the bandstand source in DIR — a `git worktree` of the
commit to compare with — and both sets of figures are printed together.

    python benchmarks/songwriting.py [--baseline DIR] [--seeds 2] [--only id,id] [--distinct] [--mix]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from songwriting_idioms import IDIOMS, Heard, Part, chord_track, jaccard, pitched  # noqa: E402
from songwriting_notes import note_row, summarise  # noqa: E402

PROMPTS = json.loads((HERE / "songwriting_prompts.json").read_text())
PCS = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
MODE_STEPS = {"major": (0, 2, 4, 5, 7, 9, 11), "ionian": (0, 2, 4, 5, 7, 9, 11), "minor": (0, 2, 3, 5, 7, 8, 10),
              "aeolian": (0, 2, 3, 5, 7, 8, 10), "dorian": (0, 2, 3, 5, 7, 9, 10),
              "phrygian": (0, 1, 3, 5, 7, 8, 10), "lydian": (0, 2, 4, 6, 7, 9, 11),
              "mixolydian": (0, 2, 4, 5, 7, 9, 10), "locrian": (0, 1, 3, 5, 6, 8, 10),
              "harmonic minor": (0, 2, 3, 5, 7, 8, 11)}
MINORISH = ("minor", "aeolian", "dorian", "phrygian", "locrian", "harmonic minor", "minor pentatonic", "blues",
            "melodic minor")
CORE = ["drums", "bass", "chords", "lead", "pad"]
SPEED_PROMPTS = ["classic rock anthem in E", "dark trap beat with 808s", "jazz quartet playing a standard",
                 "chicago house track", "neo-soul jam with rhodes"]


def tonic_pc(name: str) -> int:
    pc = PCS[name[0].lower()]
    for ch in name[1:]:
        pc += 1 if ch in "#♯" else -1 if ch in "b♭" else 0
    return pc % 12


def read_midi(path: Path, manifest: dict[str, Any]) -> Heard:
    import mido

    mid = mido.MidiFile(str(path))
    tpb = mid.ticks_per_beat
    tempo, num, den = 120.0, 4, 4
    markers: list[tuple[float, str]] = []
    parts: list[Part] = []
    for track in mid.tracks:
        now, name, program, drum = 0, "", 0, False
        open_: dict[tuple[int, int], list[tuple[int, int]]] = {}
        notes: list[tuple[float, float, int, int]] = []
        for msg in track:
            now += msg.time
            if msg.type == "set_tempo":
                tempo = mido.tempo2bpm(msg.tempo)
            elif msg.type == "time_signature":
                num, den = msg.numerator, msg.denominator
            elif msg.type == "marker":
                markers.append((now / tpb, msg.text))
            elif msg.type == "track_name":
                name = msg.name
            elif msg.type == "program_change":
                program, drum = msg.program, msg.channel == 9
            elif msg.type == "note_on" and msg.velocity > 0:
                drum = drum or msg.channel == 9
                open_.setdefault((msg.channel, msg.note), []).append((now, msg.velocity))
            elif msg.type in ("note_off", "note_on"):
                started = open_.get((msg.channel, msg.note))
                if started:
                    t0, vel = started.pop(0)
                    notes.append((t0 / tpb, (now - t0) / tpb, msg.note, vel))
        if notes:
            notes.sort()
            parts.append(Part(name, _role(name), program, drum, notes))
    key = str(manifest.get("key", "C major"))
    tonic, _, mode = key.partition(" ")
    return Heard(tempo=tempo, num=num, den=den, parts=parts, markers=sorted(markers), tonic=tonic_pc(tonic),
                 mode=mode.strip().lower() or "major", summary=str(manifest.get("summary") or ""))


def _role(name: str) -> str:
    n = name.lower()
    for word, role in (("sub bass", "sub_bass"), ("counter", "counter_melody"), ("percussion", "percussion"),
                       ("drum", "drums"), ("bass", "bass"), ("chord", "chords"), ("lead", "lead"),
                       ("pad", "pad"), ("arp", "arp"), ("texture", "texture")):
        if word in n:
            return role
    return n or "other"


# ----------------------------------------------------------------------------- per song


def ends_on_tonic(h: Heard) -> bool:
    notes = [n for p in h.parts if p.role not in ("texture",) for n in pitched([p])]
    if not notes:
        return False
    last = max(n[0] for n in notes)
    sounding = [n for n in notes if n[0] <= last + 0.05 and n[0] + n[1] > last + 0.05]  # what rings once struck
    return min(n[2] for n in sounding) % 12 == h.tonic


def _bar_signatures(h: Heard) -> list[tuple[int | None, frozenset[int]]]:
    bpb = h.bpb
    bars = max(1, int(h.total_beats // bpb) + 1)
    bass: list[int | None] = [None] * bars
    chords: list[set[int]] = [set() for _ in range(bars)]
    for p in h.parts:
        if p.drum:
            continue
        for start, _, pitch, _ in p.notes:
            b = min(bars - 1, int((start + 0.1) // bpb))
            if p.role in ("bass", "sub_bass") and bass[b] is None:
                bass[b] = pitch % 12
            elif p.role in ("chords", "pad"):
                chords[b].add(pitch % 12)
    return [(bass[b], frozenset(chords[b])) for b in range(bars)]


def section_variety(h: Heard) -> bool | None:
    """None when the song has fewer than three sections."""
    if len(h.markers) < 3:
        return None
    sigs = _bar_signatures(h)
    bounds = [*h.markers, (h.total_beats, "")]
    types: dict[str, list[tuple[int | None, frozenset[int]]]] = {}
    for (start, name), (end, _) in itertools.pairwise(bounds):
        kind = re.sub(r"\s+\d+$", "", name.strip())
        if re.match(r"(?i)(intro|outro)", kind) or "tail" in kind.lower() or kind in types:
            continue
        types[kind] = sigs[int(start // h.bpb + 0.01): int(end // h.bpb + 0.01)]
    kinds = list(types)
    for i, a in enumerate(kinds):
        for b in kinds[i + 1:]:
            pairs = [(x, y) for x, y in zip(types[a], types[b], strict=False) if x[1] and y[1]]
            if pairs and sum(1 for x, y in pairs if x != y) >= 0.5 * len(pairs):
                return True
    return False


def key_heard(h: Heard) -> tuple[bool, bool]:
    """(music21 agrees, bandstand's detect_key agrees) with the declared key or its relative."""
    from music21 import note, stream

    notes = [n for p in h.parts if p.role != "texture" for n in pitched([p])]
    s = stream.Stream()
    for start, dur, pitch, _ in notes:
        s.insert(start, note.Note(pitch, quarterLength=max(0.0625, round(dur * 16) / 16)))
    k = s.analyze("key")
    m21 = _agrees(h, k.tonic.pitchClass, k.mode == "minor")
    from bandstand.theory import detect_key

    est = detect_key([(n[2], n[1]) for n in notes])
    ours = _agrees(h, est.key.tonic_pc, est.key.is_minor)
    return m21, ours


def _agrees(h: Heard, tonic: int, minor: bool) -> bool:
    steps = MODE_STEPS.get(h.mode, MODE_STEPS["minor" if h.mode in MINORISH else "major"])
    declared = {(h.tonic + s) % 12 for s in steps}
    found = {(tonic + s) % 12 for s in MODE_STEPS["minor" if minor else "major"]}
    same = tonic == h.tonic and minor == (h.mode in MINORISH)
    return same or found == declared


def voicing_variety(h: Heard) -> bool | None:
    part = chord_track(h)
    if part is None:
        return None
    by_bar: dict[int, set[int]] = {}
    for start, _, pitch, _ in part.notes:
        by_bar.setdefault(int((start + 0.1) // h.bpb), set()).add(pitch)
    voicings: dict[frozenset[int], set[tuple[int, ...]]] = {}
    for pitches in by_bar.values():
        voicings.setdefault(frozenset(p % 12 for p in pitches), set()).add(tuple(sorted(pitches)))
    return any(len(v) >= 2 for v in voicings.values())


def note_set(h: Heard, shift: int, beats: float) -> set[tuple[Any, ...]]:
    out: set[tuple[Any, ...]] = set()
    for p in h.parts:
        for start, _, pitch, _ in p.notes:
            if start < beats:
                out.add((round(start * 4), "d", pitch) if p.drum else (round(start * 4), pitch + shift))
    return out


def pair_overlap(a: Heard, b: Heard) -> float:
    shift = (a.tonic - b.tonic) % 12
    shift = shift - 12 if shift > 5 else shift
    beats = min(a.total_beats, b.total_beats)
    return jaccard(note_set(a, 0, beats), note_set(b, shift, beats))


def rhythm_overlap(a: Heard, b: Heard, roles: tuple[str, ...], keyed: bool) -> float | None:
    beats = min(a.total_beats, b.total_beats)

    def onsets(h: Heard) -> set[tuple[int, int]]:
        return {(round(n[0] * 4), n[2] if keyed else 0) for p in h.parts if p.role in roles for n in p.notes
                if n[0] < beats}
    x, y = onsets(a), onsets(b)
    return jaccard(x, y) if x and y else None


def expectations(h: Heard, expect: dict[str, Any]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    programs = {p.program for p in h.parts if not p.drum}
    for what, want in expect.items():
        if what == "tempo":
            out[what] = want[0] <= h.tempo <= want[1]
        elif what == "time_signature":
            out[what] = [h.num, h.den] == list(want)
        elif what == "program":
            out[what] = want in programs
        elif what == "program_any":
            out[what] = bool(programs & set(want))
        elif what == "players":
            out[what] = len(h.parts) == want
        elif what == "texture":
            out[what] = any(p.role == "texture" for p in h.parts)
        elif what == "arp":
            out[what] = any(p.role == "arp" for p in h.parts)
        elif what == "loop_chords":  # chords heard (a bar playing part of a chord is that chord)
            sigs = {s[1] for s in _bar_signatures(h) if s[1]}
            whole = {a for a in sigs if not any(a < b for b in sigs)}
            out[what] = 0 < len(whole) <= want
        elif what == "nearest":
            out[what] = "nearest" in h.summary.lower()
        elif what == "twelve_bar":
            out[what] = IDIOMS["twelve_bar"](h)
    return out


# ----------------------------------------------------------------------------- running


@dataclass
class Run:
    id: str
    seed: int
    heard: Heard
    ms: float
    quality: dict[str, Any] = field(default_factory=dict)


def compose_one(prompt: str, seed: int, out: Path, **options: Any) -> tuple[Heard, float, dict[str, Any]]:
    from bandstand.compose import compose

    t0 = time.perf_counter()
    result = compose(prompt, seed=seed, out_dir=str(out), render_audio=False, render_pianoroll=False, **options)
    ms = (time.perf_counter() - t0) * 1000
    manifest = dict(result.manifest or {})
    manifest.setdefault("summary", getattr(result.intent, "summary", ""))
    manifest["summary"] = getattr(result.intent, "summary", "") or manifest.get("summary", "")
    heard = read_midi(result.session_dir / "midi" / "full-arrangement.mid", manifest)
    quality = dict(manifest.get("quality") or {})
    genres = manifest.get("genre") or [""]
    quality["genre"] = str(genres[0] if isinstance(genres, list) else genres)
    quality["chords_per_bar"] = _chords_per_bar(result)
    return heard, ms, quality


def _chords_per_bar(result: Any) -> list[list[int]]:
    """The planned chord of every bar (pitch classes), from the run's harmony and arrangement."""
    from bandstand.compose.models.arrangement import ArrangementPlan
    from bandstand.compose.models.harmony import HarmonyPlan
    from bandstand.compose.quality.context import from_plans

    nodes = result.state.nodes
    if "harmony" not in nodes or "arrangement" not in nodes or result.song is None:
        return []
    harmony = HarmonyPlan.model_validate(nodes["harmony"].output)
    arrangement = ArrangementPlan.model_validate(nodes["arrangement"].output)
    return [sorted(c) for c in from_plans(result.song.beats_per_bar, harmony, arrangement).chords]


def _idiom(genre: str) -> tuple[str, str]:
    """The drum family and comping style of the genre a song was played as."""
    from bandstand.compose.lexicon import GENRE_BY_NAME

    traits = GENRE_BY_NAME.get(genre.lower())
    return (traits.drum_family, traits.comp_style) if traits else ("", "")


def share(values: list[bool | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 3) if kept else None


def measure(seeds: int, only: set[str] | None) -> dict[str, Any]:
    entries = [e for e in PROMPTS["prompts"] if not only or e["id"] in only]
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        compose_one("warm up", 0, out, bars=8)
        for e in entries:
            for seed in range(1, seeds + 1):
                heard, ms, quality = compose_one(e["prompt"], seed, out)
                runs.append(Run(e["id"], seed, heard, ms, quality))
        speed = [compose_one(p, 100 + i, out, bars=64, parts=CORE)[1] for r in range(2)
                 for i, p in enumerate(SPEED_PROMPTS)]
    by = {(r.id, r.seed): r for r in runs}
    per_song: dict[str, dict[str, Any]] = {}
    idiom_results: dict[str, list[bool]] = {}
    expect_results: dict[str, list[bool]] = {}
    for r in runs:
        h = r.heard
        m21, ours = key_heard(h)
        row: dict[str, Any] = {"ends_on_tonic": ends_on_tonic(h), "section_variety": section_variety(h),
                               "key_music21": m21, "key_bandstand": ours, "voicing_variety": voicing_variety(h)}
        entry = next(e for e in entries if e["id"] == r.id)
        for idiom in [*entry["idioms"], "motif", "chorus_variation", "no_clash"]:
            verdict = IDIOMS[idiom](h)
            if verdict is not None:
                row[idiom] = verdict
                idiom_results.setdefault(idiom, []).append(bool(verdict))
        for what, ok in expectations(h, entry.get("expect", {})).items():
            row[f"expect_{what}"] = ok
            expect_results.setdefault(what, []).append(ok)
        row.update(note_row(h, r.quality, *_idiom(r.quality.get("genre", ""))))
        per_song[f"{r.id}#{r.seed}"] = row
    pairs = {f"{a}~{b}": round(pair_overlap(by[(a, 1)].heard, by[(b, 1)].heard), 3)
             for a, b in PROMPTS["pairs"] if (a, 1) in by and (b, 1) in by}
    seed_drums: dict[str, float] = {}
    seed_bass: dict[str, float] = {}
    for e in entries:
        if (e["id"], 1) in by and (e["id"], 2) in by:
            a, b = by[(e["id"], 1)].heard, by[(e["id"], 2)].heard
            d = rhythm_overlap(a, b, ("drums",), True)
            s = rhythm_overlap(a, b, ("bass", "sub_bass"), False)
            if d is not None:
                seed_drums[e["id"]] = round(d, 3)
            if s is not None:
                seed_bass[e["id"]] = round(s, 3)
    col: Callable[[str], list[Any]] = lambda k: [row.get(k) for row in per_song.values()]  # noqa: E731
    return {
        "songs": len(runs), "prompts": len(entries), "genres": len({e["genre"] for e in entries}),
        "ends_on_tonic_share": share(col("ends_on_tonic")),
        "section_variety_share": share(col("section_variety")),
        "key_music21_share": share(col("key_music21")),
        "key_bandstand_share": share(col("key_bandstand")),
        "voicing_variety_share": share(col("voicing_variety")),
        "pair_overlap": pairs, "pairs_below_0.7": share([v < 0.7 for v in pairs.values()]),
        "seed_drum_overlap_median": round(statistics.median(seed_drums.values()), 3) if seed_drums else None,
        "seed_bass_overlap_median": round(statistics.median(seed_bass.values()), 3) if seed_bass else None,
        "seed_pairs_below_0.8": share([seed_drums.get(k, 0) < 0.8 and seed_bass.get(k, 0) < 0.8
                                       for k in seed_drums]),
        "notes": summarise(list(per_song.values())),
        "idioms": {k: share(list(v)) for k, v in sorted(idiom_results.items())},
        "expectations": {k: share(list(v)) for k, v in sorted(expect_results.items())},
        "compose_ms_median_64x5": round(statistics.median(speed), 1),
        "compose_ms_median_prompts": round(statistics.median(r.ms for r in runs), 1),
        "per_song": per_song, "seed_drum_overlap": seed_drums, "seed_bass_overlap": seed_bass,
    }


INSTRUMENT_WORDS = ("ukulele", "banjo", "accordion", "harpsichord", "bandoneon", "808s", "distorted guitars",
                    "rhodes", "nylon guitar", "organ")


def drum_grid(h: Heard) -> frozenset[tuple[int, int]]:
    """(sixteenth within the bar, drum note) of every drum hit: the kit's one-bar grid."""
    steps = round(h.bpb * 4)
    return frozenset((round(n[0] * 4) % steps, n[2]) for p in h.parts if p.drum and p.role == "drums"
                     for n in p.notes)


def distinctness(seed: int = 1) -> dict[str, Any]:
    """Pairwise note overlap of every genre the lexicon knows and of instrument words on one genre."""
    from bandstand.compose.lexicon import GENRES

    prompts = {g.name: g.name for g in GENRES}
    prompts.update({f"pop with {w}": f"pop song with {w}" for w in INSTRUMENT_WORDS})
    with tempfile.TemporaryDirectory() as tmp:
        heard = {name: compose_one(prompt, seed, Path(tmp))[0] for name, prompt in prompts.items()}
    genres = [g.name for g in GENRES]
    words = [n for n in prompts if n not in genres]

    def table(group: list[str]) -> dict[str, Any]:
        rows = {f"{a}~{b}": round(pair_overlap(heard[a], heard[b]), 3) for a, b in itertools.combinations(group, 2)}
        top = sorted(rows.items(), key=lambda kv: -kv[1])[:8]
        return {"prompts": len(group), "pairs": len(rows), "pairs_below_0.5": share([v < 0.5 for v in rows.values()]),
                "overlap_median": round(statistics.median(rows.values()), 3), "overlap_max": top[0][1],
                "most_alike": dict(top)}

    grids = {n: drum_grid(heard[n]) for n in genres}
    same_grid = [f"{a}~{b}" for a, b in itertools.combinations(genres, 2) if grids[a] and grids[a] == grids[b]]
    return {"genres": table(genres), "instrument_words": table(["pop", *words]), "identical_drum_grids": same_grid,
            "seed_variety": seed_variety([g.name for g in GENRES])}


def seed_variety(genres: list[str], seeds: int = 6) -> dict[str, Any]:
    """Over `seeds` seeds of each genre (intent and arrangement only, no parts): how many
    different tempos and forms a genre's songs get, and whether every tempo stays in the
    genre's range."""
    from bandstand.compose.arrangement import build_arrangement, resolve_roles
    from bandstand.compose.harmony import build_harmony
    from bandstand.compose.intent import decompose
    from bandstand.compose.lexicon import GENRE_BY_NAME
    from bandstand.compose.parts import ROLES

    tempos, forms, inside = [], [], []
    for name in genres:
        seen_t, seen_f = set(), set()
        lo, hi = GENRE_BY_NAME[name].tempo_range
        for seed in range(1, seeds + 1):
            intent = decompose(name, seed=seed)
            plan = build_arrangement(intent, build_harmony(intent, seed), resolve_roles(intent, None, ROLES), seed)
            seen_t.add(intent.tempo)
            seen_f.add(tuple((sec.kind, sec.bars) for sec in plan.sections))
            inside.append(lo <= intent.tempo <= hi)
        tempos.append(len(seen_t))
        forms.append(len(seen_f))
    return {"genres": len(genres), "seeds": seeds, "tempos_per_genre_median": statistics.median(tempos),
            "tempos_per_genre_min": min(tempos), "forms_per_genre_median": statistics.median(forms),
            "forms_per_genre_min": min(forms), "tempo_in_genre_range": share(list(inside))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="a bandstand checkout (its src/ is imported) to measure as 'before'")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated prompt ids")
    ap.add_argument("--per-song", action="store_true", help="keep the per-song rows in the output")
    ap.add_argument("--distinct", action="store_true", help="only the distinctness table over the whole lexicon")
    ap.add_argument("--mix", action="store_true", help="only the rendered mix: stem balance, intros, instruments")
    args = ap.parse_args()
    if args.distinct:
        print(json.dumps(distinctness(), indent=1))
        return
    if args.mix:
        from songwriting_mix import mix_report

        report = mix_report(compose_one)
        if not args.per_song:
            report.pop("per_song")
        if args.baseline:
            env = {**os.environ, "PYTHONPATH": str(Path(args.baseline) / "src")}
            cmd = [sys.executable, __file__, "--mix"]
            before = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
            report = {"before": before, "after": report}
        print(json.dumps(report, indent=1))
        return
    only = {x for x in args.only.split(",") if x} or None
    before = None
    if args.baseline:
        env = {**os.environ, "PYTHONPATH": str(Path(args.baseline) / "src")}
        cmd = [sys.executable, __file__, "--seeds", str(args.seeds), "--only", args.only]
        if args.per_song:
            cmd.append("--per-song")
        before = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
    import bandstand

    after = measure(args.seeds, only)
    after["bandstand"] = str(Path(bandstand.__file__).parent)
    if not args.per_song:
        for k in ("per_song", "seed_drum_overlap", "seed_bass_overlap"):
            after.pop(k, None)
    if before is None:
        print(json.dumps(after, indent=1))
    else:
        print(json.dumps({"before": before, "after": after}, indent=1))


if __name__ == "__main__":
    main()
