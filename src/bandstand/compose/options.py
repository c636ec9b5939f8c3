"""Compose's options as a person gives them (CLI flags, API keywords) → a validated
`PipelineConfig` (`make_config`), and step names or numbers → the graph's node names
(`node_names`). Everything is checked before a session folder exists."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from bandstand.compose.intent import Overrides
from bandstand.compose.stages import supported_roles
from bandstand.compose.state import SKIPPABLE, STEPS, PipelineConfig, part_node
from bandstand.errors import ConfigError, InvalidInput

__all__ = ["make_config", "node_names"]


def node_names(values: Iterable[int | str], what: str) -> list[str]:
    """Node names from what a person typed: a step name (`harmony`, `parts`), a part node
    (`parts:bass`), or a step's position 1–8 (`--approve 2` pauses after harmony)."""
    parts = {part_node(r) for r in supported_roles()}
    out: list[str] = []
    for v in values:
        text = str(v).strip().lower()
        name = STEPS[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(STEPS) else text
        if name not in STEPS and name not in parts:
            raise InvalidInput(f"unknown step '{v}' for {what}; use a name ({', '.join(STEPS)}), "
                               "a part such as parts:bass, or a number 1–8")
        if name not in out:
            out.append(name)
    return out


def make_config(**options: Any) -> PipelineConfig:
    """A validated `PipelineConfig` from keyword options (CLI flags and API keywords)."""
    if "skip_stages" in options:
        options["skip_stages"] = node_names(options["skip_stages"] or [], "skip")
        critical = [n for n in options["skip_stages"] if n not in SKIPPABLE]
        if critical:
            raise InvalidInput(f"{critical[0]} is critical and cannot be skipped; "
                               f"skip {', '.join(SKIPPABLE)} (or 3, 5, 6, 7, 8)")
    if "approval_gates" in options:
        options["approval_gates"] = node_names(options["approval_gates"] or [], "approval")
    parts = options.get("parts")
    if parts is not None:
        parts = [p.strip().lower().replace("-", "_") for p in ([parts] if isinstance(parts, str) else parts)]
        parts = [p for part in parts for p in part.split(",") if p]
        roles = supported_roles()
        unknown = [p for p in parts if p not in roles]
        if unknown or not parts:
            raise InvalidInput(f"unknown part '{unknown[0] if unknown else ''}'; use any of: {', '.join(roles)}")
        options["parts"] = parts
    Overrides(tempo=options.get("tempo"), key=options.get("key"), mode=options.get("mode"),
              bars=options.get("bars"), genre=options.get("genre")).validated()
    try:
        return PipelineConfig(**options)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"bad compose option {where}: {first['msg']}") from exc
    except TypeError as exc:
        raise ConfigError(f"bad compose option: {exc}") from exc
