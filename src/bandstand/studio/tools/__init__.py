"""The studio's tools (spec §2): one pydantic parameter model and one pure
handler per tool, each with its phase, in one registry (`TOOLS`) from which
the LLM tool schemas, the MCP tool list and `/protocol/tools.json` come
(`TOOLS.schemas()`). `run_batch` checks and runs a batch of calls all or
nothing; `generate_part` calls a `PartGenerator` its caller supplies."""

from bandstand.studio.tools.batch import (
    STRIKES,
    BatchOutcome,
    Strikes,
    ToolCall,
    ToolResult,
    explain_validation,
    model_signature,
    run_batch,
    signature,
)
from bandstand.studio.tools.catalog import CREATING, TOOLS
from bandstand.studio.tools.generate import GeneratedPart, PartGenerator, PartRequest
from bandstand.studio.tools.params import (
    GRIDS,
    MAX_NOTES_PER_CALL,
    ToolParams,
    effect_params_schema,
)
from bandstand.studio.tools.registry import (
    MODES,
    PHASES,
    Mode,
    Phase,
    Tool,
    ToolContext,
    ToolRegistry,
)

__all__ = [
    "CREATING",
    "GRIDS",
    "MAX_NOTES_PER_CALL",
    "MODES",
    "PHASES",
    "STRIKES",
    "TOOLS",
    "BatchOutcome",
    "GeneratedPart",
    "Mode",
    "PartGenerator",
    "PartRequest",
    "Phase",
    "Strikes",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolParams",
    "ToolRegistry",
    "ToolResult",
    "effect_params_schema",
    "explain_validation",
    "model_signature",
    "run_batch",
    "signature",
]
