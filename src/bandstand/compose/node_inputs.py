"""What each node of the compose graph reads: one frozen inputs model per node.

A field names the node (or fan-out group) it comes from and says what that
node must have produced; `compose.edges` reads these when the graph is built
(see there), and `Graph` refuses a field no earlier node can fill. The output
node reads the sound, the assembled song and the validation report when they
were made (`| None`): it writes a session without them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bandstand.compose.edges import Group
from bandstand.compose.models.arrangement import ArrangementPlan
from bandstand.compose.models.harmony import HarmonyPlan
from bandstand.compose.models.intent import Intent
from bandstand.compose.models.parts import PartResult
from bandstand.compose.models.reports import ValidationReport
from bandstand.compose.models.sound import SoundPlan
from bandstand.score import Song

__all__ = ["ArrangementInputs", "AssemblyInputs", "HarmonyInputs", "IntentInputs", "OutputInputs", "PartInputs",
           "SoundInputs", "ValidationInputs"]


@dataclass(frozen=True, slots=True)
class IntentInputs:
    """The intent reads the prompt and the options (the run state), no node."""


@dataclass(frozen=True, slots=True)
class HarmonyInputs:
    intent: Intent


@dataclass(frozen=True, slots=True)
class ArrangementInputs:
    intent: Intent
    harmony: HarmonyPlan


@dataclass(frozen=True, slots=True)
class PartInputs:
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan


@dataclass(frozen=True, slots=True)
class SoundInputs:
    intent: Intent
    parts: Group[PartResult]


@dataclass(frozen=True, slots=True)
class AssemblyInputs:
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    parts: Group[PartResult]


@dataclass(frozen=True, slots=True)
class ValidationInputs:
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    assembly: Song


@dataclass(frozen=True, slots=True)
class OutputInputs:
    intent: Intent
    harmony: HarmonyPlan
    arrangement: ArrangementPlan
    parts: Group[PartResult]
    sound: SoundPlan | None
    assembly: Song | None
    validation: ValidationReport | None
