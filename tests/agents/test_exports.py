"""The public surface of bandstand.agents and bandstand.runtime is pinned; LLM clients stay lazy."""

from __future__ import annotations

import subprocess
import sys

import bandstand.agents
import bandstand.runtime


def test_agents_exports_are_pinned() -> None:
    assert sorted(bandstand.agents.__all__) == sorted(
        [
            "BACKEND_NAMES",
            "AgentBackend",
            "AgentsConfig",
            "AlgorithmicBackend",
            "AnthropicBackend",
            "BackendStatus",
            "CircuitBreaker",
            "ClaudeCodeBackend",
            "Conversation",
            "Emit",
            "Message",
            "OpenAIBackend",
            "Parsed",
            "ProcessRegistry",
            "ReplyFormatError",
            "Responder",
            "ToolCall",
            "ToolResult",
            "ToolSpec",
            "TurnReply",
            "TurnRequest",
            "Usage",
            "check_backends",
            "extract_json",
            "json_schema",
            "load_config",
            "make_backend",
            "parse_reply",
            "repair_prompt",
            "retry",
        ]
    )
    for name in bandstand.agents.__all__:
        assert hasattr(bandstand.agents, name)


def test_runtime_exports_are_pinned() -> None:
    assert sorted(bandstand.runtime.__all__) == sorted(
        [
            "EVENT_FIELDS",
            "TEAM_EVENT_FIELDS",
            "TERMINAL",
            "EventLog",
            "LeaderReply",
            "Resume",
            "ResumePlan",
            "Session",
            "SessionLimits",
            "SessionState",
            "Team",
            "TeamResult",
            "TeamSpec",
            "TurnResult",
            "Validated",
            "history_from_log",
            "load_team",
            "parse_team",
            "read_log",
            "resume_point",
        ]
    )
    for name in bandstand.runtime.__all__:
        assert hasattr(bandstand.runtime, name)


def test_importing_the_runtime_does_not_import_llm_clients() -> None:
    code = (
        "import sys, bandstand.runtime, bandstand.agents;"
        "print(','.join(m for m in ('anthropic', 'openai', 'claude_agent_sdk', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_command_help_is_fast_to_import() -> None:
    code = (
        "import sys; from bandstand.cli import run; run(['team', '--help']); run(['agents', '--help']);"
        "print('LOADED=' + ','.join(m for m in ('anthropic', 'openai', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "LOADED="
