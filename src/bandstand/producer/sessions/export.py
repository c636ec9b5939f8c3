"""Export a session's song in the form a musician's tool wants: MusicXML (the lead
sheet), stems (one WAV per part after its fader, and the bus returns), MIDI (the
full arrangement with the mix as CC7/CC10, and one file per part), the mastered
WAV, the piano roll, or a Strudel program (`craft.to_strudel`); and one track of a MIDI
file as Strudel code (`midi_clip`, `bandstand pattern from-midi`). The CLI, the HTTP API and MCP call `export_session`.

The song is the session's HEAD: a studio project's current revision (its mix
and all), else the mixed song compose wrote (`state/song.json`), else the
session's `midi/full-arrangement.mid` (reading it writes nothing). The WAV
and stems are mastered to the loudness the session's manifest names (−14
LUFS without one).

Where an export goes: the local user of the CLI names any folder. Every
other caller (an MCP client, on stdio or at `/mcp`; the HTTP API) gets
`export_folder`: the project's own `export/` folder, or a sub-folder of it
named by a relative path — no absolute path, no `~`, no `..`, no part that
names a project, and no symbolic link on the way (`files.refuse_links`) — so
an export can neither leave its project nor overwrite another project's files.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bandstand.errors import InvalidInput
from bandstand.producer.execution.running import Control
from bandstand.score import Song

__all__ = ["EXPORT_DIR", "FORMATS", "MAX_OUT", "STRUDEL_FILE", "Clip", "Export", "export_folder", "export_session",
           "load_song", "midi_clip"]

EXPORT_DIR = "export"
"""A project's own folder for exports (what `export_folder` confines other callers to)."""
MAX_OUT = 200
"""The longest sub-folder a caller other than the CLI may name, in characters."""
STRUDEL_FILE = "full-arrangement.strudel.js"

FORMATS: dict[str, str] = {
    "musicxml": "the lead sheet: melody, chord symbols, key, metre, tempo, rehearsal marks",
    "stems": "one WAV per part after its fader, and each bus's return",
    "mid": "the full arrangement (mix as CC7/CC10, section markers) and one file per part",
    "wav": "the mixed and mastered song",
    "png": "the piano roll",
    "strudel": "a Strudel program that plays the song note for note (paste it into strudel.cc)",
}


@dataclass(frozen=True, slots=True)
class Export:
    """What an export wrote: the format, the folder and the files in it."""

    format: str
    out_dir: Path
    files: tuple[Path, ...]

    def to_json(self) -> dict[str, object]:
        return {"format": self.format, "out_dir": str(self.out_dir), "files": [str(f) for f in self.files]}


def _session(path: str | os.PathLike[str]) -> Path:
    root = Path(path).expanduser()
    if not root.is_dir():
        raise InvalidInput(f"{root}: no such session folder; give the folder `bandstand compose` made")
    return root


def load_song(session_dir: str | os.PathLike[str]) -> Song:
    """The session's song at HEAD (see the module docstring)."""
    root = _session(session_dir)
    if (root / "revisions").is_dir():
        from bandstand.producer.sessions.projects import ProjectSession
        from bandstand.studio import to_song

        return to_song(ProjectSession(root).head)
    from bandstand.compose.api import read_session_song

    mixed = read_session_song(root)
    if mixed is not None:
        return mixed
    full = root / "midi" / "full-arrangement.mid"
    if not full.is_file():
        raise InvalidInput(f"{root} has no midi/full-arrangement.mid; is it a finished session?")
    from bandstand.midi import read_midi

    return read_midi(full)


def _target(root: Path) -> float | None:
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
        return float(manifest["master"]["target_lufs"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def export_folder(session_dir: str | os.PathLike[str], out: str | None = None) -> Path:
    """Where an export for a caller other than the local CLI user goes (see the module docstring):
    ``SESSION/export``, or ``SESSION/export/OUT`` for a relative `out`; one-line `InvalidInput`
    (field ``out``) for anything else."""
    from bandstand.compose.api import SESSION_RE
    from bandstand.files import refuse_links

    root = _session(session_dir)
    refuse_links(root, "project folder")
    base = root / EXPORT_DIR
    if out is None or out in ("", "."):
        return base
    hint = f"exports of {root.name} go to its {EXPORT_DIR}/ folder; give a sub-folder such as 'mix-2', or none"
    if not isinstance(out, str) or len(out) > MAX_OUT or "\0" in out:
        raise InvalidInput(f"out must be a folder name of at most {MAX_OUT} characters; {hint}", field="out")
    parts = Path(out).parts
    if out.startswith(("/", "~", "\\")) or Path(out).is_absolute():
        raise InvalidInput(f"out {out!r} is outside the project; {hint}", field="out")
    if ".." in parts:
        raise InvalidInput(f"out {out!r} climbs out with '..'; {hint}", field="out")
    named = next((part for part in parts if SESSION_RE.match(part)), None)
    if named is not None:
        raise InvalidInput(f"out {out!r} names the project {named}; {hint}", field="out")
    return base / out


def export_session(session_dir: str | os.PathLike[str], fmt: str, out_dir: str | os.PathLike[str] | None = None,
                   *, control: Control | None = None) -> Export:
    """Write the session's song as `fmt` (one of `FORMATS`) into `out_dir` (default: the session's
    `export/` folder). With a `control`, its steps are reported as progress (reading the song,
    rendering, writing; a WAV or stems export in percent, with the parts played) and its cancel
    stops the render or the writing within a block (`Cancelled`): a cancelled WAV writes no file."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown export format '{fmt}'; use one of: {', '.join(FORMATS)}", field="format")
    control = control or Control()
    audio = fmt in ("wav", "stems")
    steps = 100 if audio else 2  # an audio export reports percent: reading 0–5, rendering 5–90, writing 90–100
    root = _session(session_dir)
    out = Path(out_dir).expanduser() if out_dir is not None else root / EXPORT_DIR
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"--out {out} is a file; give a folder")
    control.report(0, steps, "reading the song")
    song = load_song(root)
    control.check("reading the song")
    control.report(5 if audio else 1, steps, "rendering the audio" if audio else f"writing {fmt}")
    from bandstand.files import write_bytes

    written: list[Path] = []
    if fmt not in ("wav", "stems"):
        out.mkdir(parents=True, exist_ok=True)
    if fmt == "musicxml":
        from bandstand.compose.api import lead_sheet

        written.append(write_bytes(out / "lead-sheet.musicxml", lead_sheet(song)))
    elif fmt == "mid":
        from bandstand.compose.api import midi_files

        written += [write_bytes(out / name, data) for name, data in midi_files(song).items()]
    elif fmt == "strudel":
        from bandstand.craft.to_strudel import to_strudel

        written.append(write_bytes(out / STRUDEL_FILE, to_strudel(song).encode("utf-8")))
    elif fmt in ("wav", "stems"):
        from bandstand.render import Master, render_song
        from bandstand.render.audio import write_stems, write_wav
        from bandstand.render.cancel import RenderCancelled

        target = _target(root)
        check = _render_check(control)
        try:
            rendered = render_song(song, settings=Master(target) if target is not None else None, stems=fmt == "stems",
                                   cancelled=lambda: control.cancelled, progress=_render_progress(control))
            control.check("rendering the audio")
            control.report(90, steps, f"writing {fmt}")
            out.mkdir(parents=True, exist_ok=True)
            if fmt == "wav":
                written.append(write_wav(rendered.audio, out / "full-arrangement.wav", check=check))
            else:  # into the folder asked for; the session's own export/ keeps them in export/stems/
                written += write_stems(rendered, out / "stems" if out == root / EXPORT_DIR else out, check=check)
        except RenderCancelled:
            control.check("rendering the audio")  # raises Cancelled: the control's cancel is what stopped it
            raise
    else:
        from bandstand.render import render_pianoroll

        written.append(render_pianoroll(song, out / "pianoroll.png"))
    control.report(steps, steps, f"wrote {len(written)} file{'s' if len(written) != 1 else ''}")
    return Export(fmt, out, tuple(sorted(written)))


_PLAYED = re.compile(r"played (\d+) of (\d+) parts")


def _render_progress(control: Control) -> Callable[[str], None]:
    """The render's words ("played 3 of 6 parts (Bass)", "mixing", "mastering") as the export's
    percent: the parts played take 5–80, mixing and mastering 80–90."""
    def told(message: str) -> None:
        played = _PLAYED.match(message)
        if played is not None:
            done, total = int(played.group(1)), max(1, int(played.group(2)))
            control.report(5 + 75 * min(done, total) / total, 100, message)
        elif message.startswith("mixing"):
            control.report(80, 100, message)
        elif message.startswith("mastering"):
            control.report(85, 100, message)
        else:
            control.report(5, 100, message)

    return told


def _render_check(control: Control) -> Callable[[], None]:
    """What the file writers ask between blocks: a cancel stops them (a WAV half-written is never
    renamed into place)."""
    from bandstand.render.cancel import checker

    return checker(lambda: control.cancelled)


@dataclass(frozen=True, slots=True)
class Clip:
    """One track of a MIDI file as Strudel code: the track (1-based), its name, the bars the code
    spans (one cycle a bar), the tempo and beats a bar, and the code."""

    track: int
    name: str
    bars: int
    tempo: float
    beats_per_bar: float
    code: str

    def to_json(self) -> dict[str, object]:
        return {"track": self.track, "name": self.name, "bars": self.bars, "tempo": self.tempo,
                "beats_per_bar": self.beats_per_bar, "code": self.code}


def midi_clip(path: str | os.PathLike[str], track: int) -> Clip:
    """Track `track` (1-based, as the file's tracks with notes are listed) of the MIDI file at `path`
    as Strudel code (`craft.to_strudel.clip_to_strudel`), read within the reader's limits."""
    from bandstand.craft.to_strudel import clip_to_strudel
    from bandstand.midi import read_midi

    song = read_midi(Path(path).expanduser())
    tracks = [t for t in song.tracks if t.notes]
    if not 1 <= track <= len(tracks):
        listed = ", ".join(f"{i} {t.name}" for i, t in enumerate(tracks, 1)) or "none"
        raise InvalidInput(f"--track {track}: {path} has {len(tracks)} tracks with notes ({listed}); "
                           "give one of their numbers", field="track")
    chosen = tracks[track - 1]
    code = clip_to_strudel(chosen, song.beats_per_bar)
    bars = int(max(n.start for n in chosen.notes) // song.beats_per_bar) + 1
    return Clip(track, chosen.name, bars, song.tempo, song.beats_per_bar, code)
