"""Instrument words → the role that plays them and a General MIDI program (0-based).

`MODIFIERS` are adjectives kept with the instrument in a request's text
("lo-fi piano", "upright bass"); `ROLE_WORDS` name roles directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.craft.roles import DEFAULT_PROGRAMS


@dataclass(frozen=True, slots=True)
class Instrument:
    """Words that name an instrument, the role and GM program that play it, and how it
    plays: genre traits it turns (a ukulele strums, an 808 slides) on top of the genre."""

    words: tuple[str, ...]
    role: str
    program: int | None
    plays: tuple[tuple[str, str], ...] = ()
    genres: tuple[str, ...] = ()  # the genres it suggests when the prompt names none (a banjo: bluegrass)
    keeps: tuple[str, ...] = ()  # the genre's own styles it plays as they are (a gospel organ shouts)
    # programs the word names too: when the genre already plays one of them on the role, that one
    # is heard (a rock band's "guitar" is its overdriven electric, a folk singer's the steel-string)
    covers: frozenset[int] = frozenset()

    def named_by(self, text: str) -> int:
        """How much of `text` (an instrument request, maybe with a modifier: "lo-fi piano")
        names this instrument: the length of its longest word that ends the text, 0 if none
        ("distorted guitars" is the distorted guitar's, not only the guitar's)."""
        low = " ".join(text.lower().split())
        return max((len(w) for w in self.words if low == w or low.endswith(" " + w)), default=0)


def _i(words: str, role: str, program: int | None, plays: str = "", genres: str = "", keeps: str = "",
       covers: frozenset[int] = frozenset()) -> Instrument:
    turns = tuple((k, v) for k, _, v in (item.partition("=") for item in plays.split()))
    return Instrument(tuple(w.strip() for w in words.split("|")), role, program, turns,
                      tuple(g.strip() for g in genres.split(",") if g.strip()), tuple(keeps.split()), covers)


GM_GUITARS = frozenset(range(24, 32))


INSTRUMENTS: tuple[Instrument, ...] = (
    _i("808|808s|808 bass|sliding 808|sliding 808s", "sub_bass", 38, "bass_style=sub_808"),
    _i("sub bass|sub-bass|subs", "sub_bass", 38),
    _i("rhodes|electric piano|e-piano|wurlitzer|wurli|keys", "chords", 4, "comp_style=rhodes_comp",  # short shells
       keeps="gospel_shout offbeat_skank jazz_comp house_chops"),
    _i("piano|pianos|grand piano|keyboard", "chords", 0),
    _i("organ|hammond|b3", "chords", 16, "comp_style=drawbar",  # held, tied chords that swell
       keeps="gospel_shout offbeat_skank jazz_comp house_chops"),
    # the steel-string, strummed, unless the genre has its own guitar (then that one, as it plays)
    _i("guitar|guitars", "chords", 25, "comp_style=strummed", covers=GM_GUITARS,
       keeps="power_chords palm_mute offbeat_skank bossa_comp arpeggiated oompah boogie chicken_scratch picked"),
    _i("acoustic guitar|steel guitar|steel-string guitar", "chords", 25, "comp_style=strummed",
       keeps="power_chords palm_mute offbeat_skank bossa_comp arpeggiated oompah"),
    _i("nylon guitar|nylon-string guitar|classical guitar|spanish guitar|bossa guitar", "chords", 24,
       "comp_style=bossa_comp"),
    _i("electric guitar|clean guitar|jangly guitar", "chords", 27, "comp_style=picked",  # picked, jangling
       keeps="power_chords palm_mute offbeat_skank house_chops"),
    _i("distorted guitar|distorted guitars|power chords|overdriven guitar|fuzz guitar", "chords", 30,
       "comp_style=power_chords"),
    _i("ukulele|ukuleles|ukelele|uke", "chords", 24, "comp_style=uke_strum kit=acoustic"),
    _i("banjo|banjos", "chords", 105, "comp_style=banjo_roll", "bluegrass,country"),
    _i("mandolin|mandolins", "chords", 25, "comp_style=tremolo", "bluegrass,folk"),
    _i("harpsichord|clavecin|cembalo", "chords", 6, "comp_style=harpsichord", "baroque,classical"),
    _i("accordion|accordions|squeezebox|concertina", "chords", 21, "comp_style=bellows", "polka,cumbia"),
    _i("harp|harps", "chords", 46, "comp_style=arpeggiated"),
    _i("church organ|pipe organ", "chords", 19, "comp_style=sustained"),
    _i("clavinet|clav", "chords", 7, "comp_style=clav_chops",  # the funk clav's short sixteenth chops
       keeps="offbeat_skank jazz_comp house_chops gospel_shout"),
    _i("strings|string section|violins|orchestra|cello|cellos", "pad", 48),
    _i("choir|choirs|voices|vocal pad|aahs", "pad", 52),
    _i("pad|pads|synth pad|synth pads|atmosphere|drone", "pad", 89),
    _i("bass|bassline|bass line|bass guitar|electric bass|fingered bass", "bass", 33),
    _i("upright bass|double bass|acoustic bass|walking bass", "bass", 32),
    _i("slap bass", "bass", 36, "bass_style=syncopated_funk"),
    _i("tuba|sousaphone", "bass", 58, "bass_style=two_beat", "polka"),
    _i("synth bass|wobble bass|acid bass|303", "bass", 38),
    _i("reese|reese bass", "bass", 38, "bass_style=dnb_reese"),
    _i("saxophone|sax|alto sax|tenor sax", "lead", 65),
    _i("trumpet|flugelhorn|horn|horns|brass", "lead", 56),
    _i("flute|flutes|pan flute", "lead", 73),
    _i("synth lead|lead synth|lead|melody|hook|topline|whistle", "lead", 80),
    _i("vocal chops|vocal chop|chopped vocals|vocal samples|vox", "lead", 54),
    _i("bells|bell|glockenspiel|celesta", "lead", 9),
    _i("music box|music boxes", "lead", 10, "touch=music_box"),
    _i("vibraphone|marimba|kalimba|steel drums|steel pan", "lead", 11),
    _i("harmonica", "lead", 22),
    _i("bandoneon|bandoneón|bandoneons", "lead", 23, "lead_style=lyrical comp_style=tango_marcato", "tango"),
    _i("clarinet|clarinets", "lead", 71),
    _i("sitar", "lead", 104),
    _i("koto", "lead", 107),
    _i("shamisen", "lead", 106),
    _i("bagpipes|bagpipe", "lead", 109),
    _i("violin|fiddle", "lead", 40),
    _i("arp|arps|arpeggio|arpeggios|arpeggiator|arpeggiated synth|sequence", "arp", 81),
    _i("congas|conga|bongos|percussion|tambourine|cowbell|claps|handclaps|timbales|palmas|cajon|cajón", "percussion", 0),
    _i("güiro|guiro|güiros|guiros|scraper", "percussion", 0, "touch=guiro"),
    _i("shaker|shakers|maracas|egg shaker", "percussion", 0, "touch=shaker"),
    _i("counter-melody|countermelody|counter melody|second melody", "counter_melody",
       DEFAULT_PROGRAMS["counter_melody"]),
    _i("drums|drum kit|drum machine|breakbeat|breaks|kick|kicks|snare|hi-hats|hihats|hi hats|hats", "drums", 0),
)

MODIFIERS: tuple[str, ...] = (
    "lo-fi", "lofi", "dusty", "warm", "detuned", "electric", "acoustic", "upright", "distorted", "muted",
    "jazzy", "soft", "fat", "deep", "bright", "analog", "vintage", "plucky", "gated", "wobbly", "heavy",
    "rolling", "crisp", "felt", "haunting", "glassy", "lush", "airy", "gritty",
)
