"""The studio's tools as MCP tools — the one place the registry becomes MCP.

Every tool of the studio's registry (`App.desk().tools()`) is offered under its own name,
with its description and its JSON schema plus one parameter, `project` (the
session: its id or folder). A call runs through `App.desk().apply_tool`
exactly as `bandstand tool SESSION NAME --args JSON` does — the same checks,
the same one-line refusals (types taken strictly: "yes" is not a boolean),
one revision per call, undoable — and answers
what `bandstand tool --json` prints. A tool added to the registry appears
here without code of its own.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from bandstand.errors import InvalidInput
from bandstand.mcp.adapter import McpTool, check_arguments, error_text, failure, make_tool, respond
from bandstand.mcp.band import Answer, Band
from bandstand.producer import App
from bandstand.producer.app import Control

if TYPE_CHECKING:
    from bandstand.producer.app import Tool

__all__ = ["PROJECT_PARAMETER", "studio_schema", "studio_tools"]

PROJECT_PARAMETER: dict[str, Any] = {
    "type": "string",
    "description": "The project: a session id such as session-20260101-abc123 (what compose returned) or the "
                   "session's folder.",
}


def studio_schema(tool: Tool) -> dict[str, Any]:
    """The registry's parameter schema of `tool`, with `project` first and required."""
    schema: dict[str, Any] = copy.deepcopy(tool.schema()["parameters"])
    schema["properties"] = {"project": PROJECT_PARAMETER, **schema.get("properties", {})}
    schema["required"] = ["project", *schema.get("required", [])]
    return schema


def project_arg(arguments: dict[str, Any]) -> str:
    """The `project` argument, which every project tool takes."""
    value = arguments.get("project")
    if value is None:
        raise InvalidInput("project is missing; give the session id (what compose returned) or its folder",
                           field="project")
    if not isinstance(value, str):
        raise InvalidInput(f"project must be a session id or folder (a string), not {value!r}", field="project")
    return value


def _call(band: Band, tool: Tool) -> Any:
    async def call(arguments: dict[str, Any], ctx: Context) -> CallToolResult:
        try:
            check_arguments(arguments)
        except InvalidInput as exc:
            return failure(error_text(exc))
        args = {k: v for k, v in arguments.items() if k != "project"}

        def work(control: Control) -> Answer:
            applied = App.over(band.library).desk().apply_tool(project_arg(arguments), tool.name, args, author="mcp",
                                                               strict=True)
            return Answer({"project": applied.session.session_dir.name, **applied.to_json()})

        return await respond(tool.name, ctx, work)
    return call


def studio_tools(band: Band) -> list[McpTool]:
    """One MCP tool per registry tool, in the registry's order."""
    return [make_tool(t.name, t.description,
                      studio_schema(t), _call(band, t), read_only=t.read_only) for t in App().desk().tools()]
