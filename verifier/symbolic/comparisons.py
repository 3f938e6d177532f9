"""The chi-square bound (arXiv 2610.09651; docs/THEORY.md section 7) and the
Gaussian-DP comparisons of docs/THEORY.md section 5, as SymPy expressions.

The numeric evaluators are printed from these (``codegen``); the proof checks
``chisquare.*`` verify them.
"""
from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from verifier.symbolic.lognormal import s2, sigma, u
M = sp.Symbol("M", positive=True)
E = sp.Symbol("E", positive=True)
tau = sp.Symbol("tau", positive=True)
mu_g = sp.Symbol("mu", positive=True)


def chi_square_epochs():
    """chi^2 of the E-fold product pair: (1 + s2/M)^E - 1, written without cancellation."""
    return expm1(E * log1p(s2 / M))


def chi_square_tv():
    """TV_E <= sqrt(chi^2_E)/2 (docs/THEORY.md section 7); attack accuracy <= 1/2 + this/2."""
    return sp.sqrt(chi_square_epochs()) / 2


def chi_square_sigma_inverse():
    """The sigma at which sqrt(chi^2_E)/2 = tau: solving (1 + s2/M)^E = 1 + 4 tau^2,
    s2 = M ((1 + 4 tau^2)^{1/E} - 1), sigma = 1/sqrt(log1p(s2))."""
    s2_star = M * expm1(log1p(4 * tau**2) / E)
    return 1 / sp.sqrt(log1p(s2_star))


def chi_square_steps_inverse():
    """The real M at which sqrt(chi^2_E)/2 = tau: M = s2 / ((1 + 4 tau^2)^{1/E} - 1)."""
    return s2 / expm1(log1p(4 * tau**2) / E)


def mu_poisson():
    """mu_P = sqrt(E/M) sqrt(s2): Poisson subsampling at rate 1/M over E M steps
    (Bu et al. 2019; the limit of Theorem 4.2 of arXiv 2605.06259 v1)."""
    return sp.sqrt(E / M) * sp.sqrt(s2)


def mu_uniform():
    """mu_U = sqrt(2) c sqrt(e^u Phi(1.5/sigma) + 3 Phi(-0.5/sigma) - 2), c = sqrt(E/M)
    (Dong, Roth & Su, Corollary 5.4)."""
    Phi = lambda z: sp.erfc(-z / sp.sqrt(2)) / 2  # noqa: E731
    c = sp.sqrt(E / M)
    return sp.sqrt(2) * c * sp.sqrt(sp.exp(u) * Phi(sp.Rational(3, 2) / sigma)
                                    + 3 * Phi(-sp.Rational(1, 2) / sigma) - 2)


def gaussian_tv():
    """TV of G_mu: max_a (1 - a - G_mu(a)) = 2 Phi(mu/2) - 1 = erf(mu / (2 sqrt 2))."""
    return sp.erf(mu_g / (2 * sp.sqrt(2)))
