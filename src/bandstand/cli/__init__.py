"""The `bandstand` command line.

The root is a small click group that knows its sub-commands by name and
imports each one only when it is invoked, so `bandstand --help` and
`--version` stay fast. Each sub-command lives in its own module under
`bandstand.cli` as a Typer app named `app`. This is the one place where
errors become messages and exit codes.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from bandstand import __version__

# name → (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "compose": ("bandstand.cli.compose:compose_app", "Compose a finished multi-track song from a prompt."),
    "resume": ("bandstand.cli.compose:resume_app", "Resume an interrupted compose session."),
    "sessions": ("bandstand.cli.compose:sessions_app", "List or clean compose sessions."),
    "jam": ("bandstand.cli.jam:app", "Jam live with a band of musician agents (browser or headless)."),
    "pattern": ("bandstand.cli.pattern:app", "Query, show and render Strudel-style patterns."),
    "theory": ("bandstand.cli.theory:app", "Music theory: chords, scales, Roman numerals, key detection."),
    "render": ("bandstand.cli.render:app", "Render a MIDI file to WAV audio and a piano-roll PNG."),
    "agents": ("bandstand.cli.agents:app", "Check which musician backends are usable here."),
    "team": ("bandstand.cli.team:app", "Run a team of agents described in a file."),
    "board": ("bandstand.cli.board:app", "The conductor/musician task board."),
}


def _load(name: str) -> click.Command:
    target, _ = COMMANDS[name]
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    obj: Any = getattr(module, attr)
    if isinstance(obj, click.Command):
        command = obj
    else:
        import typer.main

        command = typer.main.get_command(obj)
    command.name = name
    return command


class LazyGroup(click.Group):
    """A group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        return _load(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            import difflib

            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(f"no such command '{name}'.{hint}", ctx)
        return super().resolve_command(ctx, args)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="bandstand — a band of AI musicians that you direct.\n\n"
    "Compose a finished song from a prompt, or jam live with a band of musician "
    "agents. Everything works offline with the built-in musicians.",
)
@click.version_option(__version__, "-V", "--version", prog_name="bandstand")
def root() -> None:
    """bandstand's root command group."""


def _fail(message: str, code: int) -> int:
    click.echo(f"bandstand: error: {message}", err=True)
    return code


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return an exit code (never raises for user mistakes)."""
    from bandstand.errors import BandstandError, UserError

    try:
        rv = root.main(args=argv, prog_name="bandstand", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "bandstand"
        return _fail(f"{exc.format_message()} (see '{where} --help')", 2)
    except click.ClickException as exc:
        return _fail(exc.format_message(), exc.exit_code)
    except UserError as exc:
        caret = getattr(exc, "caret", None)
        text = caret() if callable(caret) else ""
        code = _fail(str(exc), 2)
        if text:
            click.echo(text, err=True)
        return code
    except BandstandError as exc:
        return _fail(str(exc), getattr(exc, "exit_code", 1))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
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


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())
