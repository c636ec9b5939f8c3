"""Stage 8 — output: notes pages, overwriting a session cleanly, renders and what
happens when a render cannot be made."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest

from bandstand.compose import compose
from bandstand.compose.api import Pipeline
from bandstand.compose.harmony import progression_file
from bandstand.compose.output import write_session

FAST = {"render_audio": False, "render_pianoroll": False}


def test_notes_describe_the_song(tmp_path: Path) -> None:
    r = compose("jazz house, no reverb, 122 bpm", seed=3, bars=16, out_dir=str(tmp_path), **FAST)
    notes = r.session_dir / "notes"
    arrangement = (notes / "arrangement-map.md").read_text(encoding="utf-8")
    for section in r.manifest["sections"]:  # type: ignore[index]
        assert f"| {section['name']} |" in arrangement
    assert "Energy per bar" in arrangement
    presets = (notes / "preset-assignments.md").read_text(encoding="utf-8")
    assert presets.count("\n| ") == len(r.song_state.parts) + 1
    chains = (notes / "effect-chains.md").read_text(encoding="utf-8")
    assert "reverb_send" not in chains and "sidechain" in chains
    producer = (notes / "producer-notes.md").read_text(encoding="utf-8")
    assert "122 BPM" in producer and "no_reverb" in producer and "## Files" in producer
    main = (r.session_dir / "progression" / "main.progression").read_text(encoding="utf-8")
    assert main.strip()


def test_writing_a_session_again_overwrites_cleanly(tmp_path: Path) -> None:
    r = compose("house", seed=4, bars=8, out_dir=str(tmp_path), **FAST)
    pipeline = Pipeline.load(r.session_dir)
    pipeline.engine.restore()
    a = pipeline.engine.artifacts
    parts = {k: v for k, v in a.members("parts").items() if k in ("drums", "bass")}
    before = (r.session_dir / "notes" / "producer-notes.md").read_text(encoding="utf-8")
    out = write_session(r.session_dir, pipeline.state, a["intent"], a["harmony"], a["arrangement"], parts,
                        a["sound"], None, None, progression_file(a["harmony"]))
    assert sorted(p.name for p in (r.session_dir / "midi").glob("*.mid")) == ["bass.mid", "drums.mid"]
    assert any("no full arrangement" in d for d in out.degraded)
    assert (r.session_dir / "notes" / "producer-notes.md").read_text(encoding="utf-8") != before
    assert not list(r.session_dir.rglob("*.tmp"))


def test_wav_and_pianoroll_are_rendered(tmp_path: Path) -> None:
    r = compose("lofi hip hop", seed=5, bars=4, out_dir=str(tmp_path))
    assert r.status == "completed", r.state.error
    with wave.open(str(r.session_dir / "audio" / "full-arrangement.wav")) as wav:
        assert wav.getnchannels() == 2 and wav.getnframes() > wav.getframerate() * 4 * 4 * 60 / r.state.intent.tempo  # type: ignore[union-attr]
    assert (r.session_dir / "images" / "pianoroll.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_soundfont_degrades_to_completed_partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANDSTAND_SOUNDFONT", str(tmp_path / "missing.sf2"))
    r = compose("trap", seed=1, bars=4, out_dir=str(tmp_path), render_pianoroll=False)
    if r.status == "completed":
        pytest.skip("the renderer found another SoundFont despite BANDSTAND_SOUNDFONT")
    assert r.status == "completed_partial"
    assert r.manifest is not None and any("full-arrangement.wav" in d for d in r.manifest["degraded"])
    assert (r.session_dir / "midi" / "full-arrangement.mid").exists()
    assert not (r.session_dir / "audio" / "full-arrangement.wav").exists()
