"""The genre lexicon: one row per genre with the traits the generators use.

Each row gives the genre's family, tempo range, swing, typical modes and keys,
the drum / harmony / bass / comping / lead styles (closed vocabularies shared
with the part generators, `traits`), the instrumentation as role → General MIDI
program (0-based), the default creativity dials, the song form, and the energy and
"electronic-ness" used when genres are blended. This table holds the genres of
the first landings; `traditions` holds the world's further popular, folk, jazz,
electronic and classical traditions, each with its own idiom.
"""

from __future__ import annotations

from bandstand.compose.lexicon.traditions import TRADITIONS
from bandstand.compose.lexicon.traits import (
    BASS_STYLES,
    COMP_STYLES,
    DRUM_FAMILIES,
    HARMONY_FAMILIES,
    LEAD_STYLES,
    GenreTraits,
)
from bandstand.compose.lexicon.traits import row as _g

__all__ = ["ALIASES", "ALIAS_OWNERS", "BASS_STYLES", "COMP_STYLES", "DRUM_FAMILIES", "GENRES", "GENRE_BY_NAME", "HARMONY_FAMILIES",
           "LEAD_STYLES", "GenreTraits"]

# name, family, aliases, tempo, swing, modes, keys,
# "drums harmony bass comp lead", (bass, chords, lead, pad programs), (harmonic, rhythmic), form, energy, electronic
_FIRST: tuple[GenreTraits, ...] = (
    _g("trap", "hip-hop", "trap|trap beat|trap music", (130, 170), 0.0, "minor,phrygian,harmonic minor",
       "A C# F G D E", "trap trap sub_808 sustained hook", (38, 0, 10, 89), (0.3, 0.6), "trap", 0.7, 0.9),
    _g("drill", "hip-hop", "drill|uk drill|ny drill|brooklyn drill", (138, 146), 0.0, "minor,harmonic minor",
       "C# F# D A E", "trap trap sub_808 sustained sparse", (38, 48, 0, 49), (0.35, 0.7), "trap", 0.75, 0.85),
    _g("hip-hop", "hip-hop", "hip-hop|hip hop|hiphop|boom bap|boom-bap|rap|golden era|old school hip hop",
       (84, 98), 0.16, "minor,dorian", "C D E F G A", "boom_bap lofi root_fifth stabs sparse",
       (33, 0, 11, 89), (0.35, 0.45), "hiphop", 0.6, 0.5,
       leaves_out="pad"),  # a sampled (jazz piano) loop over drums and bass: the sample is the chords, no synth pad
    _g("lo-fi", "hip-hop", "lo-fi|lofi|lo fi|lofi hip hop|lo-fi hip hop|chillhop|study beats|jazzhop",
       (70, 90), 0.15, "minor,dorian,major", "C D Eb F G A", "boom_bap lofi root_fifth jazz_comp sparse",
       (33, 4, 11, 89), (0.45, 0.35), "lofi", 0.35, 0.5,
       leaves_out="pad"),  # a dusty Rhodes loop, bass and drums (the beat is sampled): no synth pad under it
    _g("neo-soul", "soul", "neo-soul|neo soul|neosoul|alt r&b|alternative r&b", (65, 95), 0.14,
       "dorian,minor,major", "Eb Ab Db F Bb C", "boom_bap neosoul syncopated_funk sustained lyrical",
       (33, 4, 73, 89), (0.65, 0.5), "pop", 0.45, 0.3),
    _g("r&b", "soul", "r&b|rnb|r 'n' b|r and b|contemporary r&b|slow jam", (78, 100), 0.0, "minor,major",
       "Eb Ab Db Bb F C", "shuffle neosoul root_fifth sustained lyrical", (33, 4, 66, 48), (0.5, 0.4),
       "pop", 0.5, 0.2, meter=(12, 8)),  # a 90s slow jam in 12/8 (dotted quarter 52-67): a finger bass, brushes,
    # the tenor sax singing the line over Rhodes and strings
    _g("soul", "soul", "soul|motown|classic soul|northern soul|southern soul", (70, 110), 0.1, "major,minor",
       "C F G Bb Eb", "rock_backbeat gospel syncopated_funk stabs lyrical", (33, 4, 61, 48), (0.45, 0.4),
       "pop", 0.6, 0.1),
    _g("gospel", "soul", "gospel|church|praise|worship", (70, 120), 0.12, "major",
       "Ab Db Eb F C", "rock_backbeat gospel syncopated_funk gospel_shout lyrical", (33, 0, 52, 16),
       (0.6, 0.4), "pop", 0.65, 0.1),
    _g("pop", "pop", "pop|pop song|top 40|dance-pop",
       (95, 130), 0.0, "major,minor", "C G D A F E", "rock_backbeat pop root_fifth stabs hook",
       (33, 0, 80, 89), (0.2, 0.3), "pop", 0.65, 0.6),
    _g("house", "electronic", "house|house music|chicago house|funky house|piano house|french house|jackin",
       (118, 128), 0.05, "major,minor,dorian", "C F G A D", "four_on_floor house offbeat house_chops hook",
       (38, 0, 81, 89), (0.4, 0.4), "house", 0.75, 0.95),
    _g("deep house", "electronic", "deep house|lo-fi house|lofi house|soulful house", (118, 124), 0.08,
       "dorian,minor", "A D E F G", "four_on_floor house offbeat house_chops sparse", (38, 4, 81, 89),
       (0.5, 0.4), "house", 0.6, 0.95),
    _g("techno", "electronic", "techno|detroit techno|berlin techno|minimal techno|minimal|industrial techno|acid techno",
       (125, 140), 0.0, "minor,phrygian", "A D E F C", "four_on_floor techno offbeat stabs riffy",
       (38, 90, 81, 95), (0.3, 0.5), "house", 0.8, 1.0),
    _g("edm", "electronic", "edm|big room|festival|electronic dance|dance music|electro house",
       (124, 132), 0.0, "minor,major", "F A C G D", "four_on_floor edm offbeat stabs hook",
       (38, 90, 81, 89), (0.25, 0.4), "house", 0.85, 1.0),
    _g("trance", "electronic", "trance|uplifting trance|progressive trance", (132, 140), 0.0,
       "minor", "A F# G# B D", "four_on_floor edm offbeat arpeggiated hook", (38, 90, 81, 89),
       (0.3, 0.35), "house", 0.85, 1.0, extras=("arp",)),
    _g("synthpop", "electronic", "synthpop|synth-pop|synth pop|electropop|new wave|80s pop|eighties pop",
       (100, 130), 0.0, "major,minor", "C G D A F E", "synthpop pop synth_pulse stabs hook", (38, 89, 80, 89),
       (0.25, 0.35), "pop", 0.7, 0.9, extras=("arp",)),
    _g("punk", "rock", "punk|punk rock|pop punk|pop-punk|hardcore punk|skate punk|garage punk", (160, 200), 0.0,
       "major,minor", "E A D G C", "punk punk driving_eighths power_chords riffy", (34, 30, 30, 29),
       (0.15, 0.35), "rock", 0.95, 0.05),
    _g("waltz", "classical", "waltz|waltzes|valse|viennese waltz|landler|ländler|minuet|lullaby waltz", (84, 180), 0.0,
       "major,minor", "C F G D Bb", "waltz waltz oom oompah lyrical", (32, 0, 73, 48),
       (0.3, 0.2), "pop", 0.45, 0.0, meter=(3, 4)),
    _g("disco", "electronic", "disco|nu-disco|nu disco|boogie|italo disco", (110, 125), 0.05, "major,dorian,minor",
       "A D E G C", "four_on_floor funk offbeat stabs hook", (33, 27, 61, 48), (0.4, 0.5),
       "pop", 0.8, 0.5),
    _g("uk garage", "electronic", "uk garage|ukg|2-step|2 step|two-step|two step|garage|future garage|speed garage",
       (128, 140), 0.2, "minor,dorian", "F# G# C# A Eb", "two_step house synth_pulse house_chops sparse",
       (38, 4, 54, 89), (0.45, 0.6), "house", 0.6, 0.95),
    _g("dubstep", "electronic", "dubstep|brostep|riddim|post-dubstep", (138, 142), 0.05, "minor,phrygian",
       "F E G A D", "halftime edm dnb_reese sustained sparse", (38, 90, 81, 95), (0.35, 0.55), "house",
       0.8, 1.0),
    _g("drum & bass", "electronic", "drum & bass|drum and bass|drum n bass|drum'n'bass|d&b|dnb|liquid dnb|neurofunk",
       (165, 178), 0.0, "minor,dorian", "F G A D E", "dnb dnb dnb_reese sustained sparse", (38, 4, 81, 89),
       (0.4, 0.7), "dnb", 0.85, 0.95),
    _g("jungle", "electronic", "jungle|ragga jungle|oldschool jungle|amen break", (160, 175), 0.05, "minor",
       "A D E G", "breakbeat dnb sustained sustained sparse", (38, 89, 81, 89), (0.35, 0.8), "dnb", 0.8, 0.9),
    _g("breakbeat", "electronic", "breakbeat|breaks|big beat|nu skool breaks", (120, 140), 0.05, "minor,dorian",
       "A D E G", "breakbeat edm synth_pulse stabs riffy", (38, 90, 81, 89), (0.3, 0.6), "house", 0.8, 0.9),
    _g("jazz", "jazz", "jazz|hard bop|cool jazz|jazz standard|modal jazz", (100, 200), 0.3,
       "major,dorian,minor", "F Bb Eb C G Ab", "jazz_ride jazz walking jazz_comp bebop", (32, 0, 65, 48),
       (0.75, 0.55), "jazz", 0.55, 0.05, leaves_out="pad"),  # a jazz combo has no string pad
    _g("bebop", "jazz", "bebop|be-bop", (180, 280), 0.28, "major,minor", "F Bb Eb C",
       "jazz_ride jazz walking stabs bebop", (32, 0, 66, 48), (0.85, 0.6), "jazz", 0.75, 0.0, leaves_out="pad"),
    _g("bossa nova", "latin", "bossa nova|bossa|mpb|tropicalia", (110, 145), 0.05, "major,minor,dorian",
       "D F G C A", "bossa jazz root_fifth bossa_comp lyrical", (32, 24, 73, 48), (0.6, 0.4), "latin", 0.4, 0.05),
    _g("salsa", "latin", "salsa|latin|mambo|son cubano|timba", (170, 200), 0.0, "minor,major",
       "A D G C E", "bossa latin tumbao arpeggiated riffy", (32, 0, 56, 48), (0.5, 0.6), "latin", 0.8, 0.1,
       extras=("percussion",), leaves_out="pad"),  # piano, bass, horns and congas: no pad
    _g("reggaeton", "latin", "reggaeton|reggaetón|dembow|perreo|latin trap|urbano", (88, 100), 0.0,
       "minor", "A D E G C", "dembow latin sub_808 stabs hook", (38, 4, 81, 89), (0.25, 0.45), "pop",
       0.75, 0.85),
    _g("dancehall", "caribbean", "dancehall|bashment|riddim dancehall", (90, 110), 0.05, "minor,major",
       "A D G E", "dembow pop reggae offbeat_skank riffy", (38, 16, 81, 89), (0.25, 0.5), "pop", 0.75, 0.7),
    _g("reggae", "caribbean", "reggae|roots reggae|rocksteady|lovers rock", (60, 90), 0.1, "major,minor",
       "G A D C F", "one_drop pop reggae offbeat_skank lyrical", (33, 16, 56, 48), (0.3, 0.45), "pop", 0.45,
       0.2),
    _g("afrobeat", "african", "afrobeat|afrobeats|afro|afropop|afro-pop|afro fusion|afroswing|alte",
       (95, 115), 0.1, "minor,major,dorian", "A C D F G", "afrobeat afrobeat syncopated_funk arpeggiated hook",
       (33, 26, 73, 89), (0.4, 0.65), "afrobeat", 0.7, 0.6),
    _g("amapiano", "african", "amapiano|log drum|log drums|private school piano", (108, 116), 0.08, "minor,dorian",
       "F A D G", "four_on_floor house sub_808 sustained sparse", (38, 0, 81, 89), (0.5, 0.55), "house", 0.6,
       0.85),
    _g("funk", "funk", "funk|funky|p-funk|g-funk|funk rock", (95, 120), 0.08, "dorian,mixolydian,minor",
       "E A D G C", "funk funk syncopated_funk chicken_scratch riffy", (36, 28, 61, 16), (0.45, 0.6), "pop", 0.75, 0.3,
       leaves_out="pad"),  # slap bass, a scratching muted guitar, horns and a tight kit: space, no pad
    _g("rock", "rock", "rock|rock and roll|rock'n'roll|alt rock|alternative rock|hard rock|classic rock",
       (100, 140), 0.0, "major,minor,mixolydian", "E A D G C", "rock_backbeat rock picked_rock strummed riffy",
       (34, 29, 30, 48), (0.25, 0.35), "rock", 0.8, 0.1),
    _g("indie", "rock", "indie|indie rock|indie pop|bedroom pop|math rock|baroque pop|chamber pop|britpop",
       (100, 130), 0.0, "major,minor", "D G A E C", "rock_backbeat pop root_fifth strummed lyrical",
       (33, 27, 80, 89), (0.35, 0.35), "rock", 0.6, 0.3),
    _g("metal", "rock", "metal|heavy metal|thrash|metalcore|djent|death metal", (120, 180), 0.0,
       "minor,phrygian", "E D C# B", "metal metal driving_eighths palm_mute riffy", (34, 30, 30, 48),
       (0.3, 0.6), "rock", 0.95, 0.1, leaves_out="pad"),  # two distorted guitars, bass, drums: no string pad
    _g("blues", "blues", "blues|delta blues|chicago blues|blues rock|rhythm and blues|12-bar", (70, 120), 0.25,
       "mixolydian,minor", "E A G C Bb", "shuffle blues walking boogie riffy", (33, 29, 22, 16), (0.4, 0.4),
       "blues", 0.55, 0.05, leaves_out="pad"),  # an amped guitar's boogie, harmonica, bass, drums
    _g("country", "country", "country|country pop|honky tonk|country and western|nashville", (90, 130),
       0.05, "major", "G D A C E", "rock_backbeat pop two_beat strummed lyrical", (33, 25, 110, 48),
       (0.2, 0.3), "pop", 0.55, 0.05, leaves_out="pad"),  # strummed steel-string, fiddle, a train beat
    _g("ambient", "ambient", "ambient|drone|atmospheric|soundscape|ambient electronic|meditation",
       (60, 90), 0.0, "major,lydian,minor", "C D E F A", "ambient ambient sustained sustained ambient",
       (39, 89, 88, 95), (0.5, 0.2), "ambient", 0.2, 0.8),
    _g("cinematic", "ambient", "cinematic|orchestral|film score|soundtrack|epic orchestral|trailer music",
       (70, 110), 0.0, "minor,major", "D C E A G", "cinematic cinematic ostinato ostinato lyrical",
       (43, 48, 60, 52), (0.5, 0.35), "cinematic", 0.6, 0.2),
    _g("synthwave", "electronic", "synthwave|retrowave|outrun|darksynth|80s synth|chillsynth",
       (80, 118), 0.0, "minor", "A E F# D C", "rock_backbeat edm synth_pulse arpeggiated hook",
       (38, 90, 81, 89), (0.3, 0.3), "pop", 0.65, 1.0),
    _g("classical", "classical", "classical|orchestral piece|sonata|symphony|romantic era|neoclassical|neo-classical|piano piece",
       (60, 120), 0.0, "major,minor", "C G D F A E", "ambient pop sustained piano_ballad lyrical", (42, 0, 40, 48),
       (0.45, 0.2), "classical", 0.45, 0.0, leaves_out="drums"),  # an orchestra or a pianist: no drum kit
    _g("chiptune", "electronic", "chiptune|8-bit|8 bit|16-bit|16 bit|video game|video game music|game music|retro game|nes|gameboy",
       (120, 160), 0.0, "minor,major", "C A E G D", "rock_backbeat pop synth_pulse stabs hook", (38, 81, 80, 81),
       (0.25, 0.4), "pop", 0.75, 1.0, extras=("arp",),
       leaves_out="pad"),  # a game console's few voices (pulse lead, arpeggio, triangle bass, noise drums): no pad
    # --- genres that once borrowed a neighbour's idiom, each with its own now ---
    _g("grime", "hip-hop", "grime|grime beat|eskibeat|eski|sublow", (138, 142), 0.0, "minor,phrygian",
       "F G A C D", "trap trap synth_pulse stabs riffy", (38, 62, 80, 81), (0.3, 0.65), "grime", 0.8, 0.9,
       leaves_out="pad"),
    _g("hyperpop", "electronic", "hyperpop|hyper pop|digicore|glitchcore|bubblegum bass|pc music", (150, 170), 0.0,
       "major,minor", "F# B C# G#", "trap edm sub_808 stabs riffy", (38, 81, 80, 90), (0.35, 0.6), "pop", 0.9, 1.0),
    _g("city pop", "pop", "city pop|city-pop|japanese city pop|j-pop|jpop|j pop|shibuya-kei", (100, 120), 0.05,
       "major,dorian", "Eb Ab Db F Bb C", "funk neosoul syncopated_funk stabs hook", (35, 4, 61, 48),
       (0.55, 0.45), "pop", 0.65, 0.35),
    _g("k-pop", "pop", "k-pop|kpop|k pop|korean pop|idol pop", (100, 130), 0.0, "minor,major", "C# F G A D",
       "rock_backbeat edm synth_pulse stabs hook", (38, 81, 80, 89), (0.3, 0.5), "pop", 0.8, 0.85),
    _g("shoegaze", "rock", "shoegaze|shoegazer|nu gaze|nugaze|wall of guitars|wall of sound", (90, 125), 0.0,
       "major,lydian,mixolydian", "E A D B G", "rock_backbeat rock picked_rock wall_of_sound ambient", (33, 30, 29, 30),
       (0.4, 0.3), "rock", 0.65, 0.1),
    _g("industrial", "electronic", "industrial|industrial rock|industrial metal|ebm|aggrotech|industrial music",
       (110, 140), 0.0, "minor,phrygian", "E D A C", "rock_backbeat trap synth_pulse power_chords riffy",
       (38, 30, 81, 95), (0.3, 0.6), "rock", 0.9, 0.8),
    _g("bluegrass", "country", "bluegrass|newgrass|appalachian|old-time|old time|mountain music|string band",
       (120, 180), 0.05, "major,mixolydian", "G A D B E", "rock_backbeat pop two_beat banjo_roll lyrical",
       (32, 105, 40, 25), (0.25, 0.4), "folk", 0.7, 0.0, leaves_out="drums pad"),
    _g("polka", "folk", "polka|polkas|oompah|oom-pah|oktoberfest|bavarian", (110, 135), 0.0, "major",
       "Bb F Eb C G", "rock_backbeat pop two_beat oompah lyrical", (58, 21, 71, 21), (0.15, 0.3), "folk", 0.75,
       0.0, leaves_out="pad"),
    _g("tango", "latin", "tango|argentine tango|tango nuevo|nuevo tango|milonga", (112, 128), 0.0,
       "harmonic minor,minor", "D A E G C", "bossa latin marcato tango_marcato lyrical", (32, 0, 23, 48), (0.45, 0.45),
       "latin", 0.65, 0.0, leaves_out="drums"),
    _g("cumbia", "latin", "cumbia|cumbia colombiana|chicha|cumbia villera|cumbia sonidera", (85, 105), 0.0,
       "minor,major", "A D G E C", "bossa latin two_beat offbeat_skank lyrical", (33, 21, 73, 48), (0.3, 0.5),
       "latin", 0.7, 0.1, leaves_out="pad"),
    _g("flamenco", "latin", "flamenco|rumba flamenca|flamenco rumba|gypsy rumba|nuevo flamenco|sevillanas|bulerias",
       (95, 130), 0.0, "phrygian,harmonic minor", "E A B D", "bossa andalusian tumbao strummed riffy", (32, 24, 24, 48),
       (0.45, 0.6), "latin", 0.7, 0.0, leaves_out="pad"),
    _g("highlife", "african", "highlife|palm-wine|palmwine|palm wine|guitar band highlife", (100, 130), 0.05,
       "major", "C F G D Bb", "afrobeat pop walking arpeggiated lyrical", (33, 26, 56, 61), (0.35, 0.55),
       "afrobeat", 0.65, 0.1),
    _g("trip-hop", "electronic", "trip-hop|trip hop|downtempo|bristol sound|chillout|chill out", (70, 95),
       0.1, "minor,dorian", "A D E C G", "halftime lofi root_fifth sustained sparse", (33, 4, 48, 89),
       (0.5, 0.4), "lofi", 0.4, 0.6),
)

GENRES: tuple[GenreTraits, ...] = _FIRST + TRADITIONS

GENRE_BY_NAME: dict[str, GenreTraits] = {g.name: g for g in GENRES}

# every name and alias → the genres that claim it (a test keeps this to one each)
ALIAS_OWNERS: dict[str, tuple[str, ...]] = {}
for _genre in GENRES:
    for _alias in dict.fromkeys((_genre.name, *_genre.aliases)):
        ALIAS_OWNERS[_alias] = (*ALIAS_OWNERS.get(_alias, ()), _genre.name)
ALIASES: dict[str, str] = {alias: owners[0] for alias, owners in ALIAS_OWNERS.items()}
