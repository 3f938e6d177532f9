"""The chi-square bound of arXiv 2610.09651 (docs/THEORY.md section 7) as a registry Bound:
TV_E <= sqrt((1 + s2/M)^E - 1)/2, valid for every M >= 1 and sigma > 0, decreasing in
sigma and in M, with closed-form inverses for both."""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from verifier.bounds.base import Bound
from verifier.core.arith import Interval, to_arb
from verifier.symbolic import derived as D


def _ball(s: arb, M: int, E: int):
    return D.chi_square_tv(arb(M), s, arb(E)), ()


def _steps_lower(sigma: Fraction, E: int, tau: Fraction):
    """The real M* of the inversion: the bound decreases in M (chisquare.steps-inverse)."""
    with ctx.workprec(64):
        x = Interval.of(D.chi_square_steps_inverse(to_arb(sigma), arb(E), to_arb(tau)))
    return x.lower if x.finite else None


CHI_SQUARE = Bound(
    name="chi-square", title="chi-square bound",
    source="chi-square bound, arXiv 2610.09651 (docs/THEORY.md section 7): "
           "TV <= sqrt((1 + s2/M)^E - 1)/2",
    reconstructed=False, hypotheses=(),
    monotone_in_steps=("chisquare.steps-inverse",), sigma_shape="decreasing",
    monotone_in_sigma=("chisquare.sigma-inverse",),
    ball=_ball, steps_lower=_steps_lower,
    sigma_inverse=D.chi_square_sigma_inverse, steps_inverse=D.chi_square_steps_inverse)
