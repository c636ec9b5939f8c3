"""The one adapter between an MCP tool call and bandstand: arguments in, an
answer or a one-line error out, the work off the event loop.

- A tool's input schema is bandstand's own (a studio tool's from its
  registry, a band tool's from its parameter model), and the arguments reach
  bandstand as the client sent them, so they are checked — and refused with
  the messages — exactly as for the CLI. The SDK's own argument check and its
  "Error executing tool NAME:" prefix are bypassed for that reason: an error's
  text is the line the CLI prints after `bandstand: error: ` (a pattern
  error's caret lines included).
- Work runs on a worker thread (a jam call, which is quick and lives on the
  loop, is awaited there). It gets a `producer.app.Control`: its progress
  reaches the client as MCP progress notifications (when the client asked for
  them), and a cancelled request sets its cancel flag, so the producer stops
  at its next safe point while the server answers other calls at once.
- Before any work, `check_arguments` holds every call to `ARGUMENT_LIMITS`:
  the arguments' size, each text's length (an id or a folder shorter than
  any other text), their nesting, and no NUL character anywhere — one line
  naming the argument, without echoing a long value back.
- Types are strict: a value is taken only as the JSON type its schema names
  (`"yes"` is not a boolean, `"5"` not a number).
- A failure that is not bandstand's own is logged with its traceback and
  answered as "internal error: …"; the server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import pydantic_core
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, ResourceLink, TextContent, ToolAnnotations

from bandstand.errors import BandstandError, InvalidInput
from bandstand.mcp.band import Answer
from bandstand.producer.app import Cancelled, Control

__all__ = ["ARGUMENT_LIMITS", "ArgumentLimits", "Call", "McpTool", "check_arguments", "error_text", "make_tool",
           "respond"]

log = logging.getLogger("bandstand.mcp")

# A tool's body: (arguments as sent, the request's context) → the result.
Call = Callable[[dict[str, Any], Context], Awaitable[CallToolResult]]
# Work: a Control in, an Answer out — sync (a worker thread runs it) or async (the loop awaits it).
Work = Callable[[Control], Answer] | Callable[[Control], Awaitable[Answer]]


class McpTool(Tool):
    """An MCP tool whose body gets the arguments as the client sent them (see the module docstring)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        return await self.fn(arguments, context)


def make_tool(name: str, description: str, schema: dict[str, Any], call: Call, *, read_only: bool = False,
              idempotent: bool = False, title: str | None = None) -> McpTool:
    return McpTool(fn=call, name=name, title=title, description=description, parameters=schema,
                   fn_metadata=FuncMetadata(arg_model=ArgModelBase), is_async=True, context_kwarg=None,
                   annotations=ToolAnnotations(read_only_hint=read_only, destructive_hint=False,
                                               idempotent_hint=idempotent or read_only, open_world_hint=False))


@dataclass(frozen=True, slots=True)
class ArgumentLimits:
    """What one tool call's arguments may be."""

    bytes: int = 1024 * 1024
    """The arguments as JSON."""
    text: int = 10_000
    """One text (a prompt, a request, a question, a name)."""
    id: int = 255
    """One id or folder name (`ID_ARGUMENTS`): what a file name can be."""
    depth: int = 32
    """Lists and objects inside each other."""


ARGUMENT_LIMITS = ArgumentLimits()
ID_ARGUMENTS = frozenset({"project", "variation_id", "phrase_ids", "out"})
"""Arguments that name a project, a variation, its phrases or a folder."""


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 60 else f"{value[:40]!r}… ({len(value)} characters)"


def check_arguments(arguments: dict[str, Any], limits: ArgumentLimits = ARGUMENT_LIMITS) -> None:
    """Refuse (`InvalidInput`, the argument named) arguments over `limits` or with a NUL character."""
    size = len(pydantic_core.to_json(arguments, fallback=str))
    if size > limits.bytes:
        raise InvalidInput(f"the arguments are {size} bytes of JSON; at most {limits.bytes} are taken")

    def walk(value: Any, where: str, depth: int, limit: int) -> None:
        if depth > limits.depth:
            raise InvalidInput(f"{where} is nested more than {limits.depth} deep", field=where)
        if isinstance(value, str):
            if "\x00" in value:
                raise InvalidInput(f"{where} contains a NUL character (\\x00): {_shown(value.replace(chr(0), '?'))}",
                                   field=where)
            if len(value) > limit:
                what = "an id or folder name" if limit == limits.id else "a text"
                raise InvalidInput(f"{where} is {len(value)} characters long; {what} here is at most {limit}",
                                   field=where)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key, f"{where}.{key}" if where else "argument name", depth + 1, limits.text)
                walk(item, f"{where}.{key}" if where else str(key), depth + 1,
                     limits.id if not where and key in ID_ARGUMENTS else limit)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{where}[{index}]", depth + 1, limit)

    walk(arguments, "", 0, limits.text)


def error_text(exc: BaseException) -> str:
    """What the CLI prints for `exc` after `bandstand: error: ` (and the caret lines under it)."""
    if isinstance(exc, BandstandError):
        caret = exc.caret() if hasattr(exc, "caret") else ""
        return f"{exc}\n{caret}" if caret else str(exc)
    return f"internal error: {type(exc).__name__}: {exc}"


def failure(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def result(answer: Answer) -> CallToolResult:
    """The answer as JSON text plus links, with the same JSON as structured content (an object:
    a list is given as {"items": […]})."""
    data = answer.data if isinstance(answer.data, dict) else {"items": answer.data}
    text = pydantic_core.to_json(answer.data, indent=1, fallback=str).decode()
    links = [ResourceLink(type="resource_link", uri=link.uri, name=link.name, mime_type=link.mime_type,
                          description=link.description or None) for link in answer.links]
    return CallToolResult(content=[TextContent(type="text", text=text), *links],
                          structured_content=pydantic_core.to_jsonable_python(data, fallback=str))


async def respond(name: str, ctx: Context, work: Work) -> CallToolResult:
    """Run `work` for the tool `name` and answer the call (see the module docstring)."""
    try:
        if inspect.iscoroutinefunction(work):
            answer = await work(Control())
        else:
            answer = await _offload(_told(name, work), ctx)  # type: ignore[arg-type]
    except BandstandError as exc:
        return failure(error_text(exc))
    except anyio.get_cancelled_exc_class():
        raise
    except Exception as exc:
        log.exception("tool %s failed", name)
        return failure(error_text(exc))
    return result(answer)


def _on_loop_soon() -> Callable[[Callable[[Any], None], Any], None]:
    """A thread-safe way to have the current event loop call `fn(arg)` soon, without waiting."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio): its token runs it, waiting for the loop
        token = anyio.lowlevel.current_token()
        return lambda fn, arg: anyio.from_thread.run_sync(fn, arg, token=token)

    def soon(fn: Callable[[Any], None], arg: Any) -> None:
        loop.call_soon_threadsafe(fn, arg)
    return soon


def _told(name: str, work: Callable[[Control], Answer]) -> Callable[[Control], Answer]:
    """`work` that logs how a cancelled run ended (its caller has gone: nobody else hears it)."""
    def run(control: Control) -> Answer:
        try:
            return work(control)
        except Cancelled as exc:
            log.info("%s: %s", name, exc)
            raise
    return run


async def _offload(work: Callable[[Control], Answer], ctx: Context) -> Answer:
    """`work` on a worker thread; its progress relayed to the client; cancelled → its cancel set."""
    send, receive = anyio.create_memory_object_stream[tuple[float, float | None, str]](max_buffer_size=math.inf)
    soon = _on_loop_soon()
    loop_thread = threading.get_ident()

    def put(item: tuple[float, float | None, str]) -> None:
        # once the call is over (answered or cancelled) nobody is listening any more
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            send.send_nowait(item)

    def report(done: float, total: float | None, message: str) -> None:
        if threading.get_ident() == loop_thread:
            put((done, total, message))
            return
        with contextlib.suppress(RuntimeError):  # RuntimeError: the loop is gone
            soon(put, (done, total, message))  # never waits for the loop: a busy loop cannot stall the work

    async def relay() -> None:
        async with receive:
            async for done, total, message in receive:
                await ctx.report_progress(done, total, message)

    control = Control(progress=report)
    failed: Exception | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        try:
            answer = await anyio.to_thread.run_sync(work, control, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            control.cancel.set()
            raise
        except Exception as exc:  # raised outside the task group, not as a group of one
            failed = exc
        finally:
            send.close()
    if failed is not None:
        raise failed
    return answer
