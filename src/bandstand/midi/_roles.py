"""Guessing a part's role (drums, bass, chords, lead, pad, fx) for tracks of
MIDI files we did not write: first from words in the track name, then from
the drum channel, then from the GM program family, then from the channel; or, for a file
to import, from what the tracks play beside each other (`guess_roles`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bandstand.midi.gm import GM_PROGRAMS
from bandstand.score import CHANNEL_BY_ROLE, DRUM_CHANNEL, Track

# Words in a track name, checked in order (the first hit wins).
_NAME_WORDS: tuple[tuple[str, str], ...] = (
    ("drum", "drums"), ("kit", "drums"), ("perc", "drums"), ("kick", "drums"), ("beat", "drums"),
    ("bass", "bass"), ("pad", "pad"), ("string", "pad"), ("choir", "pad"),
    ("lead", "lead"), ("melody", "lead"), ("vocal", "lead"), ("voice", "lead"), ("solo", "lead"),
    ("chord", "chords"), ("key", "chords"), ("piano", "chords"), ("guitar", "chords"),
    ("comp", "chords"), ("organ", "chords"), ("fx", "fx"), ("effect", "fx"),
)  # fmt: skip

# GM program families (eight programs each) → role.
_FAMILY_ROLES: tuple[str, ...] = (
    "chords", "lead", "chords", "chords",  # piano, chromatic percussion, organ, guitar
    "bass", "pad", "pad", "lead",  # bass, strings, ensemble, brass
    "lead", "lead", "lead", "pad",  # reed, pipe, synth lead, synth pad
    "fx", "lead", "fx", "fx",  # synth effects, ethnic, percussive, sound effects
)
_ROLE_BY_CHANNEL = {channel: role for role, channel in CHANNEL_BY_ROLE.items()}


def guess_role(name: str, channel: int, program: int) -> str:
    """The most likely role of a track from its name, channel and GM program."""
    lowered = name.lower()
    for word, role in _NAME_WORDS:
        if re.search(rf"\b{word}", lowered):
            return role
    if channel == DRUM_CHANNEL:
        return "drums"
    if program == 0 and channel in _ROLE_BY_CHANNEL:
        return _ROLE_BY_CHANNEL[channel]
    return _FAMILY_ROLES[program // 8]


def track_display_name(channel: int, program: int) -> str:
    """A name for an unnamed track: "Drums" on the drum channel, else the GM program name."""
    return "Drums" if channel == DRUM_CHANNEL else GM_PROGRAMS[program]


POLYPHONIC = 0.25
"""Share of a track's notes struck while another of its notes sounds, from which it plays chords."""
BASS_BELOW = 55
"""A lone single-line track whose mean pitch is below this (G3) is the bass; above, the lead."""


def _polyphony(track: Track) -> float:
    notes = sorted(track.notes, key=lambda n: n.start)
    held, overlapping = 0.0, 0
    for note in notes:
        if note.start < held - 1e-9:
            overlapping += 1
        held = max(held, note.start + note.duration)
    return overlapping / len(notes) if notes else 0.0


def _mean_pitch(track: Track) -> float:
    return sum(n.pitch for n in track.notes) / len(track.notes)


def guess_roles(tracks: Sequence[Track]) -> list[str]:
    """Each track's role from the notes of all of them (for a MIDI file to import): a role word
    in its name first (a name the reader gave an unnamed track, its GM program's, is no name); then the drum channel → drums; a track whose notes overlap
    (`POLYPHONIC`) → chords; of the single-line tracks, the lowest → bass and the highest →
    lead (a lone one by its register, `BASS_BELOW`); any other by its GM program."""
    roles: list[str | None] = []
    for track in tracks:
        lowered = "" if track.name == track_display_name(0, track.program) else track.name.lower()  # unnamed
        named = next((role for word, role in _NAME_WORDS if re.search(rf"\b{word}", lowered)), None)
        if named is None and track.is_drum:
            named = "drums"
        if named is None and track.notes and _polyphony(track) >= POLYPHONIC:
            named = "chords"
        roles.append(named)
    lines = sorted((i for i, r in enumerate(roles) if r is None and tracks[i].notes),
                   key=lambda i: _mean_pitch(tracks[i]))
    taken = set(roles)
    if len(lines) == 1:
        only = lines[0]
        roles[only] = "bass" if _mean_pitch(tracks[only]) < BASS_BELOW and "bass" not in taken else "lead"
    elif lines:
        if "bass" not in taken:
            roles[lines[0]] = "bass"
        if "lead" not in taken:
            roles[lines[-1]] = "lead"
    return [role if role is not None else _FAMILY_ROLES[t.program // 8] for role, t in zip(roles, tracks, strict=True)]
