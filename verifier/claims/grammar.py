"""The grammar of claims expressions, format ``verifier-claims/2``: tokens, the recursive
descent parser (never ``eval``, never SymPy's string parser) and the names an expression
uses.  The grammar itself and the evaluation: expr.py."""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError

MAX_LEN = 2000
MAX_DEPTH = 60
FUNCTIONS = ("sqrt", "exp", "log", "Phi", "erf", "erfc", "gamma", "zeta", "binomial", "abs",
             "min", "max")
CONSTANTS = ("pi", "e")
GRAMMAR_HELP = ("numbers (0.4748, 6/11, 1e-5), + - * / ^, parentheses, pi, e, "
                + " ".join(FUNCTIONS) + ", quantities called with keyword arguments")

_TOKEN = re.compile(r"""\s*(?:
    (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?) |
    (?P<str>"[A-Za-z0-9_.:-]{0,40}") |
    (?P<name>[A-Za-z_][A-Za-z0-9_]{0,40}) |
    (?P<op>[-+*/^(),=]))""", re.X)


class ExprError(InputError):
    """A malformed expression (one line)."""


@dataclass(frozen=True)
class Node:
    kind: str                 # num | str | name | neg | bin | call
    value: object = None      # Fraction, str, op
    args: tuple = ()          # children
    kwargs: tuple = ()        # ((name, Node), ...) for calls


def _tokens(text: str):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"unexpected character {text[pos:pos + 1]!r} at position {pos + 1} "
                            f"in {text!r:.80}")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


def parse(text) -> Node:
    if not isinstance(text, str):
        raise ExprError(f"an expression must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ExprError("empty expression")
    if len(text) > MAX_LEN:
        raise ExprError(f"expression too long ({len(text)} characters, at most {MAX_LEN})")
    p = _Parser(_tokens(text), text)
    node = p.expr(0)
    if p.i != len(p.toks):
        raise ExprError(f"unexpected {p.toks[p.i][1]!r} at position {p.toks[p.i][2] + 1} in "
                        f"{text!r:.80}")
    return node


class _Parser:
    def __init__(self, toks, text):
        self.toks, self.i, self.text = toks, 0, text

    def _peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None, len(self.text))

    def _take(self, val=None):
        t = self._peek()
        if t[0] is None or (val is not None and t[1] != val):
            want = repr(val) if val else "more"
            raise ExprError(f"expected {want} at position {t[2] + 1} in {self.text!r:.80}")
        self.i += 1
        return t

    def _depth(self, d):
        if d > MAX_DEPTH:
            raise ExprError(f"expression nested too deeply (more than {MAX_DEPTH} levels)")

    def expr(self, d):
        self._depth(d)
        node = self.term(d + 1)
        while self._peek()[1] in ("+", "-"):
            op = self._take()[1]
            node = Node("bin", op, (node, self.term(d + 1)))
        return node

    def term(self, d):
        node = self.unary(d + 1)
        while self._peek()[1] in ("*", "/"):
            op = self._take()[1]
            node = Node("bin", op, (node, self.unary(d + 1)))
        return node

    def unary(self, d):
        self._depth(d)
        if self._peek()[1] in ("-", "+"):
            op = self._take()[1]
            x = self.unary(d + 1)
            return Node("neg", None, (x,)) if op == "-" else x
        return self.power(d + 1)

    def power(self, d):
        base = self.atom(d + 1)
        if self._peek()[1] == "^":
            self._take()
            return Node("bin", "^", (base, self.unary(d + 1)))
        return base

    def atom(self, d):
        self._depth(d)
        kind, val, pos = self._peek()
        if kind == "num":
            self._take()
            return Node("num", Fraction(val))
        if kind == "str":
            self._take()
            return Node("str", val[1:-1])
        if kind == "name":
            self._take()
            if self._peek()[1] == "(":
                return self.call(val, pos, d + 1)
            return Node("name", val)
        if val == "(":
            self._take()
            node = self.expr(d + 1)
            self._take(")")
            return node
        raise ExprError(f"unexpected {val!r} at position {pos + 1} in {self.text!r:.80}"
                        if val else f"incomplete expression {self.text!r:.80}")

    def call(self, name, pos, d):
        self._take("(")
        args, kwargs = [], []
        if self._peek()[1] != ")":
            while True:
                k, v, _ = self._peek()
                nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else (None, None, 0)
                if k == "name" and nxt[1] == "=":
                    self._take()
                    self._take("=")
                    if any(n == v for n, _ in kwargs):
                        raise ExprError(f"argument {v!r} given twice to {name}")
                    kwargs.append((v, self.expr(d + 1)))
                else:
                    if kwargs:
                        raise ExprError(f"positional argument after keyword argument in {name}(...)")
                    args.append(self.expr(d + 1))
                if self._peek()[1] == ",":
                    self._take()
                    continue
                break
        self._take(")")
        _check_call(name, args, kwargs, pos, self.text)
        return Node("call", name, tuple(args), tuple(kwargs))


_ARITY = {"sqrt": 1, "exp": 1, "log": 1, "Phi": 1, "erf": 1, "erfc": 1, "gamma": 1, "zeta": 1,
          "binomial": 2, "abs": 1}


def _check_call(name, args, kwargs, pos, text):
    from verifier.claims import quantities as Q
    if name in FUNCTIONS:
        if kwargs:
            raise ExprError(f"function {name} takes no keyword arguments")
        n = _ARITY.get(name)
        if n is not None and len(args) != n:
            raise ExprError(f"function {name} takes {n} argument{'s' * (n > 1)}, got {len(args)}")
        if name in ("min", "max") and len(args) < 1:
            raise ExprError(f"function {name} needs at least one argument")
        return
    if name in Q.QUANTITIES:
        if args:
            raise ExprError(f"quantity {name} takes keyword arguments only "
                            f"({', '.join(Q.QUANTITIES[name].all_args())})")
        allowed = set(Q.QUANTITIES[name].all_args())
        for k, _ in kwargs:
            if k not in allowed:
                raise ExprError(f"quantity {name} takes no argument {k!r} "
                                f"(it takes {', '.join(sorted(allowed))})")
        return
    raise ExprError(f"unknown function or quantity {name!r} at position {pos + 1} "
                    f"(functions: {', '.join(FUNCTIONS)}; quantities: see verifier.claims.quantities)")


def free_names(node: Node) -> set:
    if node.kind == "name":
        return set() if node.value in CONSTANTS else {node.value}
    out = set()
    for a in node.args:
        out |= free_names(a)
    for _, a in node.kwargs:
        out |= free_names(a)
    return out


def calls(node: Node) -> set:
    out = {node.value} if node.kind == "call" and node.value not in FUNCTIONS else set()
    for a in node.args:
        out |= calls(a)
    for _, a in node.kwargs:
        out |= calls(a)
    return out
