"""Sound in the browser, measured: which way the pages should play General MIDI.

(b) a SoundFont synthesizer in the page (spessasynth_lib in an AudioWorklet, the
    pages' web/audio module) against (a) audio rendered by the server with
    TinySoundFont and streamed to an AudioWorklet ring buffer, and the oscillator
    fallback for reference. Headless Debian chromium through Playwright, a real
    `bandstand serve`, sound enabled by a click as a person would.

- latency: notes scheduled on the audio clock are recorded from the page's own
  output (a probe worklet); onset − scheduled time per note, next to the
  onset of the same note in TinySoundFont (the sample's own attack); the
  browser's baseLatency/outputLatency. For (a): the server's render time of a
  streamed chunk, the loopback fetch time, and the jitter buffer a stream needs.
- CPU: the browser's process tree while the page plays a 5-part composed song
  (SongPlayer) and while it plays the jam band, per process type and for the
  renderer's main thread and audio threads (/proc), for each way.
- fidelity: the same bars recorded from the page and synthesized by
  `bandstand.render` (dry, same SoundFont): onset F1 (±50 ms), mel-spectrogram
  correlation frame by frame, and the long-term spectrum's distance (dB); and
  the same recording against the WAV `bandstand render` writes (the synthesis
  mixed with the song's mix and mastered).

    python benchmarks/web_audio.py [--seconds 8]      # prints JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

PROMPT = "warm neo-soul groove, 96 BPM"
SEED = 3
BARS = 8
PARTS = ["drums", "bass", "chords", "lead", "pad"]
SR = 44100
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

RECORDER = """class Rec extends AudioWorkletProcessor {
  constructor(o) { super(); this.n = o.processorOptions.n; this.buf = new Float32Array(this.n); this.i = 0; this.start = -1;
    this.port.onmessage = () => { this.go = true; }; }
  process(inputs) {
    const input = inputs[0];
    if (!this.go || !input.length) return true;
    if (this.start < 0) this.start = currentFrame;
    const a = input[0], b = input[1] || input[0];
    for (let k = 0; k < a.length && this.i < this.n; k++) this.buf[this.i++] = (a[k] + b[k]) / 2;
    if (this.i >= this.n && !this.sent) { this.sent = true; this.port.postMessage({start: this.start, buf: this.buf}); }
    return true;
  }
}
registerProcessor("bench-rec", Rec);"""

PCM_PLAYER = """class Ring extends AudioWorkletProcessor {
  constructor() { super(); this.chunks = []; this.pos = 0; this.port.onmessage = (e) => this.chunks.push(e.data); }
  process(_, outputs) {
    const out = outputs[0];
    for (let i = 0; i < out[0].length; i++) {
      const c = this.chunks[0]; if (!c) break;
      out[0][i] = c[2 * this.pos]; out[1][i] = c[2 * this.pos + 1];
      if (++this.pos * 2 >= c.length) { this.chunks.shift(); this.pos = 0; }
    }
    return true;
  }
}
registerProcessor("bench-ring", Ring);"""

SETUP_JS = """async ([recorder, player]) => {
  const audio = window.bandstand.audio, ctx = audio.ctx;
  for (const src of [recorder, player]) await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([src], {type: "text/javascript"})));
  window.bench = {
    record(seconds) {
      const node = new AudioWorkletNode(ctx, "bench-rec", {processorOptions: {n: Math.floor(seconds * ctx.sampleRate)}});
      const sink = ctx.createGain(); sink.gain.value = 0; audio.output.connect(node); node.connect(sink).connect(ctx.destination);
      const done = new Promise((r) => { node.port.onmessage = (e) => r(e.data); });
      node.port.postMessage("go");
      return done.then((d) => { audio.output.disconnect(node); return {start: d.start / ctx.sampleRate, buf: Array.from(d.buf)}; });
    },
  };
  return {sampleRate: ctx.sampleRate, baseLatency: ctx.baseLatency, outputLatency: ctx.outputLatency,
          mode: audio.mode, workletClockOffset: audio.voices.offset ?? null, heardLatency: audio.latency(),
          serverClockOffset: audio.serverOffset, clockRoundTrip: audio.clockRtt};
}"""


# ---------------------------------------------------------------------------- processes


def start_server(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "bandstand", "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env={**os.environ, **env}, start_new_session=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if "http://" not in first:
        raise RuntimeError(f"the server did not start: {first!r}")
    return proc, "http://" + first.split("http://", 1)[1].split()[0]


def stop_server(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(15)


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


def _ticks(stat: str) -> int:
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_snapshot() -> dict[str, int]:
    """CPU ticks of this process's chromium tree: per process type, and the renderers' threads by name
    (`renderer:main` is the page's main thread)."""
    out: dict[str, int] = {}
    for pid in descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
            if "chrom" not in cmd:
                continue
            kind = next((a.split("=", 1)[1] for a in cmd.split() if a.startswith("--type=")), "browser")
            if "--utility-sub-type=audio" in cmd:
                kind = "audio-service"
            out[kind] = out.get(kind, 0) + _ticks(Path(f"/proc/{pid}/stat").read_text())
            if kind == "renderer":
                for tid in os.listdir(f"/proc/{pid}/task"):
                    name = "main" if tid == str(pid) else Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
                    key = "renderer:" + name
                    out[key] = out.get(key, 0) + _ticks(Path(f"/proc/{pid}/task/{tid}/stat").read_text())
        except OSError:
            continue
    return out


def cpu_percent(before: dict[str, int], after: dict[str, int], seconds: float) -> dict[str, float]:
    hz = os.sysconf("SC_CLK_TCK")
    keys = sorted(set(before) | set(after))
    out = {k: round(100 * (after.get(k, 0) - before.get(k, 0)) / hz / seconds, 1) for k in keys}
    out = {k: v for k, v in out.items() if v > 0 or ":" not in k}  # threads that did nothing are left out
    out["total"] = round(sum(v for k, v in out.items() if ":" not in k), 1)
    return out


# ---------------------------------------------------------------------------- music


def composed_song() -> Any:
    from bandstand.compose import compose

    with tempfile.TemporaryDirectory() as tmp:
        song = compose(PROMPT, seed=SEED, bars=BARS, parts=PARTS, out_dir=str(Path(tmp) / "s"),
                       render_audio=False, render_pianoroll=False).song
    assert song is not None
    return song


def song_json(song: Any) -> dict[str, Any]:
    """A bandstand Song in the shape web/audio's SongPlayer plays (with each track's fader and pan)."""
    return {"tempo": song.tempo, "tempoChanges": [{"beat": c.beat, "bpm": c.bpm} for c in song.tempo_changes],
            "tracks": [{"id": t.name, "program": t.program, "drum": t.is_drum, "volume": t.mix.volume, "pan": t.mix.pan,
                        "notes": [{"start": n.start, "duration": n.duration, "pitch": n.pitch, "velocity": n.velocity}
                                  for n in t.notes]} for t in song.tracks]}


def tsf_render(song: Any) -> np.ndarray:
    from bandstand.render.synth import synthesize

    return synthesize(song, SR, workers=1).mean(axis=1)


def wav_render(song: Any) -> np.ndarray:
    """What `bandstand render` writes: the synthesis mixed (effects, faders, sends) and mastered."""
    import wave

    from bandstand.render import render_wav

    with tempfile.TemporaryDirectory() as tmp:
        path = render_wav(song, Path(tmp) / "song.wav")
        with wave.open(str(path)) as w:
            data = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).reshape(-1, w.getnchannels())
    return data.mean(axis=1).astype(np.float32) / 32768


def tsf_onset_ms(program: int | None, key: int) -> float:
    """The onset of one note in the render's synthesizer (TinySoundFont's algorithm): the sample's
    own attack (ms to 10 % of its peak)."""
    from bandstand.render import find_soundfont
    from bandstand.render.synth import engine

    synth = engine()(samplerate=SR)
    synth.sfload(find_soundfont().read_bytes())
    channel = 9 if program is None else 0
    synth.program_change(channel, program or 0, is_drums=program is None)
    buf = np.zeros((SR // 2, 2), dtype=np.float32)
    synth.noteon(channel, key, 110)
    synth.generate_simple(len(buf), buffer=memoryview(buf).cast("B"))
    mono = np.abs(buf.mean(axis=1))
    return float(np.argmax(mono > 0.1 * mono.max()) / SR * 1000)


def onset_errors(buf: np.ndarray, start: float, times: list[float]) -> list[float]:
    errors = []
    for t in times:
        i = int((t - start) * SR)
        lo, hi = i - int(0.03 * SR), i + int(0.12 * SR)
        seg = np.abs(buf[max(0, lo):hi])
        if len(seg) == 0 or seg.max() == 0:
            continue
        errors.append(float((np.argmax(seg > 0.1 * seg.max()) + max(0, lo) - i) / SR * 1000))
    return errors


def fidelity(page: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    """The page's recording against TinySoundFont's render of the same bars (aligned at the song's start)."""
    import librosa

    n = min(len(page), len(reference))
    a, b = page[:n], reference[:n]
    mels = [librosa.power_to_db(librosa.feature.melspectrogram(y=x, sr=SR, n_mels=64, hop_length=512) + 1e-10)
            for x in (a, b)]
    loud = (mels[0].max(axis=0) > -60) & (mels[1].max(axis=0) > -60)
    corr = [float(np.corrcoef(mels[0][:, i], mels[1][:, i])[0, 1]) for i in np.flatnonzero(loud)]
    ltas = [m.mean(axis=1) - m.mean() for m in mels]
    onsets = [librosa.onset.onset_detect(y=x, sr=SR, units="time", backtrack=False) for x in (a, b)]
    hits, used = 0, set()
    for t in onsets[0]:
        match = next((j for j, u in enumerate(onsets[1]) if j not in used and abs(u - t) <= 0.05), None)
        if match is not None:
            used.add(match)
            hits += 1
    precision = hits / max(1, len(onsets[0]))
    recall = hits / max(1, len(onsets[1]))
    return {"onset_f1": round(2 * precision * recall / max(1e-9, precision + recall), 3),
            "onsets": [len(onsets[0]), len(onsets[1])],
            "mel_frame_correlation": round(float(np.mean(corr)), 3) if corr else 0.0,
            "spectrum_distance_db": round(float(np.sqrt(np.mean((ltas[0] - ltas[1]) ** 2))), 2)}


# ---------------------------------------------------------------------------- the page


def open_page(pw: Any, url: str) -> tuple[Any, Any, float]:
    browser = pw.chromium.launch(executable_path=os.environ.get("BANDSTAND_CHROMIUM") or shutil.which("chromium"),
                                 args=ARGS, headless=True)
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("#conn.on")
    t0 = time.perf_counter()
    page.click("#sound")
    page.wait_for_function("window.bandstand.audio.running", timeout=60_000)
    return browser, page, round((time.perf_counter() - t0) * 1000, 1)


def play_and_record(page: Any, song: dict[str, Any], seconds: float) -> np.ndarray:
    """Play `song` with SongPlayer and record the page's output from the song's first beat."""
    page.evaluate("""([song, seconds]) => {
      window.bench.player = window.bandstand.audio.play(song, {fromBeat: 0});
      window.bench.songRec = window.bench.record(seconds); }""", [song, seconds])
    page.wait_for_timeout(seconds * 1000)
    rec = page.evaluate("window.bench.songRec")
    origin = page.evaluate("window.bench.player.spans[0].ctx")
    page.evaluate("window.bench.player.stop()")
    return np.asarray(rec["buf"], dtype=np.float32)[max(0, int((origin - rec["start"]) * SR)):]


def measure_way(pw: Any, url: str, song: Any, seconds: float, reference: np.ndarray,
                rendered: np.ndarray) -> dict[str, Any]:
    browser, page, enable_ms = open_page(pw, url)
    try:
        info = page.evaluate(SETUP_JS, [RECORDER, PCM_PLAYER])
        result: dict[str, Any] = {"enable_ms": enable_ms, **info}
        # latency: hi-hats and piano notes at known audio-clock times
        notes = [(None, 42), (0, 72)]
        times = page.evaluate("""([notes]) => {
          const audio = window.bandstand.audio, t0 = audio.now() + 0.4, times = [];
          notes.forEach(([program, key], j) => audio.setTrack("probe" + j, program === null ? {drum: true} : {program}));
          for (let i = 0; i < 12; i++) { const [program, key] = notes[i % 2]; const t = t0 + i * 0.3;
            audio.note("probe" + (i % 2), key, 110, t, 0.1); times.push(t); }
          window.bench.rec = window.bench.record(4.4);
          return times; }""", [notes])
        rec = page.evaluate("window.bench.rec")
        buf = np.asarray(rec["buf"], dtype=np.float32)
        errors = onset_errors(buf, rec["start"], times)
        attack = [tsf_onset_ms(notes[i % 2][0], notes[i % 2][1]) for i in range(len(errors))]
        late = [e - a for e, a in zip(errors, attack, strict=True)]
        result["onset_ms"] = {"page_median": round(float(np.median(errors)), 2), "page_max": round(max(errors), 2),
                              "tinysoundfont_attack_median": round(float(np.median(attack)), 2),
                              "scheduling_error_median": round(float(np.median(late)), 2),
                              "scheduling_error_max_abs": round(float(np.max(np.abs(late))), 2), "notes": len(errors)}
        # CPU and fidelity: the composed song, recorded while it plays
        idle0, t0 = cpu_snapshot(), time.perf_counter()
        time.sleep(2)
        result["cpu_idle_percent"] = cpu_percent(idle0, cpu_snapshot(), time.perf_counter() - t0)
        before, t0 = cpu_snapshot(), time.perf_counter()
        recorded = play_and_record(page, song_json(song), seconds)
        result["cpu_song_percent"] = cpu_percent(before, cpu_snapshot(), time.perf_counter() - t0)
        result["fidelity_vs_synthesis"] = fidelity(recorded, reference)
        result["fidelity_vs_wav"] = fidelity(recorded, rendered)
        # the jam band (four members) for the same time
        page.click("#start")
        page.wait_for_function("window.bandstand.scheduled > 40", timeout=60_000)
        before, t0 = cpu_snapshot(), time.perf_counter()
        page.wait_for_timeout(seconds * 1000)
        result["cpu_jam_percent"] = cpu_percent(before, cpu_snapshot(), time.perf_counter() - t0)
        result["jam_notes_scheduled"] = page.evaluate("window.bandstand.scheduled")
        page.click("#stop")
        return result
    finally:
        browser.close()


def measure_stream(pw: Any, url: str, reference: np.ndarray, seconds: float, chunk: float = 0.1) -> dict[str, Any]:
    """(a): the page's side of a server-rendered stream — fetch round trip and throughput over loopback,
    and a ring-buffer worklet fed `chunk`-second PCM chunks in real time (CPU)."""
    browser, page, _ = open_page(pw, url)
    try:
        page.evaluate(SETUP_JS, [RECORDER, PCM_PLAYER])
        net = page.evaluate("""async () => {
          const rtt = [];
          for (let i = 0; i < 20; i++) { const t = performance.now(); await (await fetch("/api/v1/audio", {cache: "no-store"})).json(); rtt.push(performance.now() - t); }
          const t = performance.now(); const bytes = (await (await fetch("/audio/soundfont.sf2", {cache: "no-store"})).arrayBuffer()).byteLength;
          rtt.sort((a, b) => a - b);
          return {rtt_ms_median: rtt[10], rtt_ms_max: rtt[19], megabytes_per_second: bytes / 1e6 / ((performance.now() - t) / 1000)}; }""")
        frames = int(chunk * SR)
        stereo = np.repeat(reference[: int(seconds * SR)], 2).astype(np.float32)
        page.evaluate("""([pcm, frames, seconds]) => {
          const ctx = window.bandstand.audio.ctx, node = new AudioWorkletNode(ctx, "bench-ring", {outputChannelCount: [2]});
          node.connect(ctx.destination);
          const data = Float32Array.from(pcm); let i = 0;
          node.port.postMessage(data.slice(0, 4 * frames)); i = 4 * frames;  // a jitter buffer of 2 chunks (stereo)
          window.bench.feed = setInterval(() => { if (i >= data.length) return clearInterval(window.bench.feed);
            node.port.postMessage(data.slice(i, i + 2 * frames)); i += 2 * frames; }, frames / ctx.sampleRate * 1000);
        }""", [stereo.tolist(), frames, seconds])
        before, t0 = cpu_snapshot(), time.perf_counter()
        page.wait_for_timeout(seconds * 1000)
        cpu = cpu_percent(before, cpu_snapshot(), time.perf_counter() - t0)
        chunk_bytes = frames * 2 * 2  # 16-bit stereo on the wire, pushed (no request per chunk)
        return {"network": {k: round(v, 2) for k, v in net.items()}, "chunk_seconds": chunk,
                "chunk_transfer_ms": round(chunk_bytes / (net["megabytes_per_second"] * 1e6) * 1000, 2),
                "cpu_page_percent": cpu}
    finally:
        browser.close()


def server_stream_render(song: Any, chunk: float = 0.1) -> dict[str, Any]:
    """(a): the server's side — the render's synthesizer (TinySoundFont's algorithm) rendering the
    song chunk by chunk as a stream would (one synthesizer, events applied between chunks), per
    chunk and as a real-time factor."""
    from bandstand.render import find_soundfont
    from bandstand.render.synth import clock, engine
    from bandstand.score import DRUM_CHANNEL, assign_channels

    synth = engine()(samplerate=SR)
    synth.sfload(find_soundfont().read_bytes())
    seconds = clock(song)
    events = []
    for track, channel in zip(song.tracks, assign_channels(song), strict=True):
        synth.program_change(channel, track.program, is_drums=channel == DRUM_CHANNEL)
        for n in track.notes:
            events += [(seconds(n.start), 1, channel, n.pitch, n.velocity), (seconds(n.end), 0, channel, n.pitch, 0)]
    events.sort()
    frames, buf = int(chunk * SR), np.zeros((int(chunk * SR), 2), dtype=np.float32)
    view, times, i, t = memoryview(buf).cast("B"), [], 0, 0.0
    cpu0 = time.process_time()
    while t < song.duration_seconds:
        c = time.perf_counter()
        while i < len(events) and events[i][0] < t + chunk:
            _, on, ch, key, vel = events[i]
            synth.noteon(ch, key, vel) if on else synth.noteoff(ch, key)
            i += 1
        synth.generate_simple(frames, buffer=view)
        times.append((time.perf_counter() - c) * 1000)
        t += chunk
    cpu = time.process_time() - cpu0
    return {"chunk_render_ms_median": round(float(np.median(times)), 2),
            "chunk_render_ms_p95": round(float(np.percentile(times, 95)), 2),
            "server_cpu_percent_per_listener": round(100 * cpu / song.duration_seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each way plays the song and the jam")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    song = composed_song()
    reference, rendered = tsf_render(song), wav_render(song)
    report: dict[str, Any] = {"song": {"prompt": PROMPT, "seed": SEED, "bars": BARS, "tracks": len(song.tracks),
                                       "tempo": song.tempo, "seconds": round(song.duration_seconds, 2)},
                              "load_average": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as empty, sync_playwright() as pw:
        for way, env in (("in_page_soundfont", {}), ("oscillator_fallback", {"BANDSTAND_WEB_VENDOR": empty})):
            proc, url = start_server(env)
            try:
                report[way] = measure_way(pw, url, song, args.seconds, reference, rendered)
            finally:
                stop_server(proc)
        proc, url = start_server({})
        try:
            stream = measure_stream(pw, url, reference, args.seconds)
        finally:
            stop_server(proc)
    stream["server"] = server_stream_render(song)
    buffer_ms = 2 * stream["chunk_seconds"] * 1000
    stream["jitter_buffer_ms"] = buffer_ms
    # a change (mute, A/B, a new pattern): the message reaches the server (half a round trip), the audio
    # already buffered plays out, the next chunk is rendered and pushed
    stream["change_to_heard_ms"] = round(stream["network"]["rtt_ms_median"] / 2 + buffer_ms
                                         + stream["server"]["chunk_render_ms_p95"] + stream["chunk_transfer_ms"], 1)
    report["server_stream"] = stream
    report["fidelity_server_stream"] = "identical to the WAV render's synthesis (the same TinySoundFont and SoundFont)"
    report["load_average_after"] = os.getloadavg()[0]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
