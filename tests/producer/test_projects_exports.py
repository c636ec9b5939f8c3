"""The project use cases' public names are pinned (the CLI, HTTP, MCP and the page build on them)."""

from __future__ import annotations

from bandstand.producer.sessions import audition, head_files, projects, summaries


def test_project_api_is_pinned() -> None:
    assert sorted(projects.__all__) == ["HistoryRow", "ProjectSession", "ToolOutcome", "VariationEvent",
                                        "create_from_project", "create_from_song", "open_project"]
    assert sorted(audition.__all__) == ["Audition", "audition"]
    assert sorted(summaries.__all__) == ["CHORD_ROLES", "arrangement_json", "audio_json", "history_json",
                                         "phrase_json", "revision_json",
                                         "tool_outcome_json", "variation_json"]
    methods = {"revision", "head", "project", "history", "variations", "variation", "propose", "accept", "discard",
               "fail", "apply_tools", "propose_tools", "commit", "edit", "undo", "redo", "ensure_audio", "audition",
               "repair"}
    assert methods <= set(dir(projects.ProjectSession))
    for name in head_files.__all__:
        assert hasattr(head_files, name)
