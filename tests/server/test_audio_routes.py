"""The pages' sound: the SoundFont the render uses and the in-page synthesizer's files,
served from where the setup installed them (and refused everywhere else)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.render.soundfont import find_soundfont
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from bandstand.server.routes import audio


@pytest.fixture
def client() -> Iterator[TestClient]:
    config = ServerConfig(port=8765, token="t" * 32)
    app = create_app(config, resolve_members(["beat"]))
    with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": "Bearer " + "t" * 32}) as found:
        yield found


def fake_vendor(root: Path) -> Path:
    """A node_modules folder with the synthesizer's entry points (as npm ci lays them out)."""
    for package, files in {"spessasynth_lib": audio.SYNTH_FILES, "spessasynth_core": ("dist/index.js",),
                           "stb-vorbis": ("dist/index.js",)}.items():
        for name in (*files, "package.json", "dist/index.js.map"):
            path = root / package / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text('{"version": "9.9.9"}' if name == "package.json" else f"// {package}/{name}\n")
    (root / "secret.js").write_text("// outside every package\n")
    return root


def test_the_soundfont_is_the_one_the_render_uses(client: TestClient) -> None:
    got = client.get("/audio/soundfont.sf2")
    assert got.status_code == 200 and got.content == find_soundfont().read_bytes()
    status = client.get("/api/v1/audio").json()
    assert status["soundfont"] == {"available": True, "name": find_soundfont().name,
                                   "bytes": len(got.content), "url": "/audio/soundfont.sf2"}
    assert abs(status["now"] - time.time()) < 60  # the server's clock, for the pages' playheads
    again = client.get("/audio/soundfont.sf2", headers={"if-none-match": got.headers["etag"]})
    assert again.status_code == 304 and again.content == b""  # a reloaded page keeps its copy
    assert client.get("/audio/soundfont.sf2", headers={"if-none-match": '"other"'}).status_code == 200


def test_no_soundfont_is_a_404_and_says_why(client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BANDSTAND_SOUNDFONT", str(tmp_path / "missing.sf2"))
    got = client.get("/audio/soundfont.sf2")
    assert got.status_code == 404 and "BANDSTAND_SOUNDFONT" in got.json()["detail"]
    assert client.get("/api/v1/audio").json()["soundfont"]["available"] is False


def test_the_synthesizer_is_served_from_where_it_was_installed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(audio.VENDOR_ENV, str(fake_vendor(tmp_path)))
    synth = client.get("/api/v1/audio").json()["synth"]
    assert synth["available"] is True and synth["version"] == "9.9.9"
    for url in (synth["module"], synth["processor"], *synth["imports"].values()):
        got = client.get(url)
        assert got.status_code == 200 and got.headers["content-type"].startswith("text/javascript")
    refused = ["/audio/vendor/spessasynth_lib/dist/index.js.map", "/audio/vendor/spessasynth_lib/package.json",
               "/audio/vendor/spessasynth_lib/../secret.js", "/audio/vendor/spessasynth_lib/%2e%2e/secret.js",
               "/audio/vendor/left-pad/dist/index.js", "/audio/vendor/spessasynth_lib/dist/missing.js"]
    for url in refused:
        assert client.get(url).status_code == 404, url


def test_without_the_synthesizer_the_page_is_told_to_fall_back(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(audio.VENDOR_ENV, str(tmp_path / "empty"))
    assert client.get("/api/v1/audio").json()["synth"]["available"] is False
    assert client.get("/audio/vendor/spessasynth_lib/dist/index.js").status_code == 404


def test_the_sound_needs_the_token_like_everything_else(client: TestClient) -> None:
    for url in ("/audio/soundfont.sf2", "/api/v1/audio"):
        assert client.get(url, headers={"authorization": ""}).status_code == 401


def test_the_docs_show_what_the_endpoint_answers(client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import json
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "web-audio.md").read_text(encoding="utf-8")
    shown = json.loads(re.search(r"```json\n(.*?)```", doc, re.S).group(1))  # type: ignore[union-attr]
    monkeypatch.setenv(audio.VENDOR_ENV, str(fake_vendor(tmp_path)))
    real = client.get("/api/v1/audio").json()

    def shape(value: object) -> object:
        return {k: shape(v) for k, v in value.items()} if isinstance(value, dict) else type(value).__name__

    assert shape(shown) == shape(real)
    assert shown["synth"] | {"version": None} == real["synth"] | {"version": None}
    assert shown["soundfont"]["url"] == real["soundfont"]["url"]
