"""Names to ids: a tool call may name a track, region or bus by its id or by its
name, ignoring case; a miss says what was meant ("no track 'Bas'; did you mean
'Bass'?") or lists what there is. A region can be named on its own when the
name is unique, or as `Track/Region` ("Bass/Verse 1")."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from bandstand.errors import InvalidInput
from bandstand.studio.model import BusSpec, Project, Region, Track

__all__ = ["find_bus", "find_region", "find_track", "suggest"]


def suggest(word: str, options: Sequence[str], what: str) -> str:
    """'; did you mean X?' or '; the <what> are: …' (or '; there are no <what> yet')."""
    if not options:
        return f"; there are no {what} yet"
    folded = {o.casefold(): o for o in options}
    close = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.6)
    if close:
        return f"; did you mean '{folded[close[0]]}'?"
    shown = ", ".join(f"'{o}'" for o in options[:12])
    return f"; the {what} are: {shown}{', …' if len(options) > 12 else ''}"


def find_track(project: Project, ref: str, *, field: str = "track") -> Track:
    for t in project.tracks:
        if t.id == ref:
            return t
    folded = ref.strip().casefold()
    for t in project.tracks:
        if t.name.casefold() == folded:
            return t
    raise InvalidInput(f"no track '{ref}'{suggest(ref, [t.name for t in project.tracks], 'tracks')}", field=field)


def find_bus(project: Project, ref: str, *, field: str = "bus") -> BusSpec:
    for b in project.buses:
        if b.id == ref:
            return b
    folded = ref.strip().casefold()
    for b in project.buses:
        if b.name.casefold() == folded:
            return b
    hint = suggest(ref, [b.name for b in project.buses], "buses")
    raise InvalidInput(f"no bus '{ref}'{hint} (ensure_bus makes one)", field=field)


def _label(track: Track, region: Region) -> str:
    return f"{track.name}/{region.name or '(unnamed)'}"


def find_region(project: Project, ref: str, *, field: str = "region") -> tuple[Track, Region]:
    for t, r in project.regions():
        if r.id == ref:
            return t, r
    text = ref.strip()
    folded = text.casefold()
    if "/" in text:
        track_part, _, region_part = text.partition("/")
        hits = [(t, r) for t, r in project.regions() if t.name.casefold() == track_part.strip().casefold()
                and r.name.casefold() == region_part.strip().casefold()]
    else:
        hits = [(t, r) for t, r in project.regions() if r.name.casefold() == folded]
    if len(hits) == 1:
        return hits[0]
    labels = [_label(t, r) for t, r in project.regions()]
    if len(hits) > 1:
        options = ", ".join(f"'{_label(t, r)}'" for t, r in hits[:8])
        raise InvalidInput(f"region name '{ref}' is on several tracks; name one as Track/Region: {options}",
                           field=field)
    names = sorted({r.name for _, r in project.regions() if r.name})
    hint = suggest(text, labels if "/" in text else names or labels, "regions")
    raise InvalidInput(f"no region '{ref}'{hint}", field=field)
