"""No unreferenced definitions (#29).

vulture runs over `src/bandstand` and `tests` as pyproject.toml's ``[tool.vulture]`` sets it
(what only a test uses counts as used; definitions registered by decorator are kept) and must
report nothing but what `tests/vulture_whitelist.py` names: what is used in a way vulture
cannot see (fields the files and the wire carry, methods found by name, library hooks). A name
the whitelist keeps that vulture no longer reports is an error too, so the whitelist cannot
outlive what it keeps. One scan, without the whitelist, gives both answers: the whitelist only
adds its names to the used ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

vulture = pytest.importorskip("vulture", reason="vulture is not installed (it comes with the dev extra: scripts/setup dev)")

ROOT = Path(__file__).resolve().parents[1]
WHITELIST = Path(__file__).with_name("vulture_whitelist.py")


def whitelisted() -> set[str]:
    """The names the whitelist uses (``_.name``)."""
    tree = ast.parse(WHITELIST.read_text(encoding="utf-8"))
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "_"}


def test_nothing_is_unreferenced_but_what_the_whitelist_keeps() -> None:
    from vulture.config import make_config

    config = make_config(["--config", str(ROOT / "pyproject.toml")])
    finder = vulture.Vulture(ignore_names=config["ignore_names"], ignore_decorators=config["ignore_decorators"])
    finder.scavenge([ROOT / path for path in config["paths"]], exclude=[*config["exclude"], WHITELIST.name])
    unused = finder.get_unused_code(min_confidence=config["min_confidence"])
    kept = whitelisted()
    new = [item.get_report() for item in unused if item.name not in kept]
    assert not new, (
        "unreferenced definitions: remove them, or, when they are used in a way vulture cannot see, name "
        "them in tests/vulture_whitelist.py with the reason:\n" + "\n".join(new))
    stale = sorted(kept - {item.name for item in unused})
    assert not stale, f"tests/vulture_whitelist.py keeps names vulture no longer reports; remove them: {stale}"
