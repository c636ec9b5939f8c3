"""`bandstand serve`: one server for the jam, the pages and the API; `bandstand
studio`: the same server, opening the studio page on a song.

    bandstand serve [--host 127.0.0.1] [--port 8765] [--backend …] [--allow-remote] [--open]
    bandstand studio [SESSION_DIR] [--out DIR] [--port 8765] [--no-browser]

Both print the page's URL (carrying the access token once) and the token for
other programs, and stop cleanly on Ctrl-C. `bandstand jam` runs the same
server and opens the jam page.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from bandstand.errors import InvalidInput

if TYPE_CHECKING:
    from bandstand.producer.app import AgentBackend

app = typer.Typer(add_completion=False, rich_markup_mode=None)

SERVE_EXAMPLES = """\b
Examples:
  bandstand serve                                  # http://127.0.0.1:8765/?token=…
  bandstand serve --port 0 --open                  # a free port, and open the page
  BANDSTAND_TOKEN=my-long-secret-token bandstand serve   # a token of your choosing
  bandstand serve --host 0.0.0.0 --allow-remote    # reachable from other machines (token still needed)
"""


def launch(
    title: str,
    band: list[object],
    factory: object,
    *,
    seed: int,
    turn_timeout: float,
    host: str,
    port: int,
    allow_remote: bool,
    open_browser: bool,
    out_dir: Path | None = None,
    studio_backend: AgentBackend | None = None,
    runs_dir: Path | None = None,
    board_url: str | None = None,
    page: str = "",
    autopilot: bool = True,
    live: list[Any] | None = None,
) -> None:
    """Bind, build the app, print where it is, serve until Ctrl-C. `page` is the page the printed
    URL opens (`""` the jam, `"studio#/…"` the studio); `runs_dir` and `board_url` are what the
    log view shows (default: the agents' runs folder and the default board); the jam plays into
    the `live` outputs (`bandstand.jam.liveout`) too."""
    import webbrowser

    from bandstand.server import ServerConfig, bind, create_app, lazy_mount, serve
    from bandstand.server.config import is_loopback, new_token

    token = os.environ.get("BANDSTAND_TOKEN") or new_token()
    ServerConfig(host=host, port=max(port, 1), token=token, allow_remote=allow_remote)  # checks before binding
    sock = bind(host, port)
    config = ServerConfig(host=host, port=sock.getsockname()[1], token=token, allow_remote=allow_remote,
                          host_names=_own_names() if allow_remote else ())
    from bandstand.producer import App

    studio = App(out_dir or Path("output"), backend=studio_backend).studio
    mounts = _mcp(studio, lazy_mount)
    app_ = create_app(config, band, backend=factory, seed=seed, turn_timeout=turn_timeout,  # type: ignore[arg-type]
                      studio=studio, runs_dir=runs_dir or _runs_dir(), board_url=board_url,
                      mounts=mounts, autopilot=autopilot, lifespans=_live(live, studio.out_dir))
    path, _, fragment = page.partition("#")
    tickets = app_.state.server.page_tickets
    ticket = tickets.mint()  # opens the page once: the API token never goes in a URL
    url = f"{config.url}{path}?token={ticket}" + (f"#{fragment}" if fragment else "")
    other, other_path = ("jam", "") if path.startswith("studio") else ("studio", "studio")
    other_url = f"{config.url}{other_path}?token={tickets.mint()}"

    def ready() -> None:
        typer.echo(f"bandstand {title}: {url}  (Ctrl-C to stop)")
        typer.echo(f"API token: {config.token}  (send 'Authorization: Bearer <token>'; see docs/api.md)")
        if mounts:
            typer.echo(f"MCP: {config.url}mcp  (streamable HTTP, the same token; see docs/mcp.md)")
        typer.echo(f"the {other} page: {other_url}  (each address opens its page once; the pages link to each other)")
        if not is_loopback(host):
            typer.echo(f"warning: listening on {host}: other machines can reach this server "
                       "(every request still needs the token)", err=True)
        if open_browser:
            webbrowser.open(url)

    serve(config, app_, sock, on_ready=ready)
    typer.echo(f"bandstand {title}: stopped", err=True)


def _live(outputs: list[Any] | None, projects: Path) -> list[Any]:
    """The server's lifespans that play every jam, and the songs under `projects` as their
    transports say, into `outputs` (none without outputs)."""
    if not outputs:
        return []
    from bandstand.producer import App

    live = App(projects).live()
    return [lambda state: live.feed_jam(state.hub.emitter, outputs), lambda state: live.follow_transports(outputs)]


def _open_live(osc: str | None, midi_out: str | None, latency: float | None) -> list[Any]:
    """The live outputs the options ask for, opened and named on stderr (a mistake: one line, before serving)."""
    from bandstand.producer import App

    outputs = App().live().outputs(osc, midi_out, latency=latency)  # none asked for: none, nothing loaded
    for output in outputs:
        typer.echo(f"live out: {output.describe()}", err=True)
    return list(outputs)


def _runs_dir() -> Path:
    from bandstand.producer import App

    return Path(App().desk().agents_config().runs_dir)


def _mcp(studio: Any, lazy_mount: Callable[..., Any]) -> list[Any]:
    """The MCP server at /mcp over the studio's projects, when the mcp extra is installed (the
    server runs without it). It is built on the first request to /mcp: a server nobody asks over
    MCP does not pay for the SDK's imports at start-up."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        return []

    def build() -> Any:
        from bandstand.mcp.http import PATH, mcp_mount

        mounted = mcp_mount(studio)
        assert mounted.path == PATH
        return mounted

    return [lazy_mount("/mcp", build)]


def _own_names() -> tuple[str, ...]:
    import socket

    names = {socket.gethostname(), socket.getfqdn()}
    return tuple(sorted(n for n in names if n))


@app.command(epilog=SERVE_EXAMPLES)
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0: a free one)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="Allow a --host other machines can reach."),
    backend: str = typer.Option("algorithmic", "--backend", help="algorithmic | claude-code | openai | anthropic."),
    model: str = typer.Option(None, "--model", help="Model name for an LLM backend."),
    base_url: str = typer.Option(None, "--base-url", help="Base URL for the openai backend (any OpenAI-compatible server)."),
    members: str = typer.Option(None, "--members", "-m", metavar="NAMES", help="The jam's band, comma-separated (default beat,groove,aria,glitch plus --persona files)."),
    persona: list[Path] = typer.Option(None, "--persona", metavar="FILE.md", help="A persona file to add to the band; repeatable."),
    seed: int = typer.Option(0, "--seed", help="Seed of the built-in musicians."),
    turn_timeout: float = typer.Option(30.0, "--turn-timeout", min=0.1, help="Seconds a member may think per turn."),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in the browser."),
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder of the projects (session folders)."),
    runs_dir: Path = typer.Option(None, "--runs-dir", help="Runs the log view shows (default: runs_dir of bandstand.toml, ./runs)."),
    board: str = typer.Option(None, "--board", metavar="URL", help="The task board the log view shows (default sqlite:///.bandstand/board.db)."),
    osc: str = typer.Option(None, "--osc", metavar="HOST:PORT", help="Play the jam and the songs' transports into SuperDirt at HOST:PORT too."),
    midi_out: str = typer.Option(None, "--midi-out", metavar="NAME", help="Play the jam and the songs' transports to the MIDI port NAME too (clock, start/stop)."),
    latency: float = typer.Option(None, "--latency", metavar="SECONDS", help="With --osc: seconds each bundle goes before it sounds (default 0.2)."),
) -> None:
    """Serve the jam, the studio API and the pages (loopback only unless --allow-remote)."""
    from bandstand.cli._band import band_of
    from bandstand.producer import App

    band = band_of(members, persona)
    factory = App.jam_backend(backend, band, model=model, base_url=base_url)  # type: ignore[arg-type]  # a persona's backend: field too
    launch("serve", band, factory, seed=seed, turn_timeout=turn_timeout, host=host, port=port,
           allow_remote=allow_remote, open_browser=open_browser, out_dir=out, runs_dir=runs_dir, board_url=board,
           studio_backend=_studio_backend(backend, model=model, base_url=base_url),
           live=_open_live(osc, midi_out, latency))


def _studio_backend(name: str, *, model: str | None = None, base_url: str | None = None) -> AgentBackend | None:
    """The language model the studio asks about requests its rules do not read (None: offline)."""
    from bandstand.producer import App

    return App().desk().backend(name, model=model, base_url=base_url)


STUDIO_EXAMPLES = """\b
Examples:
  bandstand studio                                  # your songs (./output), in the browser
  bandstand studio output/session-20260101-abc123   # that song's arrangement
  bandstand studio --out songs --port 0 --no-browser
"""

studio_app = typer.Typer(add_completion=False, rich_markup_mode=None)


@studio_app.command(epilog=STUDIO_EXAMPLES)
def studio(
    session_dir: Path = typer.Argument(None, metavar="[SESSION_DIR]", help="A song's session folder to open."),
    out: Path = typer.Option(Path("output"), "--out", "-o", help="Folder of the songs, when no SESSION_DIR is given."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback by default)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0: a free one)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Print the address; do not open a browser."),
    backend: str = typer.Option("algorithmic", "--backend", help="Who answers requests the rules do not read."),
    model: str = typer.Option(None, "--model", help="Model name for an LLM backend."),
    base_url: str = typer.Option(None, "--base-url", help="Base URL for the openai backend."),
    runs_dir: Path = typer.Option(None, "--runs-dir", help="Runs the log view shows (default ./runs)."),
    board: str = typer.Option(None, "--board", metavar="URL", help="The task board the log view shows."),
    osc: str = typer.Option(None, "--osc", metavar="HOST:PORT", help="Play a song into SuperDirt at HOST:PORT when its transport says play (bandstand transport, the API, MCP)."),
    midi_out: str = typer.Option(None, "--midi-out", metavar="NAME", help="Play a song to the MIDI port NAME when its transport says play (clock, start/stop)."),
    latency: float = typer.Option(None, "--latency", metavar="SECONDS", help="With --osc: seconds each bundle goes before it sounds (default 0.2)."),
) -> None:
    """Open the studio page: a song's arrangement (SESSION_DIR) or your songs, served on this
    machine; prints the address with its access token."""
    from bandstand.cli._band import band_of
    from bandstand.producer import App

    page = "studio"
    if session_dir is not None:
        session_dir = session_dir.expanduser()
        if not (session_dir / "manifest.json").is_file() and not (session_dir / "revisions" / "HEAD.json").is_file():
            raise InvalidInput(f"{session_dir} is not a song's session folder (no manifest.json); "
                               "bandstand compose makes one, bandstand sessions lists them")
        out, page = session_dir.resolve().parent, f"studio#/song/{session_dir.resolve().name}"
    launch("studio", band_of(None, None), App.jam_backend("algorithmic"), seed=0, turn_timeout=30.0, host=host,
           port=port, allow_remote=False, open_browser=not no_browser, out_dir=out, runs_dir=runs_dir,
           board_url=board, page=page, studio_backend=_studio_backend(backend, model=model, base_url=base_url),
           live=_open_live(osc, midi_out, latency))
