"""The jam as use cases (make, start, direct, stop, record) and a jam kept as a song.

Modules: `jam`, `jam_headless`, `jam_recipe`, `jam_song`. Import them by their full name
(`bandstand.producer.jams.jam`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
