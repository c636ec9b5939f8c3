"""Reading a prompt with a language model (when one is configured) for stage 1.

The model answers with an `Extraction` (genres, tempo, key, mode, moods,
influences, instruments, structure hints, bars); `decompose` merges it into
what the rules read from the prompt and then applies the same lexicons and
rules to the whole, so the tables correct the model: names it invents are
dropped, genres and artists resolve to lexicon entries, a tempo outside the
genre's range becomes an ambiguity, keys and modes are validated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from bandstand.errors import StageFailed

PERSONA = (
    "You are a music producer's assistant. Read the user's request for a song and answer with JSON only, "
    "following the schema: the genres it asks for (common names), the tempo in BPM if stated or clearly "
    "implied, the key root (like 'A', 'F#', 'Eb') and mode if stated, mood words, artists named as "
    "influences, instruments named, structure hints (like 'no chorus', 'long intro', 'drop at bar 32') and a "
    "length in bars if stated. Leave out anything the request does not say."
)

if TYPE_CHECKING:
    from bandstand.agents import AgentBackend, TurnReply


class Extraction(BaseModel):
    """What a language model read from a prompt. Every field is optional."""

    model_config = ConfigDict(extra="ignore")

    genre: list[str] = []
    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    mood: list[str] = []
    influences: list[str] = []
    instruments: list[str] = []
    structure_hints: list[str] = []
    bars: int | None = Field(default=None)


def _ignore(kind: str, data: dict[str, object]) -> None:
    del kind, data


async def _ask(backend: AgentBackend, prompt: str, seed: int) -> TurnReply:
    from bandstand.agents import TurnRequest, json_schema

    conversation = await backend.open(PERSONA, {})
    try:
        return await conversation.turn(
            TurnRequest(text=f"Song request: {prompt}", name="intent", seed=seed,
                        schema=json_schema(Extraction), data={"prompt": prompt}),
            _ignore)
    finally:
        await conversation.close()


def extract(backend: AgentBackend, prompt: str, seed: int) -> Extraction:
    """Ask `backend` (an `AgentBackend`) to read `prompt`; a reply that is not a usable
    extraction is an LLM_PARSE_FAILED stage failure (retried by the engine)."""
    import asyncio  # only when a model reads the prompt: the rules alone need no event loop

    from bandstand.agents import parse_reply

    reply = asyncio.run(_ask(backend, prompt, seed))
    source = reply.structured if isinstance(reply.structured, dict) else reply.text
    parsed = parse_reply(source, Extraction)
    if parsed.value is None:
        raise StageFailed(f"the model's reading of the prompt was not usable: {parsed.error}", node="intent",
                          code="LLM_PARSE_FAILED", retryable=True)
    return parsed.value
