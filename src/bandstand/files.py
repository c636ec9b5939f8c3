"""Atomic file writes: every file bandstand writes goes to a temporary name
in the same folder and is renamed into place, so a crash never leaves a
half-written file under the real name (only `*.tmp` files, which
`bandstand sessions clean` removes). A file is synced to the disk before it is renamed, so a
power cut leaves the old file or the new one — except rendered audio (`durable=False`): WAVs
are tens of megabytes each, made again from the session by a render, and syncing them held
a with-WAV compose up for 12–47 ms a file; they are still renamed into place whole, and the
system writes them out within its usual half minute. `refuse_links` keeps writes out of a
folder that is, or holds, a symbolic link (a write through one would land
outside the folder). `config_path` says which bandstand.toml is read (the one file every
part's configuration comes from: the agents, the part generators)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from bandstand.errors import ConfigError, InvalidInput, OutputNotWritable

TMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files readable by the owner only; the files we write are the
# user's songs and reports, so they get the usual permissions (0666 & ~umask).
_FILE_MODE = 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb", *, durable: bool = True) -> Iterator[IO[Any]]:
    """Open a temporary file beside `path`; on success rename it over `path` — synced to the disk
    first unless not `durable` (see the module's notes)."""
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
            if durable:
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


def refuse_links(folder: str | os.PathLike[str], what: str = "folder") -> Path:
    """`folder`, when neither it nor anything inside it is a symbolic link; else `OutputNotWritable`
    naming the link: a write through it would land wherever the link points."""
    root = Path(folder)
    if root.is_symlink():
        raise OutputNotWritable(f"{root} is a symbolic link (to {os.readlink(root)}); bandstand does not write "
                                f"through links: move the {what} itself here, or name its real folder", path=str(root))
    for parent, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = os.path.join(parent, name)
            if os.path.islink(path):
                raise OutputNotWritable(f"{path} is a symbolic link (to {os.readlink(path)}) inside the {what} "
                                        f"{root}; bandstand does not write through links: replace it with the "
                                        "file or folder itself", path=path)
    return root


def unwritable(path: str | os.PathLike[str]) -> str | None:
    """Why nothing can be written at `path` (a file or a folder still to be made), read off the nearest
    folder on its way that exists — "F is a file, not a folder" or "F is not writable" — or None when it
    can. Nothing is created."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is a file, not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable"
    return None


def config_path(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    """The configuration file: `explicit` (it must exist), else the file `$BANDSTAND_CONFIG`
    names (it must exist), else ./bandstand.toml when there is one; None without any."""
    if explicit is not None:
        path = Path(explicit)
        if path.is_dir():
            raise ConfigError(f"config file {path} is a folder; pass the path of a bandstand.toml")
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist; pass an existing bandstand.toml")
        return path
    if env.get("BANDSTAND_CONFIG"):
        path = Path(env["BANDSTAND_CONFIG"])
        if not path.is_file():
            raise ConfigError(f"BANDSTAND_CONFIG names {path}, which does not exist")
        return path
    local = Path("bandstand.toml")
    return local if local.is_file() else None


def read_user_text(path: str | os.PathLike[str], name: str, give: str) -> str:
    """A file the user named, as UTF-8 text — or `InvalidInput` of one line saying what is wrong
    with it (missing, a folder, not UTF-8, unreadable). `name` is what the file is ("prompts file"),
    `give` what to give instead ("a text file with one prompt per line")."""
    source = Path(path)
    try:
        return source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"no {name} at {source}; give {give}") from None
    except IsADirectoryError:
        raise InvalidInput(f"{source} is a folder; give {give}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{source}: not UTF-8 text (byte {exc.start}); save the {name} as UTF-8") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {source}: {exc.strerror or exc}") from None
