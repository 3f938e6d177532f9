"""The trade-off curves of the random-allocation pair as certified bands (
docs/THEORY.md section 10).

f_R(a) = T(P0^E, P1^E)(a) (type II error of the best test of P0 against P1 at type I error a)
and the reversed pair f_A = T(P1^E, P0^E), from the two directions of the privacy profile by
the primal-dual conversion (Dong, Roth & Su, arXiv 1905.02383 v3, Proposition 2.12; in the
one-sided form of Su, Yang, Su & Wang, arXiv 2610.02414 v1, Theorem 2.1):

    f_R(a) = max(0, sup_{eps >= 0} [1 - delta_R(eps) - e^eps a], sup_{eps >= 0} e^-eps [1 - delta_A(eps) - a])

(the second family is the first at negative eps: delta_R(-e) = 1 - e^-e + e^-e delta_A(e),
proof check tradeoff.negative-eps), and f_A the same with the directions exchanged.

Lower end: every term of the sup at a grid point with the upper end of delta is a valid
lower bound of f, and so is the term at a cell's middle with the chord of the upper ends
(delta is convex in c, proof check views.profile-convex-in-c).  Upper end: a cover of all eps: on each piece of ``grid.pieces`` delta(c)
>= A + B c (c = e^eps), so the first family is <= 1 - A - (B + a) c and the second <=
(1 - a - A)/c - B, linear or monotone in c: the larger of the piece's two end values bounds
the whole piece; beyond the grid's top, 1 - a e^top and (1 - a) e^-top; and f <= 1 - a.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import InputError, Interval, ball_bounds, frac_str, parse_exact, to_arb
from verifier.views.grid import PREC, ProfileGrid


@dataclass(frozen=True)
class TradeoffPoint:
    a: Fraction
    f: Interval              # T(P0^E, P1^E)(a)
    reverse: Interval        # T(P1^E, P0^E)(a)

    def to_json(self) -> dict:
        return {"a": frac_str(self.a), "f": self.f.to_json(), "reverse": self.reverse.to_json()}


class Bands:
    """What every trade-off result shares (TradeoffCurve, views.run_tradeoff.RunTradeoff):
    ``points``, ``tv``, ``closest``, ``info`` and a ``certified`` sentence of its own."""

    @property
    def distance_to_diagonal(self) -> Interval:
        return self.closest

    @property
    def engine(self) -> dict:
        return dict(self.info)

    def bands_json(self) -> dict:
        return {"points": [p.to_json() for p in self.points], "tv": self.tv.to_json(),
                "distance_to_diagonal": self.distance_to_diagonal.to_json(),
                "certified": self.certified, "engine": self.engine}


@dataclass(frozen=True)
class TradeoffCurve(Bands):
    sigma: Fraction
    steps: int
    epochs: int
    points: tuple
    tv: Interval                        # delta(0) = the exact TV, from the same profile
    closest: Interval                   # max over the grid of a of 1 - a - f(a), both ends
    info: dict = field(default_factory=dict)

    @property
    def certified(self) -> str:
        return CERTIFIED

    def to_json(self) -> dict:
        return {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs,
                **self.bands_json()}


CERTIFIED = ("rigorous band on the grid of a: lower ends from the certified privacy profile's "
             "upper ends, upper ends from a cover of every eps (docs/THEORY.md section 10)")


def _lines(grid: ProfileGrid, first: str, second: str, below: ProfileGrid | None = None):
    """(lower, upper) lines (value, slope): f >= value - slope a for each lower line, and
    f <= the largest value - slope a of the upper lines (a cover of every eps), for
    f = T with delta_first in the first family and delta_second in the second.  ``below``:
    the upper lines from this grid instead, of a profile below the true one (a run's k-of-M
    lower run: views.run_tradeoff), the lower lines from ``grid``, of one above it."""
    lower = _lower_lines(grid, first, 1) + _lower_lines(grid, second, 2)
    below = grid if below is None else below
    upper = _upper_lines(below, first, 1) + _upper_lines(below, second, 2)
    return lower, upper


def _lower_lines(grid: ProfileGrid, which: str, family: int):
    """Family 1: 1 - delta(c) - c a >= 1 - U - c a; family 2: (1 - delta(c) - a)/c >=
    (1 - U - a)/c, with U an upper end of delta at c: the grid's, and the chord at a cell's
    middle."""
    out = []
    with ctx.workprec(PREC):
        pts = [(e, hi) for e, _, hi in grid.ends(which)]
        for e0, e1, A, B, sign in grid.pieces(which):
            if sign > 0:
                c = to_arb((e0 + e1) / 2).exp()
                pts.append(((e0 + e1) / 2, A + B * c))
        for e, U in pts:
            c = to_arb(e).exp()
            out.append((1 - U, c) if family == 1 else ((1 - U) / c, 1 / c))
    return out


def _upper_lines(grid: ProfileGrid, which: str, family: int):
    """On each lower piece delta(c) >= A + B c: family 1 <= 1 - A - (B + a) c, family 2 <=
    (1 - a - A)/c - B, at the piece's two ends (linear, resp. monotone, in c); beyond top."""
    out = []
    with ctx.workprec(PREC):
        for e0, e1, A, B, sign in grid.pieces(which):
            if sign > 0:
                continue
            for e in (e0, e1):
                c = to_arb(e).exp()
                out.append((1 - A - B * c, c) if family == 1 else ((1 - A) / c - B, 1 / c))
        ct = to_arb(grid.top).exp()
        out.append((arb(1), ct) if family == 1 else (1 / ct, 1 / ct))
    return out


def _band(lines, a: Fraction) -> Interval:
    lower, upper = lines
    with ctx.workprec(PREC):
        x = to_arb(a)
        lo = max((v - s * x for v, s in lower), key=lambda y: y.lower())
        hi = max((v - s * x for v, s in upper), key=lambda y: y.upper())
        lo_q = max(ball_bounds(lo)[0], Fraction(0))
        hi_q = min(max(ball_bounds(hi)[1], Fraction(0)), 1 - a)
    if lo_q > hi_q:                  # two certified ends that do not meet: a bug, never a number
        raise AssertionError(f"inconsistent trade-off band at a = {frac_str(a)}")
    return Interval(lo_q, hi_q)


def type_one_errors(at=None, points: int = 21) -> list:
    """The type I errors asked for (exact, in [0, 1]), or ``points`` equally spaced."""
    if at is None:
        if not 2 <= points <= 2001:
            raise InputError(f"points = {points} is outside [2, 2001]")
        at = [Fraction(k, points - 1) for k in range(points)]
    at = [parse_exact(a, "a") if not isinstance(a, Fraction) else a for a in at]
    for a in at:
        if not 0 <= a <= 1:
            raise InputError(f"type I error a = {frac_str(a)} is outside [0, 1]")
    return at


def bands(grid: ProfileGrid, at: list, below: ProfileGrid | None = None) -> tuple:
    """(points, tv, closest): the bands of f and of the reversed pair at each a, the exact TV
    delta(0) and the distance to the diagonal; ``below`` as in ``_lines`` (the TV's lower
    end from it too)."""
    low = grid if below is None else below
    fwd = _lines(grid, "remove", "add", below)
    rev = _lines(grid, "add", "remove", below)
    pts = tuple(TradeoffPoint(a, _band(fwd, a), _band(rev, a)) for a in sorted(set(at)))
    (_, lr, _), (_, la, _) = low.ends("remove")[0], low.ends("add")[0]
    (_, _, hr), (_, _, ha) = grid.ends("remove")[0], grid.ends("add")[0]
    lo_tv = max(ball_bounds(lr)[0], ball_bounds(la)[0])
    hi_tv = min(ball_bounds(hr)[1], ball_bounds(ha)[1])
    tv = Interval(lo_tv, hi_tv)
    gaps = [(1 - p.a - p.f.upper, 1 - p.a - p.f.lower) for p in pts]
    closest = Interval(max(max(g[0] for g in gaps), Fraction(0)), hi_tv)
    return pts, tv, closest


def tradeoff_curve(sigma: Fraction, M: int, E: int, at=None, points: int = 21,
                   fine: int = 1) -> TradeoffCurve:
    """The bands at the type I errors ``at`` (or ``points`` equally spaced); ``fine``: the
    profile grid's refinement level (api.views.tradeoff's requested width)."""
    import time
    t0 = time.perf_counter()
    at = type_one_errors(at, points)
    grid = ProfileGrid(sigma, M, E, tau=1 / 32, fine=fine)
    pts, tv, closest = bands(grid, at)
    info = {"grid_points": len(grid.eps), "grid_top": frac_str(grid.top),
            "seconds": round(time.perf_counter() - t0, 3),
            **({"refinement": fine} if fine > 1 else {})}
    return TradeoffCurve(sigma, M, E, pts, tv, closest, info)
