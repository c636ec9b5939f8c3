"""The pipeline as a typed graph: named nodes with declared inputs, and fan-outs.

A `Graph` is an ordered list of `Node`s and `Fanout`s. Declaration order is a
topological order (every input names an earlier node or group; the graph
refuses anything else), so "graph order" is simply the order of declaration;
a typed node's edges (`compose.edges`) must also find the type they want in
what the earlier node declares it produces, or the graph is not built.
A `Fanout` stands for a group of nodes known only once its `after` nodes have
run — one part node per role (`parts:drums`, `parts:bass`, …) once the
arrangement says who plays. `expand(artifacts)` gives the concrete nodes for
what is known so far; `dependents` and `closure` say what a change reaches,
which is how a run (or an edit) re-runs exactly what depends on it. `reached`
follows what each node declares it is made from (`Node.reads`: song facts and
input nodes), which is how the studio knows an edit's blast radius.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from bandstand.compose.nodes import FACTS, Node

if TYPE_CHECKING:
    from bandstand.compose.edges import Edge

__all__ = ["Artifacts", "Fanout", "Graph"]

T = TypeVar("T")


class Artifacts(dict[str, object]):
    """Node name → artifact, with fan-out groups readable as one mapping in graph order
    (nodes finish in any order; `order` is the graph order the engine keeps up to date).
    Read an artifact as its type with `need`/`get_as`/`members_as`: a node's declared output
    is checked when it is made, so the check here only says which node broke its word."""

    order: dict[str, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order = {}

    def members(self, group: str) -> dict[str, object]:
        """{member key: artifact} of a group, in graph order."""
        prefix = group + ":"
        names = sorted((n for n, v in self.items() if n.startswith(prefix) and v is not None),
                       key=lambda n: self.order.get(n, len(self.order)))
        return {name[len(prefix):]: self[name] for name in names}

    def get_as(self, name: str, kind: type[T]) -> T | None:
        """The artifact of node `name` as a `kind`, or None when it has none."""
        value = self.get(name)
        if value is None:
            return None
        if not isinstance(value, kind):
            raise TypeError(f"the {name} node's artifact is a {type(value).__name__}, not a {kind.__name__}")
        return value

    def need(self, name: str, kind: type[T]) -> T:
        """The artifact of node `name` as a `kind`; KeyError when it has none."""
        value = self.get_as(name, kind)
        if value is None:
            raise KeyError(name)
        return value

    def members_as(self, group: str, kind: type[T]) -> dict[str, T]:
        """`members(group)`, each checked to be a `kind`."""
        out: dict[str, T] = {}
        for key, value in self.members(group).items():
            if not isinstance(value, kind):
                raise TypeError(f"{group}:{key} made a {type(value).__name__}, not a {kind.__name__}")
            out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class Fanout:
    """A group of nodes, one per member key, known once the `after` nodes have artifacts.
    `members(artifacts)` lists the keys in order; `make(key)` builds the member's node,
    named `group:key`. `output` is each member's artifact type and `takes` the typed edges
    every member has (checked when the graph is built, like a node's; a member made with
    other edges is refused)."""

    group: str
    after: tuple[str, ...]
    members: Callable[[Artifacts], Sequence[str]]
    make: Callable[[str], Node]
    critical: bool = False
    output: type = object
    takes: tuple[Edge, ...] = ()

    def node(self, key: str) -> Node:
        node = self.make(key)
        if node.name != f"{self.group}:{key}":
            raise ValueError(f"fan-out {self.group} made a node named {node.name!r} for {key!r}")
        if node.takes != self.takes or (self.takes and node.output is not self.output):
            raise ValueError(f"fan-out {self.group} made {node.name} with other edges or output than it declares")
        return node


Item = Node | Fanout


def _name(item: Item) -> str:
    return item.name if isinstance(item, Node) else item.group


def _produces(item: Item) -> tuple[type, ...]:
    out = item.output
    return out if isinstance(out, tuple) else (out,)


def _check_edges(node: Item, by_name: dict[str, Item]) -> None:
    """Each typed edge of `node` (of every member, for a fan-out) names an earlier node (a group
    for a `Group[...]` input) whose declared output is the type the edge wants."""
    name = _name(node)
    for edge in node.takes:
        source = by_name.get(edge.source)
        if source is None:
            raise ValueError(f"{name} reads {edge.source!r}, which is not declared before it")
        if edge.group != isinstance(source, Fanout):
            wanted = "a fan-out group" if edge.group else "one node"
            raise ValueError(f"{name} reads {edge.source!r} as {wanted}, which it is not ({edge.describe()})")
        made = _produces(source)
        if not all(isinstance(t, type) and issubclass(t, edge.kind) for t in made):
            names = " | ".join(t.__name__ for t in made)
            raise ValueError(f"{name} reads {edge.describe()}, but {edge.source} produces {names}")


def _check_reads(node: Node, seen: set[str]) -> None:
    for word in node.reads:
        if word in seen and word not in (*node.inputs, *node.optional):
            raise ValueError(f"{node.name} reads the {word!r} node, which is not one of its inputs")
        if word not in seen and word not in FACTS:
            raise ValueError(f"{node.name} reads {word!r}, which is neither a fact ({', '.join(FACTS)}) nor a node")


class Graph:
    """Nodes and fan-outs in a valid order; see the module docstring."""

    def __init__(self, items: Sequence[Item]) -> None:
        seen: set[str] = set()
        earlier: dict[str, Item] = {}
        for item in items:
            name = _name(item)
            if name in seen:
                raise ValueError(f"the graph has two nodes named {name!r}")
            needs = (*item.inputs, *item.optional) if isinstance(item, Node) else item.after
            unknown = [n for n in needs if n not in seen]
            if unknown:
                raise ValueError(f"{name} reads {unknown[0]!r}, which is not declared before it")
            if isinstance(item, Node):
                _check_reads(item, seen)
            _check_edges(item, earlier)
            seen.add(name)
            earlier[name] = item
        self.items: tuple[Item, ...] = tuple(items)
        self._by_name = {_name(i): i for i in self.items}

    @property
    def names(self) -> tuple[str, ...]:
        """Node and group names in graph order (a fan-out counts once, by its group name)."""
        return tuple(_name(i) for i in self.items)

    def item(self, name: str) -> Item:
        return self._by_name[name]

    def fanout(self, group: str) -> Fanout | None:
        item = self._by_name.get(group)
        return item if isinstance(item, Fanout) else None

    def expanded(self, group: str, artifacts: Artifacts) -> bool:
        """Whether a fan-out's members are known (all its `after` nodes have artifacts)."""
        fan = self.fanout(group)
        return fan is not None and all(artifacts.get(a) is not None for a in fan.after)

    def expand(self, artifacts: Artifacts) -> list[Node]:
        """The concrete nodes in graph order, fan-outs expanded where their members are known."""
        out: list[Node] = []
        for item in self.items:
            if isinstance(item, Node):
                out.append(item)
            elif self.expanded(item.group, artifacts):
                out.extend(item.node(key) for key in item.members(artifacts))
        return out

    def with_members(self, group: str, keys: Iterable[str]) -> list[Node]:
        fan = self.fanout(group)
        if fan is None:
            raise KeyError(group)
        return [fan.node(k) for k in keys]

    def dependents(self, names: Iterable[str], nodes: Sequence[Node]) -> list[str]:
        """Every node in `nodes` that reads one of `names` (or their groups), transitively,
        in graph order — not including `names` themselves."""
        reached = set(names)
        out: list[str] = []
        for node in nodes:
            if node.name in reached:
                continue
            group = node.name.split(":", 1)[0] if ":" in node.name else None
            fan = self.fanout(group) if group else None
            reads = set(node.inputs) | set(node.optional) | (set(fan.after) if fan else set())
            if any(r in reached or any(n.startswith(r + ":") for n in reached) for r in reads):
                reached.add(node.name)
                out.append(node.name)
        return out

    def reached(self, changed: Iterable[str], nodes: Sequence[Node], held: Iterable[str] = ()) -> list[str]:
        """The nodes of `nodes` a change reaches through what they `reads`, transitively, in graph
        order: `changed` names facts and nodes; a node in `held` is neither reached nor passes on."""
        hit = set(changed)
        kept = set(held)
        out: list[str] = []
        for node in nodes:
            if node.name in kept:
                continue
            if node.name in hit or any(r in hit for r in node.reads):
                hit.add(node.name)
                out.append(node.name)
        return out

    def closure(self, names: Iterable[str], nodes: Sequence[Node]) -> list[str]:
        """`names` and everything that depends on them, in graph order."""
        first = set(names)
        rest = set(self.dependents(first, nodes))
        return [n.name for n in nodes if n.name in first or n.name in rest]
