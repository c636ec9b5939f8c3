"""The conductor/musician task board as use cases: the board as the clients reach it (`desk`, through
`App.board`), its checks, a launch of agent sessions (conductor, musicians, their work).

Modules: `desk`, `board_backends`, `board_checks`, `board_conductor`, `board_launch`, `board_musician`,
`board_sessions`, `board_work`. Import them by their full name
(`bandstand.producer.board.board_checks`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
