"""A genre as data: the traits the generators read (`GenreTraits`), the closed
vocabularies of drum feels, harmony families and bass, comping and lead styles the
part generators share, and `row`, the one-line builder the genre tables use."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BASS_STYLES", "COMP_STYLES", "DRUM_FAMILIES", "HARMONY_FAMILIES", "LEAD_STYLES", "GenreTraits", "row"]

DRUM_FAMILIES = frozenset({
    "boom_bap", "trap", "four_on_floor", "two_step", "breakbeat", "dnb", "jazz_ride",
    "rock_backbeat", "dembow", "afrobeat", "bossa", "funk", "shuffle", "one_drop",
    "halftime", "ambient", "garage_halftime", "metal", "punk", "synthpop", "waltz", "cinematic",
})
HARMONY_FAMILIES = frozenset({
    "neosoul", "jazz", "trap", "house", "pop", "rock", "lofi", "ambient", "gospel",
    "blues", "latin", "afrobeat", "edm", "funk", "dnb", "techno", "cinematic", "metal", "punk", "waltz",
    "folk", "klezmer", "andalusian", "baroque",
})
BASS_STYLES = frozenset({
    "two_beat", "marcato", "sub_808", "root_fifth", "walking", "synth_pulse", "syncopated_funk", "reggae",
    "dnb_reese", "tumbao", "picked_rock", "sustained", "offbeat", "oom", "driving_eighths", "ostinato",
})
COMP_STYLES = frozenset({
    "stabs", "sustained", "jazz_comp", "offbeat_skank", "arpeggiated", "strummed",
    "gospel_shout", "piano_ballad", "house_chops", "power_chords", "palm_mute", "oompah", "bossa_comp",
    "ostinato", "uke_strum", "banjo_roll", "bellows", "tango_marcato", "harpsichord", "tremolo", "wall_of_sound",
    "rhodes_comp", "drawbar", "clav_chops", "picked",
    "boogie", "chicken_scratch",
})
LEAD_STYLES = frozenset({"hook", "sparse", "lyrical", "riffy", "bebop", "ambient"})
# The drum kit (a GS kit program on channel 10, `midi.DRUM_KITS`) a genre family's band plays: a
# live kit in a room for blues, country, soul, funk and folk bands, the jazz kit for a combo; the
# standard kit for the rest (rock's too: the room kit's gated snare read as an 80s record).
KITS: dict[str, int] = {"blues": 8, "country": 8, "soul": 8, "funk": 8, "folk": 8, "jazz": 32}
# A genre whose kit is not its family's: the 12/8 slow jam is played with brushes (the GS brush kit;
# musicnn heard "soul" 19th on the room kit, 7th with brushes).
OWN_KITS: dict[str, int] = {"r&b": 40}


@dataclass(frozen=True, slots=True)
class GenreTraits:
    """What a genre sounds like, as data the generators read."""

    name: str
    family: str
    tempo_range: tuple[float, float]
    swing: float
    modes: tuple[str, ...]
    keys: tuple[str, ...]
    drum_family: str
    harmony_family: str
    bass_style: str
    comp_style: str
    lead_style: str
    instrumentation: tuple[tuple[str, int], ...]
    dials: tuple[float, float]
    form: str
    energy: float
    electronic: float
    aliases: tuple[str, ...] = field(default=())
    meter: tuple[int, int] = (4, 4)  # the time signature when the prompt names none
    extras: tuple[str, ...] = ()  # roles the genre brings beyond the core five (synthpop's arpeggio)
    kit: str = ""  # the genre whose drum kit plays (`craft.genre_kits`): its own, or the rhythm's in a blend
    leaves_out: tuple[str, ...] = ()  # core roles the idiom has no place for (bluegrass: no drum kit, no pad)
    touches: tuple[str, ...] = ()  # what named instruments add on top (`craft.plays_instruments.TOUCHES`)

    @property
    def default_tempo(self) -> float:
        lo, hi = self.tempo_range
        return round((lo + hi) / 2)

    def program(self, role: str, default: int = 0) -> int:
        """The GM program (0-based) this genre uses for `role`."""
        return dict(self.instrumentation).get(role, default)

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(role for role, _ in self.instrumentation)


def row(name: str, family: str, aliases: str, tempo: tuple[float, float], swing: float, modes: str,
       keys: str, styles: str, programs: tuple[int, int, int, int], dials: tuple[float, float],
       form: str, energy: float, electronic: float, meter: tuple[int, int] = (4, 4),
       extras: tuple[str, ...] = (), leaves_out: str = "") -> GenreTraits:
    drum, harmony, bass, comp, lead = styles.split()
    b, c, ld, p = programs
    return GenreTraits(
        name=name, family=family, tempo_range=tempo, swing=swing,
        modes=tuple(modes.split(",")), keys=tuple(keys.split()),
        drum_family=drum, harmony_family=harmony, bass_style=bass, comp_style=comp,
        lead_style=lead,
        instrumentation=(("drums", OWN_KITS.get(name, KITS.get(family, 0))), ("bass", b), ("chords", c), ("lead", ld), ("pad", p)),
        dials=dials, form=form, energy=energy, electronic=electronic,
        aliases=tuple(a.strip() for a in aliases.split("|") if a.strip()), meter=meter, extras=extras,
        kit=name, leaves_out=tuple(leaves_out.split()),
    )
