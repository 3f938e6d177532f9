"""The exact total variation of the random-allocation pair, bracketed rigorously.

TV_E(sigma, M) = E_P0[(prod_e Ybar_e - 1)_+] (docs/THEORY.md section 1), Ybar_e the mean of M
i.i.d. lognormals Y = exp(X/sigma - u/2); attack accuracy 1/2 + TV_E/2.

- one epoch: verifier/bounds/exact_tv/one_epoch.py (the lognormal's heavy tail split off at T1 and handled
  by conditioning on the number of items above it; the body through one packed DFT pair);
- E epochs: verifier/bounds/exact_tv/epochs.py (log-grid spread of each epoch's mean for the upper
  end, a likelihood-ratio test on the epochs' label sums for the lower end).

Every approximation step is one-sided (the docstrings of those modules say which way and
why) and every number is an Arb ball, the DFTs included (``acb.dft``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import Interval, to_arb
from verifier.bounds.exact_tv.epochs import tv_epochs
from verifier.bounds.exact_tv.one_epoch import tv_one
@dataclass(frozen=True)
class ExactResult:
    sigma: Fraction
    steps: int
    epochs: int
    tv: Interval                 # [lower end of the lower bound, upper end of the upper bound]
    accuracy: Interval           # 1/2 + tv/2
    tv_one_epoch: Interval
    lattice_step: Fraction
    cells: int
    dft_length: int
    seconds: float

    def to_json(self) -> dict:
        from verifier.core.arith import decimal_str, frac_str
        return {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs,
                "tv": self.tv.to_json(), "accuracy": self.accuracy.to_json(),
                "relative_width": ("inf" if self.relative_width is None
                                   else decimal_str(self.relative_width, 6, "up")),
                "certified": self.certified,
                "lattice_step": frac_str(self.lattice_step),
                "cells": self.cells, "dft_length": self.dft_length,
                "seconds": round(self.seconds, 3)}

    certified = ("rigorous bracket: every approximation step is one-sided and every number an "
                 "Arb ball (DFTs included)")

    def ratio(self, bound: Interval) -> Interval | None:
        """bound / TV, outward: [bound lower / TV upper, bound upper / TV lower]; the upper end
        None (unbounded) when the bracket's lower end is 0; None if not defined."""
        if not (self.tv.upper > 0 and bound.finite):
            return None
        return Interval(bound.lower / self.tv.upper,
                        bound.upper / self.tv.lower if self.tv.lower > 0 else None)

    @property
    def relative_width(self) -> Fraction | None:
        """(upper - lower) / lower, exactly (None when the lower end is 0: unbounded)."""
        lo, hi = self.tv.lower, self.tv.upper
        return (hi - lo) / lo if lo > 0 else None


def _clamp01(lo: Fraction | None, hi: Fraction | None) -> Interval:
    lo = Fraction(0) if lo is None else max(lo, Fraction(0))
    hi = Fraction(1) if hi is None else min(hi, Fraction(1))
    return Interval(min(lo, hi), hi)


def exact_tv(sigma: Fraction, M: int, epochs: int = 1, prec: int | None = None) -> ExactResult:
    """The rigorous bracket of TV_E(sigma, M) and of the attack accuracy."""
    t = time.perf_counter()
    if prec is None:   # x^M multiplies relative radii by M: keep 2 log2(M) guard bits
        prec = max(64, 53 + 2 * M.bit_length())
    if epochs == 1:
        r = tv_one(sigma, M, prec)
        lo1, hi1, h, cells, N = r.lower, r.upper, r.h, r.cells, r.N
        lo, hi = lo1, hi1
    else:
        lo, hi, lo1, hi1, h, cells, N = tv_epochs(sigma, M, epochs, prec)
    # 0 <= TV <= 1: a lower end below 0 (small forced windows) says only TV >= 0
    one = _clamp01(Interval.of(lo1).lower, Interval.of(hi1).upper)
    tv = _clamp01(Interval.of(lo).lower, Interval.of(hi).upper)
    with ctx.workprec(prec):
        acc = Interval.of(arb(1) / 2 + (to_arb(tv.lower).union(to_arb(tv.upper))) / 2)
    return ExactResult(sigma, M, epochs, tv, acc, one, h, cells, N, time.perf_counter() - t)
