"""Song → piano-roll PNG that a person reads at a glance.

One horizontal lane per part (drums on top, then bass, chords, lead, pad and
the rest), each in its role's colour and labelled on the left; notes are bars
whose brightness follows velocity. Drum lanes give each drum its own row.
Behind the notes: section bands with their names, a bar grid with numbers,
song markers; the title line carries tempo, key and time signature."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bandstand.errors import BandstandError
from bandstand.files import atomic_open
from bandstand.score import Song, Track

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

BACKGROUND = (24, 25, 31)
PANEL = (33, 35, 43)
GRID = (58, 61, 74)
GRID_STRONG = (92, 96, 115)
TEXT = (226, 228, 236)
MUTED = (150, 154, 170)
SECTION_SHADES = ((44, 47, 60), (36, 38, 48))
# One colour per role; unknown roles take the fallbacks in turn.
ROLE_COLOURS: dict[str, tuple[int, int, int]] = {
    "drums": (245, 158, 66), "bass": (76, 154, 255), "chords": (80, 200, 120),
    "lead": (240, 82, 110), "pad": (170, 120, 240), "fx": (64, 210, 210),
}  # fmt: skip
FALLBACK_COLOURS = ((230, 210, 80), (200, 200, 200), (255, 130, 200), (140, 220, 90))
ROLE_ORDER = ("drums", "bass", "chords", "lead", "pad", "fx")


@dataclass(frozen=True, slots=True)
class _Layout:
    left: int
    top: int
    right: int
    bottom: int
    beats: float

    def x(self, beat: float) -> float:
        return self.left + (self.right - self.left) * beat / self.beats


def role_colour(role: str, index: int = 0) -> tuple[int, int, int]:
    """The colour of a role (fallback colours cycle by `index` for unknown roles)."""
    return ROLE_COLOURS.get(role, FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)])


@functools.lru_cache(maxsize=4096)  # a few colours × 127 velocities; drawn once per note
def _shade(colour: tuple[int, int, int], velocity: int) -> tuple[int, int, int]:
    """Mix the colour toward the panel for soft notes (velocity 1 → 35 %, 127 → 100 %)."""
    k = 0.35 + 0.65 * velocity / 127
    return tuple(round(p + (c - p) * k) for c, p in zip(colour, PANEL, strict=True))  # type: ignore[return-value]


def _ordered(tracks: list[Track]) -> list[Track]:
    rank = {role: i for i, role in enumerate(ROLE_ORDER)}
    return sorted(tracks, key=lambda t: rank.get(t.role, len(ROLE_ORDER)))


_PLAIN = str.maketrans({"—": "-", "–": "-", "−": "-", "→": "->", "♯": "#", "♭": "b"})


def _drawable(text: str) -> str:
    """`text` in the characters the bundled font draws (it has no en or em dash, minus, arrow or
    accidentals: they would come out as empty boxes)."""
    return text.translate(_PLAIN)


def title_line(song: Song) -> str:
    """"Title | 96 BPM · C minor · 4/4 · 8 bars" (tempo changes shown as a range, metre changes
    as the song's main metre and where the others are: "4/4 (3/4 in bars 5-8, 17-20)")."""
    bpms = [c.bpm for c in song.tempo_map()]
    tempo = f"{min(bpms):g}-{max(bpms):g} BPM" if len(set(bpms)) > 1 else f"{bpms[0]:g} BPM"
    parts = [tempo, song.key or "key unknown", _metres(song), f"{song.length_bars} bars"]
    return f"{song.title or 'Untitled'} | " + " · ".join(parts)  # the bundled font has no em dash


def _metres(song: Song) -> str:
    from bandstand.score.metre_map import MetreMap, runs

    metres = MetreMap.of_song(song)
    if metres.uniform:
        return str(song.time_signature)
    found = sorted(runs(metres, song.length_bars), key=lambda run: -sum(b - a + 1 for a, b in run[1]))
    if len(found) < 2:
        return str(found[0][0]) if found else str(song.time_signature)
    main, *others = found
    where = "; ".join(f"{ts} in bars " + ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in spans)
                      for ts, spans in others)
    return f"{main[0]} ({where})"


def _note_name(spell: Callable[..., str], pitch: int, key: str | None) -> str:
    """The pitch spelled in the key ("Ab2" in F minor), or plainly when the key
    is unreadable or asks for a double accidental (a glance wants "D5", not "C##5")."""
    try:
        name = spell(pitch, key)
    except BandstandError:
        return spell(pitch)
    return spell(pitch) if "##" in name or "bb" in name[1:] or "x" in name else name


def _row_labels(
    draw: ImageDraw.ImageDraw, track: Track, rows: dict[int, int], row_height: float, base: float,
    right: int, key: str | None, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, size: int,
) -> None:
    """Name the rows at the lane's right edge: each drum, or a pitched lane's lowest and highest note."""
    from bandstand.midi import GM_DRUMS
    from bandstand.theory import midi_to_note

    if track.is_drum or track.role == "drums":
        labels = {p: GM_DRUMS.name(p) for p in rows} if row_height >= size else {}
    else:
        low, high = min(n.pitch for n in track.notes), max(n.pitch for n in track.notes)
        labels = {low: _note_name(midi_to_note, low, key), high: _note_name(midi_to_note, high, key)}
    for pitch, text in labels.items():
        y = base - rows[pitch] * row_height - row_height / 2 - size / 2 - 1
        width = draw.textlength(text, font=font)
        draw.text((right - width - 6, y), text, fill=MUTED, font=font)


def render_pianoroll(
    song: Song, out_path: str | os.PathLike[str], width: int = 1600, height: int = 900, *, first_bar: int = 1
) -> Path:
    """Draw the song's piano roll as a `width` × `height` PNG at `out_path`; returns the path.
    `first_bar` numbers the bars of an excerpt as in the song it was cut from."""
    data = pianoroll_png(song, width, height, first_bar=first_bar)
    with atomic_open(out_path, "wb") as fh:
        fh.write(data)
    return Path(out_path)


def pianoroll_png(song: Song, width: int = 1600, height: int = 900, *, first_bar: int = 1) -> bytes:
    """The song's piano roll as the bytes of a `width` × `height` PNG; its bars are numbered from
    `first_bar` (an excerpt's bars keep the song's numbers)."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_size = max(12, height // 36)
    text_size = max(10, height // 60)
    font = ImageFont.load_default(size=text_size)
    title_font = ImageFont.load_default(size=title_size)
    label_width = min(200, width // 7)
    header = title_size + 12 + text_size * 2 + 8
    beats = max(song.length_beats, song.beats_per_bar)
    box = _Layout(label_width, header, width - 12, height - 10, beats)
    draw.text((12, 8), _drawable(title_line(song)), fill=TEXT, font=title_font)
    draw.rectangle((box.left, box.top, box.right, box.bottom), fill=PANEL)

    section_y = title_size + 14
    for i, section in enumerate(song.sections):  # shaded bands with their names
        x0 = box.x(song.bar_to_beat(section.start_bar))
        x1 = box.x(min(song.bar_to_beat(section.end_bar), beats))
        draw.rectangle((x0, box.top, x1, box.bottom), fill=SECTION_SHADES[i % 2])
        draw.line((x0, section_y, x0, box.bottom), fill=TEXT, width=2)
        draw.text((x0 + 4, section_y), _drawable(section.name), fill=TEXT, font=font)

    bars = song.length_bars or 1
    step = max(1, round(bars / max(1, (box.right - box.left) // 40)))  # keep numbers apart
    for bar in range(1, bars + 2):
        x = box.x(song.bar_to_beat(bar))
        if x > box.right + 0.5:
            break
        strong = (bar - 1) % 4 == 0
        draw.line((x, box.top, x, box.bottom), fill=GRID_STRONG if strong else GRID, width=1)
        if (bar - 1) % step == 0 and bar <= bars:
            draw.text((x + 2, box.top - text_size - 4), str(bar + first_bar - 1), fill=MUTED, font=font)
    markers_y = box.top + 2

    tracks = _ordered([t for t in song.tracks if t.notes]) or _ordered(song.tracks)
    lane_height = (box.bottom - box.top) / max(1, len(tracks))
    pad = min(3.0, lane_height / 4)  # lanes shrink to a pixel or less: everything scales with them
    for lane, track in enumerate(tracks):
        top = box.top + lane * lane_height
        colour = role_colour(track.role, lane)
        if lane and lane_height >= 4:
            draw.line((0, top, box.right, top), fill=GRID_STRONG, width=1)
        draw.rectangle((0, top + pad / 3, 6, max(top + pad / 3, top + lane_height - pad / 3)), fill=colour)
        if lane_height >= text_size + 6:
            draw.text((12, top + 4), _drawable(track.name or track.role), fill=TEXT, font=font)
        if lane_height >= 2 * text_size + 10:
            draw.text((12, top + 6 + text_size), _drawable(track.role), fill=colour, font=font)
        if not track.notes:
            continue
        if track.is_drum or track.role == "drums":
            rows = {p: i for i, p in enumerate(sorted({n.pitch for n in track.notes}))}
            count = len(rows)
        else:
            low = min(n.pitch for n in track.notes) - 1
            rows = {p: p - low for p in range(low, max(n.pitch for n in track.notes) + 2)}
            count = len(rows)
        row_height = (lane_height - 2 * pad) / count
        base = top + lane_height - pad
        if lane_height >= 2 * text_size:
            _row_labels(draw, track, rows, row_height, base, label_width, song.key, font, text_size)
        for note in track.notes:
            y1 = base - rows[note.pitch] * row_height
            y0 = y1 - max(1.0, row_height - 1)
            x0, x1 = box.x(note.start), box.x(note.end)
            draw.rectangle((x0, y0, max(x0 + 1, x1 - 1), y1), fill=_shade(colour, note.velocity))
    for marker in song.markers:  # drawn last, on a dark label, so notes never hide them
        x = box.x(marker.beat)
        draw.line((x, box.top, x, box.bottom), fill=TEXT, width=1)
        label = _drawable(marker.text)
        left, top, right, bottom = draw.textbbox((x + 4, markers_y), label, font=font)
        draw.rectangle((left - 3, top - 2, right + 3, bottom + 2), fill=BACKGROUND, outline=TEXT)
        draw.text((x + 4, markers_y), label, fill=TEXT, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=3)
    return out.getvalue()
