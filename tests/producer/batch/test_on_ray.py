"""`bandstand batch --on ray` and `bandstand dataset --on ray` on a real Ray cluster: a head
started here with ``ray start --head --block`` on 127.0.0.1 (2 CPUs, so two worker processes
compose at once; a 100 MB object store; no dashboard), joined through ``RAY_ADDRESS``. A worker
SIGKILLed mid-song is retried by Ray: every song is there exactly once, byte for byte the song
composed alone. The cluster takes both cores, so these tests run alone."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bandstand.cli import run
from bandstand.producer.batch import compose_job, read_prompts

ray = pytest.importorskip("ray")
pd = pytest.importorskip("pandas")

pytestmark = [pytest.mark.alone, pytest.mark.slow]

PROMPTS = "funk groove in E minor\ndark trap\njazz ballad\nsynthwave night drive\nbossa nova\nheavy metal riff\n"
RAY = Path(sys.executable).parent / "ray"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _descendants(root: int) -> set[int]:
    """The processes below `root` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    found, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in found} - found
        grew = bool(more)
        found |= more
    return found - {root}


def _title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _head(python: list[str], env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """A Ray head on loopback started by `python` (its address, and the pid of ``ray start
    --block``, which owns every process of the cluster)."""
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's sockets need a short path
    port = _free_port()
    log = Path(temp) / "head.log"
    env = {**env, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}  # loopback, ours alone
    env.pop("RAY_ADDRESS", None)
    with log.open("w") as out:
        head = subprocess.Popen([*python, "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
                                 "--port", str(port), "--num-cpus", "2", "--object-store-memory", str(100 * 2**20),
                                 "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", temp],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 180
        while "block forever" not in log.read_text(errors="replace"):
            assert head.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", head.pid
    finally:
        head.send_signal(signal.SIGTERM)  # `ray start --block` stops every process it started
        try:
            head.wait(timeout=120)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, int]]:
    """A head with this checkout's bandstand on its workers (they inherit PYTHONPATH)."""
    if not RAY.is_file():
        pytest.skip("the ray command is not installed (pip install '.[ray]')")
    yield from _head([str(RAY)], dict(os.environ))


def _python_without_bandstand(folder: Path) -> Path:
    """A virtual environment that sees Ray and everything else this one has, but not bandstand: its
    site-packages names ours as a plain path, so the .pth files there (bandstand's editable
    install among them) are not run."""
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(folder)],
                   check=True)
    ours = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "ray").is_dir())
    theirs = next((folder / "lib").glob("python3*/site-packages"))
    (theirs / "ours.pth").write_text(f"{ours}\n")
    return folder / "bin" / "python"


def _batch(tmp_path: Path, address: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "RAY_ADDRESS": address, "RAY_AUTH_MODE": "disabled"}
    return subprocess.Popen([sys.executable, "-m", "bandstand", "batch", str(tmp_path / "p.txt"), "--on", "ray",
                             "--bars", "32", "--out", str(tmp_path / "songs"), "--json", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _midi(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.mid"))}


def test_a_worker_killed_mid_song_is_retried_and_every_song_is_there_once(cluster: tuple[str, int],
                                                                          tmp_path: Path) -> None:
    address, head = cluster
    (tmp_path / "p.txt").write_text(PROMPTS)
    proc = _batch(tmp_path, address)
    killed: list[str] = []
    try:
        deadline = time.monotonic() + 300
        while not killed:
            assert proc.poll() is None, f"the batch ended before a worker was killed: {proc.stderr.read()}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "no worker ever composed a song"
            for pid in sorted(_descendants(head)):
                if _title(pid).startswith("ray::_compose"):  # a worker in the middle of a song
                    os.kill(pid, signal.SIGKILL)
                    killed.append(_title(pid) or str(pid))
                    break
            time.sleep(0.02)
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    report = json.loads(out)
    assert report["ray"] == address and killed  # the cluster RAY_ADDRESS names
    statuses = [s["status"] for s in report["songs"]]
    # a worker killed between its song's rename and its return leaves the song whole: the retry keeps it
    assert set(statuses) <= {"composed", "kept"} and statuses.count("kept") <= 1, statuses
    songs = tmp_path / "songs"
    jobs = read_prompts(PROMPTS, defaults={"bars": 32})
    assert sorted(p.name for p in songs.iterdir()) == sorted(j.folder for j in jobs)  # once each, no staging left
    for job in jobs:  # byte for byte the song composed alone
        compose_job(job, tmp_path / "alone")
        assert _midi(songs / job.folder) == _midi(tmp_path / "alone" / job.folder), job.folder


def test_a_dataset_on_ray_and_its_table(cluster: tuple[str, int], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    address, _ = cluster
    monkeypatch.setenv("RAY_ADDRESS", address)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    spec = tmp_path / "set.toml"
    spec.write_text('[dataset]\nseeds = 2\nbars = 4\naudio = false\n[grid]\ngenre = ["funk", "jazz"]\n')
    assert run(["dataset", str(spec), "--out", str(tmp_path / "data"), "--on", "ray", "--limit", "3"]) == 0
    captured = capsys.readouterr()
    assert "3/3 songs (3 composed, 0 kept, 0 failed)" in captured.err and "3 rows" in captured.out
    table = pd.read_parquet(tmp_path / "data" / "metadata.parquet")
    assert list(table["genre"]) == ["funk", "funk", "jazz"] and list(table["seed"]) == [0, 1, 0]
    assert all((tmp_path / "data" / p).is_file() for p in table["midi_path"])



def test_a_cluster_without_bandstand_is_one_line_saying_how_to_ship_it(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    python = _python_without_bandstand(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    assert subprocess.run([str(python), "-c", "import ray, importlib.util as u; "
                           "raise SystemExit(u.find_spec('bandstand') is not None)"], env=env).returncode == 0
    head = _head([str(python), "-c", "from ray.scripts.scripts import main; main()"], env)
    address, _ = next(head)
    try:
        monkeypatch.setenv("RAY_ADDRESS", address)
        monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
        (tmp_path / "p.txt").write_text("funk\n")
        assert run(["batch", str(tmp_path / "p.txt"), "--on", "ray", "--out", str(tmp_path / "songs")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "the Ray cluster's workers have no bandstand" in err[0], err
        assert "--runtime-env" in err[0] and not (tmp_path / "songs").exists()
    finally:
        head.close()
