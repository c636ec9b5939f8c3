"""The craft's public surface is pinned, and the craft stands below compose and the
jam: it imports neither (it owns the situations, styles and note events it needs)."""

from __future__ import annotations

import ast
from pathlib import Path

import bandstand.craft as craft

CRAFT = Path(craft.__file__).parent


def test_public_exports_are_pinned():
    assert set(craft.__all__) == {
        "KNOBS", "PLAYERS", "ROLES", "TIME_FEELS", "Bar", "Chord", "Feel", "Idiom", "NoteEvent", "Phrase",
        "Situation", "Style", "StyleOverride", "active_in", "base_style", "pitch_near", "play", "resolve",
        "to_track",
    }
    assert set(craft.ROLES) == {"drums", "bass", "chords", "lead", "pad", "arp", "percussion", "counter_melody",
                                "sub_bass", "texture", "fx"}


def test_the_craft_imports_nothing_from_compose_or_the_jam():
    for path in CRAFT.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                assert not name.startswith(("bandstand.compose", "bandstand.jam", "bandstand.studio")), (path, name)
        assert ast.get_docstring(tree), f"{path.name} says what its concept is"
        assert len(path.read_text().splitlines()) < 420, f"{path.name} is small"
