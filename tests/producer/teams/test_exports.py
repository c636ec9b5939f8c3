"""The teams' and batches' public names are pinned (the CLI, MCP, the batch worker and the
studio page build on them), and every name exported is there."""

from __future__ import annotations

import importlib

import pytest

from bandstand.producer import batch, teams

MODULES = [f"bandstand.producer.teams.{m}" for m in ("agents", "builtin", "contracts", "coordinator", "mixing",
                                                       "remote", "runner", "safety", "seats", "signals", "stream")] + \
          [f"bandstand.producer.batch.{m}" for m in ("board", "jobs", "local", "sections", "songs")]


def test_the_packages_are_pinned() -> None:
    assert sorted(teams.__all__) == ["DrumSignal", "InstrumentContract", "LocalSignals", "SectionContract",
                                     "SectionShape", "SignalKey", "SongContract", "TeamOptions", "TeamOutcome",
                                     "TrackShape", "compose_team", "reconcile", "run_team"]
    assert sorted(batch.__all__) == ["BatchStatus", "CONDUCTOR", "Conductor", "JobResult", "SongJob", "WorkerReport",
                                     "batch_id", "compose_job", "load_prompts", "read_prompts", "run_local",
                                     "song_record", "work"]


def test_the_remote_section_jobs_are_pinned() -> None:
    from bandstand.producer.batch import sections
    from bandstand.producer.teams import remote

    assert sorted(remote.__all__) == ["SectionJobs", "SectionReply", "SectionRequest", "perform", "rebuild"]
    assert sorted(sections.__all__) == ["BoardSections", "JOB", "job_of", "new_task", "section_phase",
                                        "section_task"]


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__all__
    for export in module.__all__:
        assert hasattr(module, export), f"{name}.{export}"
