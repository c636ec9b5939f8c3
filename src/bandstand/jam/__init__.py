"""Jam: a live band of musician agents that the boss directs.

Personas, the musical context, directives and routing, the built-in musicians,
the jam engine (rounds, validation, fallback, composition, autopilot), the
transport clock, the recorder and the headless runner. The server and the CLI
sit on top.
"""

from bandstand.jam.autopilot import Autopilot, run_autopilot
from bandstand.jam.band import Composition, Member, compose
from bandstand.jam.context import MusicalContext, apply_directive
from bandstand.jam.directives import Directive, parse_directive
from bandstand.jam.engine import JamEngine, RoundRecord, algorithmic_backend
from bandstand.jam.headless import run_headless
from bandstand.jam.live import LiveJam
from bandstand.jam.musicians import Musician
from bandstand.jam.persona import Persona, builtin_personas, load_persona, resolve_members
from bandstand.jam.recording import export
from bandstand.jam.transport import PlayedCycle, Transport
from bandstand.jam.turn import JamReply, Style, TurnInput, render_turn_text

__all__ = [
    "Autopilot",
    "Composition",
    "Directive",
    "JamEngine",
    "JamReply",
    "LiveJam",
    "Member",
    "MusicalContext",
    "Musician",
    "Persona",
    "PlayedCycle",
    "RoundRecord",
    "Style",
    "Transport",
    "TurnInput",
    "algorithmic_backend",
    "apply_directive",
    "builtin_personas",
    "compose",
    "export",
    "load_persona",
    "parse_directive",
    "render_turn_text",
    "resolve_members",
    "run_autopilot",
    "run_headless",
]
