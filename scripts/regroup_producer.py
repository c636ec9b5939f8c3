"""Group `bandstand.producer`'s modules into subpackages by use case (issue #29), and rewrite
every reference to them. Idempotent: run it again after merging other branches and it moves
what is still at the top of `producer/` and fixes the references those branches added.

    python scripts/regroup_producer.py            # move and rewrite (git mv when in a git tree)
    python scripts/regroup_producer.py --check    # say what it would do; exit 1 if anything

`GROUPS` says which module goes where. A module of `producer/` it does not list stays where it
is (`app.py`, the facade, stays on purpose), and so does one already in its package. For each
moved module `X` of package `P` it rewrites, in src/, tests/, benchmarks/, docs/, scripts/,
examples/, README.md and pyproject.toml:

- dotted names: `bandstand.producer.X` and `producer.X` (in prose) → `….producer.P.X` (team
  files name responders as `bandstand.producer.X:function` too);
- `from bandstand.producer import X, Y` → one `from bandstand.producer.P import X` per package
  (names that are not moved modules stay on the original line);
- relative imports inside `producer/` (`from .X import …`, `from . import X`) → absolute;
- paths: `producer/X.py` → `producer/P/X.py`.

No package name may equal a module name of `producer/` (so a rewritten name can never match
again); the script refuses to run if one does. New packages get an `__init__.py` with a
docstring and an empty `__all__` (the facade is `producer.App`; a package re-exports nothing,
so importing one module does not import its neighbours). Afterwards it runs `ruff check
--select I --fix` on the Python files it changed, when ruff is on PATH, to re-sort imports.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCER = ROOT / "src" / "bandstand" / "producer"
SCOPE = ("src", "tests", "benchmarks", "docs", "scripts", "examples")
FILES = ("README.md", "pyproject.toml")
SUFFIXES = {".py", ".md", ".toml", ".txt", ".json", ".sh", ".cfg", ".ini", ".yml", ".yaml"}

GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "requests": ("A request in words or a structured prompt, from routing to the variation it makes: the "
                 "router, the studio stream and its modes, the language model's part, plans and steps, "
                 "the edit machinery (typed edits → plan → blast radius → the parts made again), "
                 "alternatives, questions and suggestions.",
                 ("intent", "direct", "stream", "preview", "modes", "model", "specialists", "plans", "steps",
                  "conversations", "ask", "analysis", "suggestions", "structured", "structured_form",
                  "structured_words", "position", "form_edit", "key_accept", "tempo_plan", "metre_plan", "iteration",
                  "iteration_plan", "iteration_read", "iteration_song", "proposal", "job", "alternatives", "sensitivity",
                  "emotion", "effects")),
    "sessions": ("A session folder as a studio project and what is done with it: the studio service and "
                 "its tools, revisions, variations and branches, the files that show HEAD, listening and "
                 "auditioning, export and import, the projects folder and its list of sessions, and the "
                 "JSON every client shows for them.",
                 ("studio", "studio_tools", "tool_context", "projects", "branches", "library", "session_list",
                  "head_files", "head_notes", "listen", "audition", "export", "importing", "summaries", "wire",
                  "variation_tracks")),
    "composing": ("Composing a new song: the compose graph run as a use case (approval, resume, the part "
                  "generator the studio uses) and composing as a plan of tool calls.",
                  ("compose", "compose_plan")),
    "jams": ("The jam as use cases (make, start, direct, stop, record) and a jam kept as a song.",
             ("jam", "jam_headless", "jam_recipe", "jam_song")),
    "live": ("Playing into the live outputs (OSC to SuperDirt, a MIDI port with clock): the studio's "
             "transport, a session played live, the Strudel desk outside a jam.",
             ("live_outputs", "live_play", "live_transport", "transport", "strudel_desk")),
    "board": ("The conductor/musician task board as use cases: the board as the clients reach it (`desk`, "
              "through `App.board`), its checks, a launch of agent sessions (conductor, musicians, their work).",
              ("board_checks", "board_backends", "board_conductor", "board_launch", "board_musician", "board_sessions", "board_work",
               "desk")),
    "teams": ("", ("team_compose", "team_band", "team_runs")),
    "engines": ("The layers below as the clients may name them: theory, pattern code, MIDI and render, "
                "the language-model backends — each the lower layer's own names, re-exported, so a "
                "client imports only the producer.",
                ("music_theory", "pattern_code", "rendering", "backends")),
    "execution": ("How a use case's work runs: off the event loop, bounded and cancellable (`Control`, the "
                  "circuit breakers), with the garbage collector held off while a song is built.",
                  ("running", "collector")),
}
"""package → (its docstring when the script creates it, its modules)."""

MOVES: dict[str, str] = {module: package for package, (_, modules) in GROUPS.items() for module in modules}


def _git(*args: str) -> bool:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True).returncode == 0


def _tracked(path: Path) -> bool:
    return _git("ls-files", "--error-unmatch", str(path.relative_to(ROOT)))


def _refuse_clashes() -> None:
    modules = {p.stem for p in PRODUCER.glob("*.py")}
    clash = sorted(set(GROUPS) & modules)
    if clash:
        sys.exit(f"regroup_producer: producer/{clash[0]}.py has a package's name; rename the module or the "
                 "package in GROUPS first")


def _pending() -> list[tuple[Path, Path]]:
    """(module file at the top of producer/, where it goes) for every listed module still there."""
    out = []
    for module, package in sorted(MOVES.items()):
        src = PRODUCER / f"{module}.py"
        if src.is_file():
            dst = PRODUCER / package / f"{module}.py"
            if dst.exists():
                sys.exit(f"regroup_producer: both {src.relative_to(ROOT)} and {dst.relative_to(ROOT)} exist; "
                         "merge them by hand first")
            out.append((src, dst))
    return out


def _absolute_relative_imports(text: str, package: str) -> str:
    """`from .X import …` / `from . import X` in a module of `bandstand.producer` (top level)
    as absolute imports, so the module can move."""
    text = re.sub(r"^(\s*)from \.(\w+) import ", lambda m: f"{m.group(1)}from {package}.{m.group(2)} import ",
                  text, flags=re.M)
    return re.sub(r"^(\s*)from \. import ", lambda m: f"{m.group(1)}from {package} import ", text, flags=re.M)


_NAME = r"(?<![\w.])((?:bandstand\.)?producer)\.({names})(?![\w])"
_PATH = r"(?:(?<=bandstand/)|(?<![\w./-]))producer/({names})\.py\b"
_FROM = re.compile(r"^(?P<indent>[ \t]*)from bandstand\.producer import (?P<names>\([^)]*\)|[^\n]*?)(?P<tail>[ \t]*(#[^\n]*)?)$",
                   re.M)


def _split_from_imports(text: str) -> str:
    """`from bandstand.producer import a, b as c` with moved modules among the names → one line per
    package (names that are not moved modules stay on the original line)."""

    def fix(m: re.Match[str]) -> str:
        raw = m.group("names").strip().strip("()")
        items = [i.strip() for i in raw.replace("\n", " ").split(",") if i.strip()]
        keep, moved = [], {}
        for item in items:
            name = item.split(" as ")[0].strip()
            if name in MOVES:
                moved.setdefault(MOVES[name], []).append(item)
            else:
                keep.append(item)
        if not moved:
            return m.group(0)
        indent = m.group("indent")
        lines = [f"{indent}from bandstand.producer import {', '.join(keep)}"] if keep else []
        lines += [f"{indent}from bandstand.producer.{pkg} import {', '.join(names)}"
                  for pkg, names in sorted(moved.items())]
        return "\n".join(lines) + m.group("tail")

    return _FROM.sub(fix, text)


def rewrite(text: str) -> str:
    """Every reference to a moved module in `text`, pointed at its package (idempotent)."""
    names = "|".join(sorted(MOVES, key=len, reverse=True))
    text = _split_from_imports(text)
    text = re.sub(_NAME.format(names=names), lambda m: f"{m.group(1)}.{MOVES[m.group(2)]}.{m.group(2)}", text)
    return re.sub(_PATH.format(names=names), lambda m: f"producer/{MOVES[m.group(1)]}/{m.group(1)}.py", text)


def _files() -> list[Path]:
    found = [ROOT / f for f in FILES if (ROOT / f).is_file()]
    for top in SCOPE:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and not any(
                    part in (".venv", "node_modules", "__pycache__", ".git") for part in path.parts):
                found.append(path)
    return found


def _init_text(package: str) -> str:
    doc, modules = GROUPS[package]
    listed = ", ".join(f"`{m}`" for m in modules)
    body = (f"Modules: {listed}. Import them by their full name (`bandstand.producer.{package}.{modules[0]}`); "
            "the package re-exports nothing (the facade is `bandstand.producer.App`, docs/architecture.md).")
    text = textwrap.fill(f'"""{doc}', 96) + "\n\n" + textwrap.fill(body + '"""', 96)
    return f"{text}\n\n__all__: list[str] = []\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="Say what would change; exit 1 if anything would.")
    args = parser.parse_args(argv)
    _refuse_clashes()
    moves = _pending()
    in_git = _git("rev-parse", "--is-inside-work-tree")
    changed: list[Path] = []
    if not args.check:
        for src, _ in moves:  # relative imports first, while the module still sits where they resolve
            text = src.read_text(encoding="utf-8")
            fixed = _absolute_relative_imports(text, "bandstand.producer")
            if fixed != text:
                src.write_text(fixed, encoding="utf-8")
        for package in sorted({MOVES[s.stem] for s, _ in moves}):
            init = PRODUCER / package / "__init__.py"
            if not init.exists():
                init.parent.mkdir(exist_ok=True)
                init.write_text(_init_text(package), encoding="utf-8")
                if in_git:
                    _git("add", str(init.relative_to(ROOT)))
        for src, dst in moves:
            if in_git and _tracked(src):
                if not _git("mv", str(src.relative_to(ROOT)), str(dst.relative_to(ROOT))):
                    sys.exit(f"regroup_producer: git mv {src.relative_to(ROOT)} failed")
            else:
                shutil.move(src, dst)
            print(f"moved  producer/{src.name} → producer/{dst.parent.name}/{dst.name}")
    for path in _files():
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new = rewrite(text)
        if new != text:
            changed.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8", errors="surrogateescape")
    for path in changed:
        print(f"{'would rewrite' if args.check else 'rewrote'}  {path.relative_to(ROOT)}")
    if args.check:
        for src, dst in moves:
            print(f"would move  {src.relative_to(ROOT)} → {dst.relative_to(ROOT)}")
        return 1 if moves or changed else 0
    python = [str(p) for p in changed if p.suffix == ".py"]
    ruff = shutil.which("ruff")
    if python and ruff:
        subprocess.run([ruff, "check", "--quiet", "--select", "I", "--fix", *python], cwd=ROOT, check=False)
    print(f"{len(moves)} modules moved, {len(changed)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
