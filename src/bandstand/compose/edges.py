"""Typed edges: a node's inputs as one model, read from its handler's annotations.

A typed node is a function `run(ctx: NodeContext, inputs: XInputs) -> NodeResult[XOutput]`
where `XInputs` is a frozen dataclass whose fields name the nodes it reads and
say what each must have produced: `harmony: HarmonyPlan` (a node's artifact),
`parts: Group[PartResult]` (every member of a fan-out group, in graph order),
`sound: SoundPlan | None` (an optional input, used when that node produced
something). `typed_node` reads those annotations once, when the graph is
built, into the node's `inputs`, `optional`, `output` and `takes` (one `Edge`
per field), and wraps the function into the engine's `run(ctx)` handler, which
gathers the inputs model from the artifacts. `Graph` then refuses an edge to a
node that is not declared before it or whose declared output is not the type
the edge wants. mypy checks each node against its own models: the handler's
body reads typed fields, and `restore`, `on_skip` and `apply` must agree with
the handler's output type.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from bandstand.compose.nodes import Node, NodeContext, NodeResult
from bandstand.compose.state import PipelineState

if TYPE_CHECKING:
    from bandstand.compose.graph import Artifacts
    from bandstand.protocol.jsonvalue import JSONValue

__all__ = ["Edge", "Group", "edges_of", "typed_node"]

InT = TypeVar("InT")
OutT = TypeVar("OutT")
MemberT = TypeVar("MemberT")


class Group(Mapping[str, MemberT], Generic[MemberT]):
    """A fan-out group as a node's input: member key (a part's role) → artifact, in graph
    order. Read-only: a node does not change what another produced."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, MemberT]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> MemberT:
        return self._items[key]

    def __iter__(self) -> typing.Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Group({self._items!r})"


@dataclass(frozen=True, slots=True)
class Edge:
    """One input of a typed node: the node (or fan-out `group`) it reads, the type its artifact
    must have (each member's, for a group), and whether the node runs without it (`optional`)."""

    source: str
    kind: type
    group: bool = False
    optional: bool = False

    def describe(self) -> str:
        what = f"Group[{self.kind.__name__}]" if self.group else self.kind.__name__
        return f"{self.source}: {what}{' | None' if self.optional else ''}"


def _edge(name: str, hint: object, where: str) -> Edge:
    optional = False
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"{where}.{name}: an input is one type or that type | None, not {hint}")
        hint, optional = rest[0], True
    if typing.get_origin(hint) is Group:
        (member,) = typing.get_args(hint)
        if not isinstance(member, type):
            raise TypeError(f"{where}.{name}: a group's members are one class, not {member}")
        return Edge(name, member, group=True, optional=optional)
    if not isinstance(hint, type):
        raise TypeError(f"{where}.{name}: an input is a class (or Group[...] or ... | None), not {hint}")
    return Edge(name, hint, optional=optional)


@functools.cache
def edges_of(inputs: type) -> tuple[Edge, ...]:
    """The edges an inputs model declares, one per field, in field order."""
    if not dataclasses.is_dataclass(inputs):
        raise TypeError(f"{inputs.__name__} is not a dataclass of a node's inputs")
    hints = typing.get_type_hints(inputs)
    return tuple(_edge(f.name, hints[f.name], inputs.__name__) for f in dataclasses.fields(inputs))


def _signature(run: Callable[[NodeContext, InT], NodeResult[OutT]]) -> tuple[type[InT], type[OutT]]:
    """(inputs model, output type) of `run(ctx, inputs) -> NodeResult[Output]`, read off its
    annotations (which mypy has held to `InT` and `OutT`)."""
    hints = typing.get_type_hints(run)
    params = list(inspect.signature(run).parameters)
    name = getattr(run, "__qualname__", repr(run))
    if len(params) != 2 or params[1] not in hints or "return" not in hints:
        raise TypeError(f"{name} is not an annotated run(ctx, inputs: XInputs) -> NodeResult[XOutput]")
    result = hints["return"]
    (output,) = typing.get_args(result) or (None,)
    if typing.get_origin(result) is not NodeResult or not isinstance(output, type):
        raise TypeError(f"{name} returns {result}, not NodeResult[<a class>]")
    return hints[params[1]], output


def _gather(ctx: NodeContext, inputs: type[InT], edges: tuple[Edge, ...]) -> InT:
    values: dict[str, object] = {}
    for e in edges:
        if e.group:
            values[e.source] = Group(ctx.group(e.source))
        elif e.optional:  # used when that node made something (of the declared type)
            values[e.source] = None if ctx.optional(e.source) is None else ctx.input(e.source, e.kind)
        else:
            values[e.source] = ctx.input(e.source, e.kind)
    return inputs(**values)


def _applying(name: str, output: type[OutT], apply: Callable[[PipelineState, OutT], None]
              ) -> Callable[[PipelineState, object], None]:
    """A node's `apply` as the engine calls it: with the artifact the engine has held to the
    node's output type (`_typed`), which this checks again rather than assumes."""

    def applied(state: PipelineState, artifact: object) -> None:
        if not isinstance(artifact, output):
            raise TypeError(f"{name} applies a {output.__name__}, not a {type(artifact).__name__}")
        apply(state, artifact)

    return applied


def typed_node(name: str, run: Callable[[NodeContext, InT], NodeResult[OutT]], *, reads: tuple[str, ...] = (),
               critical: bool = False, seed_key: str = "", member: str | None = None,
               restore: Callable[[JSONValue, Artifacts], OutT] | None = None,
               on_skip: Callable[[NodeContext], OutT] | None = None,
               apply: Callable[[PipelineState, OutT], None] | None = None,
               deterministic: bool = True, stops_short: bool = False) -> Node:
    """A graph node from a typed handler: its edges, input names and output type read off the
    handler's annotations (see the module docstring)."""
    inputs, output = _signature(run)
    model: type = inputs
    edges = edges_of(model)

    def handler(ctx: NodeContext) -> NodeResult[OutT]:
        given: InT = _gather(ctx, inputs, edges)
        return run(ctx, given)

    handler.__qualname__ = f"{getattr(run, '__qualname__', name)}<typed>"
    node = Node(name, handler, inputs=tuple(e.source for e in edges if not e.optional),
                optional=tuple(e.source for e in edges if e.optional), reads=reads, output=output, critical=critical,
                seed_key=seed_key, member=member, on_skip=on_skip,
                apply=None if apply is None else _applying(name, output, apply), deterministic=deterministic,
                stops_short=stops_short, takes=edges)
    return node if restore is None else dataclasses.replace(node, restore=restore)
