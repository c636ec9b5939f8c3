"""The wire form shared by the stream events: the protocol version, and the
base models whose Python fields are snake_case and whose JSON keys are camelCase.

Events carry only their own fields; the emitter adds the envelope — `seq`
(1, 2, … per stream) and `protocolVersion` — when it serializes them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

PROTOCOL_VERSION = "1.0"


class WireModel(BaseModel):
    """A frozen model: snake_case in Python, camelCase on the wire; unknown keys refused."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=True, validate_by_alias=True,
    )

    def wire(self) -> dict[str, Any]:
        """The model's JSON object as sent (camelCase keys, no envelope)."""
        return self.model_dump(mode="json", by_alias=True)


class WireEvent(WireModel):
    """A stream event: a `WireModel` with a literal `type` field (declared by each event)."""
