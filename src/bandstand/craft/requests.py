"""The one request parser: words → typed `Edit`s, by rule tables.

The studio (`bandstand edit SESSION "make the bass busier"`) and the jam's
boss directives ("@GROOVE simpler", "switch to D major, more energy") read
their words here, so the jam and the studio mean the same thing by the same
words. No model is asked what a request means; an optional language-model
reading (in `producer`) produces the same `Edit`s and is corrected by these
tables.

How a request is read: chord lists are taken from the whole text first (they
contain commas); the rest is split into clauses ("make the bass busier and
the drums simpler"); in each clause bar ranges ("bars 9–16"), sections ("in
the chorus") and parts ("the bass") give the scope, and the rule families
(freeze, alternatives, regenerate, remove/add/swap a part, key, mode,
tempo, metre, genre, time feel, style knobs, energy, presence, solo, mix)
read what is asked. A clause that only names parts or sections lends them to
its neighbour ("the bass and drums busier", "busier in the verse and
chorus"). Praise alone is an edit too: nothing to change.

Instrument and genre words come from the caller's `Vocabulary` (the studio
passes compose's lexicons; the jam needs none), so this module depends on
nothing above `craft`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from bandstand.craft._request_mixer import read_mixer, read_transport
from bandstand.craft._request_rules import (
    _add,
    _alternative,
    _chords,
    _Clause,
    _energy,
    _freeze_words,
    _genre,
    _key,
    _knobs,
    _make,
    _metre,
    _mix,
    _presence,
    _regenerate,
    _remove,
    _roles,
    _scope,
    _swap,
    _tempo,
)
from bandstand.craft._request_words import (
    _CLAUSES,
    BPM,
    BPM_RANGE,
    DRUM_PIECE_WORDS,
    EXAMPLES,
    MAX_CHARS,
    PRAISE,
    ROLE_WORDS,
    SECTION_WORDS,
    Vocabulary,
    _Words,
    _words,
)
from bandstand.craft.edits import (
    AddPartEdit,
    Edit,
    EnergyEdit,
    FreezeEdit,
    MixEdit,
    PraiseEdit,
    PresenceEdit,
    RegenerateEdit,
    RemovePartEdit,
    Request,
    SoloEdit,
    StyleEdit,
)
from bandstand.craft.style import StyleOverride
from bandstand.errors import InvalidInput

__all__ = ["BPM", "BPM_RANGE", "EXAMPLES", "MAX_CHARS", "NO_WORDS", "ROLE_WORDS", "SECTION_WORDS", "Vocabulary", "not_understood",
           "parse_request", "scoped_to"]

# ----------------------------------------------------------------------------- one clause


def _drum_pieces(text: str) -> tuple[str, ...]:
    """The pieces of a drum kit the words name ("the hi-hats and the kick" → hats, kick)."""
    return tuple(dict.fromkeys(piece for pattern, piece in DRUM_PIECE_WORDS
                               if re.search(r"\b(?:" + pattern + r")\b", text, re.I)))


def _read(c: _Clause, words: _Words, studio: bool = False) -> None:
    """Read one clause: (for the studio: the player's and the mixer's words,) scope, then
    each rule family in turn."""
    if studio:
        read_transport(c)
        if c.mixer:
            return
    _scope(c)
    pieces = _drum_pieces(c.orig)
    # "mute the hi-hats", "mute the drums in the intro": those notes or those bars, as a variation
    # to hear — the mixer's mute (below) is the whole track for the whole song
    muting = c.find(r"mute|silence") if pieces or c.sections or c.bars else None
    if muting:
        c.take(muting)
    if studio:
        read_mixer(c, words)
    _freeze_words(c, words)
    for plain in (_key, _tempo, _metre):
        plain(c)
    for rule in (_alternative, _swap, _regenerate, _add, _remove, _genre):
        rule(c, words)
    roles = _roles(c, words)
    c.roles = roles
    scoped = {"sections": tuple(c.sections), "bars": c.bars}
    if muting:
        c.edits += [_make(PresenceEdit, role=r, present=False, pieces=pieces if r == "drums" else (), **scoped)
                    for r in roles or (["drums"] if pieces else ["*"])]
    if roles and (volume := _mix(c)) is not None:
        c.edits += [_make(MixEdit, role=r, volume=volume) for r in roles]
    knobs, feel = _knobs(c)
    solo = c.find(r"(?:take a |go for a |play a )?solo")
    if solo:
        c.take(solo)
        c.edits += [_make(SoloEdit, role=r, **scoped) for r in roles or ["*"]]
    if knobs or feel is not None:
        c.edits += [StyleEdit(override=_make(StyleOverride, role=r, knobs=knobs, time_feel=feel,
                                             sections=tuple(c.sections), bars=c.bars))
                    for r in roles or ["*"]]
    present = _presence(c)
    if present is not None:
        c.edits += [_make(PresenceEdit, role=r, present=present, **scoped) for r in roles or ["*"]]
    before = len(c.edits)
    _energy(c)
    for i in range(before, len(c.edits)):
        energy = c.edits[i]
        assert isinstance(energy, EnergyEdit)
        c.edits[i] = energy.model_copy(update=scoped)
    # "keep the drums simple" is about how they play; "keep the drums" alone is a freeze
    if c.freeze and not c.edits:
        c.edits.append(_make(FreezeEdit, roles=tuple(dict.fromkeys(c.freeze + roles)), frozen=c.freeze_to))
        c.roles = []
    for i, edit in enumerate(c.edits):  # scope words reach the edits that take a scope
        if isinstance(edit, RemovePartEdit) and edit.role == "drums" and pieces:  # "drop the kick": the kick only
            c.edits[i] = _make(PresenceEdit, role="drums", present=False, pieces=pieces, **scoped)
        elif isinstance(edit, PresenceEdit) and edit.role == "drums" and not edit.present and pieces:
            c.edits[i] = edit.model_copy(update={"pieces": pieces})
        elif isinstance(edit, RemovePartEdit) and (c.sections or c.bars):  # gone from some sections only
            c.edits[i] = _make(PresenceEdit, role=edit.role, present=False, **scoped)
        elif isinstance(edit, (AddPartEdit, RegenerateEdit)) and (c.sections or c.bars):
            c.edits[i] = edit.model_copy(update=scoped)


def _with_role(edit: Edit, role: str) -> Edit | None:
    """The same edit for another part (None when the edit is not about a part)."""
    if isinstance(edit, StyleEdit):
        return StyleEdit(override=edit.override.model_copy(update={"role": role}))
    if isinstance(edit, AddPartEdit):  # "add bass and drums": the drums on their own sound
        return edit.model_copy(update={"role": role, "program": None, "name": role})
    if isinstance(edit, (RemovePartEdit, PresenceEdit, SoloEdit, MixEdit)):
        return edit.model_copy(update={"role": role})
    if isinstance(edit, RegenerateEdit):
        return edit.model_copy(update={"target": role})
    if isinstance(edit, FreezeEdit):
        return edit.model_copy(update={"roles": (*edit.roles, role)})
    return None


def _with_sections(edit: Edit, sections: Sequence[str]) -> Edit:
    if isinstance(edit, StyleEdit):
        merged = tuple(dict.fromkeys((*edit.override.sections, *sections)))
        return StyleEdit(override=edit.override.model_copy(update={"sections": merged}))
    if isinstance(edit, (EnergyEdit, AddPartEdit, PresenceEdit, SoloEdit, RegenerateEdit)):
        return edit.model_copy(update={"sections": tuple(dict.fromkeys((*edit.sections, *sections)))})
    return edit


def _join(clauses: list[_Clause]) -> list[Edit]:
    """Lend parts and sections named in a clause without edits to its neighbours."""
    out: list[Edit] = []
    pending_roles: list[str] = []
    pending_sections: list[str] = []
    last: list[Edit] = []
    for c in clauses:
        if c.edits:
            edits = list(c.edits)
            if pending_roles and not c.roles:
                edits = [x for e in edits for x in ([_with_role(e, r) for r in pending_roles] or [e]) if x] or edits
            elif pending_roles:
                edits += [x for e in c.edits for r in pending_roles if (x := _with_role(e, r)) is not None]
            if pending_sections:
                edits = [_with_sections(e, pending_sections) for e in edits]
            pending_roles, pending_sections = [], []
            out += edits
            last = edits
        elif c.roles or c.sections:
            if last:  # "add bass and drums", "busier in the verse and chorus"
                more = [x for e in last for r in c.roles if (x := _with_role(e, r)) is not None]
                if c.sections:
                    extended = [_with_sections(e, c.sections) for e in last]
                    out = out[:len(out) - len(last)] + extended
                    last = extended
                out += more
            else:
                pending_roles += c.roles
                pending_sections += c.sections
    return _dedupe(out)


def _dedupe(edits: list[Edit]) -> list[Edit]:
    """Drop repeats; freezes of the same sense merge into one ("keep the drums and the bass")."""
    seen: list[Edit] = []
    for e in edits:
        if isinstance(e, FreezeEdit):
            same = next((i for i, s in enumerate(seen) if isinstance(s, FreezeEdit) and s.frozen == e.frozen), None)
            if same is not None:
                prior = seen[same]
                assert isinstance(prior, FreezeEdit)
                seen[same] = prior.model_copy(update={"roles": tuple(dict.fromkeys((*prior.roles, *e.roles)))})
                continue
        if e not in seen:
            seen.append(e)
    return seen


# ----------------------------------------------------------------------------- the parser


NO_WORDS = Vocabulary()


def parse_request(text: str, vocabulary: Vocabulary = NO_WORDS, *, studio: bool = False) -> Request:
    """Read `text` into edits. Never guesses: words it does not know are ignored, and a text
    with nothing it knows gives a `Request` with no edits (see `not_understood`). Raises
    `InvalidInput` for an empty or over-long text and for values that cannot be (bars 0–4).
    `studio` also reads the mixer's and the player's words into `Request.mixer`
    (`craft.mixer_edits`: mute, solo a track, volume, pan, effects, quantize, swing, rename,
    an empty track, play/stop/loop)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("say what to change, e.g. 'make the bass busier' or 'change the key to F# minor'")
    if len(text) > MAX_CHARS:
        raise InvalidInput(f"a request is at most {MAX_CHARS} characters; this one has {len(text)}")
    stripped = " ".join(text.split())
    fragments = [f.strip() for f in re.split(r"[,.!?;]+", stripped.lower()) if f.strip()]
    if fragments and all(PRAISE.match(f) for f in fragments):
        return Request(text=stripped, edits=(PraiseEdit(),))
    words = _words(vocabulary)
    whole = _Clause.of(stripped)
    _chords(whole)
    chords = list(whole.edits)
    clauses: list[_Clause] = []
    pos = 0
    for sep in [*_CLAUSES.finditer(whole.low), None]:
        end = sep.start() if sep else len(whole.low)
        piece = _Clause(whole.orig[pos:end], whole.low[pos:end])
        if not piece.empty:
            said = piece.orig
            _read(piece, words, studio)
            if studio:
                _lend_mixer(piece, said, clauses)
            clauses.append(piece)
        pos = sep.end() if sep else end
    mixer = tuple(m for c in clauses for m in c.mixer)
    return Request(text=stripped, edits=tuple(chords + _join(clauses)), mixer=mixer)


def _lend_mixer(c: _Clause, said: str, before: list[_Clause]) -> None:
    """"mute the drums and the bass": a clause that only names a part gets the mixer edits of
    the clause before it (which had only mixer edits); one that made mixer edits lends none of
    its parts or sections to the musical edits around it."""
    if c.mixer:
        if not c.edits:
            c.roles, c.sections, c.bars = [], [], None
        return
    prior = before[-1] if before else None
    if c.edits or not c.roles or prior is None or not prior.mixer or prior.edits:
        return
    part = re.sub(r"^(?:the|a|an)\s+", "", " ".join(said.split()).lower())
    c.mixer = [m.model_copy(update={"part": part[:60], "role": c.roles[0]}) for m in prior.mixer
               if "part" in type(m).model_fields]
    if c.mixer:
        c.roles, c.sections = [], []


def scoped_to(request: Request, roles: Sequence[str]) -> Request:
    """The request with its edits for every part ("*": "make it darker") aimed at `roles`
    instead (what an earlier turn of a conversation was about: "add a pad", then "make it
    darker" means the pad)."""
    if not roles:
        return request
    edits: list[Edit] = []
    for edit in request.edits:
        role = edit.override.role if isinstance(edit, StyleEdit) else getattr(edit, "role", None)
        if role == "*":
            edits += [x for r in roles if (x := _with_role(edit, r)) is not None]
        else:
            edits.append(edit)
    return request.model_copy(update={"edits": tuple(_dedupe(edits))})


def not_understood(text: str) -> InvalidInput:
    """The one-line error for a request with nothing in it the tables know, with the examples
    closest to what was typed."""
    close = difflib.get_close_matches(text.lower(), EXAMPLES, n=3, cutoff=0.0)
    shown = "; ".join(f"'{e}'" for e in close)
    return InvalidInput(f"not understood: '{text.strip()[:80]}'; try e.g. {shown} (see docs/studio.md)")
