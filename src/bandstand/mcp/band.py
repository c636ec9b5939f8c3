"""What the MCP tools act on, and how a session's files are named for MCP clients.

`Band` holds the projects (a `Library`, `App.library`: a project is named
by its id, or on stdio by its folder), the language model that reads
requests when one is configured (the producer decides what it is used for),
and where the jam lives (the stdio server's own, or the one `bandstand serve`
plays to its page). Exports go where `App.desk().export` puts them (the
project's own export/ folder), on stdio as over HTTP. A session file is the resource
`bandstand://projects/{project}/files/{path}`; `FILE_TYPES` says which
files are served and as what.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from bandstand.producer import App

if TYPE_CHECKING:
    from bandstand.producer.app import Library

if TYPE_CHECKING:
    from bandstand.producer.app import PatternDesk

__all__ = ["FILE_TYPES", "MAX_RESOURCE_BYTES", "Answer", "Band", "Link", "file_uri", "project_uri"]

# A session file's extension → its media type (the files a client may read as resources).
FILE_TYPES: dict[str, str] = {
    ".mid": "audio/midi",
    ".wav": "audio/wav",
    ".png": "image/png",
    ".musicxml": "application/vnd.recordare.musicxml+xml",
    ".md": "text/markdown",
    ".json": "application/json",
    ".progression": "text/plain",
}
MAX_RESOURCE_BYTES = 64 * 1024 * 1024
"""The largest file served as a resource; a larger one is named by its path only."""

# The files a finished compose or a moved HEAD is shown with, as links (all files are listed by path).
HEAD_LINKS: tuple[str, ...] = ("midi/full-arrangement.mid", "audio/full-arrangement.wav", "images/pianoroll.png",
                               "notes/lead-sheet.musicxml", "notes/producer-notes.md")


def project_uri(project: str) -> str:
    return f"bandstand://projects/{quote(project, safe='')}"


def file_uri(project: str, rel: str) -> str:
    return f"{project_uri(project)}/files/{quote(rel, safe='/')}"


@dataclass(frozen=True, slots=True)
class Link:
    """A session file as a resource link: its URI, name (path in the session) and media type."""

    uri: str
    name: str
    mime_type: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool's result: JSON for the client (the same shapes the CLI's --json prints) and links
    to the files it made."""

    data: Any
    links: tuple[Link, ...] = ()


@dataclass(slots=True)
class Band:
    """The projects, the language model (None: the built-in rules) and the jam."""

    library: Library
    backend: Any | None = None
    jam: Callable[[], Any] | None = None
    """Returns the live jam the jam tools drive (set once the server's event loop runs)."""
    desk: PatternDesk = field(default_factory=lambda: App().live().pattern_desk())
    """The Strudel assistant's desk the pattern tools play on (its key, tempo, the code playing)."""
    jam_errors: list[str] = field(default_factory=list)
    """Mistakes found in directives' rounds since the jam's state was last read (the newest 20)."""

    def jam_error(self, message: str) -> None:
        self.jam_errors[:] = [*self.jam_errors[-19:], message]

    def links(self, session_dir: Path, rels: tuple[str, ...] | list[str] = HEAD_LINKS) -> tuple[Link, ...]:
        """Links to those of `rels` (paths in the session) that exist and are served."""
        out = []
        for rel in rels:
            path = session_dir / rel
            mime = FILE_TYPES.get(path.suffix)
            if mime is not None and path.is_file():
                out.append(Link(file_uri(session_dir.name, rel), rel, mime))
        return tuple(out)

    def links_to(self, session_dir: Path, files: tuple[Path, ...] | list[Path]) -> tuple[Link, ...]:
        """Links to `files` that lie inside the session folder (others are given by path only)."""
        root = session_dir.resolve()
        rels = [str(f.resolve().relative_to(root)) for f in files if f.resolve().is_relative_to(root)]
        return self.links(session_dir, rels)
