"""The studio's public names are pinned; it sits on score and theory (no compose, jam, server or LLM)."""

from __future__ import annotations

import ast
from pathlib import Path

import bandstand.studio as studio

SRC = Path(studio.__file__).resolve().parent


def test_studio_exports_are_pinned() -> None:
    assert sorted(studio.__all__) == sorted([
        "NAME_MAX", "PHRASE_BARS", "TERMINAL", "TRANSITIONS", "AftertouchEvent", "AutomationLaneSpec",
        "AutomationPointSpec", "BusSpec", "CCEvent", "Change", "EffectSpec", "EventChange", "HeadPointer",
        "HistoryEntry", "IdIssuer", "KeyChange", "Marker", "NoteChange", "NoteDelta", "NoteEvent", "Phrase", "PitchBendEvent",
        "ProgramChangeEvent", "Project", "Provenance", "RandomIds", "Region", "RevisionStore", "Section",
        "SeededIds", "SendSpec", "MetreChange", "TempoChange", "TimeSignature", "Track", "Variation", "VariationState",
        "VariationStore", "build_phrases", "commit_project", "describe_changes", "diff_lines", "from_song",
        "merge_song", "new_variation", "note_delta", "project_changes", "to_song", "transition",
    ])
    for name in studio.__all__:
        assert getattr(studio, name) is not None


def test_the_studio_sits_on_score_only() -> None:
    allowed = ("bandstand.studio", "bandstand.score", "bandstand.theory", "bandstand.errors", "bandstand.files")
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bandstand"):
                assert node.module.startswith(allowed) or node.module == "bandstand", f"{path.name}: {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("bandstand.") or alias.name.startswith(allowed), path.name


def test_tools_exports_are_pinned() -> None:
    import bandstand.studio.tools as tools

    assert sorted(tools.__all__) == sorted([
        "CREATING", "GRIDS", "MAX_NOTES_PER_CALL", "MODES", "PHASES", "STRIKES", "TOOLS", "BatchOutcome",
        "GeneratedPart", "Mode", "PartGenerator", "PartRequest", "Phase", "Strikes", "Tool", "ToolCall",
        "ToolContext", "ToolParams", "ToolRegistry", "ToolResult", "effect_params_schema", "explain_validation",
        "model_signature", "run_batch", "signature",
    ])
