"""The jam's wire messages: every message that crosses the WebSocket is one of
these pydantic models, tagged by its `type` field. Server → client messages
describe the jam (state, thoughts, statuses, context, the playing pattern and
the scheduled sound events); client → server messages are the boss's controls.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bandstand.score import TEMPO_RANGE

Status = Literal["idle", "thinking", "error", "timeout"]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- shared parts


class ContextView(BaseModel):
    """The musical context as clients see it."""

    key: str
    scale: list[str]
    chords: list[str]
    bpm: float
    time_signature: str
    energy: int = Field(ge=1, le=10)


class MemberView(BaseModel):
    """One band member as clients see it."""

    name: str
    emoji: str
    role: str
    colour: str
    status: Status
    pattern: str
    fallback_pattern: str
    using_fallback: bool
    thoughts: str
    reaction: str
    muted: bool
    soloed: bool
    active: bool
    last_updated: float
    volume: float = Field(default=1.0, ge=0.0, le=1.5, description="the boss's fader for this member; 1 plays the pattern as written")


class Layer(BaseModel):
    """One member's pattern inside the combined pattern."""

    member: str
    code: str


class SoundEvent(BaseModel):
    """One scheduled sound: times are in cycles, relative to the cycle's start."""

    begin: float
    duration: float
    member: str
    sound: str
    note: float | None = None
    gain: float = 0.8
    pan: float = 0.5
    cutoff: float | None = None
    delay: float = 0.0
    room: float = 0.0
    crush: float | None = None
    program: int | None = Field(default=None, ge=0, le=127, description="the General MIDI program the recording plays it with; None: the drum kit (channel 10)")
    key: int | None = Field(default=None, ge=0, le=127, description="the MIDI key the recording plays (the pitch, or the drum's key); None: not playable as MIDI")
    velocity: int = Field(default=100, ge=1, le=127, description="the MIDI velocity the recording plays it with")
    kit: int = Field(default=0, ge=0, le=127, description="for a drum: the drum kit (a program on the SoundFont's drum bank) its `bank` plays with; 0: the standard kit")


# --------------------------------------------------------------------------- server → client


class JamStateUpdate(_Message):
    type: Literal["jam_state_update"] = "jam_state_update"
    running: bool
    round: int
    members: list[MemberView]
    context: ContextView
    combined_pattern: str
    layers: list[Layer]
    autopilot: bool
    autopilot_interval: float


class AgentThought(_Message):
    type: Literal["agent_thought"] = "agent_thought"
    member: str
    emoji: str
    thought: str
    reaction: str
    pattern: str
    complied_with_boss: bool
    round: int
    timestamp: float
    status: Status = "idle"
    note: str = ""
    rejected: str = Field(default="", description="the pattern the member answered and validation refused (it plays its last good one)")


class AgentStatus(_Message):
    type: Literal["agent_status"] = "agent_status"
    member: str
    status: Status
    round: int


class MusicalContextUpdate(_Message):
    type: Literal["musical_context_update"] = "musical_context_update"
    context: ContextView
    changed: list[str]


class Execute(_Message):
    type: Literal["execute"] = "execute"
    code: str
    layers: list[Layer]
    from_cycle: int
    round: int


class Events(_Message):
    type: Literal["events"] = "events"
    cycle: int
    cycle_seconds: float
    events: list[SoundEvent]
    at: float | None = Field(default=None, description="when the cycle begins on the server's clock (Unix seconds); None when not played in real time")


class BossEcho(_Message):
    """A boss directive as the chat shows it, with whom it was routed to."""

    type: Literal["boss_directive_echo"] = "boss_directive_echo"
    text: str
    to: list[str]
    round: int


class ErrorMessage(_Message):
    type: Literal["error"] = "error"
    message: str


class CodeOverride(_Message):
    """The boss rewrote a member's pattern (it sounds from the next cycle; the member is told in its next turn)."""

    type: Literal["code_override"] = "code_override"
    member: str
    code: str
    round: int


class ChatHistory(_Message):
    """Sent to a client when it connects: the jam's recent chat (thoughts, directives, context
    changes, code edits) as they were sent, oldest first, so a reloaded or new tab shows it."""

    type: Literal["chat_history"] = "chat_history"
    messages: list[dict[str, Any]]


class JamKept(_Message):
    """The answer to keep_jam: the jam, arranged as a song project the studio can open (`project` is its id
    among the server's projects); `left_out` names rounds a song could not keep (another metre)."""

    type: Literal["jam_kept"] = "jam_kept"
    project: str
    form: list[str]
    left_out: list[str] = []


# --------------------------------------------------------------------------- client → server


class _Request(_Message):
    """A client's message: read strictly (no type guessing: an `enabled` of 0 is not false),
    from the socket and the HTTP API alike."""

    model_config = ConfigDict(extra="forbid", strict=True)


class StartJam(_Request):
    type: Literal["start_jam"] = "start_jam"
    members: list[str] | None = Field(default=None, max_length=64)
    restart: bool = False
    """A running jam is restarted only when this is true (otherwise the request is refused)."""


class StopJam(_Request):
    type: Literal["stop_jam"] = "stop_jam"


class BossDirective(_Request):
    type: Literal["boss_directive"] = "boss_directive"
    text: str = Field(min_length=1, max_length=2000)


class SetMute(_Request):
    type: Literal["set_mute"] = "set_mute"
    member: str
    muted: bool


class SetSolo(_Request):
    type: Literal["set_solo"] = "set_solo"
    member: str
    soloed: bool


class SetAutopilot(_Request):
    type: Literal["set_autopilot"] = "set_autopilot"
    enabled: bool
    interval: float = Field(default=16.0, ge=8.0, le=30.0)


class SetVolume(_Request):
    type: Literal["set_volume"] = "set_volume"
    member: str
    volume: float = Field(ge=0.0, le=1.5)


class SetTempo(_Request):
    type: Literal["set_tempo"] = "set_tempo"
    bpm: float = Field(ge=TEMPO_RANGE[0], le=TEMPO_RANGE[1])


class SetEnergy(_Request):
    type: Literal["set_energy"] = "set_energy"
    level: int = Field(ge=1, le=10)


class OverrideCode(_Request):
    """The boss's own pattern for a member, validated like any reply."""

    type: Literal["override_code"] = "override_code"
    member: str
    code: str = Field(min_length=1, max_length=4000)


class KeepJam(_Message):
    """"Keep this": the jam so far (playing or stopped) becomes an arranged song project."""

    type: Literal["keep_jam"] = "keep_jam"
    title: str = Field(default="", max_length=200)


SERVER_MESSAGES: tuple[type[BaseModel], ...] = (
    JamStateUpdate,
    AgentThought,
    AgentStatus,
    MusicalContextUpdate,
    Execute,
    Events,
    BossEcho,
    ErrorMessage,
    CodeOverride,
    ChatHistory,
    JamKept,
)
CLIENT_MESSAGES: tuple[type[BaseModel], ...] = (
    StartJam,
    StopJam,
    BossDirective,
    SetMute,
    SetSolo,
    SetAutopilot,
    SetVolume,
    SetTempo,
    SetEnergy,
    OverrideCode,
    KeepJam,
)
