"""`bandstand edit`, `bandstand ask` and `bandstand alternatives` — thin clients of
`App.direct`/`App.ask` and `App.desk().alternatives`: they pass
the words on and print what came back — a variation (blast radius, cost, the
musical diff per part, the phrases; nothing in the song changes until
`bandstand accept`), a mixer change made as one revision (undoable), or an
answer — or its JSON.

    bandstand edit SESSION_DIR "REQUEST" [--json] [--backend NAME]
    bandstand ask SESSION_DIR "QUESTION" [--json] [--backend NAME]
    bandstand alternatives SESSION_DIR PART|progression|arrangement [--count N] [--json]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

edit_app = typer.Typer(add_completion=False, rich_markup_mode=None)
alternatives_app = typer.Typer(add_completion=False, rich_markup_mode=None)
ask_app = typer.Typer(add_completion=False, rich_markup_mode=None)

EDIT_EXAMPLES = """\b
Examples:
  bandstand edit output/session-20260209-a1b2c3 "make the bass busier"
  bandstand edit output/session-20260209-a1b2c3 "change the key to F# minor" --json
  bandstand edit output/session-20260209-a1b2c3 "double-time drums in the bridge"
  bandstand edit output/session-20260209-a1b2c3 "keep the drums"
  bandstand edit output/session-20260209-a1b2c3 "try something different"
  bandstand edit output/session-20260209-a1b2c3 "less reverb on the lead"
"""
ASK_EXAMPLES = """\b
Examples:
  bandstand ask output/session-20260209-a1b2c3 "what key is this in?"
  bandstand ask output/session-20260209-a1b2c3 "which chords are in the chorus?"
  bandstand ask output/session-20260209-a1b2c3 "why does the bridge feel flat?" --json
"""
ALTERNATIVES_EXAMPLES = """\b
Examples:
  bandstand alternatives output/session-20260209-a1b2c3 bass
  bandstand alternatives output/session-20260209-a1b2c3 progression --count 5 --json
"""
COST = {"cheap": "cheap", "moderate": "moderate", "expensive": "EXPENSIVE"}


def _print_outcome(outcome: Any) -> None:
    data = outcome.to_json()
    if outcome.kind == "praise":
        typer.echo("Glad you like it — nothing to change.")
        return
    if outcome.kind == "freeze":
        held = ", ".join(data["frozen_parts"]) or "nothing"
        typer.echo(f"Revision {data['revision']}: frozen parts are now {held} (undo with 'bandstand undo').")
        return
    typer.echo(f"Variation {data['variation_id']} against revision {data['base_revision']}: {outcome.variation.intent}")
    changed = ", ".join(data["changed"]) or "nothing"
    typer.echo(f"  changes:   {changed}")
    typer.echo(f"  redoes:    {', '.join(data['affected_parts']) or 'no part'}")
    typer.echo(f"  keeps:     {', '.join(data['preserved_parts']) or 'nothing'}")
    if data["frozen_parts"]:
        typer.echo(f"  frozen:    {', '.join(data['frozen_parts'])}")
    cost = COST[data["cost"]]
    warning = " — this redoes a lot; listen before you accept" if data["cost"] == "expensive" else ""
    typer.echo(f"  cost:      {cost}{warning}")
    for note in data["notes"]:
        typer.echo(f"  note:      {note}")
    typer.echo("Diff:")
    for part, text in data["diff"].items():
        if text != "unchanged":
            typer.echo(f"  {part}: {text}")
    phrases = data["phrases"]
    if not phrases:
        typer.echo("Phrases: none — the notes stay as they are; only the mix changes.")
    else:
        typer.echo(f"Phrases ({len(phrases)}):")
    for p in phrases:
        typer.echo(f"  {p['id'][:8]}  {p['part']:<12} bars {p['bars'][0]:>3}–{p['bars'][1]:<3} "
                   f"+{p['added']} −{p['removed']} ~{p['modified']}")
    typer.echo("Accept with 'bandstand accept SESSION_DIR', or discard with 'bandstand discard SESSION_DIR'.")


BACKEND_HELP = "Also read the request with a language model (claude-code, anthropic, openai); the rule tables correct it."


def _backend(name: str | None) -> Any:
    from bandstand.producer import App

    return App().desk().backend(name)


def _print_directed(directed: Any) -> None:
    if directed.kind == "variation":
        _print_outcome(directed.edit)
    elif directed.kind == "answer":
        typer.echo(directed.answer)
        for line in directed.reasoning:
            typer.echo(f"  · {line}")
    else:
        if not directed.steps:
            typer.echo(directed.summary or "Nothing to change.")
            return
        typer.echo(f"Revision {directed.revision}: {directed.summary}")
        for step in directed.steps:
            typer.echo(f"  ✓ {step}")
        typer.echo("A mixer change is made at once; 'bandstand undo SESSION_DIR' takes it back.")


@edit_app.command(help="Change the song in words: a variation to review (the parts it redoes, its cost, the diff, "
                       "the phrases), or — for the mixer's words (levels, pans, reverb, mute) — one revision, "
                       "undoable.", epilog=EDIT_EXAMPLES)
def edit(
    session: Annotated[Path, typer.Argument(help="The session folder.", show_default=False, metavar="SESSION_DIR")],
    request: Annotated[str, typer.Argument(help='What to change, e.g. "make the bass busier".', show_default=False,
                                           metavar="REQUEST")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    backend: Annotated[str | None, typer.Option("--backend", metavar="NAME", help=BACKEND_HELP)] = None,
) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import WordsRequest

    directed = App(folders=True, backend=_backend(backend)).direct(WordsRequest(str(session), request))
    if as_json:
        data = directed.edit.to_json() if directed.edit is not None else directed.to_json()
        typer.echo(json.dumps(data, ensure_ascii=False))
    else:
        _print_directed(directed)


@ask_app.command(help="Ask about the song — its key, chords, form, tempo, mix, why a section feels flat — and "
                      "get an answer from its own notes.", epilog=ASK_EXAMPLES)
def ask(
    session: Annotated[Path, typer.Argument(help="The session folder.", show_default=False, metavar="SESSION_DIR")],
    question: Annotated[str, typer.Argument(help='A question, e.g. "what key is this in?".', show_default=False,
                                            metavar="QUESTION")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    backend: Annotated[str | None, typer.Option("--backend", metavar="NAME",
                                                help="Answer with a language model (claude-code, anthropic, "
                                                     "openai), grounded in the song's figures.")] = None,
) -> None:
    from bandstand.producer import App
    from bandstand.producer.app import WordsRequest

    directed = App(folders=True, backend=_backend(backend)).ask(WordsRequest(str(session), question))
    if as_json:
        typer.echo(json.dumps(directed.to_json(), ensure_ascii=False))
    else:
        _print_directed(directed)


@alternatives_app.command(help="Propose N alternatives of a part, the progression or the arrangement.",
                          epilog=ALTERNATIVES_EXAMPLES)
def alternatives(
    session: Annotated[Path, typer.Argument(help="The session folder.", show_default=False, metavar="SESSION_DIR")],
    target: Annotated[str, typer.Argument(help="A part (bass, drums, …), progression or arrangement.",
                                          show_default=False, metavar="PART|progression|arrangement")],
    count: Annotated[int, typer.Option("--count", "-n", help="How many (1–5).")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    from bandstand.producer import App

    made = App().desk().alternatives(session, target, count=count)
    if as_json:
        typer.echo(json.dumps(made.to_json(), ensure_ascii=False))
        return
    typer.echo(f"{len(made.alternatives)} alternatives of the {made.target} against revision {made.base_revision}:")
    for a in made.alternatives:
        v = a.variation
        axes = "  ".join(f"{k} {x:.2f}" for k, x in a.score.items())
        typer.echo(f"{a.label}  {v.id}  {a.kind}")
        typer.echo(f"   score: {axes}")
        for part, text in v.diff.items():
            if text != "unchanged":
                typer.echo(f"   {part}: {text}")
    typer.echo("Accept one with 'bandstand accept SESSION_DIR VARIATION_ID'; 'bandstand edit SESSION_DIR "
               "\"try something different\"' offers them in turn.")
