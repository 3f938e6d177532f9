"""Proof-consistency checks: entries with stable ids and three-valued verdicts.

Each check is a ``Check`` (Fungrim-style entry): stable id, statement in
words and in symbols, variables, assumptions, method, source; running it
gives an ``Outcome`` with verdict

- ``proved``: exact symbolic algebra, or a certified interval argument that
  covers the whole stated domain;
- ``refuted``: a certified counterexample (numerics may refute);
- ``cited``: the chain is proved except for textbook lemmas it cites (each with its
  reference, via ``cite``): reported and counted apart from ``proved``;
- ``unknown``: neither (a sampled grid never proves);
- ``demonstration``: a labelled numerical illustration, not a proof.

Helpers here are the only ways a check may reach a verdict.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import sympy as sp
from flint import arb, ctx

PROVED, REFUTED, UNKNOWN, DEMONSTRATION = "proved", "refuted", "unknown", "demonstration"
CITED = "cited"


@dataclass(frozen=True)
class Outcome:
    verdict: str
    evidence: str
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    id: str
    group: str
    statement: str
    symbols: str
    variables: str
    assumptions: tuple
    method: str
    source: str
    run: Callable[[], Outcome]
    # the engine's objects the check takes and verifies ("module:attribute", read with
    # ``bound``): the expressions its evaluators are generated from, its constants and
    # helper functions -- never a copy, so that breaking the engine breaks the check
    binds: tuple = ()


REGISTRY: dict[str, Check] = {}


def check(id, statement, symbols, variables, assumptions, method, source, binds=()):
    """Register ``fn() -> Outcome`` as the check ``id`` (ids are unique)."""
    def deco(fn):
        if id in REGISTRY:
            raise ValueError(f"duplicate check id {id}")
        group = id.split(".")[0]
        REGISTRY[id] = Check(id, group, statement, symbols, variables, tuple(assumptions),
                             method, source, fn, tuple(binds))
        fn.check_id = id
        return fn
    return deco


def engine_refs(c: Check) -> tuple:
    """What a check binds: its declared ``binds`` and every engine object its function reads
    directly (``T31.terms``, ``L.s2``, ... as "module:attr", the module one of verifier's)."""
    import inspect
    import re
    import types
    fn = c.run
    out = set(c.binds)
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return tuple(sorted(out))
    for alias, attr in re.findall(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)", src):
        mod = fn.__globals__.get(alias)
        if isinstance(mod, types.ModuleType) and mod.__name__.startswith("verifier.") \
                and hasattr(mod, attr):
            out.add(f"{mod.__name__}:{attr}")
    return tuple(sorted(out))


def bound(name: str):
    """The engine's object ``"package.module:attr.sub"``, looked up when the check runs (a
    check reads what the engine evaluates, including a patched version of it)."""
    import importlib
    mod, attr = name.split(":", 1)
    obj = importlib.import_module(mod)
    for a in attr.split("."):
        obj = getattr(obj, a)
    return obj


def run_check(c: Check) -> tuple[Outcome, float]:
    t = time.perf_counter()
    try:
        out = c.run()
    except Exception as e:  # a crashing check proves nothing
        out = Outcome(UNKNOWN, f"check raised {e.__class__.__name__}: {str(e)[:200]}")
    return out, time.perf_counter() - t


# ---------------------------------------------------------------------------
# identity checking: exact algebra proves, certified numerics refute
# ---------------------------------------------------------------------------
def simplify_zero(expr) -> bool:
    from sympy.codegen.cfunctions import expm1

    e = expr.replace(expm1, lambda z: sp.exp(z) - 1)
    e = sp.expand_func(e)
    for f in (sp.simplify, lambda z: sp.simplify(sp.expand(z)),
              lambda z: sp.simplify(sp.powsimp(sp.expand(z), force=True))):
        if f(e) == 0:
            return True
    return False


def to_arb_code(expr, subs: dict, prec: int = 256) -> arb:
    """Evaluate a SymPy expression at exact rational points in ball arithmetic."""
    from verifier.symbolic.codegen import ArbPrinter
    printer = ArbPrinter()
    code = printer(expr)
    names = {"arb": arb}
    with ctx.workprec(prec):
        K = tuple(eval(c, names) for c in printer.constants)  # noqa: S307 (our own printer output)
        env = {"arb": arb, "K": K}
        for sym, q in subs.items():
            q = Fraction(q)
            env[sym.name] = arb(q.numerator) / q.denominator
        return eval(code, env)  # noqa: S307


def reparametrise(expr):
    """Positive reparametrisation for identities in sigma and M: sigma = u^{-1/2}
    (u > 0), M = 1 + m (m > 0), e^{k u} = (1 + v)^k (v > 0).  Each is a bijection
    of the stated domain, so an identity in (v, m) is the identity in (sigma, M)."""
    from verifier.symbolic import lognormal as L
    from verifier.symbolic import terms as T31
    u = sp.Symbol("u", positive=True)
    m = sp.Symbol("m", positive=True)
    e = expr.subs({L.sigma: 1 / sp.sqrt(u), T31.M: 1 + m})
    return exp_shift(e, u)


def identity(lhs, rhs, sample_points: list[dict]) -> Outcome:
    """lhs == rhs: proved by simplification to 0 (directly, or after the positive
    reparametrisation); refuted by a certified nonzero difference at an exact
    sample point; otherwise unknown."""
    diff = lhs - rhs
    if simplify_zero(diff):
        return Outcome(PROVED, "SymPy reduces lhs - rhs to 0")
    try:
        if simplify_zero(reparametrise(diff)):
            return Outcome(PROVED, "SymPy reduces lhs - rhs to 0 after the positive "
                                   "reparametrisation e^u = 1 + v, M = 1 + m")
    except ValueError:
        pass
    for pt in sample_points:
        try:
            d = to_arb_code(diff, pt)
        except Exception:  # noqa: BLE001
            continue
        if d.is_finite() and not d.contains(0):
            where = ", ".join(f"{k} = {v}" for k, v in pt.items())
            return Outcome(REFUTED, f"lhs - rhs = {d.str(5)} != 0 at {where} (certified)")
    return Outcome(UNKNOWN, "not reduced to 0, and no certified counterexample found")


def certified(cond: bool, what: str, counter: str = "") -> Outcome:
    """A certified comparison of balls: True proves; False with a certified
    opposite comparison refutes (``counter`` says so); otherwise unknown."""
    if cond:
        return Outcome(PROVED, what)
    if counter:
        return Outcome(REFUTED, counter)
    return Outcome(UNKNOWN, f"not decided: {what}")


def cite(lemma: str, reference: str) -> Outcome:
    """A textbook lemma the chain uses without proving it: verdict ``cited``, never
    ``proved`` (the framework's rule: only algebra or a covering certified argument proves)."""
    return Outcome(CITED, f"{lemma} (cited: {reference})", {"cited": [reference]})


def all_proved(parts: list[tuple[str, Outcome]]) -> Outcome:
    """Combine the steps of a chain: proved iff every step is proved; cited iff every step
    is proved or cited and at least one is cited; refuted if a step is refuted."""
    for name, o in parts:
        if o.verdict == REFUTED:
            return Outcome(REFUTED, f"step '{name}': {o.evidence}")
    for name, o in parts:
        if o.verdict not in (PROVED, CITED):
            return Outcome(UNKNOWN, f"step '{name}' not proved: {o.evidence}")
    evidence = "; ".join(f"{n}: {o.evidence}" for n, o in parts)
    refs = [r for _, o in parts if o.verdict == CITED for r in o.details.get("cited", ())]
    if refs:
        return Outcome(CITED, evidence, {"cited": sorted(set(refs))})
    return Outcome(PROVED, evidence)


def _sign(e, want):
    """True / False / None: SymPy's assumptions, then numerator and denominator
    of the expression over a common denominator, each expanded."""
    v = getattr(e, f"is_{want}")
    if v is not None:
        return v
    n, d = sp.fraction(sp.together(e))
    n, d = sp.expand(n), sp.expand(d)
    if d.is_positive:
        return getattr(n, f"is_{want}")
    if d.is_negative:
        flip = {"positive": "negative", "negative": "positive",
                "nonnegative": "nonpositive", "nonpositive": "nonnegative"}[want]
        return getattr(n, f"is_{flip}")
    return None


def exp_shift(expr, u):
    """Reparametrise e^{k u} = (1 + v)^k with v > 0: a bijection of u > 0 onto
    v > 0, so a sign proved for every v > 0 holds for every u > 0 (valid when
    expr depends on u only through exponentials e^{k u})."""
    from sympy.codegen.cfunctions import expm1

    v = sp.Symbol("v", positive=True)
    e = expr.replace(expm1, lambda z: sp.exp(z) - 1)
    e = sp.expand(e, power_exp=True)  # exp(a + b) -> exp(a) exp(b)
    e = e.replace(lambda z: isinstance(z, sp.exp) and sp.simplify(z.args[0] / u).is_Rational,
                  lambda z: (1 + v) ** sp.simplify(z.args[0] / u))
    if e.has(u):
        raise ValueError("expression depends on u other than through e^{ku}")
    return e


def sign_proved(expr, want: str) -> Outcome:
    """Decide the sign of expr ('positive', 'negative', 'nonnegative',
    'nonpositive') for every value allowed by the symbols' assumptions."""
    e = sp.simplify(expr)
    v = _sign(e, want)
    if v is True:
        return Outcome(PROVED, f"{want} for all admissible values: {sp.sstr(e)[:120]}")
    opposite = {"positive": "nonpositive", "negative": "nonnegative",
                "nonnegative": "negative", "nonpositive": "positive"}[want]
    if _sign(e, opposite) is True:
        return Outcome(REFUTED, f"{opposite} for all admissible values: {sp.sstr(e)[:120]}")
    return Outcome(UNKNOWN, f"sign of {sp.sstr(e)[:120]} not decided")
