"""The pages' sound: the General MIDI SoundFont the WAV render uses, and the
in-page SoundFont synthesizer's files, wherever the setup installed them.

    GET /audio/soundfont.sf2          the .sf2 `bandstand.render` would use (same file, same bytes)
    GET /audio/vendor/PACKAGE/FILE    a browser file of an installed npm package (allow-listed)
    GET /api/v1/audio                 what is there: {"soundfont": …, "synth": …, "now": server clock}

The synthesizer (spessasynth_lib, Apache-2.0) is not committed: the setup
runs `npm ci` in `web/vendor/` (scripts/setup.d/webaudio.sh); `$BANDSTAND_WEB_VENDOR`
names another `node_modules` folder. When either file is missing the page
plays its oscillator voices instead (web/audio/index.js).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, Response

from bandstand.errors import SoundFontNotFound
from bandstand.producer import App
from bandstand.server.routes.pages import web_root

VENDOR_ENV = "BANDSTAND_WEB_VENDOR"
SYNTH_PACKAGE = "spessasynth_lib"
PACKAGES = ("spessasynth_lib", "spessasynth_core", "stb-vorbis")
"""The npm packages the pages may load (the synthesizer and what it imports)."""
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
               ".wasm": "application/wasm"}
"""File kinds served from a package: browser code only (no maps, sources or manifests)."""
SYNTH_FILES = ("dist/index.js", "dist/spessasynth_processor.min.js")
"""The synthesizer's two entry points: the main-thread module and the AudioWorklet processor."""

assets_router = APIRouter(prefix="/audio", tags=["pages"])
router = APIRouter(tags=["audio"])


def vendor_dir() -> Path:
    """The `node_modules` folder the pages' npm packages are served from."""
    configured = os.environ.get(VENDOR_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    return web_root() / "vendor" / "node_modules"


def vendor_file(package: str, path: str) -> Path | None:
    """The file `path` of an allow-listed `package`, or None (not allowed, or not installed)."""
    if package not in PACKAGES or Path(path).suffix not in MEDIA_TYPES:
        return None
    root = (vendor_dir() / package).resolve()
    found = (root / path).resolve()
    if not found.is_relative_to(root) or not found.is_file():
        return None
    return found


def synth_status() -> dict[str, Any]:
    """Whether the in-page synthesizer is installed, its version and its entry points."""
    ready = all(vendor_file(SYNTH_PACKAGE, f) is not None for f in SYNTH_FILES) and vendor_file(
        "spessasynth_core", "dist/index.js") is not None
    version = None
    if ready:
        manifest = vendor_dir() / SYNTH_PACKAGE / "package.json"
        try:
            version = str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
        except (OSError, ValueError):
            version = None
    base = f"/audio/vendor/{SYNTH_PACKAGE}/"
    return {"available": ready, "library": SYNTH_PACKAGE, "version": version,
            "module": base + SYNTH_FILES[0], "processor": base + SYNTH_FILES[1],
            "imports": {p: f"/audio/vendor/{p}/dist/index.js" for p in PACKAGES if p != SYNTH_PACKAGE}}


def soundfont_status() -> dict[str, Any]:
    try:
        path = App().desk().soundfont()
    except SoundFontNotFound as exc:
        return {"available": False, "reason": str(exc)}
    return {"available": True, "name": path.name, "bytes": path.stat().st_size, "url": "/audio/soundfont.sf2"}


def _file(request: Request, path: Path, media_type: str) -> Response:
    """The file, or 304 when the browser's copy is current (its ETag: the file's size and time),
    so a reloaded page does not fetch the SoundFont again."""
    response = FileResponse(path, media_type=media_type, stat_result=path.stat(), headers={"cache-control": "no-cache"})
    etag = response.headers["etag"]
    if etag in {t.strip() for t in request.headers.get("if-none-match", "").split(",")}:
        return Response(status_code=304, headers={"etag": etag, "cache-control": "no-cache"})
    return response


@assets_router.get("/soundfont.sf2", include_in_schema=False)
async def soundfont(request: Request) -> Response:
    try:
        path = App().desk().soundfont()
    except SoundFontNotFound as exc:
        raise HTTPException(404, str(exc)) from None
    return _file(request, path, "application/octet-stream")


@assets_router.get("/vendor/{package}/{path:path}", include_in_schema=False)
async def vendor(request: Request, package: str, path: str) -> Response:
    found = vendor_file(package, path)
    if found is None:
        raise HTTPException(404, f"{package}/{path} is not installed here (scripts/setup installs the page's synthesizer)")
    return _file(request, found, MEDIA_TYPES[found.suffix])


@router.get("/audio", summary="The pages' sound: the SoundFont the WAV render uses and the in-page synthesizer")
async def audio() -> dict[str, Any]:
    return {"soundfont": soundfont_status(), "synth": synth_status(), "now": time.time()}
