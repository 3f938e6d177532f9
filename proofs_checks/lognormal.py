"""Lognormal facts of Appendix D.1 (arXiv 2605.06259 v1; docs/THEORY.md section 2).

The expressions are the ones in ``verifier.symbolic.lognormal`` — the same
ones the numeric evaluators are printed from.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from verifier.symbolic import lognormal as L
from .framework import (PROVED, REFUTED, Outcome, all_proved, check, cite, exp_shift, identity,
                        sign_proved, simplify_zero)

SRC = "Appendix D.1 of arXiv 2605.06259 v1 (docs/THEORY.md section 2)"
SIGMA_POINTS = [{L.sigma: Fraction(1, 2)}, {L.sigma: Fraction(7, 5)}, {L.sigma: Fraction(3)}]
ASSUME = ("sigma > 0",)
U = sp.Symbol("u", positive=True)  # u = 1/sigma^2 ranges over (0, inf) as sigma does


def _derived(fn, what) -> Outcome:
    try:
        fn()
    except L.DerivationError as e:
        return Outcome(REFUTED, str(e)[:300])
    return Outcome(PROVED, f"derived with SymPy from the definition and reduced to the stated {what}")


@check("lognormal.mean-one", "The likelihood-ratio summand has mean 1.", "E[Y] = 1",
       "sigma", ASSUME, "exact algebra: Gaussian integral of exp(x/sigma - u/2) phi(x)", SRC)
def mean_one():
    return identity(L.raw_moment(1), sp.Integer(1), SIGMA_POINTS)


@check("lognormal.raw-moments", "Raw moments of the lognormal summand.",
       "E[Y^k] = exp(k (k - 1) u / 2) for every k", "sigma, k", ASSUME + ("k >= 0 integer",),
       "exact algebra: SymPy integrates exp(k x/sigma - k u/2) phi(x) over R for symbolic k", SRC)
def raw_moments():
    return _derived(L.raw_moment_general, "form")


def central_moment_outcome(n: int, stated) -> Outcome:
    """E[(Y - 1)^n] expanded through the derived raw moments, compared with ``stated``."""
    derived = sp.expand(sum(sp.binomial(n, j) * (-1) ** (n - j) * L.raw_moment(j)
                            for j in range(n + 1)))
    return identity(derived, stated, SIGMA_POINTS)


@check("lognormal.central-moments", "Central moments mu2, mu3, mu4 of Y.",
       "mu2 = s2, mu3 = (e^u + 2) s2^2, mu4 = (e^{4u} + 2e^{3u} + 3e^{2u} - 3) s2^2",
       "sigma", ASSUME, "exact algebra: binomial expansion of E[(Y-1)^n] through E[Y^k]", SRC)
def central_moments():
    eu = sp.exp(L.u)
    stated = {2: L.s2, 3: (eu + 2) * L.s2**2,
              4: (sp.exp(4 * L.u) + 2 * sp.exp(3 * L.u) + 3 * sp.exp(2 * L.u) - 3) * L.s2**2}
    return all_proved([(f"mu{n}", central_moment_outcome(n, stated[n])) for n in (2, 3, 4)])


@check("lognormal.partial-moment", "Partial moments of the lognormal (Gaussian integral up to b).",
       "int_{-inf}^{b} e^{k x/sigma - k c u/2} phi(x) dx = Phi(b - k/sigma) e^{k(k-c)u/2}",
       "sigma, k, c, b", ASSUME + ("k = 0, 1, 2, ... (a non-negative integer; the engine uses "
                                   "k = 0..3)", "c, b real"),
       "exact algebra: SymPy integration, difference reduced to 0", SRC)
def partial_moment():
    return _derived(L.partial_moment_general, "identity")


@check("lognormal.upper-partial-moments",
       "Upper-tail partial moments in complement form (the exact-TV cells).",
       "E[Y^n 1{X >= b}] = e^{n(n-1)u/2} erfc((b - n/sigma)/sqrt 2)/2, n = 0, 1",
       "sigma, b", ASSUME + ("b real",),
       "exact algebra: E[Y^n] minus the partial-moment identity, difference reduced to 0",
       "docs/THEORY.md section 2 (used by verifier/bounds/exact_tv/one_epoch.py)")
def upper_partial_moments():
    return all_proved([(f"n = {n}", _derived(lambda n=n: L.upper_partial_moment(n), "identity"))
                       for n in (0, 1)])


@check("lognormal.rho3-closed-form",
       "The exact third absolute central moment (Proposition D.2) from its integral definition.",
       "rho3 = E|Y-1|^3 = e^{3u}(1 - 2Phi(-5/(2sigma))) - 3e^u(1 - 2Phi(-3/(2sigma))) "
       "+ 4(1 - 2Phi(-1/(2sigma)))", "sigma", ASSUME,
       "exact algebra: |t|^3 = t^3 + 2(-t)^3 1{t<0}; Y < 1 iff X < 1/(2 sigma) (log Y increasing "
       "in X); (1-Y)^3 expanded and each power integrated by the partial-moment identity",
       "Proposition D.2 of arXiv 2605.06259 v1")
def rho3_closed_form():
    return _derived(L.rho3, "closed form")


@check("lognormal.simplification-22", "Simplification (22): the third absolute moment bound.",
       "rho3 <= e^{3u} + 4  (so rho3 / s2^2 <= coef_S)", "sigma", ASSUME,
       "exact algebra: rho3 - mu3 = 2 E[(1-Y)^3 1{Y<1}] (derived); 0 <= (1-y)^3 <= 1 for "
       "0 < y < 1; so rho3 <= mu3 + 2 = e^{3u} - 3e^u + 4; and (e^{3u} + 4) - (mu3 + 2) = "
       "3e^u > 0", "equation (22) of arXiv 2605.06259 v1")
def simplification_22():
    w = sp.Symbol("w", positive=True)  # y = 1/(1 + w) ranges over (0, 1)
    one_minus_y = sp.simplify(1 - 1 / (1 + w))
    mu3 = L.central_moments()[3]
    mu3_exp = sp.exp(3 * L.u) - 3 * sp.exp(L.u) + 2
    gap = sp.exp(3 * L.u) + 4 - (mu3_exp + 2)
    return all_proved([
        ("rho3 = mu3 + 2 E[(1-Y)^3 1{Y<1}]", _derived(L.rho3, "closed form")),
        ("(1-y)^3 >= 0 on (0,1)", sign_proved(one_minus_y**3, "nonnegative")),
        ("(1-y)^3 <= 1 on (0,1)", sign_proved(1 - one_minus_y**3, "nonnegative")),
        ("mu3 = e^{3u} - 3e^u + 2", identity(mu3, mu3_exp, SIGMA_POINTS)),
        ("(e^{3u} + 4) - (mu3 + 2) = 3e^u > 0", sign_proved(gap.subs(L.u, U), "positive")),
    ])


@check("lognormal.coef-X-le-coef-S", "The exact factor never exceeds the simplified one.",
       "coef_X(sigma) <= coef_S(sigma) for all sigma > 0", "sigma", ASSUME,
       "reduction: both are divided by s2^2 > 0, so this is simplification (22)", SRC)
def coef_x_le_coef_s():
    ratio = sp.simplify(L.coef_simplified() * L.s2**2 - (sp.exp(3 * L.u) + 4))
    return all_proved([
        ("coef_S s2^2 = e^{3u} + 4", Outcome(PROVED, "exact") if simplify_zero(ratio)
         else Outcome(REFUTED, "coef_S s2^2 != e^{3u} + 4")),
        ("s2 > 0", sign_proved(exp_shift(sp.exp(U) - 1, U), "positive")),
        ("rho3 <= e^{3u} + 4", simplification_22()),
        ("the engine's coef_X is rho3/s2^2", identity(L.coef_rho3(), L.rho3() / L.s2 ** 2,
                                                      SIGMA_POINTS)),
    ])


@check("lognormal.coef-S-asymptotic", "Large-sigma growth of the simplified factor.",
       "coef_S(sigma) / (5 sigma^4) -> 1 as sigma -> infinity", "sigma", ASSUME,
       "exact algebra: SymPy limit with t = 1/sigma -> 0+", SRC)
def coef_s_asymptotic():
    t = sp.Symbol("t", positive=True)
    lim = sp.limit(L.coef_simplified().subs(L.sigma, 1 / t) * t**4 / 5, t, 0, "+")
    return Outcome(PROVED, "limit = 1") if lim == 1 else Outcome(REFUTED, f"limit = {lim}")


@check("lognormal.coef-X-asymptotic", "Large-sigma growth of the exact factor.",
       "coef_X(sigma) / (sqrt(8/pi) sigma) -> 1 as sigma -> infinity", "sigma", ASSUME,
       "exact algebra: Taylor series in t = 1/sigma at 0 of the analytic functions rho3 and s2 "
       "(rho3 = sqrt(8/pi) t^3 + O(t^5), s2^2 = t^4 + O(t^6)), then the limit", SRC)
def coef_x_asymptotic():
    t = sp.Symbol("t", positive=True)
    r = sp.series(L.rho3().subs(L.sigma, 1 / t), t, 0, 6).removeO()
    s2 = sp.series(sp.exp(t**2) - 1, t, 0, 8).removeO()
    lim = sp.limit(sp.simplify(r / s2**2 * t / sp.sqrt(8 / sp.pi)), t, 0, "+")
    lead = sp.simplify(r.coeff(t, 3) - sp.sqrt(8 / sp.pi))
    if lim == 1 and lead == 0:
        return Outcome(PROVED, "rho3 leading term sqrt(8/pi) t^3; limit = 1")
    return Outcome(REFUTED, f"limit = {lim}, leading coefficient offset {lead}")


@check("lognormal.coef-lyapunov-lower-bound", "Both factors are at least s2^{-1/2}.",
       "coef_S >= coef_X = rho3/s2^2 >= s2^{-1/2}, since rho3 = E|Y-1|^3 >= (E(Y-1)^2)^{3/2} = s2^{3/2}",
       "sigma", ASSUME,
       "Lyapunov's inequality (Jensen for the convex t -> t^{3/2} applied to (Y-1)^2) with "
       "mu2 = s2 (lognormal.central-moments); coef_S >= coef_X is lognormal.coef-X-le-coef-S; "
       "the exponent identity (s2^{3/2})/s2^2 = s2^{-1/2} by exact algebra. Used by the sigma "
       "calibration (verifier.deploy.sigma) to bound delta_rhs from below on wide boxes",
       "Lyapunov's inequality; " + SRC)
def coef_lyapunov():
    return all_proved([
        ("mu2 = s2", central_moment_outcome(2, L.s2)),
        ("s2^{3/2} / s2^2 = s2^{-1/2}", identity(L.s2 ** sp.Rational(3, 2) / L.s2**2,
                                                 L.s2 ** sp.Rational(-1, 2), SIGMA_POINTS)),
        ("Lyapunov", cite("E|Z|^3 >= (E Z^2)^{3/2} (Lyapunov's inequality: Jensen for the "
                          "convex t -> t^{3/2})", "Lyapunov's inequality; e.g. Billingsley, "
                          "Probability and Measure, 3rd ed., Section 5 (inequalities)")),
        ("coef_S >= coef_X", coef_x_le_coef_s()),
    ])
