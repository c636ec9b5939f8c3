"""Stage 5 — sound: presets, levels, pans, effect chains, sends and the master's
loudness target for every part.

The preset catalog is a table per role × harmony family (the first entry is
the recommendation, the next two the ranked alternatives), and every preset
names the General MIDI program that plays it (`PRESET_PROGRAMS`). The preset
named is the instrument heard: the part keeps the program its generator chose
(from the genre's instrumentation or the prompt), and the preset is the first
catalog entry played by that program — or, when none is, the GM program itself.

Levels come from the balance targets by role and genre family (`craft.balance`: each fader
set for the GM sound behind it and, when the parts are given, for their notes); pans come by
role; effect chains are
`score.mix` effects (so the render applies them): EQ and compression by role,
a sidechain-style pump (a tremolo at the beat rate, dipping on every kick) for
four-on-the-floor families, overdrive on the bass and chords of dusty styles and on 808s, an amp's
overdrive on the overdriven guitar (`AMPS`), a tempo-synced
delay on leads, and sends to one shared "Reverb" bus whose room depends on the
genre. Constraints ("no reverb", "no delay") remove what they name.
`apply_sound` writes the plan into a song's tracks and buses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from bandstand.compose.lexicon import GenreTraits, primary_genre
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.sound import Bus, Effect, PartSound, Preset, SendPlan, SoundPlan
from bandstand.score import Bus as MixBus
from bandstand.score import Effect as MixEffect
from bandstand.score import Send, Song, Track, TrackMix

# role → harmony family → (recommended, alternative 1, alternative 2); "*" is the fallback family.
CATALOG: dict[str, dict[str, tuple[str, str, str]]] = {
    "drums": {
        "trap": ("808 Trap Kit", "Drill Kit", "Lo-fi Kit"),
        "neosoul": ("Dusty Live Kit", "Brushed Soul Kit", "MPC Boom-Bap Kit"),
        "lofi": ("MPC Boom-Bap Kit", "Dusty Live Kit", "Tape Kit"),
        "house": ("909 House Kit", "808 House Kit", "Garage Shuffle Kit"),
        "edm": ("909 Festival Kit", "Big Room Kit", "808 House Kit"),
        "jazz": ("Jazz Brush Kit", "Bebop Ride Kit", "Dusty Live Kit"),
        "rock": ("Rock Room Kit", "Arena Kit", "Garage Rock Kit"),
        "dnb": ("Amen Break Kit", "Liquid DnB Kit", "Neuro Kit"),
        "ambient": ("Soft Texture Kit", "Granular Perc", "Brushed Soul Kit"),
        "latin": ("Latin Percussion Kit", "Reggaeton Kit", "Bossa Brush Kit"),
        "afrobeat": ("Afrobeats Kit", "Highlife Kit", "Amapiano Kit"),
        "funk": ("Funk Tight Kit", "Disco Kit", "Dusty Live Kit"),
        "*": ("Standard Kit", "Dusty Live Kit", "909 House Kit"),
    },
    "bass": {
        "trap": ("808 Sub Glide", "Distorted 808", "Sine Sub"),
        "neosoul": ("Fingered P-Bass", "Moog Sub", "Upright Warm"),
        "lofi": ("Muted Finger Bass", "Upright Warm", "Tape Sub"),
        "house": ("Deep House Sub", "Organ Bass", "Acid 303"),
        "edm": ("Saw Pluck Bass", "Reese", "Sub Sine"),
        "jazz": ("Upright Jazz Bass", "Fretless", "Fingered P-Bass"),
        "rock": ("Picked P-Bass", "Overdriven Bass", "Fingered Jazz Bass"),
        "dnb": ("Reese Bass", "Sub Sine", "Neuro Growl"),
        "funk": ("Slap Bass", "Fingered Jazz Bass", "Synth Funk Bass"),
        "*": ("Fingered Bass", "Synth Bass", "Sub Sine"),
    },
    "chords": {
        "neosoul": ("Rhodes Mk I", "Wurlitzer", "Felt Piano"),
        "jazz": ("Steinway Jazz Piano", "Rhodes Mk I", "Hollow-body Guitar"),
        "lofi": ("Dusty Rhodes", "Felt Piano", "Tape Piano"),
        "house": ("House Piano Stabs", "M1 Organ", "Chord Stab Synth"),
        "trap": ("Dark Felt Piano", "Bell Keys", "Choir Pad Keys"),
        "gospel": ("Gospel Grand", "Hammond B3", "Rhodes Mk I"),
        "rock": ("Crunch Guitar", "Clean Strat", "Hammond B3"),
        "edm": ("Supersaw Chords", "Pluck Chords", "Poly Stab"),
        "*": ("Grand Piano", "Electric Piano", "Poly Synth"),
    },
    "lead": {
        "neosoul": ("Soft Flute", "Vocal-like Sine", "Muted Trumpet"),
        "trap": ("Music Box Bells", "Dark Pluck", "Flute Sample"),
        "house": ("Saw Lead", "Vocal Chop Sampler", "Organ Lead"),
        "jazz": ("Tenor Sax", "Alto Sax", "Muted Trumpet"),
        "lofi": ("Vibraphone", "Flute", "Jazz Guitar"),
        "rock": ("Lead Guitar", "Fuzz Guitar", "Synth Lead"),
        "*": ("Square Lead", "Saw Lead", "Pluck Lead"),
    },
    "pad": {
        "ambient": ("Evolving Granular Pad", "Choir Pad", "Glass Pad"),
        "neosoul": ("Warm Analog Pad", "String Ensemble", "Choir Pad"),
        "edm": ("Supersaw Pad", "Sweep Pad", "Warm Analog Pad"),
        "*": ("Warm Analog Pad", "String Ensemble", "Choir Pad"),
    },
}
ROLE_FALLBACK = {"sub_bass": "bass", "arp": "lead", "counter_melody": "lead", "percussion": "drums"}

# Every preset's General MIDI program (drum kits: the GS kit on channel 10, `midi.DRUM_KITS` —
# the standard kit, a live kit in a room, the jazz kit, brushes).
PRESET_PROGRAMS: dict[str, int] = {
    **{kit: 0 for kit in {n for row in CATALOG["drums"].values() for n in row}},
    "Dusty Live Kit": 8, "Funk Tight Kit": 8, "Bebop Ride Kit": 32, "Jazz Brush Kit": 40, "Brushed Soul Kit": 40,
    "Bossa Brush Kit": 40,
    "808 Sub Glide": 38, "Distorted 808": 39, "Sine Sub": 38, "Fingered P-Bass": 33, "Moog Sub": 39,
    "Upright Warm": 32, "Muted Finger Bass": 33, "Tape Sub": 38, "Deep House Sub": 38, "Organ Bass": 39,
    "Acid 303": 39, "Saw Pluck Bass": 39, "Reese": 39, "Sub Sine": 38, "Upright Jazz Bass": 32, "Fretless": 35,
    "Picked P-Bass": 34, "Overdriven Bass": 34, "Fingered Jazz Bass": 33, "Reese Bass": 39, "Neuro Growl": 39,
    "Slap Bass": 36, "Synth Funk Bass": 38, "Fingered Bass": 33, "Synth Bass": 38,
    "Rhodes Mk I": 4, "Wurlitzer": 5, "Felt Piano": 0, "Steinway Jazz Piano": 0, "Hollow-body Guitar": 26,
    "Dusty Rhodes": 4, "Tape Piano": 1, "House Piano Stabs": 1, "M1 Organ": 16, "Chord Stab Synth": 90,
    "Dark Felt Piano": 0, "Bell Keys": 11, "Choir Pad Keys": 52, "Gospel Grand": 0, "Hammond B3": 16,
    "Crunch Guitar": 29, "Clean Strat": 27, "Supersaw Chords": 81, "Pluck Chords": 90, "Poly Stab": 90,
    "Grand Piano": 0, "Electric Piano": 4, "Poly Synth": 90,
    "Soft Flute": 73, "Vocal-like Sine": 85, "Muted Trumpet": 59, "Music Box Bells": 10, "Dark Pluck": 45,
    "Flute Sample": 73, "Saw Lead": 81, "Vocal Chop Sampler": 54, "Organ Lead": 17, "Tenor Sax": 66,
    "Alto Sax": 65, "Vibraphone": 11, "Flute": 73, "Jazz Guitar": 26, "Lead Guitar": 29, "Fuzz Guitar": 30,
    "Synth Lead": 80, "Square Lead": 80, "Pluck Lead": 84,
    "Evolving Granular Pad": 94, "Choir Pad": 91, "Glass Pad": 92, "Warm Analog Pad": 89, "String Ensemble": 48,
    "Supersaw Pad": 90, "Sweep Pad": 95,
}

# Pan by role; the levels come from the balance targets (`craft.balance`).
PAN: dict[str, float] = {"drums": 0.5, "bass": 0.5, "sub_bass": 0.5, "chords": 0.4, "lead": 0.55, "pad": 0.5,
                         "arp": 0.7, "counter_melody": 0.3, "percussion": 0.65}
# Shared reverb by genre family: (room size, damping, why).
ROOMS: dict[str, tuple[float, float, str]] = {
    "jazz": (0.3, 0.55, "a small club room"), "rock": (0.35, 0.5, "a live room"), "soul": (0.5, 0.5, "a plate"),
    "hip-hop": (0.4, 0.6, "a short plate"), "electronic": (0.65, 0.4, "a bright hall"),
    "ambient": (0.95, 0.35, "a long hall"), "classical": (0.8, 0.5, "a concert hall"),
    "latin": (0.35, 0.5, "a room"), "african": (0.45, 0.5, "a plate"), "caribbean": (0.5, 0.45, "a spring-like plate"),
    "funk": (0.25, 0.6, "a tight room"), "blues": (0.45, 0.5, "a spring-like plate"),
    "country": (0.35, 0.5, "a room"), "pop": (0.55, 0.5, "a plate"),
}
SEND_BY_ROLE = {"drums": 0.1, "bass": 0.0, "sub_bass": 0.0, "chords": 0.22, "lead": 0.25, "pad": 0.4,
                "arp": 0.25, "counter_melody": 0.25, "percussion": 0.15}
# A band's kit is recorded in the room with the band: its room mics are a good part of the drum sound
# (a rock kit's above all), where a drum machine or a sampled break stays dry in front.
DRUM_ROOM_SEND: dict[str, float] = {"rock": 0.4, "country": 0.3, "soul": 0.3, "blues": 0.3, "funk": 0.25}
# Genres whose kit sits in a bigger room than its family's: a heavy metal anthem's kit, double kick
# and all, is the big live room of the records (the close-miked kit alone reads as a machine).
DRUM_ROOM_SEND_BY_GENRE: dict[str, float] = {"metal": 0.6}
# Integrated loudness the master aims at, by family: club music loud, quiet music quiet (6 LU apart at most).
LOUDNESS: dict[str, float] = {"electronic": -10.0, "hip-hop": -11.0, "rock": -11.0, "pop": -12.0, "latin": -12.0,
                              "caribbean": -12.0, "african": -12.0, "funk": -12.0, "soul": -13.0, "blues": -13.0,
                              "country": -13.0, "jazz": -15.0, "ambient": -16.0, "classical": -16.0}
# Genres whose loudness is not their family's (quiet, dusty or dynamic ones; the club's loudest).
LOUDNESS_BY_GENRE: dict[str, float] = {"lo-fi": -14.0, "trip-hop": -13.0, "neo-soul": -13.0, "bossa nova": -15.0,
                                       "cinematic": -15.0, "deep house": -11.0, "indie": -12.0, "reggae": -13.0}
DEFAULT_LOUDNESS = -14.0
DUSTY = {"lofi", "neosoul"}
# The electric guitar GM samples through an amp (program → drive, why): the overdriven guitar's
# sample is the guitar with a light crunch, the insert the amp a player would push it with. The
# distortion guitar's sample was recorded saturated already: a second drive would only fizz.
AMPS: dict[int, tuple[float, str]] = {
    29: (0.35, "an amp on the edge of break-up: the overdriven guitar's crunch"),
}
# Genres whose lines are played dry, tight to the kit (a funk horn section's stabs, a metal guitar's
# riff): a tempo-synced echo smears them.
DRY_LINES = {"funk", "metal"}
AIRY = {"classical", "ambient", "jazz"}  # families whose General MIDI sounds come out dark
DRUM_ROLES = {"drums", "percussion"}


def delay_ms(bpm: float, division: str) -> float:
    """Delay time for a note value at `bpm` (1/4, 1/8, 1/8d dotted, 1/16, 1/4t triplet)."""
    return round(60000.0 / bpm * DIVISIONS[division], 1)


DIVISIONS = {"1/4": 1.0, "1/8": 0.5, "1/8d": 0.75, "1/16": 0.25, "1/4t": 2 / 3, "1/2": 2.0}


def gm_preset_name(program: int, drums: bool = False) -> str:
    from bandstand.midi import DRUM_KITS, GM_PROGRAMS

    return f"GS {DRUM_KITS.get(program, 'Standard')} Kit" if drums else f"GM {GM_PROGRAMS[program]}"


def _presets(role: str, genre: GenreTraits, program: int) -> tuple[Preset, list[Preset]]:
    table = CATALOG.get(role) or CATALOG[ROLE_FALLBACK.get(role, "lead")]
    family = genre.harmony_family
    row = table.get(family) or table["*"]
    drums = role in DRUM_ROLES
    pool = row if drums else (*row, *(n for r in table.values() for n in r))  # a kit is the family's or the GS one
    heard = [n for n in pool if PRESET_PROGRAMS[n] == program]
    if heard and heard[0] in row:
        main = Preset(name=heard[0], program=program, confidence=0.85 if family in table else 0.6,
                      reasoning=f"{heard[0]} is the {family} sound for {role}, played by its GM program")
    elif heard:
        main = Preset(name=heard[0], program=program, confidence=0.55,
                      reasoning=f"the {family} {role} plays GM program {program}; {heard[0]} is the preset on it")
    else:
        main = Preset(name=gm_preset_name(program, drums), program=program, confidence=0.5,
                      reasoning=f"no catalog preset plays GM program {program}; the GM sound itself is heard")
    others = [n for n in row if n != main.name][:2]
    alts = [Preset(name=n, program=PRESET_PROGRAMS[n], confidence=round(max(0.05, main.confidence - 0.15 * (i + 1)), 2),
                   reasoning=f"alternative {i + 1} for {role} (GM program {PRESET_PROGRAMS[n]} in a DAW)")
            for i, n in enumerate(others)]
    while len(alts) < 2:
        alts.append(Preset(name=gm_preset_name(program, drums), program=program, confidence=0.05,
                           reasoning="the General MIDI sound"))
    return main, alts


def _chain(role: str, genre: GenreTraits, intent: Intent, delays: bool, program: int = -1) -> list[Effect]:
    bpm = intent.tempo
    low = role in ("bass", "sub_bass")
    dusty = genre.harmony_family in DUSTY
    chain: list[Effect] = []
    if low:
        sub = genre.bass_style == "sub_808"
        chain.append(Effect(type="eq", params={"low_cut_hz": 35.0, **({"low_gain_db": -3.0} if sub else {})},
                            reason="clear the rumble under the bass" + (", and tame the 808's sub" if sub else "")))
    else:
        dull = dusty and role not in DRUM_ROLES
        air = not dusty and genre.family in AIRY and role not in DRUM_ROLES
        chain.append(Effect(type="eq", params={"low_cut_hz": 40.0 if role in DRUM_ROLES else 160.0,
                                               **({"high_cut_hz": 11000.0} if dull else {}),
                                               **({"mid_freq_hz": 4500.0, "mid_gain_db": 4.0, "high_gain_db": 4.0} if air else {})},
                            reason="leave the low end to the bass and kick" + (", dusty top" if dull else "")
                            + (", a little air on top (these sounds are dark)" if air else "")))
    if role in DRUM_ROLES or low:
        chain.append(Effect(type="compressor", params={"threshold_db": -20.0, "ratio": 4.0,
                                                       "attack_ms": 10.0 if role in DRUM_ROLES else 25.0,
                                                       "release_ms": 120.0, "makeup_db": 2.0},
                            reason="glue and control peaks"))
    if genre.drum_family == "four_on_floor" and role in ("bass", "sub_bass", "pad", "chords"):
        chain.append(Effect(type="tremolo", params={"rate_hz": round(bpm / 60.0, 4),
                                                    "depth": 0.35 if role != "pad" else 0.5},
                            reason="sidechain-style pump: dips on every beat, under the four-on-the-floor kick"))
    if (dusty and role in ("chords", "bass")) or (genre.bass_style == "sub_808" and low):
        chain.append(Effect(type="overdrive", params={"drive": 0.25 if not low else 0.35, "tone": 0.45,
                                                      "mix": 0.5},
                            reason="tape warmth" if not low else "808 harmonics so the sub reads on small speakers"))
    elif program in AMPS and role not in DRUM_ROLES:
        drive, why = AMPS[program]
        chain.append(Effect(type="overdrive", params={"drive": drive, "tone": 0.55, "mix": 0.7}, reason=why))
    if delays and role in ("lead", "arp", "counter_melody") and genre.name not in DRY_LINES:
        division = "1/8d" if role == "lead" else "1/8"
        chain.append(Effect(type="delay", params={"time_beats": DIVISIONS[division], "feedback": 0.3, "mix": 0.18},
                            reason=f"tempo-synced {division} echo ({delay_ms(bpm, division)} ms at {bpm:g} BPM)"))
    return chain


def build_sound(intent: Intent, programs: Mapping[str, int], tracks: Mapping[str, Track] | None = None) -> SoundPlan:
    """The sound plan for the parts whose GM programs are given (role → program); with the
    parts' `tracks` (by role) each fader is set for its notes too (`craft.balance.fader_db`)."""
    from bandstand.compose.sound_words import reverb_words, word_effects
    from bandstand.craft.balance import balance_targets, fader_db
    from bandstand.midi import GM_PROGRAMS

    genre = primary_genre(intent)
    sends = not intent.has_constraint("no_reverb")
    delays = not intent.has_constraint("no_delay")
    constraints = {c.kind for c in intent.constraints}
    wet = reverb_words(intent.raw_prompt, constraints)
    targets = balance_targets(list(programs), genre.family)
    num, den = intent.time_signature
    parts = []
    for role, program in programs.items():
        preset, alternatives = _presets(role, genre, program)
        name = "Drum Kit (channel 10)" if role in DRUM_ROLES else GM_PROGRAMS[program]
        track = tracks.get(role) if tracks is not None else None
        level = fader_db(role, targets[role], program, role in DRUM_ROLES, track.notes if track is not None else None,
                         num * 4.0 / den)
        kit_room = DRUM_ROOM_SEND_BY_GENRE.get(genre.name, DRUM_ROOM_SEND.get(genre.family, SEND_BY_ROLE["drums"]))
        send = kit_room if role == "drums" else SEND_BY_ROLE.get(role, 0.2)
        if wet is not None:
            send = round(min(0.6, send * wet["send_scale"]), 3)
        effects = word_effects(role, intent.raw_prompt, _chain(role, genre, intent, delays, program), constraints)
        parts.append(PartSound(
            role=role, program=program, program_name=name, preset=preset, alternatives=alternatives,
            level_db=min(3.5, level), pan=PAN.get(role, 0.5), effects=effects,
            sends=[SendPlan(bus="Reverb", level=send, reason="shared room so the parts sit in one space")]
            if sends and send > 0 else []))
    size, damping, room = ROOMS.get(genre.family, (0.5, 0.5, "a plate"))
    suits = f"{room} suits {genre.family}"
    if wet is not None:
        size, damping = max(size, wet["room_size"]), min(damping, wet["damping"])
        suits, room = wet["reason"], "a long, wide hall"
    pre_delay = round(min(60.0, 60000 / intent.tempo / 16), 1)
    buses = [] if not sends else [Bus(name="Reverb", reason=suits, effects=[Effect(
        type="reverb", params={"room_size": size, "damping": damping, "wet": 1.0, "pre_delay_ms": pre_delay},
        reason=f"{room}, {pre_delay} ms pre-delay (a 1/64 note)")])]
    target = LOUDNESS_BY_GENRE.get(genre.name, LOUDNESS.get(genre.family, DEFAULT_LOUDNESS))
    presets = ", ".join(f"{p.role}: {p.preset.name}" for p in parts[:3])
    summary = (f"{len(parts)} preset{'' if len(parts) == 1 else 's'} ({presets}{'…' if len(parts) > 3 else ''}), master {target:g} LUFS"
               + ("" if sends else ", dry (no reverb)"))
    return SoundPlan(parts=parts, buses=buses, target_lufs=target, summary=summary,
                     loudness_reason=f"{genre.name} is mastered to {target:g} LUFS integrated, peaks under −1 dBTP")


def apply_sound(song: Song, plan: SoundPlan) -> Song:
    """A copy of the song whose tracks carry the plan's mix (level, pan, inserts, sends) and program,
    with the plan's buses; tracks the plan does not cover keep theirs."""
    tracks = []
    for track in song.tracks:
        part = plan.for_role(track.role)
        if part is None:
            tracks.append(track)
            continue
        mix = TrackMix(volume=round(10 ** (part.level_db / 20), 4), pan=part.pan,
                       inserts=tuple(MixEffect(e.type, e.params) for e in part.effects),
                       sends=tuple(Send(s.bus, s.level) for s in part.sends))
        tracks.append(replace(track, program=part.program, mix=mix))
    buses = [MixBus(b.name, tuple(MixEffect(e.type, e.params) for e in b.effects)) for b in plan.buses]
    return replace(song, tracks=tracks, buses=buses)
