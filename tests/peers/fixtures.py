"""pytest fixtures for the faithful local peers. Import them into a conftest:

from tests.peers.fixtures import claude_bin, claude_backend, openai_server, anthropic_server  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.procs import ProcessRegistry
from tests.peers.anthropic_server import AnthropicServer
from tests.peers.claude import fake_claude_bin
from tests.peers.openai_server import OpenAIServer


@pytest.fixture
def claude_bin(tmp_path: Path) -> Path:
    """An executable fake `claude` in a temporary folder."""
    return fake_claude_bin(tmp_path / "bin")


@pytest.fixture
def claude_backend(tmp_path: Path, claude_bin: Path) -> Iterator[ClaudeCodeBackend]:
    """A claude-code backend on the fake CLI, with its own PID registry and short graces."""
    backend = ClaudeCodeBackend(
        bin=str(claude_bin),
        registry=ProcessRegistry(tmp_path / "pids"),
        init_timeout=10.0,
        interrupt_grace=2.0,
        term_grace=0.5,
    )
    yield backend
    backend.registry.reap_own()


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A running OpenAI-compatible server on 127.0.0.1 (key ``test-key``)."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A running Anthropic-Messages-compatible server on 127.0.0.1 (key ``test-key``)."""
    with AnthropicServer(cache_min_tokens=16) as server:
        yield server
