"""Generic responders for the offline backend, nameable from a team file.

These hold no music logic (that lives in ``jam`` and ``compose``, which pass
their own responders): `echo` answers every turn with what it was asked, and
`delegating_leader` is a deterministic team leader that hands the prompt to
every teammate and, once their results are in, declares the run done with
their answers. `resolve` turns a name from a file — one of `RESPONDERS`, or a
``"package.module:function"`` import path — into the callable.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from bandstand.agents.algorithmic import Responder
from bandstand.agents.base import TurnRequest
from bandstand.errors import ConfigError


def echo(request: TurnRequest) -> str:
    """``"<name>: <input>"`` — deterministic, useful for wiring and tests."""
    return f"{request.name}: {request.text}"


def delegating_leader(request: TurnRequest) -> dict[str, Any]:
    """Delegate the prompt to every teammate; when results arrive, finish with them."""
    data = request.data if isinstance(request.data, Mapping) else {}
    results = data.get("results")
    if results:
        lines = [f"{r.get('from')}: {r.get('result')}" for r in results]
        return {"delegate": [], "done": True, "answer": "\n".join(lines)}
    teammates = list(data.get("teammates") or request.options.get("teammates") or [])
    prompt = str(data.get("prompt", request.text))
    return {
        "delegate": [{"to": name, "task": prompt} for name in teammates],
        "done": not teammates,
        "answer": "" if teammates else prompt,
    }


RESPONDERS: dict[str, Responder] = {"echo": echo, "delegating_leader": delegating_leader}


def resolve(name: str) -> Responder:
    """A responder by table name or ``module:attribute`` path."""
    if name in RESPONDERS:
        return RESPONDERS[name]
    module_name, sep, attr = name.partition(":")
    if not sep:
        known = ", ".join(sorted(RESPONDERS))
        raise ConfigError(
            f"unknown responder '{name}'; use one of {known} or 'package.module:function'"
        )
    try:
        found = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"responder '{name}' cannot be imported: {exc}") from exc
    if not callable(found):
        raise ConfigError(f"responder '{name}' is not callable")
    return found  # type: ignore[no-any-return]
