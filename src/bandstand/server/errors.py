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
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from bandstand.errors import Conflict, NotFound, UserError, VariationConflict

__all__ = ["ANSWERS", "ERROR_RESPONSES", "STATUS", "STRICT", "ErrorBody", "install", "one_line", "status_of"]

STATUS: tuple[tuple[type[UserError], int], ...] = (
    (NotFound, 404), (Conflict, 409), (VariationConflict, 409), (UserError, 422))
"""Error class → HTTP status; the first match wins (most specific first)."""


STRICT = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=True,
                    validate_by_alias=True, strict=True)
"""How the API's request bodies are read: camelCase, unknown keys refused, no type guessing
(a `seed` of `false` is not 0)."""


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


ANSWERS: dict[int, str] = {
    400: "the body is not JSON", 401: "no or wrong access token", 403: "a foreign Host or Origin",
    404: "no such thing (project, revision, variation, conversation, file)",
    409: "does not fit the current state (a stale variation, nothing to undo, the jam not running)",
    413: "the request body is too large", 422: "invalid input, named by field",
}
"""The error answers every API route may give (the access checks and the handlers above)."""


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, with every error answer as it really is: one line of JSON
    (`ErrorBody`), on every API route, whatever the route's own media type."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    line = {"type": "object", "properties": {"detail": {"type": "string", "title": "Detail"}},
            "required": ["detail"], "title": "ErrorBody",
            "description": "Every error answer: one line saying what was wrong and what to do."}
    schemas["ErrorBody"] = line
    if "HTTPValidationError" in schemas:
        schemas["HTTPValidationError"] = line
        schemas.pop("ValidationError", None)
    json_line = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for path, item in schema.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for operation in item.values():
            responses = operation.setdefault("responses", {})
            for code, words in ANSWERS.items():
                responses.setdefault(str(code), {"description": words})
            for code, answer in responses.items():
                if code.isdigit() and int(code) >= 400:
                    answer["content"] = json_line
    app.openapi_schema = schema
    return schema


def _methods(app: FastAPI, path: str) -> list[str]:
    """The methods the OpenAPI document gives `path` (the routes of one path are separate)."""
    import re

    paths = app.openapi().get("paths", {})
    if path in paths:  # a path the document names as it is (not through a parameter)
        return sorted(m.upper() for m in paths[path])
    out: set[str] = set()
    for template, item in paths.items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            out |= {m.upper() for m in item}
    return sorted(out)


async def not_allowed(request: Request, exc: Exception) -> JSONResponse:
    """An HTTP error as one line; a 405 says every method the path answers to."""
    from starlette.exceptions import HTTPException as StarletteHTTPException

    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        methods = _methods(request.app, request.url.path)
        if methods:
            headers["Allow"] = ", ".join(methods)
    return JSONResponse({"detail": str(exc.detail)}, status_code=exc.status_code, headers=headers)


def install(app: FastAPI) -> None:
    """Answer every `UserError` a route raises with its status and one line, and a request that
    does not fit its route with 422 and one line."""
    from starlette.exceptions import HTTPException as StarletteHTTPException

    app.add_exception_handler(UserError, user_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, not_allowed)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
