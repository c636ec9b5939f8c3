"""The page addresses' one-time tokens (`PageTickets`): a page URL carries a ticket, never the
server's token, and a ticket is good for one swap for the page's cookie (`security.AccessControl`
spends them; `POST /api/v1/page-links` mints them)."""

from __future__ import annotations

import hmac
import secrets

__all__ = ["PageTickets"]


class PageTickets:
    """The tokens a page URL may carry (never the server's token), each good for one swap for the
    cookie: the printed URL's and each from `POST /api/v1/page-links` — at most `most` waiting (the
    oldest go first)."""

    def __init__(self, most: int = 16) -> None:
        self.waiting: list[str] = []
        self.most = most

    def mint(self) -> str:
        ticket = secrets.token_urlsafe(32)
        self.waiting = [*self.waiting, ticket][-self.most:]
        return ticket

    def spend(self, given: str) -> bool:
        """True (and never again) when `given` is a waiting ticket."""
        for ticket in self.waiting:
            if hmac.compare_digest(given.encode(), ticket.encode()):
                self.waiting.remove(ticket)
                return True
        return False
