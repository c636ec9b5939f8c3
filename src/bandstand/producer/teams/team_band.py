"""The jam's built-in musicians as an agent team (`bandstand team run`), offline.

Two responders for the built-in backend, named from a team file by path:

- `musician` plays one teammate: the built-in jam musician named by the
  member's ``options.musician`` (BEAT, GROOVE, ARIA, GLITCH), else by the
  member's own name. Its task is the brief in words ("a late-night groove in
  A minor at 84 bpm" — key, tempo, energy and style words as a jam directive
  reads them), or a JSON object ``{"brief": …, "band": [{"name", "role",
  "pattern"}]}`` that also lets it hear the parts already written. It answers
  like a jam member: ``{pattern, thoughts, reaction, comply_with_boss}``.
- `bandleader` leads: the first teammate lays down the groove, then the rest
  play to it (they get the first one's pattern in their task), and the answer
  is the band's parts stacked into one pattern (``stack(…)``), each checked by
  the pattern engine first, with one line per musician saying what it played.
  A part that failed (or was cut off by a stopped run) gets one more go.

Same brief and seeds, same answer: everything here is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bandstand.agents.base import TurnRequest
from bandstand.errors import BandstandError
from bandstand.jam.context import MusicalContext, apply_directive
from bandstand.jam.directives import parse_directive
from bandstand.jam.musicians import Musician
from bandstand.jam.persona import Persona, builtin_personas
from bandstand.jam.turn import BandMate, JamReply, Style, TurnInput
from bandstand.patterns import evaluate

__all__ = ["bandleader", "musician", "stacked"]


def _persona(request: TurnRequest) -> Persona:
    known = builtin_personas()
    name = str(request.options.get("musician") or request.name).upper()
    if name not in known:
        raise BandstandError(f"no built-in musician named {name!r}; built in: {', '.join(sorted(known))} "
                             "(set options.musician in the team file)")
    return known[name]


def _brief(text: str) -> tuple[str, list[BandMate]]:
    """The brief and the parts already written, from a task in words or as a JSON object."""
    try:
        data = json.loads(text)
    except ValueError:
        return text, []
    if not isinstance(data, Mapping):
        return text, []
    band = [BandMate(name=str(m.get("name", "?")), emoji="🎵", role=str(m.get("role", "")),
                     pattern=str(m.get("pattern", "")), thoughts=str(m.get("thoughts", "")))
            for m in data.get("band") or () if isinstance(m, Mapping)]
    return str(data.get("brief", "")), band


def musician(request: TurnRequest) -> JamReply:
    """One built-in musician's part for the brief in `request.text` (see the module docstring)."""
    persona = _persona(request)
    brief, band = _brief(request.text)
    directive = parse_directive(brief, [persona])
    context, changed = apply_directive(MusicalContext(), directive)
    turn = TurnInput(
        round=request.turn, member=persona.name, role=persona.role, context=context, band=band,
        directive=directive.body or None, intents=sorted(directive.intents),
        context_changed=changed, style=Style().apply(directive.intents, 0),
    )
    return Musician(persona, request.seed).play(turn)


def _reply(result: Mapping[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(str(result.get("result", "")))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def stacked(patterns: list[str]) -> str:
    """The patterns as one: ``stack(a, b, …)`` (one pattern stays itself; none is silence)."""
    if not patterns:
        return "silence"
    return patterns[0] if len(patterns) == 1 else "stack(" + ", ".join(patterns) + ")"


def bandleader(request: TurnRequest) -> dict[str, Any]:
    """Lead: the groove first, then the rest to it, then the stacked parts as the answer."""
    data = request.data if isinstance(request.data, Mapping) else {}
    teammates = list(request.options.get("teammates") or [])
    history = [json.loads(m.content) for m in request.history if m.role == "user" and m.content.startswith("{")]
    prompt = next((str(h["prompt"]) for h in history if isinstance(h, dict) and "prompt" in h),
                  str(data.get("prompt", request.text)))
    if not teammates:
        return {"delegate": [], "done": True, "answer": "(nobody to play with)"}
    results = [r for h in [*history, data] if isinstance(h, dict) for r in h.get("results") or ()]
    if not results:
        return {"delegate": [{"to": teammates[0], "task": prompt}], "done": False, "answer": ""}
    latest = list(data.get("results") or ())
    retry = [r for r in latest if not r.get("ok") and r.get("from") in teammates
             and sum(1 for x in results if x.get("from") == r.get("from") and not x.get("ok")) == 1]
    if retry:  # a part that failed (or was cut off) gets one more go, with the same task
        return {"delegate": [{"to": r["from"], "task": r.get("task") or prompt} for r in retry], "done": False,
                "answer": ""}
    results = [r for r in results if r.get("ok")] or results
    first = _reply(results[0])
    if len(results) == 1 and len(teammates) > 1:
        band = [{"name": teammates[0], "role": "groove", "pattern": first.get("pattern", "")}]
        task = json.dumps({"brief": prompt, "band": band})
        return {"delegate": [{"to": name, "task": task} for name in teammates[1:]], "done": False, "answer": ""}
    lines, parts = [], []
    for result in results:
        reply = _reply(result)
        pattern = str(reply.get("pattern", "")).strip()
        try:
            evaluate(pattern)
        except (BandstandError, ValueError, TypeError) as exc:
            lines.append(f"{result.get('from')}: left out ({'failed' if not result.get('ok') else exc})")
            continue
        parts.append(pattern)
        lines.append(f"{result.get('from')}: {reply.get('thoughts', '')}".rstrip())
    return {"delegate": [], "done": True, "answer": "\n".join([*lines, stacked(parts)])}
