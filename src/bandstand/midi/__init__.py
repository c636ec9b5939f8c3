"""Standard MIDI Files: write a Song as format 1 at 480 PPQ (a conductor track
then one track per part, channels by role), read any file back into a Song,
and the General MIDI program and drum tables (with Strudel's soundfont names)."""

from bandstand.midi._keys import KeySignature, key_name, key_signature
from bandstand.midi._limits import MIDI_LIMITS, MidiLimits
from bandstand.midi._read import midi_bytes_to_song, read_midi
from bandstand.midi._roles import guess_role, guess_roles
from bandstand.midi._write import PPQ, beats_to_ticks, song_to_midi_bytes
from bandstand.midi.files import write_midi
from bandstand.midi.gm import (
    DRUM_KITS,
    GM_DRUMS,
    GM_PROGRAMS,
    STRUDEL_SOUNDFONTS,
    DrumMap,
    drum_kit_of_bank,
    program_by_name,
    program_by_soundfont,
)

__all__ = [
    "DRUM_KITS",
    "GM_DRUMS",
    "GM_PROGRAMS",
    "MIDI_LIMITS",
    "PPQ",
    "STRUDEL_SOUNDFONTS",
    "DrumMap",
    "KeySignature",
    "MidiLimits",
    "beats_to_ticks",
    "drum_kit_of_bank",
    "guess_role",
    "guess_roles",
    "key_name",
    "key_signature",
    "midi_bytes_to_song",
    "program_by_name",
    "program_by_soundfont",
    "read_midi",
    "song_to_midi_bytes",
    "write_midi",
]
