"""Compose: a prompt becomes a finished multi-track song through an
eight-stage pipeline (intent → harmony → arrangement → parts → sound →
assembly → validation → output).

`compose(prompt, **config)` runs it in process and returns a `ComposeResult`.
Names are imported lazily so that the models and lexicons can be used
without loading the whole pipeline.

Importing this package makes `bandstand.compose` (the attribute Python sets on
`bandstand` to this module) callable, so `bandstand.compose(prompt, ...)` is
the API whether or not the package was imported before.
"""

from __future__ import annotations

import sys
import types
from typing import Any

__all__ = ["ComposeResult", "PipelineConfig", "PipelineState", "compose", "resume"]

_LAZY = {
    "compose": "bandstand.compose.api",
    "resume": "bandstand.compose.api",
    "ComposeResult": "bandstand.compose.api",
    "PipelineConfig": "bandstand.compose.state",
    "PipelineState": "bandstand.compose.state",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bandstand.compose' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


class _CallableModule(types.ModuleType):
    def __call__(self, prompt: str, **config: Any) -> Any:
        from bandstand.compose.api import compose

        return compose(prompt, **config)


sys.modules[__name__].__class__ = _CallableModule
