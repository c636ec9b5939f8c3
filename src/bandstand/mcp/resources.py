"""What an MCP client can read, and the prompts it can start from.

Resources (JSON unless said otherwise):

    bandstand://projects                              the projects, newest first
    bandstand://projects/{project}                    the project at HEAD (tracks, regions, notes, mix)
    bandstand://projects/{project}/history            every revision, who asked what, undone ones marked
    bandstand://projects/{project}/variations         the variations with their phrases and diff
    bandstand://projects/{project}/files              the session's files: path, resource URI, type, size
    bandstand://projects/{project}/files/{path}       a file itself (MIDI, WAV, PNG, MusicXML, Markdown, JSON)

A WAV that a change left stale is rendered for HEAD before it is read. Tool
results link to the files they made with these URIs. The prompts walk a
client through the common flows: compose and refine a song, direct a jam.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from bandstand.errors import BandstandError, NotFound
from bandstand.mcp.adapter import error_text
from bandstand.mcp.band import FILE_TYPES, MAX_RESOURCE_BYTES, Band, file_uri
from bandstand.producer import App

__all__ = ["PROMPTS", "add_prompts", "add_resources"]

HIDDEN = ("revisions", "variations", ".")  # the history's own store is read through the tools and resources above


def _guarded(read: Callable[..., Any]) -> Callable[..., Any]:
    """A resource reader whose bandstand errors reach the client as their one-line message."""
    @functools.wraps(read)
    def guarded(**params: Any) -> Any:
        try:
            return read(**params)
        except NotFound as exc:
            raise ResourceNotFoundError(error_text(exc)) from None
        except BandstandError as exc:
            raise ResourceError(error_text(exc)) from None
    return guarded


def _json(data: Any) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, default=str)


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in FILE_TYPES
                  and not str(p.relative_to(root)).startswith(HIDDEN) and not p.name.startswith("."))


def add_resources(server: MCPServer, band: Band) -> None:
    library = band.library
    desk = App.over(library).desk()

    def projects() -> str:
        """The projects (composed sessions) this server knows, newest first."""
        return _json({"root": str(library.root), "projects": [s.wire() for s in App(library.root).sessions()]})

    def project(project: str) -> str:
        """The project at HEAD: tempo map, key, sections, tracks with their mix, regions and notes."""
        return library.session(project).head.model_dump_json(indent=1)

    def history(project: str) -> str:
        """Every revision, oldest first: who asked what, what changed, undone entries marked."""
        return _json(desk.history(project).rows_json())

    def variations(project: str) -> str:
        """The variations: state, base revision, phrases and the musical diff per part."""
        return _json(desk.variations(project).rows_json())

    def files(project: str) -> str:
        """The session's files at HEAD: path, resource URI, media type and size."""
        session = library.session(project)
        root = session.session_dir
        name = root.name
        return _json({"project": name, "audio": desk.audio(session), "files": [
            {"path": str(p.relative_to(root)), "uri": file_uri(name, str(p.relative_to(root))),
             "mime_type": FILE_TYPES[p.suffix], "bytes": p.stat().st_size} for p in _files(root)]})

    def strudel_reference() -> str:
        """The Strudel function reference: the language's rules and every function the engine has."""
        return App().live().reference()

    server.resource("bandstand://strudel/reference", name="strudel reference",
                    mime_type="text/markdown")(_guarded(strudel_reference))
    server.resource("bandstand://projects", name="projects", mime_type="application/json")(_guarded(projects))
    for uri, fn in (("bandstand://projects/{project}", project),
                    ("bandstand://projects/{project}/history", history),
                    ("bandstand://projects/{project}/variations", variations),
                    ("bandstand://projects/{project}/files", files)):
        server.resource(uri, name=f"project {fn.__name__}" if fn is not project else "project",
                        mime_type="application/json")(_guarded(fn))
    for ext, mime in FILE_TYPES.items():
        server.resource(f"bandstand://projects/{{project}}/files/{{+path}}{ext}", name=f"session file ({ext})",
                        mime_type=mime)(_guarded(_file_reader(band, ext)))


def _file_reader(band: Band, ext: str) -> Callable[..., bytes | str]:
    def session_file(project: str, path: str) -> bytes | str:
        """A file of the session (its path in the session folder); a stale WAV is rendered first."""
        session = band.library.session(project)
        root = session.session_dir.resolve()
        rel = f"{path}{ext}"
        target = (root / rel).resolve()
        if not target.is_relative_to(root) or str(target.relative_to(root)).startswith(HIDDEN):
            raise NotFound(f"{rel} is not a file of {root.name}")
        if rel.startswith("audio/"):
            session.ensure_audio()
        if not target.is_file():
            raise NotFound(f"{rel} is not a file of {root.name}; bandstand://projects/{root.name}/files lists them")
        size = target.stat().st_size
        if size > MAX_RESOURCE_BYTES:
            raise BandstandError(f"{rel} is {size} bytes, more than a resource may be "
                                 f"({MAX_RESOURCE_BYTES} bytes); read it from {target}")
        data = target.read_bytes()
        return data.decode("utf-8") if FILE_TYPES[ext].startswith(("text/", "application/json")) else data
    return session_file


# --------------------------------------------------------------------------- prompts


def compose_and_refine(idea: str, bars: str = "") -> str:
    """Compose a song from an idea, then refine it by listening and asking for changes."""
    length = f" with bars={bars}" if bars.strip() else ""
    return (
        f"Make a song with bandstand: {idea}\n\n"
        f"1. Call compose with prompt={idea!r}{length}. Keep the project id it returns; tell me the key, tempo, "
        "form and chords from its summary, and give me the WAV and piano-roll links.\n"
        "2. Ask me what to change, or suggest one thing. Call edit with the request in words (\"make the bass "
        "busier\", \"darker chords in the chorus\"). Show me its diff per part and its cost; nothing changes yet.\n"
        "3. When I like it call accept_variation (or only some phrase_ids); otherwise discard_variation. "
        "undo and redo move through the revisions; history shows them.\n"
        "4. For other takes of one part call alternatives (target: the part) and let me pick one to accept.\n"
        "5. Studio tools (set_track_volume, add_insert_effect, add_send, …) change the mix directly.\n"
        "6. At the end call export for mid and wav (and stems or musicxml if I want them) and list the files."
    )


def direct_a_jam(vibe: str) -> str:
    """Start the band jamming in a vibe and steer it with directives."""
    return (
        f"Jam with the bandstand band: {vibe}\n\n"
        "1. Call jam_start (members: who plays; default BEAT, GROOVE, ARIA and GLITCH).\n"
        f"2. Call jam_direct with a directive that sets the vibe ({vibe!r}); address one musician with "
        "@NAME (\"@BEAT double time\").\n"
        "3. Call jam_state to see the key, tempo, each musician's pattern and what they said; keep directing.\n"
        "4. Call jam_stop when we are done; it names the recording's files."
    )


PROMPTS: tuple[Callable[..., str], ...] = (compose_and_refine, direct_a_jam)


def add_prompts(server: MCPServer) -> None:
    for prompt in PROMPTS:
        server.prompt()(prompt)
