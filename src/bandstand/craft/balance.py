"""The mix by role: how loud each role's stem should sit (LU against the drums, moved by
the genre's family) — the one table of balance targets — and the fader that puts a part
there given the sound that plays it (`midi.gm_loudness`) and its notes (how many, how loud,
how long they ring).

A part's predicted loudness is its sound's figure plus what its notes add against the
reference phrase (one note a beat at velocity 100): 20·log10(velocity/100) per note
(measured: −3.9 dB at 64, +2.1 dB at 127), held notes counted by their length on sustained
sounds and by length^0.4 on sounds that die away (a piano's 0.2-beat stab measured −2.7 dB),
notes sounding together adding their power (four a beat measured +3.8 dB); a drum hit counts
by the drum it strikes (`midi.gm_loudness.DRUM_NOTE_DB`: the kick and snare carry a kit's
loudness, hats, ride and shaker barely move the meter), against the plain groove the kit's
figure was measured on. The fader is the target minus that prediction; `benchmarks/songwriting.py --mix` measures the stems it gives.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from bandstand.midi.gm_loudness import (
    DRUM_KIT_DB,
    DRUM_NOTE_DB,
    KIT_LOUDNESS_DB,
    PROGRAM_LOUDNESS_DB,
    SUSTAINED_PROGRAMS,
)
from bandstand.score import Note

__all__ = ["BALANCE", "FADER_RANGE", "REFERENCE", "ROLE_BIAS_DB", "balance_targets", "fader_db", "notes_db", "top_gap"]

# role → LU against the drums; "*" the roles of every family, a family's row moves them.
BALANCE: dict[str, dict[str, float]] = {
    "*": {"drums": 0.0, "bass": -1.0, "sub_bass": -1.0, "lead": -2.0, "chords": -3.5, "pad": -7.0, "arp": -6.0,
          "counter_melody": -5.0, "percussion": -8.0, "texture": -14.0, "fx": -12.0},
    "electronic": {"chords": -1.0, "lead": -1.0, "bass": 0.5, "sub_bass": 0.5},
    "hip-hop": {"bass": 0.5, "sub_bass": 0.5, "lead": -1.5},
    "ambient": {"drums": -6.0, "pad": 5.0, "bass": -2.0},
    "classical": {"drums": -6.0, "pad": 3.0, "chords": 1.5, "lead": 1.5},
    "jazz": {"drums": -2.0, "chords": 1.0},
    "rock": {"chords": 1.5},
    "folk": {"chords": 1.0, "lead": 1.0},
    # a band behind a singer: the guitars and the fiddle carry the record, the kit (a train beat) and the
    # two-beat bass sit under them, as on a Nashville session record
    "country": {"drums": -6.0, "bass": -3.0, "chords": 1.0},
    "blues": {"drums": -4.0, "lead": 3.0},  # the harp or the guitar is the singer: a slow blues' kit lays back under it
    "soul": {"drums": -1.5},
}
# What a role's stem measures beyond the model above (its insert chain — the drums' and the
# bass's compressors, the lead's echo — and how it plays), dB: the mean residual of 15 songs
# of 15 genres measured by `benchmarks/songwriting.py --mix` (spread 1.2–2.5 dB). The drums' figure
# was −2.8 while every hit counted alike: the hits' model then read a kit's notes 2.4 dB under what
# their stems measure (mean of 25 songs' drum parts rendered alone; spread 2.1 dB), and counting
# each hit by its drum and the kit by its own figure leaves no mean residual (spread 0.9 dB), so
# the drums' stem is now only its compressor's cut: −2.8 − 2.4.
ROLE_BIAS_DB: dict[str, float] = {"drums": -5.2, "percussion": -5.2, "bass": -3.2, "sub_bass": -3.2, "lead": 3.9,
                                  "counter_melody": 3.9, "chords": 1.6, "arp": 1.6, "pad": -0.3}
FADER_RANGE = (-30.0, 3.5)  # dB: the faders a plan may set
REFERENCE = 0.9  # the reference phrase's power per beat (one 0.9-beat note at velocity 100)


def _drum_weight(note: int) -> float:
    return float(10.0 ** (DRUM_NOTE_DB.get(note, 0.0) / 10.0))


# The plain groove `DRUM_KIT_DB` was measured on, a hit's mean weight: a kick or a snare and two
# closed hats a beat. A groove of the same drums counts 0 dB; one of cross-sticks and brushed
# hats counts what those drums measure (a bossa nova's kit ~7 dB under a backbeat's).
_GROOVE_WEIGHT = (_drum_weight(36) / 2 + _drum_weight(38) / 2 + 2 * _drum_weight(42)) / 3


def balance_targets(roles: Sequence[str], family: str) -> dict[str, float]:
    """Each role's target loudness (LU against the drums) in a song of `family`."""
    moves = BALANCE.get(family, {})
    return {r: BALANCE["*"].get(r, -6.0) + moves.get(r, 0.0) for r in roles}


def top_gap(targets: Mapping[str, float]) -> float:
    """How far the loudest role is meant to stand above the next (0 with fewer than two)."""
    ranked = sorted(targets.values(), reverse=True)
    return ranked[0] - ranked[1] if len(ranked) > 1 else 0.0


def notes_db(notes: Sequence[Note], program: int, is_drum: bool, beats_per_bar: float) -> float:
    """What a part's notes add to its sound's figure, against the reference phrase, over the
    bars it plays in (the loudness meter gates the silence out)."""
    if not notes:
        return 0.0
    bars = {int(n.start // beats_per_bar) for n in notes}
    beats = max(1.0, len(bars) * beats_per_bar)
    sustained = program in SUSTAINED_PROGRAMS
    power = 0.0
    for n in notes:
        level = (n.velocity / 100.0) ** 2
        if is_drum:  # a drum rings the same whatever the note's length; the kit's figure is three hits a beat
            power += level * REFERENCE / 3.0 * _drum_weight(n.pitch) / _GROOVE_WEIGHT
        else:
            power += level * (min(n.duration, 8.0) if sustained else min(n.duration, 2.0) ** 0.4 * REFERENCE ** 0.6)
    return 10.0 * math.log10(max(power / beats, 1e-9) / REFERENCE)


def fader_db(role: str, target: float, program: int, is_drum: bool, notes: Sequence[Note] | None = None,
             beats_per_bar: float = 4.0) -> float:
    """The fader (dB) that puts `role`'s part playing `notes` on `program` at `target` LU against
    the drums (against a plain groove on the GM kit at 0 dB): the drums' figure less the sound's
    figure, less what its notes add and what its role's stem adds (`ROLE_BIAS_DB`), within
    `FADER_RANGE`."""
    sound = KIT_LOUDNESS_DB.get(program, DRUM_KIT_DB) if is_drum else PROGRAM_LOUDNESS_DB[program]
    played = notes_db(notes, program, is_drum, beats_per_bar) if notes is not None else 0.0
    lo, hi = FADER_RANGE
    level = target + DRUM_KIT_DB - sound - played - ROLE_BIAS_DB.get(role, 0.0) + ROLE_BIAS_DB["drums"]
    return round(max(lo, min(hi, level)), 2)
