"""What a new user meets first: the README and the guides link only to files in the repository,
install from the checkout (bandstand is on no package index), say how to get the `bandstand`
command onto PATH — and that way works —, and the licence pyproject names is there."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_stay_inside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT), f"{page.name} links {target}, outside the repository"
        assert path.exists(), f"{page.name} links {target}, which does not exist"
    # a path in backquotes that leaves the repository (the README named ../shared/DESIGN.md)
    assert not re.search(r"`\.\./", text), f"{page.name} names a file outside the repository"


def test_nothing_tells_a_user_to_install_from_a_package_index() -> None:
    sources = [*PAGES, *(ROOT / "src" / "bandstand").rglob("*.py")]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install ['\"]?bandstand", text), f"{path.relative_to(ROOT)}: not on PyPI"


def test_the_readme_way_onto_path_works() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in readme and ".venv/bin/bandstand" in readme
    activate = Path(sys.executable).parent / "activate"
    if not activate.exists():
        pytest.skip("the tests do not run in a virtual environment")
    done = subprocess.run(["bash", "-c", f"source {activate} && cd / && bandstand --version"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("bandstand ")


def test_the_licence_pyproject_names_is_there() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "the bandstand authors" in licence
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in licence
