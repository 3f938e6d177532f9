"""The expressions of claims files, format ``verifier-claims/2``.

A small grammar parsed by recursive descent (grammar.py) (never ``eval``, never SymPy's string
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

from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import Interval, to_arb
from verifier.claims.grammar import (CONSTANTS, FUNCTIONS, GRAMMAR_HELP, MAX_DEPTH, MAX_LEN,
                                     ExprError, Node, calls, free_names, parse)

# the grammar's names are part of this module's face (claims files' users read X.parse, ...)
__all__ = ["CONSTANTS", "FUNCTIONS", "GRAMMAR_HELP", "MAX_DEPTH", "MAX_LEN", "MAX_EXACT_BITS",
           "MAX_EXACT_ARG", "ExprError", "Node", "Undecided", "calls", "free_names", "parse",
           "exact", "check_sizes", "iv_arb", "value_arb", "evaluate", "to_sympy"]

# exact rationals in claims (numbers, + - * /, integer powers, the arguments of quantities):
# numerator and denominator at most this many bits (about 19,700 digits); a larger exact
# value is refused in one line before it is computed (a power's size is estimated first)
MAX_EXACT_BITS = 1 << 16
# binomial(n, k) and gamma(n) are computed exactly (or symbolically by SymPy) only for
# arguments up to this size; beyond it, in ball arithmetic (log-gamma), and not by SymPy
MAX_EXACT_ARG = 4096
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
    evaluator, balls; for quantities monotone in an argument, ranges: ``_monotone_range``);
    names missing from the call are taken from the bound names."""
    from verifier.claims import quantities as Q
    from verifier.claims.monotone import MONOTONE
    from verifier.core.arith import ball_bounds, frac_str, representable
    q = Q.QUANTITIES[node.value]
    raw, balls, ends = {}, {}, {}
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
            box = env.get(sub.value) if sub.kind == "name" else None
            ends[name] = box if isinstance(box, tuple) else (
                ball_bounds(balls[name]) if representable(balls[name]) else None)
        else:
            raw[name] = v if isinstance(v, str) else frac_str(v)
    if balls:
        mono = MONOTONE.get(q.name, {})
        if q.ball is None and set(balls) <= set(mono) and None not in ends.values():
            return _monotone_range(q, raw, ends, mono, prec, max_prec)
        if q.ball is None:
            raise ExprError(f"quantity {q.name} needs exact arguments (it cannot be evaluated "
                            f"over a range of {', '.join(sorted(balls))})")
        parsed = q.parse_args({k: v for k, v in raw.items() if v is not None}, q.name,
                              partial=True)
        return q.ball({**parsed, **balls}, prec)
    return _exact_quantity(q, raw, prec, max_prec)


def _exact_quantity(q, raw: dict, prec: int, max_prec: int) -> arb:
    from verifier.core.arith import Tri
    parsed = q.parse_args(raw, f"quantity {q.name}")
    ev = q.evaluate(parsed, prec, max_prec)
    if ev.status == "inconclusive":
        raise Undecided("inconclusive", f"{q.name}: {ev.failed}")
    if ev.applicable is Tri.FAILS:
        raise Undecided("not-applicable", f"{q.name}: {ev.failed}")
    if ev.applicable is not Tri.HOLDS or not ev.value.finite:
        return arb("nan")
    return iv_arb(ev.value)


def _monotone_range(q, raw: dict, ends: dict, mono: dict, prec: int, max_prec: int) -> arb:
    """A quantity over ranges of arguments in each of which it is monotone (claims/monotone.py
    says why for each: post-processing, definitions, van Erven & Harremoës 2014 Theorem 3):
    its values lie between its certified bracket's lower end at the corner where it is
    smallest and the upper end at the corner where it is largest (each range's exact ends:
    the box's own where the argument is a box name).  A ball covering that; the extremum
    search (extremum.py) narrows it by splitting the box, so compound expressions of such
    calls have certified extrema too."""
    from verifier.claims.monotone import UP
    from verifier.core.arith import ball_bounds, frac_str, representable

    def at(largest: bool) -> arb:
        args = dict(raw)
        for name, (lo, hi) in ends.items():
            args[name] = frac_str(hi if (mono[name] == UP) == largest else lo)
        return _exact_quantity(q, args, prec, max_prec)
    small, large = at(False), at(True)
    if not (representable(small) and representable(large)):
        return arb("nan")
    return iv_arb(Interval(ball_bounds(small)[0], ball_bounds(large)[1]))


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
