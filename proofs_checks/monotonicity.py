"""Monotonicity in M: the facts the certified M_exact bisection relies on
(``verifier.bounds.theorem31_steps._Predicate``).

For all real M >= 3 (hence all integers), all sigma > 0 and coef > 0: each of
T1..T6 decreases in M, and each hypothesis of Theorem 3.1, once true, stays
true as M grows.  Terms are the expressions of ``verifier.symbolic.terms``.
"""
from __future__ import annotations

import sympy as sp

from verifier.symbolic import terms as T31
from .framework import Outcome, all_proved, check, identity, reparametrise, sign_proved
from .tail import denominator_positive

SRC = "Theorem 3.1 of arXiv 2605.06259 v1 (reconstructed, docs/THEORY.md section 3)"
ASSUME = ("M >= 3", "sigma > 0", "coef > 0 (coef_S = (e^{3u}+4)/s2^2 > 0; coef_X = rho3/s2^2 > 0)")
m = sp.Symbol("m", positive=True)  # M = 1 + m in the reparametrisation
ell = sp.Symbol("ell", positive=True)


def decreasing_outcome(term) -> Outcome:
    """d term / dM < 0 for all M > 1, sigma > 0, coef > 0 (via M = 1 + m, e^u = 1 + v)."""
    e = reparametrise(term)
    return sign_proved(sp.diff(e, m), "negative")


def _term_check(i):
    name = f"T{i + 1}"

    @check(f"monotonicity.{name}-decreases-in-M", f"{name} decreases in M.",
           f"d{name}/dM < 0 for M > 1, sigma > 0", "M, sigma, coef", ASSUME,
           "exact algebra: derivative in m (M = 1 + m, e^u = 1 + v, all positive); its sign "
           "from the positivity of every factor", SRC)
    def _run():
        return decreasing_outcome(T31.terms()[i])
    return _run


for _i in range(5):
    _term_check(_i)


@check("monotonicity.T6-decreases-in-M", "T6 decreases in M.",
       "T6 = 4.52 M^{-25/24} / D(ln M), D(l) = 2.88 sqrt(l) - 2.41/sqrt(l): D' > 0 and D > 0 for "
       "M >= 3, so 1/D(ln M) and M^{-25/24} are positive and decreasing, and so is their product",
       "M", ("M >= 3",),
       "exact algebra: D'(l) > 0 for l > 0; D > 0 for M >= 3 (check tail.denominator-positive); "
       "d/dM M^{-25/24} < 0", SRC)
def t6_decreasing():
    D = T31.T6_A * sp.sqrt(ell) - T31.T6_B / sp.sqrt(ell)
    T6 = T31.terms()[5]
    return all_proved([
        ("T6 = 4.52 M^{-25/24} / D(ln M)",
         identity(T6, T31.T6_NUM * T31.M ** sp.Rational(-25, 24) / D.subs(ell, sp.log(T31.M)),
                  [{T31.M: 5}])),
        ("D' > 0", sign_proved(sp.diff(D, ell), "positive")),
        ("D > 0 for M >= 3", denominator_positive()),
        ("d/dM M^{-25/24} < 0", sign_proved(sp.diff((1 + m) ** sp.Rational(-25, 24), m),
                                            "negative")),
    ])


@check("monotonicity.condition-2-at-delta-rhs-persists-in-M",
       "Condition (2) taken at delta = delta_rhs(M), once true, stays true as M grows.",
       "g(M, delta) = 1/2 - B coef mu(M) - delta - Phi(-s2/2): dg/dM > 0 at fixed delta, "
       "dg/ddelta = -1, and delta_rhs decreases in M, so d/dM g(M, delta_rhs(M)) = dg/dM - "
       "delta_rhs'(M) > 0", "M, sigma, coef", ASSUME,
       "exact algebra: the chain rule with the signs of each factor; the M_certified search "
       "(verifier.bounds.theorem31_steps, reading 'theorem') and the calibration of steps rely on it", SRC)
def condition_2_at_delta_rhs_persists():
    H = T31.hypotheses()
    h3 = reparametrise(H["validity_condition_2"])
    return all_proved([
        ("dg/dM > 0 at fixed delta", sign_proved(sp.diff(h3, m), "positive")),
        ("dg/ddelta = -1", identity(sp.diff(H["validity_condition_2"], T31.delta),
                                    sp.Integer(-1), [])),
        ("delta_rhs decreases", all_proved(
            [(f"T{i + 1}", decreasing_outcome(T31.terms()[i])) for i in range(5)]
            + [("T6", t6_decreasing())])),
    ])


@check("monotonicity.hypotheses-persist-in-M",
       "Each hypothesis of Theorem 3.1 and the target condition, once true, stay true as M grows.",
       "M >= 3 persists; d/dM (sigma^2 ln M - 3) = sigma^2/M > 0; d/dM [1/2 - B coef mu - delta - "
       "Phi(-s2/2)] = -B coef dmu/dM > 0; delta - delta_rhs increases (every term decreases)",
       "M, sigma, coef, delta", ASSUME + ("0 < delta < 1",),
       "exact algebra: derivatives in M and their signs; uses the six monotonicity.T*-decreases "
       "checks", SRC)
def hypotheses_persist():
    H = T31.hypotheses()
    h2 = sp.diff(H["sigma_at_least_sqrt_3_over_ln_M"], T31.M)
    h3 = reparametrise(H["validity_condition_2"])
    return all_proved([
        ("d/dM (sigma^2 ln M - 3) = sigma^2/M", identity(h2, T31.M ** -1 * sp.Symbol(
            "sigma", positive=True) ** 2, [])),
        ("sigma^2/M > 0", sign_proved(h2, "positive")),
        ("condition (2) margin increases", sign_proved(sp.diff(h3, m), "positive")),
        ("delta_rhs decreases", all_proved(
            [(f"T{i + 1}", decreasing_outcome(T31.terms()[i])) for i in range(5)]
            + [("T6", t6_decreasing())])),
    ])
