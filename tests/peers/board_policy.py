"""A scripted model that works the board through its tools, as a launched session would (standard
library only: the fake `claude` imports it too).

`decide(system, transcript)` reads the conversation so far — ``{"kind": "user", "text"}``,
``{"kind": "call", "name", "arguments"}``, ``{"kind": "result", "name", "content", "is_error"}`` — and
answers ``{"text": …, "calls": [{"name", "arguments"}…]}``; no calls ends the model's turn.

- With the musician skill as its system prompt it claims a task, logs step 1, submits an answer
  (naming the skill's first line, so a test sees the skill reached it), asks for review and waits;
  after an approval it resumes, runs the gates on the tests its instruction names, reports
  completion and waits (a completion refused for a failing gate becomes an error report); after the final approval it resumes
  and completes; a rejection or a fix is answered with a new submission; an exit request with a
  handoff. An instruction holding ``[[rogue]]`` makes it first report completion of a task it never
  claimed (the board must refuse that) and then go on as usual; ``[[empty]]`` makes it submit an
  empty answer every time; ``[[fail]]`` makes its first session report an error once, right after
  the claim; ``[[stall]]`` makes its first session (not a successor, ``-S2``) stop
  answering once it has claimed the task.
- With the conductor skill it lists the tasks at launch, and approves a review whose verification
  found nothing wrong, else rejects it with what was found; told to ask for an exit instead (the
  board refuses a fourth rejection), it does; an error report gets a proposed fix (and an exit
  request once the board refuses more fixes).

`from_openai(body)` and `from_anthropic(body)` read the transcript from a request's messages.
"""

from __future__ import annotations

import json
import re
from typing import Any

MUSICIAN = "# Skill: Musician"
CONDUCTOR = "# Skill: Conductor"


def _data(entry: dict[str, Any]) -> dict[str, Any]:
    try:
        found = json.loads(entry["content"])
    except (ValueError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def decide(system: str, transcript: list[dict[str, Any]]) -> dict[str, Any]:
    if system.startswith(CONDUCTOR):
        return _conductor(transcript)
    if system.startswith(MUSICIAN):
        return _musician(system.splitlines()[0], transcript)
    return {"text": "I have no board role.", "calls": []}


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _musician(skill_line: str, transcript: list[dict[str, Any]]) -> dict[str, Any]:
    results = [e for e in transcript if e["kind"] == "result"]
    claims = [e for e in results if e["name"] == "claim_task"]
    claimed = next((_data(e) for e in reversed(claims) if not e["is_error"]), None)
    if claimed is None:
        if claims:
            return {"text": "Nothing left to claim: ending my session.", "calls": []}
        return {"text": "", "calls": [_call("claim_task")]}
    task = claimed["task_id"]
    instruction = claimed.get("instruction", "")
    answer = "" if "[[empty]]" in instruction else \
        f"Did the work for {task}: {instruction.strip()} — written out and read back. ({skill_line})"
    submit = [_call("log_status", task_id=task, line="step 1 started: the work", context_usage=12),
              _call("submit_work", task_id=task, answer=answer),
              _call("request_review", task_id=task, summary=f"{task}: {instruction.strip()[:80]}", checkpoint=1,
                    checkpoints_total=2, context_usage=14, tests="answer read back"),
              _call("wait_for_review", task_id=task, timeout_seconds=60)]
    if "[[stall]]" in instruction and not re.search(r"-S\d+$", str(claimed.get("worked_by"))):
        return {"text": "I will stop here for now.", "calls": []}
    other = "task-02" if task == "task-01" else "task-01"
    if "[[rogue]]" in instruction and not any(e["kind"] == "call" and e["name"] == "report_completion"
                                              for e in transcript):
        return {"text": "", "calls": [_call("report_completion", task_id=other, summary="done (not mine)",
                                            checkpoint=2, checkpoints_total=2, context_usage=10)]}
    last = results[-1]
    rogue_refused = last["is_error"] and last["name"] == "report_completion" and "[[rogue]]" in instruction \
        and sum(e["kind"] == "call" and e["name"] == "report_completion" for e in transcript) == 1
    if last["name"] == "claim_task" and "[[fail]]" in instruction \
            and not any(e["kind"] == "call" and e["name"] == "report_error" for e in transcript):
        return {"text": "", "calls": [_call("report_error", task_id=task, error="the first take went wrong",
                                            context_usage=12),
                                      _call("wait_for_review", task_id=task, timeout_seconds=60)]}
    if last["name"] == "claim_task" or rogue_refused:
        if claimed.get("last_conductor_message") == "exit_request":
            return {"text": "", "calls": [_call("handoff", task_id=task, reason="the conductor asked for an exit",
                                                context_usage=10, remaining_steps=["the work"])]}
        return {"text": "", "calls": submit}
    refused = next((e for e in reversed(results[-6:]) if e["name"] == "report_completion"), None)
    if refused is not None and refused["is_error"] and "gate" in refused["content"] \
            and (last is refused or (last["name"] == "wait_for_review" and _data(last).get("state") == "working")):
        gate = next((e for e in reversed(results) if e["name"] == "run_check" and _data(e).get("code")), refused)
        return {"text": "", "calls": [
            _call("report_error", task_id=task, context_usage=18,
                  error=(_data(gate).get("report") or gate["content"]).splitlines()[0][:400]),
            _call("wait_for_review", task_id=task, timeout_seconds=60)]}
    if last["is_error"]:
        return {"text": f"Stuck: {last['content']}", "calls": []}
    if last["name"] == "wait_for_review":
        state = _data(last).get("state")
        if state in ("needs_review", "error"):
            return {"text": "", "calls": [_call("wait_for_review", task_id=task, timeout_seconds=60)]}
        if state == "review_approved":
            final = any(e["name"] == "report_completion" and not e["is_error"] for e in results)
            if final:
                return {"text": "", "calls": [_call("resume", task_id=task),
                                              _call("complete", task_id=task, summary=f"{task} done")]}
            return {"text": "", "calls": [
                _call("resume", task_id=task),
                _call("log_status", task_id=task, line="step 2 started: verification", context_usage=16),
                *_gates(task, instruction),
                _call("report_completion", task_id=task, summary=f"{task} verified", checkpoint=2,
                      checkpoints_total=2, context_usage=18, tests="answer read back"),
                _call("wait_for_review", task_id=task, timeout_seconds=60)]}
        if state in ("review_failed", "fix_proposed"):
            return {"text": "", "calls": submit[1:]}
        if state == "exit_requested":
            return {"text": "", "calls": [_call("handoff", task_id=task, reason="the conductor asked for an exit",
                                                context_usage=20, remaining_steps=["the work"])]}
    if last["name"] in ("complete", "handoff"):
        return {"text": f"{task}: {_data(last).get('state')}.", "calls": []}
    return {"text": f"{task}: waiting.", "calls": []}


def _gates(task: str, instruction: str) -> list[dict[str, Any]]:
    """The checkpoint gates on the tests an instruction names (``| tests: … | source: …``)."""
    fields = dict(part.split(":", 1) for part in instruction.split(" | ")[1:] if ":" in part)
    tests, sources = fields.get("tests", "").split(), fields.get("source", "").split()
    if not tests:
        return []
    return [_call("run_check", task_id=task, check="coverage", tests=tests, sources=sources),
            _call("run_check", task_id=task, check="flaky", tests=tests)]


def _conductor(transcript: list[dict[str, Any]]) -> dict[str, Any]:
    at = max(i for i, e in enumerate(transcript) if e["kind"] == "user")
    asked = transcript[at]["text"]
    since = transcript[at + 1:]
    results = [e for e in since if e["kind"] == "result"]
    if results and results[-1]["is_error"] and "request_exit" in results[-1]["content"]:
        task_id = re.search(r"(task-\d+)", results[-1]["content"])
        return {"text": "", "calls": [_call("request_exit", task_id=task_id.group(1) if task_id else "",
                                            reason="rejected three times: hand off")]}
    if results:
        return {"text": "Done.", "calls": []}
    failed = re.match(r"(task-\d+) \(.*?\) reported an error", asked)
    if failed is not None:
        return {"text": "", "calls": [_call("propose_fix", task_id=failed.group(1), reason="try it again")]}
    review = re.search(r"Review (task-\d+)", asked)
    if review is None:
        return {"text": "", "calls": [_call("list_tasks")]}
    found = re.search(r"Your verification found: (.*)", asked)
    problems = found.group(1).strip() if found else "nothing wrong"
    if problems == "nothing wrong":
        return {"text": "", "calls": [_call("approve", task_id=review.group(1), note="heard it: approved")]}
    return {"text": "", "calls": [_call("reject", task_id=review.group(1), reason=problems)]}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type", "text") == "text")
    return str(content or "")


def from_openai(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, transcript) of a Chat Completions request."""
    names: dict[str, str] = {}
    system, out = "", []
    for message in body.get("messages") or []:
        role = message.get("role")
        if role == "system":
            system = _text(message.get("content"))
        elif role == "user" and _text(message.get("content")):
            out.append({"kind": "user", "text": _text(message.get("content"))})
        elif role == "assistant":
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
                out.append({"kind": "call", "name": call["function"]["name"],
                            "arguments": json.loads(call["function"]["arguments"] or "{}")})
        elif role == "tool":
            content = _text(message.get("content"))
            out.append({"kind": "result", "name": names.get(message.get("tool_call_id"), ""), "content": content,
                        "is_error": content.startswith("error")})
    return system, out


def from_anthropic(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, transcript) of a Messages API request."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and block.get("text") and message.get("role") == "user":
                out.append({"kind": "user", "text": block["text"]})
            elif kind == "tool_use":
                names[block["id"]] = block["name"]
                out.append({"kind": "call", "name": block["name"], "arguments": block.get("input") or {}})
            elif kind == "tool_result":
                out.append({"kind": "result", "name": names.get(block["tool_use_id"], ""),
                            "content": _text(block.get("content")), "is_error": bool(block.get("is_error"))})
    return _text(body.get("system")), out
