"""The work a launched musician does, and how the conductor verifies it.

The built-in musician composes one short song per task as `App.compose` does
(`composing.compose.compose_song` with a `ComposeRequest`: no model, no audio render; not
through `App` itself, which reaches the board through `App.board` — an import cycle): the
task's instruction is the prompt and the task's number the seed, so the same board gives the
same songs.
It composes into a staging folder and renames it to ``OUT/<task>``: a task taken
over from a killed musician finds either nothing or a whole song — a song already
there is kept, not composed again. A model-backed musician's answer is written
atomically to ``OUT/<task>/answer.md``.

`verify(result)` is the check both sides run: every listed file exists and is
not empty, and every MIDI file reads back with notes.

A task names its tests after its instruction, as ``|``-separated fields:
``write the tempo helper | tests: tests/test_tempo.py | source: tempo``
(paths relative to the launch's workdir, several separated by spaces);
`task_checks` splits them off, and the musician's checkpoint runs the
coverage and flaky gates on them (`board.gates`)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bandstand.producer.requests_models import ComposeRequest

__all__ = ["BARS", "TaskChecks", "WorkResult", "answer_work", "compose_work", "task_checks", "verify"]

#: How long a built-in task's song is, bars.
BARS = 8
_NUMBER = re.compile(r"(\d+)$")


@dataclass(frozen=True, slots=True)
class WorkResult:
    """What a musician made for a task: its folder, its files (relative to it), and a summary."""

    task_id: str
    folder: str
    files: tuple[str, ...]
    summary: str
    notes: Mapping[str, int] = field(default_factory=dict)
    kept: bool = False

    def to_json(self) -> str:
        return json.dumps({"task_id": self.task_id, "folder": self.folder, "files": list(self.files),
                           "summary": self.summary, "notes": dict(self.notes), "kept": self.kept})

    @classmethod
    def from_json(cls, text: str) -> WorkResult:
        data = json.loads(text)
        return cls(str(data["task_id"]), str(data["folder"]), tuple(map(str, data["files"])), str(data["summary"]),
                   {str(k): int(v) for k, v in dict(data.get("notes") or {}).items()}, bool(data.get("kept")))


@dataclass(frozen=True, slots=True)
class TaskChecks:
    """A task's instruction without its check fields, and the tests and sources those name."""

    instruction: str
    tests: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()


def task_checks(text: str) -> TaskChecks:
    """Split ``INSTRUCTION | tests: PATH … | source: PKG_OR_PATH …`` (see the module docstring)."""
    from bandstand.errors import InvalidInput

    head, *fields = (part.strip() for part in text.split(" | "))
    named: dict[str, tuple[str, ...]] = {}
    for part in fields:
        key, colon, value = part.partition(":")
        key = key.strip().lower()
        if not colon or key not in ("tests", "source"):
            raise InvalidInput(f"task {text!r}: after the instruction, a '|' field is 'tests: PATH …' or "
                               f"'source: PACKAGE_OR_PATH …'; got {part!r}")
        named[key] = named.get(key, ()) + tuple(value.split())
    tests, sources = named.get("tests", ()), named.get("source", ())
    if bool(tests) != bool(sources):
        raise InvalidInput(f"task {text!r}: name both 'tests: PATH …' and 'source: PACKAGE_OR_PATH …' "
                           "(the coverage gate measures the source while the tests run)")
    return TaskChecks(head, tests, sources)


def seed_of(task_id: str) -> int:
    match = _NUMBER.search(task_id)
    return int(match.group(1)) if match else 0


def _song_result(task_id: str, folder: Path, kept: bool) -> WorkResult:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    parts = {str(p["role"]): int(p["note_count"]) for p in manifest.get("parts", [])}
    files = (*tuple(str(p["file"]) for p in manifest.get("parts", [])), "midi/full-arrangement.mid", "manifest.json")
    summary = (f"{manifest.get('total_bars')} bars in {manifest.get('key')} at {manifest.get('tempo'):g} BPM, "
               f"{sum(parts.values())} notes in {len(parts)} parts ({', '.join(parts)})")
    return WorkResult(task_id, str(folder), files, summary, parts, kept)


def compose_work(task_id: str, instruction: str, out: str | Path, worker: str) -> WorkResult:
    """The built-in musician's work for one task (see the module docstring)."""
    out = Path(out)
    final = out / task_id
    if (final / "manifest.json").is_file():
        return _song_result(task_id, final, kept=True)
    staging = out / ".staging" / f"{task_id}.{re.sub(r'[^A-Za-z0-9_.-]', '_', worker)}"
    shutil.rmtree(staging, ignore_errors=True)
    from bandstand.producer.composing.compose import compose_song

    request = ComposeRequest(instruction, seed=seed_of(task_id), bars=BARS)
    composed = compose_song(request.prompt, assume_defaults=request.assume_defaults, out_dir=str(staging),
                            **request.options())
    session = Path(composed.result.state.session_dir)
    try:
        session.rename(final)
    except OSError:
        if not (final / "manifest.json").is_file():  # another session's song is there: keep it
            raise
    shutil.rmtree(staging, ignore_errors=True)
    return _song_result(task_id, final, kept=False)


def answer_work(task_id: str, answer: str, out: str | Path) -> WorkResult:
    """A model's answer as the task's result: ``OUT/<task>/answer.md``, written atomically."""
    from bandstand.files import write_text

    folder = Path(out) / task_id
    write_text(folder / "answer.md", answer.rstrip() + "\n")
    first = " ".join(answer.split())[:160]
    return WorkResult(task_id, str(folder), ("answer.md",), first or "(empty answer)")


def verify(result: WorkResult) -> list[str]:
    """What is wrong with a result (empty: it holds). MIDI files must read back with notes."""
    problems = []
    folder = Path(result.folder)
    if not result.files:
        problems.append("the result lists no files")
    for name in result.files:
        path = folder / name
        if not path.is_file() or path.stat().st_size == 0:
            problems.append(f"{path} is missing or empty")
        elif path.suffix == ".mid" and not _midi_notes(path):
            problems.append(f"{path} has no notes")
    if result.files == ("answer.md",) and not problems and not (folder / "answer.md").read_text().strip():
        problems.append("the answer is empty")
    return problems


def _midi_notes(path: Path) -> int:
    from bandstand.midi import read_midi

    song: Any = read_midi(path)
    return sum(len(track.notes) for track in song.tracks)
