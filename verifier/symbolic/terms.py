"""Theorem 3.1 of arXiv 2605.06259 v1 as SymPy expressions (RECONSTRUCTED).

The public text of the theorem is lossy; the six terms, the validity
condition (2) and the closed form (4) below are the reconstruction of
``docs/THEORY.md`` section 3, which reproduces all 30 cells of
Table 1.  Reports say so wherever these expressions are used.

Symbols: ``M`` steps per epoch (integer >= 3), ``sigma`` noise multiplier,
``coef`` the Berry-Esseen factor (coef_S or coef_X), ``delta`` the target.
Decimal constants of the paper enter as exact rationals.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.cfunctions import expm1

from verifier.symbolic.lognormal import DerivationError, is_zero, s2, sigma, u
M = sp.Symbol("M", positive=True)
coef = sp.Symbol("coef", positive=True)
delta = sp.Symbol("delta", positive=True)

# Berry-Esseen constant for i.i.d. summands, Shevtsova 2011 (arXiv 1111.6554).
B = sp.Rational("0.4748")
# Printed constants of T6 (Theorem 3.1, arXiv 2605.06259 v1): 4.52, 2.88, 2.41.
T6_NUM = sp.Rational("4.52")
T6_A = sp.Rational("2.88")
T6_B = sp.Rational("2.41")

SQRT_2PI = sp.sqrt(2 * sp.pi)
SQRT_2EPI = sp.sqrt(2 * sp.E * sp.pi)

mu = sp.sqrt(s2 / (M - 1))           # mu = sqrt(s2 / (M - 1)), docs/THEORY.md section 3
kappa = s2 / 2                        # kappa = s2 / 2 (Lemma E.1, reconstructed)
one_minus_exp_neg_u = -expm1(-u)      # 1 - e^{-u}, written without cancellation


@lru_cache(maxsize=None)
def terms():
    """(T1, ..., T6) of Theorem 3.1 (reconstructed, docs/THEORY.md section 3)."""
    return terms_with(mu)


def terms_with(mu):
    """The six terms built from a given expression for mu (the proof checks'
    negative controls pass a mutated mu, e.g. one without its square root)."""
    T1 = 2 * B * coef * mu                                  # two Berry-Esseen errors
    T2 = mu / SQRT_2PI                                      # leading separation
    T3 = (sp.Rational(1, 4) / SQRT_2PI
          + (1 / (2 * SQRT_2EPI)) * (1 + sp.exp(u) / one_minus_exp_neg_u)) * mu**2
    T4 = mu**3 / (4 * SQRT_2EPI)
    T5 = mu**4 / (32 * SQRT_2EPI)
    L = sp.log(M)
    T6 = T6_NUM / (T6_A * sp.sqrt(L) - T6_B / sp.sqrt(L)) * M ** sp.Rational(-25, 24)
    return (T1, T2, T3, T4, T5, T6)


def delta_rhs():
    """delta_rhs(M, sigma, coef) = T1 + ... + T6."""
    return sp.Add(*terms())


def berry_esseen_eps():
    """eps = B coef mu: the Berry-Esseen error with M - 1 summands (conservative)."""
    return B * coef * mu


@lru_cache(maxsize=None)
def hypotheses():
    """Each hypothesis of Theorem 3.1 as an expression g with 'holds' <=> g >= 0.

    1. M >= 3;
    2. sigma >= sqrt(3 / ln M), written sigma^2 ln M - 3 >= 0 (both sides
       positive for M >= 3);
    3. validity condition (2), RECONSTRUCTED from Lemma E.1:
       Phi(-kappa) <= 1/2 - eps - delta, with Phi(-kappa) = erfc(kappa/sqrt 2)/2.
    """
    return {
        "steps_at_least_3": M - 3,
        "sigma_at_least_sqrt_3_over_ln_M": sigma**2 * sp.log(M) - 3,
        "validity_condition_2": sp.Rational(1, 2) - berry_esseen_eps() - delta
        - sp.erfc(kappa / sp.sqrt(2)) / 2,
    }


@lru_cache(maxsize=None)
def closed_form_steps():
    """Closed form (4): solve T1 + T2 = delta for M (drops T3..T6).

    Derived with SymPy and compared with docs/THEORY.md section 3:
    M_BE = 1 + ((2 B coef + 1/sqrt(2 pi)) sqrt(s2) / delta)^2.
    """
    T1, T2 = terms()[:2]
    sols = sp.solve(sp.Eq(T1 + T2, delta), M)
    stated = 1 + ((2 * B * coef + 1 / SQRT_2PI) * sp.sqrt(s2) / delta) ** 2
    if len(sols) != 1 or not is_zero(sols[0] - stated):
        raise DerivationError(f"closed form (4): solve gave {sols}")
    return stated
