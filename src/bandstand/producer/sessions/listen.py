"""Listening to a session: the WAV that shows HEAD (rendered now when it is stale, playing
only the parts that changed) or one section of it cut out, ready for a player.

`listening(session_dir, section)` is what every client plays: the CLI's `bandstand play`
hands the file to the system's audio player, other clients may stream it. A section is
named as the user says it ("chorus", "the bridge", "Verse 2"); the cut runs from the
section's first bar to its last plus a short ring-out, with short fades so nothing clicks,
and is kept in `state/listen/` (written atomically; the same revision and section are cut
once)."""

from __future__ import annotations

import os
import re
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bandstand.errors import InvalidInput
from bandstand.files import atomic_open

if TYPE_CHECKING:
    from bandstand.studio.model import Project, Section

__all__ = ["RING_SECONDS", "Listening", "listening"]

RING_SECONDS = 1.5  # a cut section keeps sounding this long after its last bar (reverb tails, last notes)
_FADE_IN, _FADE_OUT = 0.01, 0.5  # seconds


@dataclass(frozen=True, slots=True)
class Listening:
    """What to play: `wav` (a whole file), what it is in words, its length in seconds."""

    wav: Path
    what: str
    seconds: float
    revision: int


def listening(session_dir: str | os.PathLike[str], section: str | None = None, *,
              on_render: Callable[[int], object] | None = None,
              progress: Callable[[str], None] | None = None) -> Listening:
    """The session's HEAD as a WAV to play: the whole song, or the `section` its words name.
    The WAV is rendered first when it does not show HEAD (`on_render`, when given, is called
    with the revision before that starts, so a client can say it is rendering; `progress` is
    told what the render does). An unknown section is `InvalidInput` naming the song's sections."""
    from bandstand.producer.sessions.projects import open_project

    session = open_project(session_dir)
    project = session.head
    chosen = _section(project, section) if section else None
    if on_render is not None:
        from bandstand.producer.sessions import head_files

        if head_files.audio_revision(session.session_dir) != project.revision:
            on_render(project.revision)
    wav = session.ensure_audio(progress)
    revision = session.revision
    if chosen is None:
        with wave.open(str(wav), "rb") as w:
            seconds = w.getnframes() / w.getframerate()
        return Listening(wav, f"the whole song (revision {revision})", seconds, revision)
    from bandstand.studio.convert import to_song

    song = to_song(project)
    start = song.beats_to_seconds(project.bar_to_beat(chosen.start_bar))
    end = song.beats_to_seconds(project.bar_to_beat(chosen.end_bar)) + RING_SECONDS
    slug = re.sub(r"[^a-z0-9]+", "-", chosen.name.lower()).strip("-") or "section"
    out = session.session_dir / "state" / "listen" / f"r{revision}-{slug}.wav"
    if not (out.is_file() and out.stat().st_mtime >= wav.stat().st_mtime):
        _cut(wav, out, start, end)
    bars = f"bars {chosen.start_bar}–{chosen.end_bar - 1}"
    return Listening(out, f"the {chosen.name} ({bars}, revision {revision})", end - start, revision)


def _section(project: Project, words: str) -> Section:
    """The section `words` name: an exact name first, then the first whose name starts with or
    contains them ("chorus" → Chorus 1), ignoring case and a leading "the"."""
    sections = list(project.sections)
    want = re.sub(r"^\s*the\s+", "", words.strip().lower())
    for test in (lambda n: n == want, lambda n: n.startswith(want), lambda n: want in n):
        found = next((s for s in sections if test(s.name.lower())), None)
        if found is not None:
            return found
    names = ", ".join(s.name for s in sections) or "none"
    raise InvalidInput(f"this song has no section {words!r}; its sections are: {names}")


def _cut(wav: Path, out: Path, start: float, end: float) -> None:
    """Frames [start, end) seconds of `wav` into `out` (same format), faded in and out."""
    with wave.open(str(wav), "rb") as src:
        rate, channels, width = src.getframerate(), src.getnchannels(), src.getsampwidth()
        if width != 2:
            raise InvalidInput(f"{wav} is not 16-bit PCM; render it again with 'bandstand render'")
        first = max(0, min(src.getnframes(), round(start * rate)))
        last = max(first, min(src.getnframes(), round(end * rate)))
        src.setpos(first)
        audio = np.frombuffer(src.readframes(last - first), dtype="<i2").reshape(-1, channels).astype(np.float32)
    n = len(audio)
    fade_in, fade_out = min(n, round(_FADE_IN * rate)), min(n, round(_FADE_OUT * rate))
    if fade_in:
        audio[:fade_in] *= np.linspace(0.0, 1.0, fade_in, dtype=np.float32)[:, None]
    if fade_out:
        audio[n - fade_out:] *= np.linspace(1.0, 0.0, fade_out, dtype=np.float32)[:, None]
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(out, "wb") as fh, wave.open(fh, "wb") as dst:
        dst.setnchannels(channels)
        dst.setsampwidth(2)
        dst.setframerate(rate)
        dst.writeframes(np.round(audio).astype("<i2").tobytes())
