"""Checkpoint stores for the pipeline state.

`FileCheckpoint` writes `state/pipeline-state.json` atomically after copying
the previous checkpoint to `pipeline-state.json.bak`; loading falls back to
the `.bak` when the main file is missing or corrupt, checks the schema
version, and otherwise fails with one clear `CheckpointError`. Beside it, while
the quality gate retries, `state/takes/take-N.json` holds each take the gate
judged (`JudgedTake`: the records of the nodes that made it), written atomically
before any checkpoint that counts it, and removed once the gate has decided.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from bandstand.compose.state import SCHEMA_VERSION, JudgedTake, PipelineState
from bandstand.errors import CheckpointError
from bandstand.files import write_bytes

__all__ = ["STATE_FILE", "BackgroundCheckpoint", "CheckpointStore", "FileCheckpoint"]

STATE_FILE = Path("state") / "pipeline-state.json"
TAKES_DIR = "takes"  # beside the state file: the gate's judged takes while it retries
IDLE_SECONDS = 0.5


class CheckpointStore(Protocol):
    path: Path

    def save(self, state: PipelineState) -> None: ...

    def load(self) -> PipelineState: ...

    def flush(self) -> None: ...

    def save_take(self, take: JudgedTake) -> None: ...

    def load_take(self, index: int) -> JudgedTake | None: ...

    def drop_takes(self) -> None: ...


def _major(version: str) -> str:
    return version.split(".", 1)[0]


class FileCheckpoint:
    """The pipeline state as a JSON file, with the previous version kept as `.bak`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + ".bak")
        self.takes = self.path.with_name(TAKES_DIR)

    @classmethod
    def in_session(cls, session_dir: str | Path) -> FileCheckpoint:
        return cls(Path(session_dir) / STATE_FILE)

    def save(self, state: PipelineState) -> None:
        self.write(state.model_dump_json().encode("utf-8") + b"\n")

    def write(self, data: bytes) -> None:
        """Write serialized state. The previous checkpoint becomes the .bak by a rename
        (atomic); until the new one is in place, `load` falls back to it."""
        if self.path.exists():
            os.replace(self.path, self.backup)
        write_bytes(self.path, data)

    def flush(self) -> None:
        """Writes are synchronous here; nothing is pending."""

    def take_path(self, index: int) -> Path:
        return self.takes / f"take-{index + 1}.json"

    def save_take(self, take: JudgedTake) -> None:
        self.write_take(take.index, _encode_take(take))

    def write_take(self, index: int, data: bytes) -> None:
        """One judged take, written atomically (a crash leaves the old file or none)."""
        write_bytes(self.take_path(index), data)

    def load_take(self, index: int) -> JudgedTake | None:
        """Take `index` as the gate judged it; None when it is not there or unreadable (a crash
        before it was written: the checkpoint then does not count it either)."""
        try:
            return JudgedTake.model_validate_json(self.take_path(index).read_bytes())
        except (OSError, ValueError):
            return None

    def drop_takes(self) -> None:
        """The gate has decided: its takes are no longer needed."""
        if self.takes.is_dir():
            shutil.rmtree(self.takes, ignore_errors=True)

    def _read(self, path: Path) -> PipelineState:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CheckpointError(f"checkpoint {path} is corrupt ({exc})") from exc
        if not isinstance(data, dict):
            raise CheckpointError(f"checkpoint {path} is corrupt (not a JSON object)")
        version = str(data.get("version", "?"))
        if _major(version) != _major(SCHEMA_VERSION):
            raise CheckpointError(
                f"checkpoint {path} has state schema {version}, which cannot be migrated to {SCHEMA_VERSION}; "
                "compose the song again")
        try:
            return PipelineState.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise CheckpointError(f"checkpoint {path} is corrupt ({where}: {first['msg']})") from exc

    def load(self) -> PipelineState:
        if not self.path.exists() and not self.backup.exists():
            raise CheckpointError(f"no checkpoint at {self.path}; is this a bandstand session folder?")
        try:
            return self._read(self.path)
        except CheckpointError as main_error:
            if "cannot be migrated" in str(main_error) or not self.backup.exists():
                raise
            try:
                return self._read(self.backup)
            except CheckpointError:
                raise CheckpointError(f"{main_error}; the backup {self.backup.name} is unusable too; "
                                      "compose the song again") from main_error


class BackgroundCheckpoint:
    """A `FileCheckpoint` whose writes happen in order on a writer thread.

    `save` serializes the state at once (a snapshot) and queues the bytes; the engine does
    not wait for the disk (each durable write costs an fsync) and calls `flush` before a
    run returns. A crash can lose only checkpoints still in the queue; resume then redoes
    those stages, which give the same result for the same seed.
    """

    def __init__(self, store: FileCheckpoint) -> None:
        self.store = store
        self.path = store.path
        # in order: a checkpoint's bytes (index None), a judged take's (its index), or None to drop the takes
        self._queue: queue.SimpleQueue[tuple[int | None, bytes] | None] = queue.SimpleQueue()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def save(self, state: PipelineState) -> None:
        self._put((None, state.model_dump_json().encode("utf-8") + b"\n"))

    def save_take(self, take: JudgedTake) -> None:
        """Queued like a checkpoint, so it is on disk before any later checkpoint that counts it."""
        self._put((take.index, _encode_take(take)))

    def load_take(self, index: int) -> JudgedTake | None:
        self.flush()
        return self.store.load_take(index)

    def drop_takes(self) -> None:
        """Queued after the checkpoint that records the gate's decision: a crash before that
        checkpoint is on disk finds the takes still there."""
        self._put(None)

    def _put(self, item: tuple[int | None, bytes] | None) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
            self._queue.put(item)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, daemon=True, name="compose-checkpoint")
                self._thread.start()

    def _loop(self) -> None:
        """Write queued checkpoints; end when nothing came for a moment (the next save starts
        a new writer), so finished runs leave no thread behind."""
        while True:
            try:
                item = self._queue.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            try:
                if item is None:
                    self.store.drop_takes()
                elif item[0] is None:
                    self.store.write(item[1])
                else:
                    self.store.write_take(item[0], item[1])
            except BaseException as exc:
                self._error = exc
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    def flush(self) -> None:
        """Wait until every queued checkpoint is on disk; re-raise a failed write."""
        self._idle.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def load(self) -> PipelineState:
        self.flush()
        return self.store.load()


def _encode_take(take: JudgedTake) -> bytes:
    return take.model_dump_json().encode("utf-8") + b"\n"
