"""Errors as HTTP answers: a user's mistake is a 4xx with one clear line
(`{"detail": "…"}`), chosen from a table by the error's class; the server never
answers a mistake with a 500."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from bandstand.errors import Conflict, NotFound, UserError

STATUS: tuple[tuple[type[UserError], int], ...] = ((NotFound, 404), (Conflict, 409), (UserError, 422))
"""Error class → HTTP status; the first match wins (most specific first)."""


def status_of(error: UserError) -> int:
    return next(code for kind, code in STATUS if isinstance(error, kind))


async def user_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, UserError)
    return JSONResponse({"detail": str(exc)}, status_code=status_of(exc))


def install(app: FastAPI) -> None:
    """Answer every `UserError` a route raises with its status and one line."""
    app.add_exception_handler(UserError, user_error)
