"""The exception tree of bandstand.

Library code raises these; only the CLI layer turns them into messages and
exit codes (user mistakes → one line on stderr, exit 2; runtime failures →
exit 1). Three kinds are kept apart: user mistakes, runtime failures, and
control-flow signals. What a musician (an agent, an LLM) wrote is never a
user mistake: a pattern it wrote that does not parse or runs over its budget
is a `MusicianError`, a runtime failure that names the musician::

    BandstandError
    ├── UserError                      bad input from a person: exit 2, one clear line
    │   ├── InvalidInput               a value out of range, an unknown name, an empty prompt
    │   │   ├── NotFound               names a thing that does not exist (HTTP 404)
    │   │   ├── Conflict               does not fit the current state (HTTP 409)
    │   │   └── ToolCallError          a studio tool call refused (names the call, tool and field)
    │   ├── ConfigError                bad bandstand.toml / environment / flags
    │   ├── TheoryError                a note, chord, scale, key or numeral that does not parse
    │   ├── PatternError               a pattern that does not parse or evaluate
    │   │   ├── PatternParseError      with source, column and a caret
    │   │   ├── UnknownFunctionError   names the function and the closest known one
    │   │   └── PatternBudgetExceeded  a query past its budget (names the limit: events or seconds)
    │   ├── MidiFileError              a file that is not a readable Standard MIDI File
    │   ├── SoundFontNotFound          no SoundFont; names $BANDSTAND_SOUNDFONT
    │   ├── OutputNotWritable          an output folder that cannot be written
    │   ├── CheckpointError            a corrupt or incompatible checkpoint
    │   ├── BoardUsageError            a board command used wrongly (unknown task, ...)
    │   └── VariationConflict          a variation that cannot be committed (stale base, twice, …)
    ├── RuntimeFailure                 something failed while running; `retryable` says
    │   ├── StageFailed                a compose graph node failed (carries node and code)
    │   ├── AgentError                 an agent backend or session failed
    │   │   ├── BackendUnavailable     a backend's dependency or binary is missing
    │   │   ├── TurnTimeout            a turn did not finish in time
    │   │   ├── TurnFailed             a turn ended in an error
    │   │   ├── CircuitOpen            calls refused while the breaker is open
    │   │   └── MusicianError          what a musician wrote does not hold (its pattern); names it
    │   ├── BoardError                 the task board refused an operation
    │   │   ├── IllegalTransition      names the from and to states
    │   │   │   └── TerminalState      a terminal task cannot change
    │   │   ├── FencingError           only the holding session may move a task
    │   │   ├── BoardBusy              another process held the board past the wait (exit 2)
    │   │   └── BoardDamaged           the board's file or a row is not what the protocol wrote (exit 2)
    │   ├── ContractMismatch           an agent team's contract that does not match its fingerprint
    │   ├── RenderError                audio or picture rendering failed
    │   └── SessionBusy                another process held a session's lock for too long
    └── (control-flow signals are not errors: see `Signal`)

    Signal                             control flow between layers, never shown to a user
    ├── Cancelled                      the run was asked to stop; the caller leaves it resumable
    ├── AttemptTimeout                 one attempt ran out of time; the caller gives up, or retries
    │                                  a node that is not deterministic
    └── DensityLimit                   a query computed more events than its budget; the caller
                                       reports it in its own words (a pattern error, a refusal)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AgentError",
    "AttemptTimeout",
    "BackendUnavailable",
    "BandstandError",
    "BoardBusy",
    "BoardDamaged",
    "BoardError",
    "BoardUsageError",
    "Cancelled",
    "CheckpointError",
    "CircuitOpen",
    "ConfigError",
    "Conflict",
    "ContractMismatch",
    "DensityLimit",
    "FencingError",
    "IllegalTransition",
    "InvalidInput",
    "MidiFileError",
    "MusicianError",
    "NotFound",
    "OutputNotWritable",
    "PatternBudgetExceeded",
    "PatternError",
    "PatternParseError",
    "RenderError",
    "RuntimeFailure",
    "SessionBusy",
    "Signal",
    "SoundFontNotFound",
    "StageFailed",
    "TerminalState",
    "TheoryError",
    "ToolCallError",
    "TurnFailed",
    "TurnTimeout",
    "UnknownFunctionError",
    "UserError",
    "VariationConflict",
]


class BandstandError(Exception):
    """Base of every error bandstand raises on purpose."""

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context = context

    def __str__(self) -> str:
        return self.message


# --------------------------------------------------------------------------- user mistakes


class UserError(BandstandError):
    """A mistake in what a person gave us. The CLI prints it on one line and exits 2."""

    exit_code = 2


class InvalidInput(UserError):
    """A value out of range, an unknown name, an empty prompt."""


class NotFound(InvalidInput):
    """The request names something that does not exist (an unknown id or file). HTTP 404."""


class Conflict(InvalidInput):
    """The request does not fit the current state (the jam is not running, a revision moved on). HTTP 409."""


class ConfigError(UserError):
    """Bad configuration: bandstand.toml, environment variables or flags."""


class _SourceError(UserError):
    """An error that points at a position in a piece of source text."""

    def __init__(self, message: str, *, text: str = "", position: int | None = None, **context: Any) -> None:
        self.text = text
        self.position = position
        super().__init__(message, text=text, position=position, **context)

    @property
    def column(self) -> int | None:
        """1-based column of the offending character, if known."""
        return None if self.position is None else self.position + 1

    def caret(self) -> str:
        """The source line with a caret under the offending position."""
        if self.position is None or not self.text:
            return ""
        return f"{self.text}\n{' ' * self.position}^"


class TheoryError(_SourceError):
    """A note, chord symbol, scale, key or Roman numeral that does not parse."""


class PatternError(_SourceError):
    """A pattern that does not parse or cannot be evaluated."""


class PatternParseError(PatternError):
    """A syntax error in mini-notation or the expression language (has a column and caret)."""


class UnknownFunctionError(PatternError):
    """A function or method that the expression language does not know."""

    def __init__(self, message: str, *, name: str = "", suggestion: str | None = None, **context: Any) -> None:
        self.name = name
        self.suggestion = suggestion
        super().__init__(message, name=name, suggestion=suggestion, **context)


class PatternBudgetExceeded(PatternError):
    """A pattern that computed more haps, or ran longer, than its query budget allows.

    `limit` is ``"events"`` or ``"seconds"``; `budget` the number that was exceeded."""

    def __init__(self, message: str, *, limit: str = "", budget: float = 0, **context: Any) -> None:
        self.limit = limit
        self.budget = budget
        super().__init__(message, limit=limit, budget=budget, **context)


class MidiFileError(UserError):
    """A file that is not a readable Standard MIDI File."""


class SoundFontNotFound(UserError):
    """No General MIDI SoundFont could be found."""


class OutputNotWritable(UserError):
    """An output folder or file that cannot be written."""


class CheckpointError(UserError):
    """A checkpoint that is corrupt or from an incompatible schema version."""


class BoardUsageError(UserError):
    """A board command used wrongly: unknown task, bad arguments."""


class ToolCallError(InvalidInput):
    """A studio tool call refused before anything changed: which call of the batch
    (`index`, 0-based), which tool, and the parameter at fault when there is one."""

    def __init__(self, message: str, *, tool: str = "", index: int = 0, field: str | None = None,
                 **context: Any) -> None:
        self.tool = tool
        self.index = index
        self.field = field
        super().__init__(message, tool=tool, index=index, field=field, **context)


class VariationConflict(UserError):
    """A variation that cannot be committed or changed: made against another revision,
    already committed or discarded, or asked for phrases it does not have."""


# --------------------------------------------------------------------------- runtime failures


class RuntimeFailure(BandstandError):
    """Something failed while running. `retryable` tells whether trying again may help."""

    exit_code = 1

    def __init__(self, message: str, *, retryable: bool = False, **context: Any) -> None:
        self.retryable = retryable
        super().__init__(message, retryable=retryable, **context)


class StageFailed(RuntimeFailure):
    """A node of the compose graph failed (carries the node's name and an error code)."""

    def __init__(self, message: str, *, node: str = "", code: str = "UNKNOWN", **context: Any) -> None:
        self.node = node
        self.code = code
        super().__init__(message, node=node, code=code, **context)


class AgentError(RuntimeFailure):
    """An agent backend or session failed."""


class BackendUnavailable(AgentError):
    """A backend cannot be used here: a client library or binary is missing."""


class TurnTimeout(AgentError):
    """A turn did not finish within its timeout."""


class TurnFailed(AgentError):
    """A turn ended in an error reported by the backend."""


class CircuitOpen(AgentError):
    """Calls are refused while the circuit breaker is open."""


class MusicianError(AgentError):
    """What a musician (an agent: built in or a language model) wrote does not hold — a pattern
    that does not parse, cannot be evaluated or runs over its budget. Not the person's mistake:
    it names the `musician` and keeps the pattern error as its cause (`code` MUSICIAN_PATTERN)."""

    def __init__(self, message: str, *, musician: str = "", code: str = "MUSICIAN_PATTERN",
                 **context: Any) -> None:
        self.musician = musician
        self.code = code
        super().__init__(message, musician=musician, code=code, **context)


class BoardError(RuntimeFailure):
    """The task board refused an operation."""


class IllegalTransition(BoardError):
    """A state change that the protocol does not allow."""

    def __init__(self, message: str, *, from_state: str = "", to_state: str = "", **context: Any) -> None:
        self.from_state = from_state
        self.to_state = to_state
        super().__init__(message, from_state=from_state, to_state=to_state, **context)


class TerminalState(IllegalTransition):
    """A task in a terminal state cannot change."""


class FencingError(BoardError):
    """Only the session that holds a task may move it."""


class BoardBusy(BoardError):
    """Another process held the board's write lock past the wait (a writer suspended with
    Ctrl-Z or in a debugger); the message names it. Retryable; exit 2 like a user mistake,
    since the person has to resume or end that process."""

    exit_code = 2

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message, retryable=True, **context)


class BoardDamaged(BoardError):
    """The board's file is corrupt or not a database, or a row holds what the protocol never
    writes (an unknown state). Exit 2: a person has to restore or move the file."""

    exit_code = 2


class ContractMismatch(RuntimeFailure):
    """An agent team's contract whose fields no longer give its fingerprint, or that does not
    descend from the contract it should: the agent refuses it before touching the project."""


class RenderError(RuntimeFailure):
    """Rendering audio or a picture failed."""


class SessionBusy(RuntimeFailure):
    """Another process kept a session's lock for longer than we were willing to wait."""


# --------------------------------------------------------------------------- control flow


class Signal(Exception):
    """Control flow between layers; never shown to a user (a caller that lets one escape has a bug)."""


class Cancelled(Signal):
    """The run was asked to stop (Ctrl-C, `cancel()`): raised inside a compose node or a render,
    caught by the engine, which ends the run `cancelled` and resumable."""


class AttemptTimeout(Signal):
    """One attempt of a compose node ran out of time (no progress for the stall limit, past a
    wall limit, or the whole run's); the engine gives up — the failure is a `TIMEOUT` naming the
    node and the limit, and `option` the command-line option that raises it — or, for a node
    that is not deterministic, tries again."""

    def __init__(self, message: str = "", *, option: str = "") -> None:
        super().__init__(message)
        self.option = option


class DensityLimit(Signal):
    """A query computed more events than its budget allows; the validator that asked stops and
    reports it as its own error (a pattern that is too dense), never as this."""
