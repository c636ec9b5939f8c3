"""Auditioning a variation: the base and the proposal rendered side by side for an
A/B listen — two WAVs and two piano rolls of the bars the variation changes (one
bar either side for context), or of the whole song. They go to
`auditions/<variation id>/` in the session, are rendered from the variation's
own base revision and proposal (so they do not depend on where HEAD is), and
are made again only when missing."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.score import Song
from bandstand.studio import to_song
from bandstand.studio.excerpt import excerpt

if TYPE_CHECKING:
    from bandstand.producer.sessions.projects import ProjectSession

__all__ = ["Audition", "audition"]


@dataclass(frozen=True, slots=True)
class Audition:
    """What `audition` wrote, and which bars it covers (None: the whole song)."""

    variation_id: str
    base_revision: int
    bars: tuple[int, int] | None
    base_wav: Path
    proposal_wav: Path
    base_pianoroll: Path
    proposal_pianoroll: Path

    def to_json(self) -> dict[str, object]:
        return {"variation_id": self.variation_id, "base_revision": self.base_revision,
                "bars": list(self.bars) if self.bars else None, "base_wav": str(self.base_wav),
                "proposal_wav": str(self.proposal_wav), "base_pianoroll": str(self.base_pianoroll),
                "proposal_pianoroll": str(self.proposal_pianoroll)}


def _render(song: Song, wav: Path, png: Path, target_lufs: float | None, first_bar: int,
            say: Callable[[str], None]) -> None:
    from bandstand.render import Master, render_pianoroll, render_wav

    if not png.is_file():
        say("drawing the piano roll")
        render_pianoroll(song, png, first_bar=first_bar)
    if not wav.is_file():
        render_wav(song, wav, settings=Master(target_lufs=target_lufs) if target_lufs is not None else None,
                   progress=say)


def _quiet(words: str) -> None:
    return None


def _told(tell: Callable[[str], None], label: str, words: str) -> None:
    tell(f"{label}: {words}")


def audition(session: ProjectSession, variation_id: str | None = None, *, whole_song: bool = False,
             progress: Callable[[str], None] | None = None) -> Audition:
    """Render base and proposal of a variation (default: the newest one waiting); `progress` is
    told what is being rendered as it goes ("B (proposal, bars 4–13): played 2 of 5 parts (Bass)")."""
    from bandstand.producer.sessions import head_files

    variation = session.variation(variation_id)
    assert variation.proposal is not None
    base, proposal = to_song(session.project(variation.base_revision)), to_song(variation.proposal)
    bars: tuple[int, int] | None = None
    if not whole_song and variation.phrases:
        last = max(base.length_bars, proposal.length_bars)
        bars = (max(1, min(p.start_bar for p in variation.phrases) - 1),
                min(last, max(p.end_bar for p in variation.phrases) + 1))
        base, proposal = excerpt(base, *bars), excerpt(proposal, *bars)
    folder = session.session_dir / "auditions" / variation.id
    tag = f"bars-{bars[0]}-{bars[1]}" if bars else "song"
    out = Audition(variation.id, variation.base_revision, bars, folder / f"base-{tag}.wav",
                   folder / f"proposal-{tag}.wav", folder / f"base-{tag}.png", folder / f"proposal-{tag}.png")
    target = head_files.target_lufs(session.session_dir)
    first = bars[0] if bars else 1  # the excerpt's piano rolls number its bars as the song does
    tell = progress or _quiet
    where = f"bars {bars[0]}–{bars[1]}" if bars else "the whole song"
    for side, song, wav, png in (("A (base", base, out.base_wav, out.base_pianoroll),
                                 ("B (proposal", proposal, out.proposal_wav, out.proposal_pianoroll)):
        _render(song, wav, png, target, first, functools.partial(_told, tell, f"{side}, {where})"))
    return out
