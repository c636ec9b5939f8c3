"""Intent routing (spec studio §5): which mode a request runs in, decided by the
server in this order — a structured prompt → its Mode; a question → REASONING;
the rule table (transport, tempo, key, track add/rename/mute/solo, volume, pan,
effects, quantize, swing) → EDITING (a generation phrase with no project, or
asking for a new song, is COMPOSING a new project: its tempo and key words
describe that song); producer idioms ("make the bass busier",
"add a string pad", "more energy in the chorus") and generation phrases ("a
funk groove at 96 bpm") → COMPOSING; otherwise the language model's reading
when one is configured (`needs_model`), else a clear "not understood" with the
closest examples.

The words are read by the one request parser (`craft.requests`, studio
words included); the conversation's focus resolves "it" ("add a pad", then
"make it darker" aims at the pad). A key change that keeps the mode is an edit
(set the key, transpose the notes); a new mode is composed again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bandstand.craft.edits import (
    ROLES,
    Edit,
    FreezeEdit,
    KeyEdit,
    MixEdit,
    PraiseEdit,
    Request,
    StyleEdit,
    TempoEdit,
    TransposeEdit,
)
from bandstand.craft.mixer_edits import TransportEdit
from bandstand.craft.requests import EXAMPLES, Vocabulary, not_understood, parse_request, scoped_to
from bandstand.craft.style import StyleOverride
from bandstand.errors import InvalidInput
from bandstand.producer.requests.ask import TOPICS, is_question
from bandstand.producer.requests.emotion import Emotion, derive_emotion
from bandstand.producer.requests.plans import PRONOUNS
from bandstand.producer.requests.structured import StructuredPrompt, is_structured, parse_structured
from bandstand.studio import Project

__all__ = ["GENERATION", "MOOD_REQUEST", "Mode", "Routed", "editing_edits", "focus_roles", "route", "suggestions"]

Mode = Literal["REASONING", "EDITING", "COMPOSING"]
STRUCTURED_MODES: dict[str, Mode] = {"compose": "COMPOSING", "edit": "EDITING", "ask": "REASONING"}
GENERATION = re.compile(
    r"\b(?:make|write|compose|create|produce|generate|build|give me|start|sketch|lay down|cook up|i want|i'?d like)\b"
    r".*\b(?:songs?|tracks?|tunes?|beats?|grooves?|loops?|pieces?|jams?|instrumentals?|bangers?|anthems?|ballads?"
    r"|basslines?|bass lines?|melod(?:y|ies)|riffs?|vamps?|sketch)\b"
    r"|^\s*(?:a|an)\s+[\w\s,&'-]*\b(?:song|groove|beat|track|tune|loop|jam|piece|ballad)\b", re.I)
"""Words that ask for new music."""
MOOD_REQUEST = re.compile(r"\b(?:make|let|keep|have|get)\s+(?:it|this|that|the\s+[\w ]+?)\s+(?:feel\s+|sound\s+|be\s+)?"
                          r"(?:a\s+(?:bit|little|lot)\s+)?(?:more\s+|less\s+)?(?P<mood>[\w-]+)", re.I)
_NEW = re.compile(r"\b(?:new|another|fresh|from scratch)\s+(?:[\w-]+\s+){0,2}?(?:song|track|project|tune|piece|groove"
                  r"|beat)\b", re.I)
"""Words that ask for another song ("a new song", "another techno track"), not for more on this one."""
_EVERYTHING = re.compile(r"\b(?:everything|the whole (?:song|track|thing)|all (?:of it|parts|tracks))\b", re.I)


@dataclass(frozen=True, slots=True)
class Routed:
    """What a request is: its mode, an intent name ("edit.mixer", "compose.new", "ask.key"), how
    sure the router is, and what it read (a structured prompt, the parsed request)."""

    mode: Mode
    intent: str
    confidence: float
    text: str
    reason: str
    structured: StructuredPrompt | None = None
    request: Request | None = None
    emotion: Emotion = field(default_factory=Emotion)
    new_project: bool = False
    needs_model: bool = False
    warnings: tuple[str, ...] = ()
    specialist: str = "composer"
    """Who handles it (`producer.requests.specialists`): harmony, rhythm, sound, mix or the composer."""


def editing_edits(edits: Sequence[Edit], project: Project | None) -> tuple[list[Edit], list[Edit]]:
    """(edits the mix desk makes — tempo, a key in the same mode, transposition, a level —,
    the rest, which are composed again)."""
    mode = ((project.key or "").partition(" ")[2] or "major") if project is not None else None
    direct: list[Edit] = []
    other: list[Edit] = []
    for e in edits:
        same_key = isinstance(e, KeyEdit) and (e.mode is None or e.mode == mode)
        if isinstance(e, TempoEdit | TransposeEdit | MixEdit) or same_key:
            direct.append(e)
        elif not isinstance(e, PraiseEdit):
            other.append(e)
    return direct, other


def focus_roles(focus: Sequence[str], project: Project | None) -> list[str]:
    """The parts a conversation's focus (track names, or roles) plays."""
    names = {f.casefold() for f in focus}
    roles = [t.role for t in (project.tracks if project else ()) if t.name.casefold() in names and t.role in ROLES]
    roles += [f for f in focus if f in ROLES]
    return list(dict.fromkeys(roles))


def _focused(request: Request, text: str, focus: Sequence[str], project: Project | None) -> Request:
    """"it" means what the conversation was about: musical edits for every part are aimed there."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    if not focus or not words & {p for p in PRONOUNS if " " not in p} or _EVERYTHING.search(text):
        return request
    return scoped_to(request, focus_roles(focus, project))


def _mood_edit(text: str, emotion: Emotion, focus: Sequence[str]) -> Request | None:
    """"make it more romantic": a mood the parser has no knob words for, as knob turns."""
    m = MOOD_REQUEST.search(text)
    knobs = emotion.knobs()
    if m is None or not emotion.moods or not knobs:
        return None
    less = bool(re.search(r"\bless\s+" + re.escape(m.group("mood")), text, re.I))
    turned = {k: round(-v if less else v, 3) for k, v in knobs.items()}
    roles = list(focus) if focus and re.search(r"\b(?:it|this|that)\b", m.group(0), re.I) else ["*"]
    edits = tuple(StyleEdit(override=StyleOverride(role=r, knobs=turned)) for r in roles)
    return Request(text=text, edits=edits)


def route(text: str, *, project: Project | None, focus: Sequence[str] = (), model: bool = False) -> Routed:
    """Route `text` (see the module docstring). Raises `InvalidInput` for a structured prompt
    that does not read, and "not understood" when nothing routes it and no `model` is there."""
    if is_structured(text):
        prompt = parse_structured(text)
        if prompt.mode == "edit" and project is not None:
            return _structured_edit(prompt, project, focus, model)
        if prompt.mode == "compose" and prompt.form not in (None, "", [], {}):  # a Form that does not read: refused now
            from bandstand.producer.requests.structured_form import read_form

            read_form(prompt.form)
        if prompt.position and project is not None:  # a place the song lacks is refused before anything runs
            from bandstand.producer.requests.position import place

            place(project, prompt.position, prompt.bars)
        mode = STRUCTURED_MODES[prompt.mode]
        emotion = derive_emotion(" ".join(x for x in (prompt.style, prompt.vibe, prompt.request) if x),
                                 energy=prompt.energy, tempo=prompt.tempo)
        request = None
        if prompt.request and mode != "REASONING":
            request = _focused(parse_request(prompt.request, _vocabulary(), studio=True), prompt.request, focus,
                               project)
        return Routed(mode, f"structured.{prompt.mode}", 1.0, prompt.request or prompt.text(), "structured prompt",
                      structured=prompt, request=request, emotion=emotion, new_project=project is None,
                      warnings=prompt.warnings)
    return _route_words(" ".join(text.split()), project, focus, model)


def _structured_edit(prompt: StructuredPrompt, project: Project, focus: Sequence[str], model: bool) -> Routed:
    """`Mode: edit`: its words (Request, Vibe, the dimension blocks, scoped by Target) through the same
    router as plain text; its own tool blocks (Tempo, Key, Effects, …) as EDITING steps beside them.
    A prompt that asks for nothing is refused here, saying why — never a success that changed nothing."""
    from bandstand.producer.requests.structured_words import edit_words

    said = edit_words(prompt, project)
    warnings = said.warnings
    if prompt.form not in (None, "", [], {}) and not said.text and not prompt.has_blocks:
        from bandstand.producer.requests.structured_form import read_form

        read_form(prompt.form)  # a Form that does not read is refused before anything runs
        return Routed("COMPOSING", "compose.form", 1.0, prompt.text() or "reshape the form", "structured prompt",
                      structured=prompt, emotion=derive_emotion(prompt.text()),
                      warnings=tuple(w for w in warnings if not w.startswith("Form:")))
    if not said.text:
        if prompt.has_blocks:
            return Routed("EDITING", "structured.edit", 1.0, prompt.text() or "structured edit", "structured prompt",
                          structured=prompt, emotion=derive_emotion(prompt.text()), warnings=warnings)
        ignored = f" ({'; '.join(warnings)})" if warnings else ""
        raise InvalidInput(f"the structured prompt asks for no change: give Request (e.g. 'make the bass busier'), "
                           f"Vibe, a dimension block (Harmony, Rhythm, …) or Effects/Automation{ignored}",
                           field="Request")
    words = " ".join(said.text.split())
    try:
        routed = _route_words(words, project, focus, model)
    except InvalidInput as exc:
        raise InvalidInput(f"{exc}{' — ' + '; '.join(warnings) if warnings else ''}", field="Request") from None
    request = scoped_to(routed.request, said.roles) if routed.request is not None and said.roles else routed.request
    if routed.mode == "REASONING" and routed.intent != "praise" and not routed.needs_model:
        raise InvalidInput(f"Mode: edit asks for a change, but '{words[:60]}' is a question: use Mode: ask",
                           field="Mode")
    mode: Mode = "EDITING" if prompt.has_blocks and routed.mode == "REASONING" else routed.mode
    if mode == "COMPOSING" and prompt.has_blocks:
        warnings += ("Tempo, Effects, MidiExpressiveness and Automation were not applied with a musical change: "
                     "send them in a Mode: edit prompt of their own",)
    intent = "structured.edit" if mode == "EDITING" else routed.intent
    return Routed(mode, intent, 1.0, words, f"structured prompt ({routed.reason})", structured=prompt,
                  request=request, emotion=routed.emotion, needs_model=routed.needs_model, warnings=warnings,
                  specialist=routed.specialist)


def _route_words(words: str, project: Project | None, focus: Sequence[str], model: bool) -> Routed:
    """A request in words (see the module docstring, after the structured prompt), with the
    specialist who handles it."""
    from dataclasses import replace

    from bandstand.producer.requests.specialists import specialist_for, tone_changes

    routed = _route_plain(words, project, focus, model)
    tone = bool(tone_changes(words, project)) if routed.mode != "REASONING" else False
    if tone and routed.mode == "COMPOSING" and routed.request is not None:
        # "a brighter lead tone": the sound specialist's insert effect, not a rewrite of the notes
        direct, _ = editing_edits(routed.request.edits, project)
        request = routed.request.model_copy(update={"edits": tuple(direct)})
        routed = Routed("EDITING", "edit.sound", 0.9, words, "the sound specialist's tone words", request=request,
                        emotion=routed.emotion)
    return replace(routed, specialist=specialist_for(routed.request, tone))


def _route_plain(words: str, project: Project | None, focus: Sequence[str], model: bool) -> Routed:
    """The router's rules, in order (see the module docstring)."""
    from bandstand.producer.requests.specialists import tone_changes

    emotion = derive_emotion(words)
    if is_question(words):
        topic = next((name for name, regex, _ in TOPICS if regex.search(words)), "overview")
        return Routed("REASONING", f"ask.{topic}", 0.9, words, "a question", emotion=emotion)
    request = _focused(parse_request(words, _vocabulary(), studio=True), words, focus, project)
    generation = bool(GENERATION.search(words))
    if generation and (project is None or _NEW.search(words)):  # its words describe the new song
        return Routed("COMPOSING", "compose.new", 0.85, words, "a generation phrase", request=request,
                      emotion=emotion, new_project=True)
    direct, musical = editing_edits(request.edits, project)
    transport = [m for m in request.mixer if isinstance(m, TransportEdit)]
    if request.praise_only:
        return Routed("REASONING", "praise", 0.95, words, "praise", request=request, emotion=emotion)
    if (request.mixer or direct) and not musical:
        intent = "transport." + transport[0].action if transport and len(transport) == len(request.mixer) \
            and not direct else "edit.mixer" if request.mixer else f"edit.{direct[0].kind}"
        return Routed("EDITING", intent, 0.95, words, "the mixer's rules", request=request, emotion=emotion)
    if musical and all(isinstance(e, FreezeEdit) for e in musical) and not request.mixer and not direct:
        return Routed("EDITING", "edit.freeze", 0.9, words, "a freeze", request=request, emotion=emotion)
    if musical:
        return Routed("COMPOSING", "compose.edit", 0.9, words, "a producer idiom", request=request, emotion=emotion)
    if generation:
        return Routed("COMPOSING", "compose.parts", 0.85, words, "a generation phrase", request=request,
                      emotion=emotion)
    mood = _mood_edit(words, emotion, focus_roles(focus, project))
    if mood is not None:
        return Routed("COMPOSING", "compose.mood", 0.7, words, "a mood word", request=mood, emotion=emotion)
    if tone_changes(words, project):
        return Routed("EDITING", "edit.sound", 0.9, words, "the sound specialist's tone words", request=request,
                      emotion=emotion)
    if model:
        return Routed("REASONING", "unknown", 0.0, words, "for the language model", emotion=emotion,
                      needs_model=True)
    raise not_understood(words)


def _vocabulary() -> Vocabulary:
    from bandstand.producer.requests.iteration import vocabulary

    return vocabulary()


def suggestions(text: str) -> list[str]:
    """The examples closest to `text` (what a client offers after "not understood")."""
    import difflib

    return difflib.get_close_matches(text.lower(), EXAMPLES, n=3, cutoff=0.0)
