"""Composing a new song: the compose graph run as a use case (approval, resume, the part
generator the studio uses) and composing as a plan of tool calls.

Modules: `compose`, `compose_plan`, `generator` (the part generator, loaded on use). Import them by their full name
(`bandstand.producer.composing.compose`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
