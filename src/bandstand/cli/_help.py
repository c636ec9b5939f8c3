"""How `--help` pages read: words are never broken across lines (a part list such as
`drums,bass,chords` or a name such as `claude-code` stays whole), and values are named for
what they are (`--bars BARS`, `--out DIR`) instead of their Python type (`<int>`,
`<list[str]>`). One formatter, given to every command of the tree by `HelpContext`.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import typer
from typer._click.formatting import HelpFormatter

__all__ = ["HelpContext", "HelpFormatter", "WholeWordsFormatter", "give_help_context", "wrap"]

# Option names whose value reads better under another name than the option's own.
METAVARS: dict[str, str] = {"out": "DIR", "out-dir": "DIR", "config": "FILE", "team-file": "FILE", "seed": "N",
                            "bars": "N", "count": "N", "steps": "N", "cycles": "N", "workers": "N",
                            "tempo": "BPM", "approve": "STEP", "skip": "STEP", "older-than": "DAYS",
                            "intent-backend": "NAME", "backend": "NAME", "genre": "NAME", "port": "PORT",
                            "host": "HOST", "args": "JSON", "format": "FORMAT", "parts": "PARTS"}
_TYPED = re.compile(r"^(?P<head>.*?) <(?P<type>[^<>]+)>(?P<tail>(?: / .*)?)$")


def _named(first: str) -> str:
    """The first column of an option or argument row with its Python type replaced by a name."""
    m = _TYPED.match(first)
    if m is None:
        return first
    head = m.group("head")
    if not head.lstrip().startswith("-"):  # an argument: its own name says it, as the usage line does
        return re.sub(r"^(\s*)([a-z_]+)$", lambda a: a.group(1) + a.group(2).upper(), head) + m.group("tail")
    long = re.findall(r"--([\w-]+)", head)
    name = long[-1] if long else head.strip().lstrip("-")
    return f"{head} {METAVARS.get(name, name.upper().replace('-', '_'))}{m.group('tail')}"


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "",
         preserve_paragraphs: bool = False) -> str:
    """click's `wrap_text`, without breaking long words or at hyphens; a paragraph after a
    line holding only `\\b` is kept as written."""
    wrapper = textwrap.TextWrapper(width, initial_indent=initial_indent, subsequent_indent=subsequent_indent,
                                   replace_whitespace=False, break_long_words=False, break_on_hyphens=False)
    text = text.expandtabs()
    if not preserve_paragraphs:
        return wrapper.fill(text)
    paragraphs: list[tuple[int, bool, str]] = []
    lines: list[str] = []
    indent = 0

    def flush() -> None:
        if lines:
            raw = lines[0].strip() == "\b"
            paragraphs.append((indent, raw, "\n".join(lines[1:]) if raw else " ".join(lines)))
            lines.clear()

    for line in text.splitlines():
        if not line:
            flush()
            continue
        if not lines:
            indent = len(line) - len(line.lstrip())
        lines.append(line if lines and lines[0].strip() == "\b" else line.lstrip())
    flush()
    out = []
    for extra, raw, body in paragraphs:
        pad = " " * extra
        if raw:
            out.append("\n".join(f"{initial_indent if i == 0 else subsequent_indent}{pad}{line}"
                                 for i, line in enumerate(body.splitlines())))
        else:
            inner = textwrap.TextWrapper(width, initial_indent=initial_indent + pad,
                                         subsequent_indent=subsequent_indent + pad, replace_whitespace=False,
                                         break_long_words=False, break_on_hyphens=False)
            out.append(inner.fill(body))
    return "\n\n".join(out)


class WholeWordsFormatter(HelpFormatter):
    """click's help formatter with `wrap` and named values."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        # typer writes a required argument as {name}: the usage line shows it as its metavar
        args = re.sub(r"\{([A-Za-z_][\w.\-]*)\}", lambda m: m.group(1) if m.group(1) != m.group(1).lower()
                      else m.group(1).upper(), args)
        prefix = "Usage: " if prefix is None else prefix
        usage = f"{prefix:>{self.current_indent}}{prog} "
        self.write(wrap(args, max(self.width - self.current_indent, 20), initial_indent=usage,
                        subsequent_indent=" " * len(usage)) + "\n")

    def write_text(self, text: str) -> None:
        indent = " " * self.current_indent
        self.write(wrap(text, self.width, initial_indent=indent, subsequent_indent=indent,
                        preserve_paragraphs=True) + "\n")

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        rows = [(_named(first), second) for first, second in rows]
        first_col = min(max((len(first) for first, _ in rows), default=0), col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            lines = wrap(second, max(self.width - first_col - 2, 10), preserve_paragraphs=True).splitlines()
            self.write(f"{lines[0] if lines else ''}\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class HelpContext(typer.Context):
    formatter_class = WholeWordsFormatter


def give_help_context(command: Any) -> Any:
    """`command` and every command under it format their help with `WholeWordsFormatter`."""
    command.context_class = HelpContext
    for sub in (getattr(command, "commands", None) or {}).values():
        give_help_context(sub)
    return command
