"""The drum kits of the world's further traditions (the genres of
`compose.lexicon.traditions`): what each one's drummer or percussion section plays
within its drum family's feel — a samba's surdo and tamborim, a merengue's tambora
and güira, a darbuka's baladi, a dhol's chaal, a jig's bodhrán in 6/8, a Motorik
kick. Read like `genre_kits`: one character per sixteenth (``X`` accent, ``x``
normal, ``o`` soft, ``g`` ghost, ``.`` rest); a pattern as long as the bar in the
genre's metre (12 sixteenths for 3/4 and 6/8, 24 for 12/8).
"""

from __future__ import annotations

from dataclasses import replace

from bandstand.craft.kit import (
    CABASA,
    CHINA,
    CLAP,
    CLAVES,
    CLOSED_HAT,
    COWBELL,
    CRASH,
    FAMILIES,
    HIGH_BONGO,
    HIGH_FLOOR_TOM,
    HIGH_MID_TOM,
    HIGH_TIMBALE,
    HIGH_TOM,
    HIGH_WOOD,
    KICK,
    LONG_GUIRO,
    LOW_AGOGO,
    LOW_BONGO,
    LOW_CONGA,
    LOW_FLOOR_TOM,
    LOW_TIMBALE,
    LOW_TOM,
    MARACAS,
    MID_TOM,
    MUTE_CONGA,
    OPEN_CONGA,
    OPEN_HAT,
    PEDAL_HAT,
    RIDE,
    RIDE_BELL,
    RIM,
    SHAKER,
    SHORT_GUIRO,
    SNARE,
    TAMBOURINE,
    DrumFamily,
    Layer,
)

__all__ = ["WORLD_KITS"]

OPEN_CUICA, MUTE_TRIANGLE, OPEN_TRIANGLE = 79, 80, 81


def _l(note: int, *patterns: str, lo: float = 0.0, hi: float = 1.01) -> Layer:
    return Layer(note, tuple(patterns), lo, hi)


VERSE, CHORUS = 0.5, 0.9  # the energies a verse and a chorus play at
LIFT = 1.5  # a chorus plays at least this many times the verse's hits
# the voice a chorus adds when the kit itself does not lift: hats for the machines, a tambourine for the bands
_LIFT_VOICE = {"four_on_floor": CLOSED_HAT, "trap": CLOSED_HAT, "halftime": CLOSED_HAT, "breakbeat": CLOSED_HAT,
               "dembow": CLOSED_HAT, "boom_bap": CLOSED_HAT, "jazz_ride": RIDE, "ambient": SHAKER}


# time-keepers as the drummer plays them below the lift (`density.timekeeping_every`): eighths at most
_KEEPERS = frozenset({CLOSED_HAT, OPEN_HAT, RIDE, SHAKER, TAMBOURINE, CABASA, SHORT_GUIRO, LONG_GUIRO})


def _hits(layers: tuple[Layer, ...], energy: float, played: bool = False) -> float:
    """The hits per bar (over a 4-bar phrase) of the layers playing at `energy`; `played`: as a
    verse plays them, its time-keepers at eighths at most."""
    total = 0
    for lay in (lay for lay in layers if lay.min_energy <= energy < lay.max_energy):
        for pattern in map(lay.pattern_for, range(4)):
            steps = [i for i, ch in enumerate(pattern) if ch != "."]
            if played and lay.note in _KEEPERS and steps:  # thinned from its first hit, as `density.thinned`
                steps = [i for i in steps if (i - steps[0]) % 2 == 0]
            total += len(steps)
    return total / 4


def _lifted(feel: str, layers: tuple[Layer, ...]) -> tuple[Layer, ...]:
    """The layers with one more that comes in with the chorus when the kit would otherwise
    play a chorus hardly busier than a verse: hits spread over the bar where that voice
    is not already playing (the next voice when it plays every step). The verse is counted as it
    is played (its time-keepers at eighths): a rubboard scraping sixteenths in the chorus already
    lifts a verse that scrapes eighths."""
    need = round(LIFT * _hits(layers, VERSE, played=True) - _hits(layers, CHORUS))
    if need <= 0:
        return layers
    steps = max(len(p) for lay in layers for p in lay.patterns)
    for voice in (_LIFT_VOICE.get(feel, TAMBOURINE), TAMBOURINE, SHAKER, CABASA):
        taken = {i for lay in layers if lay.note == voice and lay.max_energy > CHORUS for p in lay.patterns
                 for i, ch in enumerate(p) if ch != "."}
        free = [i for i in (*range(0, steps, 2), *range(1, steps, 2)) if i not in taken][:need]
        if len(free) == need:
            return (*layers, _l(voice, "".join("x" if i in free else "." for i in range(steps)), lo=0.7))
    return layers


def _kit(name: str, feel: str, *layers: Layer, crash: bool | None = None,
         hat_rolls: bool | None = None) -> tuple[str, DrumFamily]:
    base = FAMILIES[feel]
    return feel, replace(base, name=name, layers=_lifted(feel, layers), crash=base.crash if crash is None else crash,
                         hat_rolls=base.hat_rolls if hat_rolls is None else hat_rolls)


# genre → (the drum family it is a kit of, the kit)
WORLD_KITS: dict[str, tuple[str, DrumFamily]] = {k.name: (feel, k) for feel, k in (
    # --- jazz and blues ---
    _kit("big band", "jazz_ride", _l(RIDE, "X..xX..xX..xX..x"), _l(PEDAL_HAT, "....x.......x..."),
         _l(KICK, "x...x...x...x...", lo=0.0, hi=0.6), _l(SNARE, "..............X.", lo=0.6),
         _l(CRASH, "X...............", lo=0.85)),
    _kit("latin jazz", "bossa", _l(CLAVES, "..X.X...X..X..X."), _l(HIGH_TIMBALE, "x.xx.x.xx.xx.x.x"),
         _l(OPEN_CONGA, "......xx......x."), _l(MUTE_CONGA, "....o.......o..."),
         _l(COWBELL, "X...X...X...X...", lo=0.7)),
    _kit("smooth jazz", "funk", _l(KICK, "X......x..x....."), _l(RIM, "....x.......x..."),
         _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."), _l(SHAKER, "..o...o...o...o.", lo=0.5)),
    _kit("jazz fusion", "funk", _l(KICK, "X..x...x..x..x.."), _l(SNARE, "....X..g.g..X..g"),
         _l(CLOSED_HAT, "xoxxxoxxxoxxxoxx"), _l(RIDE_BELL, "x...x...x...x...", lo=0.7)),
    _kit("dixieland", "jazz_ride", _l(KICK, "X.......X......."), _l(SNARE, "....x.g.....x.g."),
         _l(CLOSED_HAT, "..x.x.....x.x..."), _l(HIGH_WOOD, "x...............", lo=0.6), crash=False),
    _kit("boogie-woogie", "shuffle", _l(KICK, "X...X...X...X..."), _l(SNARE, "....x.......x..."),
         _l(CLOSED_HAT, "x..xx..xx..xx..x"), crash=False),
    # --- soul ---
    _kit("doo-wop", "shuffle", _l(KICK, "X...........x..........."), _l(SNARE, "......X...........X....."),
         _l(RIDE, "x.xx.xx.xx.xx.xx.xx.xx.x"), _l(CLAP, "......x...........x.....", lo=0.6)),
    _kit("new jack swing", "boom_bap", _l(KICK, "X..x..x...X..x.."), _l(SNARE, "....X.......X..."),
         _l(CLAP, "....X.......X..x"), _l(CLOSED_HAT, "x.xxx.xxx.xxx.xx"), _l(OPEN_HAT, "......o.......o.", lo=0.7)),
    # --- rock ---
    _kit("grunge", "rock_backbeat", _l(KICK, "X.X.....X.X....."), _l(SNARE, "....X.......X..."),
         _l(CRASH, "x.x.x.x.x.x.x.x.", lo=0.7), _l(OPEN_HAT, "x.x.x.x.x.x.x.x.", hi=0.7)),
    _kit("emo", "punk", _l(KICK, "X.x...x.X.x...x."), _l(SNARE, "....X.......X..."),
         _l(RIDE, "x.x.x.x.x.x.x.x."), _l(CRASH, "x.......x.......", lo=0.75)),
    _kit("post-rock", "rock_backbeat", _l(KICK, "X.......x.X....."), _l(SNARE, "........X.......", lo=0.4),
         _l(RIDE, "x...x...x...x...", hi=0.6), _l(LOW_TOM, "x.x.x.x.x.x.x.x.", lo=0.6),
         _l(CRASH, "X.......X.......", lo=0.85)),
    _kit("surf rock", "punk", _l(KICK, "X...X...X...X..."), _l(SNARE, "..x...x...x...x."),
         _l(HIGH_TOM, "....x..x....x..x", lo=0.55), _l(RIDE, "x.x.x.x.x.x.x.x.")),
    _kit("rockabilly", "shuffle", _l(KICK, "X.......X......."), _l(SNARE, "....X..x....X..x"),
         _l(CLOSED_HAT, "x..xx..xx..xx..x")),
    _kit("psychedelic rock", "rock_backbeat", _l(KICK, "X..x....X.x....."), _l(SNARE, "....X.......X..."),
         _l(RIDE, "x.xxx.xxx.xxx.xx"), _l(TAMBOURINE, "..x...x...x...x.")),
    _kit("progressive rock", "rock_backbeat", _l(KICK, "X.....x...x..x..", "X..x..x...x....."),
         _l(SNARE, "....X.......X...", "...X.....X...X.."), _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."),
         _l(HIGH_MID_TOM, "............xx..", lo=0.6)),
    _kit("doom metal", "halftime", _l(KICK, "X.......X......."), _l(SNARE, "........X......."),
         _l(CRASH, "X...............", lo=0.3), _l(RIDE, "x...x...x...x...")),
    _kit("dream pop", "rock_backbeat", _l(KICK, "X.........X....."), _l(SNARE, "....x.......x..."),
         _l(SHAKER, "x.o.x.o.x.o.x.o."), _l(RIDE, "....x.......x...", lo=0.6)),
    _kit("krautrock", "rock_backbeat", _l(KICK, "X.X.X.X.X.X.X.X."), _l(SNARE, "....X.......X..."),
         _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."), _l(OPEN_HAT, "..............o.", lo=0.7)),
    _kit("post-punk", "rock_backbeat", _l(KICK, "X...X...X...X..."), _l(SNARE, "....X.......X..."),
         _l(HIGH_FLOOR_TOM, "x.x.x.x.x.x.x.x."), _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx", lo=0.7)),
    # --- electronic ---
    _kit("acid house", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(CLAP, "....x.......x..."),
         _l(OPEN_HAT, "..x...x...x...x."), _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.6), _l(COWBELL, ".x.....x........")),
    _kit("electro", "breakbeat", _l(KICK, "X......x..X....."), _l(CLAP, "....X.......X..."),
         _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx"), _l(COWBELL, "..x.......x..x..", lo=0.6)),
    _kit("future bass", "halftime", _l(KICK, "X.....x...X....."), _l(SNARE, "........X......."),
         _l(CLAP, "........X......."), _l(CLOSED_HAT, "x.x.x.xxx.x.x.xx"), _l(OPEN_HAT, "..o.......o.....", lo=0.6)),
    _kit("psytrance", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(OPEN_HAT, "..X...X...X...X."),
         _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx"), _l(RIM, ".....x.......x..", lo=0.5)),
    _kit("hardstyle", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(CLAP, "....X.......X..."),
         _l(OPEN_HAT, "..x...x...x...x."), _l(CRASH, "X...............", lo=0.7), _l(SNARE, "..............xx", lo=0.8)),
    _kit("gabber", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(OPEN_HAT, "..x...x...x...x."),
         _l(CLAP, "....x.......x...", lo=0.5), _l(CHINA, "X...............", lo=0.8)),
    _kit("footwork", "trap", _l(KICK, "X..X..X...X..X.."), _l(CLAP, "....x.......x..."),
         _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."), _l(SNARE, "..........x..x.x", lo=0.6), hat_rolls=False),
    _kit("jersey club", "four_on_floor", _l(KICK, "X...X...X.X.X..."), _l(CLAP, "....X.......X..."),
         _l(SNARE, "..........x.x...", lo=0.4), _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.6)),
    _kit("baile funk", "dembow", _l(KICK, "X..X..X...X..X.."), _l(SNARE, "...x..x.....x..x"),
         _l(CLAP, "....x.......x...", lo=0.5), _l(HIGH_BONGO, "..x.....x.x.....", lo=0.3)),
    _kit("moombahton", "dembow", _l(KICK, "X...X...X...X..."), _l(SNARE, "...x..x....x..x."),
         _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."), _l(LOW_TIMBALE, "......o.......o.", lo=0.6)),
    _kit("vaporwave", "halftime", _l(KICK, "X.........x....."), _l(SNARE, "........X......."),
         _l(CLOSED_HAT, "x...x...x...x..."), _l(CLAP, "........x.......", lo=0.6)),
    _kit("idm", "breakbeat", _l(KICK, "X..x.....x..x...", "X.....xx..x..x.."), _l(SNARE, "....X..x..x.X...", "...x..X...x...X."),
         _l(CLOSED_HAT, "x.xx.x.xxx.x.xx."), _l(RIM, ".x.....x.....x..", lo=0.5)),
    _kit("dub", "one_drop", _l(KICK, "........X......."), _l(RIM, "........X......."),
         _l(CLOSED_HAT, "x..xx..xx..xx..x"), _l(OPEN_HAT, "..............o.", lo=0.5)),
    _kit("phonk", "trap", _l(KICK, "X.....X...X....."), _l(CLAP, "........X......."),
         _l(COWBELL, "x..x..x...x..x..", lo=0.3), _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.")),
    _kit("eurodance", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(SNARE, "....X.......X..."),
         _l(OPEN_HAT, "..X...X...X...X."), _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.5)),
    _kit("electro swing", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(SNARE, "....X.......X..."),
         _l(RIDE, "X..xX..xX..xX..x"), _l(CLAP, "....x.......x...", lo=0.6)),
    # --- Latin America and the Caribbean ---
    _kit("samba", "bossa", _l(LOW_FLOOR_TOM, ".......X.......X"), _l(HIGH_TOM, "X.xx.x.xX.x.x.xx"),
         _l(TAMBOURINE, "xoxoxoxoxoxoxoxo"), _l(LOW_AGOGO, "X.x...x.X.x.x...", lo=0.5),
         _l(OPEN_CUICA, "..x.......x.x...", lo=0.7)),
    _kit("bachata", "bossa", _l(HIGH_BONGO, "x.x.x.xxx.x.x.xx"), _l(LOW_BONGO, "...x.......x...."),
         _l(SHORT_GUIRO, "x.xxx.xxx.xxx.xx"), _l(KICK, "X.....x.X.....x.", lo=0.4)),
    _kit("merengue", "bossa", _l(MARACAS, "xxxxxxxxxxxxxxxx"), _l(LOW_TOM, "X...x...X...x..."),
         _l(RIM, "..x...x...x..xxx"), _l(KICK, "X.......X.......", lo=0.5)),
    _kit("bolero", "bossa", _l(MARACAS, "x.xxx.x.x.xxx.x."), _l(HIGH_BONGO, "x.x.x.x.x.x.x.x."),
         _l(LOW_BONGO, "......x.......x."), _l(CLAVES, "X.....X...X.....", lo=0.5)),
    _kit("norteño", "rock_backbeat", _l(KICK, "X.......X......."), _l(SNARE, "....X.......X..."),
         _l(CLOSED_HAT, "..x...x...x...x."), _l(SNARE, "..g...g...g...g.", lo=0.6), crash=False),
    _kit("soca", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(SNARE, "...X..X....X..X."),
         _l(CLOSED_HAT, "x.xxx.xxx.xxx.xx"), _l(COWBELL, "X.X.X.X.X.X.X.X.", lo=0.6)),
    _kit("calypso", "bossa", _l(KICK, "X.....X.X.....X."), _l(SNARE, "....x.......x..."),
         _l(CLOSED_HAT, "x.x.x.x.x.x.x.x."), _l(COWBELL, "..x...x...x...x.", lo=0.6)),
    _kit("ska", "rock_backbeat", _l(KICK, "X.......X......."), _l(SNARE, "....X.......X..."),
         _l(CLOSED_HAT, "..x...x...x...x."), _l(OPEN_HAT, "..o...o...o...o.", lo=0.6)),
    _kit("forró", "bossa", _l(KICK, "X.....X.X.....X."), _l(RIM, "....x.......x..."),
         _l(OPEN_TRIANGLE, "x.xxx.xxx.xxx.xx"), _l(MUTE_TRIANGLE, "o...o...o...o...")),
    _kit("vallenato", "bossa", _l(LONG_GUIRO, "x.x.x.x.x.x.x.x."), _l(MID_TOM, "X..x..x.X..x..x."),
         _l(LOW_TOM, "......X.......X."), _l(KICK, "X.......X.......", lo=0.55)),
    # --- Africa ---
    _kit("soukous", "afrobeat", _l(KICK, "X...X...X...X..."), _l(SNARE, "..x.x..x..x.x..x"),
         _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx"), _l(OPEN_CONGA, "...x......x.....", lo=0.5)),
    _kit("gqom", "breakbeat", _l(KICK, "X..X..X.....X..."), _l(LOW_TOM, "..x....x..x...x."),
         _l(HIGH_TOM, ".x....x......x..", lo=0.4), _l(CLAP, "....x.......x...", lo=0.6)),
    _kit("afro house", "four_on_floor", _l(KICK, "X...X...X...X..."), _l(LOW_CONGA, "..x..x....x..x.x"),
         _l(SHAKER, "xoxoxoxoxoxoxoxo"), _l(HIGH_BONGO, "...x...x...x....", lo=0.5), _l(CLAP, "....x.......x...", lo=0.7)),
    _kit("desert blues", "shuffle", _l(LOW_CONGA, "X.....X....."), _l(CLAP, "..x.x...x.x."),
         _l(MUTE_CONGA, "...x.....x..", lo=0.4), _l(KICK, "X.....X.....", lo=0.6)),
    _kit("ethio-jazz", "funk", _l(KICK, "X.....x...X....."), _l(SNARE, "...x......x..x.."),
         _l(RIDE, "x.xxx.xxx.xxx.xx"), _l(LOW_CONGA, "......x.......x.", lo=0.5)),
    # --- folk and popular music ---
    _kit("folk", "rock_backbeat", _l(KICK, "X.......X......."), _l(TAMBOURINE, "....x.......x..."),
         _l(SHAKER, "..o...o...o...o."), crash=False),
    _kit("zydeco", "rock_backbeat", _l(KICK, "X...X...X...X..."), _l(SNARE, "....X.......X..."),
         _l(SHORT_GUIRO, "xxxxxxxxxxxxxxxx"), crash=False),
    _kit("klezmer", "rock_backbeat", _l(KICK, "X..X..X.X..X..X."), _l(SNARE, "..x..x....x..x.."),
         _l(CLOSED_HAT, "....x.......x...", lo=0.5), crash=False),
    _kit("celtic", "waltz", _l(KICK, "X.....x....."), _l(LOW_TOM, "..oxo...oxo."), _l(MID_TOM, "..g.....g...", lo=0.4),
         _l(TAMBOURINE, "x.....x.....", lo=0.6), crash=False),
    _kit("sea shanty", "rock_backbeat", _l(KICK, "X.......X......."), _l(CLAP, "....X.......X..."),
         _l(LOW_TOM, "X...............", lo=0.6), crash=False),
    _kit("balkan brass", "rock_backbeat", _l(KICK, "X.....X.X.....X."), _l(RIM, "..x...x...x...x."),
         _l(SNARE, "....x.......x..x", lo=0.5), _l(CRASH, "X...............", lo=0.85)),
    _kit("chanson", "waltz", _l(KICK, "X..........."), _l(SNARE, "....o...o..."),
         _l(CLOSED_HAT, "x.o.x.o.x.o.", lo=0.5), crash=False),
    _kit("qawwali", "bossa", _l(LOW_CONGA, "X..x..X...X....."), _l(MUTE_CONGA, "..x.x...x..x.x.."),
         _l(CLAP, "x...x...x...x...", lo=0.35), _l(OPEN_CONGA, ".......x.......x", lo=0.6)),
    _kit("bhangra", "funk", _l(LOW_TOM, "X..x..X.X..x..X."), _l(RIM, "..x...x...x...x."),
         _l(KICK, "X.......X.......", lo=0.4), _l(CLAP, "....x.......x...", lo=0.6)),
    _kit("bollywood", "rock_backbeat", _l(KICK, "X.....x.X......."), _l(SNARE, "....X.......X..."),
         _l(LOW_CONGA, "X..x..x.X..x..x."), _l(MUTE_CONGA, "..x...x...x...x."), _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.6)),
    _kit("hindustani", "ambient", _l(LOW_CONGA, "X...x...o...x..."), _l(MUTE_CONGA, "..x.x.x...x.x.x."),
         _l(OPEN_CONGA, "x.....x.....x...", lo=0.5)),
    _kit("gamelan", "ambient", _l(LOW_CONGA, "X.......x...x..."), _l(HIGH_WOOD, "..x...x...x...x."),
         _l(RIDE_BELL, "x...............", lo=0.4), _l(MUTE_CONGA, ".x.x.x.x.x.x.x.x", lo=0.6)),
    _kit("arabic", "bossa", _l(LOW_CONGA, "X..X..X.X..X...."), _l(MUTE_CONGA, "...x..x....x..x."),
         _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.4), _l(CABASA, "..o...o...o...o.", lo=0.7)),
    # --- concert music ---
    _kit("march", "rock_backbeat", _l(SNARE, "X.xxx.x.X.xxx.x."), _l(KICK, "X.......X......."),
         _l(CRASH, "....x.......x...", lo=0.5), crash=False),
)}
