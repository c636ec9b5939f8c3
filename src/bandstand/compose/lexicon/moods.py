"""Mood words: what a feeling word does to mode, creativity dials, energy and tempo.

Each row is one mood (its label is what lands in `Intent.mood`) with the
words and phrases that name it, the mode it pulls towards (or none), the
deltas it adds to the harmonic and rhythmic dials, its energy (0–1), a tempo
bias (−1 slower, 0, +1 faster) and the genres it suggests when the prompt
names no genre at all.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Mood:
    label: str
    words: tuple[str, ...]
    mode: str | None
    harmonic: float
    rhythmic: float
    energy: float
    tempo_bias: int
    genres: tuple[str, ...]


def _m(label: str, words: str, mode: str | None, harmonic: float, rhythmic: float, energy: float,
       tempo_bias: int, genres: str) -> Mood:
    return Mood(label, tuple(w.strip() for w in words.split("|")), mode, harmonic, rhythmic, energy,
                tempo_bias, tuple(g.strip() for g in genres.split(",") if g.strip()))


MOODS: tuple[Mood, ...] = (
    _m("dark", "dark|darker|darkness|sinister|menacing|ominous|evil|grim|brooding|moody", "minor", 0.1, 0.0, 0.6, 0,
       "trap,techno,dubstep,drill"),
    _m("late-night", "late-night|late night|late at night|at night|midnight|after hours|after-hours|nocturnal|2am|3am|night drive|nighttime",
       "minor", 0.05, 0.0, 0.35, -1, "neo-soul,r&b,deep house,lo-fi"),
    _m("warm", "warm|warmth|cozy|cosy|comforting|tender|soft", None, 0.05, -0.05, 0.35, -1,
       "neo-soul,lo-fi,ambient,gospel"),
    _m("happy", "happy|joyful|joyous|cheerful|upbeat|uplifting|bright|sunny|feel-good|feel good|fun|playful|bouncy",
       "major", -0.05, 0.05, 0.75, 1, "pop,house,afrobeat,funk"),
    _m("sad", "sad|melancholic|melancholy|somber|sombre|heartbroken|heartbreak|mournful|blue|lonely|longing|crying|tearful",
       "minor", 0.1, -0.05, 0.3, -1, "r&b,indie,lo-fi,cinematic"),
    _m("chill", "chill|chilled|relaxed|relaxing|laid-back|laid back|mellow|calm|peaceful|lazy|easy|smooth|gentle|soothing",
       None, -0.1, -0.1, 0.3, -1, "lo-fi,neo-soul,bossa nova,ambient"),
    _m("experimental", "experimental|weird|avant-garde|avant garde|abstract|strange|glitchy|unpredictable|leftfield|quirky",
       None, 0.3, 0.3, 0.5, 0, "ambient,breakbeat,jazz"),
    _m("energetic", "energetic|hype|hyped|intense|driving|banging|high-energy|high energy|powerful|pumping|party|club|rave",
       None, 0.0, 0.1, 0.9, 1, "edm,house,drum & bass,trap"),
    # anger is a feeling, whose songs are short, fast and shouted (punk, hardcore); heaviness is a
    # sound (down-tuned, chugging, slower): "something angry" and "something heavy" are two songs
    _m("angry", "angry|anger|furious|fury|rage|raging|enraged|livid|pissed off|pissed|mad as hell",
       None, 0.0, 0.15, 0.95, 1, "punk,metal,industrial,drill"),
    _m("aggressive", "aggressive|hard-hitting|hard hitting|heavy|brutal|violent|gritty",
       "minor", 0.0, 0.1, 0.95, 1, "metal,drill,dubstep,trap"),
    _m("dreamy", "dreamy|ethereal|floaty|floating|hazy|airy|celestial|weightless|blissful", "lydian", 0.15, -0.1, 0.3,
       -1, "ambient,indie,synthwave"),
    _m("epic", "epic|heroic|triumphant|anthemic|majestic|grand|cinematic feel|soaring|battle|boss battle|boss fight|adventure", None, 0.05, 0.0, 0.85, 0,
       "cinematic,edm,rock"),
    _m("romantic", "romantic|sensual|sexy|seductive|intimate|loving|lush|silky|velvet", None, 0.15, 0.0, 0.45, -1,
       "r&b,neo-soul,bossa nova"),
    _m("nostalgic", "nostalgic|nostalgia|wistful|bittersweet|retro|vintage|throwback|memories|old-school|old school",
       None, 0.1, 0.0, 0.45, 0, "lo-fi,synthwave,soul"),
    _m("mysterious", "mysterious|eerie|spooky|haunting|haunted|ghostly|creepy|uneasy|tense|suspense|suspenseful|cold",
       "minor", 0.15, 0.0, 0.45, 0, "ambient,trip-hop,cinematic"),
    _m("groovy", "groovy|funky|groove|danceable|bumping|swagger|swaggy", "dorian", 0.05, 0.15, 0.7, 0,
       "funk,disco,house"),
    _m("spacey", "spacey|spacy|cosmic|space|galactic|interstellar|astral|futuristic", "lydian", 0.15, 0.0, 0.45, 0,
       "ambient,synthwave,techno"),
    _m("hypnotic", "hypnotic|trance-like|repetitive|mesmerizing|mesmerising|trippy|psychedelic", None, 0.05, 0.05, 0.6, 0,
       "techno,deep house,ambient"),
    _m("rainy", "rainy|rain|grey|gray|overcast|autumn|fall evening|stormy", "minor", 0.05, -0.05, 0.3, -1,
       "lo-fi,trip-hop,ambient"),
    _m("summer", "summer|summery|tropical|beach|island|sunset|vacation|holiday|festival season", "major", 0.0, 0.1, 0.7, 0,
       "afrobeat,reggaeton,house,reggae"),
    _m("dusty", "dusty|lo-fi feel|crackly|vinyl|raw|gritty samples|grimy|dirty", None, 0.05, 0.05, 0.5, 0,
       "hip-hop,lo-fi"),
    _m("spiritual", "spiritual|soulful|uplifted|hopeful|hope|sacred|gospel feel|blessed|healing", "major", 0.15, 0.0, 0.6,
       0, "gospel,soul,neo-soul"),
    _m("meditative", "meditative|meditation|yoga|spa|zen|mindful|mindfulness|breathing|sleep|sleeping|relaxation",
       None, 0.0, -0.15, 0.15, -1, "ambient,cinematic,lo-fi"),
    _m("minimal", "minimal|minimalist|sparse|stripped|stripped-back|bare|simple", None, -0.2, -0.15, 0.35, 0,
       "techno,ambient,deep house"),
    # a robot is a sound (square waves, an arpeggiator), not a genre: it suggests none of its own
    _m("mechanical", "robot|robots|robotic|mechanical|machine|machines|cyborg|android|clockwork|automaton", None,
       0.0, 0.0, 0.4, 0, ""),
    _m("lullaby", "lullaby|lullabies|cradle song|bedtime|nursery", "major", -0.05, -0.1, 0.15, -1,
       "new age,waltz,classical"),
    _m("funereal", "funeral|funereal|dirge|requiem|elegy|elegiac|lament|mourning", "minor", 0.1,
       -0.15, 0.15, -1, "chamber,choral,gospel,classical"),
    _m("morning", "morning|sunday|sunday morning|sunrise|dawn|breakfast|first coffee|waking up", "major", 0.0,
       -0.05, 0.4, -1, "bossa nova,folk,soul,indie"),
    _m("celebration", "wedding|celebration|celebrate|celebratory|birthday|fiesta|carnival|jubilant", "major", 0.0,
       0.1, 0.85, 1, "soul,samba,disco,pop"),
    _m("complex", "complex|sophisticated|intricate|elaborate|rich harmony|complex chords|jazzy chords|extended chords|jazzy|jazz-tinged|jazz influenced",
       None, 0.25, 0.05, 0.55, 0, "jazz,neo-soul"),
)

MOOD_BY_LABEL: dict[str, Mood] = {m.label: m for m in MOODS}

# Nouns that say what kind of thing is wanted; with no genre named they pick a default.
OBJECT_DEFAULTS: dict[str, str] = {
    "beat": "hip-hop", "beats": "hip-hop", "instrumental": "hip-hop", "loop": "hip-hop",
    "banger": "trap", "anthem": "edm", "club track": "house", "dance track": "house",
    "ballad": "pop", "song": "pop", "tune": "pop", "track": "pop", "jam": "funk", "groove": "funk",
    "soundscape": "ambient", "lullaby": "ambient", "score": "cinematic", "music": "pop", "piece": "classical",
    "composition": "classical",
}
