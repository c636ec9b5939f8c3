"""Stage 3 — arrangement: the song's sections, per-bar energy arc and who plays where.

A genre's form (a table of sections) is shaped by structure hints, scaled to
the requested length (sections ≥ 4 bars; middle sections dropped or the body
repeated when the length demands it), given energies by section kind,
smoothed into a per-bar arc (adjacent bars differ by at most 0.3), and
activated role by role: intros are sparse, verses add the rhythm section,
choruses and drops bring everyone, breaks strip down, outros thin out. A band
whose parts together fill its idiom's ceiling takes turns (`TURNS`): a part sits
a verse out or comes in halfway through a section, and the last peak has everyone;
a louder section never has fewer players than a quieter one, unless the idiom
plays it as a breakdown (`BREAKDOWNS`: funk's bridge on drums and bass).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bandstand.compose.form_variants import vary_form
from bandstand.compose.harmony.form import CADENCES
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.models.arrangement import (
    ArrangementPlan,
    SectionKind,
    SectionPlan,
    Transition,
)
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class Slot:
    kind: SectionKind
    name: str
    bars: int
    activation: str = ""  # which activation rule to use; defaults to the kind


def _form(spec: str) -> tuple[Slot, ...]:
    slots = []
    for item in spec.split(","):
        kind, name, bars, *act = item.strip().split(":")
        slots.append(Slot(kind, name, int(bars), act[0] if act else kind))  # type: ignore[arg-type]
    return tuple(slots)


FORMS: dict[str, tuple[Slot, ...]] = {
    "pop": _form("intro:Intro:4, verse:Verse:8, prechorus:Pre-Chorus:4, chorus:Chorus:8, verse:Verse:8, "
                 "chorus:Chorus:8, bridge:Bridge:8, chorus:Chorus:8, outro:Outro:4"),
    "house": _form("intro:Intro:16, build:Build:8, drop:Drop:16, break:Break:8, build:Build:8, drop:Drop:16, "
                   "outro:Outro:8"),
    "trap": _form("intro:Intro:4, verse:Verse:16, hook:Hook:8, verse:Verse:16, hook:Hook:8, outro:Outro:4"),
    "hiphop": _form("intro:Intro:4, verse:Verse:16, hook:Hook:8, verse:Verse:16, hook:Hook:8, outro:Outro:4"),
    "jazz": _form("head:Head:16, solo:Solo A:16, solo:Solo B:16, head:Head:16"),
    "lofi": _form("intro:Intro:4, loop:Loop A:16:verse, loop:Loop B:16:chorus, loop:Loop A:16:verse, outro:Outro:4"),
    "rock": _form("intro:Intro:4, verse:Verse:8, chorus:Chorus:8, verse:Verse:8, chorus:Chorus:8, solo:Solo:8, "
                  "chorus:Chorus:8, outro:Outro:4"),
    "ambient": _form("intro:Intro:8, loop:Drift A:16:verse, chorus:Swell:16, loop:Drift B:8:break, outro:Outro:8"),
    "dnb": _form("intro:Intro:16, build:Build:8, drop:Drop:16, break:Break:16, build:Build:8, drop:Drop:16, "
                 "outro:Outro:8"),
    "afrobeat": _form("intro:Intro:4, verse:Verse:8, hook:Hook:8, verse:Verse:8, hook:Hook:8, break:Break:4, "
                      "hook:Hook:8, outro:Outro:4"),
    "latin": _form("intro:Intro:4, verse:Verse:8, chorus:Coro:8, verse:Verse:8, chorus:Coro:8, solo:Montuno:8, "
                   "chorus:Coro:8, outro:Outro:4"),
    # grime: everything in eights, the hook first and last
    "grime": _form("intro:Intro:8, hook:Hook:8, verse:Verse:16, hook:Hook:8, verse:Verse:16, hook:Hook:8, "
                   "outro:Outro:8"),
    # string-band and dance-band songs: verses and choruses with an instrumental break between
    "folk": _form("intro:Intro:4, verse:Verse:8, chorus:Chorus:8, solo:Break:8, verse:Verse:8, chorus:Chorus:8, "
                  "solo:Break:8, chorus:Chorus:8, outro:Outro:4"),
    "blues": _form("intro:Intro:4, verse:Verse:12, verse:Verse:12, solo:Solo:12, verse:Verse:12, outro:Outro:4"),
    # film music builds twice: a theme, a rise, the climax, a calm, a bigger rise, the last climax
    "cinematic": _form("intro:Opening:8, verse:Theme:8, build:Rise:8, chorus:Climax:16, break:Calm:8, build:Rise:8, "
                       "chorus:Climax:16, outro:Outro:8"),
    # a piece in ternary shape: the first theme, a second, the development, the first theme again, a coda
    "classical": _form("intro:Introduction:4, loop:Theme A:8:verse, loop:Theme B:8:chorus, bridge:Development:8, "
                       "loop:Theme A:8:verse, loop:Theme B:8:chorus, outro:Coda:4"),
}
GENERIC = _form("verse:A:8, chorus:B:8, verse:A:8, chorus:B:8")

ENERGY: dict[str, float] = {
    "intro": 0.2, "verse": 0.5, "prechorus": 0.65, "chorus": 0.9, "drop": 0.9, "hook": 0.9, "build": 0.65,
    "break": 0.3, "bridge": 0.5, "loop": 0.5, "head": 0.65, "solo": 0.75, "outro": 0.2,
}
MAX_STEP = 0.3
LIFTED_LOOP = 0.75
PEAKS = ("chorus", "drop", "hook")
ELECTRONIC_FORMS = ("house", "dnb")

# Activation: which roles play, by rule. Roles not named in a rule's tiers stay out.
_CORE = ("drums", "bass", "sub_bass", "percussion")
_ACTIVATION: dict[str, tuple[str, ...]] = {
    "verse": ("drums", "bass", "sub_bass", "percussion", "chords", "lead"),
    "prechorus": ("drums", "bass", "sub_bass", "percussion", "chords", "pad", "arp", "lead"),
    "build": ("drums", "chords", "pad", "arp", "percussion"),
    "bridge": ("bass", "sub_bass", "chords", "pad", "lead", "counter_melody"),
    "solo": ("drums", "bass", "sub_bass", "chords", "lead", "percussion"),
    "loop": ("drums", "bass", "sub_bass", "chords", "lead", "pad"),
}
_FULL = ("chorus", "drop", "hook", "head")
INTRO_VOICES = ("pad", "chords", "arp", "lead")  # who may open the song, in order of preference
INTRO_JOINERS = ("drums", "percussion", "bass", "chords", "pad")  # who joins the opening voice, by preference
INTRO_RISE = (0.12, 0.42)  # an intro's energy from its first bar to its last: it builds towards the song

# Which harmony function a section plays, by its kind (or a loop's activation rule).
HARMONY_FUNCTION: dict[str, str] = {
    "intro": "intro", "verse": "verse", "prechorus": "prechorus", "chorus": "chorus", "drop": "chorus",
    "hook": "chorus", "build": "prechorus", "bridge": "bridge", "break": "bridge", "solo": "solo",
    "head": "head", "outro": "chorus", "outro_thin": "chorus", "outro_tail": "chorus",
}

# Hints that pick a different form outright.
_FORM_HINTS = {"loop-based": "lofi", "verse-chorus": "pop"}


def chord_cycle(chord_bars: Sequence[float]) -> list[int]:
    """The chord index sounding at the start of each bar of one pass of the progression."""
    if not chord_bars:
        return [0]
    starts, t = [], 0.0
    for bars in chord_bars:
        starts.append(t)
        t += max(bars, 0.25)
    length = max(1, round(t + 0.49))
    cycle = []
    for bar in range(length):
        index = max(i for i, s in enumerate(starts) if s <= bar + 1e-9)
        cycle.append(index)
    return cycle


def _apply_hints(slots: list[Slot], hints: Sequence[str], electronic: bool) -> list[Slot]:
    def insert_before_last_peak(slot: Slot) -> None:
        peaks = [i for i, s in enumerate(slots) if s.kind in PEAKS]
        at = peaks[-1] if peaks else max(1, len(slots) - 1)
        slots.insert(at, slot)

    if "intro only" in hints:  # the intro and nothing else (the length asked for is its length)
        return [next((s for s in slots if s.kind == "intro"), Slot("intro", "Intro", 8))]
    if "anthem" in hints:  # the big chorus once more at the end, after a build into the first
        peaks = [i for i, s in enumerate(slots) if s.kind in PEAKS]
        if peaks:
            slots.insert(peaks[-1] + 1, slots[peaks[-1]])
            if not any(s.kind in ("build", "prechorus") for s in slots):
                slots.insert(peaks[0], Slot("build", "Build", 4))
    if "no chorus" in hints:
        slots = [s for s in slots if s.kind != "prechorus"]
        slots = [Slot("loop", "Theme", s.bars, "chorus") if s.kind in ("chorus", "hook") else s for s in slots]
    if "no drop" in hints:
        slots = [Slot("loop", "Theme", s.bars, "chorus") if s.kind == "drop" else s for s in slots]
    if "no intro" in hints:
        slots = [s for s in slots if s.kind != "intro"] or slots
    for i, s in enumerate(slots):
        if s.kind == "intro":
            if "long intro" in hints:
                slots[i] = Slot("intro", s.name, max(16 if electronic else 8, s.bars * 2), s.activation)
            elif "short intro" in hints:
                slots[i] = Slot("intro", s.name, 4, s.activation)
    if "bridge" in hints and not any(s.kind == "bridge" for s in slots):
        insert_before_last_peak(Slot("bridge", "Bridge", 8))
    if "breakdown" in hints and not any(s.kind == "break" for s in slots):
        insert_before_last_peak(Slot("break", "Breakdown", 8))
    if "build" in hints and not any(s.kind == "build" for s in slots):
        peaks = [i for i, s in enumerate(slots) if s.kind in PEAKS]
        if peaks:
            slots.insert(peaks[0], Slot("build", "Build", 4))
    if "long outro" in hints:
        slots = [Slot("outro", s.name, s.bars * 2, s.activation) if s.kind == "outro" else s for s in slots]
    return slots


def _drop_order(slots: list[Slot]) -> list[int]:
    """Indices of sections that may be removed to fit a short length, most expendable first."""
    peaks = [i for i, s in enumerate(slots) if s.kind in PEAKS]
    keep = {0, len(slots) - 1, *(peaks[-1:])}
    firsts: set[str] = set()
    for i, s in enumerate(slots):
        if s.kind not in firsts:
            firsts.add(s.kind)
            if s.kind in ("verse", "loop", "head", "solo"):
                keep.add(i)
    rank = ("bridge", "break", "solo", "prechorus", "build", "verse", "loop", "chorus", "hook", "drop", "head",
            "intro", "outro")
    candidates = [i for i in range(len(slots)) if i not in keep]
    last_resort = [i for i in sorted(keep) if slots[i].kind not in PEAKS]
    return sorted(candidates, key=lambda i: (rank.index(slots[i].kind), -i)) + last_resort


def _fit(slots: list[Slot], target: int) -> list[Slot]:
    """Scale section lengths so they sum to `target` (sections ≥ 4 bars, multiples of 4 where possible)."""
    natural = sum(s.bars for s in slots)
    if target > natural * 1.5 and len(slots) > 2:
        head, body, tail = slots[:1], slots[1:-1], slots[-1:]
        reps = max(1, round((target - natural) / max(1, sum(s.bars for s in body)))) + 1
        slots = head + body * reps + tail
    if target < 12 and len(slots) > 2:
        peaks = [s for s in slots if s.kind in PEAKS] or [slots[len(slots) // 2]]
        slots = [peaks[-1]]
    while len(slots) > 1 and 4 * len(slots) > target:
        order = _drop_order(slots)
        slots.pop(order[0] if order else len(slots) // 2)
        slots = _merge_neighbours(slots)
    total = sum(s.bars for s in slots)
    bars = [max(4, round(s.bars * target / total / 4) * 4) for s in slots]
    diff = target - sum(bars)
    step = 4 if diff % 4 == 0 else 1
    guard = 0
    while diff != 0 and guard < 10_000:
        guard += 1
        if diff > 0:
            i = max(range(len(bars)), key=lambda k: (slots[k].bars, -k))
            add = min(step, diff)
            bars[i] += add
            diff -= add
        else:
            shrinkable = [k for k in range(len(bars)) if bars[k] - min(step, -diff) >= 4]
            if not shrinkable:
                break
            i = max(shrinkable, key=lambda k: (bars[k], k))
            take = min(step, -diff)
            bars[i] -= take
            diff += take
    return [Slot(s.kind, s.name, b, s.activation) for s, b in zip(slots, bars, strict=True)]


def _thin_outro(slots: list[Slot]) -> list[Slot]:
    """An outro of 8 bars or more takes the players away one group at a time: first the
    rhythm section and one harmony part, then a single instrument rings out."""
    if not slots or slots[-1].kind != "outro" or slots[-1].bars < 8:
        return slots
    last = slots[-1]
    first = last.bars // 2
    return [*slots[:-1], Slot("outro", last.name, first, "outro_thin"),
            Slot("outro", f"{last.name} Tail", last.bars - first, "outro_tail")]


def _merge_neighbours(slots: list[Slot]) -> list[Slot]:
    """Join adjacent sections of the same kind and name (left behind when a section is removed)."""
    merged: list[Slot] = []
    for slot in slots:
        if merged and merged[-1].kind == slot.kind and merged[-1].name == slot.name:
            last = merged.pop()
            slot = Slot(slot.kind, slot.name, last.bars + slot.bars, slot.activation)
        merged.append(slot)
    return merged


def _label(name: str, kind: str, nth: int, total: int) -> str:
    """'Verse 2' for repeated sections; lettered names ('Loop A') and intro/outro stay as they are."""
    lettered = len(name.split()) > 1 and len(name.split()[-1]) == 1
    if total > 1 and kind not in ("intro", "outro") and not lettered:
        return f"{name} {nth}"
    return name


def _drop_at(slots: list[Slot], bar: int) -> list[Slot]:
    peaks = [i for i, s in enumerate(slots) if s.kind in ("drop", "chorus", "hook")]
    if not peaks or bar < 5:
        return slots
    first = peaks[0]
    before = slots[:first]
    if not before:
        return slots
    fitted = _fit(list(before), bar - 1) if bar - 1 >= 4 * len(before) else _fit(list(before[-1:]), bar - 1)
    return fitted + slots[first:]


def _pick(candidates: list[str], k: int, rng: random.Random) -> list[str]:
    """`k` of `candidates` chosen by the seed, in their given order."""
    if len(candidates) <= k:
        return candidates
    chosen = set(rng.sample(candidates, k))
    return [r for r in candidates if r in chosen]


def _roles_for(slot: Slot, roles: Sequence[str], electronic: bool, bars: int, rng: random.Random) -> list[str]:
    """Who plays in a section (a texture — rain, vinyl crackle — is there from start to end)."""
    chosen = _players_for(slot, [r for r in roles if r != "texture"], electronic, bars, rng)
    return [*chosen, "texture"] if "texture" in roles else chosen


def _players_for(slot: Slot, roles: Sequence[str], electronic: bool, bars: int, rng: random.Random) -> list[str]:
    rule = slot.activation or slot.kind
    if rule in _FULL:
        return list(roles)
    if rule == "intro":  # who plays first is free: the seed picks between the first two voices
        voices = [r for r in INTRO_VOICES if r in roles][:2]
        first = rng.choice(voices) if voices else (roles[0] if roles else "")
        chosen = [first] if first else []
        if electronic and bars >= 8 and "drums" in roles and "drums" not in chosen:
            chosen.append("drums")
        elif bars >= 4:  # a second voice joins halfway (`parts.context` staggers the entries): the intro builds
            chosen.extend([r for r in INTRO_JOINERS if r in roles and r not in chosen][:1])
        return chosen
    if rule == "break":  # which two voices carry the break is free
        return _pick([r for r in ("pad", "chords", "lead") if r in roles], 2, rng) or list(roles[:1])
    if rule == "outro":  # and which two play the song out
        return _pick([r for r in ("chords", "pad", "drums") if r in roles], 2, rng) or list(roles[:1])
    if rule == "outro_tail":
        return [r for r in ("pad", "chords") if r in roles][:1] or list(roles[:1])
    if rule == "outro_thin":
        keep = [r for r in ("drums", "bass", "sub_bass", "chords", "pad") if r in roles][:3]
        return keep or list(roles[:1])
    allowed = _ACTIVATION.get(rule, tuple(roles))
    chosen = [r for r in roles if r in allowed]
    if not chosen or (rule == "build" and not any(r in chosen for r in roles if r not in _CORE)):
        chosen = list(roles[:2])
    return chosen


def _transition(slot: Slot, nxt: Slot | None, electronic: bool, hints: Sequence[str]) -> Transition:
    if nxt is None:
        return "fade" if "fade out" in hints or slot.kind == "outro" else "cut"
    if slot.kind in ("build", "prechorus") and nxt.kind in PEAKS:
        return "build"
    if slot.kind == "break" or (slot.kind == "intro" and electronic):
        return "filter_sweep"
    if nxt.kind == "outro" and slot.kind not in PEAKS:
        return "fade"
    return "cut"


def _energy_arc(sections: list[tuple[Slot, int]]) -> list[float]:
    targets: list[float] = []
    for i, (slot, bars) in enumerate(sections):
        level = ENERGY[slot.activation if slot.activation in ("break",) else slot.kind]
        if slot.kind == "loop" and slot.activation == "chorus":  # the loop everyone plays in lifts the song
            level = LIFTED_LOOP
        if slot.kind in PEAKS and not any(s.kind in PEAKS for s, _ in sections[i + 1:]):
            level = min(1.0, level + 0.05)
        if slot.kind == "intro" and bars >= 2:  # the intro builds: density and touch rise bar by bar
            lo, hi = INTRO_RISE
            targets.extend(lo + (hi - lo) * b / (bars - 1) for b in range(bars))
        elif slot.kind == "build":
            start = targets[-1] if targets else ENERGY["intro"]
            end = next((ENERGY[s.kind] for s, _ in sections[i + 1:]), ENERGY["chorus"])
            targets.extend(start + (end - start) * (b + 1) / (bars + 1) for b in range(bars))
        else:
            targets.extend([level] * bars)
    arc: list[float] = []
    for value in targets:
        if arc:
            value = min(arc[-1] + MAX_STEP - 0.01, max(arc[-1] - MAX_STEP + 0.01, value))
        arc.append(round(value, 3))
    return arc


def _roles_follow_energy(sections: list[SectionPlan], roles: Sequence[str]) -> None:
    """Players are added as the energy rises: a section louder than another (intros and
    outros aside) has at least as many players, taking the ones it lacks from it
    (a jazz solo keeps the pad the head had)."""
    order = sorted(sections, key=lambda s: s.energy)
    for i, louder in enumerate(order):
        for quieter in order[:i]:
            if quieter.energy < louder.energy - 0.02 and quieter.kind not in ("intro", "outro") \
                    and len(quieter.roles) > len(louder.roles):
                louder.roles = [r for r in roles if r in louder.roles or r in quieter.roles]


def _cover_every_role(sections: list[SectionPlan], roles: Sequence[str]) -> None:
    """Every role plays somewhere: a role no rule activated joins the most energetic section."""
    playing = {r for s in sections for r in s.roles}
    missing = [r for r in roles if r not in playing]
    if missing and sections:
        peak = max(sections, key=lambda s: s.energy)
        peak.roles = [r for r in roles if r in peak.roles or r in missing]


KEPT_SECTIONS: dict[str, frozenset[str]] = {"salsa": frozenset({"Montuno"})}
"""Genre → sections no seed's form variant cuts: a salsa's montuno, its coro and pregón
(`craft.montuno`), is what the song builds to, not a verse to spare (a bossa nova on the same
latin form may lose it)."""

BOTTOM = ("bass", "sub_bass")

Entries = dict[str, float]
TURNS: dict[str, dict[str, tuple[Entries, ...]]] = {
    # the first verse is the groove, drums and bass, the guitar joining halfway, and the flute (or horn) line
    # sits it out; in the second the line answers in the second half; the first hook opens on the line over
    # the groove, the guitar and keys dropping in halfway; the pad waits for the last hook
    "afrobeat": {"verse": ({"lead": 1.0, "chords": 0.5, "arp": 0.5}, {"lead": 0.5, "chords": 0.5, "arp": 0.5}),
                 "hook": ({"chords": 0.5, "arp": 0.5, "pad": 1.0}, {"pad": 1.0})},
    # loud-quiet-loud: the first verse opens on drums and voice, bass and guitars coming in halfway; the
    # second keeps the guitars for its last phrase, into the chorus; the solo opens over bass and drums, the
    # rhythm guitar back for its last phrase; the chorus before the last (and a double last one's
    # first half) opens as a breakdown without the guitars. The pad stays in every chorus: over power chords
    # (no third) it holds the key.
    "punk": {"verse": ({"bass": 0.5, "chords": 0.5}, {"chords": 0.75}), "solo": ({"chords": 0.75},),
             "breakdown": ({"chords": 0.5},)},
    # funk: a verse is the pocket, drums and bass, the guitar joining halfway through the first and after
    # two bars of the second, the horns (and keys) out; the horns play every chorus, the guitar thinning
    # under them (`craft.comping`'s scratch: the 'and's and its accents); the bridge is the breakdown to drums and bass
    # (`BREAKDOWNS`), the guitar back for its last phrase; the chorus before the last (if it is) opens on
    # drums and bass, the band back halfway
    "funk": {"verse": ({"lead": 1.0, "chords": 0.5, "pad": 1.0, "arp": 1.0},
                       {"lead": 1.0, "chords": 0.25, "pad": 1.0, "arp": 1.0}),
             "prechorus": ({"lead": 1.0, "pad": 1.0},), "chorus": ({},), "bridge": ({"chords": 0.75},),
             "breakdown": ({"chords": 0.5, "lead": 0.5, "pad": 1.0, "arp": 0.5},)},
    # salsa: the piano montuno and the tumbao never stop; the horns sit the verses out (the singer's) and
    # play the coros; the first coro's hand percussion joins halfway; the second coro's phrases come first,
    # the horns answering in its second half; the montuno section is the lead's from its first bar, a coro
    # and the singer's pregón taking turns over the vamp (`craft.montuno`)
    "salsa": {"verse": ({"lead": 1.0, "pad": 1.0},),
              "chorus": ({"percussion": 0.5, "pad": 1.0}, {"lead": 0.5, "pad": 1.0}),
              "solo": ({"pad": 1.0},), "breakdown": ({"percussion": 0.5, "pad": 1.0},)},
    # trance: layers come in every eight bars (or sixteen): the build opens on the kit and the pad, the
    # chords and the arpeggio joining halfway; a drop brings the bass, the chords and the lead back at once,
    # the arpeggio the last layer in, halfway; the breakdown has no drums (`_ACTIVATION`'s break)
    "trance": {"build": ({"arp": 0.5, "chords": 0.5},), "drop": ({"arp": 0.5},),
               "breakdown": ({"arp": 0.5},)},
}
"""A genre's band (or a drum family's: afrobeat's, punk's) whose parts, everyone playing, fill the idiom's
notes-per-bar ceiling (afrobeat's kit, shaker and congas under interlocking guitar, keys and bass; punk's
power chords in eighths over a driving kit and bass; a funk kit's sixteenth hats under a chicken-scratch
guitar and horns; a salsa percussion section over montuno, tumbao and horns; trance's kit, supersaw and
arpeggio) → section kind → for its first, second … time (the last for any later one), the roles that come
in part of the way through it, at that fraction of its bars (1: they sit the section out). `BREAKDOWN`
names a peak played just before the last one (and a long last one's first half); the last peak is
everyone's. A lead comes in on a phrase (a section's first bar or its half: its motif opens the phrase),
and the comping plays in some of every verse (its harmony is heard). A section louder than another has
as many players (`_roles_follow_energy`), a breakdown aside."""
BREAKDOWNS: dict[str, dict[str, tuple[str, ...]]] = {"funk": {"bridge": ("drums", "bass", "sub_bass", "chords")}}
"""Sections an idiom plays as a breakdown: genre → section kind → the roles left playing there, before
`TURNS` (funk's bridge is the band dropping out to drums and bass, the guitar back for its last phrase)."""
BREAKDOWN = "breakdown"
DOUBLE_PEAK = 16  # bars: a last peak this long is two, the first a breakdown


def _bass_plays_out(sections: list[SectionPlan], roles: Sequence[str]) -> None:
    """The song lands on a bottom: the bass plays the last section (the final cadence and
    the tonic it ends on) however thin the outro is around it."""
    if sections and any(r in roles for r in BOTTOM):
        last = sections[-1]
        last.roles = [r for r in roles if r in last.roles or r in BOTTOM]


def _take_turns(sections: list[SectionPlan], late: dict[str, tuple[Entries, ...]]) -> None:
    """A busy band's parts take turns (`TURNS`), so its density follows the section's energy
    instead of sitting at the idiom's ceiling: parts sit a section out or come in part of the way
    through it (`SectionPlan.entries`). The last peak has everyone — once it is under way: one
    twice a peak's length opens as a breakdown, as the peak before it does. A part comes in late
    only where another plays from the section's first bar."""
    peaks = [i for i, s in enumerate(sections) if s.kind in PEAKS]
    last = peaks[-1] if peaks else -1
    seen: dict[str, int] = {}
    for i, sec in enumerate(sections):
        nth = seen[sec.kind] = seen.get(sec.kind, -1) + 1
        if sec.bars < 4 or (i == last and sec.bars < DOUBLE_PEAK):
            continue
        breakdown = sec.kind in PEAKS and (i + 1 == last or i == last)
        rule = late.get(BREAKDOWN if breakdown else sec.kind, ({},))
        entries = {r: round(sec.bars * at) for r, at in rule[min(nth, len(rule) - 1)].items() if r in sec.roles}
        if not any(r not in entries and r != "texture" for r in sec.roles):
            continue
        sec.roles = [r for r in sec.roles if entries.get(r, 0) < sec.bars]
        sec.entries = {r: at for r, at in entries.items() if r in sec.roles and at > 0} | sec.entries


def _break_down(sections: list[SectionPlan], kept: dict[str, tuple[str, ...]], roles: Sequence[str]) -> None:
    """The sections an idiom plays as a breakdown (`BREAKDOWNS`) left to the roles it keeps there."""
    for sec in sections:
        keep = [r for r in roles if r in kept.get(sec.kind, ())]
        if keep:
            sec.roles = keep + (["texture"] if "texture" in sec.roles else [])
            sec.entries = {}


def resolve_target(natural: int, intent: Intent) -> int:
    lo, hi = intent.duration.min_bars, intent.duration.max_bars
    if "duration" in intent.inferred_fields:
        return natural
    return max(lo, min(hi, natural))


def loop_chords(harmony: HarmonyPlan, bars: int) -> list[int]:
    """The main loop (the verse's progression) repeated over `bars` bars, as chord indices."""
    verse = harmony.section("verse") or chord_cycle([c.bars for c in harmony.chords])
    return [verse[b % len(verse)] for b in range(bars)]


def _function(slot: Slot, harmony: HarmonyPlan) -> str:
    """The harmony function a section plays: its activation rule's, else its kind's."""
    rule = slot.activation if slot.kind == "loop" else slot.kind
    for name in (HARMONY_FUNCTION.get(rule, rule), "verse"):
        if harmony.section(name) is not None:
            return name
    return "verse"


def _dominant(harmony: HarmonyPlan) -> int | None:
    """The chord a half cadence stops on: a major chord or dominant seventh on the fifth degree."""
    tonic = harmony.scale_pitch_classes[0] if harmony.scale_pitch_classes else 0
    for i, c in enumerate(harmony.chords):
        if c.root == (tonic + 7) % 12 and (tonic + 11) % 12 in c.pitch_classes:
            return i
    return None


def _section_chords(slots: list[Slot], harmony: HarmonyPlan | None, cycle: list[int]) -> list[list[int]]:
    """Chord indices for every bar of every section: each section plays its function's
    progression from its first bar; in families that cadence, a section that hands over to
    a chorus stops on the dominant; the song's last bars play the ending."""
    if harmony is None or not harmony.sections:
        return [[cycle[b % len(cycle)] for b in range(s.bars)] for s in slots]
    out = []
    for slot in slots:
        progression = harmony.section(_function(slot, harmony)) or [0]
        if slot.kind == "outro":
            progression = _from_tonic(progression, harmony)
        out.append([progression[b % len(progression)] for b in range(slot.bars)])
    dominant = _dominant(harmony)
    if harmony.family in CADENCES and dominant is not None:
        for i, slot in enumerate(slots[:-1]):
            nxt = slots[i + 1]
            if nxt.kind in PEAKS and slot.kind not in PEAKS and slot.kind not in ("prechorus", "build") \
                    and out[i][-1] != dominant and slot.bars >= 4:
                out[i][-1] = dominant
    if harmony.ending and out:
        last = out[-1]
        # each ending chord lasts as long as the family's chords do (film music's bVI–i: two bars each)
        ending = [i for i in harmony.ending for _ in range(harmony.chords[i].bars)]
        tail = ending[-len(last):]
        last[len(last) - len(tail):] = tail
    return out


def _from_tonic(progression: list[int], harmony: HarmonyPlan) -> list[int]:
    """`progression` played from its first tonic chord: an outro comes home and stays
    there, where starting a chorus on its bVI or IV would leave the song's last bars in
    the key a fifth below."""
    tonic = harmony.scale_pitch_classes[0] if harmony.scale_pitch_classes else 0
    start = next((k for k, i in enumerate(progression) if harmony.chords[i].root == tonic), 0)
    return progression[start:] + progression[:start]


def build_arrangement(intent: Intent, chord_bars: Sequence[float] | HarmonyPlan, roles: Sequence[str],
                      seed: int = 0, form: str | Sequence[Slot] | None = None) -> ArrangementPlan:
    """The arrangement plan for `intent` and these `roles`, over the harmony plan (each
    section plays its function's progression, cadences at section ends, the ending last)
    or, given only the bars of each chord of one loop, looping that.

    The lengths, energies and chords follow from the inputs; `seed` varies what is musically
    free (the shape of the genre's form, `form_variants`; which voice opens the song, which
    carry a break, which play it out, and the groove the drummer and the bassist agree on).
    `form` names one of `FORMS` (played as written), or is a form of the user's own (its
    `Slot`s, played as given: no hints, no fitting to a length).
    """
    if isinstance(chord_bars, HarmonyPlan):
        harmony: HarmonyPlan | None = chord_bars
        loop_bars: list[float] = [c.bars for c in chord_bars.main_loop]
    else:
        harmony, loop_bars = None, list(chord_bars)
    rng = random.Random(seed)
    genre = primary_genre(intent)
    own = list(form) if form is not None and not isinstance(form, str) else None
    named = form if isinstance(form, str) else None
    name = "custom" if own else named or next((_FORM_HINTS[h] for h in intent.structure_hints if h in _FORM_HINTS),
                                              genre.form)
    generic = not own and name not in FORMS
    slots = own or list(GENERIC if generic else FORMS[name])
    variant = "as written"
    if form is None and not generic:  # a form asked for by name is played as written
        slots, variant = vary_form(slots, seed, name, KEPT_SECTIONS.get(genre.name, frozenset()))
    electronic = name in ELECTRONIC_FORMS
    if not own:
        slots = _apply_hints(slots, intent.structure_hints, electronic)
        slots = _fit(slots, resolve_target(sum(s.bars for s in slots), intent))
    for hint in intent.structure_hints if not own else ():
        if hint.startswith("drop at bar "):
            slots = _drop_at(slots, int(hint.rsplit(" ", 1)[1]))
    slots = slots if own else _thin_outro(slots)
    cycle = chord_cycle(loop_bars)
    section_chords = _section_chords(slots, harmony, cycle)
    arc = _energy_arc([(s, s.bars) for s in slots])
    counts: dict[str, int] = {}
    totals = {s.name: sum(1 for t in slots if t.name == s.name) for s in slots}
    sections: list[SectionPlan] = []
    start = 1
    for i, slot in enumerate(slots):
        counts[slot.name] = counts.get(slot.name, 0) + 1
        label = _label(slot.name, slot.kind, counts[slot.name], totals[slot.name])
        bars_energy = arc[start - 1:start - 1 + slot.bars]
        sections.append(SectionPlan(
            name=label, kind=slot.kind, start_bar=start, bars=slot.bars,
            energy=round(sum(bars_energy) / len(bars_energy), 3),
            roles=_roles_for(slot, roles, electronic, slot.bars, rng),
            chord_indices=section_chords[i],
            transition=_transition(slot, slots[i + 1] if i + 1 < len(slots) else None, electronic,
                                   intent.structure_hints),
        ))
        start += slot.bars
    _roles_follow_energy(sections, roles)
    _cover_every_role(sections, roles)
    _bass_plays_out(sections, roles)
    _break_down(sections, BREAKDOWNS.get(genre.name, {}), roles)
    turns = TURNS.get(genre.name, TURNS.get(genre.drum_family))
    if turns is not None:
        _take_turns(sections, turns)
    return ArrangementPlan(form_name="generic" if generic else name, generic_fallback=generic,
                           total_bars=start - 1, sections=sections, bar_energy=arc, groove=rng.getrandbits(16),
                           form_variant=variant)


CORE = ("drums", "bass", "chords", "lead", "pad")
# constraint kind → roles it removes
_REMOVES: dict[str, tuple[str, ...]] = {
    "no_drums": ("drums", "percussion"), "no_bass": ("bass", "sub_bass"), "no_808": ("sub_bass",),
    "no_lead": ("lead", "counter_melody"), "no_pad": ("pad",), "no_chords": ("chords",),
}


def left_out(intent: Intent) -> frozenset[str]:
    """Core roles the idiom has no place for — bluegrass has no drum kit and no pad, a
    lullaby or a funeral song no drums — unless the prompt asks for them."""
    from bandstand.compose.lexicon.words import MOOD_LEAVES_OUT

    out = set(primary_genre(intent).leaves_out)
    for mood in intent.mood:
        out.update(MOOD_LEAVES_OUT.get(mood, ()))
    return frozenset(out)


def resolve_roles(intent: Intent, parts: Sequence[str] | None, supported: Sequence[str]) -> list[str]:
    """The roles that will play: the asked-for `parts`; or an ensemble's players ("a jazz
    quartet": drums, bass, piano, horn); or the core five plus the extra roles the genre
    brings (synthpop's arpeggiator), the instrument requests name (an 808 / sub bass request
    takes the bass's place) and the textures the prompt names — minus what the constraints
    rule out."""
    from bandstand.compose.lexicon.words import ensemble_roles

    if parts:
        roles = list(dict.fromkeys(parts))
    elif intent.players:
        roles = ensemble_roles(primary_genre(intent).family, intent.players)
    else:
        roles = list(CORE)
        requested = intent.requested_roles()
        for role in [*primary_genre(intent).extras, *requested]:
            if role in supported and role not in roles:
                roles.append(role)
        if "sub_bass" in roles and "bass" not in requested:
            roles.remove("bass")
        if intent.textures and "texture" in supported:
            roles.append("texture")
        roles = [r for r in roles if r in requested or r not in left_out(intent)]
    for constraint in intent.constraints:
        removed = _REMOVES.get(constraint.kind, ())
        roles = [r for r in roles if r not in removed]
    if not roles:
        raise InvalidInput("the prompt's constraints rule out every part; allow at least one instrument")
    return roles
