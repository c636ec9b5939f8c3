"""Drum pattern families: one table per genre family of 16-step layers (one
GM drum note each) that switch on as the energy rises, plus the fill style
and cymbal habits of the family.

A layer's pattern strings are read one character per sixteenth: ``X`` accent,
``x`` normal, ``o`` soft, ``g`` ghost, ``.`` rest. A layer with several
strings cycles through them bar by bar within a 4-bar phrase (A A A B when
two are given), so the fourth bar answers the first three.
"""

from __future__ import annotations

from dataclasses import dataclass

# General MIDI percussion notes (channel 10).
KICK, RIM, SNARE, CLAP = 36, 37, 38, 39
CLOSED_HAT, PEDAL_HAT, OPEN_HAT = 42, 44, 46
LOW_TOM, MID_TOM, HIGH_MID_TOM, HIGH_TOM = 45, 47, 48, 50
CRASH, RIDE, RIDE_BELL, TAMBOURINE, COWBELL = 49, 51, 53, 54, 56
HIGH_BONGO, LOW_BONGO, MUTE_CONGA, OPEN_CONGA, LOW_CONGA = 60, 61, 62, 63, 64
HIGH_TIMBALE, CABASA, SHAKER, CLAVES = 65, 69, 70, 75  # the kits' "shaker" is GM's maracas (70)
SIDE_STICK = RIM
LOW_FLOOR_TOM, HIGH_FLOOR_TOM, CHINA = 41, 43, 52
LOW_TIMBALE, LOW_AGOGO, MARACAS = 66, 68, 70
SHORT_GUIRO, LONG_GUIRO, HIGH_WOOD, LOW_WOOD, GM_SHAKER = 73, 74, 76, 77, 82
HIHATS = frozenset({CLOSED_HAT, OPEN_HAT, PEDAL_HAT})
# Hand percussion that keeps time (a shaker, a tambourine, a güiro) — over the cymbals, or alone
HAND_TIME = frozenset({SHAKER, TAMBOURINE, CABASA, SHORT_GUIRO, LONG_GUIRO, GM_SHAKER})

STEP_VELOCITY: dict[str, int] = {"X": 118, "x": 96, "o": 72, "g": 44}
# A drummer's hand on the hats or the ride, where the pattern writes every stroke alike: the beat
# full, the 'and' lighter, the sixteenths between lighter still (what a machine's flat hats lack).
HAND_ACCENT = (1.0, 0.62, 0.8, 0.62)  # by sixteenth within the beat


@dataclass(frozen=True, slots=True)
class Layer:
    """One drum voice of a family: plays from `min_energy` up to (not incl.) `max_energy`."""

    note: int
    patterns: tuple[str, ...]
    min_energy: float = 0.0
    max_energy: float = 1.01

    def pattern_for(self, bar_in_phrase: int) -> str:
        """The pattern of this layer for bar 0..3 of a 4-bar phrase."""
        if len(self.patterns) == 1:
            return self.patterns[0]
        if len(self.patterns) == 2:  # A A A B
            return self.patterns[1 if bar_in_phrase % 4 == 3 else 0]
        return self.patterns[bar_in_phrase % len(self.patterns)]


@dataclass(frozen=True, slots=True)
class DrumFamily:
    """A genre family's drums: layers, fill style, whether hats roll (trap)."""

    name: str
    layers: tuple[Layer, ...]
    fill: str  # key into FILLS
    hat_rolls: bool = False
    comping_snare: bool = False  # jazz: seeded snare comping
    crash: bool = True
    steady_kick: bool = False  # the kick keeps going through fills (four-on-the-floor, dembow)
    hits: bool = False  # every section opens with a hit (film music): kick, low tom and a crash
    thinning: bool = True  # the band's groove may leave notes out (a jam drummer only adds)
    hands: bool = False  # a drummer's stick on the cymbals: strokes written alike are played by the hand (`HAND_ACCENT`)
    triplets: bool = False  # a compound-metre kit (12/8): its grid is eighth-note triplets, two sixteenths each


def _l(note: int, *patterns: str, lo: float = 0.0, hi: float = 1.01) -> Layer:
    return Layer(note, tuple(patterns), lo, hi)


FAMILIES: dict[str, DrumFamily] = {
    "boom_bap": DrumFamily("boom_bap", (
        _l(KICK, "X......x..X.....", "X......x..X..x.."),
        _l(SNARE, "....X.......X...", lo=0.12),
        _l(CLOSED_HAT, "x.o.x.o.x.o.x.o.", hi=0.7),
        _l(CLOSED_HAT, "x.oxx.o.x.oxx.ox", lo=0.7),
        _l(SNARE, ".......g.......g", lo=0.55),
        _l(OPEN_HAT, "..............o.", lo=0.78),
    ), fill="toms", hands=True),
    "trap": DrumFamily("trap", (
        _l(KICK, "X......X.X......", "X.X.......X..X.."),
        _l(CLAP, "........X.......", lo=0.15),
        _l(SNARE, "........x.......", lo=0.5),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.6),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.6),
        _l(OPEN_HAT, "......o.........", lo=0.8),
    ), fill="snare_roll", hat_rolls=True),
    "four_on_floor": DrumFamily("four_on_floor", (
        _l(KICK, "X...X...X...X..."),
        _l(CLAP, "....X.......X...", lo=0.3),
        _l(CLOSED_HAT, "..x...x...x...x.", hi=0.5),
        _l(OPEN_HAT, "..o...o...o...o.", lo=0.5),
        _l(CLOSED_HAT, "xo.oxo.oxo.oxo.o", lo=0.72),
        _l(SHAKER, "ogogogogogogogog", lo=0.4),
        _l(RIDE, "..x...x...x...x.", lo=0.88),
    ), fill="snare_roll", steady_kick=True),
    "two_step": DrumFamily("two_step", (
        _l(KICK, "X.........X.....", "X......X...x...."),
        _l(SNARE, "....X.......X...", lo=0.15),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.45),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.45),
        _l(RIM, "...g......g..g..", lo=0.55),
        _l(OPEN_HAT, "......o.......o.", lo=0.7),
    ), fill="snare_roll"),
    "breakbeat": DrumFamily("breakbeat", (
        _l(KICK, "X.X.......X.....", "X.X.......XX...."),
        _l(SNARE, "....X..g.g..X..g", "....X..g.X..X..."),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.75),
        _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.75),
        _l(OPEN_HAT, "..............o.", lo=0.6),
        _l(SHAKER, "ogogogogogogogog", lo=0.7),
    ), fill="toms"),
    "dnb": DrumFamily("dnb", (
        _l(KICK, "X.........X.....", "X.........X..X.."),
        _l(SNARE, "....X.......X...", lo=0.1),
        _l(SNARE, ".......g......g.", lo=0.5),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.6),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.6),
        _l(RIDE, "x...x...x...x...", lo=0.8),
    ), fill="snare_roll"),
    "jazz_ride": DrumFamily("jazz_ride", (
        _l(RIDE, "X...x.o.X...x.o."),
        _l(PEDAL_HAT, "....x.......x..."),
        _l(KICK, "g...g...g...g..."),
    ), fill="jazz", comping_snare=True, crash=False),
    "rock_backbeat": DrumFamily("rock_backbeat", (
        _l(KICK, "X.......X.X.....", "X.x.....X.X....."),
        _l(SNARE, "....X.......X...", lo=0.1),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.78),
        _l(OPEN_HAT, "x.o.x.o.x.o.x.o.", lo=0.78),
        _l(KICK, "...............x", lo=0.7),
        _l(TAMBOURINE, "x.o.x.o.x.o.x.o.", lo=0.8),
    ), fill="toms", hands=True),
    "dembow": DrumFamily("dembow", (
        _l(KICK, "X...X...X...X..."),
        _l(SNARE, "...x..x....x..x.", lo=0.15),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.3),
        _l(RIM, "..o...o...o...o.", lo=0.65),
        _l(OPEN_HAT, "..............o.", lo=0.8),
    ), fill="snare_roll", steady_kick=True),
    # afrobeats: a clear syncopated kick, the 3-3-2 rim, shaker sixteenths kept low;
    # the hook adds off-beat hats, a clap on 2 and 4 and a few congas
    "afrobeat": DrumFamily("afrobeat", (
        _l(KICK, "X.....x...X.....", "X.....x...X..x.."),
        _l(RIM, "...x..x....x..x.", lo=0.15),
        _l(SHAKER, "ogogogogogogogog", lo=0.3),
        _l(CLOSED_HAT, "..o...o...o...o.", lo=0.65),
        _l(CLAP, "....x.......x...", lo=0.75),
        _l(OPEN_CONGA, "......o.......o.", lo=0.7),
        _l(LOW_CONGA, "...........o....", lo=0.8),
        _l(OPEN_HAT, "..............o.", lo=0.85),
    ), fill="toms"),
    # bossa nova: a soft two-feel kick, the cross-stick's clave and brushed eighths (hat, then ride)
    # — some 16 hits a bar; a shaker on the beats of a chorus, on the eighths of the last one
    "bossa": DrumFamily("bossa", (
        _l(KICK, "x.....o.x.....o."),  # with the bass: 1, 2-and, 3, 4-and
        _l(RIM, "x..x..x...x..x..", "..x..x..x......."),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.6),
        _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.6),
        _l(SHAKER, "x.o.x.o.x.o.x.o.", lo=0.75),
    ), fill="latin", crash=False),
    "funk": DrumFamily("funk", (
        _l(KICK, "X.x...x...X..x..", "X.....x.X.x....."),
        _l(SNARE, "....X..g.g..X..g", lo=0.1),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.5),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.5),
        _l(OPEN_HAT, "..............o.", lo=0.65),
        _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.75),
    ), fill="toms", hands=True),
    "shuffle": DrumFamily("shuffle", (
        _l(KICK, "X.......X.......", "X.......X.....x."),
        _l(SNARE, "....X.......X...", lo=0.1),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.75),
        _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.75),
        _l(SNARE, "..g...g...g...g.", lo=0.7),
    ), fill="toms", hands=True),
    "one_drop": DrumFamily("one_drop", (
        _l(KICK, "........X......."),
        _l(RIM, "........X.......", lo=0.1),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.6),
        _l(CLOSED_HAT, "x.xox.xox.xox.xo", lo=0.6),
        _l(OPEN_HAT, "..............o.", lo=0.7),
    ), fill="toms", crash=False, hands=True),
    "halftime": DrumFamily("halftime", (
        _l(KICK, "X.........X.....", "X......x..X....."),
        _l(SNARE, "........X.......", lo=0.12),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.65),
        _l(CLOSED_HAT, "x.xox.xox.xox.xo", lo=0.65),
        _l(SNARE, "...........g...g", lo=0.55),
    ), fill="snare_roll", hands=True),
    # Burial-style 2-step in half time: skippy kicks off the beat, one snare on 3,
    # sparse swung hats and ghosted rims and shakers under it
    "garage_halftime": DrumFamily("garage_halftime", (
        _l(KICK, "X......x..X.....", "X.........x..x.."),
        _l(SNARE, "........X.......", lo=0.12),
        _l(CLOSED_HAT, "..x...x...x...x.", hi=0.6),
        _l(CLOSED_HAT, "..x..ox...x..ox.", lo=0.6),
        _l(RIM, "...g.....g....g.", lo=0.3),
        _l(SHAKER, "g.g.g.g.g.g.g.g.", lo=0.75),
        _l(OPEN_HAT, "..............o.", lo=0.8),
    ), fill="snare_roll"),
    "ambient": DrumFamily("ambient", (  # no steady kick: a heartbeat at most, once a bar when it swells
        _l(SHAKER, "o...o...o...o..."),
        _l(KICK, "X...............", "................", lo=0.6),
        _l(RIM, "........o.......", lo=0.5),
        _l(RIDE, "o.......o.......", lo=0.7),
    ), fill="ambient", crash=False),
    # metal: double-kick runs under the riff once it is up, no tambourine anywhere
    "metal": DrumFamily("metal", (
        _l(KICK, "X...X...X.x.X...", hi=0.75),  # the verse's kick follows the riff
        _l(KICK, "XxxxX.x.XxxxX.x.", "XxxxXxxxXxxxXxxx", lo=0.75),  # the double kick is the heavy sections'

        _l(SNARE, "....X.......X...", lo=0.1),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.7),
        _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.7),
        _l(CRASH, "x.......x.......", lo=0.88),
    ), fill="toms", hands=True),
    # punk: fast and straight, the snare on 2 and 4, hats (then the ride) on every eighth
    "punk": DrumFamily("punk", (
        _l(KICK, "X.......X.x.....", "X...x...X.x.....", hi=0.7),
        _l(SNARE, "....X.......X...", lo=0.1, hi=0.7),
        _l(KICK, "X...X...X...X...", lo=0.7),  # the chorus: kick on the beat, snare on every 'and'
        _l(SNARE, "..X...X...X...X.", lo=0.7),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.75),
        _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.75),
        _l(CRASH, "x...............", lo=0.85),
    ), fill="toms", hands=True),
    # synthpop: a drum machine with a big gated snare, sixteenth hats when it lifts
    "synthpop": DrumFamily("synthpop", (
        _l(KICK, "X.......X.......", "X.......X.x....."),
        _l(SNARE, "....X.......X...", lo=0.1),
        _l(CLAP, "....X.......X...", lo=0.7),
        _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.55),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.55),
        _l(OPEN_HAT, "..............o.", lo=0.8),
    ), fill="toms"),
    # waltz (12 steps to the 3/4 bar): the low beat on one, light brushes on two and three
    "waltz": DrumFamily("waltz", (
        _l(KICK, "X...........", lo=0.2),
        _l(PEDAL_HAT, "....x...x...", lo=0.3),
        _l(RIM, "....o...o...", lo=0.55),
        _l(RIDE, "x...x...x...", lo=0.75),
    ), fill="toms", crash=False),
    # a session drummer with a taste for syncopation (the jam's BEAT): the kick figure gets
    # busier band by band as the energy rises, hats from quarters to sixteenths
    "jam": DrumFamily("jam", (
        _l(KICK, "X.......X.......", hi=0.25),
        _l(KICK, "X......X..X.....", lo=0.25, hi=0.45),
        _l(KICK, "X..X......X.....", lo=0.45, hi=0.65),
        _l(KICK, "X.....X...X..X..", lo=0.65, hi=0.85),
        _l(KICK, "X..X..X...X...X.", lo=0.85),
        _l(SNARE, "....X.......X..."),
        _l(CLOSED_HAT, "x...x...x...x...", hi=0.3),
        _l(CLOSED_HAT, "x.o.x.o.x.o.x.o.", lo=0.3, hi=0.75),
        _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.75),
    ), fill="toms", thinning=False),
    # film music: no groove kit — low drums that boom at every section and drive the climax
    "cinematic": DrumFamily("cinematic", (
        _l(LOW_TOM, "X.......o.....o.", lo=0.35),
        _l(KICK, "X.......x.......", lo=0.55),
        _l(MID_TOM, "..x...x...x...x.", lo=0.7),
        _l(SNARE, "....x.......x...", lo=0.85),
    ), fill="toms", hits=True),
}

# Fills: style → fill length in sixteenths → variants, each a tuple of
# (step offset into the fill, note, velocity char). Tom runs go high → low,
# snare rolls crescendo, jazz fills are "bombs" that set up the next section.
Fill = tuple[tuple[int, int, str], ...]
FILLS: dict[str, dict[int, tuple[Fill, ...]]] = {
    "toms": {
        4: (((0, SNARE, "x"), (1, SNARE, "o"), (2, HIGH_TOM, "x"), (3, LOW_TOM, "X")),
            ((0, SNARE, "x"), (1, HIGH_TOM, "x"), (2, MID_TOM, "x"), (3, LOW_TOM, "X"), (3, KICK, "x"))),
        8: (((0, SNARE, "x"), (1, SNARE, "o"), (2, HIGH_TOM, "x"), (3, HIGH_TOM, "o"),
             (4, HIGH_MID_TOM, "x"), (5, MID_TOM, "o"), (6, LOW_TOM, "x"), (7, LOW_TOM, "X")),
            ((0, SNARE, "o"), (1, SNARE, "o"), (2, SNARE, "x"), (3, SNARE, "x"),
             (4, HIGH_TOM, "x"), (5, HIGH_MID_TOM, "x"), (6, LOW_TOM, "X"), (7, KICK, "X"))),
    },
    "snare_roll": {
        4: (((0, SNARE, "o"), (1, SNARE, "o"), (2, SNARE, "x"), (3, SNARE, "X")),
            ((0, SNARE, "x"), (2, SNARE, "x"), (3, SNARE, "X"))),
        8: (((0, SNARE, "g"), (1, SNARE, "g"), (2, SNARE, "o"), (3, SNARE, "o"),
             (4, SNARE, "x"), (5, SNARE, "x"), (6, SNARE, "X"), (7, SNARE, "X")),
            ((0, SNARE, "o"), (2, SNARE, "o"), (4, SNARE, "x"), (5, SNARE, "x"), (6, SNARE, "X"),
             (7, SNARE, "X"))),
    },
    "jazz": {
        4: (((0, SNARE, "o"), (2, SNARE, "x"), (3, KICK, "X")), ((1, SNARE, "o"), (3, KICK, "X"))),
        8: (((0, SNARE, "g"), (2, SNARE, "o"), (3, SNARE, "o"), (4, SNARE, "x"),
             (6, HIGH_MID_TOM, "x"), (7, KICK, "X")),
            ((0, SNARE, "g"), (1, SNARE, "o"), (3, SNARE, "x"), (5, HIGH_MID_TOM, "x"), (6, LOW_TOM, "x"),
             (7, KICK, "X"))),
    },
    "latin": {
        4: (((0, HIGH_TIMBALE, "x"), (1, HIGH_TIMBALE, "o"), (2, RIM, "x"), (3, LOW_TOM, "X")),),
        8: (((0, HIGH_TIMBALE, "x"), (1, HIGH_TIMBALE, "o"), (2, HIGH_TIMBALE, "x"),
             (3, HIGH_TIMBALE, "o"), (4, HIGH_MID_TOM, "x"), (5, MID_TOM, "o"),
             (6, LOW_TOM, "x"), (7, LOW_TOM, "X")),),
    },
    "ambient": {4: (((0, RIDE_BELL, "o"),),), 8: (((0, RIDE_BELL, "o"), (4, RIDE_BELL, "o")),)},
}


def family(name: str) -> DrumFamily:
    """The drum family named `name`, falling back to a rock backbeat for unknown names."""
    return FAMILIES.get(name, FAMILIES["rock_backbeat"])


def fill_length(energy: float) -> int:
    """Sixteenths a fill takes at this energy: one beat when calm, two when high."""
    return 8 if energy >= 0.6 else 4


@dataclass(frozen=True, slots=True)
class GrooveChoice:
    """What a band's groove number decides about a drum family's pattern: a kick pushed
    into one syncopated step (in every bar, or only in the answering bars of a phrase),
    one kick left out, the hats' shape and the ghost notes. The drummer plays it and the
    bassist locks to the same kicks, whatever either part's own seed."""

    extra_kick: int | None = None
    extra_every_bar: bool = False
    dropped_kick: bool = False
    hat_shape: str = "as written"  # as written | accents | skip | sixteenths | quarters
    ghosts: tuple[int, ...] = ()


KICK_SPICE = (3, 6, 7, 10, 11, 13, 14)
# Kick figures a family's drummer also plays (A A A B over a phrase), one picked by the band's groove.
KICK_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "trap": (("X......X.X......", "X.X.......X..X.."), ("X.........X.X...", "X......X..X....."),
             ("X..X....X.......", "X.....X...X..X..")),
    "boom_bap": (("X......x..X.....", "X......x..X..x.."), ("X.x.......X.....", "X.x.......X..x.."),
                 ("X......X.xX.....", "X.......X.X.....")),
    "halftime": (("X.........X.....", "X......x..X....."), ("X..x......X.....", "X.....x...X..x.."),),
    "two_step": (("X.........X.....", "X......X...x...."), ("X.....x...X.....", "X.........x..x.."),),
    "dnb": (("X.........X.....", "X.........X..X.."), ("X.X.......X.....", "X.........XX...."),),
    "rock_backbeat": (("X.......X.X.....", "X.x.....X.X....."), ("X.......X.......", "X......xX.x....."),
                      ("X.x.....X.......", "X.x.....X.X...x.")),
    "funk": (("X.x...x...X..x..", "X.....x.X.x....."), ("X..x..x...X.....", "X.x...x.X..x....")),
    # the lo-fi kit's lazy kicks, late in the bar: each beat a producer chops has its own
    "lo-fi": (("X.........x.....", "X......x..x....."), ("X......x..X.....", "X.........x..x.."),
              ("X.x.......x.....", "X.x....x..x.....")),
}
HAT_SHAPES = ("as written", "accents", "skip", "sixteenths", "quarters")
# a 12/8 groove's choices: the hats as written or opened on the bar's last triplet, and snare ghosts on
# triplets between the dotted-quarter beats (after one and three, before three and one), never on a sixteenth
TRIPLET_HAT_SHAPES = ("as written", "accents")
TRIPLET_GHOSTS = (2, 10, 14, 22)


def groove_choice(fam: DrumFamily, groove: int) -> GrooveChoice:
    """The choices groove number `groove` makes for `fam` (0: the family as written)."""
    if groove == 0:
        return GrooveChoice()
    import random

    r = random.Random(groove * 7919 + len(fam.name))
    if fam.triplets:  # a 12/8 groove keeps to its triplets: no sixteenth kick, hats or ghosts between them
        return GrooveChoice(hat_shape=r.choice(TRIPLET_HAT_SHAPES), ghosts=tuple(sorted(r.sample(TRIPLET_GHOSTS, r.randrange(3)))))
    steady = fam.steady_kick or fam.name in ("jazz_ride", "ambient", "waltz")
    extra = None if steady else r.choice((*KICK_SPICE, None))
    shapes = HAT_SHAPES if fam.thinning else tuple(h for h in HAT_SHAPES if h not in ("skip", "quarters"))
    return GrooveChoice(extra_kick=extra, extra_every_bar=r.random() < 0.5,
                        dropped_kick=fam.thinning and not steady and r.random() < 0.3, hat_shape=r.choice(shapes),
                        ghosts=tuple(sorted(r.sample((3, 6, 7, 11, 14, 15), r.randrange(3)))))


def kick_steps(fam: DrumFamily, energy: float, bar_in_phrase: int, steps: int,
               fill_steps: int = 0, groove: int = 0) -> list[tuple[int, int]]:
    """The kick hits (step, velocity) of one bar; shared by the drums and the
    bass so the bass can lock to the kick without seeing the drum part.
    Kicks inside the fill (the last `fill_steps` sixteenths) are left to the fill."""
    hits: dict[int, int] = {}
    if fam.steady_kick:
        fill_steps = 0
    sets = KICK_SETS.get(fam.name, ())
    for i, layer in enumerate(fam.layers):
        if layer.note != KICK or not layer.min_energy <= energy < layer.max_energy:
            continue
        if i == 0 and groove and sets:  # the band's groove picks the first layer's figure and its answer
            figure = (sets[groove % len(sets)][0], sets[(groove // len(sets)) % len(sets)][-1])
            layer = Layer(KICK, figure, layer.min_energy, layer.max_energy)
        pattern = layer.pattern_for(bar_in_phrase)
        for step in range(steps - fill_steps):
            ch = pattern[step % len(pattern)]
            if ch != ".":
                hits[step] = max(hits.get(step, 0), STEP_VELOCITY[ch])
    choice = groove_choice(fam, groove)
    if hits and choice.extra_kick is not None and choice.extra_kick < steps - fill_steps \
            and (choice.extra_every_bar or bar_in_phrase % 2 == 1):
        hits.setdefault(choice.extra_kick, STEP_VELOCITY["x"])
    if choice.dropped_kick and len(hits) > 2:
        off = sorted(k for k in hits if k % 4 and k != choice.extra_kick)
        if off:
            del hits[off[-1]]
    return sorted(hits.items())
