"""Where each number lives in the compiled engine's arrays (`engine.py`): the SoundFont's
regions as rows of one float64 table, and the state of voices, channels and the run as rows of
float64 and int64 arrays. Plain integers, so numba reads them as constants."""

from __future__ import annotations

# -- a region: one row of the font table (float64; integers and float32 values are exact in it)
R_LOOP_MODE = 0
R_SAMPLE_RATE = 1
R_LOKEY = 2
R_HIKEY = 3
R_LOVEL = 4
R_HIVEL = 5
R_GROUP = 6
R_OFFSET = 7
R_END = 8
R_LOOP_START = 9
R_LOOP_END = 10
R_TRANSPOSE = 11
R_TUNE = 12
R_KEYCENTER = 13
R_KEYTRACK = 14
R_ATTENUATION = 15
R_PAN = 16
R_AMPENV = 17  # 8 columns: delay, attack, hold, decay, sustain, release, keynum→hold, keynum→decay
R_MODENV = 25  # the same 8
R_FILTER_Q = 33
R_FILTER_FC = 34
R_MODENV_TO_PITCH = 35
R_MODENV_TO_FC = 36
R_MODLFO_TO_FC = 37
R_MODLFO_TO_VOLUME = 38
R_MODLFO_DELAY = 39
R_MODLFO_FREQ = 40
R_MODLFO_TO_PITCH = 41
R_VIBLFO_DELAY = 42
R_VIBLFO_FREQ = 43
R_VIBLFO_TO_PITCH = 44
REGION_COLUMNS = 45

# -- a voice's numbers (float64 row)
V_POSITION = 0
V_GAIN_DB = 1
V_PAN_LEFT = 2
V_PAN_RIGHT = 3
V_PITCH_CENTS = 4
V_PITCH_FACTOR = 5
V_Q_INV = 6
V_Z1 = 7
V_Z2 = 8
V_CUTOFF = 9  # the cutoff the coefficients were computed for (NaN: none yet)
V_A0 = 10
V_A1 = 11
V_B1 = 12
V_B2 = 13
V_RATIO = 14  # the pitch ratio while the pitch holds still (NaN: to compute)
V_AMPENV = 15  # an envelope's floats: level, slope, its 6 stages (delay … release), slope^64 and the slope it is of
V_MODENV = 25
V_MODLFO = 35  # an LFO's floats: level, delta
V_VIBLFO = 37
V_GAIN = 39  # the note's gain (float32) and the dB it is of
V_GAIN_OF = 40
VOICE_FLOATS = 41
ENV_LEVEL = 0
ENV_SLOPE = 1
ENV_STAGES = 2  # + 0 delay, 1 attack, 2 hold, 3 decay, 4 sustain, 5 release
ENV_POW = 8  # slope ** 64 (float32): the step of a whole block of an exponential segment
ENV_POW_OF = 9  # the slope ENV_POW was computed for

# -- a voice's integers (int64 row)
I_ACTIVE = 0
I_REGION = 1
I_PRESET = 2
I_KEY = 3
I_CHANNEL = 4
I_PLAY_INDEX = 5
I_LOOP_START = 6
I_LOOP_END = 7
I_AMPENV = 8  # an envelope's integers: segment, exponential, samples left
I_MODENV = 11
I_MODLFO_WAIT = 14  # an LFO's delay left
I_VIBLFO_WAIT = 15
I_SUSTAINED = 16  # released by its key while the pedal was down: released when it comes up
I_FILTER_ON = 17
I_VELOCITY = 18  # the MIDI velocity (the modulation attack shortens with it)
VOICE_INTS = 19
ENV_SEGMENT = 0
ENV_EXPONENTIAL = 1
ENV_UNTIL = 2

# -- a channel's numbers (float64 row, int64 row)
C_PAN_OFFSET = 0
C_GAIN_DB = 1
C_BEND_RANGE = 2
C_TUNING = 3
CHANNEL_FLOATS = 4
C_PRESET = 0
C_BANK = 1
C_WHEEL = 2
C_MIDI_PAN = 3
C_MIDI_VOLUME = 4
C_MIDI_EXPRESSION = 5
C_RPN = 6
C_DATA = 7
C_PEDAL = 8
CHANNEL_INTS = 9

# -- the run (int64)
G_PLAY_INDEX = 0  # note-ons so far
G_POSITION = 1  # frames rendered
G_SLICE = 2  # the first frame of the current slice
G_EVENT = 3  # events applied
G_SILENT = 4  # whether the last finished slice was silence
G_FIRST = 5  # the first and end frames of the slices that were not silence
G_END = 6
G_PHASE = 7  # 0 events to play, 1 only releases ring
G_ERROR = 8  # a program change no preset answers (the program number + 1)
G_PEDAL = 9  # whether the sustain pedal (CC64) is honoured
G_VOICE_FRAMES = 10  # frames played, summed over the voices (what the synthesis cost)
RUN_INTS = 11

# -- an event (int64 row)
E_FRAME = 0
E_KIND = 1
E_CHANNEL = 2
E_A = 3
E_B = 4
EVENT_INTS = 5
