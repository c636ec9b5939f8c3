"""The compiled kernels kept as machine code and loaded without numba (`bandstand.render.native`):
the same bits as numba's own, a new process that plays without importing numba, and numba's
way whenever what is kept cannot be trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from bandstand.render import native


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Callable[..., Any]]]:
    """The jit kernels built into a fresh cache folder and loaded back from it."""
    from bandstand.render import jit

    folder = tmp_path_factory.mktemp("cache")
    before = os.environ.get("BANDSTAND_CACHE")
    os.environ["BANDSTAND_CACHE"] = str(folder)
    try:
        loaded = {}
        for name, signature in jit.SIGNATURES.items():
            assert native.build(f"jit.{name}", getattr(jit, name), signature)
            function = native.load(f"jit.{name}")
            assert function is not None, name
            loaded[name] = function
        yield loaded
    finally:
        if before is None:
            os.environ.pop("BANDSTAND_CACHE", None)
        else:
            os.environ["BANDSTAND_CACHE"] = before


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 700), st.integers(0, 5), st.integers(0, 2**16))
def test_a_kept_cascade_is_numbas_to_the_bit_on_strided_rows(kept: dict[str, Callable[..., Any]], signals: int,
                                                              sections: int, frames: int, offset: int,
                                                              seed: int) -> None:
    from bandstand.render import jit

    rng = np.random.default_rng(seed)
    sos = np.zeros((sections, 6), dtype=np.float32)
    sos[:, :3] = rng.uniform(-0.5, 0.5, (sections, 3))
    sos[:, 3] = 1.0
    sos[:, 4:] = rng.uniform(-0.4, 0.4, (sections, 2))
    wide = rng.standard_normal((signals, frames + 9)).astype(np.float32)
    zi = rng.standard_normal((signals, sections, 2)).astype(np.float32)
    ours, theirs = wide.copy(), wide.copy()
    z_ours, z_theirs = zi.copy(), zi.copy()
    kept["sosfilt32"](sos, ours[:, offset : offset + frames], z_ours)  # rows of a wider buffer: strided
    jit.sosfilt32(sos, theirs[:, offset : offset + frames], z_theirs)
    assert ours.tobytes() == theirs.tobytes() and z_ours.tobytes() == z_theirs.tobytes()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.floats(0.01, 3.0), st.booleans(), st.integers(0, 2**16))
def test_kept_pcm_and_rate_kernels_are_numbas_to_the_bit(kept: dict[str, Callable[..., Any]], frames: int,
                                                          scale: float, add: bool, seed: int) -> None:
    from bandstand.render import jit

    rng = np.random.default_rng(seed)
    audio = (rng.standard_normal((frames, 2)) * 20000).astype(np.float32)
    outs: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = [
        (np.zeros((frames, 2), np.float32), np.zeros((frames, 2), np.int16)) for _ in range(2)]
    kept["to_pcm16"](audio[::-1], np.float32(scale), *outs[0])  # a reversed view: negative strides
    jit.to_pcm16(audio[::-1], np.float32(scale), *outs[1])
    assert all(a.tobytes() == b.tobytes() for a, b in zip(outs[0], outs[1], strict=True))
    channel_major = np.ascontiguousarray(audio.T)
    k = 1 + seed % 4
    runs = frames // k
    down = [np.zeros(runs, np.float32) for _ in range(2)]
    kept["downmix"](channel_major, k, down[0])
    jit.downmix(channel_major, k, down[1])
    assert down[0].tobytes() == down[1].tobytes()
    low = channel_major[:, : runs + 1] / 30000
    ramp = np.linspace(0, 1, k, endpoint=False, dtype=np.float32)
    gain = rng.uniform(0, 1, runs * k).astype(np.float32)
    targets = [np.ones((2, runs * k), np.float32) for _ in range(2)]
    kept["upsample"](low, ramp, gain, targets[0], add)
    jit.upsample(low, ramp, gain, targets[1], add)
    assert targets[0].tobytes() == targets[1].tobytes()


def test_a_kept_kernel_refuses_arrays_it_cannot_take(kept: dict[str, Callable[..., Any]]) -> None:
    """numba's dispatcher refuses a wrong dtype, rank or layout; the kept kernel does too, before
    any pointer reaches machine code."""
    sos = np.zeros((1, 6), np.float32)
    zi = np.zeros((1, 1, 2), np.float32)
    with pytest.raises(TypeError, match="float32"):
        kept["sosfilt32"](sos, np.zeros((1, 8), np.float64), zi)
    with pytest.raises(TypeError, match="3-d"):
        kept["sosfilt32"](sos, np.zeros((1, 8), np.float32), zi[0])
    with pytest.raises(TypeError, match="C order"):
        kept["sosfilt32"](np.zeros((1, 12), np.float32)[:, ::2], np.zeros((1, 8), np.float32), zi)
    with pytest.raises(TypeError, match="arguments"):
        kept["sosfilt32"](sos, zi)


def test_what_cannot_be_trusted_is_not_loaded(kept: dict[str, Callable[..., Any]], tmp_path: Path) -> None:
    """A damaged object, a description naming a symbol nobody has, a missing file: no kernel
    (the callers take numba's way)."""
    folder = Path(os.environ["BANDSTAND_CACHE"]) / "native"
    obj = next(folder.glob("jit.downmix-*.o"))
    meta = obj.with_suffix(".json")
    good_obj, good_meta = obj.read_bytes(), meta.read_text()
    try:
        obj.write_bytes(b"\x7fELF" + b"\0" * 64)
        assert native.load("jit.downmix") is None
        obj.write_bytes(good_obj)
        described = json.loads(good_meta)
        described["needs"].append("no_such_symbol_anywhere")
        meta.write_text(json.dumps(described))
        assert native.load("jit.downmix") is None
        meta.unlink()
        assert native.load("jit.downmix") is None
    finally:
        obj.write_bytes(good_obj)
        meta.write_text(good_meta)
    assert native.load("jit.downmix") is not None


_PLAY = """
import sys
started = []
sys.addaudithook(lambda event, args: started.append(args[1]) if event == "subprocess.Popen" else None)
from bandstand.render import render_wav
render_wav(sys.argv[1], sys.argv[2])
print("numba" in sys.modules, started)
"""


def test_a_new_process_plays_the_kept_engine_without_numba_and_the_same_bytes(tmp_path: Path) -> None:
    """The first process compiles with numba and keeps the machine code; the next one plays
    without importing numba; with `BANDSTAND_NATIVE=0` numba plays: all three WAVs are the same bytes."""
    from bandstand.midi import write_midi
    from bandstand.score import Note, Song, Track

    song = Song(title="kept", tempo=100.0, key="D minor")
    keys = Track("Keys", "chords", program=4)
    bass = Track("Bass", "bass", program=33)
    drums = Track("Drums", "drums", is_drum=True)
    for bar in range(4):
        keys.notes += [Note(bar * 4.0, 3.5, p, 80) for p in (62, 65, 69)]
        bass.notes += [Note(bar * 4.0 + b, 0.9, 38 + bar, 100) for b in (0.0, 1.5, 3.0)]
        drums.notes += [Note(bar * 4.0 + b, 0.2, 36 if b % 2 == 0 else 38, 100) for b in range(4)]
    song.tracks += [keys, bass, drums]
    midi = tmp_path / "kept.mid"
    write_midi(song, midi)
    env = {**os.environ, "BANDSTAND_CACHE": str(tmp_path / "cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    runs = {}
    for label, extra in (("first", {}), ("kept", {}), ("numba", {"BANDSTAND_NATIVE": "0"})):
        wav = tmp_path / f"{label}.wav"
        done = subprocess.run([sys.executable, "-c", _PLAY, str(midi), str(wav)], env={**env, **extra},
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        runs[label] = (done.stdout.strip(), wav.read_bytes())
    assert runs["first"][0].startswith("True") and runs["numba"][0].startswith("True")
    # played from the kept machine code: numba never imported, and no process started to link it
    # (looking up libm ran `ldconfig -p` for each of a kernel's symbols: twelve times a compose)
    assert runs["kept"][0] == "False []"
    assert runs["first"][1] == runs["kept"][1] == runs["numba"][1]
    assert sorted(p.name.split("-")[0] for p in (tmp_path / "cache" / "native").glob("*.o")) == [
        "engine.step", "jit.downmix", "jit.sosfilt32", "jit.to_pcm16", "jit.true_peaks", "jit.upsample"]


def test_the_key_is_remembered_by_stamp_and_a_changed_source_is_never_taken_for_the_old(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`key` reads the key of the sources' sizes and times from the cache folder; a source whose
    text changes — or whose time alone changes — is hashed afresh, so no stale object loads."""
    import shutil

    here = Path(native.__file__).resolve().parent
    copy = tmp_path / "render"
    for name in native._SOURCES:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(here / name, copy / name)
    monkeypatch.setenv("BANDSTAND_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(native, "__file__", str(copy / "native.py"))

    def fresh() -> str | None:
        monkeypatch.setattr(native, "_KEY", [])
        return native.key()

    first = fresh()
    memo = json.loads((tmp_path / "cache" / "native" / "keys.json").read_text())
    assert list(memo.values()) == [first]
    assert fresh() == first  # read back by its stamp
    source = copy / "jit.py"
    text = source.read_bytes()
    source.write_bytes(text + b"# changed\n")
    changed = fresh()
    assert changed != first
    source.write_bytes(text.replace(b"import numba", b"import numbb"))  # the same size, another text
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1_000))
    assert fresh() not in (first, changed)
    source.write_bytes(text)
    assert fresh() == first  # the old text again: the old key, worked out from it
    (tmp_path / "cache" / "native" / "keys.json").write_text("{not json")
    assert fresh() == first


def test_a_bound_call_is_the_call(kept: dict[str, Callable[..., Any]]) -> None:
    """`bind` takes the arguments apart once (what a track's engine steps use): each call of the
    bound one is the call with them, and a wrong argument is refused when bound."""
    rng = np.random.default_rng(3)
    audio = rng.standard_normal((2, 64)).astype(np.float32)
    direct, bound = np.zeros(8, dtype=np.float32), np.zeros(8, dtype=np.float32)
    kept["downmix"](audio, 8, direct)
    again = kept["downmix"].bind(audio, 8, bound)  # type: ignore[attr-defined]
    again()
    assert direct.tobytes() == bound.tobytes()
    audio *= 2  # the same arrays, new values: read afresh by the next call
    kept["downmix"](audio, 8, direct)
    again()
    assert direct.tobytes() == bound.tobytes()
    with pytest.raises(TypeError, match="float32"):
        kept["downmix"].bind(audio.astype(np.float64), 8, bound)  # type: ignore[attr-defined]
