"""The branch commands, thin over `App`'s branch use cases (`producer.sessions.branches`):

    bandstand branch SESSION_DIR [NAME] [--json]        make NAME at HEAD and switch to it (no NAME: list)
    bandstand checkout SESSION_DIR BRANCH|REV [--json]  switch branch, or go to a revision (3 or r3)
    bandstand merge SESSION_DIR BRANCH [--json]         BRANCH's changes as a revision on this branch
    bandstand history SESSION_DIR --graph               (in `cli.studio`) drawn by `print_graph`

Mistakes (a name with '/' or '..', an unknown branch, a branch merged into
itself, clashing changes) are one line on stderr and exit 2 (from the root).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bandstand.cli._sessions import AsJson, Session, change_lines, open_session, print_json

branch_app = typer.Typer(add_completion=False, rich_markup_mode=None)
checkout_app = typer.Typer(add_completion=False, rich_markup_mode=None)
merge_app = typer.Typer(add_completion=False, rich_markup_mode=None)


@branch_app.command(help="Make a branch at HEAD and switch to it (without NAME: list the branches).",
                    epilog="\b\nExamples:\n  bandstand branch output/session-x darker\n"
                           "  bandstand branch output/session-x             # the branches, current marked\n")
def branch(session_dir: Session,
           name: Annotated[str | None, typer.Argument(help="The new branch's name (letters, digits, - _ .).",
                                                      metavar="NAME", show_default=False)] = None,
           as_json: AsJson = False) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import BranchRequest

    app = App()
    if name is not None:
        moved = app.branch(BranchRequest(session_dir, name))
        if not as_json:
            typer.echo(f"branch {moved.branch} made at revision {moved.revision}, and checked out")
            return
    data = app.branches(session_dir)
    if as_json:
        print_json(data)
        return
    for b in data["branches"]:
        typer.echo(f"{'*' if b['current'] else ' '} {b['name']:<20} r{b['head']}"
                   + (f" (redo leads to r{b['tip']})" if b["tip"] != b["head"] else ""))


@checkout_app.command(help="Switch to a branch (the song becomes its head), or go to a revision (3 or r3).",
                      epilog="\b\nExamples:\n  bandstand checkout output/session-x main\n"
                             "  bandstand checkout output/session-x 4\n")
def checkout(session_dir: Session,
             target: Annotated[str, typer.Argument(help="A branch name, or a revision number.", metavar="BRANCH|REV",
                                                   show_default=False)],
             as_json: AsJson = False) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import CheckoutRequest

    moved = App().checkout(CheckoutRequest(session_dir, target))
    if as_json:
        print_json({"branch": moved.branch, "revision": moved.revision})
        return
    entry = open_session(session_dir).store.entry(moved.revision)
    typer.echo(f"on branch {moved.branch}, at revision {moved.revision} ({entry.request or entry.kind})")


@merge_app.command(help="Make another branch's changes on this one, as one revision (refused, naming them, "
                        "when both changed the same part, section or setting).",
                   epilog="\b\nExamples:\n  bandstand checkout output/session-x main\n"
                          "  bandstand merge output/session-x darker\n")
def merge(session_dir: Session,
          name: Annotated[str, typer.Argument(help="The branch to merge into the current one.", metavar="BRANCH",
                                              show_default=False)],
          as_json: AsJson = False) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import MergeRequest

    entry = App().merge(MergeRequest(session_dir, name, author="cli"))
    if as_json:
        print_json({"revision": entry.revision, "branch": entry.branch, "merged": entry.merged,
                     "summary": entry.summary, "changes": [c.model_dump(mode="json") for c in entry.changes]})
        return
    typer.echo(f"revision {entry.revision}: {entry.summary}")
    for line in change_lines(entry):
        typer.echo(line)


def print_graph(session_dir: Path, as_json: bool) -> None:
    """`bandstand history --graph`: the history drawn like `git log --graph`."""
    from bandstand.producer import App

    lines = App().graph(session_dir)
    if as_json:
        print_json([g.to_json() for g in lines])
        return
    width = max((len(g.graph) for g in lines), default=1)
    for g in lines:
        if g.revision is None:
            typer.echo(g.graph)
            continue
        labels = f" ({', '.join(g.labels)})" if g.labels else ""
        typer.echo(f"{g.graph:<{width}}  r{g.revision}{labels} {g.words}{'  (undone)' if g.undone else ''}")
