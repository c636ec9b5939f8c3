"""Typer coerces every parameter's value through a pydantic `TypeAdapter`, built the first
time the parameter is processed — even when the value is missing (None), which needs no
coercion at all. For `bandstand compose --help` that meant importing pydantic and building
an adapter for the root's unused `--help` flag (a tenth of a second), and for a compose one
adapter per option left unset. Here each parameter (and each command's help option) builds
its adapter on its first real value instead; a missing value comes out as typer makes it
(None, or () for a repeatable option), and a given value goes through typer's own adapter.

This reaches into typer's private coercion layer (pinned to 0.29 in pyproject): when it is
not what is expected, commands are left as typer made them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

try:
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer.core import _TyperParameter
except ImportError:  # another typer: keep its own behaviour
    RuntimeParam = None  # type: ignore[assignment,misc]

__all__ = ["coerce_on_first_value"]

if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _OnFirstValue(RuntimeParam):
        """Stands in for a parameter's runtime coercion until a value arrives (typer's
        `RuntimeParam.coerce` answers a missing one itself), then puts the real one in place."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            real = build_runtime_param(param.type_descriptor)
            param._runtime_param = real
            return real._coerce_value(value, param=param, ctx=ctx)


def _defer(param: Any) -> None:
    if isinstance(param, _TyperParameter) and getattr(param, "_runtime_param", False) is None:
        descriptor = param.type_descriptor
        param._runtime_param = _OnFirstValue(parameter_info=descriptor.parameter_info,
                                             annotation=descriptor.annotation)


def coerce_on_first_value(command: Any) -> Any:
    """`command` and every command under it: parameters coerced lazily (see the module)."""
    if RuntimeParam is None:
        return command
    for param in getattr(command, "params", ()):
        _defer(param)
    make_help_option = getattr(command, "get_help_option", None)
    if make_help_option is not None and "get_help_option" not in vars(command):

        def get_help_option(ctx: Any) -> Any:
            option = make_help_option(ctx)
            if option is not None:
                _defer(option)
            return option

        command.get_help_option = get_help_option
    for sub in (getattr(command, "commands", None) or {}).values():
        coerce_on_first_value(sub)
    return command
