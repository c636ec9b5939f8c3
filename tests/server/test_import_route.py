"""`POST /api/v1/projects/import` through a real `bandstand serve`: the MIDI file's bytes as the
body become a project the API lists, directs and exports as Strudel code; the token, the Origin check and the body cap guard it, and a
broken file is a 422 of one line."""

from __future__ import annotations

from pathlib import Path

import httpx

from ..producer.midi_songs import four_part_song
from .jam_process import bandstand_server


def test_import_through_a_real_server(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    data = four_part_song(tmp_path / "mine.mid").read_bytes()
    with bandstand_server("serve", "--out", str(projects)) as served, \
            httpx.Client(base_url=served.base + "api/v1", headers=served.headers, timeout=120) as client:
        made = client.post("/projects/import", params={"filename": "mine.mid", "name": "Mine"}, content=data,
                           headers={"content-type": "audio/midi"})
        assert made.status_code == 201, made.text
        body = made.json()
        found = body["import"]
        assert [p["role"] for p in found["parts"]] == ["drums", "bass", "chords", "lead"]
        assert found["tempo"] == 100 and found["sections_source"] == "repetition"
        project = body["projectId"]
        assert project in [p["projectId"] for p in client.get("/projects").json()["projects"]]
        assert client.get(f"/projects/{project}").status_code == 200
        program = client.get(f"/projects/{project}/export", params={"format": "strudel"})
        assert program.status_code == 200 and program.headers["content-type"].startswith("text/javascript")
        assert "setcpm(100 / 4)" in program.text and '.s("gm_electric_bass_finger")' in program.text

        broken = client.post("/projects/import", params={"filename": "bad.mid"}, content=b"MThd broken")
        assert broken.status_code == 422
        assert broken.json()["detail"].startswith("bad.mid is not a readable MIDI file")
        assert "\n" not in broken.json()["detail"]

        empty = client.post("/projects/import", content=b"")
        assert empty.status_code == 422 and "body" in empty.json()["detail"]

        too_big = client.post("/projects/import", content=b"\0" * (1024 * 1024 + 1))
        assert too_big.status_code == 413

        stranger = httpx.post(served.base + "api/v1/projects/import", content=data, timeout=30)
        assert stranger.status_code == 401
        elsewhere = client.post("/projects/import", content=data, headers={"origin": "https://evil.example"})
        assert elsewhere.status_code == 403  # another site's page cannot import into your studio
    assert len([p for p in projects.iterdir() if p.name.startswith("session-")]) == 1
