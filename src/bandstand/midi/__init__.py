"""Standard MIDI Files: write a Song as format 1 at 480 PPQ (a conductor track
then one track per part, channels by role), read any file back into a Song,
and the General MIDI program and drum tables."""

from bandstand.midi._keys import KeySignature, key_name, key_signature
from bandstand.midi._limits import MIDI_LIMITS, MidiLimits
from bandstand.midi._read import midi_bytes_to_song, read_midi
from bandstand.midi._roles import guess_role
from bandstand.midi._write import PPQ, beats_to_ticks, song_to_midi_bytes
from bandstand.midi.files import write_midi
from bandstand.midi.gm import GM_DRUMS, GM_PROGRAMS, DrumMap, program_by_name

__all__ = [
    "GM_DRUMS",
    "GM_PROGRAMS",
    "MIDI_LIMITS",
    "PPQ",
    "DrumMap",
    "KeySignature",
    "MidiLimits",
    "beats_to_ticks",
    "guess_role",
    "key_name",
    "key_signature",
    "midi_bytes_to_song",
    "program_by_name",
    "read_midi",
    "song_to_midi_bytes",
    "write_midi",
]
