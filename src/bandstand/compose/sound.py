"""Stage 5 — sound: presets and effect chains for every part.

The preset catalog is a table per role × harmony family (the first entry is
the recommendation, the next two the ranked alternatives); effect chains are
built from per-role bases plus genre rules: sidechain for four-on-the-floor
families, saturation for dusty and 808 styles, a tempo-synced delay (time in
ms), and a reverb send to one shared bus whose room depends on the genre.
Constraints ("no reverb", "no delay") remove what they name.
"""

from __future__ import annotations

from collections.abc import Mapping

from bandstand.compose.lexicon import GenreTraits, primary_genre
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.sound import Bus, Effect, PartSound, Preset, SoundPlan

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

# Shared reverb bus by genre family.
ROOMS: dict[str, tuple[str, float]] = {
    "jazz": ("room", 1.2), "rock": ("room", 1.4), "soul": ("plate", 1.8), "hip-hop": ("plate", 1.5),
    "electronic": ("hall", 2.4), "ambient": ("hall", 6.0), "latin": ("room", 1.3), "african": ("plate", 1.6),
    "caribbean": ("spring", 2.0), "funk": ("room", 1.0), "blues": ("spring", 1.6), "country": ("room", 1.3),
    "pop": ("plate", 2.0),
}
SEND_BY_ROLE = {"drums": 0.12, "bass": 0.0, "sub_bass": 0.0, "chords": 0.25, "lead": 0.3, "pad": 0.45,
                "arp": 0.3, "counter_melody": 0.3, "percussion": 0.18}
DUSTY = {"lofi", "neosoul"}


def delay_ms(bpm: float, division: str) -> float:
    """Delay time for a note value at `bpm` (1/4, 1/8, 1/8d dotted, 1/16, 1/4t triplet)."""
    beats = {"1/4": 1.0, "1/8": 0.5, "1/8d": 0.75, "1/16": 0.25, "1/4t": 2 / 3, "1/2": 2.0}[division]
    return round(60000.0 / bpm * beats, 1)


def _presets(role: str, genre: GenreTraits) -> tuple[Preset, list[Preset]]:
    table = CATALOG.get(role) or CATALOG[ROLE_FALLBACK.get(role, "lead")]
    family = genre.harmony_family
    names = table.get(family)
    confidence = 0.85 if names else 0.55
    names = names or table["*"]
    why = f"{names[0]} is the {family} sound for {role}" if confidence > 0.6 else \
        f"no {family}-specific {role} preset; {names[0]} is the general choice"
    main = Preset(name=names[0], confidence=confidence, reasoning=why)
    alts = [Preset(name=n, confidence=round(confidence - 0.15 * (i + 1), 2), reasoning=f"alternative {i + 1} for {role}")
            for i, n in enumerate(names[1:3])]
    return main, alts


def _chain(role: str, genre: GenreTraits, intent: Intent, sends: bool, delays: bool) -> list[Effect]:
    bpm = intent.tempo
    low = role in ("bass", "sub_bass")
    chain = [
        Effect(type="eq", params={"high_pass_hz": 30 if low else (40 if role == "drums" else 150),
                                  "low_pass_hz": 6000 if genre.harmony_family in DUSTY else 18000},
               reason="keep the low end for bass and kick" if not low else "clear sub rumble below 30 Hz"),
        Effect(type="compressor", params={"ratio": 4.0 if role in ("drums", "bass", "sub_bass") else 2.0,
                                          "attack_ms": 10 if role == "drums" else 25, "release_ms": 120,
                                          "threshold_db": -18},
               reason="glue and control peaks"),
    ]
    if genre.drum_family == "four_on_floor" and role in ("bass", "sub_bass", "pad", "chords"):
        chain.append(Effect(type="sidechain", params={"source": "drums:kick", "depth_db": -6 if role != "pad" else -9,
                                                      "release_ms": round(60000 / bpm / 2, 1)},
                            reason="duck under the four-on-the-floor kick so it pumps"))
    if genre.harmony_family in DUSTY or (genre.bass_style == "sub_808" and low):
        chain.append(Effect(type="saturation", params={"drive": 0.3 if not low else 0.45, "mode": "tape"},
                            reason="tape warmth" if not low else "808 harmonics so the sub reads on small speakers"))
    if delays and role in ("lead", "arp", "counter_melody", "chords"):
        division = "1/8d" if role == "lead" else "1/8"
        chain.append(Effect(type="delay", params={"division": division, "time_ms": delay_ms(bpm, division),
                                                  "feedback": 0.3, "mix": 0.2},
                            reason=f"tempo-synced {division} echo at {bpm:g} BPM"))
    send = SEND_BY_ROLE.get(role, 0.2)
    if sends and send > 0:
        chain.append(Effect(type="reverb_send", params={"bus": "Reverb", "level": send},
                            reason="shared room so the parts sit in one space"))
    return chain


def build_sound(intent: Intent, programs: Mapping[str, int]) -> SoundPlan:
    """The sound plan for the parts whose GM programs are given (role → program)."""
    from bandstand.midi import GM_PROGRAMS

    genre = primary_genre(intent)
    sends = not intent.has_constraint("no_reverb")
    delays = not intent.has_constraint("no_delay")
    parts = []
    for role, program in programs.items():
        preset, alternatives = _presets(role, genre)
        name = "Drum Kit (channel 10)" if role in ("drums", "percussion") else GM_PROGRAMS[program]
        parts.append(PartSound(role=role, program=program, program_name=name, preset=preset,
                               alternatives=alternatives, effects=_chain(role, genre, intent, sends, delays)))
    room, decay = ROOMS.get(genre.family, ("plate", 1.8))
    buses = [] if not sends else [Bus(name="Reverb", effect=Effect(
        type="reverb", params={"kind": room, "decay_s": decay, "pre_delay_ms": round(min(60.0, 60000 / intent.tempo / 16), 1)},
        reason=f"a {room} suits {genre.family}"))]
    presets = ", ".join(f"{p.role}: {p.preset.name}" for p in parts[:3])
    summary = f"{len(parts)} presets ({presets}{'…' if len(parts) > 3 else ''})" + ("" if sends else ", dry (no reverb)")
    return SoundPlan(parts=parts, buses=buses, summary=summary)
