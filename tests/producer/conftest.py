from __future__ import annotations

from pathlib import Path

import pytest

from bandstand.files import TMP_SUFFIX
from bandstand.producer.projects import ProjectSession, create_from_song
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
