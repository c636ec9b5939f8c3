"""The mixer's rule families of the request parser (read only for the studio):
transport (play, stop, loop, go to), mute and solo, volume, pan, effects,
quantize, swing, rename and an empty track. Each reads its words out of a
`_Clause` and blanks them, like the musical families in `_request_rules`;
they run before those, so "solo the bass" is the mixer's solo and "swing
the drums 60%" moves the notes instead of playing them again.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bandstand.craft._request_rules import _Clause, _make, _role_of
from bandstand.craft._request_words import _SECTION_BY_WORD, _alternation, _Words
from bandstand.craft.mixer_edits import (
    EFFECT_WORDS,
    GRID_WORDS,
    AddTrackEdit,
    EffectEdit,
    MuteEdit,
    PanEdit,
    QuantizeEdit,
    RenameEdit,
    SwingEdit,
    TrackSoloEdit,
    TransportEdit,
    VolumeEdit,
)
from bandstand.craft.roles import DEFAULT_PROGRAMS

__all__ = ["MIXER_RULES", "read_mixer", "read_transport"]

_PART_BODY = r"(?P<part>[\w#'&+ -]{1,60}?)(?:\s+(?:track|tracks|part|channel))?"
_PART = r"(?:the\s+)?" + _PART_BODY
_END = r"\s*$"
_FX = _alternation(EFFECT_WORDS)
_GRID = _alternation(GRID_WORDS)
_NUM = r"(?P<v>-?\d{1,3}(?:\.\d+)?)"


def _find(c: _Clause, pattern: str) -> re.Match[str] | None:
    """The first match of `pattern` starting at a word boundary of what is left of the clause."""
    return re.compile(r"\b(?:" + pattern + r")", re.I).search(c.low)


def _on_track(c: _Clause, words: _Words, m: re.Match[str]) -> dict[str, str | None] | None:
    """The part a match names, as said and as a role; None when the words are not a part."""
    part = " ".join(m.group("part").split()).strip(" -'")
    part = re.sub(r"^(?:(?:make|set|get|have|let|turn|bring|put)\s+)?(?:the|a|an|my|our)\s+", "", part)
    if not part or not re.search(r"\w", part):
        return None
    found = _role_of(words, part)
    return {"part": part[:60], "role": found[0] if found else None}


def _where(text: str | None) -> tuple[str | None, int | None]:
    """A section kind or a bar number a transport phrase names."""
    if not text:
        return None, None
    bar = re.search(r"\bbar\s+(\d{1,5})\b", text)
    if bar:
        return None, max(1, min(10_000, int(bar.group(1))))
    words = re.sub(r"^(?:the|a|an)\s+", "", text.strip())
    for word, kind in sorted(_SECTION_BY_WORD.items(), key=lambda kv: -len(kv[0])):
        if re.search(r"\b" + re.escape(word.removeprefix("the ")) + r"\b", words):
            return kind, None
    if words in ("top", "start", "beginning"):
        return None, 1
    return None, None


_TRANSPORT: tuple[tuple[str, str], ...] = (
    (r"^(?:hit\s+|press\s+)?(?:play|start(?: playback| playing)?|listen)(?:\s+(?:it|the song|back))?"
     r"(?:\s+from\s+(?P<where>.+?))?$", "play"),
    (r"^(?:stop|pause|halt|hold it|stop (?:it|playback|playing)|pause (?:it|playback))$", "stop"),
    (r"^(?:loop|repeat|cycle)\s+(?P<where>.+?)$", "loop"),
    (r"^(?:go|jump|skip|move|rewind|return)\s+(?:back\s+)?to\s+(?P<where>.+?)$", "seek"),
    (r"^rewind$", "seek"),
)


def read_transport(c: _Clause) -> None:
    """A whole clause that only says what the player should do ("play from the chorus")."""
    text = " ".join(c.low.split())
    for pattern, action in _TRANSPORT:
        m = re.match(pattern, text)
        if m is None:
            continue
        where = m.groupdict().get("where")
        section, bar = _where(where)
        if where and section is None and bar is None:
            return  # "loop the bassline with a pad": not the player's
        if action == "seek" and section is None and bar is None:
            bar = 1
        c.mixer.append(_make(TransportEdit, action=action, section=section, bar=bar))
        c.low = c.orig = " " * len(c.low)
        return


def _mute(c: _Clause, words: _Words) -> None:
    m = _find(c, r"(?P<verb>un-?mute|mute|silence)\s+" + _PART + _END)
    if m and (on := _on_track(c, words, m)):
        c.mixer.append(_make(MuteEdit, **on, muted=not m.group("verb").startswith("un")))
        c.take(m)


def _solo(c: _Clause, words: _Words) -> None:
    m = _find(c, r"(?P<verb>un-?solo|solo)\s+" + _PART + _END)
    if m and (on := _on_track(c, words, m)):
        c.mixer.append(_make(TrackSoloEdit, **on, solo=not m.group("verb").startswith("un")))
        c.take(m)


def _level(value: str, unit: str | None) -> dict[str, float]:
    number = float(value)
    if unit and unit.startswith("db"):
        return {"db": max(-60.0, min(24.0, number))}
    if unit in ("%", "percent") or number > 1.5:
        return {"level": max(0.0, min(1.5, number / 100))}
    return {"level": max(0.0, min(1.5, number))}


def _volume(c: _Clause, words: _Words) -> None:
    unit = r"\s*(?P<u>%|percent|db)?"
    for pattern in (
        r"(?:set\s+)?" + _PART + r"\s+(?:volume|level|fader|gain)\s*(?:to|at|=|:)?\s*" + _NUM + unit + _END,
        r"(?:set|turn|bring|put|pull|push)\s+" + _PART + r"\s+(?:volume\s+)?(?:up\s+|down\s+)?(?:to|at)\s+" + _NUM
        + r"\s*(?P<u>%|percent|db)" + _END,
        r"(?:set\s+)?(?:the\s+)?(?:volume|level)\s+of\s+" + _PART + r"\s+(?:to|at)\s+" + _NUM + unit + _END,
    ):
        m = _find(c, pattern)
        if m and (on := _on_track(c, words, m)):
            c.mixer.append(_make(VolumeEdit, **on, **_level(m.group("v"), (m.group("u") or "").lower() or None)))
            c.take(m)
            return
    m = _find(c, r"(?:turn\s+)?" + _PART + r"\s+(?P<dir>up|down)\s+(?:by\s+)?(?P<v>\d{1,2}(?:\.\d+)?)\s*db" + _END)
    if m and (on := _on_track(c, words, m)):
        sign = 1.0 if m.group("dir") == "up" else -1.0
        c.mixer.append(_make(VolumeEdit, **on, db=sign * float(m.group("v"))))
        c.take(m)


def _pan_value(direction: str, amount: str | None, hard: bool) -> float:
    if direction in ("center", "centre", "middle"):
        return 0.5
    share = 1.0 if hard else (min(100, int(amount)) / 100 if amount else 0.5)
    return round(0.5 - share / 2 if direction == "left" else 0.5 + share / 2, 4)


def _pan(c: _Clause, words: _Words) -> None:
    m = _find(c, r"pan\s+" + _PART + r"\s+(?:(?P<amt>\d{1,3})\s*%\s*)?(?:to\s+the\s+|to\s+)?(?P<hard>hard\s+)?"
               r"(?P<dir>left|right|cent(?:er|re)|middle)" + _END)
    if m is None:
        m = _find(c, r"(?P<dir>cent(?:er|re))\s+" + _PART + _END)
    if m and (on := _on_track(c, words, m)):
        groups = m.groupdict()
        value = _pan_value(m.group("dir"), groups.get("amt"), bool(groups.get("hard")))
        c.mixer.append(_make(PanEdit, **on, pan=value))
        c.take(m)


_VERB = r"(?P<fx>reverb|verb|hall|room)"
_SEND_AMOUNTS: tuple[tuple[str, str | None], ...] = (
    (r"(?P<amt>(?:a\s+(?:bit|little|lot)\s+|much\s+|way\s+)?(?:less|more))\s+" + _VERB + r"\s+(?:on|in|for|to)\s+"
     + _PART + _END, None),
    (_PART + r"\s+(?:needs|could use|wants)\s+(?:a\s+(?:bit|little|lot)\s+)?(?P<amt>less|more)\s+" + _VERB + _END, None),
    (r"(?:take|strip|pull)\s+(?:the\s+)?" + _VERB + r"\s+off\s+(?:of\s+)?" + _PART + _END, "none"),
    (r"(?:remove|kill|cut|drop|lose)\s+(?:the\s+)?" + _VERB + r"\s+(?:on|from|in)\s+" + _PART + _END, "none"),
    (r"no\s+" + _VERB + r"\s+on\s+" + _PART + _END, "none"),
    (r"(?:make\s+)?" + _PART + r"\s+(?:a\s+(?:bit|little|lot)\s+|much\s+)?(?P<dw>drier|dryer|wetter)" + _END, None),
    (r"(?:a\s+(?:bit|little|lot)\s+)?(?P<dw>drier|dryer|wetter)\s+" + _PART + _END, None),
)
"""How much of the shared reverb a track gets: "less reverb on the lead", "drier drums",
"take the reverb off the vocals" (amount "more", "less" or "none")."""


def _send_amount(c: _Clause, words: _Words) -> bool:
    for pattern, fixed in _SEND_AMOUNTS:
        m = _find(c, pattern)
        if m is None or not (on := _on_track(c, words, m)):
            continue
        groups = m.groupdict()
        if fixed is not None:
            amount = fixed
        elif groups.get("dw"):
            amount = "more" if groups["dw"] == "wetter" else "less"
        else:
            amount = "more" if (groups.get("amt") or "").endswith("more") else "less"
        c.mixer.append(_make(EffectEdit, **on, effect="reverb", amount=amount))
        c.take(m)
        return True
    return False


def _effect(c: _Clause, words: _Words) -> None:
    if _send_amount(c, words):
        return
    article = r"(?P<art>a\s+|an\s+|some\s+|more\s+|a\s+bit\s+of\s+|a\s+little\s+)?"
    for pattern in (
        r"(?:add|put|use|throw|slap|stick|apply)\s+" + article + r"(?P<fx>" + _FX + r")\s+(?:on|to|onto)\s+" + _PART + _END,
        r"(?:give|send)\s+" + _PART + r"\s+" + article + r"(?P<fx>" + _FX + r")" + _END,
        r"(?P<fx>compress)\s+" + _PART + _END,
        r"(?:drench|wash|bathe)\s+" + _PART + r"\s+in\s+(?P<fx>reverb|delay|echo)" + _END,
        _PART + r"\s+(?:needs|could use|wants)\s+" + article + r"(?P<fx>" + _FX + r")" + _END,
    ):
        m = _find(c, pattern)
        if m and (on := _on_track(c, words, m)):
            word = m.group("fx")
            effect = "compressor" if word == "compress" else EFFECT_WORDS[word]
            more = (m.groupdict().get("art") or "").strip() == "more" and effect == "reverb"
            c.mixer.append(_make(EffectEdit, **on, effect=effect, amount="more" if more else "add"))
            c.take(m)
            return


def _quantize(c: _Clause, words: _Words) -> None:
    m = _find(c, r"quanti[sz]e\s+" + _PART + r"(?:\s+(?:to|on)\s+(?:the\s+)?(?:a\s+)?(?P<grid>" + _GRID + r")(?:\s+grid)?)?"
               r"(?:\s+(?:at\s+|by\s+)?(?P<s>\d{1,3})\s*%(?:\s+strength)?)?" + _END)
    if m and (on := _on_track(c, words, m)):
        grid = GRID_WORDS[m.group("grid")] if m.group("grid") else "1/4"
        strength = min(100, int(m.group("s"))) / 100 if m.group("s") else 1.0
        c.mixer.append(_make(QuantizeEdit, **on, grid=grid, strength=strength))
        c.take(m)


def _swing(c: _Clause, words: _Words) -> None:
    grid = r"(?:\s+(?:on\s+)?(?:the\s+)?(?P<grid>16ths|sixteenths|8ths|eighths))?"
    for pattern in (
        r"(?:add|apply|put)\s+(?:(?P<amt>\d{1,3})\s*%\s+)?(?:of\s+)?(?:a\s+|some\s+)?swing\s+(?:to|on)\s+" + _PART + grid
        + r"(?:\s+(?:at\s+)?(?P<amt2>\d{1,3})\s*%)?" + _END,
        r"swing\s+the\s+" + _PART_BODY + grid + r"(?:\s+(?:by\s+)?(?P<amt>\d{1,3})\s*%)?" + _END,
    ):
        m = _find(c, pattern)
        if m and (on := _on_track(c, words, m)):
            groups = m.groupdict()
            amount = groups.get("amt") or groups.get("amt2")
            swing_grid = "16ths" if (groups.get("grid") or "").startswith(("16", "six")) else "8ths"
            c.mixer.append(_make(SwingEdit, **on, amount=min(100, int(amount)) / 100 if amount else 0.5,
                                 grid=swing_grid))
            c.take(m)
            return


def _rename(c: _Clause, words: _Words) -> None:
    m = _find(c, r"(?:rename|call)\s+" + _PART + r"\s+(?:to\s+|as\s+)?[\"'“]?(?P<name>[^\"'”]{1,50}?)[\"'”]?" + _END)
    if m is None or (m.group(0).startswith("call") and not re.search(r"[\"'“]", m.group(0))):
        m = _find(c, r"rename\s+" + _PART + r"\s+to\s+[\"'“]?(?P<name>[^\"'”]{1,50}?)[\"'”]?" + _END)
    if m and (on := _on_track(c, words, m)):
        a, b = m.span("name")
        name = c.orig[a:b].strip()
        if name:
            c.mixer.append(_make(RenameEdit, **on, name=name))
            c.take(m)


def _add_track(c: _Clause, words: _Words) -> None:
    m = _find(c, r"(?:add|create|make|new)\s+(?:me\s+)?(?:a\s+|an\s+)?(?:new\s+)?(?:empty\s+)?(?:(?P<inst>[\w -]{1,30}?)\s+)?"
               r"track(?:\s+(?:called|named)\s+[\"'“]?(?P<name>[^\"'”]{1,50}?)[\"'”]?)?" + _END)
    if m is None:
        return
    inst = (m.group("inst") or "").strip()
    inst = re.sub(r"^(?:new|empty)\s+", "", inst)
    found = _role_of(words, inst) if inst else None
    if m.group("name"):
        a, b = m.span("name")
        name = c.orig[a:b].strip()
    else:
        name = (found[2] if found else inst or "Track").title()
    role, program = (found[0], found[1]) if found else (None, None)
    drums = role in ("drums", "percussion")
    if program is None and role is not None and not drums:
        program = DEFAULT_PROGRAMS.get(role)
    c.mixer.append(_make(AddTrackEdit, name=name[:50], role=role, program=program if not drums else None,
                         drums=drums))
    c.take(m)


MIXER_RULES: tuple[Callable[[_Clause, _Words], None], ...] = (
    _add_track, _rename, _mute, _solo, _volume, _pan, _effect, _quantize, _swing,
)
"""The mixer's families in the order they read a clause."""


def read_mixer(c: _Clause, words: _Words) -> None:
    for rule in MIXER_RULES:
        rule(c, words)
