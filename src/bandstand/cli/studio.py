"""The studio commands, thin over `App` (a project, and `App.desk()`: history, variations, the tools):

    bandstand tool SESSION_DIR NAME [--args JSON] [--audio] [--json]   (or: bandstand tool --list)
    bandstand accept SESSION_DIR [VARIATION_ID] [--phrases ID,…] [--audio] [--json]
    bandstand discard SESSION_DIR [VARIATION_ID] [--json]
    bandstand undo SESSION_DIR [--steps N] [--audio] [--json]
    bandstand redo SESSION_DIR [--audio] [--json]
    bandstand history SESSION_DIR [--graph] [--json]
    bandstand variations SESSION_DIR [--json]
    bandstand audition SESSION_DIR [VARIATION_ID] [--whole-song] [--json]

A HEAD move does not wait for the WAV: it is marked stale in the manifest and
rendered when someone listens (`bandstand render SESSION_DIR`, a read through
MCP), or at once with --audio — either way only the tracks whose sound changed
are played (`bandstand.render.trackcache`). Mistakes are one line on stderr and
exit 2 (from the root).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bandstand.cli._sessions import AsJson, Session, change_lines, open_session, print_json
from bandstand.cli.branches import print_graph
from bandstand.errors import InvalidInput, RenderError, SoundFontNotFound

tool_app = typer.Typer(add_completion=False, rich_markup_mode=None)
accept_app = typer.Typer(add_completion=False, rich_markup_mode=None)
discard_app = typer.Typer(add_completion=False, rich_markup_mode=None)
undo_app = typer.Typer(add_completion=False, rich_markup_mode=None)
redo_app = typer.Typer(add_completion=False, rich_markup_mode=None)
history_app = typer.Typer(add_completion=False, rich_markup_mode=None)
variations_app = typer.Typer(add_completion=False, rich_markup_mode=None)
audition_app = typer.Typer(add_completion=False, rich_markup_mode=None)

VariationId = Annotated[str | None, typer.Argument(help="Variation id or a unique prefix of it [the newest waiting].",
                                                   metavar="VARIATION_ID", show_default=False)]
RenderNow = Annotated[bool | None, typer.Option(
    "--audio/--no-audio", show_default=False,
    help="Render the WAV and stems for the new HEAD now (only the tracks that changed are played). "
         "[default: not now — the WAV is marked stale and rendered when next asked for: bandstand render "
         "SESSION_DIR]")]


def _audio(session: Any, render: bool | None) -> dict[str, Any]:
    """Render the WAV for HEAD when asked to (`--audio`); a missing SoundFont is a note, not a
    failure."""
    from bandstand.producer import App

    if render:
        from bandstand.cli._rendering import render_status

        try:
            with render_status(f"revision {session.revision}") as progress:
                session.ensure_audio(progress)
        except (RenderError, SoundFontNotFound) as exc:
            typer.echo(f"note: the WAV was not rendered ({exc}); it is marked stale", err=True)
    return App().desk().audio(session)


def _stale_hint(session_dir: Path, audio: dict[str, Any], render: bool | None) -> None:
    """Say how to hear the new HEAD, unless the WAV shows it or `--no-audio` was asked for."""
    if render is None and not audio["current"]:
        typer.echo(f"audio: not rendered yet (bandstand render {session_dir}, or --audio)")


# --------------------------------------------------------------------------- tool

TOOL_EXAMPLES = """\b
Examples:
  bandstand tool output/session-x set_track_volume --args '{"track": "bass", "volume": 0.7}'
  bandstand tool output/session-x add_insert_effect --args '{"track": "Lead", "type": "delay", "params": {"mix": 0.3}}'
  bandstand tool output/session-x read_project --json
  bandstand tool --list                                  # every tool with its phase and parameters
"""


@tool_app.command(help="Apply one studio tool to a session directly: a new revision, undoable.",
                  epilog=TOOL_EXAMPLES)
def tool(
    session_dir: Annotated[Path | None, typer.Argument(help="The session folder.", metavar="SESSION_DIR",
                                                       show_default=False)] = None,
    name: Annotated[str | None, typer.Argument(help="The tool's name (see --list).", metavar="NAME",
                                               show_default=False)] = None,
    args: Annotated[str, typer.Option("--args", metavar="JSON", help="The tool's parameters as a JSON object "
                                      "('-' reads them from stdin).")] = "{}",
    audio_now: RenderNow = None,
    as_json: AsJson = False,
    list_tools: Annotated[bool, typer.Option("--list", help="List the tools and stop.")] = False,
) -> None:
    from bandstand.producer import App

    desk = App().desk()
    if list_tools:
        if as_json:
            print_json(desk.tools().schemas())
        else:
            for t in desk.tools():
                typer.echo(f"{t.phase:<12} {desk.signature(t)}\n{'':<13}{t.description}")
        return
    if session_dir is None or name is None:
        raise InvalidInput("give SESSION_DIR and a tool NAME (or --list to see the tools)")
    text = sys.stdin.read() if args == "-" else args
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--args is not JSON: {exc.msg} at column {exc.colno}; e.g. --args '{{\"tempo\": 96}}'") \
            from None
    if not isinstance(arguments, dict):
        raise InvalidInput("--args must be a JSON object of parameters, e.g. --args '{\"tempo\": 96}'")
    applied = desk.apply_tool(Path(session_dir), name, arguments, author="cli")
    session, outcome = applied.session, applied.outcome
    audio = _audio(session, audio_now) if outcome.entry is not None else None
    if as_json:
        print_json({**applied.to_json(), "audio": audio})
        return
    result = {k: v for k, v in outcome.results[0].result.items()}
    if outcome.entry is None:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False) if result else "nothing changed")
        return
    typer.echo(f"revision {outcome.revision}: {name}")
    for line in change_lines(outcome.entry):
        typer.echo(line)
    made = {k: v for k, v in result.items() if k.endswith("_id") or k.endswith("_ids")}
    if made:
        typer.echo("  " + ", ".join(f"{k} {v}" for k, v in made.items()))
    typer.echo("undo with: bandstand undo " + str(session_dir))
    if audio is not None:
        _stale_hint(session_dir, audio, audio_now)


# --------------------------------------------------------------------------- accept / discard

ACCEPT_EXAMPLES = """\b
Examples:
  bandstand accept output/session-x                      # the newest variation waiting
  bandstand accept output/session-x 3f2a9c1e --phrases 81d0,a7c2
  bandstand accept output/session-x --audio --json         # the WAV rendered before it returns
"""


@accept_app.command(help="Accept a variation (all of it, or some phrases): a new revision, undoable.",
                    epilog=ACCEPT_EXAMPLES)
def accept(session_dir: Session, variation_id: VariationId = None,
           phrases: Annotated[str | None, typer.Option("--phrases", metavar="ID,…",
                                                       help="Only these phrases (ids or unique prefixes).")] = None,
           audio_now: RenderNow = None, as_json: AsJson = False) -> None:
    session = open_session(session_dir)
    chosen = [p.strip() for p in phrases.split(",") if p.strip()] if phrases is not None else None
    if chosen is not None and not chosen:
        raise InvalidInput("--phrases is empty; name one or more phrase ids (bandstand variations SESSION_DIR)")
    entry = session.accept(variation_id, chosen)
    audio = _audio(session, audio_now)
    if as_json:
        print_json({"revision": entry.revision, "variation_id": entry.variation_id, "summary": entry.summary,
                     "changes": [c.model_dump(mode="json") for c in entry.changes], "audio": audio})
        return
    typer.echo(f"revision {entry.revision}: {entry.summary} ({entry.request or 'variation'} "
               f"{(entry.variation_id or '')[:8]})")
    for line in change_lines(entry):
        typer.echo(line)
    _stale_hint(session_dir, audio, audio_now)


@discard_app.command(help="Discard a variation (discarding twice is fine).",
                     epilog="\b\nExamples:\n  bandstand discard output/session-x\n"
                            "  bandstand discard output/session-x 3f2a9c1e\n")
def discard(session_dir: Session, variation_id: VariationId = None, as_json: AsJson = False) -> None:
    variation = open_session(session_dir).discard(variation_id)
    if as_json:
        print_json({"variation_id": variation.id, "state": variation.state})
    else:
        typer.echo(f"variation {variation.id[:8]} discarded")


# --------------------------------------------------------------------------- undo / redo


def _moved(session: Any, revision: int, verb: str, render: bool | None, as_json: bool) -> None:
    audio = _audio(session, render)
    entry = session.store.entry(revision)
    if as_json:
        print_json({"revision": revision, "request": entry.request, "summary": entry.summary, "audio": audio})
    else:
        typer.echo(f"{verb}: now at revision {revision} ({entry.request or entry.kind})")
        _stale_hint(session.session_dir, audio, render)


@undo_app.command(help="Undo the last change(s): HEAD moves back; nothing is deleted (redo brings it back).",
                  epilog="\b\nExamples:\n  bandstand undo output/session-x\n  bandstand undo output/session-x --steps 3\n"
                         "  bandstand undo output/session-x --audio\n")
def undo(session_dir: Session,
         steps: Annotated[int, typer.Option("--steps", min=1, max=10_000, help="How many changes to undo.")] = 1,
         audio_now: RenderNow = None, as_json: AsJson = False) -> None:
    session = open_session(session_dir)
    _moved(session, session.undo(steps), f"undid {steps} change{'s' if steps > 1 else ''}", audio_now, as_json)


@redo_app.command(help="Redo the change undone last.", epilog="\b\nExamples:\n  bandstand redo output/session-x\n")
def redo(session_dir: Session, audio_now: RenderNow = None, as_json: AsJson = False) -> None:
    session = open_session(session_dir)
    _moved(session, session.redo(), "redid", audio_now, as_json)


# --------------------------------------------------------------------------- history / variations


@history_app.command(help="Who asked what, what changed, and which entries are undone.",
                     epilog="\b\nExamples:\n  bandstand history output/session-x\n"
                            "  bandstand history output/session-x --graph\n"
                            "  bandstand history output/session-x --json\n")
def history(session_dir: Session, as_json: AsJson = False,
            as_graph: Annotated[bool, typer.Option("--graph", help="Draw the branches as a graph, newest first "
                                                   "(like git log --graph).")] = False) -> None:
    from bandstand.producer import App

    if as_graph:
        print_graph(session_dir, as_json)
        return
    history = App().desk().history(Path(session_dir))
    if as_json:
        print_json(history.rows_json())
        return
    for r in history.rows:
        e = r.entry
        mark = "→" if r.head else " "
        state = "  (undone)" if r.undone else ""
        what = e.request or e.summary
        typer.echo(f"{mark} r{e.revision:<3} {e.at:%Y-%m-%d %H:%M}  {e.kind:<9} {e.author:<10} {what}"
                   f"{' — ' + e.summary if e.summary and e.summary != what else ''}{state}")


@variations_app.command(help="The variations of a session: state, what they change, their phrases.",
                        epilog="\b\nExamples:\n  bandstand variations output/session-x\n"
                               "  bandstand variations output/session-x --json\n")
def variations(session_dir: Session, as_json: AsJson = False) -> None:
    from bandstand.producer import App

    listed = App().desk().variations(Path(session_dir))
    head, found = listed.head, listed.variations
    if as_json:
        print_json(listed.rows_json())
        return
    if not found:
        typer.echo("no variations yet")
    for v in found:
        stale = f" (made on r{v.base_revision}, HEAD is r{head})" if v.state == "ready" and v.base_revision != head \
            else ""
        c = v.counts
        typer.echo(f"{v.id[:8]}  {v.state:<9} r{v.base_revision}  {v.intent or v.request or '-'}  "
                   f"+{c['added']} −{c['removed']} ~{c['modified']} notes, {len(v.phrases)} phrases{stale}")
        for line in listed.diff_lines(v):
            typer.echo(f"    {line}")
        for p in v.phrases[:12] if v.state == "ready" else ():
            n = p.counts()
            typer.echo(f"    {p.id[:8]}  {p.label:<28} +{n['added']} −{n['removed']} ~{n['modified']}")
        if v.state == "ready" and len(v.phrases) > 12:
            typer.echo(f"    … {len(v.phrases) - 12} more (--json lists them all)")


@audition_app.command(help="Render a variation's base and proposal (WAV and piano roll) for an A/B listen.",
                      epilog="\b\nExamples:\n  bandstand audition output/session-x\n"
                             "  bandstand audition output/session-x 3f2a9c1e --whole-song\n")
def audition(session_dir: Session, variation_id: VariationId = None,
             whole_song: Annotated[bool, typer.Option("--whole-song", help="The whole song, not just the changed "
                                                      "bars.")] = False,
             as_json: AsJson = False) -> None:
    from bandstand.cli._rendering import render_status

    session = open_session(session_dir)
    with render_status("the audition") as progress:
        result = session.audition(variation_id, whole_song=whole_song, progress=progress)
    if as_json:
        print_json(result.to_json())
        return
    where = f"bars {result.bars[0]}–{result.bars[1]}" if result.bars else "the whole song"
    typer.echo(f"variation {result.variation_id[:8]} against revision {result.base_revision}, {where}:")
    typer.echo(f"  A (base):     {result.base_wav}\n               {result.base_pianoroll}")
    typer.echo(f"  B (proposal): {result.proposal_wav}\n               {result.proposal_pianoroll}")
