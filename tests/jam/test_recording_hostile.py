"""Every recording artifact exports after any pattern the band accepted (#24): the hostile
pattern corpus, absurd legatos and slowed notes, each given to a member as the boss's own code
(accepted or refused), then a few cycles played and jam.mid, jam.wav, transcript.md,
rounds.jsonl and "Keep this" (the recording arranged as a song project) all written — no note
longer than the recording, and the transcript never waits for the MIDI."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import mido
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bandstand.errors import InvalidInput
from bandstand.jam.engine import JamEngine
from bandstand.jam.persona import resolve_members
from bandstand.jam.recording import export
from bandstand.jam.transport import Transport
from bandstand.patterns.to_score import MAX_HOLD_CYCLES
from bandstand.producer.jams.jam_song import jam_to_song
from tests.patterns.hostile_corpus import ALL

ORDINARY = [
    'note("60")', 'note("c3 e3 g3").s("piano")', 's("bd*4, hh*8")', 'note("<c3 [e3 g3]>").s("sawtooth")',
    's("<bd bd bd bd [bd*1024]>")', 'note("<c2 ab1 eb2 bb1>").s("sawtooth").slow(4)',
]
SUFFIXES = st.one_of(
    st.just(""),
    st.floats(min_value=0, max_value=1e15, allow_nan=False).map(lambda x: f".legato({x!r})"),
    st.floats(min_value=1, max_value=1e6, allow_nan=False).map(lambda x: f".slow({x!r})"),
    st.integers(min_value=1, max_value=10**9).map(lambda n: f".legato({n}).slow({n})"),
)
CYCLES = 6


async def _record(code: str, folder: Path) -> tuple[bool, dict[str, Path]]:
    engine = JamEngine(resolve_members(["beat", "groove"]))
    transport = Transport(engine)
    await engine.start()
    try:
        try:
            await engine.override_member_code("GROOVE", code)
            accepted = True
        except InvalidInput:
            accepted = False
        for _ in range(CYCLES):
            transport.advance()
        transcript_only = export(engine, transport.played, folder / "chat", wav=False, midi=False)
        assert set(transcript_only) == {"transcript", "rounds"}
        return accepted, export(engine, transport.played, folder / "rec", wav=True)
    finally:
        await engine.stop()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(ORDINARY + ALL), suffix=SUFFIXES)
@example(base='note("60")', suffix=".legato(1000000)")  # the issue's: every file was a 422
@example(base='note("60")', suffix=".slow(1000000)")
@example(base='s("bd*8")', suffix=".legato(1e300)")
def test_every_recording_artifact_exports_after_any_pattern(base: str, suffix: str) -> None:
    code = base + suffix
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        accepted, paths = asyncio.run(_record(code, folder))
        assert {"midi", "wav", "transcript", "rounds"} <= set(paths)
        assert paths["transcript"].read_text().startswith("# bandstand jam") and paths["rounds"].read_text()
        assert paths["wav"].read_bytes()[:4] == b"RIFF"
        song = mido.MidiFile(paths["midi"])
        bar = 4 * song.ticks_per_beat  # every cycle is a 4/4 bar
        for track in song.tracks:
            tick, on = 0, {}
            for message in track:
                tick += message.time
                if message.type == "note_on" and message.velocity:
                    on[(message.channel, message.note)] = tick
                elif message.type in {"note_on", "note_off"} and (message.channel, message.note) in on:
                    start = on.pop((message.channel, message.note))
                    assert tick <= CYCLES * bar and tick - start <= MAX_HOLD_CYCLES * bar, (code, start, tick)
        kept = jam_to_song(paths["midi"].parent, folder / "song")  # what "Keep this" does with it
        assert (kept.session.session_dir / "midi" / "full-arrangement.mid").is_file(), (code, accepted)
