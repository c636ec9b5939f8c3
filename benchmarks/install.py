"""A plain install of bandstand from this checkout, measured on this machine. Prints JSON.

Two fresh venvs, pip's cache off, no compiler on `PATH` for the first:

- **plain**: `pip install --only-binary :all: <the checkout's wheel>` — bandstand as it is
  now (its own SoundFont synthesizer, compiled by numba on first use; every dependency a
  wheel);
- **peer**: the same wheel with `--no-deps`, its dependencies, and the `tinysoundfont`
  binding bandstand used before, installed the way it had to be: PyAudio (a declared
  dependency of every tinysoundfont release, with no Linux wheel) built from source, which
  needs a compiler and the PortAudio headers (`portaudio19-dev`). Measured only where both
  are present; otherwise reported as not measurable here.

For each: install wall seconds and the venv's size (MB); in the plain venv `bandstand
--help` and two `bandstand compose` runs (the numpy synthesizer), then the `fast` extra
(numba) added to it: its install seconds and MB, and the first compose (numba compiles the
synthesizer's kernel and caches it) and the second (the kernel loaded from the cache).

    .venv/bin/python benchmarks/install.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "Frank Ocean meets Burial, late-night vibes"


def run(cmd: list[str], env: dict[str, str], timeout: float = 1800) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}… exited {done.returncode}: {done.stderr[-2000:]}")
    return round(time.perf_counter() - t0, 2)


def size_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def env_for(home: Path, compiler: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.lower().endswith("proxy") or k.startswith(("PIP_", "SSL_", "LANG"))}
    path = "/usr/local/bin:/usr/bin:/bin"
    if not compiler:
        shadow = home / "no-compiler"
        shadow.mkdir(exist_ok=True)
        for name in ("cc", "gcc", "g++", "c++", "clang", "x86_64-linux-gnu-gcc", "aarch64-linux-gnu-gcc"):
            (shadow / name).write_text("#!/bin/sh\nexit 1\n")
            (shadow / name).chmod(0o755)
        path = f"{shadow}:{path}"
        env.update(CC="false", CXX="false")
    env.update(PATH=path, HOME=str(home), PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def main() -> None:
    report: dict[str, Any] = {"python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "home").mkdir()
        plain_env = env_for(tmp / "home", compiler=False)
        source = tmp / "src"
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        for name in filter(None, listed.decode().split("\0")):
            if (ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, source / name)
        run([sys.executable, "-m", "venv", str(tmp / "build")], plain_env)
        run([str(tmp / "build/bin/pip"), "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(source)], plain_env)
        (wheel,) = (tmp / "dist").glob("bandstand-*.whl")

        venv = tmp / "plain"
        run([sys.executable, "-m", "venv", str(venv)], plain_env)
        base = size_mb(venv)
        seconds = run([str(venv / "bin/pip"), "install", "-q", "--only-binary", ":all:", str(wheel)], plain_env)
        bandstand = str(venv / "bin/bandstand")
        compose = [bandstand, "compose", PROMPT, "--seed", "7", "--json"]
        report["plain"] = {
            "install_seconds": seconds,
            "venv_mb": size_mb(venv) - base,
            "help_seconds": run([bandstand, "--help"], plain_env),
            "first_compose_seconds": run([*compose, "--out", str(tmp / "out1")], plain_env),
            "second_compose_seconds": run([*compose, "--out", str(tmp / "out2")], plain_env),
        }

        # the fast extra in the same venv: numba's wheels, the kernel compiled on the first compose
        before = size_mb(venv)
        report["fast_extra"] = {
            "install_seconds": run([str(venv / "bin/pip"), "install", "-q", "--only-binary", ":all:", "numba>=0.60,<1"],
                                   plain_env),
            "extra_mb": round(size_mb(venv) - before, 1),
            "first_compose_seconds": run([*compose, "--out", str(tmp / "out3")], plain_env),
            "second_compose_seconds": run([*compose, "--out", str(tmp / "out4")], plain_env),
        }

        have_compiler = shutil.which("gcc") is not None
        have_portaudio = Path("/usr/include/portaudio.h").exists()
        if have_compiler and have_portaudio:
            peer_env = env_for(tmp / "home", compiler=True)
            peer = tmp / "peer"
            run([sys.executable, "-m", "venv", str(peer)], peer_env)
            pip = str(peer / "bin/pip")
            reqs = subprocess.run([sys.executable, "-c", "import tomllib,sys;print('\\n'.join(d for d in tomllib.load(open(sys.argv[1],'rb'))['project']['dependencies'] if not d.startswith('numba')))", str(ROOT / "pyproject.toml")],
                                  capture_output=True, text=True, check=True).stdout.split()
            t0 = time.perf_counter()
            run([pip, "install", "-q", "--no-deps", str(wheel)], peer_env)
            run([pip, "install", "-q", *reqs, "tinysoundfont>=0.3.6,<0.4"], peer_env)
            report["peer"] = {"install_seconds": round(time.perf_counter() - t0, 2), "venv_mb": size_mb(peer) - base,
                              "needs": "gcc and the PortAudio headers (PyAudio is built from source)"}
            report["ratio_install_seconds"] = round(report["plain"]["install_seconds"] / report["peer"]["install_seconds"], 2)
            report["extra_mb"] = round(report["plain"]["venv_mb"] - report["peer"]["venv_mb"], 1)
        else:
            report["peer"] = {"measured": False, "why": f"needs gcc ({have_compiler}) and /usr/include/portaudio.h ({have_portaudio})"}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
