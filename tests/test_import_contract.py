"""The import contract (DESIGN.md "Layout", docs/architecture.md): arrows point down the
stack only, the clients (`cli`, `server`, `mcp`) sit on the producer facade, and no module
takes part in an import cycle, and the producer sees compose by its api alone.

Every module under `src/bandstand` is parsed and every import in it is read — at the top,
inside functions and under `TYPE_CHECKING` alike, since a hidden arrow is still an arrow.
Four rules:

1. A package imports only packages of a strictly lower layer (`LAYERS`, lowest first;
   packages in one layer do not import each other). The root package (`bandstand/__init__`,
   `__main__`) is the composition root and is not checked.
2. A client imports only `producer` (the facade), `protocol`, `errors`, `files`, `version` and its own
   modules. What it still imports besides is listed in `CLIENT_DEBT`, with the number of
   import statements and why; the test fails when a count grows, when a new arrow appears,
   and when one shrinks (lower its count, or drop it, in the same change), so the list only
   ever gets shorter.
   Of the producer, a client imports no module listed in `ROUTED_THROUGH_APP`: those use cases
   are reached through `bandstand.producer.App` alone (the list only grows).
3. The module graph has no cycle: every import of one module by another counts, at the top
   or inside a function (a lazy import hides a cycle, it does not break it), except those
   under `if TYPE_CHECKING:` (annotations only, never run). A cycle is broken by moving the
   shared piece down into a module of its own, by passing it in, or by splitting a module
   that is two concepts. `CYCLE_DEBT` would list one that cannot be broken yet, with why; it
   is empty.
4. Of compose, the producer imports `bandstand.compose.api` alone (the engine's narrow face:
   its calls, and the models and tables it re-exports), never another compose module nor the
   package itself. `PRODUCER_COMPOSE_DEBT` would list a module still imported directly, with
   its count and why; it only shrinks, and it is empty.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "bandstand"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "version", "lazy"}),
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
CLIENT_MAY = {"producer", "protocol", "errors", "files", "version"}

CLIENT_DEBT: dict[tuple[str, str], tuple[int, str]] = {
    # (client, package it imports): (import statements, why it is still there)
    ("cli", "server"): (2, "the composition root of `bandstand serve`/`studio`: it starts the server"),
    ("cli", "mcp"): (2, "the composition root of `bandstand mcp`: it starts the MCP server"),
    ("mcp", "server"): (2, "MCP over HTTP mounts on the server's app and state"),
}


ROUTED_THROUGH_APP: tuple[str, ...] = (
    # producer modules whose use cases clients reach through `App` only (with what they call instead)
    "bandstand.producer.sessions.branches",  # App.branch, checkout, merge, branches, graph (#29)
    "bandstand.producer.teams.team_compose",  # App.team, App.check_team_choices (#29)
    "bandstand.producer.composing.compose",  # App.compose, App.resume, App.compose_steps (#29)
    "bandstand.producer.sessions.importing",  # App.import_midi (#29)
    "bandstand.producer.sessions.listen",  # App.listen (#29)
    "bandstand.producer.sessions.projects",  # App.project (a session folder by its path) (#29)
    "bandstand.producer.sessions.session_list",  # App.sessions, plan_clean, clean, active_seconds (#29)
    # the jam: made, started, directed, read, stopped with its recording, kept as a song, a
    # recording made a song, a headless jam, the band's makers and types (#29)
    "bandstand.producer.jams.jam",
    "bandstand.producer.jams.jam_headless",
    "bandstand.producer.jams.jam_recipe",
    "bandstand.producer.jams.jam_song",
    # the task board: opened from a URL or a SQLite file's path, its reports, task files, watchers, checks,
    # hooks, a launch, a musician and one session's tools — `App.board(where)`, a `BoardDesk` (#29)
    "bandstand.producer.board.desk",
    "bandstand.producer.board.board_backends",
    "bandstand.producer.board.board_checks",
    "bandstand.producer.board.board_conductor",
    "bandstand.producer.board.board_launch",
    "bandstand.producer.board.board_musician",
    "bandstand.producer.board.board_sessions",
    "bandstand.producer.board.board_work",
    # many songs at once: a batch, a dataset, a board's worker, where they run (App.batches: the BatchDesk);
    # the package and every module of it (#29)
    "bandstand.producer.batch",
    "bandstand.producer.teams.team_runs",  # the TeamRuns desk, re-exported by producer.app (#29)
    "bandstand.producer.execution.running",  # Control and Cancelled, re-exported by producer.app (#29)
    # playing live, the transport, the Strudel desk (App.live()); pattern code (App.patterns()), theory
    # (App.theory()) (#29)
    "bandstand.producer.live.live_outputs",
    "bandstand.producer.live.live_play",
    "bandstand.producer.live.live_transport",
    "bandstand.producer.live.strudel_desk",
    "bandstand.producer.live.transport",
    "bandstand.producer.engines.pattern_code",
    "bandstand.producer.engines.music_theory",
    # the MIDI and render layers' own functions: a pattern's files (App.patterns().write_midi/write_wav), a file's
    # render (App.desk().render_file), the SoundFont the pages play (App.desk().soundfont()) (#29)
    "bandstand.producer.engines.rendering",
    "bandstand.producer.engines.backends",  # which language model a --backend names: App.desk().backend (#29)
    # the studio's reads and tools: `App.desk()` (history, variations, audio, moved, apply_tool, tools, explain,
    # unknown_tool, export, export_folder, midi_clip, alternatives, backend, agents_config, check_backends); the
    # server's studio and the stream's types are named from `producer.app` (#29)
    "bandstand.producer.sessions.summaries",
    "bandstand.producer.sessions.studio_tools",
    "bandstand.producer.sessions.studio",
    "bandstand.producer.sessions.export",
    "bandstand.producer.sessions.library",
    "bandstand.producer.sessions.head_files",
    "bandstand.producer.requests.alternatives",
    "bandstand.producer.requests.job",
    "bandstand.producer.requests.stream",
)
"""Producer modules (or packages: the package and its modules) no client (`cli`, `server`, `mcp`)
imports: their use cases are `App` methods. A client importing one (a module, a name from it, or it
from its package) fails the test."""


CYCLE_DEBT: dict[frozenset[str], str] = {}
"""Import cycles still allowed (their modules → why); a new one fails, and so does an entry
that is no longer a cycle (drop it), so the list only ever gets shorter."""


def _rank() -> dict[str, int]:
    return {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _parsed(path: Path, src: Path) -> tuple[str, bool, list[ast.AST]]:
    """A module under `src`: its dotted name, whether it is a package's `__init__`, and every node of it."""
    rel = path.relative_to(src)
    module = ".".join((src.name, *rel.with_suffix("").parts))
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return module, rel.name == "__init__.py", list(ast.walk(tree))


def _imports() -> list[tuple[str, str, str]]:
    """(package, imported package, importing module) for every import of another package."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        package = path.relative_to(SRC).parts[0].removesuffix(".py")
        module, is_init, nodes = _parsed(path, SRC)
        for node in nodes:
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


def _from_base(node: ast.ImportFrom, module: str, is_init: bool) -> str:
    """The module a `from … import` in `module` reads from, a relative one resolved."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    parts = parts[: len(parts) - node.level + (1 if is_init else 0)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def _client_imports(src: Path = SRC) -> list[tuple[str, str]]:
    """(client module, what it imports) for every import in the clients' modules; `from a import b`
    is read as both `a` and `a.b` (b may be a module of a)."""
    found = []
    for client in sorted(CLIENTS):
        for path in sorted((src / client).rglob("*.py")):
            module, is_init, nodes = _parsed(path, src)
            for node in nodes:
                if isinstance(node, ast.Import):
                    found += [(module, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = _from_base(node, module, is_init)
                    found += [(module, base), *((module, f"{base}.{alias.name}") for alias in node.names)]
    return found


def _around_app(src: Path = SRC) -> list[str]:
    """Every client import of a module `ROUTED_THROUGH_APP` names (or of a name inside it)."""
    return sorted({f"{module} imports {routed}: call bandstand.producer.App instead"
                   for module, name in _client_imports(src)
                   for routed in ROUTED_THROUGH_APP if name == routed or name.startswith(f"{routed}.")})


def test_the_clients_reach_the_routed_use_cases_through_app_alone() -> None:
    found = _around_app()
    assert not found, "\n".join(found)
    assert all((SRC.parent / (name.replace(".", "/") + ".py")).is_file()
               or (SRC.parent / name.replace(".", "/") / "__init__.py").is_file() for name in ROUTED_THROUGH_APP), \
        "ROUTED_THROUGH_APP names a module that does not exist"


FACE: dict[str, str] = {
    "bandstand.producer": "the package: `App`",
    "bandstand.producer.app": "`App`, its typed requests and replies, and the types clients name (some under TYPE_CHECKING)",
    "bandstand.producer.live.desk": "`TransportCommand`, the transport route's request body: a pydantic model, which "
                                    "`producer.app` does not import (pydantic would load on `bandstand --help`)",
}
"""The producer modules a client may import at all: the facade is exported alone (#29). Everything else is
reached through `App`'s methods and desks."""


def test_the_clients_import_the_facade_alone() -> None:
    found = sorted({f"{module} imports {name}: reach it through bandstand.producer.App"
                    for module, name in _client_imports()
                    if name.startswith("bandstand.producer.")
                    and not any(name == face or (name.startswith(f"{face}.") and face != "bandstand.producer")
                                for face in FACE)
                    and name.removeprefix("bandstand.producer.") != "App"})
    assert not found, "\n".join(found)


def test_the_routed_rule_sees_every_way_of_importing(tmp_path: Path) -> None:
    """The rule's own check, on clients made here: a module, a name from it, the module from its
    package, lazily or relatively, are each caught; its package and its neighbours are not."""
    src = tmp_path / "bandstand"
    for client in CLIENTS:
        (src / client).mkdir(parents=True)
    (src / "cli" / "ok.py").write_text("from bandstand.producer.sessions import wire\n"
                                       "from bandstand.producer.teams import runner\nimport bandstand.producer\n")
    (src / "cli" / "a.py").write_text("def f():\n    from bandstand.producer.sessions.branches import merge\n")
    (src / "server" / "b.py").write_text("from bandstand.producer.sessions import branches\n")
    (src / "mcp" / "c.py").write_text("import bandstand.producer.teams.team_compose as tc\n")
    (src / "mcp" / "d.py").write_text("from ..producer.teams import team_compose\n")
    (src / "cli" / "e.py").write_text("def f():\n    from bandstand.producer.batch.desk import BatchDesk\n")
    found = _around_app(src)
    assert [line.split(" imports ")[0] for line in found] == ["bandstand.cli.a", "bandstand.cli.e", "bandstand.mcp.c",
                                                              "bandstand.mcp.d", "bandstand.server.b"], found


def _module_graph(src: Path = SRC) -> dict[str, set[str]]:
    """Module → the modules of the package at `src` it imports (outside `TYPE_CHECKING`
    blocks). A name imported from a package is an arrow to its submodule of that name, if any."""
    paths = {".".join((src.name, *p.relative_to(src).with_suffix("").parts)).removesuffix(".__init__"): p
             for p in sorted(src.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        is_init = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skipped: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped |= {id(n) for child in node.body for n in ast.walk(child)}
        arrows = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _from_base(node, module, is_init)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            for target in targets:
                while target not in paths and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in paths and target != module:
                    arrows.add(target)
        graph[module] = arrows
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_module_graph_has_no_cycle() -> None:
    graph = _module_graph()
    cycles = _cycles(graph)
    new = [c for c in cycles if c not in CYCLE_DEBT]
    gone = [c for c in CYCLE_DEBT if c not in cycles]
    problems = [f"import cycle: {' ⇄ '.join(sorted(c))} (" + "; ".join(
                    f"{m} → {', '.join(sorted(graph[m] & c))}" for m in sorted(c)) + ")" for c in new]
    problems += [f"{', '.join(sorted(c))} is no longer a cycle: drop it from CYCLE_DEBT" for c in gone]
    assert not problems, "\n".join(problems)


def test_the_cycle_rule_sees_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    """The rule's own check, on a package made here: an import inside a function closes a cycle,
    one under TYPE_CHECKING does not, and relative imports and submodules resolve."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .c import g\n")
    (pkg / "sub" / "c.py").write_text("def g():\n    from pkg import a\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import e\n")
    (pkg / "e.py").write_text("import pkg.d\n")
    graph = _module_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.sub.c"} and graph["pkg.d"] == set()
    assert _cycles(graph) == [frozenset({"pkg.a", "pkg.sub.b", "pkg.sub.c"})]


COMPOSE_API = "bandstand.compose.api"

PRODUCER_COMPOSE_DEBT: dict[str, tuple[int, str]] = {}
"""Compose modules the producer still imports besides `compose.api` → (import statements, why).
A new one fails, a count that grows fails, and so does one that shrinks without being lowered
here in the same change: the list only ever gets shorter. Empty since #29 routed the last 67
imports (29 modules) through the api."""


def _compose_imports(src: Path = SRC) -> list[tuple[str, str]]:
    """(producer module, compose module) for every import in the producer's modules — at the top,
    in functions, under `TYPE_CHECKING` — of a compose module other than `compose.api` (`from
    bandstand.compose import x` is read as `bandstand.compose.x`; the package itself counts)."""
    found = []
    for path in sorted((src / "producer").rglob("*.py")):
        module, is_init, nodes = _parsed(path, src)
        for node in nodes:
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _from_base(node, module, is_init)
                if base in ("bandstand", "bandstand.compose"):
                    targets = [f"{base}.{alias.name}" for alias in node.names]
                else:
                    targets = [base]
            compose = f"{src.name}.compose"
            found += [(module, t) for t in targets if (t == compose or t.startswith(f"{compose}."))
                      and t != COMPOSE_API and not t.startswith(f"{COMPOSE_API}.")]
    return found


def test_the_producer_reaches_compose_through_its_api_alone() -> None:
    found = _compose_imports()
    counts = collections.Counter(target for _, target in found)
    where = collections.defaultdict(set)
    for module, target in found:
        where[target].add(module)
    problems = [f"{target} imported {count}× (allowed {PRODUCER_COMPOSE_DEBT.get(target, (0, ''))[0]}) by "
                f"{', '.join(sorted(where[target]))}: import it from {COMPOSE_API} (re-export it there if it is "
                "not yet, lazily)" for target, count in sorted(counts.items())
                if count > PRODUCER_COMPOSE_DEBT.get(target, (0, ""))[0]]
    problems += [f"{target} is imported {counts.get(target, 0)}× now, fewer than the {allowed} PRODUCER_COMPOSE_DEBT "
                 "allows: lower the entry (the list only shrinks)"
                 for target, (allowed, _) in sorted(PRODUCER_COMPOSE_DEBT.items()) if counts.get(target, 0) < allowed]
    assert not problems, "\n".join(problems)


def test_the_compose_api_rule_sees_every_way_of_importing(tmp_path: Path) -> None:
    """The rule's own check, on a producer made here: a compose module imported at the top, in a
    function, under TYPE_CHECKING, relatively, by name from the package, or the package itself, is
    caught; the api, however it is named, is not."""
    src = tmp_path / "bandstand"
    (src / "producer" / "sub").mkdir(parents=True)
    (src / "producer" / "ok.py").write_text("from bandstand.compose.api import plan\nimport bandstand.compose.api\n"
                                            "from bandstand.compose import api\nfrom ..compose.api import Intent\n")
    (src / "producer" / "a.py").write_text("from bandstand.compose.lexicon import MOODS\n")
    (src / "producer" / "sub" / "b.py").write_text("def f():\n    import bandstand.compose.sound\n")
    (src / "producer" / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                                   "    from ...compose.models.intent import Intent\n")
    (src / "producer" / "d.py").write_text("from bandstand.compose import api, sessions\nfrom bandstand import compose\n")
    assert _compose_imports(src) == [
        ("bandstand.producer.a", "bandstand.compose.lexicon"),
        ("bandstand.producer.d", "bandstand.compose.sessions"), ("bandstand.producer.d", "bandstand.compose"),
        ("bandstand.producer.sub.b", "bandstand.compose.sound"),
        ("bandstand.producer.sub.c", "bandstand.compose.models.intent"),
    ]
