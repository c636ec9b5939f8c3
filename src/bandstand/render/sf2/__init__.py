"""A SoundFont 2 synthesizer in numpy that plays as TinySoundFont does (so bandstand needs
no compiled synthesis binding): `parse` reads the file, `Synth` plays it."""

from bandstand.render.sf2.parse import SoundFont, SoundFontError, parse
from bandstand.render.sf2.synth import Synth

__all__ = ["SoundFont", "SoundFontError", "Synth", "parse"]
