from tests.peers.fixtures import anthropic_server, claude_backend, claude_bin, openai_server  # noqa: F401
