"""Stage 1 — intent: the rule-based prompt decomposer, optionally merged with what a
language model read from the prompt."""

from __future__ import annotations

from bandstand.compose.intent.decompose import Overrides, decompose, summarize
from bandstand.compose.intent.llm import Extraction, extract

__all__ = ["Extraction", "Overrides", "decompose", "extract", "summarize"]
