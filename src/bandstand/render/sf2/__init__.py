"""bandstand's SoundFont 2 synthesizer, which plays as TinySoundFont does (so bandstand needs
no synthesis binding): `parse` reads the file; `engine` (compiled by numba) plays a whole
track per call from the font's `table`; `Synth` is the per-event numpy port with the
binding's interface, the fallback where numba cannot run."""

from bandstand.render.sf2.parse import SoundFont, SoundFontError, parse
from bandstand.render.sf2.synth import Synth

__all__ = ["SoundFont", "SoundFontError", "Synth", "parse"]
