"""The studio service's public names are pinned: the HTTP routes, MCP and the page
build on them (a change here is a change of contract)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

EXPORTS = {
    "bandstand.producer.library": {"VARIATION_ID", "Library", "project_json", "project_summary", "variation_events"},
    "bandstand.producer.ask": {"TOPICS", "Answer", "analysis_context", "answer", "is_question"},
    "bandstand.producer.analysis": {"PITCH_NAMES", "Analysis", "PartFigures", "SectionFigures", "analyse",
                                    "estimate_key"},
    "bandstand.producer.jam": {"direct_jam", "jam_state", "new_jam", "start_jam", "stop_jam"},
    "bandstand.producer.wire": {"DONE_STATUS", "done_event", "meta_event", "phrase_event", "variation_stream"},
    "bandstand.producer.studio": {"Studio", "Timeouts"},
}


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_exports_are_pinned_and_defined(module: str) -> None:
    mod = importlib.import_module(module)
    assert set(mod.__all__) == EXPORTS[module]
    assert all(hasattr(mod, name) for name in mod.__all__)
    assert mod.__doc__ and len(Path(str(mod.__file__)).read_text(encoding="utf-8").splitlines()) < 420
