"""The layers below as the clients may name them: theory, pattern code, MIDI and render, the
language-model backends — each the lower layer's own names, re-exported, so a client imports
only the producer.

Modules: `music_theory`, `pattern_code`, `rendering`, `backends`, and `pattern_tools` and
`theory_tools`, the sub-facades (`App.patterns()`, `App.theory()`) through which alone clients reach
the first two. Import them by their full name
(`bandstand.producer.engines.music_theory`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
