"""Taylor remainders and the assembly of T3..T5 (Appendix E.4 of arXiv 2605.06259 v1).

The T-terms are the expressions of ``verifier.symbolic.terms`` (the ones
the numeric evaluators are printed from).
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from verifier.symbolic import lognormal as L
from verifier.symbolic import terms as T31
from .framework import (PROVED, REFUTED, UNKNOWN, Outcome, all_proved, check, identity,
                        to_arb_code)

SRC = "Appendix E.4 of arXiv 2605.06259 v1 (docs/THEORY.md section 3)"
x = sp.Symbol("x", real=True)
Phi = (1 + sp.erf(x / sp.sqrt(2))) / 2
phi = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
POINTS = [{L.sigma: Fraction(1, 2), T31.M: 7}, {L.sigma: Fraction(3, 2), T31.M: 1000},
          {L.sigma: Fraction(4), T31.M: 3}]


def sup_abs_on_R(f) -> tuple[Outcome, object]:
    """sup |f| over R for a smooth f that tends to 0 at +-infinity: attained at a
    critical point; critical points solved exactly; values compared in certified
    ball arithmetic.  Returns (outcome, (argmax set, max value))."""
    crit = sp.solve(sp.diff(f, x), x)
    limits = [sp.limit(f, x, sp.oo), sp.limit(f, x, -sp.oo)]
    if any(lim != 0 for lim in limits):
        return Outcome(UNKNOWN, f"limits at infinity {limits} are not 0"), None
    if not crit or any(not c.is_real for c in crit):
        return Outcome(UNKNOWN, f"critical points not all real: {crit}"), None
    vals = {c: sp.Abs(sp.simplify(f.subs(x, c))) for c in crit}
    balls = {c: to_arb_code(sp.Abs(f.subs(x, c)).simplify(), {}) for c in crit}
    best = max(vals, key=lambda c: float(sp.N(vals[c], 30)))
    # the maximum is certified when its value exceeds every other critical value
    others = [c for c in crit if sp.simplify(vals[c] - vals[best]) != 0]
    ok = all(balls[best] > balls[c] for c in others)
    ties = sorted((c for c in crit if c not in others), key=lambda z: float(z))
    if not ok:
        return Outcome(UNKNOWN, "critical values not separated"), None
    return Outcome(PROVED, f"critical points {sorted(crit, key=float)}; max |f| at {ties}"), (
        ties, sp.simplify(vals[best]))


@check("taylor.phi2-sup", "The second derivative of Phi is bounded by 1/sqrt(2 pi e).",
       "sup_x |Phi''(x)| = sup_x |x phi(x)| = 1/sqrt(2 pi e), attained at x = +-1", "x",
       ("x real",), "exact algebra: Phi'' = -x phi; critical points of x phi solved exactly "
       "(x = +-1); limits 0 at +-inf; critical values compared", SRC)
def phi2_sup():
    d2 = sp.diff(Phi, x, 2)
    form = identity(d2, -x * phi, [{x: Fraction(1, 3)}])
    sup, info = sup_abs_on_R(d2)
    if sup.verdict != PROVED:
        return sup
    args, value = info
    want = 1 / sp.sqrt(2 * sp.pi * sp.E)
    ok_val = sp.simplify(value - want) == 0
    ok_args = sorted(args, key=float) == [-1, 1]
    return all_proved([("Phi'' = -x phi", form), ("sup", sup),
                       ("value and points", Outcome(PROVED if ok_val and ok_args else REFUTED,
                                                    f"max {value} at {args}"))])


@check("taylor.phi3-form", "Third derivative of Phi.", "Phi'''(x) = (x^2 - 1) phi(x)", "x",
       ("x real",), "exact algebra: SymPy differentiation", SRC)
def phi3_form():
    return identity(sp.diff(Phi, x, 3), (x**2 - 1) * phi, [{x: Fraction(1, 3)}])


@check("taylor.phi5-max-at-0", "|Phi^(5)| is largest at 0.",
       "sup_x |Phi^(5)(x)| = |Phi^(5)(0)| = 3/sqrt(2 pi), Phi^(5) = (x^4 - 6x^2 + 3) phi", "x",
       ("x real",), "exact algebra: critical points x = 0, x^2 = 5 +- sqrt(10) solved exactly; "
       "limits 0 at +-inf; critical values compared in certified ball arithmetic", SRC)
def phi5_max_at_0():
    d5 = sp.diff(Phi, x, 5)
    form = identity(d5, (x**4 - 6 * x**2 + 3) * phi, [{x: Fraction(1, 3)}])
    sup, info = sup_abs_on_R(d5)
    if sup.verdict != PROVED:
        return sup
    args, value = info
    ok = args == [0] and sp.simplify(value - 3 / sp.sqrt(2 * sp.pi)) == 0
    return all_proved([("form", form), ("sup", sup),
                       ("max at 0", Outcome(PROVED if ok else REFUTED, f"max {value} at {args}"))])


def e4_bracket(mu_expr=None):
    """The Appendix E.4 second-order bracket (docs/THEORY.md section 3), kappa = s2/2."""
    Mm1 = T31.M - 1
    kappa = L.s2 / 2
    eu = sp.exp(L.u)
    return ((sp.exp(2 * L.u) + eu - 1) / Mm1 + kappa * sp.sqrt(L.s2) / Mm1 ** sp.Rational(3, 2)
            + kappa**2 / (4 * Mm1**2)) / sp.sqrt(8 * sp.E * sp.pi)


def t3_split(terms):
    """T3 = A mu^2 + C mu^2 with A = 1/(4 sqrt(2 pi)); returns (A mu^2, T3 - A mu^2)."""
    A = sp.Rational(1, 4) / sp.sqrt(2 * sp.pi)
    first = A * T31.mu**2
    return first, terms[2] - first


def e4_bracket_outcome(terms) -> Outcome:
    _, rest = t3_split(terms)
    return identity(rest + terms[3] + terms[4], e4_bracket(), POINTS)


def e4_kappa_outcome(terms) -> Outcome:
    first, _ = t3_split(terms)
    kappa = L.s2 / 2
    return identity(kappa / (T31.M - 1) / sp.sqrt(8 * sp.pi), first, POINTS)


@check("taylor.E4-bracket", "The second-order bracket of Appendix E.4 is T3's second part + T4 + T5.",
       "{(e^{2u} + e^u - 1)/(M-1) + kappa s2^{1/2}/(M-1)^{3/2} + kappa^2/(4(M-1)^2)}/sqrt(8 e pi) "
       "= (1/(2 sqrt(2 e pi)))(1 + e^u/(1 - e^{-u})) mu^2 + T4 + T5,  kappa = s2/2",
       "sigma, M", ("sigma > 0", "M >= 3"), "exact algebra: SymPy simplification of the difference",
       SRC)
def e4_bracket_check():
    return e4_bracket_outcome(T31.terms())


@check("taylor.E4-kappa-term", "The first-order kappa term of Appendix E.4 is T3's first part.",
       "(1/sqrt(8 pi)) kappa/(M-1) = mu^2/(4 sqrt(2 pi)),  kappa = s2/2, mu^2 = s2/(M-1)",
       "sigma, M", ("sigma > 0", "M >= 3"), "exact algebra: SymPy simplification", SRC)
def e4_kappa_check():
    return e4_kappa_outcome(T31.terms())


@check("taylor.kappa-over-M", "kappa/(M-1) = mu^2/2.", "kappa/(M - 1) = mu^2 / 2", "sigma, M",
       ("sigma > 0", "M >= 3"), "exact algebra", SRC)
def kappa_over_m():
    return identity((L.s2 / 2) / (T31.M - 1), T31.mu**2 / 2, POINTS)
