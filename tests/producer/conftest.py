from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bandstand.files import TMP_SUFFIX
from bandstand.producer.sessions.projects import ProjectSession, create_from_song
from bandstand.studio import Provenance, SeededIds

from ..studio.songs import small_song


@pytest.fixture
def session(tmp_path: Path) -> ProjectSession:
    """A fresh project from the small song (revision 1), with seeded ids."""
    return create_from_song(tmp_path / "session", small_song(), Provenance(prompt="small", seeds={"song": 1}),
                            ids=SeededIds(11))


def snapshot(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under `root` with its bytes — but the lock, the `skip` folders and the
    temporary files a killed process leaves (which `bandstand sessions clean` removes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock" and not p.name.endswith(TMP_SUFFIX)
            and not str(p.relative_to(root)).startswith(skip)}


@pytest.fixture(scope="session")
def composed(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """`composed(prompt, seed, bars)` → a session folder composed once per test run (read only)."""
    from bandstand.producer.composing.compose import compose_song

    made: dict[tuple[str, int, int], Path] = {}

    def make(prompt: str, seed: int = 3, bars: int = 32) -> Path:
        key = (prompt, seed, bars)
        if key not in made:
            out = tmp_path_factory.mktemp("composed")
            result = compose_song(prompt, seed=seed, bars=bars, out_dir=str(out), render_audio=False,
                                  render_pianoroll=False).result
            assert result.status == "completed", result.state.error
            made[key] = result.session_dir
        return made[key]
    return make


@pytest.fixture
def composed_copy(composed: Callable[..., Path], tmp_path: Path) -> Callable[..., Path]:
    """`composed_copy(prompt, seed, bars)` → this test's own copy of a composed session."""
    def copy(prompt: str = "funk groove", seed: int = 3, bars: int = 32) -> Path:
        source = composed(prompt, seed, bars)
        target = tmp_path / "copies" / source.name
        shutil.copytree(source, target)
        return target
    return copy
