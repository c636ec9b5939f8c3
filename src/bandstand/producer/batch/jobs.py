"""A batch's songs: the prompts file read into `SongJob`s.

The file holds one song per line: the prompt itself, or a JSON object with
``prompt`` and any of ``seed``, ``bars``, ``parts``, ``tempo``, ``key``,
``mode``, ``genre`` and ``team`` (true: an agent team composes it). Blank
lines and lines starting with ``#`` are skipped. A song without a seed gets
the batch's seed plus its position (0, 1, 2, …), so one batch seed fixes
every song; a song's folder is its 1-based number and a slug of its prompt
(``007-funk-groove-in-e-minor``). Mistakes are one line naming the file and
the line. The batch's id is the SHA-256 of its jobs: running the same batch
again finds its own tasks on a board instead of making new ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.errors import InvalidInput
from bandstand.files import read_user_text

__all__ = ["MAX_LINE", "MAX_SONGS", "SONG_FIELDS", "SongJob", "batch_id", "load_prompts", "read_prompts", "slug"]

MAX_SONGS = 10_000
MAX_LINE = 4_000
SONG_FIELDS: tuple[str, ...] = ("seed", "bars", "parts", "tempo", "key", "mode", "genre", "team")


def slug(prompt: str, limit: int = 40) -> str:
    """Lower-case words of the prompt joined by dashes (at most `limit` characters)."""
    words = re.findall(r"[a-z0-9]+", prompt.casefold())
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > limit:
            break
        out = f"{out}-{word}" if out else word
    return out or "song"


class SongJob(BaseModel):
    """One song of a batch: what to compose, with which seed, into which folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    prompt: str = Field(min_length=1, max_length=MAX_LINE)
    seed: int = Field(ge=0, lt=2**31)
    folder: str = Field(pattern=r"^\d{3,}-[a-z0-9-]+$")
    bars: int | None = Field(default=None, ge=4, le=512)
    parts: tuple[str, ...] | None = None
    tempo: float | None = None
    key: str | None = None
    mode: str | None = None
    genre: str | None = None
    team: bool = False
    render_audio: bool = False

    def compose_options(self) -> dict[str, Any]:
        """The song options as compose (and a team) take them, without the ones not given."""
        chosen = {"bars": self.bars, "parts": list(self.parts) if self.parts else None, "tempo": self.tempo,
                  "key": self.key, "mode": self.mode, "genre": self.genre}
        return {k: v for k, v in chosen.items() if v is not None}


def _line(raw: str, where: str) -> dict[str, Any]:
    if not raw.startswith("{"):
        return {"prompt": raw}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not a JSON object ({exc.msg} at column {exc.colno}); write the prompt "
                           'alone, or {"prompt": "…", "seed": 7}') from None
    if not isinstance(data, dict) or not isinstance(data.get("prompt"), str):
        raise InvalidInput(f'{where}: a JSON line needs a "prompt" string, e.g. {{"prompt": "funk groove", "seed": 7}}')
    unknown = sorted(set(data) - {"prompt", *SONG_FIELDS})
    if unknown:
        raise InvalidInput(f"{where}: unknown field '{unknown[0]}'; a song may set {', '.join(SONG_FIELDS)}")
    return data


def read_prompts(text: str, *, seed: int = 0, defaults: Mapping[str, Any] | None = None,
                 source: str = "prompts") -> list[SongJob]:
    """The songs of a prompts file's text (see the module docstring); `defaults` are song fields
    every song takes unless its line sets them."""
    jobs: list[SongJob] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{number}"
        if len(line) > MAX_LINE:
            raise InvalidInput(f"{where}: the line is {len(line)} characters; keep a song under {MAX_LINE}")
        if len(jobs) == MAX_SONGS:
            raise InvalidInput(f"{source}: more than {MAX_SONGS} songs; split the file into several batches")
        data = {**(defaults or {}), **_line(line, where)}
        index = len(jobs)
        data.setdefault("seed", seed + index)
        if isinstance(data.get("parts"), str):
            data["parts"] = [p.strip() for p in data["parts"].split(",") if p.strip()]
        try:
            jobs.append(SongJob(index=index, folder=f"{index + 1:03d}-{slug(data['prompt'])}", **data))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "line"
            raise InvalidInput(f"{where}: {field}: {first['msg']}") from None
    if not jobs:
        raise InvalidInput(f"{source}: no prompts; write one song per line (# starts a comment)")
    return jobs


def load_prompts(path: str | Path, *, seed: int = 0, defaults: Mapping[str, Any] | None = None) -> list[SongJob]:
    """Read a prompts file (UTF-8 text)."""
    source = Path(path)
    text = read_user_text(source, "prompts file", "a text file with one prompt per line")
    return read_prompts(text, seed=seed, defaults=defaults, source=str(source))


def batch_id(jobs: list[SongJob]) -> str:
    """The batch's id: 12 hex digits of the SHA-256 of its jobs."""
    text = json.dumps([j.model_dump(mode="json") for j in jobs], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
