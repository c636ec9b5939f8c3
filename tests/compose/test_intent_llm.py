"""Stage 1 with a language model: its reading of the prompt is merged into the rules'
and corrected by the lexicons. The model here is the built-in `AlgorithmicBackend`
answering through the real agent interface (JSON replies, schema, turns)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bandstand.agents import AlgorithmicBackend, TurnRequest
from bandstand.compose import compose
from bandstand.compose.intent import Extraction, decompose, extract

FAST = {"render_audio": False, "render_pianoroll": False}


def test_the_model_fills_what_the_prompt_leaves_open() -> None:
    rules = decompose("something for my late drive home")
    assert not rules.ready_to_execute
    merged = decompose("something for my late drive home",
                       extraction=Extraction(genre=["Synthwave"], tempo=100, mood=["nostalgic"], key="F#", mode="minor"))
    assert merged.ready_to_execute and merged.genre == ["synthwave"]
    assert (merged.tempo, merged.key, merged.mode) == (100, "F#", "minor")
    assert "nostalgic" in merged.mood


def test_the_prompt_wins_and_the_tables_correct_the_model() -> None:
    i = decompose("Trap beat, 140 BPM, key of Am",
                  extraction=Extraction(genre=["trap", "glitch-hop-wave"], tempo=70, key="H", mode="ionian-ish",
                                        influences=["Metro Boomin", "Nobody Famous"]))
    assert i.tempo == 140 and (i.key, i.mode) == ("A", "minor")
    assert i.genre == ["trap"] and i.influences == ["Metro Boomin"]
    dropped = next(a for a in i.ambiguities if a.field == "extraction")
    assert dropped.severity == "optional"
    assert "glitch-hop-wave" in dropped.reason and "Nobody Famous" in dropped.reason
    assert i.ready_to_execute


def test_model_instruments_and_hints_map_through_the_lexicons() -> None:
    i = decompose("a chill tune", extraction=Extraction(genre=["lofi"], instruments=["Rhodes", "upright bass"],
                                                        structure_hints=["no chorus", "long intro"], bars=24))
    assert {r.role for r in i.instrument_requests} == {"chords", "bass"}
    assert {"no chorus", "long intro"} <= set(i.structure_hints)
    assert i.duration.min_bars == i.duration.max_bars == 24


def reader(request: TurnRequest) -> dict[str, Any]:
    assert request.schema is not None and "genre" in request.schema["properties"]
    return {"genre": ["bossa nova"], "tempo": 128, "mood": ["romantic"], "key": "D", "mode": "major"}


def test_extract_talks_to_a_real_backend() -> None:
    got = extract(AlgorithmicBackend(reader), "a love song for a beach bar", seed=1)
    assert got.genre == ["bossa nova"] and got.tempo == 128


def test_compose_with_an_intent_backend(tmp_path: Path) -> None:
    r = compose("a love song for a beach bar", seed=1, bars=8, out_dir=str(tmp_path),
                intent_backend=AlgorithmicBackend(reader), **FAST)
    assert r.status == "completed"
    assert r.intent.genre == ["bossa nova"] and r.intent.key == "D"  # type: ignore[union-attr]
    assert [c.name for c in r.state.nodes["intent"].tool_calls] == ["llm_extract", "decompose"]
    assert r.manifest is not None and r.manifest["backends"]["intent"] == "rule-based + algorithmic"


def test_an_unreadable_model_reply_leaves_the_rules_to_read_the_prompt(tmp_path: Path) -> None:
    # it was LLM_PARSE_FAILED, retried until the run failed
    r = compose("a jazz love song", seed=1, bars=8, out_dir=str(tmp_path), max_retries_per_stage=1,
                intent_backend=AlgorithmicBackend(lambda req: "I think it should be jazzy!"), **FAST)
    assert r.status == "completed"
    rec = r.state.nodes["intent"]
    assert rec.attempts == [] and "the rules alone" in rec.summary
    assert r.intent is not None and r.intent.genre == ["jazz"]
    warning = next(a for a in r.intent.ambiguities if a.field == "extraction")
    assert warning.severity == "optional" and "could not be used" in warning.reason
