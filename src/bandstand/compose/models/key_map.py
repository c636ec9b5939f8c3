"""A `KeySpan`: bars of a song planned in another key than the recipe's own.

A recipe's intent, harmony and arrangement are the song's opening key; a key
change accepted in some phrases only, or a jam that moved to another key,
leaves some bars in another key. Each such run of bars keeps the intent and
harmony it was planned with and the chord each of its bars plays, so a part
regenerated later in those bars is written in their key, over their chords.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent


class KeySpan(BaseModel):
    """Bars `first_bar`..`last_bar` (1-based, inclusive) in the key of `harmony`."""

    model_config = ConfigDict(extra="forbid")

    first_bar: int = Field(ge=1)
    last_bar: int = Field(ge=1)
    intent: Intent
    harmony: HarmonyPlan
    chords: list[int] = Field(description="the chord index (into harmony.chords) of every bar of the song, "
                                          "as the arrangement over this harmony lays them")

    @property
    def key(self) -> str:
        return self.harmony.key_name
