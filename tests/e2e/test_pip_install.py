"""A plain `pip install` of bandstand on a Linux machine with no compiler and no PortAudio (#17).

The checkout is built into a wheel and installed into a fresh venv with pip's cache off and
`--only-binary :all:`: every dependency must come as a wheel, so nothing is compiled (a
compiler on PATH would fail anyway: `cc`, `gcc`, … are shadowed by scripts that exit 1, and
`CC`/`CXX` are `false`). The install must bring numba (a wheel: the compiled engine) and
neither PyAudio nor the tinysoundfont binding. Then the installed `bandstand compose` runs with
the built-in musicians, with no network where the kernel allows a private network namespace
(its first render compiles the engine into the venv's cache), and must write the same WAV and
MIDI bytes as this checkout's own install (the development venv, which has more packages)
playing with the same synthesizer for the same prompt and seed: the sound does not depend on
how bandstand was installed. Last, numba is removed from the fresh venv (as where it has no
wheel): the same song again, now played by the numpy port — the same MIDI, and a WAV within a
few least significant bits of the first (-80 dBFS).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

# not `alone`: nothing here is timed, so it runs beside the rest (its own timeouts are minutes)
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "slow jazz ballad, brushed drums, warm piano"
COMPILERS = ("cc", "gcc", "g++", "c++", "clang", "clang++", "x86_64-linux-gnu-gcc", "aarch64-linux-gnu-gcc")
# what pip must find to reach the package index configured on this machine (proxies, certificates)
PASSED_ON = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY",
             "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE",
             "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "LANG", "LC_ALL")


def _no_compiler_env(home: Path) -> dict[str, str]:
    shadow = home / "no-compiler"
    shadow.mkdir()
    for name in COMPILERS:
        script = shadow / name
        script.write_text("#!/bin/sh\necho 'no compiler on this machine' >&2\nexit 1\n")
        script.chmod(0o755)
    env = {key: os.environ[key] for key in PASSED_ON if key in os.environ}
    env.update(PATH=f"{shadow}:/usr/local/bin:/usr/bin:/bin", HOME=str(home), CC="false", CXX="false",
               PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def _source_copy(dest: Path) -> Path:
    """The checkout's tracked files (what a clone holds), so the build never writes into it."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        if name and (ROOT / name).is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return dest


def _offline() -> list[str]:
    """`unshare -rn` (a network namespace with no interface up) when this kernel allows it."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn"]
    return []


def _run(cmd: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None) -> str:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd[:3])}… exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _compose(bandstand: str, out: Path, env: dict[str, str]) -> Path:
    _run([*_offline(), bandstand, "compose", PROMPT, "--seed", "3", "--bars", "16", "--json", "--out", str(out)],
         env, timeout=600)
    (session,) = out.iterdir()
    return session


def _synthesizer(session: Path) -> str:
    """The synthesizer the manifest says played the WAV."""
    files = json.loads((session / "manifest.json").read_text())["files"]
    (wav,) = [f for f in files if f["path"] == "audio/full-arrangement.wav"]
    return str(wav["description"].rsplit("played by the ", 1)[1].split()[0])


def _audio(path: Path) -> np.ndarray:
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (2, 2, 44100)
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")


def test_a_fresh_venv_installs_from_wheels_alone_and_composes_offline_the_same_song(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _no_compiler_env(home)
    source = _source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env, timeout=300)
    pip = str(venv / "bin" / "pip")
    _run([pip, "wheel", "--no-deps", "--no-cache-dir", "-q", "-w", str(tmp_path / "dist"), str(source)], env, timeout=600)
    (built,) = (tmp_path / "dist").glob("bandstand-*.whl")
    _run([pip, "install", "--no-cache-dir", "--only-binary", ":all:", "-q", str(built)], env, timeout=900)

    installed = {entry["name"].lower() for entry in json.loads(_run([pip, "list", "--format", "json"], env, timeout=120))}
    assert "bandstand" in installed
    assert "numba" in installed
    assert not installed & {"pyaudio", "tinysoundfont"}, installed & {"pyaudio", "tinysoundfont"}

    bandstand = str(venv / "bin" / "bandstand")
    plain = _compose(bandstand, tmp_path / "plain", env)
    assert _synthesizer(plain) == "compiled"
    audio = _audio(plain / "audio" / "full-arrangement.wav")
    assert len(audio) > 2 * 44100 * 10 and int(np.abs(audio).max()) > 3000  # a song, not silence

    # this checkout's own install (the test's interpreter) plays the same song into the same bytes
    dev_env = dict(os.environ, HOME=str(home), BANDSTAND_SYNTH="compiled")
    dev = _compose(str(Path(sys.executable).with_name("bandstand")), tmp_path / "dev", dev_env)
    for name in ("audio/full-arrangement.wav", "midi/full-arrangement.mid"):
        assert (plain / name).read_bytes() == (dev / name).read_bytes(), f"{name} differs between the two installs"

    # where numba cannot be had: the numpy port plays the same song
    _run([pip, "uninstall", "-y", "-q", "numba", "llvmlite"], env, timeout=300)
    fallback = _compose(bandstand, tmp_path / "fallback", env)
    assert _synthesizer(fallback) == "numpy"
    assert (fallback / "midi/full-arrangement.mid").read_bytes() == (plain / "midi/full-arrangement.mid").read_bytes()
    port = _audio(fallback / "audio" / "full-arrangement.wav")
    assert len(port) == len(audio)
    # the engines agree to float rounding (about 1e-6 of full scale per stem); the compiled
    # effect kernels (render/jit.py) round as scipy does but the float32 chain compounds it, and
    # the master's loudness gain carries that into a few least significant bits: at most
    # 4 LSB (-78 dBFS), 1 LSB RMS (seen: 4)
    diff = np.abs(port.astype(np.int32) - audio)
    assert int(diff.max()) <= 4 and float(np.sqrt(np.mean(diff.astype(np.float64) ** 2))) <= 1.0
