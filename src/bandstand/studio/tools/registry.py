"""The tool registry: each tool is a name, a phase, one pydantic parameter
model and one pure handler `(context, project, params) → (project, result)`.
From the registry come the LLM tool schemas, the MCP tool list and
`/protocol/tools.json` (`schemas()`), and the allow-list of each execution
mode (`allowed`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from bandstand.errors import InvalidInput
from bandstand.studio.ids import IdIssuer
from bandstand.studio.model import Project
from bandstand.studio.tools.generate import PartGenerator
from bandstand.studio.tools.params import ToolParams
from bandstand.studio.tools.resolve import suggest

__all__ = ["MODES", "PHASES", "Handler", "Mode", "Phase", "Tool", "ToolContext", "ToolRegistry"]

Phase = Literal["setup", "composition", "arrangement", "soundDesign", "expression", "mixing"]
PHASES: tuple[Phase, ...] = ("setup", "composition", "arrangement", "soundDesign", "expression", "mixing")
Mode = Literal["reasoning", "editing", "composing", "direct"]
# Which phases each execution mode may call (read-only tools are allowed everywhere).
MODES: dict[str, frozenset[str]] = {
    "reasoning": frozenset(),
    "editing": frozenset({"setup", "arrangement", "soundDesign", "expression", "mixing"}),
    "composing": frozenset(PHASES),
    "direct": frozenset(PHASES),  # a person calling a tool by name (CLI `tool`, MCP)
}


BendFn = Callable[[list[tuple[float, float, int]], str, str, float], list[tuple[float, int]]]
"""(notes as (start, duration, pitch), role, style, end beat) → bends as (beat, value)."""


@dataclass(frozen=True, slots=True)
class Bender:
    """How a part's player bends: the roles that bend and the maker of their bends (the studio
    knows no musician; its caller passes the craft's)."""

    roles: tuple[str, ...]
    make: BendFn


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a handler may use besides the project: the id issuer, the part generator and the
    bender (idiomatic pitch bends)."""

    ids: IdIssuer
    generator: PartGenerator | None = None
    bender: Bender | None = None


Handler = Callable[[ToolContext, Project, Any], tuple[Project, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    phase: Phase
    params: type[ToolParams]
    handler: Handler
    read_only: bool = False

    @property
    def description(self) -> str:
        return " ".join((self.params.__doc__ or self.name).split())

    def schema(self) -> dict[str, Any]:
        """name, description, phase and the JSON schema of the parameters."""
        parameters = self.params.model_json_schema()
        parameters.pop("title", None)
        parameters.pop("description", None)
        return {"name": self.name, "description": self.description, "phase": self.phase, "parameters": parameters}


class ToolRegistry:
    """The tools by name, in table order."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {t.name: t for t in tools}

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self, mode: str | None = None) -> list[str]:
        return [t.name for t in self._tools.values() if mode is None or self.allowed(mode, t.name)]

    def get(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            raise InvalidInput(f"unknown tool '{name}'{suggest(name, list(self._tools), 'tools')}", field="name")
        return tool

    def allowed(self, mode: str, name: str) -> bool:
        if mode not in MODES:
            raise InvalidInput(f"unknown mode '{mode}'{suggest(mode, list(MODES), 'modes')}", field="mode")
        tool = self.get(name)
        return tool.read_only or tool.phase in MODES[mode]

    def schemas(self, mode: str | None = None, only: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Every tool's schema (those a mode may call, when given; of those, the ones named in
        `only`, when given — a specialist's subset), in table order."""
        wanted = None if only is None else frozenset(only)
        unknown = sorted((wanted or frozenset()) - set(self._tools))
        if unknown:
            raise InvalidInput(f"no tool {', '.join(unknown)}{suggest(unknown[0], list(self._tools), 'tools')}",
                               field="tools")
        return [t.schema() for t in self._tools.values()
                if (mode is None or self.allowed(mode, t.name)) and (wanted is None or t.name in wanted)]
