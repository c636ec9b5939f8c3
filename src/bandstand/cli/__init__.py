"""The `bandstand` command line.

The root is a Typer group that knows its sub-commands by name and imports
each one only when it is invoked (or when its own help is asked for), so
`bandstand --help` and `--version` stay fast. Each sub-command lives in its
own module under `bandstand.cli` as a Typer app. This is the one place where
errors become messages and exit codes.
"""

from __future__ import annotations

import contextlib
import difflib
import gc
import importlib
import os
import re
import signal
import sys
import threading
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

from bandstand.cli._coercion import coerce_on_first_value
from bandstand.cli._help import give_help_context
from bandstand.version import __version__

# name → ("module:attribute" of a Typer app, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "compose": ("bandstand.cli.compose:compose_app", "Compose a finished multi-track song from a prompt."),
    "resume": ("bandstand.cli.compose:resume_app", "Resume an interrupted compose session."),
    "sessions": ("bandstand.cli.compose:sessions_app", "List or clean compose sessions."),
    "jam": ("bandstand.cli.jam:app", "Jam live with a band of musician agents (browser or headless)."),
    "jam-to-song": ("bandstand.cli.jam:song_app", "Turn a recorded jam into an arranged song project the studio directs."),
    "serve": ("bandstand.cli.serve:app", "Serve the jam, the pages and the API (loopback, token-protected)."),
    "studio": ("bandstand.cli.serve:studio_app", "Open the studio page in the browser: a song's arrangement, or your songs."),
    "mcp": ("bandstand.cli.mcp:app", "Serve the band and the studio as MCP tools on stdio (Claude, editors)."),
    "pattern": ("bandstand.cli.pattern:app", "Query, show and render Strudel-style patterns."),
    "theory": ("bandstand.cli.theory:app", "Music theory: chords, scales, Roman numerals, key detection."),
    "tool": ("bandstand.cli.studio:tool_app", "Apply a studio tool to a session (a revision, undoable)."),
    "variations": ("bandstand.cli.studio:variations_app", "List a session's variations and their phrases."),
    "audition": ("bandstand.cli.studio:audition_app", "Render a variation's base and proposal for an A/B listen."),
    "accept": ("bandstand.cli.studio:accept_app", "Accept a variation (or some of its phrases)."),
    "discard": ("bandstand.cli.studio:discard_app", "Discard a variation."),
    "undo": ("bandstand.cli.studio:undo_app", "Undo the last change(s) to a session."),
    "redo": ("bandstand.cli.studio:redo_app", "Redo the change undone last."),
    "history": ("bandstand.cli.studio:history_app", "Who asked what and what changed, undone entries marked."),
    "branch": ("bandstand.cli.branches:branch_app", "Make a branch of a session's history at HEAD (or list them)."),
    "checkout": ("bandstand.cli.branches:checkout_app", "Switch a session to a branch, or go to a revision."),
    "merge": ("bandstand.cli.branches:merge_app", "Merge another branch's changes into the current one."),
    "edit": ("bandstand.cli.iteration:edit_app",
             "Change a composed song in words: a variation to review, or a mixer change (undoable)."),
    "ask": ("bandstand.cli.iteration:ask_app", "Ask about a song: its key, chords, form, mix — answered from its notes."),
    "alternatives": ("bandstand.cli.iteration:alternatives_app",
                     "Alternatives of a part, the progression or the arrangement, as variations."),
    "import": ("bandstand.cli.importing:app", "Import your own MIDI file as a studio project to direct."),
    "export": ("bandstand.cli.export:app", "Export a session: lead sheet (MusicXML), stems, MIDI, WAV, PNG or Strudel code."),
    "render": ("bandstand.cli.render:app", "Render a MIDI file to WAV and a piano roll, or a session's WAV."),
    "play": ("bandstand.cli.play:app", "Play a session's song (or one section) through this machine's audio."),
    "transport": ("bandstand.cli.transport:app",
                  "Play, stop, set the playhead or loop a section: the studio pages open on the song follow."),
    "agents": ("bandstand.cli.agents:app", "Check which musician backends are usable here."),
    "team": ("bandstand.cli.team:app", "Run a team of agents described in a file."),
    "board": ("bandstand.cli.board:app", "The conductor/musician task board."),
    "batch": ("bandstand.cli.batch:batch_app", "Compose many songs from a prompts file, here or through a board."),
    "worker": ("bandstand.cli.batch:worker_app", "Take batch songs from a board and compose them."),
    "dataset": ("bandstand.cli.dataset:app", "Compose a dataset from a grid spec: songs' files and a Parquet table."),
}


def load_command(name: str) -> Any:
    """Import the sub-command `name` and return it as a click-style command."""
    target, _ = COMMANDS[name]
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    command = coerce_on_first_value(give_help_context(typer.main.get_command(getattr(module, attr))))
    command.name = name
    return command


class LazyGroup(TyperGroup):
    """A group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        return load_command(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_) for name, (_, help_) in COMMANDS.items()])

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise UsageFailure(f"no such command '{name}'.{hint}", "bandstand")
        return super().resolve_command(ctx, args)


class UsageFailure(Exception):
    """A usage mistake found by the root group itself."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


app = typer.Typer(
    cls=LazyGroup,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="bandstand — a band of AI musicians that you direct.\n\n"
    "Compose a finished song from a prompt, or jam live with a band of musician "
    "agents. Everything works offline with the built-in musicians.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bandstand {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """bandstand — a band of AI musicians that you direct."""


# Error messages continue "bandstand: error: " in lower case; a message may start with a name as
# written (an option, a prompt's "Key:" field, BEAT, MIDI). click's own messages ("No such
# option", "Missing argument") are brought to the same rule here.
_CAPITALISED = re.compile(r"^[A-Z][a-z]+(?=[ ,.;]|$)")


def sentence(message: str) -> str:
    """`message` as the rest of a "bandstand: error: " line (a leading capitalised word lowered)."""
    return _CAPITALISED.sub(lambda m: m.group(0).lower(), message, count=1)


def _fail(message: str, code: int) -> int:
    print(f"bandstand: error: {sentence(message)}", file=sys.stderr)
    return code


def _commands_under(command: Any, path: str) -> list[tuple[str, Any]]:
    """(path, command) of every leaf command under `command` (the root's are imported for it)."""
    if command.name == "bandstand" or isinstance(command, LazyGroup):
        subs = []
        for name in COMMANDS:
            try:
                subs.append((name, load_command(name)))
            except Exception:  # a command that cannot load here (a missing extra) has no options to offer
                continue
    else:
        subs = list((getattr(command, "commands", None) or {}).items())
    if not subs:
        return [(path, command)]
    out: list[tuple[str, Any]] = []
    for name, sub in subs:
        out += _commands_under(sub, f"{path} {name}")
    return out


def _where_it_goes(ctx: Any, option: str, args: list[str]) -> str | None:
    """For an option given before a sub-command that has it: where it goes instead (the
    sub-command typed first, when it has the option)."""
    if ctx is None or (not hasattr(ctx.command, "commands") and not isinstance(ctx.command, LazyGroup)):
        return None
    having = [path for path, cmd in _commands_under(ctx.command, ctx.command_path)
              if any(option in getattr(p, "opts", ()) for p in cmd.params)]
    typed = [path for path in having if all(word in args for word in path.split()[1:])]
    having = typed or having
    if not having:
        return None
    shown = ", ".join(f"'{p} … {option}'" for p in having[:3]) + (", …" if len(having) > 3 else "")
    return f"{option} goes after the sub-command: {shown}"


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return an exit code (never raises for user mistakes)."""
    from typer._click.exceptions import ClickException
    from typer._click.exceptions import UsageError as ClickUsageError

    from bandstand.errors import BandstandError, UserError

    command = coerce_on_first_value(give_help_context(typer.main.get_command(app)))
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        rv = command.main(args=args or ["--help"], prog_name="bandstand", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        return 130
    except UsageFailure as exc:
        return _fail(f"{exc} (see '{exc.where} --help')", 2)
    except ClickUsageError as exc:
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "bandstand"
        unknown = re.match(r"No such option: (--?[\w-]+)", exc.format_message())
        moved = _where_it_goes(ctx, unknown.group(1), args) if unknown else None
        if moved:
            return _fail(moved, 2)
        return _fail(f"{exc.format_message()} (see '{where} --help')", 2)
    except ClickException as exc:
        return _fail(exc.format_message(), exc.exit_code)
    except UserError as exc:
        code = _fail(str(exc), 2)
        caret = exc.caret() if hasattr(exc, "caret") else ""
        if caret:
            print(caret, file=sys.stderr)
        return code
    except BandstandError as exc:
        return _fail(str(exc), getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("BANDSTAND_DEBUG"):
            raise
        return _fail(
            f"internal error: {type(exc).__name__}: {exc} (set BANDSTAND_DEBUG=1 to see the traceback)", 1
        )
    return int(rv) if isinstance(rv, int) else 0


def _quit_now(signum: int, frame: object) -> None:
    os._exit(130)


def main() -> None:
    """Console-script entry point. Once the command is done, a further Ctrl-C (while Python ends
    and waits for threads) quits at once, without a traceback.

    pydantic's plugin lookup (every installed distribution's entry points, read on the first
    model built) is skipped unless the environment names plugins: the CLI uses none, and a
    cold command paid for the scan.

    numpy's BLAS runs on one thread unless `OPENBLAS_NUM_THREADS` says otherwise: the render
    spreads its own work over the CPUs, and BLAS's threads, woken for each small product,
    took CPU time from the synthesis threads (about 4 % of a compose with its WAV on two
    CPUs, most of it waking them and their spinning). numpy reads it on its first import,
    which comes later.

    A command that ends in seconds (`collector_thresholds`) looks for reference cycles every
    200,000 new objects rather than every 700: a compose's imports and pipeline ran about 70
    collections (35–45 ms of CPU on the critical path) for no memory given back — its peak
    resident set is the same within 1 MB without any."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    thresholds = collector_thresholds(sys.argv[1:])
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    code = run()
    if threading.current_thread() is not threading.main_thread() or os.environ.get(SLOW_EXIT_ENV):
        sys.exit(code)
    signal.signal(signal.SIGINT, _quit_now)
    _end(code)


ONE_SHOT_COLLECTOR = (200_000, 30, 30)
"""The collector's thresholds for a command that ends in seconds (as mypy sets its own)."""
KEEPS_RUNNING = frozenset({"jam", "serve", "studio", "mcp", "play", "transport", "team", "board", "worker"})
"""Commands that run for minutes or play in real time: they keep Python's thresholds, whose
collections are small and frequent rather than rare and long."""


def collector_thresholds(args: list[str]) -> tuple[int, int, int] | None:
    """The garbage collector's thresholds for the command `args` names (its first word that is
    not an option), or None to keep Python's."""
    word = next((a for a in args if not a.startswith("-")), None)
    return None if word is None or word in KEEPS_RUNNING else ONE_SHOT_COLLECTOR


SLOW_EXIT_ENV = "BANDSTAND_SLOW_EXIT"
"""Set (to anything) to end the way a Python program ends by itself, every module torn down."""


def _end(code: int) -> None:
    """End the process as Python would — the threads that are not daemons joined, the `atexit`
    functions run (logging, multiprocessing, temporary folders), the standard streams flushed —
    and then at once, leaving the memory to the system instead of tearing every module down and
    freeing every object one by one: that took 0.3–0.45 s after a compose with its WAV (its
    full-length buffers, the engine's machine code), for nothing the user gets."""
    import atexit

    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is None:  # not CPython's threading: end the usual way
        sys.exit(code)
    shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away, a stream already closed
            stream.flush()
    os._exit(code)
