"""The service layer every client calls (CLI, HTTP, MCP, pages), exported as one facade:
`App` (`producer.app`), one method per use case with typed requests. Composing a
song, directing it afterwards (edits → blast radius → variations,
alternatives), projects and their revisions. Clients translate input and
output; the decisions are made here.

Submodules are imported on use (`bandstand.producer.composing.compose`, …) so that a
client pays only for what it calls. They are grouped by use case into
subpackages — requests, sessions, composing, jams, live, board, teams, batch,
engines, execution (the map: docs/architecture.md).

Projects (`bandstand.producer.sessions.projects`) — a session folder as a studio project. This API is
stable; the CLI, HTTP routes, MCP tools and the studio page call exactly these:

    open_project(session_dir, *, ids=None, generator=None) -> ProjectSession
        a composed session without revisions/ is imported (its full arrangement becomes
        revision 1); files left behind HEAD by a crash are repaired
    create_from_song(session_dir, song, provenance, *, author="compose", request="", ids=None,
                     overwrite=False, pianoroll_source=None) -> ProjectSession
        revision 1 from what compose made (the compose use case calls this); a WAV already in
        the folder is taken to be this song's render, and so is the piano roll when
        `pianoroll_source` says what it was drawn from

    ProjectSession
      .revision -> int                  HEAD's revision number (read from disk each time)
      .head -> Project                  the project at HEAD; .project(revision) any committed one
      .propose(proposal, *, request="", intent="", explanation="", author="", recipe=None,
               details=None, base_revision=None, on_event=None) -> Variation
                                        a ready variation from HEAD to `proposal`; on_event(kind,
                                        payload) gets "meta", "phrase"…, "done"; nothing changes yet.
                                        `details` is free JSON kept with it (blast radius, cost…)
      .accept(variation_id=None, phrase_ids=None) -> HistoryEntry
                                        commit all or some phrases as a new revision (None = the
                                        newest ready variation; ids may be unique prefixes);
                                        VariationConflict when stale, twice, or unknown phrases
      .discard(variation_id=None) -> Variation          idempotent
      .fail(variation_id, error) -> Variation           generation failed
      .edit(change, *, author, request, kind="tools", tools=None, summary="") -> HistoryEntry | None
                                        change(HEAD) -> Project, run under the session lock; a
                                        direct (structural) revision; None when nothing changed
      .commit(project, *, author, request, kind="tools", tools=None, summary="") -> HistoryEntry
                                        the same for a project built from `project.revision`
                                        (refused when HEAD moved since)
      .undo(steps=1) -> int, .redo() -> int             move HEAD; the new HEAD revision
      .history() -> list[HistoryRow]    oldest first: .entry (HistoryEntry), .undone, .head
      .variations() -> list[Variation]  (without proposals); .variation(id=None) -> Variation
      .ensure_audio() -> Path           the WAV, rendered for HEAD if stale

  Build a proposal with `bandstand.studio.merge_song(session.head, new_song)`: tracks, regions
  and notes that did not change keep their ids, so they diff as unchanged. `Variation.diff` is
  the musical diff in words per part (`bandstand.studio.describe_changes`).
"""

from bandstand.producer.app import App

__all__ = ["App"]
