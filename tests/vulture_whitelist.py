"""What vulture reports as unreferenced but is used in a way it cannot see (#29).

vulture reads this file as code: each ``_.name`` below counts as a use of every definition
called ``name``. It is never imported. `tests/test_dead_code.py` fails on a name here that
nothing defines any more, so the list cannot outlive what it keeps. Definitions registered by
decorator (typer commands, FastAPI routes, pydantic validators, pytest fixtures) are kept by
``ignore_decorators`` in pyproject.toml's ``[tool.vulture]`` instead of being named here.
"""

# ruff: noqa: B018 — each line is an expression on purpose: the use vulture counts

from vulture.whitelists.whitelist_utils import Whitelist

_ = Whitelist()

# PEP 562: a package's lazy names and what dir() lists, called by the import system
_.__dir__

# pydantic reads a model's configuration from the class
_.model_config

# Fields of models that are saved or sent: the files and the wire carry them even where no
# Python code reads them back (the pages, another process, an older checkpoint), and every
# one of these models refuses unknown keys, so dropping a field would refuse saved input.
# compose.state (state.json, the checkpoint a resume reads)
_.invoked_at  # ToolCall
_.failed_tool_call  # StageError
_.checkpoint_path  # Recovery
_.resume_count  # Recovery
# compose.models (intent.json, the parts' and sound reports of a session folder)
_.tempo_center  # GenreDNA
_.requested_outputs  # Intent
_.velocity_sd  # PartStats
_.control_count  # PartStats
_.pitch_bend_count  # PartStats
_.program_name  # PartSound
# producer.requests.structured: slots a structured prompt may fill (the router reads the others)
_.dynamics  # StructuredPrompt
_.orchestration  # StructuredPrompt
# studio.variations (a variation's JSON, read by the studio page)
_.region_start_beat  # Phrase
# protocol: events and messages on the wire, read by the pages
_.autopilot_interval  # JamStateUpdate
_.complied_with_boss  # AgentThought
_.from_cycle  # Execute
_.tool_name  # PlanStep
_.duration_beats  # WireNote
_.parallel_groups  # PlanSummary
_.note_counts  # Meta
_.phrase_id  # Phrase
_.note_changes  # Phrase
_.cc_events  # Phrase

# Methods found by name at run time
# board.tools.BoardTools.call: getattr(self, f"_{name}") for the tool a session calls
_._claim_task
_._heartbeat
_._log_status
_._submit_work
_._request_review
_._report_completion
_._run_check
_._report_error
_._wait_for_review
_._resume
_._read_task
_._list_tasks
_._approve
_._reject
_._propose_fix
_._request_exit
# protocol.guards.studio: the guard's check for an event is getattr(self, "_" + its type)
_._planSummary
_._planStepUpdate
_._toolStart
_._toolCall
_._toolError
_._generatorStart
_._generatorComplete

# Hooks and signatures a library calls or fixes
_.list_commands  # click.Group: the CLI's command order
_.format_commands  # click.Group: the CLI's help sections
_.write_usage  # click.HelpFormatter
_.formatter_class  # click.Context
_.context_class  # click.Command
_.row_factory  # sqlite3.Connection
_.convert_result  # mcp's Tool.run signature, overridden by McpTool.run
_.typingctx  # numba's @intrinsic signature (render.native)

# Documented API: TurnResult's duration (docs/agents.md: "text, any structured output, usage, duration")
_.duration_s

# tests: what pytest and http.server read, and a responder named by a "module:function" string
_.pytestmark
_.pytest_addoption
_.pytest_configure
_.pytest_collection_modifyitems
_.log_message  # BaseHTTPRequestHandler
_.do_POST  # BaseHTTPRequestHandler
_.close_connection  # BaseHTTPRequestHandler
_.daemon_threads  # ThreadingHTTPServer
_.stuck_when_told  # tests/runtime/test_team_resume.py names it as "tests.runtime.team_responders:stuck_when_told"

# Keys of TypedDicts that type JSON replies (#29, typed boundaries): the JSON carries them to the
# CLI's --json, the HTTP API and MCP, where no Python code of ours reads them back by name
_.stale_after_s  # board.view's board snapshot
_.timings_ms  # compose.api's RunSummary
_.total_ms  # compose.api's RunSummary
_.projectId  # producer.sessions.branches' BranchesListing
