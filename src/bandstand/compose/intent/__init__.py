"""Stage 1 — intent: the rule-based prompt decomposer."""

from __future__ import annotations

from bandstand.compose.intent.decompose import Overrides, decompose, summarize

__all__ = ["Overrides", "decompose", "summarize"]
