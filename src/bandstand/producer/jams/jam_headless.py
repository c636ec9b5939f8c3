"""A jam without a browser (`bandstand jam --headless`): the band plays N rounds (directives
between them), the recording is written, a summary comes back — the jam engine's own
`run_headless`, re-exported for the clients (imported on use: it loads the recorder)."""

from __future__ import annotations

from bandstand.jam.headless import check_out_folder, run_headless

__all__ = ["check_out_folder", "run_headless"]
