"""The trade-off curves of a run (``verifier.core.run.Run``) as certified bands: the bands of
views.tradeoff (docs/THEORY.md section 10) read off a profile grid of the run's own engine
(docs/THEORY.md section 15, "Views of a run").

Which profile (bounds.runs.profile_source): a run of Gaussian steps its closed form
(bounds.gaussian, both directions equal); one kind of one-of-M epoch the random-allocation
grid with its moments (so a one-phase run gives bit for bit ``tradeoff_curve``); otherwise
the run's composed engine (Poisson phases, or epochs with steps), on a grid without moment
bounds (views.grid.ProfileGrid.of_engine).  A k-of-M run (each record in k of the M steps
of an epoch) has no engine of its own: its reduction gives two runs whose profiles lie
above and below its own at every eps and in both directions (bounds.runs.k_of_m_runs), so
the band's lower ends (from upper ends of delta) come from the upper run's grid and its
upper ends (from lower pieces of delta, valid for the lower run's convex profile, which lies
below the true one) from the lower run's grid; f = T(P, Q) is nonincreasing in delta.

The grid's top is a free choice (beyond it the upper lines use delta >= 0 only): the
certified epsilon at delta = 1e-12 of the run (of the k-of-M run itself for both its
grids), times 1.05, rounded up to a quarter.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace

from flint import arb

from verifier.core.arith import Interval, frac_str, to_arb
from verifier.views.grid import ProfileGrid
from verifier.views.tradeoff import Bands, bands, type_one_errors

TOP_DELTA = Fraction(1, 10 ** 12)
DIGITS = 12                 # the closed form's relative width 1e-12 at each grid point

CERTIFIED_RUN = ("rigorous band on the grid of a: lower ends from the upper ends of the run's "
                 "certified privacy profile, upper ends from a cover of every eps by its "
                 "lower ends (docs/THEORY.md sections 10 and 15); for k of M, the upper and "
                 "lower runs of its reduction")


class GaussianProfile:
    """The Gaussian pair at mu^2 as a profile engine (both directions equal; closed form to
    DIGITS digits at each eps)."""

    def __init__(self, mu2: Fraction, top: Fraction):
        from verifier.bounds.gaussian import delta_interval
        self._at = lambda e: delta_interval(mu2, e, DIGITS)
        self.laws = SimpleNamespace(eta=top / 2 ** 14, eta_l=top / 2 ** 14)

    def upper_remove(self, e: Fraction) -> arb:
        return to_arb(self._at(e).upper)

    def lower_remove(self, e: Fraction) -> arb:
        return to_arb(self._at(e).lower)

    upper_add, lower_add = upper_remove, lower_remove


def grid_of(run, top) -> ProfileGrid:
    """The profile grid of a run that is not k of M (module docstring); ``top()`` the grid's
    top, asked only where the grid needs one (not one kind of one-of-M epoch: its moments
    choose)."""
    from verifier.bounds.runs import profile_source
    kind, src = profile_source(run)
    if kind == "random_allocation":
        return ProfileGrid(*src, tau=1 / 32)
    t = top()
    P = GaussianProfile(src, t) if kind == "gaussian" else src(float(t) + 1)
    return ProfileGrid.of_engine(P, t, tau=1 / 32)


def grids(run) -> tuple:
    """(grid above, grid below): the same grid, or for k of M the upper and lower runs'."""
    from functools import cache
    from verifier.bounds.runs import epsilon_bracket, k_of_m_runs, plan

    @cache
    def top() -> Fraction:
        e = epsilon_bracket(run, TOP_DELTA).epsilon.upper
        return Fraction(math.ceil(4 * float(e) * 1.05) + 1, 4)
    if plan(run) != "k-of-m":
        g = grid_of(run, top)
        return g, g
    up, lo = k_of_m_runs(run)
    return grid_of(up, top), grid_of(lo, top)


@dataclass(frozen=True)
class RunTradeoff(Bands):
    run: object
    points: tuple
    tv: Interval                        # delta(0) = the exact TV
    closest: Interval                   # max over the grid of a of 1 - a - f(a), both ends
    info: dict = field(default_factory=dict)

    @property
    def certified(self) -> str:
        return CERTIFIED_RUN

    def to_json(self) -> dict:
        return {"run": self.run.to_json(), **self.bands_json()}


def run_tradeoff(run, at=None, points: int = 21) -> RunTradeoff:
    """The run's trade-off bands at the type I errors ``at`` (or ``points`` equally spaced)."""
    from verifier.bounds.runs import plan
    t0 = time.perf_counter()
    at = type_one_errors(at, points)
    above, below = grids(run)
    pts, tv, closest = bands(above, at, below)
    info = {"grid_points": max(len(above.eps), len(below.eps)), "grid_top": frac_str(above.top),
            "plan": plan(run), "seconds": round(time.perf_counter() - t0, 3)}
    return RunTradeoff(run, pts, tv, closest, info)
