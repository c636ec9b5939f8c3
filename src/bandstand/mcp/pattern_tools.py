"""The Strudel assistant as MCP tools — `execute_pattern`, `stop_pattern`,
`update_musical_context`, `write_pattern` and `strudel_reference` — over the band's
Strudel desk (`App.live().pattern_desk`), as `bandstand pattern chat` does: an MCP client writes
Strudel code, plays it (checked in the desk's key and tempo; a WAV preview when asked) and stops
it. The function reference is also the resource `bandstand://strudel/reference`."""

from __future__ import annotations

from pydantic import Field

from bandstand.mcp.band import Answer, Band
from bandstand.mcp.band_tools import BandTool, Params
from bandstand.producer import App
from bandstand.producer.app import Control

__all__ = ["PATTERN_TOOLS", "REFERENCE_URI"]

REFERENCE_URI = "bandstand://strudel/reference"


class ExecutePatternParams(Params):
    """Play Strudel code: a pattern (`s("bd sd, hh*8")`) or a program (`setcpm(30)`, `$:` blocks, `const`,
    voicings, `.bank("RolandTR909")`), run exactly as strudel.cc's REPL runs it and checked as a band member's
    pattern is (density, notes in the musical context's key). It becomes the code playing. Answers what it
    plays (tempo, events per cycle, sounds, range, share of notes in key, warnings) and, with preview, a WAV
    of it. A mistake is one line naming the place; the code playing before stays."""

    code: str = Field(description='Strudel code, e.g. note("c3 eb3 g3").s("sawtooth").', max_length=20_000)
    preview: bool = Field(False, description="Also render a WAV of its first cycles (its path is answered).")
    cycles: int = Field(4, ge=1, le=64, description="How many cycles to check (and to render, with preview).")


class StopPatternParams(Params):
    """Stop the code playing. Answers what was playing (nothing: null)."""


class UpdateMusicalContextParams(Params):
    """Set the key, tempo or beats per bar the patterns are written and checked in (what is left out stays).
    Answers the context."""

    key: str | None = Field(None, description='A key, e.g. "D minor", "F#m", "Eb dorian".', max_length=40)
    tempo: float | None = Field(None, description="Beats per minute (30–300).")
    beats_per_bar: int | None = Field(None, ge=2, le=15, description="Beats per bar (one cycle is one bar).")


class WritePatternParams(Params):
    """Have the built-in band write Strudel code for words ("a funky bassline", "four on the floor with open
    hats", "a dreamy melody") in the musical context, and play it. Answers the code and what it plays."""

    words: str = Field(description="What to play, in words.", max_length=2_000)


class StrudelReferenceParams(Params):
    """The Strudel function reference (markdown): the language's rules and every function the engine has
    (or those matching query), with its kind, aliases and what it does. Also the resource
    bandstand://strudel/reference."""

    query: str | None = Field(None, description='A word to look for, e.g. "echo", "scale", "voicing".', max_length=80)


def _execute(band: Band, p: ExecutePatternParams, control: Control) -> Answer:
    played = band.desk.execute(p.code, cycles=p.cycles)
    if p.preview:
        played = band.desk.preview(band.library.root / "patterns", cycles=p.cycles)
    return Answer({**played.model_dump(), "context": band.desk.context.model_dump()})


def _stop(band: Band, p: StopPatternParams, control: Control) -> Answer:
    was = band.desk.stop()
    return Answer({"stopped": None if was is None else was.model_dump()})


def _context(band: Band, p: UpdateMusicalContextParams, control: Control) -> Answer:
    context = band.desk.update_context(key=p.key, tempo=p.tempo, beats_per_bar=p.beats_per_bar)
    return Answer({**context.model_dump(), "key": context.key})


def _write(band: Band, p: WritePatternParams, control: Control) -> Answer:
    return Answer({**band.desk.write(p.words).model_dump(), "context": band.desk.context.model_dump()})


def _reference(band: Band, p: StrudelReferenceParams, control: Control) -> Answer:
    return Answer({"reference": App().live().reference(p.query)})


PATTERN_TOOLS: tuple[BandTool, ...] = (
    BandTool("execute_pattern", ExecutePatternParams, _execute),
    BandTool("stop_pattern", StopPatternParams, _stop, idempotent=True),
    BandTool("update_musical_context", UpdateMusicalContextParams, _context, idempotent=True),
    BandTool("write_pattern", WritePatternParams, _write),
    BandTool("strudel_reference", StrudelReferenceParams, _reference, read_only=True, idempotent=True),
)
