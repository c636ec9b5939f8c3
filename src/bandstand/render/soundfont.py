"""Finding a General MIDI SoundFont: `$BANDSTAND_SOUNDFONT`, then Debian's
FluidR3_GM, then the TimGM6mb.sf2 that ships inside the pretty_midi wheel."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

from bandstand.errors import SoundFontNotFound

ENV_VAR = "BANDSTAND_SOUNDFONT"
DEBIAN_FLUIDR3 = Path("/usr/share/sounds/sf2/FluidR3_GM.sf2")


def _pretty_midi_soundfont() -> Path | None:
    spec = importlib.util.find_spec("pretty_midi")  # locate the wheel without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "TimGM6mb.sf2"


def default_candidates() -> list[Path]:
    """The built-in places to look, in order, after the environment variable."""
    found = [DEBIAN_FLUIDR3]
    bundled = _pretty_midi_soundfont()
    if bundled is not None:
        found.append(bundled)
    return found


def find_soundfont(candidates: Sequence[Path] | None = None) -> Path:
    """The SoundFont to use; SoundFontNotFound (naming $BANDSTAND_SOUNDFONT) if there is none."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise SoundFontNotFound(
                f"${ENV_VAR} points to {path}, which is not a file; set it to a General MIDI .sf2",
                path=str(path),
            )
        with path.open("rb") as fh:
            header = fh.read(12)
        if header[:4] != b"RIFF" or header[8:12] != b"sfbk":
            raise SoundFontNotFound(
                f"${ENV_VAR} points to {path}, which is not a SoundFont (.sf2); set it to a General MIDI .sf2",
                path=str(path),
            )
        return path
    for path in default_candidates() if candidates is None else candidates:
        if path.is_file():
            return path
    raise SoundFontNotFound(
        f"no General MIDI SoundFont found; set ${ENV_VAR} to a .sf2 file "
        f"(or install Debian's fluid-soundfont-gm, or pip install pretty_midi)"
    )
