"""Interop figures, printed as JSON: the time to import a 10,000-note MIDI file as a project
(`bandstand import`'s use case), and whether a composed 8-bar song exported as Strudel plays
back as its MIDI notes — in Strudel under node (tests/patterns/strudel, when installed) and,
track by track (`pattern from-midi`), in bandstand's own pattern engine — and how evenly live
out sends OSC ahead of time: a 16-bar song played to a local UDP socket standing in for
SuperDirt, each bundle's send-ahead (its timestamp less its arrival) against the latency
asked for (`osc_timing`, milliseconds; needs python-osc).

    python benchmarks/interop.py            # everything
    python benchmarks/interop.py osc        # only the OSC timing
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTES = 10_000


def _ten_thousand_notes(path: Path) -> None:
    from bandstand.midi import write_midi
    from bandstand.score import Note, Song, Track

    tracks = [Track("Drums", "drums", is_drum=True), Track("Bass", "bass", program=33),
              Track("Keys", "chords", program=4), Track("Lead", "lead", program=80)]
    for i in range(NOTES):
        track = tracks[i % 4]
        beat = (i // 4) * 0.25
        pitch = (36, 40 + i % 12, 60 + i % 7, 72 + i % 12)[i % 4]
        track.notes.append(Note(beat, 0.25 if track.is_drum else 0.5, pitch, 60 + i % 60))
    write_midi(Song(title="ten thousand", tempo=120.0, tracks=tracks), path)


def _import_seconds(work: Path) -> dict[str, object]:
    from bandstand.producer.sessions.importing import import_midi

    source = work / "big.mid"
    _ten_thousand_notes(source)
    began = time.perf_counter()
    made = import_midi(source, projects=work / "projects")
    seconds = time.perf_counter() - began
    return {"notes": NOTES, "bars": sum(s.bars for s in made.sections), "seconds": round(seconds, 3),
            "sections_source": made.sections_source}


def _midi_notes(path: Path) -> list[tuple[int, int, int, int, bool]]:
    import mido

    out = []
    for track in mido.MidiFile(path).tracks:
        tick, held = 0, {}
        for m in track:
            tick += m.time
            if m.type == "note_on" and m.velocity:
                held.setdefault((m.channel, m.note), []).append((tick, m.velocity))
            elif m.type in ("note_on", "note_off"):
                start, velocity = held[(m.channel, m.note)].pop(0)
                out.append((start, m.note, tick - start, velocity, m.channel == 9))
    return out


def _export_identity(work: Path) -> dict[str, object]:
    from bandstand.craft.to_strudel import drum_sound
    from bandstand.producer.composing.compose import compose_song
    from bandstand.producer.sessions.export import export_session, midi_clip

    session = compose_song("funk groove", seed=3, bars=8, out_dir=str(work / "songs"), render_audio=False,
                           render_pianoroll=False).result.session_dir
    program = export_session(session, "strudel", work / "export").files[0].read_text(encoding="utf-8")
    full = session / "midi" / "full-arrangement.mid"
    notes = _midi_notes(full)
    expected = Counter((t, drum_sound(p) if d else p, n, v) for t, p, n, v, d in notes)
    result: dict[str, object] = {"notes": len(notes), "program_bytes": len(program.encode())}
    strudel = ROOT / "tests" / "patterns" / "strudel"
    if shutil.which("node") and (strudel / "node_modules" / "@strudel" / "transpiler").is_dir():
        began = time.perf_counter()
        done = subprocess.run(["node", "--import", "./register.mjs", "repl.mjs"], cwd=strudel, text=True,
                              input=json.dumps({"code": program, "cycles": 8}), capture_output=True, check=True)
        played = json.loads(done.stdout)
        heard = Counter()
        for h in played["haps"]:
            v = h["value"]
            begin = Fraction(h["begin"]) * 4 * 480
            length = (Fraction(h["end"]) - Fraction(h["begin"])) * 4 * 480
            heard[(int(begin), v["s"] if "note" not in v else v["note"], int(length), round(v["velocity"] * 127))] += 1
        result["strudel_identical"] = heard == expected
        result["strudel_seconds"] = round(time.perf_counter() - began, 3)
    else:
        result["strudel_identical"] = None  # node or the Strudel reference is not installed
    from bandstand.patterns import evaluate, pattern_to_song

    same = True
    track = 1
    while True:
        try:
            clip = midi_clip(full, track)
        except Exception:
            break
        song = pattern_to_song(evaluate(clip.code), cycles=clip.bars, beats_per_cycle=int(clip.beats_per_bar))
        same = same and sum(len(t.notes) for t in song.tracks) > 0
        track += 1
    result["engine_tracks_played"] = track - 1 if same else 0  # exact note identity: tests/producer/test_midi_clip.py
    return result


def _osc_timing(latency: float = 0.2) -> dict[str, object]:
    import socket

    from bandstand.jam.liveout import Scheduler, song_cues
    from bandstand.jam.liveout.osc import OscOut
    from bandstand.score import Note, Song, Track

    hats, bass = Track("Drums", "drums", is_drum=True), Track("Bass", "bass", program=33)
    for i in range(16 * 16):  # 16 bars of 16th-note hats, a kick a beat, 8th-note bass
        hats.notes.append(Note(i * 0.25, 0.1, 42, 80))
        if i % 4 == 0:
            hats.notes.append(Note(i * 0.25, 0.1, 36, 110))
        if i % 2 == 0:
            bass.notes.append(Note(i * 0.25, 0.4, 36 + i % 12, 90))
    song = Song(title="timing", tempo=240.0, tracks=[hats, bass])
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(5)
    from pythonosc.osc_bundle import OscBundle

    cues = song_cues(song, time.time() + 0.5)
    notes = sum(c.kind == "note" for c in cues)
    scheduler = Scheduler([OscOut("127.0.0.1", receiver.getsockname()[1], latency=latency)])
    scheduler.push(cues)
    errors = []
    for _ in range(notes):
        data = receiver.recv(65536)
        errors.append((OscBundle(data).timestamp - time.time()) - latency)
    scheduler.close()
    receiver.close()
    late = sorted(abs(e) for e in errors)

    def ms(x: float) -> float:
        return round(x * 1000, 3)

    return {"bundles": notes, "seconds": round(song.beats_to_seconds(song.length_beats), 2), "latency_ms": ms(latency),
            "send_ahead_error_ms": {"p50": ms(late[len(late) // 2]), "p95": ms(late[int(len(late) * 0.95)]),
                                    "max": ms(late[-1])},
            "sent_after_their_time": sum(e < -latency for e in errors)}


def main() -> None:
    if sys.argv[1:] == ["osc"]:
        print(json.dumps({"osc_timing": _osc_timing(), "python": sys.version.split()[0]}, indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="bandstand-interop-") as tmp:
        work = Path(tmp)
        figures = {"import_10k_notes": _import_seconds(work), "export_round_trip": _export_identity(work),
                   "osc_timing": _osc_timing(), "python": sys.version.split()[0]}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
