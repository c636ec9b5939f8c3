"""`compose.api` as the producer's one face of compose (#29): cheap to import, every name it
re-exports is the defining module's own object, loaded on first use, and the two calls made
for the producer (`write_parts`, `midi_files`) give what compose itself gives."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from bandstand.compose import api
from bandstand.compose.recipe import rerun


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in sys.modules if m.startswith('bandstand'))))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_the_api_loads_none_of_compose() -> None:
    assert _loaded_after("import bandstand.compose.api") == {
        "bandstand", "bandstand.compose", "bandstand.compose.api", "bandstand.errors", "bandstand.files", "bandstand.lazy",
        "bandstand.version"}


def test_a_name_loads_its_own_module_only() -> None:
    loaded = _loaded_after("from bandstand.compose.api import SESSION_RE")
    assert "bandstand.compose.sessions" in loaded
    assert not loaded & {"bandstand.compose.engine", "bandstand.compose.stages", "bandstand.compose.runs",
                         "bandstand.compose.lexicon", "bandstand.score"}


def test_every_lazy_name_is_the_defining_modules_own() -> None:
    own = {"ComposeResult", "Pipeline", "compose", "midi_files", "planned_state", "resume", "write_parts"}
    assert set(api.__all__) == set(api._LAZY) | own
    for name, where in api._LAZY.items():
        assert getattr(api, name) is getattr(importlib.import_module(f"bandstand.compose.{where}"), name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        api.no_such_name  # noqa: B018


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> api.ComposeResult:
    out = tmp_path_factory.mktemp("songs")
    return api.compose("dark trap, 140 BPM, key of Am", seed=7, bars=8, out_dir=str(out), render_audio=False,
                       render_pianoroll=False)


def test_midi_files_are_the_files_compose_writes(composed: api.ComposeResult) -> None:
    song = api.read_session_song(composed.session_dir)
    assert song is not None
    files = api.midi_files(song)
    written = {p.name: p.read_bytes() for p in sorted((composed.session_dir / "midi").glob("*.mid"))}
    assert next(iter(files)) == "full-arrangement.mid"
    assert files == written


def test_write_parts_writes_the_parts_again_as_the_recipe_made_them(composed: api.ComposeResult) -> None:
    pipeline = api.Pipeline.load(composed.session_dir)
    pipeline.restore()
    recipe = pipeline.recipe({t.role: t.name for t in composed.song.tracks} if composed.song else {})
    made = pipeline.products()
    plans = {"intent": made.intent, "harmony": made.harmony, "arrangement": made.arrangement}
    again = api.write_parts(recipe, ["bass", "drums"], plans)
    assert list(again) == ["bass", "drums"]
    for key in again:
        assert again[key].track.notes == made.parts[key].track.notes
    assert again == rerun(recipe, ["bass", "drums"], plans=plans).parts


def test_the_session_folder_is_read_without_the_graph(composed: api.ComposeResult) -> None:
    folder = Path(composed.session_dir).parent
    loaded = _loaded_after(f"from bandstand.compose.api import list_sessions\nlist_sessions({str(folder)!r})")
    assert "bandstand.compose.engine" not in loaded


def test_a_song_planned_beside_the_graph_is_kept_as_compose_keeps_its_plans(composed: api.ComposeResult,
                                                                             tmp_path: Path) -> None:
    pipeline = api.Pipeline.load(composed.session_dir)
    pipeline.restore()
    made = pipeline.products()
    assert made.sound is not None
    root = tmp_path / "session-20260101-abcdef"
    root.mkdir()
    state = api.planned_state(root, composed.state.raw_prompt, composed.state.seed,
                              api.Plans(made.intent, made.harmony, made.arrangement), made.sound, by="a team")
    api.write_state(root, state)
    kept = api.read_state(root)
    assert (kept.session_id, kept.status, kept.intent) == (root.name, "completed", made.intent)
    assert list(kept.nodes) == ["intent", "harmony", "arrangement", "sound"]
    for name, record in kept.nodes.items():
        assert record.status == "completed" and record.summary == f"{name} (a team)"
        assert record.output == composed.state.nodes[name].output, name
