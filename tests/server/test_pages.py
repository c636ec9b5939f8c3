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
BEARER = {"authorization": f"Bearer {TOKEN}"}


def ticket(browser: TestClient, page: str = "jam") -> str:
    """A page address's one-time token, as `serve` prints one (`POST /api/v1/page-links`)."""
    url = browser.post(f"/api/v1/page-links?page={page}", headers=BEARER).json()["url"]
    return str(url.split("?token=", 1)[1])


@pytest.fixture
def browser() -> Iterator[TestClient]:
    app = create_app(ServerConfig(port=8765, token=TOKEN), resolve_members(["beat"]))
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as client:
        yield client


@pytest.mark.parametrize(("path", "title"), [("/", "bandstand — jam"), ("/studio", "bandstand — studio")])
def test_each_page_is_opened_with_the_printed_url(browser: TestClient, path: str, title: str) -> None:
    bare = browser.get(path)
    assert bare.status_code == 401 and "?token=" in bare.text and TOKEN not in bare.text
    assert browser.get(f"{path}?token={TOKEN}").status_code == 401  # the API token opens no page
    first = browser.get(f"{path}?token={ticket(browser)}")
    assert first.status_code == 303 and first.headers["location"] == path
    assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
    page = browser.get(path)  # the cookie now
    assert page.status_code == 200 and f"<title>{title}</title>" in page.text and TOKEN not in page.text
    assert browser.get("/static/studio/app.js").status_code == 200


def test_a_ticket_opens_only_pages(browser: TestClient) -> None:
    for token in (TOKEN, ticket(browser)):
        assert browser.get(f"/api/v1/runs?token={token}").status_code == 401
        assert browser.get(f"/static/studio/app.js?token={token}").status_code == 401


def test_a_page_address_opens_the_page_once(browser: TestClient) -> None:
    once = ticket(browser)
    first = browser.get(f"/?token={once}")
    assert first.status_code == 303 and "set-cookie" in first.headers
    again = browser.get(f"/?token={once}")  # the cookie is there: on to the page, no new cookie
    assert again.status_code == 303 and again.headers["location"] == "/" and "set-cookie" not in again.headers
    assert browser.get("/").status_code == 200  # the cookie keeps working
    browser.cookies.clear()
    history = browser.get(f"/?token={once}")  # the same address from the browser's history, without the cookie
    assert history.status_code == 401 and "opens the page once" in history.text and TOKEN not in history.text
    assert browser.get("/api/v1/jam/state", headers={"authorization": f"Bearer {once}"}).status_code == 401
    assert browser.get("/api/v1/jam/state", headers=BEARER).status_code == 200


def test_a_new_page_address_is_made_for_another_browser(browser: TestClient) -> None:
    made = browser.post("/api/v1/page-links?page=studio", headers=BEARER)
    assert made.status_code == 201
    url = made.json()["url"]
    assert url.startswith("http://127.0.0.1:8765/studio?token=") and TOKEN not in url
    path = url.removeprefix("http://127.0.0.1:8765")
    assert browser.get(path).status_code == 303 and browser.get("/studio").status_code == 200
    browser.cookies.clear()
    assert browser.get(path).status_code == 401
    assert browser.post("/api/v1/page-links").status_code == 401  # only for who has the token


def test_the_pages_take_a_token_out_of_their_address() -> None:
    from bandstand.server.routes.pages import web_root

    for script in ("app.js", "studio/app.js"):
        text = (web_root() / script).read_text()
        assert 'history.replaceState(null, "", location.pathname + location.hash)' in text, script
