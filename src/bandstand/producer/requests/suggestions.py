"""First things to ask of a song: a few requests drawn from its parts and its form, each one
the studio's edit words understand ("make the bass busier", "darker chords in the chorus",
"add a string pad to the chorus", "try something different"), for a client to offer before
anything has been asked (the studio page's chips in an empty chat)."""

from __future__ import annotations

from bandstand.studio.model import Project

__all__ = ["suggestions"]

_BUSIER = ("bass", "drums", "lead", "chords")
"""The part "make … busier" names: the first of these the song has."""

_COLOUR = ("bridge", "chorus", "verse")
"""Where "darker chords" goes: the first of these sections the song has."""


def suggestions(project: Project, limit: int = 4) -> list[str]:
    """Up to `limit` requests that fit this song (its parts' roles, its sections' names)."""
    roles = {t.role for t in project.tracks}
    sections = {s.name.split()[0].lower() for s in project.sections if s.name.strip()}
    out: list[str] = []
    busier = next((r for r in _BUSIER if r in roles), None)
    if busier:
        out.append(f"make the {busier} busier")
    where = next((s for s in _COLOUR if s in sections), None)
    if where and "chords" in roles:
        out.append(f"darker chords in the {where}")
    if "chorus" in sections and not any("string" in t.name.lower() for t in project.tracks):
        out.append("add a string pad to the chorus")
    elif "drums" in roles and "verse" in sections:
        out.append("simpler drums in the verse")
    out.append("try something different")
    return out[:limit]
