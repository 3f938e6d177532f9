"""The expressions of claims files, format ``verifier-claims/2`` (issue #15).

A small grammar parsed here by recursive descent (never ``eval``, never SymPy's string
parser):

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/') unary)*
    unary   := ('-' | '+') unary | power
    power   := atom ('^' unary)?                 (right associative; -2^2 = -(2^2))
    atom    := NUMBER | STRING | NAME | NAME '(' [arg (',' arg)*] ')' | '(' expr ')'
    arg     := expr | NAME '=' expr

NUMBER: an exact decimal (``0.4748``, ``1e-5``, ``3``); ratios are written with ``/``.
STRING: "..." (an argument such as ``coef="rho3"``).  Constants ``pi`` and ``e``;
functions ``sqrt exp log Phi erf erfc gamma zeta binomial abs min max``; every quantity of
``verifier.claims.quantities`` called with keyword arguments.  Other names are free and
bound by the claim's ``args``, ``cases``, ``defaults`` or ``over``.

Evaluation is in Arb balls at a given precision (``evaluate``): a name bound to a box is a
ball covering it, so the result encloses the expression over the box (the extremum search
relies on this).  ``to_sympy`` gives the exact expression for the ``equals`` judge (None
when a quantity is called: numerics can then refute, not prove).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import InputError, Interval, to_arb

MAX_LEN = 2000
MAX_DEPTH = 60
# exact rationals in claims (numbers, + - * /, integer powers, the arguments of quantities):
# numerator and denominator at most this many bits (about 19,700 digits); a larger exact
# value is refused in one line before it is computed (a power's size is estimated first)
MAX_EXACT_BITS = 1 << 16
# binomial(n, k) and gamma(n) are computed exactly (or symbolically by SymPy) only for
# arguments up to this size; beyond it, in ball arithmetic (log-gamma), and not by SymPy
MAX_EXACT_ARG = 4096
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


def _sized(q: Fraction) -> Fraction:
    if max(q.numerator.bit_length(), q.denominator.bit_length()) > MAX_EXACT_BITS:
        raise ExprError(_too_big())
    return q


def _too_big() -> str:
    return (f"a value exceeds the size limit of claims (numbers below 2^{MAX_EXACT_BITS}, "
            f"exact ones with at most {MAX_EXACT_BITS}-bit numerator and denominator, about "
            f"{int(MAX_EXACT_BITS * 0.30103):,} digits)")


def _power(a: Fraction, n: int) -> Fraction:
    """a^n exactly, refused before computing when it would exceed MAX_EXACT_BITS."""
    size = max(a.numerator.bit_length(), a.denominator.bit_length()) - 1
    if size > 0 and abs(n) * size > MAX_EXACT_BITS:
        raise ExprError(_too_big())
    return _sized(a ** n)


class Undecided(Exception):
    """A quantity inside the expression is inconclusive or not applicable."""

    def __init__(self, status: str, why: str):
        super().__init__(why)
        self.status, self.why = status, why


# ------------------------------------------------------------------ parsing
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


# the four field operations, shared by the exact, ball and SymPy evaluations
_FIELD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b}


# ------------------------------------------------------------------ exact values
def exact(node: Node, env: dict):
    """The exact rational value (or string) of ``node`` when it has one (numbers, bound
    exact names, + - * / and integer powers), else None."""
    k = node.kind
    if k == "num":
        return node.value
    if k == "str":
        return node.value
    if k == "name":
        v = env.get(node.value)
        return v if isinstance(v, (Fraction, str)) else None
    if k == "neg":
        x = exact(node.args[0], env)
        return -x if isinstance(x, Fraction) else None
    if k == "bin":
        a, b = exact(node.args[0], env), exact(node.args[1], env)
        if not (isinstance(a, Fraction) and isinstance(b, Fraction)):
            return None
        op = node.value
        if op in _FIELD:
            return None if op == "/" and b == 0 else _sized(_FIELD[op](a, b))
        if b.denominator == 1 and not (a == 0 and b < 0):
            return _power(a, int(b))
        return None
    return None


def check_sizes(node: Node, env: dict, top: bool = True):
    """Refuse (ExprError, one line) an expression any of whose exact sub-values, inside
    function and quantity arguments too, would exceed MAX_EXACT_BITS: checked when a claim
    is loaded, before anything is evaluated.  ``exact`` of a maximal call-free subtree visits
    all of it once; the arguments of the calls below it are checked the same way."""
    if node.kind == "call":
        for a in (*node.args, *(v for _, v in node.kwargs)):
            check_sizes(a, env)
        return
    if top:
        exact(node, env)
    for a in node.args:
        check_sizes(a, env, top=False)


# ------------------------------------------------------------------ ball evaluation
def iv_arb(iv: Interval) -> arb:
    """A ball containing the closed interval [lower, upper]."""
    if not iv.finite:
        return arb("nan")
    m = to_arb((iv.lower + iv.upper) / 2)
    r = to_arb((iv.upper - iv.lower) / 2)
    return m + arb(0, r.upper())


def value_arb(v) -> arb:
    if isinstance(v, Fraction):
        return to_arb(v)
    if isinstance(v, tuple):                         # a box (lower, upper)
        return iv_arb(Interval(v[0], v[1]))
    if isinstance(v, arb):
        return v
    raise ExprError(f"not a number: {v!r:.40}")


def evaluate(node: Node, env: dict, prec: int, max_prec: int) -> arb:
    """An Arb ball enclosing the value of ``node`` for every value of the bound names (a
    name bound to a pair (lo, hi) ranges over [lo, hi])."""
    with ctx.workprec(prec):
        return _ev(node, env, prec, max_prec)


def _ev(node, env, prec, max_prec) -> arb:
    k = node.kind
    if k == "num":
        return to_arb(node.value)
    if k == "str":
        raise ExprError(f"the string \"{node.value}\" is not a number")
    if k == "name":
        if node.value == "pi":
            return arb.pi()
        if node.value == "e":
            return arb(1).exp()
        if node.value not in env:
            raise ExprError(f"unbound name {node.value!r} (bind it in args, cases, defaults "
                            "or over)")
        return value_arb(env[node.value])
    if k == "neg":
        return -_ev(node.args[0], env, prec, max_prec)
    if k == "bin":
        a, b = _ev(node.args[0], env, prec, max_prec), _ev(node.args[1], env, prec, max_prec)
        if node.value in _FIELD:
            return _ball_sized(_FIELD[node.value](a, b))
        e = exact(node.args[1], env)
        if isinstance(e, Fraction) and e.denominator == 1 and abs(e) <= MAX_EXACT_BITS:
            return _ball_sized(a ** int(e))
        return _ball_sized((b * a.log()).exp())
    if node.value in FUNCTIONS:
        xs = [_ev(a, env, prec, max_prec) for a in node.args]
        return _ball_sized(_function(node.value, xs, node, env))
    return _quantity(node, env, prec, max_prec)


def _ball_sized(x: arb) -> arb:
    """Refuse (ExprError) a value of magnitude 2^MAX_EXACT_BITS or more: the same size limit
    as for exact values, checked on every result of + - * / ^ and of the functions
    (binomial(10^6, 5 10^5) is about 2^999987: refused, not carried into the reports)."""
    if x.is_finite():
        for a in (x.mid(), x.rad()):
            m, e = a.man_exp()
            if m != 0 and int(e) + int(m).bit_length() > MAX_EXACT_BITS:
                raise ExprError(_too_big())
    return x


def _function(name, xs, node, env) -> arb:
    x = xs[0]
    if name == "sqrt":
        return x.sqrt()
    if name == "exp":
        return x.exp()
    if name == "log":
        return x.log()
    if name == "Phi":
        return (1 + (x / arb(2).sqrt()).erf()) / 2
    if name == "erf":
        return x.erf()
    if name == "erfc":
        return x.erfc()
    if name == "gamma":
        return x.gamma()
    if name == "zeta":
        return x.zeta()
    if name == "abs":
        return abs(x)
    if name == "binomial":
        n, kk = exact(node.args[0], env), exact(node.args[1], env)
        if isinstance(n, Fraction) and isinstance(kk, Fraction) and n.denominator == 1 \
                and kk.denominator == 1 and 0 <= kk <= n <= MAX_EXACT_ARG:
            import math
            return arb(math.comb(int(n), int(kk)))
        return (xs[0] + 1).gamma() / ((xs[1] + 1).gamma() * (xs[0] - xs[1] + 1).gamma())
    out = xs[0]
    for y in xs[1:]:
        out = out.min(y) if name == "min" else out.max(y)
    return out


def _quantity(node, env, prec, max_prec) -> arb:
    """A registry quantity: its keyword arguments exact (or, for quantities with a ball
    evaluator, balls); names missing from the call are taken from the bound names."""
    from verifier.claims import quantities as Q
    from verifier.core.arith import Tri, frac_str
    q = Q.QUANTITIES[node.value]
    raw, balls = {}, {}
    given = dict(node.kwargs)
    for name in q.all_args():
        if name in given:
            sub = given[name]
        elif name in env:
            sub = Node("name", name)
        else:
            continue
        v = exact(sub, env)
        if v is None:
            balls[name] = _ev(sub, env, prec, max_prec)
            raw[name] = None
        else:
            raw[name] = v if isinstance(v, str) else frac_str(v)
    if balls:
        if q.ball is None:
            raise ExprError(f"quantity {q.name} needs exact arguments (it cannot be evaluated "
                            f"over a range of {', '.join(sorted(balls))})")
        parsed = q.parse_args({k: v for k, v in raw.items() if v is not None}, q.name,
                              partial=True)
        return q.ball({**parsed, **balls}, prec)
    parsed = q.parse_args(raw, f"quantity {q.name}")
    ev = q.evaluate(parsed, prec, max_prec)
    if ev.status == "inconclusive":
        raise Undecided("inconclusive", f"{q.name}: {ev.failed}")
    if ev.applicable is Tri.FAILS:
        raise Undecided("not-applicable", f"{q.name}: {ev.failed}")
    if ev.applicable is not Tri.HOLDS or not ev.value.finite:
        return arb("nan")
    return iv_arb(ev.value)


# ------------------------------------------------------------------ exact algebra
def to_sympy(node: Node, env: dict):
    """The SymPy expression of ``node`` (bound exact names substituted, others symbols);
    None when it calls a quantity (no closed form) or uses a string."""
    import sympy as sp
    k = node.kind
    if k == "num":
        return sp.Rational(node.value.numerator, node.value.denominator)
    if k == "str":
        return None
    if k == "name":
        if node.value == "pi":
            return sp.pi
        if node.value == "e":
            return sp.E
        v = env.get(node.value)
        if isinstance(v, Fraction):
            return sp.Rational(v.numerator, v.denominator)
        return sp.Symbol(node.value, positive=True)
    if k == "neg":
        x = to_sympy(node.args[0], env)
        return None if x is None else -x
    if k == "bin":
        a, b = to_sympy(node.args[0], env), to_sympy(node.args[1], env)
        if a is None or b is None:
            return None
        if node.value in _FIELD:
            return _FIELD[node.value](a, b)
        if b.is_number and abs(b) > MAX_EXACT_ARG:     # no exact algebra on huge powers
            return None
        if a.is_Rational and b.is_Integer:              # SymPy would compute it: size first
            _power(Fraction(int(a.p), int(a.q)), int(b))
        return a ** b
    if node.value not in FUNCTIONS:
        return None
    xs = [to_sympy(a, env) for a in node.args]
    if any(x is None for x in xs):
        return None
    if node.value in ("gamma", "binomial", "zeta") and any(
            x.is_number and abs(x) > MAX_EXACT_ARG for x in xs):
        return None           # SymPy would evaluate gamma(10^6)! exactly: numerics only
    f = {"sqrt": sp.sqrt, "exp": sp.exp, "log": sp.log, "erf": sp.erf, "erfc": sp.erfc,
         "gamma": sp.gamma, "zeta": sp.zeta, "abs": sp.Abs,
         "Phi": lambda z: (1 + sp.erf(z / sp.sqrt(2))) / 2}
    if node.value in f:
        return f[node.value](xs[0])
    if node.value == "binomial":
        return sp.binomial(xs[0], xs[1])
    return (sp.Min if node.value == "min" else sp.Max)(*xs)
