from tests.peers.fixtures import claude_backend, claude_bin, openai_server  # noqa: F401
