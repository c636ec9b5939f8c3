"""The rule-based decomposer: prompt (+ explicit settings) → `Intent`.

It reads explicit parameters and constraints with patterns, finds genres,
artists, moods and instruments with the lexicons, and then applies the
enrichment rules (half-time, key conventions, dials from moods). The same
prompt and seed always give the same intent.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from bandstand.compose.intent import analysis
from bandstand.compose.intent.explicit import (
    MODES,
    Explicit,
    find_explicit,
    normalize_root,
    section_metres,
)
from bandstand.compose.intent.llm import Extraction
from bandstand.compose.intent.scan import Hit, mask, modifier_before, scan
from bandstand.compose.lexicon import (
    ARTIST_BY_NAME,
    GENRE_BY_NAME,
    INSTRUMENTS,
    MOOD_BY_LABEL,
    Artist,
    GenreTraits,
    Mood,
)
from bandstand.compose.lexicon.moods import OBJECT_DEFAULTS
from bandstand.compose.lexicon.words import (
    ENSEMBLES,
    MOOD_SOUNDS,
    MOOD_STYLE,
    STRING_PLAYERS,
    TEXTURES,
    nearest_genre,
)
from bandstand.compose.models.intent import (
    Ambiguity,
    Constraint,
    Duration,
    InfluenceAnalysis,
    InstrumentRequest,
    Intent,
)
from bandstand.errors import InvalidInput
from bandstand.score import TEMPO_RANGE

MAX_PROMPT = 2000
MAX_BARS = 512
DEFAULT_DURATION = Duration(min_bars=16, max_bars=128)
FALLBACK_OPTIONS = ["pop", "hip-hop", "house", "lo-fi"]
MAX_GENRES = 3  # a song blends at most this many of the genres a prompt names
_KEY_RE = re.compile(r"^\s*([A-Ga-g])([#♯b♭]?)\s*(m|min|minor|maj|major)?\s*$")


@dataclass(frozen=True, slots=True)
class Overrides:
    """Settings given outside the prompt (CLI flags, API keywords); they beat the prompt."""

    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    bars: int | None = None
    genre: str | None = None

    def validated(self) -> Overrides:
        low, high = TEMPO_RANGE
        if self.tempo is not None and not low <= self.tempo <= high:
            raise InvalidInput(f"tempo {self.tempo:g} is out of range; use {low:g}–{high:g} BPM")
        if self.bars is not None and not 4 <= self.bars <= MAX_BARS:
            raise InvalidInput(f"--bars {self.bars} is out of range; use 4–{MAX_BARS} bars")
        if self.key is not None and not _KEY_RE.match(self.key):
            raise InvalidInput(f"unknown key '{self.key}'; use a note name such as A, F#, Eb or Am")
        if self.mode is not None and self.mode.lower() not in MODES:
            raise InvalidInput(f"unknown mode '{self.mode}'; use one of: {', '.join(MODES)}")
        if self.genre is not None and self.genre.lower() not in {g.lower() for g in GENRE_BY_NAME}:
            from bandstand.compose.lexicon import genre_traits

            genre_traits(self.genre)  # raises with a suggestion, or resolves an alias
        return self

    def key_parts(self) -> tuple[str | None, str | None]:
        if self.key is None:
            return None, self.mode.lower() if self.mode else None
        m = _KEY_RE.match(self.key)
        assert m is not None
        mode_word = (m.group(3) or "").lower()
        mode = self.mode.lower() if self.mode else {"m": "minor", "min": "minor", "minor": "minor",
                                                    "maj": "major", "major": "major"}.get(mode_word)
        return normalize_root(m.group(1), m.group(2) or None), mode


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _merge(ex: Explicit, hits: list[Hit], extraction: Extraction) -> list[str]:
    """Add what a language model read to what the rules read; the prompt's own readings
    win, and only what resolves in the lexicons or validates is kept. Returns notes on
    what was dropped."""
    dropped: list[str] = []
    for kind, names in (("genre", extraction.genre), ("artist", extraction.influences)):
        for name in names:
            found = [h for h in scan(name) if h.kind == kind]
            if found:
                hits.extend(found)
            else:
                dropped.append(f"{kind} '{name}'")
    for word in [*extraction.mood, *extraction.instruments]:
        hits.extend(h for h in scan(word) if h.kind in ("mood", "instrument"))
    for hint in extraction.structure_hints:
        for h in find_explicit(hint).hints:
            if h not in ex.hints:
                ex.hints.append(h)
    if ex.bpm is None and extraction.tempo is not None:
        if TEMPO_RANGE[0] <= extraction.tempo <= TEMPO_RANGE[1]:
            ex.bpm = float(extraction.tempo)
        else:
            dropped.append(f"tempo {extraction.tempo:g}")
    if ex.root is None and extraction.key:
        m = _KEY_RE.match(extraction.key)
        if m:
            ex.root = normalize_root(m.group(1), m.group(2) or None)
        else:
            dropped.append(f"key '{extraction.key}'")
    if ex.mode is None and extraction.mode:
        if extraction.mode.lower() in MODES:
            ex.mode = extraction.mode.lower()
        else:
            dropped.append(f"mode '{extraction.mode}'")
    if ex.bars is None and extraction.bars is not None and 4 <= extraction.bars <= MAX_BARS:
        ex.bars = (extraction.bars, extraction.bars)
    return dropped


def decompose(prompt: str, *, seed: int = 0, overrides: Overrides | None = None,
              extraction: Extraction | None = None) -> Intent:
    """Read `prompt` into an `Intent` (deterministic for prompt, seed, overrides and the
    optional language-model `extraction`, which is merged and then corrected by the rules)."""
    if not prompt or not prompt.strip():
        raise InvalidInput('the prompt is empty; describe the song, e.g. "dark trap, 140 BPM, key of Am"')
    if len(prompt) > MAX_PROMPT:
        raise InvalidInput(f"the prompt is {len(prompt)} characters long; keep it under {MAX_PROMPT}")
    over = (overrides or Overrides()).validated()
    text = " ".join(prompt.split())
    artist_spans = [(h.start, h.end) for h in scan(text) if h.kind == "artist"]
    ex = find_explicit(text, artist_spans)
    hits = scan(mask(text, ex.spans))
    ambiguities: list[Ambiguity] = []
    inferred: list[str] = []
    if extraction is not None:
        dropped = _merge(ex, hits, extraction)
        if dropped:
            ambiguities.append(Ambiguity(
                field="extraction", reason=f"the language model's {', '.join(dropped)} did not match bandstand's "
                "lexicons and was left out", options=[], default="rules", severity="optional"))

    explicit_genres = _dedupe([h.target for h in hits if h.kind == "genre"])
    substitutions: list[str] = []
    if not explicit_genres and not over.genre:
        near = nearest_genre(mask(text, ex.spans), set(GENRE_BY_NAME))
        if near is not None:
            word, close = near
            explicit_genres = [close]
            substitutions.append(f"{word} → {close} (the nearest genre bandstand knows)")
            ambiguities.append(Ambiguity(
                field="genre", reason=f"'{word}' is not a genre bandstand knows; playing {close}, the nearest",
                options=[close], default=close, severity="optional"))
    if over.genre:
        from bandstand.compose.lexicon import genre_traits

        explicit_genres = _dedupe([genre_traits(over.genre).name, *explicit_genres])
    artists: list[Artist] = [ARTIST_BY_NAME[n] for n in _dedupe([h.target for h in hits if h.kind == "artist"])]
    moods: list[Mood] = [MOOD_BY_LABEL[n] for n in _dedupe([h.target for h in hits if h.kind == "mood"])]
    objects = [h.target for h in hits if h.kind == "object"]

    genres = _dedupe(explicit_genres + [a.genres[0] for a in artists])
    sub_genres = [g for g in _dedupe([g for a in artists for g in a.genres[1:]]) if g not in genres]
    if not genres:
        played = [INSTRUMENTS[int(h.target)] for h in hits if h.kind == "instrument"]
        suggestions = analysis.suggested_genres(moods, [i.genres for i in played])
        inferred.append("genre")
        if suggestions:  # the moods and instruments choose together; none of them forces its first genre
            default = suggestions[0]
            genres = [default]
            voters = _dedupe([*(m.label for m in moods), *(i.words[0] for i in played)])[:3]
            by = " and ".join(voters) + (" suggest" if len(voters) > 1 else " suggests")
            # with a kind of track named ("a funeral song") the choice is a warning; with only
            # moods ("something warm") it is a question whose default is the moods' choice
            ambiguities.append(Ambiguity(
                field="genre", reason=f"no genre named; {by} {default} (also fits: "
                f"{', '.join(suggestions[1:4]) or 'nothing else'})",
                options=suggestions[:4], default=default, severity="optional" if objects else "blocking"))
        elif objects:
            genres = [OBJECT_DEFAULTS[objects[0]]]
        else:
            options = FALLBACK_OPTIONS
            genres = [options[0]]
            ambiguities.append(Ambiguity(
                field="genre", reason=_nothing_read(text, ex.spans), options=options, default=options[0],
                severity="blocking"))
    if len(genres) > MAX_GENRES:
        ambiguities.append(Ambiguity(
            field="genre", reason=f"{len(genres)} genres named; a song blends at most {MAX_GENRES}, so this one "
            f"plays {', '.join(genres[:MAX_GENRES])} (the first named) and leaves out "
            f"{', '.join(genres[MAX_GENRES:MAX_GENRES + 3])}{' …' if len(genres) > MAX_GENRES + 3 else ''}",
            options=genres[:MAX_GENRES], default=genres[0], severity="optional"))
        genres = genres[:MAX_GENRES]
        explicit_genres = [g for g in explicit_genres if g in genres]
        sub_genres = [g for g in sub_genres if g not in genres]
    weights = analysis.genre_weights(genres if not artists else explicit_genres, artists) or {genres[0]: 1.0}
    dna = analysis.blend(weights)
    main = GENRE_BY_NAME[genres[0]]

    half_hint = "half-time" in ex.hints
    tempo_rng = random.Random(f"tempo:{seed}")  # apart from the key's draws: a seed's key does not move
    if over.tempo is not None:
        tempo = analysis.explicit_tempo(over.tempo, half_hint)
    elif ex.bpm is not None:
        tempo = analysis.explicit_tempo(ex.bpm, half_hint)
    else:
        if ex.bpm_out_of_range is not None:
            ambiguities.append(Ambiguity(
                field="tempo", reason=f"{ex.bpm_out_of_range:g} BPM is not a playable tempo "
                                      f"({TEMPO_RANGE[0]:g}–{TEMPO_RANGE[1]:g})",
                options=[f"{main.default_tempo:g}"], default=f"{main.default_tempo:g}", severity="optional"))
        named = [(a.name, a.tempo_range) for a in artists]
        if named:
            named += [(g, GENRE_BY_NAME[g].tempo_range) for g in explicit_genres]
            tempo = analysis.tempo_from_ranges(named)
        elif len(explicit_genres) > 1:
            # Named genres share a tempo where their ranges meet; when they do not, the first
            # genre sets the tempo and the others are colour (the half-time rule is for artists).
            tempo = analysis.tempo_from_ranges([(g, GENRE_BY_NAME[g].tempo_range) for g in explicit_genres])
            if tempo.half_time or tempo.confidence < 0.8:
                tempo = analysis.tempo_from_genre(main, ex.tempo_bias + sum(m.tempo_bias for m in moods), half_hint,
                                                  tempo_rng)
            tempo = tempo.model_copy(update={"source": "genre_default"})
        else:
            bias = ex.tempo_bias + sum(m.tempo_bias for m in moods)
            tempo = analysis.tempo_from_genre(main, bias, half_hint, tempo_rng)
        inferred.append("tempo")
    clash = analysis.tempo_clash(ex.tempo_words, tempo, main)
    if clash:
        ambiguities.append(Ambiguity(field="tempo", reason=clash, options=[f"{tempo.bpm:g}"],
                                     default=f"{tempo.bpm:g}", severity="optional"))
    if tempo.source == "explicit":
        lo, hi = main.tempo_range
        if not lo * 0.9 <= tempo.bpm <= hi * 1.1:
            feel = " (a half-time feel of it)" if lo <= tempo.bpm * 2 <= hi else ""
            ambiguities.append(Ambiguity(
                field="tempo", reason=f"{tempo.bpm:g} BPM is outside {main.name}'s usual {lo:g}–{hi:g} BPM{feel}; "
                f"proceeding with {tempo.bpm:g}",
                options=[f"{tempo.bpm:g}", f"{main.default_tempo:g}"], default=f"{tempo.bpm:g}", severity="optional"))

    root, mode = over.key_parts()
    root, mode = root or ex.root, mode or ex.mode
    if ex.unknown_key and mode is None:  # 'H# minor': the root is not a note, the mode still counts
        mode = next((m for m in sorted(MODES, key=len, reverse=True) if m in ex.unknown_key.lower()), None)
    _, conflict = analysis.mood_mode(moods)
    if conflict and mode is None:
        ambiguities.append(Ambiguity(
            field="mode", reason="the mood words pull towards both major and minor",
            options=["minor", "major"], default=analysis.mood_mode(moods)[0] or "minor", severity="optional"))
    key = analysis.key_analysis(root, mode, main, moods, random.Random(seed))
    if ex.unknown_key and root is None:
        ambiguities.append(Ambiguity(
            field="key", reason=f"'{ex.unknown_key}' is not a key bandstand knows (keys are A–G with # or b, "
            f"e.g. 'F# minor'); playing {key.root} {key.mode}, a common {main.name} key",
            options=[key.root, *[k for k in main.keys[:4] if k != key.root]], default=key.root, severity="optional"))
    if root is None:
        inferred.append("key")
    if mode is None:
        inferred.append("mode")

    if over.bars is not None:
        duration = Duration(min_bars=over.bars, max_bars=over.bars)
    elif ex.bars is not None:
        duration = Duration(min_bars=ex.bars[0], max_bars=ex.bars[1])
    elif ex.minutes is not None:
        beats = ex.minutes * tempo.bpm
        bars = max(4, min(MAX_BARS, round(beats / (ex.time_signature or (4, 4))[0])))
        duration = Duration(min_bars=max(4, bars - 4), max_bars=bars + 4)
    else:
        duration = DEFAULT_DURATION
        inferred.append("duration")
        if ex.bad_bars is not None:
            ambiguities.append(Ambiguity(
                field="duration", reason=f"{ex.bad_bars} bars is outside 4–{MAX_BARS}; using the form's length",
                options=[], default="form length", severity="optional"))
    if ex.time_signature is None:
        inferred.append("time_signature")
    # a genre that has its own metre sets it ("jazz waltz" is jazz in 3/4)
    meter = ex.time_signature or next((GENRE_BY_NAME[g].meter for g in genres if GENRE_BY_NAME[g].meter != (4, 4)),
                                      (4, 4))
    by_section: dict[str, tuple[int, int]] = {}
    if ex.odd_metre:  # "odd time signatures": a metre per section by the seed, whatever the genre's own
        meter, by_section = section_metres(seed)

    instrument_requests = _instruments(text, ex.spans, hits, main) + _mood_sounds(moods)
    players = next((e.players for e in ENSEMBLES if re.search(rf"\b{e.word}\b", text, re.IGNORECASE)), None)
    if players is not None and "string" in text.lower():
        instrument_requests += [InstrumentRequest(text=f"strings ({role})", role=role, program=program)
                                for role, program in STRING_PLAYERS.items()]
    textures = [t.name for t in TEXTURES
                if any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in t.words)]
    creativity = analysis.dials(dna, moods)
    intent = Intent(
        raw_prompt=prompt, genre=genres, sub_genre=sub_genres, tempo=tempo.bpm, key=key.root, mode=key.mode,
        mood=[m.label for m in moods], influences=[a.name for a in artists],
        influence_analysis=[InfluenceAnalysis(
            name=a.name, genres=list(a.genres), traits=list(a.traits),
            weight=round(1 / len(artists), 3), tempo_range=a.tempo_range) for a in artists],
        instrument_requests=instrument_requests, structure_hints=ex.hints, duration=duration,
        constraints=[Constraint(kind=k, text=t) for k, t in ex.constraints],
        time_signature=meter, section_metres=by_section, tempo_analysis=tempo, key_analysis=key,
        creativity_dials=creativity, genre_dna=dna, energy=analysis.energy(dna, moods),
        requested_outputs=["midi", "wav", "pianoroll", "notes"], ambiguities=ambiguities,
        inferred_fields=inferred,
        ready_to_execute=not any(a.severity == "blocking" for a in ambiguities),
        style=_mood_style(moods), textures=textures, players=players, substitutions=substitutions,
    )
    return intent.model_copy(update={"summary": summarize(intent)})


STOP_WORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is", "it",
    "its", "this", "that", "these", "those", "be", "some", "any", "my", "our", "your", "me", "i", "we", "you",
    "please", "make", "write", "give", "create", "compose", "play", "want", "need", "like", "just", "something",
    "thing", "stuff", "very", "so", "but", "not", "no", "yes", "one"
})


def _nothing_read(text: str, spans: list[tuple[int, int]]) -> str:
    """Why a prompt gave no genre: only stop words, or words none of the lexicons know."""
    words = re.findall(r"[\w'&-]+", mask(text, spans).lower())
    unknown = [w for w in words if w not in STOP_WORDS]
    if not unknown:
        return (f"the prompt ('{text}') has only common words like '{words[0] if words else text}' — nothing that "
                "says a genre, mood, instrument, artist or kind of track")
    return (f"no genre, artist, mood or kind of track bandstand knows in '{text}' "
            f"(unknown words: {', '.join(_dedupe(unknown)[:4])})")


def _instruments(text: str, spans: list[tuple[int, int]], hits: list[Hit], genre: GenreTraits) -> list[InstrumentRequest]:
    """The instruments the prompt names, each with the GM program heard: the instrument's own,
    or the genre's when the word covers it ("guitar" in a rock song is the rock band's guitar)."""
    requests: list[InstrumentRequest] = []
    for hit in hits:
        if hit.kind != "instrument":
            continue
        instrument = INSTRUMENTS[int(hit.target)]
        modifier = modifier_before(text, hit.start)
        words = f"{modifier} {hit.text}" if modifier else hit.text
        if any(r.text.lower() == words.lower() for r in requests):
            continue
        own = genre.program(instrument.role, -1)
        program = own if own in instrument.covers else instrument.program
        requests.append(InstrumentRequest(text=words, role=instrument.role, program=program))
    return requests


def _mood_style(moods: list[Mood]) -> dict[str, float]:
    """The style knob deltas the mood words add up to (each within -1..1)."""
    out: dict[str, float] = {}
    for m in moods:
        for knob, delta in MOOD_STYLE.get(m.label, {}).items():
            out[knob] = round(max(-1.0, min(1.0, out.get(knob, 0.0) + delta)), 3)
    return out


def _mood_sounds(moods: list[Mood]) -> list[InstrumentRequest]:
    """Instruments a mood word names ("robot": square waves and an arpeggiator)."""
    out: list[InstrumentRequest] = []
    for m in moods:
        sounds, _extra = MOOD_SOUNDS.get(m.label, ((), ()))
        out += [InstrumentRequest(text=f"{m.label} ({role})", role=role, program=program) for role, program in sounds]
    return out


def summarize(intent: Intent) -> str:
    """One line: genres, tempo, key, mood, influences."""
    tempo = intent.tempo_analysis
    feel = f" (feels {tempo.perceived_bpm:g}, half-time)" if tempo.half_time else ""
    parts = [" + ".join(intent.genre), f"{intent.tempo:g} BPM{feel}", f"{intent.key} {intent.mode}"]
    if intent.time_signature != (4, 4):
        parts.append(f"{intent.time_signature[0]}/{intent.time_signature[1]}")
    if intent.mood:
        parts.append(", ".join(intent.mood))
    if intent.influences:
        parts.append("after " + " & ".join(intent.influences))
    if intent.players:
        parts.append(f"{intent.players} players")
    if intent.textures:
        parts.append("with " + " and ".join(intent.textures))
    parts += intent.substitutions
    return " · ".join(parts)
