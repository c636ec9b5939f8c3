"""Tempo words as studio steps: "set the tempo to 96", "set the chorus to 140 BPM", "slow the bridge
down", "half the tempo in bars 9–16".

A tempo edit changes the song's tempo map (`Project.tempo` and `tempo_changes`) through the
`set_tempo` tool: the whole song (one tempo from then on), or the bars its sections or bar range
name — each stretch of one tempo inside them changed by the words (an absolute BPM, a change by
some BPM, a factor), the tempo after them left as it was. A section is named as the parser reads
it (its kind: "chorus" is every chorus, not the pre-chorus) or by its own name ("Chorus 2").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bandstand.craft.edits import TempoEdit
from bandstand.errors import InvalidInput
from bandstand.score import TempoChange, clamp_tempo
from bandstand.score.tempo_map import TempoMap, retempo, segments
from bandstand.studio import Project

__all__ = ["scope_bars", "tempo_calls", "tempo_edited"]

_KIND_OF_NAME = re.compile(r"[\s\d]+$")


def _kind(name: str) -> str:
    """A section's kind from its name: "Chorus 2" → "chorus", "Pre-Chorus" → "prechorus"."""
    return _KIND_OF_NAME.sub("", name.casefold()).replace("-", "").replace(" ", "")


def _total_bars(project: Project) -> int:
    ends = [s.end_bar - 1 for s in project.sections]
    ends += [int(-(-r.end_beat // project.beats_per_bar)) for t in project.tracks for r in t.regions]
    return max(ends, default=1)


def scope_bars(project: Project, sections: Sequence[str], bars: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The (first, last) bar runs, 1-based inclusive, that `sections` and `bars` name, merged and sorted.
    A section the song does not have is one `InvalidInput` naming the ones it has."""
    runs: list[tuple[int, int]] = []
    for word in sections:
        wanted = word.casefold()
        hits = [s for s in project.sections if s.name.casefold() == wanted or _kind(s.name) == wanted.replace("-", "")]
        if not hits:
            names = ", ".join(dict.fromkeys(s.name for s in project.sections)) or "none"
            raise InvalidInput(f"this song has no {word}; its sections are {names}", field="prompt")
        runs += [(s.start_bar, s.end_bar - 1) for s in hits]
    if bars is not None:
        last = _total_bars(project)
        if bars[0] > last:
            raise InvalidInput(f"bar {bars[0]} is past the end of the song ({last} bars)", field="prompt")
        runs.append((bars[0], min(bars[1], last)))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(runs):
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def tempo_calls(project: Project, edit: TempoEdit) -> list[tuple[str, dict[str, float | int]]]:
    """(what it does, `set_tempo` arguments) for each stretch of one tempo the edit changes; none
    when nothing would change."""
    bpb = project.beats_per_bar
    changes = [TempoChange(c.beat, c.bpm) for c in project.tempo_changes]
    scoped = bool(edit.sections) or edit.bars is not None
    if not scoped and (edit.bpm is not None or not changes):  # the whole song at one tempo
        bpm = round(clamp_tempo(edit.applied(project.tempo)), 2)
        if abs(bpm - project.tempo) < 1e-6 and not changes:
            return []
        return [(f"Set tempo to {bpm:g} BPM", {"tempo": bpm})]
    runs = scope_bars(project, edit.sections, edit.bars) if scoped else [(1, _total_bars(project))]
    out: list[tuple[str, dict[str, float | int]]] = []
    for first, last in runs:
        for a, b, old in segments(project.tempo, changes, (first - 1) * bpb, last * bpb):
            bpm = round(clamp_tempo(edit.applied(old)), 2)
            if abs(bpm - old) < 1e-6:
                continue
            start, end = round(a / bpb) + 1, max(round(a / bpb) + 1, round(b / bpb))
            where = f"bar {start}" if start == end else f"bars {start}–{end}"
            args: dict[str, float | int] = {"tempo": bpm, "start_bar": start}
            if scoped or end < last:
                args["end_bar"] = end
            out.append((f"Set tempo to {bpm:g} BPM in {where}", args))
    return out


def tempo_edited(tempo: float, changes: Sequence[TempoChange], edits: Sequence[tuple[list[tuple[float, float]] | None,
                                                                                   TempoEdit]]) -> TempoMap:
    """The tempo map after `edits`, each limited to its beat windows (None: the whole song; an
    absolute tempo for the whole song is one tempo throughout)."""
    now: TempoMap = (tempo, tuple(changes))
    for windows, edit in edits:
        def new(old: float, edit: TempoEdit = edit) -> float:
            return round(clamp_tempo(edit.applied(old)), 2)

        if windows is None:
            now = (new(now[0]), ()) if edit.bpm is not None or not now[1] else retempo(*now, 0.0, None, new)
            continue
        for a, b in windows:
            now = retempo(*now, a, b, new)
    return now
