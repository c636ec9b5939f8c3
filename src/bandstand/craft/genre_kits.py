"""Genre kits: the drum grid of one genre, played with the habits of its drum family.

A drum family (`kit.FAMILIES`) is a feel — a backbeat, four on the floor, a
half-time trap groove — that several genres share; the bass, the groove
template and the comping read the family. A kit is what one genre's drummer (or one instrument's band: a ukulele's)
plays within that feel: drill's triplet hats and late snare, techno's rolling
sixteenths, disco's open hat on every 'and', a cumbia's güiro. `kit_for` picks
the genre's kit when the genre's own feel is playing and the family otherwise
(a half-time hint or a blend that gives the rhythm to another genre). The kits of the
world's further traditions are `genre_kits_world`'s.

Pattern strings are read as in `kit`: one character per sixteenth, ``X``
accent, ``x`` normal, ``o`` soft, ``g`` ghost, ``.`` rest.
"""

from __future__ import annotations

from dataclasses import replace

from bandstand.craft.genre_kits_world import WORLD_KITS
from bandstand.craft.kit import (
    CABASA,
    CLAP,
    CLAVES,
    CLOSED_HAT,
    COWBELL,
    CRASH,
    FAMILIES,
    HIGH_BONGO,
    HIGH_TIMBALE,
    KICK,
    LOW_BONGO,
    LOW_CONGA,
    LOW_TOM,
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
    family,
)

__all__ = ["GENRE_KITS", "kit_for"]


def _l(note: int, *patterns: str, lo: float = 0.0, hi: float = 1.01) -> Layer:
    return Layer(note, tuple(patterns), lo, hi)


def _kit(name: str, feel: str, *layers: Layer, crash: bool | None = None, hat_rolls: bool | None = None,
         triplets: bool = False) -> DrumFamily:
    """Genre `name`'s kit: its own layers with the fills and cymbal habits of family `feel`."""
    base = FAMILIES[feel]
    return replace(base, name=name, layers=layers, crash=base.crash if crash is None else crash,
                   hat_rolls=base.hat_rolls if hat_rolls is None else hat_rolls, triplets=triplets)


# genre → (the drum family it is a kit of, the kit)
GENRE_KITS: dict[str, tuple[str, DrumFamily]] = {k.name: (feel, k) for feel, k in (
    # --- half-time trap feel ---
    ("trap", _kit("drill", "trap",  # sliding 808s under a sparse kick, written triplet-feel hats, snare on 3, a late one
                  _l(KICK, "X..X......X....."),
                  _l(SNARE, "........X.......", lo=0.15),
                  _l(SNARE, "..............x.", lo=0.5),
                  _l(CLAP, "........x.......", lo=0.55),
                  _l(CLOSED_HAT, "x..x..x.x..x..x.", hi=0.6),
                  _l(CLOSED_HAT, "x.xx.xx.x.xx.xx.", lo=0.6),
                  _l(RIM, "......o.......o.", lo=0.7), hat_rolls=False)),
    ("trap", _kit("grime", "trap",  # 140 straight: broken kicks, snare on 2 and 4, clipped hats
                  _l(KICK, "X.....x...x..x..", "X..x......x.x..."),
                  _l(SNARE, "....X.......X...", lo=0.12),
                  _l(CLAP, "....X.......X...", lo=0.6),
                  _l(CLOSED_HAT, "x...x.x.x...x.x.", hi=0.6),
                  _l(CLOSED_HAT, "x.x.x.xxx.x.x.xx", lo=0.6),
                  _l(RIM, "...o......o.....", lo=0.45), hat_rolls=False)),
    ("trap", _kit("hyperpop", "trap",  # clipped kicks on the beat, a clap on 2 and 4, hats as fast as they go
                  _l(KICK, "X...X.....X.X...", "X...X...X.X.X..."),
                  _l(CLAP, "....X.......X...", lo=0.15),
                  _l(SNARE, "....X.......X..x", lo=0.6),
                  _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx", lo=0.3),
                  _l(OPEN_HAT, "..o...o...o...o.", lo=0.75),
                  _l(CRASH, "x...............", lo=0.9))),
    # --- boom bap ---
    ("boom_bap", _kit("lo-fi", "boom_bap",  # lazy: the kick late in the bar, a rim for the snare, dusty hats
                      _l(KICK, "X.........x.....", "X......x..x....."),
                      _l(RIM, "....x.......x...", lo=0.1, hi=0.5),
                      _l(SNARE, "....x.......x...", lo=0.5),
                      _l(CLOSED_HAT, "x.o.x.o.x.o.x.o.", hi=0.75),
                      _l(CLOSED_HAT, "x.oox.o.x.oox.o.", lo=0.75),
                      _l(SHAKER, "..g...g...g...g.", lo=0.4),
                      _l(OPEN_HAT, "......o.......o.", lo=0.7),
                      _l(SNARE, "..........g....g", lo=0.7),
                      _l(RIDE, "x...x...x...x...", lo=0.75))),
    ("boom_bap", _kit("neo-soul", "boom_bap",  # behind the beat: ghosted snares, kick pushes, 16th hats
                      _l(KICK, "X......x.x......", "X.....x..x....x."),
                      _l(SNARE, "....X.......X...", lo=0.12),
                      _l(SNARE, "..g....g..g....g", lo=0.45),
                      _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.7),
                      _l(CLOSED_HAT, "x.xox.xox.xox.xo", lo=0.7),
                      _l(OPEN_HAT, "......o.......o.", lo=0.8),
                      _l(RIM, "..........o.....", lo=0.3))),
    # --- half time ---
    # --- the 12/8 slow jam (24 sixteenths a bar, the eighth-note triplets two steps each) ---
    ("shuffle", _kit("r&b", "shuffle",  # triplet hats, the backbeat on 2 and 4 of the dotted-quarter pulse
                     _l(KICK, "X.........x.X...........", "X.........x.X.......x..."),
                     _l(SNARE, "......X...........X.....", lo=0.12),
                     _l(CLOSED_HAT, "x.o.o.x.o.o.x.o.o.x.o.o.", hi=0.7),
                     _l(CLOSED_HAT, "X.o.o.x.o.o.X.o.o.x.o.o.", lo=0.7),
                     _l(RIM, "......o...........o.....", hi=0.35),
                     _l(CLAP, "......x...........x.....", lo=0.6),
                     _l(OPEN_HAT, "......................o.", lo=0.75), triplets=True)),
    ("halftime", _kit("dubstep", "halftime",  # a kick on one, the snare on three, space in between
                      _l(KICK, "X.........X.....", "X.......X.X....."),
                      _l(SNARE, "........X.......", lo=0.1),
                      _l(CLAP, "........X.......", lo=0.6),
                      _l(CLOSED_HAT, "..x...x...x...x.", hi=0.7),
                      _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.7),
                      _l(OPEN_HAT, "......o.........", lo=0.5))),
    ("halftime", _kit("trip-hop", "halftime",  # a heavy, slow break: the kick doubles, brushy hats
                      _l(KICK, "X.....x...X..x..", "X.X.......X....."),
                      _l(SNARE, "........X......g", lo=0.12),
                      _l(CLOSED_HAT, "x.o.x.o.x.o.x.o.", hi=0.7),
                      _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.7),
                      _l(SHAKER, "gogogogogogogogo", lo=0.7))),
    # --- four on the floor ---
    ("four_on_floor", _kit("deep house", "four_on_floor",  # soft kick, a rim and shaker swing, the clap late
                           _l(KICK, "X...X...X...X..."),
                           _l(CLAP, "....x.......x...", lo=0.4),
                           _l(RIM, "...o......o..o..", lo=0.25),
                           _l(CLOSED_HAT, "..o...o...o...o.", lo=0.0),
                           _l(SHAKER, "gogogogogogogogo", lo=0.35),
                           _l(CLOSED_HAT, "x...x...x...x...", lo=0.7),
                           _l(RIDE, "..x...x...x...x.", lo=0.75),
                           _l(OPEN_HAT, "..............o.", lo=0.8))),
    ("four_on_floor", _kit("techno", "four_on_floor",  # rolling sixteenth hats, an off-beat hat, a rim for a snare
                           _l(KICK, "X...X...X...X..."),
                           _l(CLOSED_HAT, "x.xxx.xxx.xxx.xx", lo=0.35),
                           _l(OPEN_HAT, "..x...x...x...x.", lo=0.55),
                           _l(RIM, "......o.......o.", lo=0.3),
                           _l(CLAP, "....x.......x...", lo=0.8),
                           _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.9))),
    ("four_on_floor", _kit("edm", "four_on_floor",  # big room: claps stacked on snares, open hats, crashes
                           _l(KICK, "X...X...X...X..."),
                           _l(CLAP, "....X.......X...", lo=0.2),
                           _l(SNARE, "....X.......X...", lo=0.6),
                           _l(OPEN_HAT, "..x...x...x...x.", lo=0.45),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.45),
                           _l(CRASH, "x...............", lo=0.9))),
    ("four_on_floor", _kit("trance", "four_on_floor",  # the off-beat open hat, sixteenths above it, a ride on top
                           _l(KICK, "X...X...X...X..."),
                           _l(OPEN_HAT, "..X...X...X...X.", lo=0.3),
                           _l(CLOSED_HAT, "xxoxxxoxxxoxxxox", lo=0.6),
                           _l(CLAP, "....x.......x...", lo=0.5),
                           _l(RIDE, "..x...x...x...x.", lo=0.85))),
    ("four_on_floor", _kit("disco", "four_on_floor",  # the 'tss' open hat on every 'and', snare on 2 and 4
                           _l(KICK, "X...X...X...X..."),
                           _l(SNARE, "....X.......X...", lo=0.2),
                           _l(OPEN_HAT, "..X...X...X...X.", lo=0.2),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.55),
                           _l(TAMBOURINE, "xoxoxoxoxoxoxoxo", lo=0.7),
                           _l(HIGH_BONGO, "...o.....o......", lo=0.8))),
    ("four_on_floor", _kit("amapiano", "four_on_floor",  # a soft kick, shakers, the wood-block 3-step
                           _l(KICK, "X...X...X...X...", lo=0.2),
                           _l(SHAKER, "xoxoxoxoxoxoxoxo", lo=0.0),
                           _l(RIM, "..x..x....x..x..", lo=0.3),
                           _l(CLAP, "....x.......x...", lo=0.5),
                           _l(LOW_CONGA, ".......o.......o", lo=0.65),
                           _l(CLOSED_HAT, "..x...x...x...x.", lo=0.7),
                           _l(OPEN_HAT, "..............o.", lo=0.8))),
    # --- backbeat ---
    ("rock_backbeat", _kit("soul", "rock_backbeat",  # Motown: the snare and tambourine together on every beat
                           _l(KICK, "X.....x.X.....x."),
                           _l(SNARE, "X...X...X...X...", lo=0.3),
                           _l(TAMBOURINE, "....x.......x...", lo=0.1, hi=0.7),
                           _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.7),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.0),
                           _l(OPEN_HAT, "..............o.", lo=0.8))),
    # the church drummer: sixteenth hats, claps, and ghost notes when the church is up (the verse's backbeat
    # is plain, its hats eighths: the band leaves the singer room)
    ("rock_backbeat", _kit("gospel", "rock_backbeat",
                           _l(KICK, "X.......X..x....", "X..x....X.x....."),
                           _l(SNARE, "....X.......X...", lo=0.1),
                           _l(SNARE, "...g..g....g.g.g", lo=0.75),
                           _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.0),
                           _l(CLAP, "....X.......X...", lo=0.75),
                           _l(TAMBOURINE, "x.x.x.x.x.x.x.x.", lo=0.7))),
    ("rock_backbeat", _kit("pop", "rock_backbeat",  # a programmed backbeat with a clap and a shaker
                           _l(KICK, "X.......X.......", "X.....x.X......."),
                           _l(SNARE, "....X.......X...", lo=0.1),
                           _l(CLAP, "....X.......X...", lo=0.6),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.0),
                           _l(SHAKER, "ogogogogogogogog", lo=0.45))),
    ("rock_backbeat", _kit("k-pop", "rock_backbeat",  # trap hats over a dance kick, claps, big builds
                           _l(KICK, "X..X..X...X.....", "X...X...X...X..."),
                           _l(CLAP, "....X.......X...", lo=0.1),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.7),
                           _l(CLOSED_HAT, "x.xxx.x.x.xxx.xx", lo=0.7),
                           _l(OPEN_HAT, "......o.......o.", lo=0.7),
                           _l(SNARE, "............x.x.", lo=0.8))),
    ("rock_backbeat", _kit("indie", "rock_backbeat",  # floor-tom eighths, kick on the beat, the ride when it opens
                           _l(KICK, "X...X...X...X...", "X...X...X.x.X..."),
                           _l(SNARE, "....X.......X...", lo=0.15),
                           _l(LOW_TOM, "x.x.x.x.x.x.x.x.", hi=0.55),
                           _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.55, hi=0.7),
                           _l(RIDE, "xoxoxoxoxoxoxoxo", lo=0.7))),
    ("rock_backbeat", _kit("shoegaze", "rock_backbeat",  # a wash of ride and crash under the wall of guitars
                           _l(KICK, "X.......X.X.....", "X.x.....X......."),
                           _l(SNARE, "....X.......X...", lo=0.1),
                           _l(RIDE, "x.x.x.x.x.x.x.x.", hi=0.7),
                           _l(RIDE, "xoxoxoxoxoxoxoxo", lo=0.7),
                           _l(CRASH, "x.......x.......", lo=0.7))),
    ("rock_backbeat", _kit("country", "rock_backbeat",  # the train beat: cross-stick backbeat, brushed eighths
                           _l(KICK, "X.......X.......", "X.......X.....x."),
                           _l(RIM, "....x.......x...", lo=0.1, hi=0.7),
                           _l(SNARE, "gogXgogogogXgogo", lo=0.7),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.0),
                           _l(TAMBOURINE, "....x.......x...", lo=0.8))),
    ("rock_backbeat", _kit("synthwave", "rock_backbeat",  # a gated snare, sixteenth machine hats, tom fills
                           _l(KICK, "X.......X.......", "X.......X...x..."),
                           _l(SNARE, "....X.......X...", lo=0.1),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.7),
                           _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.7),
                           _l(CLAP, "....x.......x...", lo=0.75),
                           _l(OPEN_HAT, "..............o.", lo=0.6))),
    ("rock_backbeat", _kit("chiptune", "rock_backbeat",  # noise-channel drums: kick on the beat, a snare answer
                           _l(KICK, "X...X...X...X...", "X...X...X.X.X..."),
                           _l(SNARE, "....X.......X..x", lo=0.1),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", hi=0.6),
                           _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx", lo=0.6))),
    ("rock_backbeat", _kit("industrial", "rock_backbeat",  # a machine kick, snare and clap slammed together, metal hats
                           _l(KICK, "X..X..X.X..X..X.", "X.X...X.X.X...X."),
                           _l(SNARE, "....X.......X...", lo=0.1),
                           _l(CLAP, "....X.......X...", lo=0.3),
                           _l(CLOSED_HAT, "xxxxxxxxxxxxxxxx", lo=0.4),
                           _l(COWBELL, "..o.......o.....", lo=0.7))),
    ("rock_backbeat", _kit("polka", "rock_backbeat",  # oom-pah: the kick on the beat, the snare on every 'and'
                           _l(KICK, "X...X...X...X..."),
                           _l(SNARE, "..x...x...x...x.", lo=0.1),
                           _l(CLOSED_HAT, "..x...x...x...x.", hi=0.7),
                           _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.7),
                           _l(CRASH, "..............x.", lo=0.85), crash=False)),
    ("rock_backbeat", _kit("bluegrass", "rock_backbeat",  # when there is a drummer at all: brushes on the off-beats
                           _l(SNARE, "..o...o...o...o.", lo=0.0),
                           _l(SNARE, "o...o...o...o...", lo=0.7),
                           _l(KICK, "X.......X.......", lo=0.4), crash=False)),
    ("rock_backbeat", _kit("acoustic", "rock_backbeat",  # a ukulele's band: stomp, claps, a shaker, no cymbals
                           _l(KICK, "X.......X.......", "X.....x.X......."),
                           _l(CLAP, "....x.......x...", lo=0.1),
                           _l(SHAKER, "x.o.x.o.x.o.x.o.", lo=0.0),
                           _l(TAMBOURINE, "..x...x...x...x.", lo=0.75), crash=False)),
    # --- funk ---
    ("funk", _kit("city pop", "funk",  # a session drummer: sixteenth hats, ghosted snare, open hat on 'and' of 4
                  _l(KICK, "X.....x.X.......", "X.....x.X..x...."),
                  _l(SNARE, "....X.......X...", lo=0.1),
                  _l(SNARE, ".......g.g.....g", lo=0.5),
                  _l(CLOSED_HAT, "xoxoxoxoxoxoxoxo", lo=0.0),
                  _l(OPEN_HAT, "..............o.", lo=0.6),
                  _l(SHAKER, "ogogogogogogogog", lo=0.75))),
    # --- breakbeat and jungle ---
    ("breakbeat", _kit("jungle", "breakbeat",  # a chopped amen: the kick doubled, snares bouncing, ride on top
                       _l(KICK, "X.X.......XX....", "X.X.......X....."),
                       _l(SNARE, "....X..X.X..X..X", "....X..X.X....X."),
                       _l(RIDE, "x.x.x.x.x.x.x.x.", lo=0.2),
                       _l(CLOSED_HAT, "..o...o...o...o.", lo=0.6))),
    # --- jazz ---
    ("jazz_ride", _kit("bebop", "jazz_ride",  # up-tempo spang-a-lang, hi-hat on 2 and 4, kick feathered soft
                       _l(RIDE, "X..xx..xX..xx..x"),
                       _l(PEDAL_HAT, "....x.......x..."),
                       _l(KICK, "g.......g......."))),
    # --- dembow ---
    ("dembow", _kit("dancehall", "dembow",  # the riddim: kick on one and three, the snare's 'boom-ch-boom-chick'
                    _l(KICK, "X.......X.......", "X.....x.X......."),
                    _l(SNARE, "...x..x.....x...", lo=0.15),
                    _l(CLOSED_HAT, "x.x.x.x.x.x.x.x.", lo=0.2),
                    _l(RIM, "......o.......o.", lo=0.55),
                    _l(SHAKER, "xoxoxoxoxoxoxoxo", lo=0.7),
                    _l(OPEN_HAT, "..............o.", lo=0.8))),
    # --- latin ---
    ("bossa", _kit("salsa", "bossa",  # 3-2 son clave, the timbale's cascara, conga tumbao, cowbell when up
                   _l(CLAVES, "X..X...X..X.X...", lo=0.0),
                   _l(HIGH_TIMBALE, "x.xx.x.xx.x.x.x.", lo=0.2, hi=0.7),
                   _l(COWBELL, "X.x.X.xxX.x.X.xx", lo=0.7),
                   _l(LOW_CONGA, "..o...o...o...o.", lo=0.75),
                   _l(MUTE_CONGA, "....o.......o...", lo=0.1),
                   _l(OPEN_CONGA, "......xx......xx", lo=0.1),
                   _l(KICK, "......x.....x...", lo=0.3))),  # with the bass's tumbao
    ("bossa", _kit("cumbia", "bossa",  # the güiro's scrape, a kick on one and three, congas answering
                   _l(SHORT_GUIRO, "x.xxx.xxx.xxx.xx", lo=0.0),
                   _l(KICK, "X.......X.......", lo=0.15),
                   _l(LOW_CONGA, "......o.......o.", lo=0.2),
                   _l(MUTE_CONGA, "..o.......o.....", lo=0.3),
                   _l(RIM, "....x.......x...", lo=0.5),
                   _l(COWBELL, "x...x...x...x...", lo=0.7),
                   _l(LOW_BONGO, "...o...o...o...o", lo=0.8))),
    ("bossa", _kit("flamenco", "bossa",  # a rumba on the cajón (low and slapped congas) and palmas (claps)
                   _l(LOW_CONGA, "X.....x.X.....x.", lo=0.0),
                   _l(MUTE_CONGA, "....x.......x...", lo=0.1),
                   _l(CLAP, "..x.x.x...x.x.x.", lo=0.3),
                   _l(SHAKER, "x.x.x.x.x.x.x.x.", lo=0.7))),
    ("bossa", _kit("tango", "bossa",  # no kit: the band's marcato is the drum; a light brush when it is up
                   _l(SNARE, "X...x...X...x...", lo=0.6), crash=False)),
    # --- afrobeat ---
    ("afrobeat", _kit("highlife", "afrobeat",  # the bell's timeline, a soft kick, congas and a shaker
                      _l(RIDE_BELL, "X.x.xx.x.xx.x.x.", lo=0.0),
                      _l(KICK, "X.......X.......", lo=0.15),
                      _l(OPEN_CONGA, "...o..o....o..o.", lo=0.25),
                      _l(LOW_BONGO, ".o.......o......", lo=0.45),
                      _l(CABASA, "xoxoxoxoxoxoxoxo", lo=0.6),
                      _l(SNARE, "....x.......x...", lo=0.75))),
    # --- film and concert music ---
    ("ambient", _kit("classical", "ambient",  # no kit: timpani rolls (low tom) at the climaxes only
                     _l(LOW_TOM, "X...............", lo=0.8),
                     _l(MID_TOM, "........o.......", lo=0.9))),
)} | WORLD_KITS

def kit_for(drum_family: str, genre: str, steps: int | None = None) -> DrumFamily:
    """What the drummer plays: genre `genre`'s kit while its own feel `drum_family` is
    playing, the family's pattern otherwise. A kit written for a bar of another length than
    `steps` sixteenths (the slow jam's 12/8 kit in an R&B song asked for in 4/4) leaves the
    bar to its family's pattern."""
    entry = GENRE_KITS.get(genre)
    if entry is not None and entry[0] == drum_family and (steps is None or _fits(entry[1], steps)):
        return entry[1]
    return family(drum_family)


def _fits(kit: DrumFamily, steps: int) -> bool:
    """Whether every pattern of `kit` repeats evenly in a bar of `steps` sixteenths."""
    return not kit.triplets or all(steps % len(p) == 0 for layer in kit.layers for p in layer.patterns)
