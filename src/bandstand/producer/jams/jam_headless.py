"""A jam without a browser (`bandstand jam --headless`): the band plays N rounds (directives
between them), the recording is written, a summary comes back — the jam engine's own
`run_headless`, re-exported for the clients (imported on use: it loads the recorder), and
`record_jam`, the whole use case as `App.record_jam` runs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.jam.headless import HeadlessSummary, check_out_folder, run_headless

if TYPE_CHECKING:
    from bandstand.producer.jams.jam import BackendFactory, Persona
    from bandstand.producer.requests_models import HeadlessJam

__all__ = ["RecordedJam", "check_out_folder", "record_jam", "run_headless"]


class RecordedJam(HeadlessSummary):
    """A headless jam's summary, and the studio project it left (`JamProject.summary`)."""

    project: dict[str, object]


async def record_jam(band: Sequence[Persona], request: HeadlessJam, *, backend: BackendFactory | None = None,
                     echo: Callable[[str], None] = print, as_json: bool = False) -> RecordedJam:
    """A headless jam of `band` (through `backend`; None: the built-in musicians), its chat to `echo` (one JSON
    line per message with `as_json`). The folder is checked before any sound (a folder the jam cannot use, or a
    project someone edited, is refused); afterwards it is a studio project of the jam as played. Its summary."""
    from bandstand.producer.jams.jam import algorithmic_backend
    from bandstand.producer.jams.jam_song import check_jam_project, jam_project

    out = Path(request.out)
    check_jam_project(check_out_folder(out))
    summary = await run_headless(list(band), directives=list(request.directives), cycles=request.cycles,
                                 every=request.every, out=out, backend=backend or algorithmic_backend,
                                 seed=request.seed, turn_timeout=request.turn_timeout, wav=request.wav,
                                 echo=echo, as_json=as_json, autopilot=request.autopilot)
    return {**summary, "project": jam_project(out).summary()}
