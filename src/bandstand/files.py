"""Atomic file writes: every file bandstand writes goes to a temporary name
in the same folder and is renamed into place, so a crash never leaves a
half-written file under the real name (only `*.tmp` files, which
`bandstand sessions clean` removes)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bandstand.errors import OutputNotWritable

TMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files readable by the owner only; the files we write are the
# user's songs and reports, so they get the usual permissions (0666 & ~umask).
_FILE_MODE = 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file beside `path`; on success rename it over `path`."""
    target = Path(path)
    if target.is_dir():
        raise OutputNotWritable(f"{target} is a folder; give a file name (e.g. {target / 'out'}…)", path=str(target))
    blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise OutputNotWritable(
            f"cannot write {target}: {blocker} is a file, not a folder; choose another path", path=str(target)
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP_SUFFIX, dir=target.parent)
    except OSError as exc:
        raise OutputNotWritable(
            f"cannot write to {target.parent}: {exc.strerror or exc}; choose another folder",
            path=str(target),
        ) from exc
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), _FILE_MODE)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write `data` to `path` atomically and return the path."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write UTF-8 `text` to `path` atomically and return the path."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike[str], obj: Any, *, indent: int = 2) -> Path:
    """Write `obj` as JSON (sorted keys, trailing newline) atomically."""
    return write_text(path, json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False) + "\n")
