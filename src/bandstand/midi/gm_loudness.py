"""How loud each General MIDI sound is: every program playing the same phrase (quarter notes
at velocity 100, one at a time), in dB against the acoustic grand piano, and the GM drum kit
playing a plain 4/4 groove (kick and snare on the beats, eighth-note hats) against the same
piano. Measured with pyloudnorm on the stems of bandstand's default SoundFont (TimGM6mb, the
one the pretty_midi wheel ships) by `benchmarks/gm_loudness.py`, which prints this table anew.

The sounds of a General MIDI set differ by up to 30 dB (a soft piano, a loud sawtooth), so a
mix that sets its faders by role alone hears whichever sound is loudest; `craft.balance`
reads these figures to set each fader for the sound behind it.
"""

from __future__ import annotations

__all__ = ["DRUM_KIT_DB", "DRUM_NOTE_DB", "KIT_LOUDNESS_DB", "PROGRAM_LOUDNESS_DB", "SUSTAINED_PROGRAMS"]

PROGRAM_LOUDNESS_DB: dict[int, float] = {
    0: 0.0, 1: -0.3, 2: 0.8, 3: -2.0, 4: 6.6, 5: 2.3, 6: -0.7, 7: 2.1,
    8: 1.3, 9: 8.6, 10: 6.4, 11: 11.9, 12: 4.8, 13: 3.7, 14: 14.8, 15: -0.8,
    16: 6.6, 17: 7.9, 18: 2.9, 19: 4.0, 20: 6.8, 21: 3.2, 22: 7.8, 23: 2.9,
    24: 9.1, 25: 4.4, 26: 10.6, 27: 4.4, 28: 8.8, 29: 5.5, 30: 8.7, 31: 7.6,
    32: 10.0, 33: 13.2, 34: 9.2, 35: 12.0, 36: 11.6, 37: 6.2, 38: 11.1, 39: 13.9,
    40: 10.1, 41: 10.2, 42: 10.6, 43: 8.9, 44: 10.8, 45: 5.7, 46: 16.2, 47: 7.3,
    48: 5.6, 49: 4.9, 50: -1.0, 51: 8.3, 52: 9.5, 53: 4.6, 54: 7.2, 55: 4.7,
    56: 12.4, 57: 5.9, 58: 10.0, 59: 6.0, 60: 16.6, 61: 4.9, 62: 7.3, 63: 12.1,
    64: 12.5, 65: 11.7, 66: 8.9, 67: 7.9, 68: 13.4, 69: 8.4, 70: 7.0, 71: 9.5,
    72: 7.7, 73: 13.6, 74: 8.7, 75: 5.8, 76: 5.3, 77: 13.5, 78: 15.2, 79: 16.3,
    80: 2.0, 81: 4.1, 82: 11.3, 83: 11.8, 84: 5.2, 85: 12.9, 86: 12.2, 87: 12.9,
    88: 12.8, 89: 7.2, 90: 4.7, 91: 9.6, 92: 10.5, 93: 5.0, 94: 8.2, 95: 4.2,
    96: 14.3, 97: 12.4, 98: 11.5, 99: 10.1, 100: 14.1, 101: 1.7, 102: 13.1, 103: 13.9,
    104: 5.1, 105: 10.6, 106: 7.1, 107: 11.6, 108: 10.3, 109: 12.6, 110: 9.3, 111: 14.8,
    112: 9.1, 113: 7.2, 114: 7.9, 115: 4.5, 116: 8.3, 117: -0.4, 118: 9.3, 119: -15.6,
    120: -2.5, 121: -18.3, 122: 14.5, 123: 11.8, 124: 10.8, 125: -10.9, 126: -7.6, 127: 1.7,
}
DRUM_KIT_DB = 8.8  # the GM kit's 4/4 groove (three hits a beat at velocity 100) against the piano
# The same groove on each GS kit (channel 10's program, `midi.DRUM_KITS`): the room kit's ambience
# stands 3.5 dB above the standard kit, the brushes 5.7 dB under it.
KIT_LOUDNESS_DB: dict[int, float] = {0: 8.8, 8: 12.3, 16: 9.0, 24: 11.1, 25: 8.6, 32: 8.8, 40: 3.1, 48: 8.2}
# Each GM drum note struck alone, three times a beat at velocity 100, against that groove (dB): the
# kick and snare carry a kit's loudness, the hats and ride (−12 to −14) and the shaker (−8.5) hardly
# move the meter, a cross-stick sits 3 dB under the kick — so a groove of brushed hats and a
# cross-stick measures far quieter than a backbeat with as many hits.
DRUM_NOTE_DB: dict[int, float] = {
    35: 1.5, 36: 1.3, 37: -3.3, 38: 4.9, 39: 0.5, 40: 4.0, 41: 5.7, 42: -12.2,
    43: 5.5, 44: -13.1, 45: 5.3, 46: -10.7, 47: 4.1, 48: 4.6, 49: 0.9, 50: 4.3,
    51: -13.8, 52: -2.0, 53: -14.4, 54: -0.6, 55: -1.9, 56: -5.3, 57: 1.2, 58: -7.7,
    59: -14.5, 60: -3.3, 61: 0.3, 62: -6.7, 63: 0.0, 64: 3.7, 65: 3.8, 66: 4.6,
    67: -1.4, 68: -0.6, 69: -1.0, 70: -8.5, 71: 6.2, 72: 2.4, 73: -1.0, 74: -3.7,
    75: 1.6, 76: -0.4, 77: 0.5, 78: 2.5, 79: -0.3, 80: -15.3, 81: -14.9,
}

# Sounds that hold as long as the key is down (organs, bowed strings, winds, brass, synth
# leads and pads, choirs); the others (pianos, mallets, plucked strings, basses) die away.
SUSTAINED_PROGRAMS = frozenset({*range(16, 24), 40, 41, 42, 43, 44, *range(48, 56), *range(56, 104), 109, 110, 111})
