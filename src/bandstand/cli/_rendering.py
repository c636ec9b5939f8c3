"""What a long render shows on the terminal: one status line (a spinner on stderr) that the
render's progress rewrites — "rendering revision 4: played 1 of 1 parts (Bass)", "…: mastering"
— and that goes away when it is done. When stderr is not a terminal nothing is drawn (logs
and pipes get the command's result lines only)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def render_status(what: str) -> Iterator[Callable[[str], None]]:
    """A progress callback for a render of `what` ("revision 4"), drawn as one status line."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        yield lambda words: None
        return
    with console.status(f"rendering {what}…") as status:
        yield lambda words: status.update(f"rendering {what}: {words}")
