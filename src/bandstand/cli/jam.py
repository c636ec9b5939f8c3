"""`bandstand jam`: the live jam in the browser, or headless in the terminal.

    bandstand jam [--port N] [--no-browser] [--members beat,groove,aria,glitch]   (the `bandstand serve` server, page opened)
    bandstand jam --headless [--directive "…"]… [--cycles N] [--out DIR] [--json]
    bandstand jam-to-song JAM_DIR [--out SONG_DIR] [--title T] [--json]

A headless jam's --out folder is also a studio project (the jam as played, a section per
round); `jam-to-song` arranges it into a song project (intro, sections, ending) that
`bandstand edit` and the studio direct further.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

app = typer.Typer(add_completion=False, rich_markup_mode=None)


JAM_EXAMPLES = """\b
Examples:
  bandstand jam                                   # the page opens in your browser
  bandstand jam --no-browser --port 8000          # serve http://127.0.0.1:8000/?token=…
  bandstand jam --headless --cycles 8 -d "4:Switch to D major, more energy!" --out jam-out
  bandstand jam --headless --members beat,groove --cycles 4 --no-wav --json
  bandstand jam --persona keys.md --members beat,groove,keys
  bandstand jam --osc 127.0.0.1:57120             # also into SuperDirt (Tidal's and Strudel's sampler)
  bandstand jam --midi-out bandstand              # also to a MIDI port (a DAW records it, following the clock)
"""


@app.command(epilog=JAM_EXAMPLES)
def jam(
    headless: bool = typer.Option(False, "--headless", help="Run without a browser and record to --out."),
    members: str = typer.Option(None, "--members", "-m", metavar="NAMES", help="Who plays, comma-separated (default beat,groove,aria,glitch plus --persona files)."),
    persona: list[Path] = typer.Option(None, "--persona", metavar="FILE.md", help="A persona file (markdown with front matter) to add to the band; repeatable."),
    backend: str = typer.Option("algorithmic", "--backend", help="algorithmic | claude-code | openai | anthropic."),
    model: str = typer.Option(None, "--model", help="Model name for an LLM backend."),
    base_url: str = typer.Option(None, "--base-url", help="Base URL for the openai backend (any OpenAI-compatible server)."),
    directive: list[str] = typer.Option(None, "--directive", "-d", metavar="[CYCLE:]TEXT", help="Headless: a boss directive; repeatable; prefix 'CYCLE:' to place it."),
    cycles: int = typer.Option(16, "--cycles", min=1, max=2000, help="Headless: cycles (bars) to play."),
    every: int = typer.Option(None, "--every", min=1, help="Headless: cycles between directives (default: evenly spaced)."),
    out: Path = typer.Option(Path("jam-out"), "--out", "-o", metavar="DIR", help="Headless: folder for jam.mid, jam.wav, transcript.md, rounds.jsonl."),
    no_wav: bool = typer.Option(False, "--no-wav", help="Headless: skip the WAV render."),
    as_json: bool = typer.Option(False, "--json", help="Headless: print the messages and the summary as JSON lines."),
    seed: int = typer.Option(0, "--seed", help="Seed of the built-in musicians."),
    turn_timeout: float = typer.Option(30.0, "--turn-timeout", min=0.1, help="Seconds a member may think per turn."),
    host: str = typer.Option("127.0.0.1", "--host", help="Server address (loopback by default)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="Allow a --host other machines can reach."),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Server port (0: a free one)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open the page."),
    autopilot: bool = typer.Option(True, "--autopilot/--no-autopilot", help="Offer the band a round every 16 s (8 bars at 120 BPM) so it evolves without directives."),
    member_backend: list[str] = typer.Option(None, "--member-backend", metavar="NAME=BACKEND", help="One member's own backend (algorithmic | claude-code | openai | anthropic); repeatable."),
    osc: str = typer.Option(None, "--osc", metavar="HOST:PORT", help="Also play into SuperDirt at HOST:PORT (/dirt/play bundles, timestamped ahead; SuperDirt's port is 57120)."),
    midi_out: str = typer.Option(None, "--midi-out", metavar="NAME", help="Also play to the MIDI port whose name contains NAME (else a new virtual port NAME), with MIDI clock and start/stop."),
    latency: float = typer.Option(None, "--latency", metavar="SECONDS", help="With --osc: seconds each bundle is sent before it sounds (default 0.2)."),
) -> None:
    """Jam live with a band of musician agents (browser or headless)."""
    import asyncio
    import json

    from bandstand.producer import App

    if directive and not headless:
        from bandstand.errors import InvalidInput

        raise InvalidInput("--directive is for --headless jams; in the browser jam, type directives in the page's chat "
                           "(or POST them to /api/v1/jam/directive)")
    from bandstand.cli._band import band_of

    band = band_of(members, persona)
    factory = App.jam_backend(backend, band, list(member_backend or []), model=model, base_url=base_url)  # type: ignore[arg-type]
    if headless and (osc or midi_out):
        from bandstand.errors import InvalidInput

        raise InvalidInput("--osc and --midi-out play the jam live; a --headless jam is recorded faster than real "
                           "time. Play its recording live instead: bandstand play OUT_DIR --osc HOST:PORT")
    if headless:
        from bandstand.producer.app import HeadlessJam

        request = HeadlessJam(out, directives=tuple(directive or ()), cycles=cycles, every=every, seed=seed,
                              turn_timeout=turn_timeout, wav=not no_wav, autopilot=autopilot)
        # the folder is checked before any sound; afterwards it is the jam's studio project
        summary = asyncio.run(App().record_jam(band, request, backend=factory, echo=typer.echo,  # type: ignore[arg-type]
                                               as_json=as_json))
        if as_json:
            typer.echo(json.dumps({"type": "summary", **summary}, ensure_ascii=False))
        else:
            cycles_, rounds = summary["cycles"], summary["rounds"]
            typer.echo(f"studio project: {out} ('bandstand jam-to-song {out}' makes it a song)")
            typer.echo(
                f"recorded {cycles_} cycle{'s' * (cycles_ != 1)}, {rounds} round{'s' * (rounds != 1)} → {out}"
            )
        return
    live = App().live().outputs(osc, midi_out, latency=latency)  # a wrong address or no MIDI: one line, before serving
    for output in live:
        typer.echo(f"live out: {output.describe()}", err=True)
    _serve(band, factory, seed, turn_timeout, host, port, no_browser, allow_remote, autopilot, live)


def _serve(band: list[object], factory: object, seed: int, turn_timeout: float, host: str, port: int,
           no_browser: bool, allow_remote: bool, autopilot: bool, live: list[Any]) -> None:
    from bandstand.cli.serve import launch

    launch("jam", band, factory, seed=seed, turn_timeout=turn_timeout, host=host, port=port,
           allow_remote=allow_remote, open_browser=not no_browser, autopilot=autopilot, live=live)


song_app = typer.Typer(add_completion=False, rich_markup_mode=None)

SONG_EXAMPLES = """\b
Examples:
  bandstand jam --headless --cycles 16 -d "4:more energy" -d "8:switch to D major" --out jam-out
  bandstand jam-to-song jam-out                        # the song project in jam-out/song
  bandstand jam-to-song jam-out --out my-song --json
  bandstand edit my-song "make the bass busier"
"""


@song_app.command(epilog=SONG_EXAMPLES)
def jam_to_song(
    folder: Path = typer.Argument(..., metavar="JAM_DIR", help="A jam's --out folder (jam.mid and rounds.jsonl)."),
    out: Path = typer.Option(None, "--out", "-o", metavar="DIR", help="Folder of the song project (default JAM_DIR/song)."),
    title: str = typer.Option("", "--title", help="The song's title."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Turn a recorded jam into an arranged song project: the rounds as sections, an intro and an ending."""
    import json

    from bandstand.producer import App
    from bandstand.producer.app import JamSongRequest

    made = App().jam_to_song(JamSongRequest(folder, out, title=title))
    if as_json:
        typer.echo(json.dumps(made.summary(), ensure_ascii=False))
        return
    typer.echo(f"song project → {made.session.session_dir}: {' · '.join(made.form)}")
    for what in made.left_out:
        typer.echo(f"left out {what}: a song keeps one metre", err=True)
    typer.echo(f"direct it: bandstand edit {made.session.session_dir} \"make the bass busier\"")
