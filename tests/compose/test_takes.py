"""Best of N (`--takes N`, `--quality fast|balanced|best`): each part made N times, scored
by the quality model, the best kept and every take's score recorded in the manifest — from a
real `bandstand compose` process; the recorded scores are what the takes score when made
again from the song's recipe, the recipe makes the kept take, the same prompt + seed + N give
the same files, and a wrong count or preset is one line and exit 2."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.compose.lexicon import primary_genre
from bandstand.compose.quality.takes import PRESETS, score_part
from bandstand.compose.recipe import Recipe, rerun
from bandstand.compose.state import part_node
from bandstand.producer.sessions.projects import open_project
from bandstand.score import TimeSignature

PROMPT, SEED, BARS = "funk groove in E minor", "3", "16"


def _compose_args(out: Path, *more: str) -> list[str]:
    return ["compose", PROMPT, "--seed", SEED, "--bars", BARS, "--no-audio", "--out", str(out), "--json", *more]


def _midi_digests(session: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((session / "midi").glob("*.mid"))}


@pytest.fixture(scope="module")
def four_takes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("takes")
    proc = subprocess.run([sys.executable, "-m", "bandstand", *_compose_args(out, "--takes", "4")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    (out / "printed.json").write_text(proc.stdout, encoding="utf-8")
    return Path(json.loads(proc.stdout)["session_dir"])


def test_takes_4_keeps_the_best_and_records_the_others(four_takes: Path) -> None:
    manifest = json.loads((four_takes / "manifest.json").read_text(encoding="utf-8"))
    takes = manifest["takes"]
    printed = json.loads((four_takes.parent / "printed.json").read_text(encoding="utf-8"))
    assert printed["takes"] == takes and printed["reproduce"].endswith("--takes 4")
    assert takes["count"] == 4 and set(takes["parts"]) == {"drums", "bass", "chords", "lead"}  # funk: no pad
    for role, entry in takes["parts"].items():
        scores = entry["scores"]
        assert len(scores) == 4 and all(0.0 <= s <= 1.0 for s in scores), role
        assert entry["kept"] == scores.index(max(scores)), role  # the best, the earliest of equals
    # the takes are told apart: some part's takes do not all score alike, and some part kept a later take
    assert any(len(set(e["scores"])) > 1 for e in takes["parts"].values())
    assert any(e["kept"] > 0 for e in takes["parts"].values())


def test_recorded_scores_are_the_takes_made_again(four_takes: Path) -> None:
    """Each take made again from the recipe (its seed variant) scores what the manifest says, and
    the recipe's own variant makes the kept take — so an edit regenerates from the take kept."""
    from bandstand.compose.quality.context import from_plans

    takes = json.loads((four_takes / "manifest.json").read_text(encoding="utf-8"))["takes"]["parts"]
    recipe = Recipe.model_validate(open_project(four_takes).head.provenance.recipe)
    bpb = TimeSignature(*recipe.intent.time_signature).beats_per_bar
    ctx = from_plans(bpb, recipe.harmony, recipe.arrangement, primary_genre(recipe.intent).bass_style)
    for role in ("bass", "lead"):
        node, kept = part_node(role), takes[role]["kept"]
        assert recipe.variant(node) >= kept
        for k, recorded in enumerate(takes[role]["scores"]):
            variants = {**recipe.variants, node: recipe.variant(node) - kept + k}
            made = rerun(recipe.model_copy(update={"variants": variants}), [role]).parts[role]
            assert score_part(made, ctx) == pytest.approx(recorded, abs=1e-4), (role, k)
        again = rerun(recipe, [role]).parts[role]
        assert score_part(again, ctx) == pytest.approx(max(takes[role]["scores"]), abs=1e-4)


def test_same_prompt_seed_and_takes_give_the_same_files(four_takes: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_compose_args(tmp_path, "--takes", "4")) == 0
    again = Path(json.loads(capsys.readouterr().out)["session_dir"])
    assert _midi_digests(again) == _midi_digests(four_takes)


@pytest.mark.parametrize(("more", "words"), [
    (["--takes", "0"], "--takes 0: give 1 to 8 takes"),
    (["--takes", "9"], "--takes 9: give 1 to 8 takes"),
    (["--quality", "superb"], "--quality 'superb' is not a preset; use one of fast, balanced, best"),
    (["--takes", "2", "--quality", "best"], "--takes 2 and --quality best (6 takes) disagree"),
])
def test_a_wrong_count_or_preset_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], more: list[str],
                                             words: str) -> None:
    assert run(_compose_args(tmp_path, *more)) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing written


def test_presets_name_takes() -> None:
    assert PRESETS["fast"] == 1 < PRESETS["balanced"] < PRESETS["best"] <= 8


def test_http_and_mcp_take_the_same_option(tmp_path: Path) -> None:
    """POST /api/v1/projects and the MCP compose tool pass takes / quality through `producer`."""
    import anyio
    from mcp import Client
    from starlette.testclient import TestClient

    from bandstand.jam.persona import resolve_members
    from bandstand.mcp import Band, build_server
    from bandstand.producer.sessions.library import Library
    from bandstand.producer.sessions.studio import Studio
    from bandstand.server.app import create_app
    from bandstand.server.config import ServerConfig

    token = "t" * 32
    app = create_app(ServerConfig(port=8765, token=token), resolve_members(["beat"]), studio=Studio(tmp_path / "http"))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {token}"}) as client:
        made = client.post("/api/v1/projects", json={"prompt": PROMPT, "seed": 3, "bars": 8, "quality": "balanced"})
        assert made.status_code == 201, made.text
        session = tmp_path / "http" / made.json()["projectId"]
        assert json.loads((session / "manifest.json").read_text(encoding="utf-8"))["takes"]["count"] == PRESETS["balanced"]
        refused = client.post("/api/v1/projects", json={"prompt": PROMPT, "bars": 8, "quality": "superb"})
        assert refused.status_code == 422 and "not a preset" in refused.json()["detail"]

    (tmp_path / "mcp").mkdir()
    server = build_server(Band(Library(tmp_path / "mcp", folders=True)))

    async def compose() -> dict[str, object]:
        async with Client(server) as client:
            answer = await client.call_tool("compose", {"prompt": PROMPT, "bars": 8, "seed": 3, "takes": 2,
                                                        "audio": False})
            assert not answer.is_error, answer.content[0].text
            return dict(answer.structured_content or {})

    data = anyio.run(compose)
    session = tmp_path / "mcp" / str(data["project"])
    assert json.loads((session / "manifest.json").read_text(encoding="utf-8"))["takes"]["count"] == 2
