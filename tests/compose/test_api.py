"""`bandstand.compose.compose()` end to end through the real stages: the session
folder, the manifest, determinism, parallel parts, pause/approve, cancel and
resume, partial results, and bad input that leaves nothing behind."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import mido
import pretty_midi
import pytest

import bandstand
from bandstand.compose import ComposeResult, compose, resume
from bandstand.compose.api import Pipeline
from bandstand.compose.checkpoint import FileCheckpoint
from bandstand.compose.stages import default_part
from bandstand.errors import CheckpointError, InvalidInput, OutputNotWritable, UserError

PROMPT = "Frank Ocean meets Burial, late-night vibes"
FAST = {"render_audio": False, "render_pianoroll": False}
LAYOUT = {
    "manifest.json", "state/song-state.json", "state/pipeline-state.json", "state/song.json",
    "progression/main.progression",
    "midi/drums.mid", "midi/bass.mid", "midi/chords.mid", "midi/lead.mid", "midi/pad.mid",
    "midi/full-arrangement.mid", "notes/preset-assignments.md", "notes/effect-chains.md",
    "notes/arrangement-map.md", "notes/producer-notes.md", "notes/mix.md", "notes/lead-sheet.musicxml",
}


def digest(root: Path, folders: tuple[str, ...] = ("midi", "progression", "notes", "audio", "images")) -> dict[str, str]:
    """sha256 of every file in the given folders of a session (the parts that must repeat exactly)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in sorted((root / folder).glob("*")) if p.is_file()}


def files_of(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.name.endswith(".bak")}


@pytest.fixture(scope="module")
def song(tmp_path_factory: pytest.TempPathFactory) -> ComposeResult:
    return compose(PROMPT, seed=7, bars=32, out_dir=str(tmp_path_factory.mktemp("out")), **FAST)


def test_session_folder_has_the_spec_layout(song: ComposeResult) -> None:
    assert song.status == "completed"
    assert song.session_dir.name == song.state.session_id
    assert song.session_dir.name.startswith("session-") and len(song.session_dir.name) == len("session-20260209-a1b2c3")
    assert files_of(song.session_dir) == LAYOUT
    assert not list(song.session_dir.rglob("*.tmp"))


def test_manifest(song: ComposeResult) -> None:
    m = song.manifest
    assert m is not None
    assert m["session_id"] == song.state.session_id and m["pipeline_id"] == song.state.pipeline_id
    assert m["prompt"] == PROMPT and m["seed"] == 7 and m["bandstand_version"] == bandstand.__version__
    assert m["tempo"] == 135 and m["half_time"] is True and m["time_signature"] == "4/4"
    assert m["total_bars"] == 32 and m["track_count"] == 5
    assert {f["path"] for f in m["files"]} == LAYOUT  # itself too (it used to leave itself out)
    assert all((song.session_dir / f["path"]).stat().st_size == f["size"] for f in m["files"]
               if f["path"] != "state/pipeline-state.json")  # the live checkpoint, saved again after output
    # the output node wrote the manifest last: it is completed and took time (it said "running", 0 ms)
    assert m["nodes"]["output"]["status"] == "completed" and m["nodes"]["output"]["duration_ms"] > 0
    assert all(n["status"] == "completed" for n in m["nodes"].values())
    assert all(f["size"] > 0 and f["type"] and f["description"] for f in m["files"])
    assert set(m["nodes"]) == {"intent", "harmony", "arrangement", "parts:drums", "parts:bass", "parts:chords",
                               "parts:lead", "parts:pad", "sound", "assembly", "validation", "output"}
    assert all({"duration_ms", "tool_calls", "retries"} <= set(s) for s in m["nodes"].values())
    assert m["quality"]["axes"].keys() >= {"harmony", "rhythm", "arrangement", "vibe"}
    assert m["backends"]


def test_every_midi_file_reads_back_with_mido_and_pretty_midi(song: ComposeResult) -> None:
    full = mido.MidiFile(song.session_dir / "midi" / "full-arrangement.mid")
    assert full.type == 1 and full.ticks_per_beat == 480 and len(full.tracks) == 6
    markers = [msg.text for msg in full.tracks[0] if msg.type == "marker"]
    assert markers == [s["name"] for s in song.manifest["sections"]]  # type: ignore[index]
    total = 0
    for role in ("drums", "bass", "chords", "lead", "pad"):
        path = song.session_dir / "midi" / f"{role}.mid"
        notes = sum(1 for t in mido.MidiFile(path).tracks for m in t if m.type == "note_on" and m.velocity > 0)
        pm = pretty_midi.PrettyMIDI(str(path))
        assert notes > 0 and sum(len(i.notes) for i in pm.instruments) == notes
        assert pm.instruments[0].is_drum == (role == "drums")
        total += notes
    assert sum(len(i.notes) for i in pretty_midi.PrettyMIDI(str(song.session_dir / "midi/full-arrangement.mid")).instruments) == total


def test_notes_and_state_files(song: ComposeResult) -> None:
    producer = (song.session_dir / "notes" / "producer-notes.md").read_text(encoding="utf-8")
    intent = song.state.intent
    assert intent is not None
    assert "135 BPM" in producer and f"{intent.key} {intent.mode}" in producer
    for role in ("drums", "bass", "chords", "lead", "pad"):
        assert f"`midi/{role}.mid`" in producer
    song_state = json.loads((song.session_dir / "state" / "song-state.json").read_text(encoding="utf-8"))
    assert song_state["parts"] == ["drums", "bass", "chords", "lead", "pad"]
    completed = [h["node"] for h in song_state["history"] if h["action"] == "completed"]
    assert completed[:3] == ["intent", "harmony", "arrangement"]
    assert set(completed) == set(song.state.nodes) - {"output"}  # output is noted after it wrote the file
    state = json.loads((song.session_dir / "state" / "pipeline-state.json").read_text(encoding="utf-8"))
    assert state["status"] == "completed" and state["seed"] == 7


def test_result_summary_has_the_json_fields(song: ComposeResult) -> None:
    data = song.summary()
    for key in ("session_dir", "status", "seed", "intent", "sections", "parts", "files", "quality", "timings_ms"):
        assert key in data
    for key in ("genre", "tempo", "key", "mode", "half_time", "ambiguities"):
        assert key in data["intent"]
    json.dumps(data)


def test_same_prompt_and_seed_give_byte_identical_files(song: ComposeResult, tmp_path: Path) -> None:
    again = compose(PROMPT, seed=7, bars=32, out_dir=str(tmp_path), **FAST)
    assert digest(again.session_dir) == digest(song.session_dir)
    other = compose(PROMPT, seed=8, bars=32, out_dir=str(tmp_path), **FAST)
    assert digest(other.session_dir)["midi/full-arrangement.mid"] != digest(song.session_dir)["midi/full-arrangement.mid"]


def test_parts_run_concurrently(tmp_path: Path) -> None:
    """Each part waits at a barrier that only opens when all five are running at once."""
    barrier = threading.Barrier(5, timeout=20)

    def together(role: str, *args: Any) -> Any:
        barrier.wait()
        return default_part(role, *args)

    result = compose("house music", seed=3, bars=16, out_dir=str(tmp_path), handlers={"part": together}, **FAST)
    assert result.status == "completed" and not barrier.broken


def test_part_seeds_do_not_depend_on_the_other_parts(tmp_path: Path) -> None:
    """Seeds are derived per part, so adding a part does not move the others' seeds."""
    seen: dict[str, list[int]] = {}

    def record(role: str, intent: Any, harmony: Any, arrangement: Any, seed: int, overrides: Any) -> Any:
        seen.setdefault(role, []).append(seed)
        return default_part(role, intent, harmony, arrangement, seed, overrides)

    compose("house music", seed=5, bars=16, parts="drums,bass", out_dir=str(tmp_path), handlers={"part": record}, **FAST)
    compose("house music", seed=5, bars=16, parts="drums,bass,lead", out_dir=str(tmp_path), handlers={"part": record},
            **FAST)
    assert len(set(seen["drums"])) == 1 and len(set(seen["bass"])) == 1
    assert len({seen["drums"][0], seen["bass"][0], seen["lead"][0]}) == 3


def test_approval_gate_pause_and_approve_gives_the_same_song(tmp_path: Path) -> None:
    paused = compose(PROMPT, seed=7, bars=16, approval_gates=[2], out_dir=str(tmp_path / "a"), **FAST)
    assert paused.status == "paused" and paused.state.paused_at == "harmony"  # step 2 is harmony
    assert not (paused.session_dir / "manifest.json").exists()
    done = resume(paused.session_dir, approve=True)
    assert done.status == "completed"
    straight = compose(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "b"), **FAST)
    assert digest(done.session_dir) == digest(straight.session_dir)


def test_rejecting_one_part_regenerates_it_and_moves_nothing_else(tmp_path: Path) -> None:
    """A gate on one part node: reject redoes that node alone, with a new seed variant."""
    answers = iter(["reject", "approve"])
    redone = compose(PROMPT, seed=7, bars=16, approval_gates=["parts:bass"], out_dir=str(tmp_path / "a"),
                     approver=lambda state, node, summary: next(answers), **FAST)
    straight = compose(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "b"), **FAST)
    assert redone.status == "completed" and redone.state.nodes["parts:bass"].variant == 1
    assert {n: r.variant for n, r in redone.state.nodes.items() if n != "parts:bass"} == \
        {n: 0 for n in redone.state.nodes if n != "parts:bass"}
    a, b = digest(redone.session_dir), digest(straight.session_dir)
    assert a["midi/bass.mid"] != b["midi/bass.mid"]
    for role in ("drums", "chords", "lead", "pad"):
        assert a[f"midi/{role}.mid"] == b[f"midi/{role}.mid"]


def test_cancel_then_resume_gives_the_same_song(tmp_path: Path) -> None:
    holder: dict[str, Pipeline] = {}

    def cancel_in_parts(role: str, *args: Any) -> Any:
        holder["p"].cancel()
        return default_part(role, *args)

    pipeline = Pipeline.create(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "a"), handlers={"part": cancel_in_parts},
                               **FAST)
    holder["p"] = pipeline
    cancelled = pipeline.run()
    assert cancelled.status == "cancelled" and cancelled.state.recovery.last_successful_node == "arrangement"
    assert {r.status for r in cancelled.state.group("parts")} == {"pending"}
    resumed = resume(cancelled.session_dir)
    assert resumed.status == "completed" and resumed.state.recovery.is_resumed
    assert resumed.state.recovery.previous_pipeline_id == cancelled.state.pipeline_id
    straight = compose(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "b"), **FAST)
    assert digest(resumed.session_dir) == digest(straight.session_dir)


def test_validation_failure_is_partial_but_the_song_is_written(tmp_path: Path) -> None:
    def broken(ctx: Any) -> None:
        raise RuntimeError("validator crashed")

    result = compose("trap beat", seed=1, bars=16, out_dir=str(tmp_path), handlers={"validation": broken},
                     max_retries_per_stage=1, **FAST)
    assert result.status == "completed_partial"
    assert result.state.nodes["validation"].retry_count == 1
    assert (result.session_dir / "midi" / "full-arrangement.mid").exists()
    assert result.manifest is not None and result.manifest["quality"] is None


def test_output_failure_is_partial_with_a_hint(tmp_path: Path) -> None:
    def broken(ctx: Any) -> None:
        raise OSError(28, "No space left on device")

    result = compose("trap beat", seed=1, bars=16, out_dir=str(tmp_path), handlers={"output": broken},
                     max_retries_per_stage=0, **FAST)
    assert result.status == "completed_partial"
    assert result.state.error is not None and result.state.error.code == "FILE_WRITE_FAILED"
    assert "resume" in result.state.error.recovery_hint


def test_skipping_sound_and_arrangement(tmp_path: Path) -> None:
    result = compose("lofi beat", seed=2, bars=16, skip_stages=["arrangement", 5], out_dir=str(tmp_path), **FAST)
    assert result.status == "completed"
    assert [result.state.nodes[n].status for n in ("arrangement", "sound")] == ["skipped", "skipped"]
    assert result.manifest is not None and [s["name"] for s in result.manifest["sections"]] == ["Loop"]
    assert "did not run" in (result.session_dir / "notes" / "preset-assignments.md").read_text(encoding="utf-8")


def test_constraints_shape_the_parts(tmp_path: Path) -> None:
    result = compose("Lo-fi piano with 808s, no drums except kick", seed=4, bars=16, out_dir=str(tmp_path), **FAST)
    assert "sub_bass" in result.song_state.parts and "bass" not in result.song_state.parts
    drums = mido.MidiFile(result.session_dir / "midi" / "drums.mid")
    pitches = {m.note for t in drums.tracks for m in t if m.type == "note_on" and m.velocity > 0}
    assert pitches and pitches <= {35, 36}


@pytest.mark.parametrize(("options", "error", "match"), [
    ({"prompt": "   "}, InvalidInput, "empty"),
    ({"bars": 0}, InvalidInput, "bars"),
    ({"bars": 100000}, InvalidInput, "bars"),
    ({"key": "H"}, InvalidInput, "unknown key"),
    ({"mode": "sideways"}, InvalidInput, "unknown mode"),
    ({"parts": "drums,kazoo"}, InvalidInput, "kazoo"),
    ({"skip_stages": [4]}, InvalidInput, "critical"),
    ({"approval_gates": [12]}, InvalidInput, "unknown step"),
    ({"approval_gates": ["parts:kazoo"]}, InvalidInput, "unknown step"),
    ({"skip_stages": ["parts"]}, InvalidInput, "critical"),
])
def test_bad_input_is_one_clear_error_and_writes_nothing(tmp_path: Path, options: dict[str, Any],
                                                          error: type[UserError], match: str) -> None:
    prompt = options.pop("prompt", "trap beat")
    with pytest.raises(error, match=match):
        compose(prompt, out_dir=str(tmp_path / "out"), **options)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_unwritable_output_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(OutputNotWritable, match="--out"):
        compose("trap beat", out_dir=str(blocker / "sessions"))


def test_resume_of_a_corrupt_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    result = compose("trap beat", seed=1, bars=16, approval_gates=[1], out_dir=str(tmp_path), **FAST)
    state = result.session_dir / "state" / "pipeline-state.json"
    state.write_text('{"version": "1.0.0", "raw_prompt": 3}', encoding="utf-8")
    (result.session_dir / "state" / "pipeline-state.json.bak").unlink(missing_ok=True)
    with pytest.raises(CheckpointError, match="corrupt"):
        resume(result.session_dir)
    with pytest.raises(InvalidInput, match="no session folder"):
        resume(tmp_path / "nope")


def test_top_level_api(tmp_path: Path) -> None:
    import bandstand.compose as pkg

    assert set(pkg.__all__) == {"ComposeResult", "PipelineConfig", "PipelineState", "compose", "resume"}
    result = bandstand.compose("ambient drone", seed=1, bars=8, out_dir=str(tmp_path), **FAST)
    assert isinstance(result, ComposeResult) and result.status == "completed"


def test_a_failed_run_resumes_from_the_failed_stage(tmp_path: Path) -> None:
    def broken(ctx: Any) -> None:
        raise RuntimeError("harmony engine exploded")

    failed = compose(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "a"), handlers={"harmony": broken},
                     max_retries_per_stage=0, **FAST)
    assert failed.status == "failed" and failed.state.nodes["harmony"].status == "failed"
    assert failed.state.error is not None and "exploded" in failed.state.error.message
    resumed = resume(failed.session_dir)
    assert resumed.status == "completed" and resumed.state.nodes["harmony"].retry_count == 0
    straight = compose(PROMPT, seed=7, bars=16, out_dir=str(tmp_path / "b"), **FAST)
    assert digest(resumed.session_dir) == digest(straight.session_dir)


def test_a_run_resumed_at_its_last_node_restores_every_part_first(song: ComposeResult, tmp_path: Path) -> None:
    """The checkpoint says everything but output is done: resume restores the plans, then the
    parts (known only once the arrangement is), then the song assembled from them."""
    again = compose(PROMPT, seed=7, bars=32, out_dir=str(tmp_path), **FAST)
    checkpoint = FileCheckpoint.in_session(again.session_dir)
    state = checkpoint.load()
    state.nodes["output"].status, state.status = "pending", "running"
    checkpoint.save(state)
    for path in (again.session_dir / "midi").glob("*.mid"):
        path.unlink()
    resumed = resume(again.session_dir)
    assert resumed.status == "completed" and [t.role for t in resumed.song.tracks] == [  # type: ignore[union-attr]
        "drums", "bass", "chords", "lead", "pad"]
    assert digest(again.session_dir) == digest(song.session_dir)


def test_finished_runs_leave_no_threads_behind(tmp_path: Path) -> None:
    import time

    before = {t.ident for t in threading.enumerate()}
    for seed in range(3):
        compose("house", seed=seed, bars=8, out_dir=str(tmp_path), **FAST)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        extra = [t for t in threading.enumerate() if t.ident not in before and t.name.startswith("compose-")]
        if not extra:
            break
        time.sleep(0.05)
    assert not extra
