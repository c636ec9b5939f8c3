"""Errors as HTTP answers: a user's mistake is a 4xx with one clear line
(`{"detail": "…"}`), chosen from a table by the error's class; the server never
answers a mistake with a 500. A request that does not fit a route's parameters
(a missing field, a number that is text) is a 422 with one line naming the
field, and the OpenAPI document says so (`ErrorBody`)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from bandstand.errors import Conflict, NotFound, UserError, VariationConflict

__all__ = ["ERROR_RESPONSES", "STATUS", "ErrorBody", "install", "one_line", "status_of"]

STATUS: tuple[tuple[type[UserError], int], ...] = (
    (NotFound, 404), (Conflict, 409), (VariationConflict, 409), (UserError, 422))
"""Error class → HTTP status; the first match wins (most specific first)."""


class ErrorBody(BaseModel):
    """Every error answer: one line saying what was wrong and what to do."""

    detail: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "no such project, revision or variation"},
    409: {"model": ErrorBody, "description": "does not fit the current state (a stale variation, nothing to undo)"},
    422: {"model": ErrorBody, "description": "invalid input, named by field"},
}
"""The error answers an API route documents (routers pass it as `responses=`)."""


def status_of(error: UserError) -> int:
    return next(code for kind, code in STATUS if isinstance(error, kind))


async def user_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, UserError)
    return JSONResponse({"detail": str(exc)}, status_code=status_of(exc))


def one_line(exc: RequestValidationError) -> str:
    """The first problem of a request that does not fit its route: where, then what."""
    errors = exc.errors()
    if not errors:
        return "the request does not fit this route"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")) or "the request body"
    message = str(first.get("msg", "is not valid")).removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {message}{more}"


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return JSONResponse({"detail": one_line(exc)}, status_code=422)


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, with its validation error shape replaced by ours (one line)."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    line = {"type": "object", "properties": {"detail": {"type": "string", "title": "Detail"}},
            "required": ["detail"], "title": "ErrorBody",
            "description": "Every error answer: one line saying what was wrong and what to do."}
    if "HTTPValidationError" in schemas:
        schemas["HTTPValidationError"] = line
        schemas.pop("ValidationError", None)
    app.openapi_schema = schema
    return schema


def install(app: FastAPI) -> None:
    """Answer every `UserError` a route raises with its status and one line, and a request that
    does not fit its route with 422 and one line."""
    app.add_exception_handler(UserError, user_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
