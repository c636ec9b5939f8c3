"""The band a command's `--members` and `--persona` options name (`bandstand jam`, `serve`,
`studio`), made by `App.jam_members`. Imported by those commands when they run, so `bandstand
--help` does not load the jam."""

from __future__ import annotations

from pathlib import Path

from bandstand.errors import InvalidInput
from bandstand.producer import App

__all__ = ["band_of"]


def band_of(members: str | None, persona_files: list[Path] | None) -> list[object]:
    """The band `--members` (names, comma-separated; the default band when none) and
    `--persona` (persona files, each of whom must be among the members) name."""
    extra = [App.load_persona(p) for p in persona_files or []]
    names = [n for n in (members or "").split(",") if n.strip()] or None
    band: list[object] = list(App.jam_members(names, extra))
    for path, persona in zip(persona_files or [], extra, strict=True):
        if persona not in band:  # a persona file given on purpose was left out without a word
            raise InvalidInput(
                f"--persona {path} plays {persona.name}, who is not in --members {members}; "
                f"add it: --members {members},{persona.name.lower()}"
            )
    return band
