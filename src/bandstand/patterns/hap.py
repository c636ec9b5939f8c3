"""Haps: one value active over a time span.

A hap (Strudel's name for an event) has a `whole` (the event's full span, or
None for a continuous value sampled from a signal), a `part` (the fragment
inside the query span, never outside the whole) and a `value`. `context` holds
the source locations ((start, end) character offsets) that produced it, for
highlighting, and — like Strudel's `hap.context.scale` — a `("scale", name)`
mark once `.scale(name)` placed its note, for `scaleTranspose`, and a
`("tag", name)` mark for each `.tag(name)`, for `hasTag`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from bandstand.patterns.time import TimeSpan, show_time

__all__ = ["Hap"]

Location = tuple[int, int]
ScaleMark = tuple[str, str]  # ("scale", "C:major") or ("tag", "altered")
ContextItem = Location | ScaleMark


class Hap(NamedTuple):
    """A value active over `part`, a fragment of the event `whole` (None if continuous).

    Immutable; a NamedTuple for the same speed reason as `TimeSpan`.
    """

    whole: TimeSpan | None
    part: TimeSpan
    value: Any
    context: tuple[ContextItem, ...] = ()

    def has_onset(self) -> bool:
        """True if this fragment contains the start of its event."""
        return self.whole is not None and self.whole.begin == self.part.begin

    def whole_or_part(self) -> TimeSpan:
        return self.part if self.whole is None else self.whole

    def with_span(self, func: Any) -> Hap:
        whole = self.whole
        return Hap(
            None if whole is None else func(whole), func(self.part), self.value, self.context
        )

    def with_value(self, func: Any) -> Hap:
        return Hap(self.whole, self.part, func(self.value), self.context)

    def with_context(self, context: tuple[ContextItem, ...]) -> Hap:
        return Hap(self.whole, self.part, self.value, context)

    def scale(self) -> str | None:
        """The scale this hap's note was placed in (the last mark wins, as Strudel's
        merged contexts do), or None."""
        for item in reversed(self.context):
            if item[0] == "scale":
                return str(item[1])
        return None

    def combine_context(self, other: Hap) -> tuple[ContextItem, ...]:
        """This hap's locations followed by `other`'s."""
        if not other.context:
            return self.context
        if not self.context:
            return other.context
        return self.context + other.context

    def show(self) -> str:
        """A compact readable form, like Strudel's `Hap.show`."""
        part = self.part
        if self.whole is None:
            return f"~{part.show()} {self.value!r}"
        w = self.whole
        prefix = f"{show_time(w.begin)} ⇜ " if w.begin != part.begin else ""
        suffix = f" ⇝ {show_time(w.end)}" if w.end != part.end else ""
        inner = part.show() if w == part else f"({part.show()})"
        return f"[ {prefix}{inner}{suffix} | {self.value!r} ]"
