"""The batch desk (`App.batches`) as a client reaches it: a prompts file planned and checked before
anything runs, where the songs run chosen once from what a person typed, the songs composed on the
local pool or through a real SQLite board whose worker is the desk's own `work`, and a dataset
planned and built with its table."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bandstand.errors import InvalidInput
from bandstand.producer import App
from bandstand.producer.app import BatchRequest, DatasetRequest, WorkerRequest


def _prompts(tmp_path: Path, text: str = 'funk groove in E minor\n{"prompt": "dark trap", "seed": 9}\n') -> Path:
    path = tmp_path / "prompts.txt"
    path.write_text(text)
    return path


def test_a_plan_reads_the_songs_and_says_where_they_run(tmp_path: Path) -> None:
    desk = App(tmp_path / "songs").batches()
    plan = desk.plan(BatchRequest(_prompts(tmp_path), seed=3, bars=8, team=True, board=str(tmp_path / "b.db"),
                                  workers=0))
    assert [(j.seed, j.bars, j.team, j.folder) for j in plan.jobs] == [(3, 8, True, "001-funk-groove-in-e-minor"),
                                                                     (9, 8, True, "002-dark-trap")]
    assert len(plan.ident) == 12 and plan.cluster is None
    assert plan.where.kind == "board" and plan.where.address == f"sqlite:///{(tmp_path / 'b.db').resolve()}"
    assert desk.plan(BatchRequest(_prompts(tmp_path))).where.kind == "local"


def test_the_ray_cluster_is_the_one_given_else_ray_address_else_local(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    desk = App(tmp_path).batches()
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert desk.plan(BatchRequest(_prompts(tmp_path), on="ray")).cluster == "local"
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert desk.plan(BatchRequest(_prompts(tmp_path), on="ray")).cluster == "10.0.0.5:6379"
    assert desk.plan(BatchRequest(_prompts(tmp_path), on="ray://h:10001")).cluster == "ray://h:10001"


@pytest.mark.parametrize(("given", "message"), [
    ({"workers": 0}, "--workers 0 needs --board"),
    ({"on": "ray", "workers": 0}, "--on ray --workers 0"),
    ({"on": "local", "board": "b.db"}, "--on local runs the songs here"),
    ({"runtime_env": "[1]"}, "--runtime-env: a JSON object"),
    ({"prompts": "missing.txt"}, "no prompts file"),
])
def test_a_mistake_is_refused_before_anything_runs(given: dict[str, object], message: str, tmp_path: Path) -> None:
    options = dict(given)
    prompts = tmp_path / str(options.pop("prompts")) if "prompts" in options else _prompts(tmp_path)
    with pytest.raises(InvalidInput, match=message):
        App(tmp_path / "songs").batches().plan(BatchRequest(prompts, **options))  # type: ignore[arg-type]
    assert not (tmp_path / "songs").exists()


def test_the_local_pool_composes_the_songs_and_keeps_them_on_a_second_run(tmp_path: Path) -> None:
    desk = App(tmp_path / "songs").batches()
    plan = desk.plan(BatchRequest(_prompts(tmp_path), bars=8, workers=2))
    heard: list[str] = []
    run = desk.run(plan, on_result=lambda r: heard.append(r.folder))
    assert [r.status for r in run.results] == ["composed", "composed"] and run.status is None
    assert sorted(heard) == ["001-funk-groove-in-e-minor", "002-dark-trap"]
    assert all((tmp_path / "songs" / f / "midi" / "full-arrangement.mid").is_file() for f in heard)
    assert [r.status for r in desk.run(plan).results] == ["kept", "kept"]


def test_a_board_batch_taken_by_the_desks_own_worker(tmp_path: Path) -> None:
    """The conductor (`run`, no local worker processes) and a worker (`work`) in threads of this process,
    on one SQLite file: the song goes through the board and the worker's report names its session."""
    desk = App(tmp_path / "songs").batches()
    board = str(tmp_path / "board.db")
    plan = desk.plan(BatchRequest(_prompts(tmp_path, "synthwave night drive\n"), bars=8, board=board, workers=0,
                                  heartbeat=0.2))
    steps: list[int] = []
    done, enqueued = threading.Event(), threading.Event()
    reports: list[Any] = []

    def step(status: Any) -> None:
        steps.append(len(status.results))
        enqueued.set()

    def worker() -> None:
        reports.append(desk.work(WorkerRequest(board, session="here", heartbeat=0.2, poll=0.05, idle_exit=60),
                                 stop=done))

    conductor = threading.Thread(target=lambda: reports.append(desk.run(plan, on_step=step)))
    conductor.start()
    # the worker comes once the conductor has made the board and put the song on it, as a worker process started
    # by `bandstand batch` does: two threads of one process creating one SQLite file at once is not that case
    assert enqueued.wait(timeout=60)
    taker = threading.Thread(target=worker)
    taker.start()
    conductor.join(timeout=120)
    done.set()
    taker.join(timeout=60)
    run, report = reports
    assert [(r.status, r.worker) for r in run.results] == [("composed", "here")] and run.status.given_up == {}
    assert steps[-1] == 1 and report.session == "here" and [r.folder for r in report.done] == ["001-synthwave-night-drive"]


def test_a_dataset_is_planned_then_built_with_its_table(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    spec = tmp_path / "set.toml"
    spec.write_text('[dataset]\nseeds = [4, 5]\nbars = 4\naudio = false\n[grid]\ngenre = ["funk"]\n')
    desk = App(tmp_path / "data").batches()
    plan = desk.plan_dataset(DatasetRequest(spec, shard="1/2"))
    assert (plan.songs, plan.where.kind, plan.spec.total) == (1, "local", 2)
    built = desk.build_dataset(plan, on_result=lambda result, progress: None)
    assert [r.status for r in built.results] == ["composed"] and built.rows == 1
    assert built.table == tmp_path / "data" / "metadata.parquet" and built.table.is_file()


def test_a_dataset_on_ray_refuses_an_object_store_before_anything_is_written(tmp_path: Path) -> None:
    spec = tmp_path / "set.toml"
    spec.write_text('[dataset]\nseeds = 1\n[grid]\ngenre = ["funk"]\n')
    with pytest.raises(InvalidInput, match="object stores are not supported"):
        App(Path("s3://bucket/data")).batches().plan_dataset(DatasetRequest(spec, on="ray"))
