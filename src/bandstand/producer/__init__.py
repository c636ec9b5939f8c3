"""The service layer every client calls (CLI, HTTP, MCP, pages): composing a
song, directing it afterwards (edits → blast radius → variations,
alternatives), projects and their revisions. Clients translate input and
output; the decisions are made here.

Submodules are imported on use (`bandstand.producer.compose`, …) so that a
client pays only for what it calls."""

__all__: list[str] = []
