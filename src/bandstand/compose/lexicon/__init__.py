"""The compose lexicons: genres, artists, mood words and instruments, and the
two lookups every generator uses — `genre_traits(name)` for one genre and
`primary_genre(intent)` for the blend of the genres an intent asks for."""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import TYPE_CHECKING

from bandstand.compose.lexicon.artists import ARTIST_BY_NAME, ARTISTS, Artist
from bandstand.compose.lexicon.genres import (
    ALIAS_OWNERS,
    ALIASES,
    BASS_STYLES,
    COMP_STYLES,
    DRUM_FAMILIES,
    GENRE_BY_NAME,
    GENRES,
    HARMONY_FAMILIES,
    LEAD_STYLES,
    GenreTraits,
)
from bandstand.compose.lexicon.instruments import INSTRUMENTS, Instrument
from bandstand.compose.lexicon.moods import MOOD_BY_LABEL, MOODS, Mood
from bandstand.errors import InvalidInput

if TYPE_CHECKING:
    from bandstand.compose.models.intent import Intent

__all__ = [
    "ALIAS_OWNERS", "ARTISTS", "ARTIST_BY_NAME", "BASS_STYLES", "COMP_STYLES", "DEFAULT_GENRE", "DRUM_FAMILIES",
    "GENRES", "GENRE_BY_NAME", "HARMONY_FAMILIES", "INSTRUMENTS", "LEAD_STYLES", "MOODS",
    "MOOD_BY_LABEL", "Artist", "GenreTraits", "Instrument", "Mood", "genre_traits", "primary_genre",
]

DEFAULT_GENRE = "hip-hop"
LOW_ENERGY = 0.5

# A structure hint that names a drum feel overrides the blended genre's drums.
_DRUM_HINTS = {
    "four-on-the-floor": "four_on_floor", "half-time": "halftime", "breakbeat": "breakbeat",
    "shuffle": "shuffle", "2-step": "two_step",
}
# A half-time feel (the tempo read as half of itself) plays the family's half-time
# groove: the backbeat on 3 and the hats of the perceived tempo. Families already
# felt in half time (trap, drum & bass, dubstep's halftime) keep their own.
_HALF_TIME_DRUMS = {
    "two_step": "garage_halftime", "four_on_floor": "halftime", "boom_bap": "halftime",
    "rock_backbeat": "halftime", "breakbeat": "halftime", "funk": "halftime", "dembow": "halftime",
}


def genre_traits(name: str) -> GenreTraits:
    """The traits of genre `name` (canonical name or any alias, any case)."""
    key = name.strip().lower()
    canonical = ALIASES.get(key)
    if canonical is None:
        close = difflib.get_close_matches(key, list(ALIASES), n=1)
        hint = f"; did you mean '{ALIASES[close[0]]}'?" if close else ""
        raise InvalidInput(f"unknown genre '{name}'{hint}", genre=name)
    return GENRE_BY_NAME[canonical]


def _rhythm_donor(genres: list[GenreTraits], bpm: float) -> GenreTraits:
    """The genre that decides the groove: the most specific one whose range holds the tempo."""
    holding = [g for g in genres if g.tempo_range[0] <= bpm <= g.tempo_range[1]]
    if not holding:
        return genres[0]
    return min(holding, key=lambda g: (g.tempo_range[1] - g.tempo_range[0], genres.index(g)))


def primary_genre(intent: Intent) -> GenreTraits:
    """The blended traits the generators play: harmony, comping, chords, lead colour from the
    first genre; drums, bass, lead style and swing from the genre that owns the tempo;
    the form from the tempo's genre too unless the song is low-energy, when the first
    genre's (song) form fits better than a club form; dials from the intent; a drum-feel
    structure hint wins over both."""
    genres = [GENRE_BY_NAME[g] for g in intent.genre if g in GENRE_BY_NAME]
    if not genres:
        genres = [GENRE_BY_NAME[DEFAULT_GENRE]]
    harmony = genres[0]
    rhythm = _rhythm_donor(genres, intent.tempo)
    dials = (intent.creativity_dials.harmonic, intent.creativity_dials.rhythmic)
    drum_family = rhythm.drum_family
    for hint in intent.structure_hints:
        drum_family = _DRUM_HINTS.get(hint, drum_family)
    if intent.tempo_analysis.half_time:
        drum_family = _HALF_TIME_DRUMS.get(drum_family, drum_family)
    if rhythm is harmony:
        return _played(replace(harmony, dials=dials, drum_family=drum_family, swing=intent.genre_dna.swing), intent)
    programs = dict(harmony.instrumentation)
    programs["bass"] = rhythm.program("bass")
    return _played(replace(
        harmony,
        name=f"{harmony.name} × {rhythm.name}",
        tempo_range=rhythm.tempo_range,
        swing=round((harmony.swing + 2 * rhythm.swing) / 3, 3),
        drum_family=drum_family,
        bass_style=rhythm.bass_style,
        comp_style=harmony.comp_style,  # the keys follow the harmony's genre (neo-soul Rhodes over garage drums)
        lead_style=rhythm.lead_style,
        kit=rhythm.kit,
        instrumentation=tuple(programs.items()),
        dials=dials,
        form=harmony.form if (intent.energy is not None and intent.energy < LOW_ENERGY) else rhythm.form,
        energy=round((harmony.energy + rhythm.energy) / 2, 3),
        electronic=round((harmony.electronic + rhythm.electronic) / 2, 3),
    ), intent)


def _played(traits: GenreTraits, intent: Intent) -> GenreTraits:
    """The genre as the instruments the prompt names play it: a ukulele strums the chords,
    a banjo rolls them, an 808 slides under the song (`Instrument.plays`); an organ holds the
    chords it is given, except where the genre's own comping is an organ's (`Instrument.keeps`)."""
    turns: dict[str, str] = {}
    touches: list[str] = []  # a music box, a güiro: added on top, in the order named
    for request in intent.instrument_requests:
        named = [(i.named_by(request.text), i) for i in INSTRUMENTS if i.role == request.role]
        length, instrument = max(named, key=lambda m: m[0], default=(0, None))
        if length and instrument is not None:
            touches.extend(v for k, v in instrument.plays if k == "touch" and v not in touches)
            turns.update((k, v) for k, v in instrument.plays
                         if k != "touch" and getattr(traits, k) not in instrument.keeps)
    if touches:
        traits = replace(traits, touches=(*traits.touches, *(t for t in touches if t not in traits.touches)))
    return replace(traits, **turns) if turns else traits  # type: ignore[arg-type]
