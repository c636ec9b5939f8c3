"""Metre words as studio steps: "put the bridge in 6/8", "3/4 in the verse", "the chorus in 7/8".

A song's metre map (`Project.time_signature` from bar 1, then `Project.metre_changes`) says which
time signature each bar is in. A metre named for some sections or bars moves the map there only
(`remetred`), and every part is written again in those bars, in their metre; the bars after them
keep their music, each bar moved to where it now starts. Accepting such a variation in some
phrases only (`metre_accept`) takes whole bars: the proposal's bars (and metre) where a phrase
was accepted, HEAD's everywhere else, each laid where the resulting map puts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from bandstand.compose.api import ArrangementPlan
from bandstand.errors import InvalidInput
from bandstand.score import Song, TimeSignature, Track
from bandstand.score.metre_map import MetreMap, overlay, relay, relay_song, remetre
from bandstand.studio import Project, Variation
from bandstand.studio.convert import merge_song, to_song
from bandstand.studio.variations import resolve_phrases

__all__ = ["metre_accept", "metres_of", "remetred", "scope_runs"]


def scope_runs(arrangement: ArrangementPlan, sections: Sequence[str], bars: tuple[int, int] | None
               ) -> list[tuple[int, int]] | None:
    """The (first, last) bar runs, 1-based inclusive, that `sections` (by kind or name) and `bars`
    name, sorted (None: no scope, the whole song)."""
    if not sections and bars is None:
        return None
    runs: list[tuple[int, int]] = []
    if sections:
        wanted = {s.lower() for s in sections}
        hits = [s for s in arrangement.sections if s.kind in wanted or s.name.lower() in wanted]
        if not hits:
            names = ", ".join(dict.fromkeys(s.name for s in arrangement.sections))
            raise InvalidInput(f"this song has no {' or '.join(sorted(wanted))}; its sections are {names}")
        runs += [(s.start_bar, s.start_bar + s.bars - 1) for s in hits]
    if bars is not None:
        last = arrangement.total_bars
        if bars[0] > last:
            raise InvalidInput(f"bar {bars[0]} is past the end of the song ({last} bars)")
        runs.append((bars[0], min(bars[1], last)))
    return sorted(runs)


def remetred(metres: MetreMap, runs: Sequence[tuple[int, int]], ts: TimeSignature) -> MetreMap:
    """`metres` with every bar of `runs` in `ts`, the others as they were."""
    out = metres
    for first, last in runs:
        out = remetre(out, first, last, ts)
    return out


def metres_of(project: Project) -> MetreMap:
    """The project's metre map."""
    return MetreMap.of(*project.score_metres())


def _merged(base: Song, proposal: Song, bars: frozenset[int], total: int) -> Song:
    """HEAD's bars but `bars`, the proposal's there, on the map that makes."""
    old, new = MetreMap.of_song(base), MetreMap.of_song(proposal)
    target = overlay(old, new, bars, total)
    kept = frozenset(range(1, total + 1)) - bars
    by_name = {t.name: t for t in proposal.tracks}
    tracks: list[Track] = []
    for t in base.tracks:
        mine = relay(t, old, target, kept)
        theirs = by_name.get(t.name)
        if theirs is not None:
            taken = relay(theirs, new, target, bars)
            for name in ("notes", "controls", "pitch_bends", "aftertouch", "poly_aftertouch", "program_changes"):
                setattr(mine, name, [*getattr(mine, name), *getattr(taken, name)])
            mine.sort()
        tracks.append(mine)
    moved = relay_song(base, target)
    return Song(title=moved.title, tempo=moved.tempo, time_signature=target.opening, key=moved.key,
                sections=list(base.sections), tracks=tracks, markers=moved.markers,
                tempo_changes=moved.tempo_changes, buses=list(base.buses), key_changes=moved.key_changes,
                metre_changes=list(target.changes))


def metre_accept(base: Project, variation: Variation, phrase_ids: Sequence[str] | None) -> Project | None:
    """The project that accepting `phrase_ids` of a variation that moves the metre map makes
    (whole bars, see the module docstring), or None when it does not move the map or all of it is
    accepted."""
    proposal = variation.proposal
    if phrase_ids is None or proposal is None or metres_of(base) == metres_of(proposal):
        return None
    chosen = resolve_phrases(variation, phrase_ids)
    bars = frozenset(bar for p in variation.phrases if p.id in chosen for bar in range(p.start_bar, p.end_bar + 1))
    total = max([s.end_bar - 1 for s in (*base.sections, *proposal.sections)], default=1)
    song = _merged(to_song(base), to_song(proposal), bars, total)
    merged = merge_song(base, song)
    return merged.model_copy(update={"provenance": base.provenance})

