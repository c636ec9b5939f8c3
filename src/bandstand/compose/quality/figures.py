"""The quality figures of a song: plain numbers measured on its notes against
its frame (`SongContext`), each None when the song gives it nothing to
measure. Harmony: key clarity (the theory's key finder: its best correlation),
the declared key's rank among the 24 it hears (the same scale counts as
first), in-scale and strong-beat chord-tone rates per role. Rhythm: groove
consistency (drum bars against the next bar of their section) and the
bass–kick lock where the idiom wants it. Arrangement: section contrast,
density against the planned energy, notes per bar, the share of bars that ask
for a bass and get one. Melody (the lead's line): see `quality.melody`."""

from __future__ import annotations

import math
from bisect import bisect_left
from statistics import fmean

from bandstand.compose.quality.context import BASS_ROLES, SongContext
from bandstand.compose.quality.melody import melody_figures
from bandstand.craft.kit import CLAP, RIM, SNARE
from bandstand.errors import TheoryError
from bandstand.score import Note, Song, Track
from bandstand.theory import detect_key

__all__ = ["KICKS", "PITCHED_ROLES", "TOL", "VOICE_GROUP", "VOICE_GROUPS", "cosine", "measure", "near",
           "on_strong_beat", "part_figures", "pearson", "resolved"]

TOL = 0.125  # beats: a 32nd note either side counts as together
KICKS = frozenset({35, 36})
# Roles whose in-scale and chord-tone rates are figures of their own (others join "other").
PITCHED_ROLES = ("bass", "chords", "lead", "pad")
UNPITCHED = frozenset({"texture"})
MELODY_ROLES = ("lead", "counter_melody", "arp")
VOICE_GROUPS = (KICKS, frozenset({SNARE, CLAP, RIM}), frozenset({42, 44, 46, 49, 51, 53, 57, 59}))
VOICE_GROUP = {note: i for i, group in enumerate(VOICE_GROUPS) for note in group}


def _role_group(role: str) -> str:
    if role in BASS_ROLES:
        return "bass"
    return role if role in PITCHED_ROLES else "other"


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r (None with fewer than three values or a flat series)."""
    if len(xs) < 3:
        return None
    mx, my = fmean(xs), fmean(ys)
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    if sx < 1e-9 or sy < 1e-9:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (sx * sy)


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine of two vectors (0 when one is all zeros)."""
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb) if na and nb else 0.0


def on_strong_beat(beat: float, bpb: float) -> bool:
    """On beat 1 or 3 (beat 1 alone in a bar of fewer than four beats), within a 32nd."""
    pos = beat % bpb
    strong = (0.0, bpb / 2) if bpb >= 4 else (0.0,)
    return any(abs(pos - b) <= TOL or abs(pos - b - bpb) <= TOL for b in strong)


def _pitched(song: Song) -> list[Track]:
    return [t for t in song.tracks if not t.is_drum and t.role not in UNPITCHED and t.notes]


def key_figures(notes: list[Note], ctx: SongContext) -> dict[str, float | None]:
    """Key clarity (the best correlation of the theory's key finder) and the declared key's
    rank among the keys it hears (0: first, or the same scale as the first)."""
    if not notes:
        return {"key_clarity": None, "key_rank": None}
    try:
        est = detect_key(notes)
    except TheoryError:
        return {"key_clarity": None, "key_rank": None}
    keys = [k for k, _ in est.ranking]
    rank = next((i for i, k in enumerate(keys) if k.tonic_pc == ctx.tonic_pc and k.is_minor == ctx.minor), 24)
    if rank and frozenset(keys[0].scale.pitch_classes) == ctx.scale:
        rank = 0
    return {"key_clarity": est.correlation, "key_rank": float(rank)}


def _is_chord_tone(n: Note, ctx: SongContext) -> bool:
    return n.pitch % 12 in ctx.chords[ctx.bar_of(n.start)]


def resolved(n: Note, notes: list[Note], starts: list[float], ctx: SongContext) -> bool:
    """A non-chord tone `n` of a part whose `notes` (sorted by start, `starts` their onsets)
    resolves: a note of the same part starting by the time `n` has ended (a 16th of slack) or,
    re-struck, by the next strong beat, moves a step (one or two semitones) to a chord tone —
    a suspension or an appoggiatura."""
    i = bisect_left(starts, n.start + TOL)
    end = n.start + max(n.duration + 0.25, ctx.length_of(ctx.bar_of(n.start)) / 2 + TOL)
    while i < len(notes) and notes[i].start <= end:
        m = notes[i]
        if 1 <= abs(m.pitch - n.pitch) <= 2 and _is_chord_tone(m, ctx):
            return True
        i += 1
    return False


def pitch_figures(tracks: list[Track], ctx: SongContext) -> dict[str, float | None]:
    """In-scale rate and strong-beat chord-tone rate per role group. A strong-beat note that
    is not a chord tone but resolves by step to one (`resolved`: a suspension, an
    appoggiatura) counts with the chord tones: the figure asks whether the strong beats
    agree with the harmony, and a leaning note that resolves does."""
    out: dict[str, float | None] = {}
    groups: dict[str, list[Track]] = {}
    for t in tracks:
        groups.setdefault(_role_group(t.role), []).append(t)
    for group, members in groups.items():
        if group == "other":
            continue
        notes = [n for t in members for n in t.notes]
        out[f"in_scale.{group}"] = sum(1 for n in notes if n.pitch % 12 in ctx.scale) / len(notes)
        if not ctx.chords:
            continue
        agreeing = strong = 0
        for t in members:
            line = sorted(t.notes, key=lambda n: n.start)
            starts = [n.start for n in line]
            for n in line:
                bar = ctx.bar_of(n.start)
                if on_strong_beat(n.start - ctx.start_of(bar), ctx.length_of(bar)):
                    strong += 1
                    agreeing += _is_chord_tone(n, ctx) or resolved(n, line, starts, ctx)
        out[f"chord_tones.{group}"] = agreeing / strong if strong else None
    return out


def groove_consistency(drums: list[Note], ctx: SongContext) -> float | None:
    """Mean cosine between each drum bar and the next bar of its section, each bar a 16-step
    onset vector per voice group (kicks, backbeat, hats and cymbals, the rest): a hi-hat roll
    that moves is still the groove. The song's closing hit (a last bar whose drums all fall
    on its first beat) is the ending, not the groove, and is left out."""
    if not drums:
        return None
    vectors: dict[int, list[float]] = {}
    for n in drums:  # each bar on its own metre's grid (a song whose metre changes has bars of several lengths)
        b = ctx.bar_of(n.start)
        steps = max(1, round(ctx.length_of(b) * 4))
        pos = min(steps - 1, max(0, round((n.start - ctx.start_of(b)) / (ctx.length_of(b) / steps))))
        group = VOICE_GROUP.get(n.pitch, len(VOICE_GROUPS))
        vectors.setdefault(b, [0.0] * (steps * (len(VOICE_GROUPS) + 1)))[group * steps + pos] += 1.0
    last = max(vectors)
    steps = max(1, round(ctx.length_of(last) * 4))
    beat = steps / ctx.length_of(last)  # sixteenths in a beat
    if last == ctx.bars - 1 and len(vectors) > 1 and all(i % steps < beat for i, x in enumerate(vectors[last]) if x):
        del vectors[last]  # the closing hit
    sims: list[float] = []
    for sec in ctx.sections:
        bars = [vectors[b] for b in range(sec.start, sec.start + sec.bars) if b in vectors]
        # each bar against the one before, or the one two before: a two-bar figure and its answer
        # (the kick's, `craft.kit.kick_steps`) is a groove kept, as a loop is
        sims.extend(max(cosine(bars[i - 1], bars[i]), cosine(bars[i - 2], bars[i]) if i >= 2 else 0.0)
                    for i in range(1, len(bars)))
    return fmean(sims) if sims else None


def near(sorted_times: list[float], t: float) -> bool:
    """Some time of `sorted_times` lies within a 32nd of `t`."""
    i = bisect_left(sorted_times, t - TOL)
    return i < len(sorted_times) and sorted_times[i] <= t + TOL


def kick_bass_lock(kicks: list[float], bass: list[float], ctx: SongContext) -> float | None:
    """Of the kicks in bars where the bass plays, the share a bass onset answers (None when the
    idiom plays around the kick, or nothing to compare)."""
    if not ctx.wants_lock:
        return None
    bass_bars = {ctx.bar_of(t) for t in bass}
    heard = [k for k in kicks if ctx.bar_of(k) in bass_bars]
    if not heard:
        return None
    return sum(1 for k in heard if near(bass, k)) / len(heard)


def _density(song: Song, ctx: SongContext) -> list[float]:
    """Notes per bar, every part together."""
    density = [0.0] * ctx.bars
    for t in song.tracks:
        for n in t.notes:
            density[ctx.bar_of(n.start)] += 1.0
    return density


def density_energy(song: Song, ctx: SongContext) -> float | None:
    """How closely the notes per bar follow the arrangement's energy (Pearson), the final bar
    aside: it is the ending's held chord, sparse by design whatever the arc (a four-bar piece
    that builds to it would read as density against energy)."""
    energy = list(ctx.energy)[:-1]
    return pearson(energy, _density(song, ctx)[: len(energy)]) if energy else None


def arrangement_figures(song: Song, ctx: SongContext) -> dict[str, float | None]:
    """Section contrast, density against energy, notes per bar and bass coverage. Density
    against energy is the layering's: a song of one part (an offbeat house bass alone) keeps the
    density its idiom has, so it is not measured there."""
    density = _density(song, ctx)
    out: dict[str, float | None] = {"notes_per_bar": fmean(density) if density else None}
    layered = sum(1 for t in song.tracks if t.notes) >= 2
    out["density_energy"] = density_energy(song, ctx) if layered else None
    secs = ctx.sections
    if len(secs) >= 2:
        per_sec = [fmean(density[s.start: s.start + s.bars] or [0.0]) for s in secs]
        played = [{t.role for t in song.tracks if any(s.start <= ctx.bar_of(n.start) < s.start + s.bars
                                                       for n in t.notes)} for s in secs]
        contrasts = []
        for i in range(len(secs) - 1):
            a, b = per_sec[i], per_sec[i + 1]
            dens = abs(a - b) / max(a, b, 1e-9)
            roles = 1 - len(played[i] & played[i + 1]) / max(1, len(played[i] | played[i + 1]))
            contrasts.append(max(dens, roles))
        out["section_contrast"] = fmean(contrasts)
    else:
        out["section_contrast"] = None
    wanted = [b for s in secs if s.roles & BASS_ROLES for b in range(s.start, s.start + s.bars)]
    if wanted:
        bass_bars = {ctx.bar_of(n.start) for t in song.tracks if t.role in BASS_ROLES for n in t.notes}
        out["bass_coverage"] = sum(1 for b in wanted if b in bass_bars) / len(wanted)
    else:
        out["bass_coverage"] = None
    return out


def measure(song: Song, ctx: SongContext) -> dict[str, float | None]:
    """Every figure of `song` (see the module docstring)."""
    tracks = _pitched(song)
    drums = sorted((n for t in song.tracks if t.is_drum and t.role != "texture" for n in t.notes),
                   key=lambda n: n.start)
    figures: dict[str, float | None] = {}
    figures.update(key_figures([n for t in tracks for n in t.notes], ctx))
    figures.update(pitch_figures(tracks, ctx))
    figures["groove_consistency"] = groove_consistency(drums, ctx)
    bass = sorted(n.start for t in song.tracks if t.role in BASS_ROLES for n in t.notes)
    figures["kick_bass_lock"] = kick_bass_lock([n.start for n in drums if n.pitch in KICKS], bass, ctx)
    figures.update(arrangement_figures(song, ctx))
    figures.update(melody_figures(_melody(tracks)))
    return figures


def _melody(tracks: list[Track]) -> list[Note]:
    for role in MELODY_ROLES:
        line = [n for t in tracks if t.role == role for n in t.notes]
        if line:
            return line
    return []


def part_figures(track: Track, ctx: SongContext) -> dict[str, float | None]:
    """The figures one part alone can be measured on (a take of that part is ranked by them)."""
    if track.is_drum:
        drums = sorted(track.notes, key=lambda n: n.start)
        solo = Song(tempo=120.0, tracks=[track])
        figures: dict[str, float | None] = {"groove_consistency": groove_consistency(drums, ctx)}
        figures["density_energy"] = density_energy(solo, ctx)
        return figures
    figures = dict(pitch_figures([track], ctx))
    if track.role in MELODY_ROLES:
        figures.update(melody_figures(list(track.notes)))
    figures["density_energy"] = density_energy(Song(tempo=120.0, tracks=[track]), ctx)
    return figures
