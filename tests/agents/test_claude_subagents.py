"""A claude-code leader that starts its own teammates (CLI subagents): their lines are
attributed per teammate, and the leader's turn returns once they have finished."""

from __future__ import annotations

import json

from bandstand.agents import TurnRequest
from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.claude_subagents import subagent_args

TEAMMATES = {
    "bass": {"description": "GROOVE plays bass", "prompt": "You are GROOVE, the bassist."},
    "drums": {"description": "BEAT plays drums", "prompt": "You are BEAT, the drummer."},
}


def test_the_leader_gets_the_agent_tool_and_its_teammates_on_the_command_line(
    claude_backend: ClaudeCodeBackend,
) -> None:
    plain = claude_backend.command("lead", {})
    assert plain[plain.index("--tools") + 1] == ""  # a musician: no tools at all
    cmd = claude_backend.command("lead", {"subagents": TEAMMATES})
    assert cmd.count("--tools") == 1 and cmd[cmd.index("--tools") + 1] == "Task"
    assert json.loads(cmd[cmd.index("--agents") + 1]) == TEAMMATES
    assert subagent_args(TEAMMATES)[-1] == cmd[cmd.index("--agents") + 1]


async def test_teammate_events_are_attributed_and_their_results_end_the_turn(
    claude_backend: ClaudeCodeBackend,
) -> None:
    conv = await claude_backend.open("You lead the band.", {"subagents": TEAMMATES})
    events: list[tuple[str, dict]] = []
    try:
        reply = await conv.turn(TurnRequest("[[team:bass,drums]] a groove in A minor"),
                                lambda kind, fields: events.append((kind, fields)))
        teammates = reply.meta["teammates"]
        assert {t["from"] for t in teammates} == {"bass", "drums"}
        assert all(t["ok"] and t["status"] == "completed" for t in teammates)
        bass = next(t for t in teammates if t["from"] == "bass")
        assert bass["result"] == "bass (You are GROOVE, the bassist.): a groove in A minor"
        by_agent = {(kind, fields.get("agent")) for kind, fields in events if kind.startswith("teammate_")}
        for agent in ("bass", "drums"):
            for kind in ("teammate_started", "teammate_text", "teammate_progress", "teammate_finished"):
                assert (kind, agent) in by_agent
        texts = [f["text"] for kind, f in events if kind == "teammate_text" and f["agent"] == "drums"]
        assert texts == ["drums (You are BEAT, the drummer.): a groove in A minor"]
        assert [f["tool"] for kind, f in events if kind == "tool_use"] == ["Agent", "Agent"]
        # the leader's next turn: no teammate started, nothing to wait for
        follow = await conv.turn(TurnRequest("wrap it up"), lambda kind, fields: events.append((kind, fields)))
        assert follow.meta["teammates"] == [] and json.loads(follow.text)["echo"] == "wrap it up"
    finally:
        await conv.close()


async def test_an_unknown_teammate_and_a_failing_one_are_failed_results(claude_backend: ClaudeCodeBackend) -> None:
    team = {**TEAMMATES, "keys": {"description": "keys", "prompt": "[[fail]] You are ARIA."}}
    conv = await claude_backend.open("You lead the band.", {"subagents": team})
    try:
        reply = await conv.turn(TurnRequest("[[team:keys,tuba]] a ballad"), lambda kind, fields: None)
        outcome = {t["from"]: (t["ok"], t["status"]) for t in reply.meta["teammates"]}
        assert outcome == {"keys": (False, "failed"), "tuba": (False, "failed")}
    finally:
        await conv.close()


async def test_without_the_team_mode_the_leader_cannot_start_teammates(claude_backend: ClaudeCodeBackend) -> None:
    conv = await claude_backend.open("You lead the band.", {})
    events: list[str] = []
    try:
        reply = await conv.turn(TurnRequest("[[team:bass]] a groove"), lambda kind, fields: events.append(kind))
        assert "teammates" not in reply.meta and not any(k.startswith("teammate_") for k in events)
    finally:
        await conv.close()
