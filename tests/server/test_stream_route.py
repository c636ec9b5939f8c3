"""The stream route's transport in process: every event one SSE message (`id`,
`data`), a keep-alive comment whenever nothing was said for a while (here while
a slow model thinks), and the route's headers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from starlette.testclient import TestClient

from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.jam.persona import resolve_members
from bandstand.producer.sessions.studio import Studio, Timeouts
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig
from tests.peers.studio_model import ANSWER, StudioModel
from tests.producer.conftest import composed  # noqa: F401

TOKEN = "t" * 32


def test_keep_alive_comments_while_nothing_is_said(composed: Callable[..., Path], tmp_path: Path) -> None:  # noqa: F811
    source = composed("funk groove", 3, 16)
    shutil.copytree(source, tmp_path / source.name)
    with StudioModel() as peer:
        backend = OpenAIBackend(base_url=peer.url + "/v1", api_key="test-key", model="local", backoff=0.001)
        studio = Studio(tmp_path, backend=backend, timeouts=Timeouts(idle_comment=0.1))
        app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]), studio=studio)
        with TestClient(app, base_url="http://127.0.0.1:8765", headers={"authorization": f"Bearer {TOKEN}"}) as client:
            body = {"prompt": "[[slow:0.8]] why is it so quiet?", "projectId": source.name}
            with client.stream("POST", "/api/v1/stream", json=body) as answer:
                assert answer.status_code == 200
                assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
                assert answer.headers["x-bandstand-project"] == source.name
                lines = list(answer.iter_lines())
    comments = [ln for ln in lines if ln.startswith(":")]
    assert len(comments) >= 3 and set(comments) == {": keep-alive"}
    data = [ln for ln in lines if ln.startswith("data: ")]
    assert data[0].startswith('data: {"type":"state","seq":1,') and '"type":"complete"' in data[-1]
    assert ANSWER.split()[0] in "".join(data)
