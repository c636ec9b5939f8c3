"""The Strudel assistant outside a jam: write, play and stop pattern code in a shared key and
tempo, and look functions up.

A `PatternDesk` (one per client: the CLI's `bandstand pattern chat`, an MCP server) holds the
musical context (key, mode, tempo, metre) and the code playing now:

- `execute(code)` runs a Strudel program as strudel.cc's REPL does (`patterns.expr.run_program`:
  `setcpm`, `$:` blocks, voicings, banks …, under the query budgets), checks it as a jam member's
  pattern is checked (`patterns.validate.validate_pattern`: density, notes in the key's scale)
  and, when it plays, makes it the code playing; a mistake is a `PatternError` naming the place,
  and the code playing before stays. What comes back (`Played`) says what it plays: tempo,
  blocks, events per cycle, sounds, range, the share of notes in the key and any warnings.
- `write(words)` has the built-in band (the jam's musicians, offline) write the code the words
  ask for — "a funky bassline", "four on the floor with open hats" — in the desk's context;
  the language model's backends write it the same way when the jam is given one.
- `preview(folder)` renders the code playing to a WAV (`cycles` of it), so a client without a
  player of its own can hear it; `song()` is the same as the pages' player plays a song (the
  studio page's Scratch tab loops it).
- `stop()`, `update_context(key=, tempo=, beats_per_bar=)`, and `reference(query)`: the
  function reference, made from the pattern registry itself (every function the engine has,
  its kind, aliases and one line of what it does) with the language's rules before it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel, Field

from bandstand.errors import InvalidInput, PatternError, TheoryError
from bandstand.score import TEMPO_RANGE, clamp_tempo

__all__ = ["DeskContext", "PatternDesk", "Played", "ScratchNote", "ScratchSong", "ScratchTrack", "reference"]


class ScratchNote(TypedDict):
    """A note of a scratch song, in beats."""

    start: float
    duration: float
    pitch: int
    velocity: int


class ScratchTrack(TypedDict):
    id: str
    name: str
    program: int
    drum: bool
    notes: list[ScratchNote]


class ScratchSong(TypedDict):
    """Code played as the pages' player plays a song (`PatternDesk.song`): its tempo, its length in
    beats and its tracks."""

    tempo: float
    length: int
    tracks: list[ScratchTrack]

_ROLE_WORDS: tuple[tuple[str, str], ...] = (
    (r"\b(drums?|beat|kick|snare|hats?|hi-?hats?|groove|breakbeat|four on the floor|percussion)\b", "BEAT"),
    (r"\b(bass(line)?|808|sub|low end)\b", "GROOVE"),
    (r"\b(melod(y|ic)|lead|riff|hook|arp(eggio)?|chords?|keys|piano|pads?|synth)\b", "ARIA"),
    (r"\b(fx|texture|noise|ambien(t|ce)|atmosphere|glitch)\b", "GLITCH"),
)


class DeskContext(BaseModel):
    """The key, mode, tempo and metre the desk's code is written and checked in."""

    tonic: str = "C"
    mode: str = "minor"
    bpm: float = Field(default=120.0, ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1])
    beats_per_bar: int = Field(default=4, ge=2, le=15)

    @property
    def key(self) -> str:
        return f"{self.tonic} {self.mode}"

    @property
    def cps(self) -> float:
        """Cycles per second, one bar a cycle (as `setcpm(bpm / beats_per_bar)` sets it)."""
        return self.bpm / 60 / self.beats_per_bar


class Played(BaseModel):
    """What a piece of code plays: read from its first cycles."""

    code: str
    playing: bool = Field(description="it is the code playing now")
    cps: float = Field(description="cycles per second: the program's setcpm/setcps, else the desk's tempo")
    bpm: float
    events_per_cycle: float
    sounds: list[str]
    lowest_note: int | None = None
    highest_note: int | None = None
    in_key: float | None = Field(default=None, description="the share of its pitched notes in the desk's key")
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what the program asked for that is not played here")
    preview: str | None = Field(default=None, description="a WAV of it, when one was rendered")


@dataclass
class PatternDesk:
    """One client's assistant: the context, the code playing, what the band wrote last."""

    context: DeskContext = field(default_factory=DeskContext)
    playing: Played | None = None
    seed: int = 0

    def execute(self, code: str, *, cycles: int = 4) -> Played:
        """Run `code` as Strudel does, check it and make it the code playing (`PatternError`
        naming the place when it cannot play; the code playing before stays)."""
        from bandstand.patterns.expr.evaluator import run_program
        from bandstand.patterns.validate import validate_pattern

        if not isinstance(code, str) or not code.strip():
            raise InvalidInput('no code: write a pattern such as s("bd sd, hh*8") or say what to play', field="code")
        program = run_program(code)
        report = validate_pattern(code, scale=f"{self.context.tonic}:{self.context.mode}", cycles=cycles)
        if not report.valid:
            raise PatternError(report.error or "the pattern cannot play", column=report.error_column)
        cps = float(program.cps) if program.cps is not None else self.context.cps
        played = Played(
            code=code, playing=True, cps=round(cps, 6), bpm=round(cps * 60 * self.context.beats_per_bar, 3),
            events_per_cycle=round(report.events_per_cycle, 2), sounds=list(report.sounds),
            lowest_note=report.lowest_note, highest_note=report.highest_note,
            in_key=None if report.in_scale_ratio is None else round(report.in_scale_ratio, 3),
            warnings=list(report.warnings), notes=list(program.notes),
        )
        self.playing = played
        return played

    def stop(self) -> Played | None:
        """Stop the code playing; answers what was playing (None: nothing was)."""
        was, self.playing = self.playing, None
        return None if was is None else was.model_copy(update={"playing": False})

    def update_context(self, *, key: str | None = None, tempo: float | None = None,
                       beats_per_bar: int | None = None) -> DeskContext:
        """Change the key ("D minor", "F#m", "Eb dorian"), the tempo (BPM, clamped to the one range
        every client uses) or the beats per bar; what is not given stays."""
        from bandstand.theory import parse_key

        update: dict[str, Any] = {}
        if key is not None:
            try:
                parsed = parse_key(key)
            except TheoryError as exc:
                raise InvalidInput(f"key: {exc.message}", field="key") from None
            update.update(tonic=parsed.tonic, mode=parsed.mode)
        if tempo is not None:
            update["bpm"] = clamp_tempo(float(tempo))
        if beats_per_bar is not None:
            if not 2 <= beats_per_bar <= 15:
                raise InvalidInput(f"beats per bar {beats_per_bar} is out of range; use 2..15", field="beats_per_bar")
            update["beats_per_bar"] = beats_per_bar
        self.context = self.context.model_copy(update=update)
        return self.context

    def write(self, words: str) -> Played:
        """Have the built-in band write the code `words` ask for, in the desk's context, and
        play it (the member the words name — drums, bass, melody, fx — or the whole band)."""
        if not isinstance(words, str) or not words.strip():
            raise InvalidInput("say what to play, e.g. 'a funky bassline' or 'four on the floor'", field="words")
        code = asyncio.run(self._written(words))
        return self.execute(code)

    async def _written(self, words: str) -> str:
        from bandstand.jam.context import MusicalContext, progression_degrees, reharmonize
        from bandstand.jam.engine import JamEngine
        from bandstand.jam.persona import resolve_members

        members = [name for pattern, name in _ROLE_WORDS if re.search(pattern, words, re.IGNORECASE)]
        opening = MusicalContext()  # the jam's opening progression, moved to the desk's key by degree
        context = MusicalContext(tonic=self.context.tonic.lower(), mode=self.context.mode, bpm=self.context.bpm,
                                 beats_per_bar=self.context.beats_per_bar)
        context.chords = reharmonize(progression_degrees(opening.chords, opening.scale), context.scale)
        engine = JamEngine(resolve_members(members or None), context=context, seed=self.seed)
        await engine.start()
        try:
            await engine.directive(words)
            return engine.state().combined_pattern
        finally:
            await engine.stop()

    def song(self, *, cycles: int = 4) -> ScratchSong:
        """The code playing, `cycles` of it, as the pages' player plays a song (tempo, tracks of
        notes in beats, GM programs, drum kits): a page loops it in its scratch tab."""
        from bandstand.patterns.expr.evaluator import run_program
        from bandstand.patterns.to_score import pattern_to_song

        if self.playing is None:
            raise InvalidInput("nothing is playing: execute some code first", field="code")
        beats = self.context.beats_per_bar
        made = pattern_to_song(run_program(self.playing.code).pattern, cycles, self.playing.bpm, beats)
        tracks: list[ScratchTrack] = [{"id": f"scratch-{i}-{t.name}", "name": t.name, "program": t.program, "drum": t.is_drum,
                   "notes": [{"start": n.start, "duration": n.duration, "pitch": n.pitch, "velocity": n.velocity}
                             for n in t.notes]}
                  for i, t in enumerate(made.tracks)]
        return {"tempo": self.playing.bpm, "length": cycles * beats, "tracks": tracks}

    def preview(self, folder: str | Path, *, cycles: int = 4) -> Played:
        """Render the code playing (`cycles` of it) to a WAV in `folder`; answers it with `preview`."""
        import hashlib

        from bandstand.patterns.expr.evaluator import run_program
        from bandstand.patterns.to_score import pattern_to_song
        from bandstand.render import render_wav

        if self.playing is None:
            raise InvalidInput("nothing is playing: execute some code first", field="code")
        program = run_program(self.playing.code)
        song = pattern_to_song(program.pattern, cycles, self.playing.bpm, self.context.beats_per_bar,
                               title="pattern preview")
        out = Path(folder).expanduser()
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"pattern-{hashlib.sha256(self.playing.code.encode()).hexdigest()[:12]}-{cycles}.wav"
        render_wav(song, path)  # written atomically
        self.playing = self.playing.model_copy(update={"preview": str(path)})
        return self.playing


_LANGUAGE = """\
# Strudel in bandstand: the function reference

Code is Strudel's JavaScript subset: one pattern (`s("bd sd").fast(2)`) or a program —
`const`/`let`, several statements, `$:` blocks (several patterns at once; `_$:` mutes one),
`setcpm(n)`/`setcps(n)`, `samples(…)` (nothing is fetched), `.bank("RolandTR808")` (a drum kit),
visual calls (`.pianoroll()`, `.scope()` …, accepted, nothing drawn). "…" strings are
mini-notation; '…' strings are plain text. Value functions (`.filter(h => h.value.s === 'hh')`,
`.withValue(v => v + 1)`) see haps and values with JavaScript's operators. There is no way out
to JavaScript or Python, and every query has a budget. docs/patterns.md has the details and
the list of what is refused and why.
"""


def reference(query: str | None = None) -> str:
    """The function reference (markdown) from the pattern registry: every function, or those
    whose name, alias or description contains `query`."""
    from bandstand.patterns.methods import get_registry

    registry = get_registry()
    seen: dict[str, Any] = {}
    for _alias, entry in registry.items():
        seen.setdefault(entry.name, entry)
    wanted = (query or "").strip().lower()
    rows: dict[str, list[str]] = {}
    for name in sorted(seen, key=str.lower):
        entry = seen[name]
        aliases = [a for a in entry.aliases if a != name]
        text = " ".join([name, *aliases, entry.doc]).lower()
        if wanted and wanted not in text:
            continue
        also = f" (also {', '.join(aliases)})" if aliases else ""
        form = "method" if entry.method else "function"
        rows.setdefault(entry.kind, []).append(f"- `{name}`{also} — {entry.doc or form}")
    if not rows:
        raise InvalidInput(f"no function matches {query!r}; try a shorter word (e.g. 'fast', 'scale', 'echo')",
                           field="query")
    parts = [] if wanted else [_LANGUAGE]
    for kind in sorted(rows):
        parts.append(f"## {kind} ({len(rows[kind])})\n" + "\n".join(rows[kind]))
    return "\n\n".join(parts) + "\n"
