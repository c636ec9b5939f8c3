"""Tokens of the expression language.

The lexer turns source text into a flat list of `Token`s: numbers, the three
kinds of string literal, ASCII identifiers, and the few punctuation marks the
grammar uses. Everything else (including any non-ASCII character outside a
string) is a `PatternParseError` pointing at the character. `//` line
comments and `/* … */` block comments are skipped.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

from bandstand.patterns.expr._errors import parse_error
from bandstand.patterns.expr.limits import Limits

# kinds
NUMBER: Final = "number"
STRING: Final = "string"  # value is the decoded text; `quote` tells which quote
NAME: Final = "name"
PUNCT: Final = "punct"
END: Final = "end"

# Longest first so "===" wins over "==" and "=>" and "==" over "=".
# A lone "=" only binds a name (`const x = …`).
_PUNCTUATION: Final = (
    "===", "!==", "=>", "==", "!=", "<=", ">=", "&&", "||", "??",
    "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "+", "-", "*", "/", "%", "<", ">", "!", "?", "=",
)

_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "`": "`",
    "0": "\0",
}

_IDENT_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_IDENT_REST: Final = _IDENT_START | frozenset("0123456789")
_DIGITS: Final = frozenset("0123456789")
_SPACE: Final = frozenset(" \t\r\n")

# Operators and keywords of JavaScript that we name in errors so the reader knows
# the construct itself is not part of the language (rather than a typo).
_JS_ONLY: Final = {
    "&": "bit operators",
    "|": "bit operators",
    "^": "bit operators",
    "#": "private fields",
    "@": "decorators",
    "~": "bit operators",
}


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind, its text or value, and its 0-based offset in the source."""

    kind: str
    value: str | float | int
    pos: int
    quote: str = ""  # for strings: '"', "'" or "`"
    end: int = 0  # offset just past the token


def _describe(ch: str) -> str:
    if ch.isprintable() and ch.isascii():
        return repr(ch)
    name = unicodedata.name(ch, "")
    code = f"U+{ord(ch):04X}"
    return f"{code} {name.lower()}" if name else code


def tokenize(source: str, limits: Limits) -> list[Token]:
    """Split `source` into tokens, ending with one END token."""
    tokens: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch in _SPACE:
            i += 1
            continue
        if source.startswith("//", i):
            nl = source.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if source.startswith("/*", i):
            close = source.find("*/", i + 2)
            if close < 0:
                raise parse_error(source, i, "unterminated comment: '/*' has no closing '*/'")
            i = close + 2
            continue
        if ch in _DIGITS or (ch == "." and i + 1 < n and source[i + 1] in _DIGITS):
            tok = _number(source, i)
        elif ch in "\"'`":
            tok = _string(source, i, limits)
        elif ch in _IDENT_START:
            j = i + 1
            while j < n and source[j] in _IDENT_REST:
                j += 1
            tok = Token(NAME, source[i:j], i, end=j)
        else:
            tok = _punct(source, i)
        tokens.append(tok)
        if len(tokens) > limits.max_tokens:
            raise parse_error(
                source,
                tok.pos,
                f"too many tokens (the limit is {limits.max_tokens}); write a shorter pattern",
            )
        i = tok.end
    tokens.append(Token(END, "", n, end=n))
    return tokens


def _punct(source: str, i: int) -> Token:
    for p in _PUNCTUATION:
        if source.startswith(p, i):
            return Token(PUNCT, p, i, end=i + len(p))
    ch = source[i]
    for op in sorted(_JS_ONLY, key=len, reverse=True):
        if source.startswith(op, i):
            raise parse_error(
                source, i, f"unexpected {op!r}: {_JS_ONLY[op]} is not part of the pattern language"
            )
    raise parse_error(source, i, f"unexpected character {_describe(ch)}")


def _number(source: str, i: int) -> Token:
    n = len(source)
    j = i
    while j < n and source[j] in _DIGITS:
        j += 1
    is_float = False
    if j < n and source[j] == ".":
        is_float = True
        j += 1
        while j < n and source[j] in _DIGITS:
            j += 1
    if j < n and source[j] in "eE":
        k = j + 1
        if k < n and source[k] in "+-":
            k += 1
        if k < n and source[k] in _DIGITS:
            is_float = True
            j = k
            while j < n and source[j] in _DIGITS:
                j += 1
    if j < n and (source[j] in _IDENT_REST):
        raise parse_error(source, j, f"malformed number {source[i : j + 1]!r}")
    text = source[i:j]
    value: int | float = float(text) if is_float else int(text)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return Token(NUMBER, value, i, end=j)


def _string(source: str, i: int, limits: Limits) -> Token:
    quote = source[i]
    n = len(source)
    j = i + 1
    parts: list[str] = []
    while True:
        if j >= n:
            raise parse_error(source, i, f"unterminated string: {quote} has no closing {quote}")
        ch = source[j]
        if ch == quote:
            break
        if ch == "\n" and quote != "`":
            raise parse_error(
                source, i, f"unterminated string: {quote} has no closing {quote} on its line"
            )
        if quote == "`" and source.startswith("${", j):
            raise parse_error(
                source, j, "template interpolation '${…}' is not part of the pattern language"
            )
        if ch == "\\":
            esc = source[j + 1] if j + 1 < n else ""
            if esc not in _ESCAPES:
                raise parse_error(source, j, f"unsupported escape '\\{esc}' in a string")
            parts.append(_ESCAPES[esc])
            j += 2
            continue
        parts.append(ch)
        j += 1
    text = "".join(parts)
    if len(text) > limits.max_string_length:
        raise parse_error(
            source,
            i,
            f"string too long ({len(text)} characters, the limit is {limits.max_string_length})",
        )
    return Token(STRING, text, i, quote=quote, end=j + 1)
