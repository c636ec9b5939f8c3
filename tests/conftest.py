"""What holds for the whole suite, on an idle machine or a busy one.

Hypothesis runs under the ``suite`` profile: no per-example deadline and no failure when
generating examples is slow — a loaded machine (or two pytest workers on two cores) makes
generation slow, never wrong. A test's own ``@settings`` still sets its example count.
``HYPOTHESIS_PROFILE=default`` runs Hypothesis's own defaults instead.

Tests marked ``alone`` need the machine to themselves (they starve a CPU on purpose, time a
browser's audio, or start a Ray cluster over both cores). ``--alone=exclude`` leaves them out and
``--alone=only`` runs nothing else: scripts/test runs the rest in parallel (pytest-xdist),
then these one after another. Plain ``pytest`` runs everything (``--alone=include``).

The pytest processes the tests start themselves (a board's coverage gate and flaky reruns on a
tiny project of a few lines) load no plugin they were not asked for
(``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, set in the process that runs the tests, never in an xdist
controller, whose workers need their plugins): this venv's plugins (hypothesis, schemathesis,
anyio, xdist, …) cost each such run about 1.5 s of CPU at start-up, and none of those projects
uses one.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))

ALONE = ("include", "exclude", "only")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--alone", choices=ALONE, default="include",
                     help="the tests marked 'alone' (they need the machine to themselves): run them with the "
                          "rest (include, the default), leave them out (exclude) or run only them (only)")


def pytest_configure(config: pytest.Config) -> None:
    # set where tests run (an xdist worker, or a run without workers), never in the controller
    # of an xdist run: its workers are pytest processes too, and need their plugins (xdist's own)
    if getattr(config, "workerinput", None) is not None or not getattr(config.option, "numprocesses", None):
        os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.getoption("alone")
    if wanted == "include":
        return
    keep: list[pytest.Item] = []
    left: list[pytest.Item] = []
    for item in items:
        (keep if (item.get_closest_marker("alone") is not None) == (wanted == "only") else left).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = keep
