"""How a use case's work runs: off the event loop, bounded and cancellable (`Control`, the
circuit breakers), with the garbage collector held off while a song is built.

Modules: `running`, `collector`. Import them by their full name
(`bandstand.producer.execution.running`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
