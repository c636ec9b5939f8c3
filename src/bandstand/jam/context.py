"""The musical context every member plays in: key, spelled scale, chord
progression (one chord per bar), tempo, time signature and energy 1–10.

Context-changing directives are applied here, before any member is asked. A
key change without new chords keeps the progression's shape: each chord is
moved to the same scale degree of the new key (a diatonic re-harmonization).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from bandstand.errors import InvalidInput, TheoryError
from bandstand.jam._harmony import (
    chord_tones,
    diatonic_triad,
    name_in_scale,
    pitch_class,
    spell_scale,
)
from bandstand.jam.directives import Directive
from bandstand.score import TEMPO_RANGE, clamp_tempo

ENERGY_RANGE = (1, 10)


def energy_level(energy: float) -> float:
    """The jam's energy (1–10) as the craft and the song read it, 0–1: the quietest jam is 0 and
    the loudest 1, each step a ninth."""
    low, high = ENERGY_RANGE
    return (energy - low) / (high - low)


class MusicalContext(BaseModel):
    """Key, chords, tempo, metre and energy of the jam."""

    tonic: str = "c"
    mode: str = "minor"
    chords: list[str] = Field(default_factory=lambda: ["Cm", "Ab", "Eb", "Bb"])
    # the progression's shape as scale degrees (i VI III VII), kept across key changes so
    # the harmony never drifts however often the key moves
    degrees: list[int] | None = None
    bpm: float = Field(default=120.0, ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1])
    beats_per_bar: int = Field(default=4, ge=2, le=15)
    beat_unit: int = 4
    energy: int = Field(default=5, ge=ENERGY_RANGE[0], le=ENERGY_RANGE[1])

    @field_validator("chords")
    @classmethod
    def _chords_parse(cls, value: list[str]) -> list[str]:
        for symbol in value:
            chord_tones(symbol)
        if not value:
            raise ValueError("a progression needs at least one chord")
        return value

    @property
    def key(self) -> str:
        return f"{self.tonic[0].upper()}{self.tonic[1:]} {self.mode}"

    @property
    def scale(self) -> list[str]:
        return spell_scale(self.tonic, self.mode)

    @property
    def time_signature(self) -> str:
        return f"{self.beats_per_bar}/{self.beat_unit}"

    @property
    def cycle_seconds(self) -> float:
        """One cycle is one bar."""
        return self.beats_per_bar * (4 / self.beat_unit) * 60.0 / self.bpm

    def chord_pcs(self, bar: int) -> tuple[int, list[int]]:
        """Root and chord pitch classes of the chord at `bar` (the progression loops)."""
        return chord_tones(self.chords[bar % len(self.chords)])

    def scale_pcs(self) -> set[int]:
        return {pitch_class(n) for n in self.scale}

    def view(self) -> dict[str, object]:
        return {
            "key": self.key,
            "scale": self.scale,
            "chords": list(self.chords),
            "bpm": self.bpm,
            "time_signature": self.time_signature,
            "energy": self.energy,
        }


def progression_degrees(chords: list[str], scale: list[str]) -> list[int]:
    """The scale degree (0-based) of each chord's root; a root off the scale takes the
    nearest degree below it."""
    pcs = [pitch_class(n) for n in scale]
    out = []
    for symbol in chords:
        root, _ = chord_tones(symbol)
        below = [i for i in range(7) if (root - pcs[i]) % 12 <= 2]
        out.append(pcs.index(root) if root in pcs else (below[0] if below else 0))
    return out


def reharmonize(degrees: list[int], scale: list[str]) -> list[str]:
    """The progression's degrees as diatonic chords of `scale`."""
    return [diatonic_triad(d, scale) for d in degrees]


def apply_directive(context: MusicalContext, directive: Directive) -> tuple[MusicalContext, list[str]]:
    """The context after `directive`, and the names of the fields it changed."""
    data = context.model_dump()
    changed: list[str] = []
    key = directive.key or ((context.tonic, directive.mode) if directive.mode else None)
    if key:
        tonic, mode = key[0], key[1] or context.mode  # a key named without a mode keeps the mode
        try:
            new_scale = spell_scale(tonic, mode)
        except TheoryError as exc:
            raise InvalidInput(f"cannot play in {tonic} {mode}: {exc}") from exc
        if directive.chords is None:
            degrees = context.degrees if context.degrees is not None else progression_degrees(context.chords, context.scale)
            data["chords"], data["degrees"] = reharmonize(degrees, new_scale), degrees
        data.update(tonic=tonic, mode=mode)
        changed.append("key")
    if directive.chords is not None:
        scale = spell_scale(data["tonic"], data["mode"])
        for symbol in directive.chords:
            try:
                root, _ = chord_tones(symbol)
            except TheoryError as exc:
                raise InvalidInput(f"{exc}; chords are symbols like Cm Ab Eb Bb") from exc
            if name_in_scale(root, scale) is None:
                raise InvalidInput(
                    f"chord {symbol} has its root outside {data['tonic']} {data['mode']}; "
                    "change the key too (e.g. 'key of A minor, chords Am F C G')"
                )
        data["chords"] = list(directive.chords)
        data["degrees"] = progression_degrees(data["chords"], scale)
        changed.append("chords")
    if directive.bpm is not None or directive.bpm_delta:
        bpm = directive.bpm if directive.bpm is not None else data["bpm"] + directive.bpm_delta
        data["bpm"] = float(clamp_tempo(bpm))
        changed.append("bpm")
    if directive.time_signature:
        data["beats_per_bar"], data["beat_unit"] = directive.time_signature
        changed.append("time_signature")
    if directive.energy is not None or directive.energy_delta:
        energy = directive.energy if directive.energy is not None else data["energy"] + directive.energy_delta
        data["energy"] = int(min(10, max(1, energy)))
        changed.append("energy")
    return MusicalContext.model_validate(data), changed
