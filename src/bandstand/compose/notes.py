"""The session's notes: Markdown pages a producer reads to rebuild the song in a DAW.

`preset-assignments.md`, `effect-chains.md`, `arrangement-map.md` and
`producer-notes.md` are pure functions of the stage outputs (no clock, no
paths outside the session), so the same run always writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.sound import SoundPlan


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def preset_assignments(sound: SoundPlan | None) -> str:
    if sound is None:
        return "# Preset assignments\n\nStage 5 (sound) did not run; every part uses its General MIDI program.\n"
    rows = [(p.role, f"{p.program} {p.program_name}", p.preset.name, f"{p.preset.confidence:.2f}",
             ", ".join(a.name for a in p.alternatives), p.preset.reasoning) for p in sound.parts]
    return ("# Preset assignments\n\nEvery MIDI file plays with its General MIDI program; the preset is what to "
            "load instead in a DAW.\n\n" + _table(
                ("role", "GM program", "preset", "confidence", "alternatives", "why"), rows) + "\n")


def effect_chains(sound: SoundPlan | None) -> str:
    if sound is None:
        return "# Effect chains\n\nStage 5 (sound) did not run; no effect chains were planned.\n"
    out = ["# Effect chains", ""]
    for part in sound.parts:
        out.append(f"## {part.role}")
        out.append("")
        for i, fx in enumerate(part.effects, 1):
            params = ", ".join(f"{k}={v}" for k, v in fx.params.items())
            out.append(f"{i}. **{fx.type}** ({params}) — {fx.reason}")
        out.append("")
    if sound.buses:
        out.append("## Buses")
        out.append("")
        for bus in sound.buses:
            params = ", ".join(f"{k}={v}" for k, v in bus.effect.params.items())
            out.append(f"- **{bus.name}**: {bus.effect.type} ({params}) — {bus.effect.reason}")
        out.append("")
    return "\n".join(out)


def arrangement_map(arrangement: ArrangementPlan, intent: Intent) -> str:
    bpb = intent.time_signature[0]
    rows = [(s.name, s.kind, s.start_bar, s.end_bar, s.bars, f"{(s.start_bar - 1) * bpb}", f"{s.energy:.2f}",
             ", ".join(s.roles), s.transition) for s in arrangement.sections]
    fallback = " (generic fallback)" if arrangement.generic_fallback else ""
    arc = "".join(" ▁▂▃▄▅▆▇█"[min(8, round(e * 8))] for e in arrangement.bar_energy)
    return (f"# Arrangement map\n\nForm: {arrangement.form_name}{fallback}, {arrangement.total_bars} bars.\n\n"
            + _table(("section", "kind", "from bar", "to bar", "bars", "start beat", "energy", "playing",
                      "transition out"), rows)
            + f"\n\nEnergy per bar:\n\n```\n{arc}\n```\n")


def producer_notes(intent: Intent, arrangement: ArrangementPlan, sound: SoundPlan | None,
                   files: Sequence[tuple[str, str, str]], parts: Sequence[tuple[str, int, str]],
                   progression: str, seed: int) -> str:
    """How to rebuild the session in a DAW. `files` rows: (path, type, description); `parts` rows:
    (role, GM program, file)."""
    tempo = intent.tempo_analysis
    feel = f" (half-time feel: {tempo.perceived_bpm:g})" if tempo.half_time else ""
    num, den = intent.time_signature
    lines = [
        "# Producer notes", "",
        f"Prompt: “{intent.raw_prompt.strip()}”", "",
        f"- Genre: {', '.join(intent.genre)}" + (f" (with {', '.join(intent.sub_genre)})" if intent.sub_genre else ""),
        f"- Tempo: {intent.tempo:g} BPM{feel} — set the DAW project tempo to {intent.tempo:g}",
        f"- Time signature: {num}/{den}",
        f"- Key: {intent.key} {intent.mode}",
        f"- Progression: {progression}",
        f"- Length: {arrangement.total_bars} bars",
        f"- Seed: {seed} (run again with --seed {seed} for the same song)",
        "",
        "## Tracks", "",
        "Import `midi/full-arrangement.mid` (one track per part, markers at every section), or drag the "
        "single-part files onto their own tracks at bar 1.", "",
    ]
    for role, program, path in parts:
        preset = sound.for_role(role) if sound else None
        name = preset.preset.name if preset else "GM program"
        fx = ", ".join(e.type for e in preset.effects) if preset else "none planned"
        lines.append(f"- **{role}** — GM program {program}, preset {name}, file `{path}`; effects: {fx}")
    lines += ["", "## Arrangement markers", ""]
    lines += [f"- bar {s.start_bar}: {s.name} ({s.bars} bars, energy {s.energy:.2f})" for s in arrangement.sections]
    if intent.influence_analysis:
        lines += ["", "## Influences", ""]
        lines += [f"- {a.name}: {'; '.join(a.traits)}" for a in intent.influence_analysis]
    if intent.constraints:
        lines += ["", "## Constraints honoured", ""]
        lines += [f"- {c.kind}: “{c.text}”" for c in intent.constraints]
    lines += ["", "## Files", "", _table(("file", "type", "what"), files), ""]
    return "\n".join(lines)
