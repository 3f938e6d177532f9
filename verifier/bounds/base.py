"""The shape of every bound: one object per certified upper bound on the E-epoch total
variation delta_E (so f >= 1 - a - delta_E and attack accuracy <= 1/2 + delta_E/2).

A ``Bound`` declares how to evaluate it as a ball over E epochs at the current precision
(with its hypotheses' margins, >= 0 meaning holds), its source, the proof-check ids its
monotonicity rests on, how it behaves in sigma (the calibration's search follows from
it), a certified lower bound of every feasible M and, where they exist, its closed-form
inverses.  ``verifier.bounds`` holds the registry; certify, calibrate, compare, figures and
claims iterate it.  A new bound is one module defining one such object plus one line in
the registry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from flint import arb


@dataclass(frozen=True)
class Bound:
    name: str
    title: str                          # one line for tables
    source: str                         # theorem / equation, arXiv id and version
    reconstructed: bool
    hypotheses: tuple                   # names of the hypotheses ``ball`` returns margins of
    monotone_in_steps: tuple            # proof-check ids: feasibility persists as M grows
    sigma_shape: str                    # "decreasing" (feasible for every larger sigma) | "u-shaped"
    monotone_in_sigma: tuple            # proof-check ids behind sigma_shape
    # (s: arb, M: int, E: int) -> (delta_E ball, ((hypothesis, margin ball), ...)), ctx.prec
    ball: Callable
    # (sigma: Fraction, E: int, tau: Fraction) -> Fraction | None: every feasible M is >= it
    steps_lower: Callable
    # (M: arb, E: arb, tau: arb) -> arb: the sigma* with bound(sigma*) = tau (decreasing bounds)
    sigma_inverse: Callable | None = None
    # (sigma: arb, E: arb, tau: arb) -> arb: the real M* with bound(M*) = tau
    steps_inverse: Callable | None = None
    # sufficient conditions for 'infeasible / feasible on the whole box [lo, hi]' beyond the
    # plain ball evaluation (bound-specific forms that avoid the dependency problem):
    # (M, E, tau: arb, s: arb, lo, hi) -> bool
    box_fails: Callable | None = None
    box_holds: Callable | None = None
    # u-shaped bounds: (M) -> (L, U), every sigma < L and every sigma >= U certified
    # infeasible by a proof (the rest is left to branch and bound)
    sigma_range: Callable | None = None
    aliases: tuple = field(default=())


def box_ball(lo: Fraction, hi: Fraction) -> arb:
    """The ball [lo, hi] at the current precision."""
    from verifier.core.arith import to_arb
    return to_arb(lo).union(to_arb(hi))


@dataclass(frozen=True)
class Bracket:
    """A two-sided rigorous bracket of the exact quantity (not an upper bound on it):
    ``bracket(sigma, M, E)`` returns an object with ``tv`` (an Interval).  Decreasing in
    sigma (``monotonicity``: why), so its calibration is the certified integer search."""

    name: str
    title: str
    source: str
    monotonicity: str
    bracket: Callable
    aliases: tuple = field(default=())

    def names(self) -> tuple:
        return (self.name,) + self.aliases

