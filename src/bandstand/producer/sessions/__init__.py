"""A session folder as a studio project and what is done with it: the studio service and its
tools, revisions, variations and branches, the files that show HEAD, listening and auditioning,
export and import, the projects folder and its list of sessions, and the JSON every client shows
for them.

Modules: `studio`, `studio_tools`, `tool_context`, `projects`, `branches`, `library`,
`session_list`, `head_files`, `head_notes`, `listen`, `audition`, `export`, `importing`,
`summaries`, `wire`, `variation_tracks`. Import them by their full name
(`bandstand.producer.sessions.studio`); the package re-exports nothing (the facade is
`bandstand.producer.App`, docs/architecture.md)."""

__all__: list[str] = []
