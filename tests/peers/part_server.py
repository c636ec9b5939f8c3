"""A local model server speaking the part-generator protocol (`compose.parts.remote`,
"bandstand-part/1") on 127.0.0.1, for tests: it reads the song's situation from the request
and answers by its path.

    /good       a bass line on each bar's chord root (octave 2, quarter notes), as MIDI
    /json       the same, as JSON {"midi": base64}
    /garbage    bytes that are not MIDI
    /wrong-key  a chromatic cluster (mostly outside any key)
    /slow       the good answer after `slow` seconds
    /status     HTTP 500
    /empty      a MIDI file with no notes

Every request body is kept in `requests` (path, JSON)."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import mido


def bass_line(body: dict[str, Any], *, cluster: bool = False, empty: bool = False) -> bytes:
    """The answer's MIDI: per bar of `plays_in_bars`, its chord root in octave 2, on each beat."""
    mid = mido.MidiFile(ticks_per_beat=96)
    track = mido.MidiTrack()
    mid.tracks.append(track)
    now, beats = 0, int(body["beats_per_bar"])
    chords = {c["bar"]: c for c in body["chords"]}
    for bar in [] if empty else body["plays_in_bars"]:
        start = (bar - 1) * beats * 96
        for beat in range(beats):
            pitch = 61 + beat if cluster else 36 + chords[bar]["root"]
            at = start + beat * 96
            track.append(mido.Message("note_on", note=pitch, velocity=90, time=at - now))
            track.append(mido.Message("note_off", note=pitch, velocity=0, time=80))
            now = at + 80
    import io

    out = io.BytesIO()
    mid.save(file=out)
    return out.getvalue()


class PartServer:
    def __init__(self, slow: float = 5.0) -> None:
        self.slow = slow
        self.requests: list[tuple[str, dict[str, Any]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body))
                if self.path == "/status":
                    self.send_response(500)
                    self.end_headers()
                    return
                if self.path == "/slow":
                    time.sleep(server.slow)
                kind, payload = "audio/midi", bass_line(body, cluster=self.path == "/wrong-key",
                                                        empty=self.path == "/empty")
                if self.path == "/garbage":
                    payload = b"MThd but not really a MIDI file"
                if self.path == "/json":
                    kind, payload = "application/json", json.dumps({"midi": base64.b64encode(payload).decode()}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up waiting (/slow)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> PartServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
