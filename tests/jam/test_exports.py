"""The public surfaces of jam, protocol and server are pinned."""

from __future__ import annotations

import bandstand.jam
import bandstand.protocol
import bandstand.server


def test_jam_exports() -> None:
    assert set(bandstand.jam.__all__) == {
        "Autopilot", "Composition", "Directive", "JamEngine", "JamReply", "LiveJam", "Member", "Musician",
        "MusicalContext", "Persona", "PlayedCycle", "RoundRecord", "Style", "Transport", "TurnInput",
        "algorithmic_backend", "apply_directive", "builtin_personas", "compose", "export", "load_persona",
        "parse_directive", "render_turn_text", "resolve_members", "run_autopilot", "run_headless",
    }
    assert all(hasattr(bandstand.jam, name) for name in bandstand.jam.__all__)


def test_protocol_and_server_exports() -> None:
    assert {"Emitter", "Guard", "Registry", "protocol_registry", "JamStateUpdate", "AgentThought", "Events"} <= set(bandstand.protocol.__all__)
    assert all(hasattr(bandstand.protocol, name) for name in bandstand.protocol.__all__)
    assert set(bandstand.server.__all__) == {
        "API_PREFIX", "AccessControl", "JamHub", "Limits", "Mounted", "ServerConfig", "ServerState", "bind", "create_app",
        "jam_hub", "lazy_mount", "serve", "server_state", "web_root",
    }
    assert all(hasattr(bandstand.server, name) for name in bandstand.server.__all__)
