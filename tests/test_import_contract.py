"""The import contract (DESIGN.md "Layout", docs/architecture.md): arrows point down the
stack only, and the clients (`cli`, `server`, `mcp`) sit on the producer facade.

Every module under `src/bandstand` is parsed and every import in it is read — at the top,
inside functions and under `TYPE_CHECKING` alike, since a hidden arrow is still an arrow.
Two rules:

1. A package imports only packages of a strictly lower layer (`LAYERS`, lowest first;
   packages in one layer do not import each other). The root package (`bandstand/__init__`,
   `__main__`) is the composition root and is not checked.
2. A client imports only `producer` (the facade), `protocol`, `errors`, `files` and its own
   modules. What it still imports besides is listed in `CLIENT_DEBT`, with the number of
   import statements and why; the test fails when a count grows, when a new arrow appears,
   and when one shrinks (lower its count, or drop it, in the same change), so the list only
   ever gets shorter.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "bandstand"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors"}),
    frozenset({"files"}),
    frozenset({"theory"}),
    frozenset({"score"}),
    frozenset({"midi", "protocol", "agents", "board"}),
    frozenset({"render", "runtime"}),
    frozenset({"patterns"}),
    frozenset({"craft"}),
    frozenset({"compose", "jam", "studio"}),
    frozenset({"producer"}),
    frozenset({"server", "mcp", "cli"}),
)
"""Lowest first (DESIGN.md: theory ← score ← midi/render ← patterns ← craft ← compose/jam;
score ← studio; agents ← runtime; board alone; producer on all of them; the clients on top)."""
ROOT = {"__init__", "__main__", "__version__", "py"}
CLIENTS = {"cli", "server", "mcp"}
CLIENT_MAY = {"producer", "protocol", "errors", "files"}

CLIENT_DEBT: dict[tuple[str, str], tuple[int, str]] = {
    # (client, package it imports): (import statements, why it is still there)
    ("cli", "server"): (2, "the composition root of `bandstand serve`/`studio`: it starts the server"),
    ("cli", "mcp"): (2, "the composition root of `bandstand mcp`: it starts the MCP server"),
    ("mcp", "server"): (2, "MCP over HTTP mounts on the server's app and state"),
}


def _rank() -> dict[str, int]:
    return {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _imports() -> list[tuple[str, str, str]]:
    """(package, imported package, importing module) for every import of another package."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        package = rel.parts[0].removesuffix(".py")
        module = ".".join(("bandstand", *rel.with_suffix("").parts))
        is_init = rel.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = module.split(".")
                    base = parts[: len(parts) - node.level + (1 if is_init else 0)]
                    targets = [".".join([*base, *([node.module] if node.module else [])])]
                elif node.module == "bandstand":
                    targets = [f"bandstand.{alias.name}" for alias in node.names]
                elif node.module:
                    targets = [node.module]
            for target in targets:
                parts = target.split(".")
                if parts[0] == "bandstand" and len(parts) > 1 and parts[1] != package:
                    found.append((package, parts[1], module))
    return found


def test_every_package_has_a_layer() -> None:
    packages = {p.name.removesuffix(".py") for p in SRC.iterdir()
                if (p.is_dir() and (p / "__init__.py").is_file()) or (p.suffix == ".py")}
    assert packages - ROOT - {"web"} <= set(_rank()), packages - ROOT - set(_rank())


def test_arrows_point_down_the_stack() -> None:
    rank = _rank()
    up = sorted({f"{module} imports bandstand.{target} ({package} is not above {target})"
                 for package, target, module in _imports()
                 if package not in ROOT and target not in ROOT and package not in CLIENTS
                 and rank[target] >= rank[package]})
    assert not up, "\n".join(up)


def test_the_clients_import_the_facade_and_the_debt_only_shrinks() -> None:
    counts = collections.Counter((package, target) for package, target, _ in _imports()
                                 if package in CLIENTS and target not in CLIENT_MAY | ROOT | {package})
    where = collections.defaultdict(set)
    for package, target, module in _imports():
        where[package, target].add(module)
    problems = []
    for pair, count in sorted(counts.items()):
        allowed = CLIENT_DEBT.get(pair, (0, ""))[0]
        if count > allowed:
            problems.append(f"{pair[0]} imports bandstand.{pair[1]} {count}× (allowed {allowed}) in "
                            f"{', '.join(sorted(where[pair]))}: go through bandstand.producer")
    for pair, (allowed, _) in sorted(CLIENT_DEBT.items()):
        if counts.get(pair, 0) < allowed:
            problems.append(f"{pair[0]} imports bandstand.{pair[1]} {counts.get(pair, 0)}× now, fewer than the "
                            f"{allowed} CLIENT_DEBT allows: lower the entry (the list only shrinks)")
    assert not problems, "\n".join(problems)
