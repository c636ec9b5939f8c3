"""Export a session's song in the form a musician's tool wants: MusicXML (the lead
sheet), stems (one WAV per part after its fader, and the bus returns), MIDI (the
full arrangement with the mix as CC7/CC10, and one file per part), the mastered
WAV, or the piano roll. The CLI, the HTTP API and MCP call `export_session`.

The song is the session's HEAD: a studio project's current revision (its mix
and all), else the mixed song compose wrote (`state/song.json`), else the
session's `midi/full-arrangement.mid`. The WAV and stems are
mastered to the loudness the session's manifest names (−14 LUFS without one).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from bandstand.errors import InvalidInput
from bandstand.producer.running import Control
from bandstand.score import Song

__all__ = ["FORMATS", "Export", "export_session", "load_song"]

FORMATS: dict[str, str] = {
    "musicxml": "the lead sheet: melody, chord symbols, key, metre, tempo, rehearsal marks",
    "stems": "one WAV per part after its fader, and each bus's return",
    "mid": "the full arrangement (mix as CC7/CC10, section markers) and one file per part",
    "wav": "the mixed and mastered song",
    "png": "the piano roll",
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
        from bandstand.producer.projects import open_project
        from bandstand.studio import to_song

        return to_song(open_project(root).head)
    from bandstand.compose.songjson import read_session_song

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


def export_session(session_dir: str | os.PathLike[str], fmt: str, out_dir: str | os.PathLike[str] | None = None,
                   *, control: Control | None = None) -> Export:
    """Write the session's song as `fmt` (one of `FORMATS`) into `out_dir` (default: the session's
    `export/` folder). With a `control`, its steps are reported as progress (reading the song,
    rendering, writing) and a cancel before the files are written writes none."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown export format '{fmt}'; use one of: {', '.join(FORMATS)}", field="format")
    control = control or Control()
    steps = 3 if fmt in ("wav", "stems") else 2
    root = _session(session_dir)
    out = Path(out_dir).expanduser() if out_dir is not None else root / "export"
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"--out {out} is a file; give a folder")
    control.report(0, steps, "reading the song")
    song = load_song(root)
    control.check("reading the song")
    control.report(1, steps, "rendering the audio" if steps == 3 else f"writing {fmt}")
    from bandstand.files import write_bytes

    written: list[Path] = []
    if fmt not in ("wav", "stems"):
        out.mkdir(parents=True, exist_ok=True)
    if fmt == "musicxml":
        from bandstand.compose.leadsheet import lead_sheet

        written.append(write_bytes(out / "lead-sheet.musicxml", lead_sheet(song)))
    elif fmt == "mid":
        from bandstand.compose.songfiles import FULL, _single, mix_controls, part_files
        from bandstand.midi import song_to_midi_bytes

        full = Song(**{**{f: getattr(song, f) for f in song.__dataclass_fields__},
                       "tracks": [mix_controls(t) for t in song.tracks]})
        written.append(write_bytes(out / f"{FULL}.mid", song_to_midi_bytes(full)))
        for name, track in part_files(song).items():
            written.append(write_bytes(out / name, song_to_midi_bytes(_single(song, mix_controls(track)))))
    elif fmt in ("wav", "stems"):
        from bandstand.render import Master, render_song
        from bandstand.render.audio import write_stems, write_wav

        target = _target(root)
        rendered = render_song(song, settings=Master(target) if target is not None else None, stems=fmt == "stems")
        control.check("rendering the audio")
        control.report(2, steps, f"writing {fmt}")
        out.mkdir(parents=True, exist_ok=True)
        if fmt == "wav":
            written.append(write_wav(rendered.audio, out / "full-arrangement.wav"))
        else:
            written += write_stems(rendered, out / "stems")
    else:
        from bandstand.render import render_pianoroll

        written.append(render_pianoroll(song, out / "pianoroll.png"))
    control.report(steps, steps, f"wrote {len(written)} file{'s' if len(written) != 1 else ''}")
    return Export(fmt, out, tuple(sorted(written)))
