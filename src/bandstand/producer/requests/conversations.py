"""Conversations: the turns of a person directing the studio, kept so the next
request is read in their light — a language model gets them as its history,
and the rules use what the last turns were about ("add a pad", then "make it
darker" means the pad; a conversation remembers its project).

Each conversation is one JSON file in `<out>/conversations/`, written
atomically after every turn and bounded: the newest `MAX_TURNS` turns are kept,
each at most `MAX_TEXT` characters.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bandstand.errors import NotFound
from bandstand.files import write_bytes

__all__ = ["CONVERSATION_ID", "MAX_TEXT", "MAX_TURNS", "Conversation", "ConversationStore", "Turn", "clip"]

MAX_TURNS = 40
MAX_TEXT = 2000
MAX_CONVERSATIONS = 1000
CONVERSATION_ID = re.compile(r"^conv-[0-9a-f]{16}$")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Turn(BaseModel):
    """One turn: who spoke, what was said, and — for the studio's answers — the mode it ran in,
    the tracks it was about, the revision and variation it made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["user", "assistant"]
    text: str = Field(max_length=MAX_TEXT)
    mode: str | None = None
    intent: str | None = None
    focus: list[str] = Field(default_factory=list, max_length=20)
    project_id: str | None = None
    revision: int | None = None
    variation_id: str | None = None
    at: dt.datetime = Field(default_factory=_now)


class Conversation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    created_at: dt.datetime = Field(default_factory=_now)
    project_id: str | None = None
    turns: list[Turn] = Field(default_factory=list)

    @property
    def focus(self) -> list[str]:
        """What the newest turn with a focus was about (tracks or parts)."""
        return next((t.focus for t in reversed(self.turns) if t.focus), [])

    def summary(self) -> dict[str, object]:
        return {"conversationId": self.id, "projectId": self.project_id, "turns": len(self.turns),
                "createdAt": self.created_at.isoformat(),
                "updatedAt": (self.turns[-1].at if self.turns else self.created_at).isoformat()}

    def to_json(self) -> dict[str, object]:
        return {**self.summary(), "turns": [t.model_dump(mode="json", by_alias=False) for t in self.turns]}


class ConversationStore:
    """The conversations of one output folder (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.dir = Path(root) / "conversations"
        self._lock = threading.Lock()

    def _path(self, conversation_id: str) -> Path:
        if not isinstance(conversation_id, str) or not CONVERSATION_ID.match(conversation_id):
            raise NotFound(f"no conversation '{str(conversation_id)[:60]}': ids look like conv-0123456789abcdef "
                           "(POST /api/v1/conversations starts one)")
        return self.dir / f"{conversation_id}.json"

    def create(self, project_id: str | None = None) -> Conversation:
        conversation = Conversation(id=f"conv-{uuid.uuid4().hex[:16]}", project_id=project_id)
        self._save(conversation)
        return conversation

    def get(self, conversation_id: str) -> Conversation:
        path = self._path(conversation_id)
        try:
            return Conversation.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            raise NotFound(f"no conversation '{conversation_id}'") from None
        except (ValidationError, ValueError):
            raise NotFound(f"conversation '{conversation_id}' is damaged; start another") from None

    def list(self) -> list[dict[str, object]]:
        if not self.dir.is_dir():
            return []
        found = []
        for path in sorted(self.dir.glob("conv-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[:200]:
            try:
                found.append(Conversation.model_validate_json(path.read_bytes()).summary())
            except (OSError, ValidationError, ValueError):
                continue
        return found

    def add(self, conversation_id: str, turns: Sequence[Turn], *, project_id: str | None = None) -> Conversation:
        """Append `turns` (the newest `MAX_TURNS` are kept) and remember the project."""
        with self._lock:
            conversation = self.get(conversation_id)
            conversation.turns = [*conversation.turns, *turns][-MAX_TURNS:]
            if project_id:
                conversation.project_id = project_id
            self._save(conversation)
            return conversation

    def _save(self, conversation: Conversation) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        if not (self.dir / f"{conversation.id}.json").exists():
            self._prune()
        write_bytes(self._path(conversation.id), conversation.model_dump_json(indent=1).encode("utf-8"))

    def _prune(self) -> None:
        files = sorted(self.dir.glob("conv-*.json"), key=lambda p: p.stat().st_mtime)
        for old in files[:max(0, len(files) - MAX_CONVERSATIONS + 1)]:
            old.unlink(missing_ok=True)


def clip(text: str) -> str:
    """`text` within a turn's size."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"
