"""The studio's tool registry as the clients name it — every tool a client may call on a
project (`TOOLS`, one `Tool` each, with its signature), how a mistake in its arguments is
explained, the closest names for a misspelt one, and a revision's diff in lines — re-exported
from `bandstand.studio` (the registry lives once there; a client imports only the producer,
see docs/architecture.md). The CLI's `bandstand tool`, MCP's studio tools and the server's
OpenAPI document are built from it."""

from __future__ import annotations

from bandstand.studio import diff_lines
from bandstand.studio.tools import TOOLS, Tool, explain_validation, model_signature, signature
from bandstand.studio.tools.resolve import suggest

__all__ = ["TOOLS", "Tool", "diff_lines", "explain_validation", "model_signature", "signature", "suggest"]
