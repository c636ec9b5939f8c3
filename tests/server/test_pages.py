"""The pages: the jam at `/`, the studio at `/studio`; each is opened once with the
printed `?token=` (a cookie and a redirect to the same page, the token never in the
page), and without it says how to get in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from bandstand.jam.persona import resolve_members
from bandstand.server.app import create_app
from bandstand.server.config import ServerConfig

TOKEN = "p" * 32


@pytest.fixture
def browser() -> Iterator[TestClient]:
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]))
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as client:
        yield client


@pytest.mark.parametrize(("path", "title"), [("/", "bandstand — jam"), ("/studio", "bandstand — studio")])
def test_each_page_is_opened_with_the_printed_url(browser: TestClient, path: str, title: str) -> None:
    bare = browser.get(path)
    assert bare.status_code == 401 and "?token=" in bare.text and TOKEN not in bare.text
    first = browser.get(f"{path}?token={TOKEN}")
    assert first.status_code == 303 and first.headers["location"] == path
    assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
    page = browser.get(path)  # the cookie now
    assert page.status_code == 200 and f"<title>{title}</title>" in page.text and TOKEN not in page.text
    assert browser.get("/static/studio/app.js").status_code == 200


def test_a_token_opens_only_pages(browser: TestClient) -> None:
    assert browser.get(f"/api/v1/runs?token={TOKEN}").status_code == 401
    assert browser.get(f"/static/studio/app.js?token={TOKEN}").status_code == 401
