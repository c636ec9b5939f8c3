from tests.peers.fixtures import claude_backend, claude_bin  # noqa: F401
