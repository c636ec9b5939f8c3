"""`bandstand pattern …`: query, show, render, validate; errors are one line + caret, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import mido
import pytest

from bandstand.cli import run


def test_query_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["pattern", "query", 's("bd sd")', "--from", "0", "--to", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == ["[ 0 → 1/2 | {'s': 'bd'} ]", "[ 1/2 → 1 | {'s': 'sd'} ]"]
    assert (
        run(
            [
                "pattern",
                "query",
                'note("c3 e3").late(1/4)',
                "--from",
                "1/2",
                "--to",
                "3/2",
                "--json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {
        "whole": {"begin": "1/4", "end": "3/4"},
        "part": {"begin": "1/2", "end": "3/4"},
        "value": {"note": "c3"},
        "onset": False,
    }
    assert [r["value"]["note"] for r in rows] == ["c3", "e3", "c3"]
    assert [r["onset"] for r in rows] == [False, True, True]


def test_query_reads_stdin_and_reports_empty_spans(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("silence"))
    assert run(["pattern", "query", "-"]) == 0
    assert capsys.readouterr().out.strip() == "(no events)"


def test_show_draws_a_grid_per_cycle(capsys: pytest.CaptureFixture[str]) -> None:
    code = 'stack(s("bd*4"), s("~ sd"), note("<c3 e3>").s("piano"))'
    assert run(["pattern", "show", code, "--cycles", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "cycle 0 (4 steps)",
        "  bd       |xxxx|",
        "  sd       |..x.|",
        "  piano c3 |x---|",
        "cycle 1 (4 steps)",
        "  bd       |xxxx|",
        "  sd       |..x.|",
        "  piano e3 |x---|",
    ]


def test_show_quantizes_wide_cycles(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["pattern", "show", 's("bd*7, hh*11")', "--cycles", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "cycle 0 (48 steps, quantized)"
    assert out[1].count("x") == 7 and out[2].count("x") == 11


def test_show_silence_and_signals(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["pattern", "show", "silence", "--cycles", "1"]) == 0
    assert capsys.readouterr().out == "cycle 0: (silence)\n"
    assert run(["pattern", "show", "sine", "--cycles", "1"]) == 0
    assert "continuous signal" in capsys.readouterr().out


def test_render_writes_midi_and_wav(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mid, wav = tmp_path / "loop.mid", tmp_path / "loop.wav"
    code = 'stack(s("bd*4"), note("c3 eb3 g3 bb3").s("sawtooth"))'
    args = [
        "pattern",
        "render",
        code,
        "--cycles",
        "2",
        "--bpm",
        "100",
        "--out",
        str(mid),
        "--wav",
        str(wav),
    ]
    assert run(args) == 0
    assert "2 tracks, 16 notes" in capsys.readouterr().out
    midi = mido.MidiFile(mid)
    notes = [m for t in midi.tracks for m in t if m.type == "note_on" and m.velocity > 0]
    assert sorted({m.note for m in notes}) == [36, 48, 51, 55, 58]
    assert {m.channel for m in notes if m.note == 36} == {9}
    tempo = [m.tempo for t in midi.tracks for m in t if m.type == "set_tempo"]
    assert tempo == [600000]
    with wave.open(str(wav)) as w:
        assert w.getnframes() / w.getframerate() >= 2 * 4 * 60 / 100


def test_render_plays_a_program_at_its_own_tempo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A program's setcpm is its tempo (24 cycles a minute × 4 beats = 96 BPM) unless --bpm says
    otherwise; what it asks for that is not honoured (a samples() URL) is a note on stderr."""
    mid = tmp_path / "prog.mid"
    code = 'setcpm(24)\nsamples("github:tidalcycles/dirt-samples")\n$: s("bd sd")\n$: note("c3 e3")'
    assert run(["pattern", "render", code, "--cycles", "2", "--out", str(mid)]) == 0
    out, err = capsys.readouterr()
    assert "2 tracks, 8 notes, 2 cycles at 96 bpm" in out and "is not loaded" in err
    assert [m.tempo for t in mido.MidiFile(mid).tracks for m in t if m.type == "set_tempo"] == [625000]
    assert run(["pattern", "render", code, "--cycles", "2", "--bpm", "150", "--out", str(mid)]) == 0
    assert "at 150 bpm" in capsys.readouterr().out


def test_validate_text_json_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(
            ["pattern", "validate", 'n("0 2 4").s("piano").note("c3 eb3 g3")', "--scale", "C minor"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("valid: 3 events per cycle")
    assert "in scale: 12/12 (100%)" in out
    assert run(["pattern", "validate", 's("bd").fsat(2)', "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False and report["unknown_functions"] == ["fsat"]


def test_bad_code_is_one_line_and_a_caret_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["pattern", "query", 's("bd").fsat(2)']) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "bandstand: error: unknown method 'fsat' at column 9; did you mean 'fast'?",
        's("bd").fsat(2)',
        "        ^",
    ]
    assert run(["pattern", "show", 's("bd [sd")']) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("bandstand: error: in mini-notation: unexpected end of input")
    assert err[1:] == ['s("bd [sd")', "         ^"]
    assert run(["pattern", "query", 's("bd")', "--from", "2", "--to", "1"]) == 2
    assert "--to" in capsys.readouterr().err


def test_the_real_command_exits_2_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bandstand",
            "pattern",
            "render",
            "s('bd').every(2, x => x.__class__)",
            "--out",
            str(tmp_path / "x.mid"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "unknown method '__class__' at column 25" in proc.stderr
    assert not (tmp_path / "x.mid").exists()


@pytest.mark.parametrize(
    "code",
    ['s("bd").fast(1000).fast(1000).fast(1000).fast(1000)', 's("bd").fast("<1000000>").fast("<1000000>")'],
)
def test_the_real_command_refuses_hostile_code_by_its_budget(code: str) -> None:
    """Issue 16: these ran for minutes past 1.7 GB; now query and show refuse them (one
    line, exit 2, the limit named) and validate answers that they are too dense (exit 1)."""
    for command, status in (("query", 2), ("show", 2), ("validate", 1)):
        proc = subprocess.run(
            [sys.executable, "-m", "bandstand", "pattern", command, code],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert proc.returncode == status, (command, proc.stderr)
        assert "Traceback" not in proc.stderr
        if status == 2:
            assert proc.stderr.count("\n") == 1 and "query budget" in proc.stderr
        else:
            assert "error: too dense" in proc.stdout and "query budget" in proc.stdout
