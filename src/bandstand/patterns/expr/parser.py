"""Parser: tokens → syntax tree, for the JavaScript subset musicians write.

Grammar (a program: statements separated by ';' or line breaks, as JavaScript's
automatic semicolons do — a line that goes on with `.method(...)` continues)::

    program   := (statement (';' | NEWLINE))* END
    statement := ('const' | 'let') NAME '=' argument (',' NAME '=' argument)*
               | NAME ':' expr                      (a block: `$: …`, `_$: …`, `bass: …`)
               | 'await' expr                       (only `await samples(…)`)
               | expr
    expr      := conditional
    argument  := arrow | expr                       (call arguments, array items, object values)
    arrow     := NAME '=>' expr | '(' NAME (',' NAME)* ')' '=>' expr
    conditional := nullish ('?' argument ':' argument)?
    nullish   := or ('??' or)*
    or        := and ('||' and)*
    and       := equality ('&&' equality)*
    equality  := relational (('===' | '!==' | '==' | '!=') relational)*
    relational := additive (('<' | '<=' | '>' | '>=') additive)*
    additive  := term (('+' | '-') term)*            numbers only (checked when evaluating)
    term      := unary (('*' | '/' | '%') unary)*
    unary     := ('-' | '+' | '!') unary | postfix
    postfix   := primary ('.' NAME | '(' arguments ')' | '[' expr ']')*
    primary   := NUMBER | STRING | NAME | 'true' | 'false' | '[' items ']' | '{' entries '}' | '(' expr ')'

Code of one plain expression parses to that expression; anything else to an
`ast.Program`. Keywords of JavaScript (`new`, `this`, `function`, …) are
rejected by name.
Nesting depth, arguments per call and token count are bounded (`Limits`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from bandstand.errors import PatternParseError
from bandstand.patterns.expr import ast
from bandstand.patterns.expr._errors import parse_error
from bandstand.patterns.expr._lexer import END, NAME, NUMBER, PUNCT, STRING, Token, tokenize
from bandstand.patterns.expr.limits import DEFAULT_LIMITS, Limits

_MAX_PARAMS: Final = 8  # parameters of one arrow function: Strudel passes two at most

# Reserved words of JavaScript, refused by name. Contextual words (of, get, set, static)
# are not reserved: `set` is a pattern function.
_KEYWORDS: Final = frozenset(
    [
        "new",
        "this",
        "function",
        "return",
        "var",
        "let",
        "const",
        "class",
        "import",
        "export",
        "delete",
        "typeof",
        "void",
        "await",
        "async",
        "yield",
        "in",
        "instanceof",
        "if",
        "else",
        "for",
        "while",
        "do",
        "switch",
        "case",
        "break",
        "continue",
        "throw",
        "try",
        "catch",
        "finally",
        "with",
        "debugger",
        "super",
        "extends",
        "null",
        "undefined",
    ]
)

# How tightly each binary operator binds (JavaScript's order; higher binds tighter).
_PRECEDENCE: Final[dict[str, int]] = {
    "??": 0,
    "||": 1,
    "&&": 2,
    **dict.fromkeys(("===", "!==", "==", "!="), 3),
    **dict.fromkeys(("<", "<=", ">", ">="), 4),
    **dict.fromkeys(("+", "-"), 5),
    **dict.fromkeys(("*", "/", "%"), 6),
}
_LOGICAL: Final = frozenset({"??", "||", "&&"})  # the right side is evaluated only when needed

# Object keys that would be dangerous in JavaScript; refused so code never even looks like an attack.
_FORBIDDEN_KEYS: Final = frozenset({"__proto__", "constructor", "prototype"})


class Parser:
    """A recursive-descent parser over one piece of code."""

    def __init__(self, source: str, limits: Limits = DEFAULT_LIMITS) -> None:
        if len(source) > limits.max_source_length:
            raise PatternParseError(
                f"code too long ({len(source)} characters, the limit is {limits.max_source_length})",
                text="",
                position=None,
            )
        self.source = source
        self.limits = limits
        self.tokens = tokenize(source, limits)
        self.i = 0
        self.depth = 0

    # ------------------------------------------------------------------ helpers

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def _peek(self, ahead: int) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def _is(self, value: str, tok: Token | None = None) -> bool:
        t = self.tok if tok is None else tok
        return t.kind == PUNCT and t.value == value

    def _advance(self) -> Token:
        tok = self.tok
        if tok.kind != END:
            self.i += 1
        return tok

    def _expect(self, value: str, opened: Token | None = None) -> Token:
        if self._is(value):
            return self._advance()
        found = _show(self.tok)
        extra = (
            f" to close {opened.value!r} at column {opened.pos + 1}" if opened is not None else ""
        )
        raise parse_error(self.source, self.tok.pos, f"expected {value!r}{extra} but found {found}")

    def _enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise parse_error(
                self.source,
                pos,
                f"code nested too deeply (the limit is {self.limits.max_depth} levels)",
            )

    # ------------------------------------------------------------------ grammar

    def parse(self) -> ast.Node:
        if self.tok.kind == END:
            raise parse_error(self.source, 0, 'empty code: write a pattern such as s("bd sd")')
        statements: list[ast.Node] = []
        plain = True  # every statement is a plain expression
        while self.tok.kind != END:
            if self._is(";"):
                self._advance()
                continue
            if statements and not self._is(";", self._peek(-1)) and not self._newline_before():
                tok = self.tok
                hint = ""
                if self._is("="):
                    hint = ": assignment is not part of the pattern language (name a value once with const)"
                elif tok.kind in (NAME, STRING, NUMBER) or self._is("("):
                    hint = " (put each statement on its own line or end it with ';')"
                raise parse_error(self.source, tok.pos, f"unexpected {_show(tok)}{hint}")
            node = self._statement()
            plain = plain and not isinstance(node, ast.Const | ast.Labelled)
            statements.append(node)
        if not statements:
            raise parse_error(self.source, 0, 'empty code: write a pattern such as s("bd sd")')
        if len(statements) == 1 and plain:
            return statements[0]
        return ast.Program(tuple(statements), statements[0].pos)

    def _newline_before(self) -> bool:
        """True when a line break separates the current token from the one before."""
        before = self._peek(-1)
        return "\n" in self.source[before.end : self.tok.pos]

    def _statement(self) -> ast.Node:
        tok = self.tok
        if tok.kind == NAME and tok.value in ("const", "let"):
            return self._const()
        if tok.kind == NAME and tok.value == "await":
            following = self._peek(1)
            if not (following.kind == NAME and following.value == "samples"):
                raise parse_error(
                    self.source,
                    tok.pos,
                    "'await' is not part of the pattern language (only 'await samples(...)' is accepted)",
                )
            self._advance()  # Strudel's transpiler adds this await to every samples() itself
            return self.expr()
        if (
            tok.kind == NAME
            and self._is(":", self._peek(1))
            and str(tok.value) not in _KEYWORDS
        ):
            self._advance()
            self._advance()
            return ast.Labelled(str(tok.value), self.expr(), tok.pos)
        return self.expr()

    def _const(self) -> ast.Node:
        keyword = self._advance()
        bindings: list[ast.Node] = []
        while True:
            name = self.tok
            if name.kind != NAME:
                raise parse_error(
                    self.source, name.pos, f"expected a name after '{keyword.value}' but found {_show(name)}"
                )
            text = str(name.value)
            if text in _KEYWORDS or text in ("true", "false"):
                raise parse_error(self.source, name.pos, f"'{text}' cannot name a value")
            self._advance()
            if not self._is("="):
                raise parse_error(
                    self.source,
                    self.tok.pos,
                    f"expected '=' after '{keyword.value} {text}' but found {_show(self.tok)}",
                )
            self._advance()
            bindings.append(ast.Const(text, self.argument(), name.pos))
            if not self._is(","):
                break
            self._advance()
        if len(bindings) == 1:
            return bindings[0]
        return ast.Program(tuple(bindings), keyword.pos)

    def expr(self) -> ast.Node:
        if self._starts_arrow():
            raise parse_error(
                self.source,
                self.tok.pos,
                "an arrow function is only allowed as an argument, e.g. .every(4, x => x.fast(2))",
            )
        return self._conditional()

    def argument(self) -> ast.Node:
        if self._starts_arrow():
            return self._arrow()
        return self.expr()

    def _starts_arrow(self) -> bool:
        if self.tok.kind == NAME and self._is("=>", self._peek(1)):
            return True
        if not (self._is("(") and self._peek(1).kind == NAME):
            return False
        i = 2  # (a, b, c) => : names separated by commas, at most _MAX_PARAMS of them
        while self._is(",", self._peek(i)) and self._peek(i + 1).kind == NAME and i < 2 * _MAX_PARAMS:
            i += 2
        return self._is(")", self._peek(i)) and self._is("=>", self._peek(i + 1))

    def _arrow(self) -> ast.Node:
        start = self.tok
        parenthesized = self._is("(")
        if parenthesized:
            self._advance()
        names: list[str] = []
        while True:
            param = self._advance()
            name = str(param.value)
            if name in _KEYWORDS:
                raise parse_error(self.source, param.pos, f"'{name}' cannot name a parameter")
            if name in names:
                raise parse_error(self.source, param.pos, f"the parameter '{name}' is named twice")
            names.append(name)
            if not (parenthesized and self._is(",")):
                break
            self._advance()
        if parenthesized:
            self._expect(")")
        self._expect("=>")
        self._enter(start.pos)
        body = self.expr()
        self.depth -= 1
        return ast.Arrow(names[0], body, start.pos, tuple(names[1:]))

    def _conditional(self) -> ast.Node:
        test = self._binary_level(0)
        if not self._is("?"):
            return test
        mark = self._advance()
        self._enter(mark.pos)
        then = self.argument()
        self._expect(":")
        otherwise = self.argument()
        self.depth -= 1
        return ast.Conditional(test, then, otherwise, mark.pos)

    def _binary_level(self, level: int) -> ast.Node:
        """Binary operators binding at least as tightly as `level` (precedence climbing: one
        Python frame per operator, not per level, so nesting stays within the recursion limit)."""
        node = self._unary()
        entered = 0
        while self.tok.kind == PUNCT and self.tok.value in _PRECEDENCE:
            tight = _PRECEDENCE[str(self.tok.value)]
            if tight < level:
                break
            op = self._advance()
            self._enter(op.pos)
            entered += 1
            right = self._binary_level(tight + 1)  # left-associative
            kind = ast.Logical if op.value in _LOGICAL else ast.Binary
            node = kind(str(op.value), node, right, op.pos)
        self.depth -= entered
        return node

    def _unary(self) -> ast.Node:
        if self._is("!"):
            op = self._advance()
            self._enter(op.pos)
            operand = self._unary()
            self.depth -= 1
            return ast.Unary("!", operand, op.pos)
        if self._is("-") or self._is("+"):
            op = self._advance()
            self._enter(op.pos)
            operand = self._unary()
            self.depth -= 1
            if isinstance(operand, ast.Num):
                value = -operand.value if op.value == "-" else operand.value
                return ast.Num(value, op.pos)
            return ast.Unary(str(op.value), operand, op.pos)
        return self._postfix()

    def _postfix(self) -> ast.Node:
        node = self._primary()
        entered = 0
        while True:
            if self._is("."):
                dot = self._advance()
                name = self.tok
                if name.kind != NAME:
                    raise parse_error(
                        self.source,
                        name.pos,
                        f"expected a method name after '.' but found {_show(name)}",
                    )
                self._advance()
                self._enter(dot.pos)
                entered += 1
                node = ast.Member(node, str(name.value), name.pos)
            elif self._is("("):
                opened = self._advance()
                if not isinstance(node, ast.Member):  # `.name(...)` is one level, not two
                    self._enter(opened.pos)
                    entered += 1
                args = self._list(")", opened, self.argument)
                node = ast.Call(node, tuple(args), _callee_pos(node, opened.pos))
            elif self._is("["):  # as in JavaScript, also at the start of the next line
                opened = self._advance()
                self._enter(opened.pos)
                entered += 1
                index = self.expr()
                self._expect("]", opened)
                node = ast.Index(node, index, opened.pos)
            else:
                break
        self.depth -= entered
        return node

    def _primary(self) -> ast.Node:
        tok = self.tok
        if tok.kind == NUMBER:
            self._advance()
            assert isinstance(tok.value, int | float)
            return ast.Num(tok.value, tok.pos)
        if tok.kind == STRING:
            self._advance()
            return ast.Str(str(tok.value), tok.quote != "'", tok.pos)
        if tok.kind == NAME:
            name = str(tok.value)
            if name in ("true", "false"):
                self._advance()
                return ast.Bool(name == "true", tok.pos)
            if name in _KEYWORDS:
                raise parse_error(
                    self.source,
                    tok.pos,
                    f"'{name}' is JavaScript, not part of the pattern language",
                )
            self._advance()
            return ast.Name(name, tok.pos)
        if self._is("("):
            opened = self._advance()
            self._enter(opened.pos)
            node = self.expr()
            self.depth -= 1
            self._expect(")", opened)
            return node
        if self._is("["):
            opened = self._advance()
            self._enter(opened.pos)
            items = self._list("]", opened, self.argument)
            self.depth -= 1
            return ast.Array(tuple(items), opened.pos)
        if self._is("{"):
            return self._object()
        if tok.kind == END:
            raise parse_error(self.source, tok.pos, "unexpected end of code")
        raise parse_error(self.source, tok.pos, f"unexpected {_show(tok)}")

    def _object(self) -> ast.Node:
        opened = self._advance()
        self._enter(opened.pos)
        entries: list[tuple[str, ast.Node]] = []
        seen: set[str] = set()

        def entry() -> ast.Node:
            key = self.tok
            if key.kind not in (NAME, STRING, NUMBER):
                raise parse_error(self.source, key.pos, f"expected a key but found {_show(key)}")
            text = str(key.value)
            if text in _FORBIDDEN_KEYS:
                raise parse_error(self.source, key.pos, f"the key '{text}' is not allowed")
            if text in seen:
                raise parse_error(self.source, key.pos, f"the key '{text}' appears twice")
            seen.add(text)
            self._advance()
            self._expect(":")
            value = self.argument()
            entries.append((text, value))
            return value

        self._list("}", opened, entry)
        self.depth -= 1
        return ast.Object(tuple(entries), opened.pos)

    def _list(self, close: str, opened: Token, item: Callable[[], ast.Node]) -> list[ast.Node]:
        """Comma-separated items up to `close` (a trailing comma is allowed, as in JavaScript)."""
        items: list[ast.Node] = []
        while not self._is(close):
            if self.tok.kind == END:
                self._expect(close, opened)
            items.append(item())
            if len(items) > self.limits.max_arguments:
                raise parse_error(
                    self.source,
                    opened.pos,
                    f"too many items (the limit is {self.limits.max_arguments})",
                )
            if self._is(","):
                self._advance()
            elif not self._is(close):
                self._expect(close, opened)
        self._advance()
        return items


def _callee_pos(node: ast.Node, fallback: int) -> int:
    return node.pos if isinstance(node, ast.Name | ast.Member) else fallback


def _show(tok: Token) -> str:
    if tok.kind == END:
        return "the end of the code"
    if tok.kind == STRING:
        return "a string"
    if tok.kind == NUMBER:
        return f"the number {tok.value}"
    if tok.kind == NAME:
        return f"'{tok.value}'"
    return repr(tok.value)


def parse(source: str, limits: Limits = DEFAULT_LIMITS) -> ast.Node:
    """Parse `source` into a syntax tree, or raise `PatternParseError`."""
    return Parser(source, limits).parse()
