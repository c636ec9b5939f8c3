"""The session's notes: Markdown pages a producer reads to rebuild the song in a DAW.

`preset-assignments.md`, `effect-chains.md`, `arrangement-map.md` and
`producer-notes.md` are pure functions of the stage outputs (no clock, no
paths outside the session), so the same run always writes the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bandstand.compose.metres import metre_map
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.sound import SoundPlan
from bandstand.score import Effect as MixEffect
from bandstand.score import Song, Track, audible


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def level_db(volume: float) -> str:
    """A fader's linear gain in dB, as a mixing desk shows it (−inf for 0)."""
    return "−inf dB" if volume <= 0 else f"{20 * math.log10(volume):+.1f} dB".replace("-", "−")


def pan_text(pan: float) -> str:
    """0.5 → C, 0.3 → L40, 1 → R100."""
    amount = round(abs(pan - 0.5) * 200)
    return "C" if amount == 0 else f"{'L' if pan < 0.5 else 'R'}{amount}"


def preset_name(track: Track, sound: SoundPlan | None) -> str:
    """The preset the notes name for a track: the plan's when it plays this program, else the GM sound."""
    from bandstand.compose.sound import gm_preset_name

    part = sound.for_role(track.role) if sound else None
    if part is not None and (part.preset.program == track.program or track.is_drum):
        return part.preset.name
    return gm_preset_name(track.program, track.is_drum)


def _program(track: Track) -> str:
    from bandstand.midi import GM_PROGRAMS

    return "Drum Kit (channel 10)" if track.is_drum else f"{track.program} {GM_PROGRAMS[track.program]}"


def preset_assignments(song: Song, sound: SoundPlan | None) -> str:
    """Per track: the GM program heard in every file, the preset it stands for, alternatives."""
    rows = []
    for t in song.tracks:
        part = sound.for_role(t.role) if sound else None
        same = part is not None and (part.preset.program == t.program or t.is_drum)
        rows.append((t.name, t.role, _program(t), preset_name(t, sound),
                     f"{part.preset.confidence:.2f}" if same and part else "—",
                     ", ".join(f"{a.name} (GM {a.program})" for a in part.alternatives) if part else "—",
                     part.preset.reasoning if same and part else "the General MIDI sound is what plays"))
    missing = "" if sound is not None else ("No sound plan: the sound node did not run (or there is none), so every "
                                            "part plays its General MIDI program as it is.\n\n")
    return ("# Preset assignments\n\n" + missing + "The preset named is what the WAV plays: its General MIDI program "
            "is the one in every MIDI file. The alternatives are what to load instead in a DAW.\n\n" + _table(
                ("track", "role", "GM program", "preset", "confidence", "alternatives", "why"), rows) + "\n")


def _fx(fx: MixEffect) -> str:
    params = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in fx.params.items())
    return f"**{fx.type}** ({params})" + (" — bypassed" if fx.bypass else "")


def effect_chains(song: Song, sound: SoundPlan | None) -> str:
    """Every track's insert chain and sends, and the buses, as the render applies them."""
    out = ["# Effect chains", "", "Applied in this order by the render (inserts, fader, pan, then post-fader sends).",
           ""]
    for t in song.tracks:
        part = sound.for_role(t.role) if sound else None
        reasons = [e.reason for e in part.effects] if part else []
        out += [f"## {t.name}", ""]
        for i, fx in enumerate(t.mix.inserts, 1):
            why = f" — {reasons[i - 1]}" if i - 1 < len(reasons) and part and part.effects[i - 1].type == fx.type else ""
            out.append(f"{i}. {_fx(fx)}{why}")
        if not t.mix.inserts:
            out.append("No inserts.")
        out += [f"- send to **{s.bus}** at {s.level:g}" for s in t.mix.sends]
        out.append("")
    if song.buses:
        out += ["## Buses", ""]
        for bus in song.buses:
            chain = ", ".join(_fx(fx) for fx in bus.inserts) or "no inserts"
            out.append(f"- **{bus.name}** (return {level_db(bus.volume)}): {chain}")
        out.append("")
    return "\n".join(out)


def mix_page(song: Song, sound: SoundPlan | None, target_lufs: float | None) -> str:
    """The mix at a glance: level (dB), pan, mute/solo, inserts and sends per track; the master."""
    heard = audible([t.mix for t in song.tracks])
    rows = [(t.name, t.role, preset_name(t, sound), level_db(t.mix.volume), pan_text(t.mix.pan),
             "muted" if t.mix.mute else ("solo" if t.mix.solo else ("" if h else "silent (another track is solo)")),
             ", ".join(fx.type for fx in t.mix.inserts) or "—",
             ", ".join(f"{s.bus} {s.level:g}" for s in t.mix.sends) or "—",
             ", ".join(lane.parameter for lane in t.mix.automation) or "—")
            for t, h in zip(song.tracks, heard, strict=True)]
    target = target_lufs if target_lufs is not None else (sound.target_lufs if sound else -14.0)
    return ("# Mix\n\n" + _table(("track", "role", "preset", "level", "pan", "state", "inserts", "sends",
                                    "automation"), rows)
            + f"\n\nMaster: integrated loudness {f'{target:g}'.replace('-', '−')} LUFS, true peaks under −1 dBTP (a look-ahead limiter), "
              "trailing silence trimmed. Stems in `audio/stems/` are each track after its fader (and each bus's "
              "return), not mastered.\n")


def arrangement_map(arrangement: ArrangementPlan, intent: Intent) -> str:
    bpb = intent.time_signature[0]
    metres = metre_map(intent, arrangement)
    if metres.uniform:
        rows: list[tuple[object, ...]] = [
            (s.name, s.kind, s.start_bar, s.end_bar, s.bars, f"{(s.start_bar - 1) * bpb}", f"{s.energy:.2f}",
             ", ".join(s.roles), s.transition) for s in arrangement.sections]
        head: tuple[str, ...] = ("section", "kind", "from bar", "to bar", "bars", "start beat", "energy", "playing",
                                 "transition out")
    else:  # each section in its own metre: the metre column, and start beats where the map puts them
        rows = [(s.name, s.kind, str(metres.at(s.start_bar)), s.start_bar, s.end_bar, s.bars,
                 f"{metres.start(s.start_bar):g}", f"{s.energy:.2f}", ", ".join(s.roles), s.transition)
                for s in arrangement.sections]
        head = ("section", "kind", "metre", "from bar", "to bar", "bars", "start beat", "energy", "playing",
                "transition out")
    fallback = " (generic fallback)" if arrangement.generic_fallback else ""
    arc = "".join(" ▁▂▃▄▅▆▇█"[min(8, round(e * 8))] for e in arrangement.bar_energy)
    return (f"# Arrangement map\n\nForm: {arrangement.form_name}{fallback}, {arrangement.total_bars} bars.\n\n"
            + _table(head, rows)
            + f"\n\nEnergy per bar:\n\n```\n{arc}\n```\n")


def producer_notes(intent: Intent, arrangement: ArrangementPlan, sound: SoundPlan | None,
                   files: Sequence[tuple[str, str, str]], song: Song, part_files: dict[str, str],
                   progression: str, seed: int) -> str:
    """How to rebuild the session in a DAW. `files` rows: (path, type, description); `part_files`:
    track name → its MIDI file."""
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
    for t in song.tracks:
        fx = ", ".join(e.type for e in t.mix.inserts) or "none"
        sends = ", ".join(f"{s.bus} {s.level:g}" for s in t.mix.sends) or "none"
        lines.append(f"- **{t.role}** — GM program {_program(t)}, preset {preset_name(t, sound)}, level "
                     f"{level_db(t.mix.volume)}, pan {pan_text(t.mix.pan)}, file `{part_files.get(t.name, '')}`; "
                     f"effects: {fx}; sends: {sends}")
    if sound is not None:
        lines += ["", f"Master: {sound.target_lufs:g} LUFS integrated, peaks under −1 dBTP — {sound.loudness_reason}."]
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
