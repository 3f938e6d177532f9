"""calibrate sigma: the smallest grid sigma at which a bound is valid and meets the target,
certified there and certifiably infeasible one step below; the search follows the bound's
shape in sigma (Bound.sigma_shape): the certified integer search for decreasing bounds,
grid scan + bisections + branch and bound with cover bookkeeping for U-shaped ones; and
the calibration against the exact-TV bracket."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.bounds.base import Bound, box_ball
from verifier.core import search
from verifier.core.arith import (DEFAULT_MAX_PREC, InputError, Interval, Tri, decimal_str, frac_str,
                                 pct, to_arb)
from verifier.core.search import CLOSED_FORM_BUDGET, Cover, Undecided, calibrate, cover
from verifier.deploy.evaluate import BoundEval, Target, evaluate, resolve

MAX_BOXES = 20000


@dataclass(frozen=True)
class SigmaCalibration:
    bound: str
    status: str                  # certified | infeasible | inconclusive
    sigma: Fraction | None       # smallest feasible sigma on the grid
    resolution: Fraction
    at: BoundEval | None         # certified feasible at sigma
    below: BoundEval | None      # certified infeasible at sigma - resolution (None if sigma = resolution)
    sigma_max: Fraction | None = None    # largest feasible grid sigma (Theorem 3.1: U-shape)
    above: BoundEval | None = None       # certified infeasible at sigma_max + resolution
    branch: str = ""
    closed_form: Interval | None = None  # chi-square: sigma* of the inversion
    message: str = ""
    noise_saved: dict | None = None      # exact TV: bound name -> 1 - sigma / its sigma

    def to_json(self) -> dict:
        e = {"status": self.status, "sigma": frac_str(self.sigma) if self.sigma else None,
             "message": self.message, "branch": self.branch}
        if self.at:
            e["at_sigma"] = self.at.to_json()
        if self.below:
            e["at_sigma_minus_resolution"] = self.below.to_json()
        if self.sigma_max is not None:
            e["sigma_max"] = frac_str(self.sigma_max)
            e["at_sigma_max_plus_resolution"] = self.above.to_json() if self.above else None
        if self.closed_form:
            e["closed_form_sigma"] = self.closed_form.to_json()
        if self.noise_saved is not None:   # exact rationals of grid values, rounded down
            e["noise_saved"] = {b: pct(q, "down") for b, q in self.noise_saved.items()}
        return e


def _grid_pred(bound, M, E, target, res, max_prec):
    def pred(k):
        ev = evaluate(bound, Fraction(k) * res, M, E, target, max_prec)
        return ev.verdict, ev
    return pred


def _decreasing_sigma(bound: Bound, M, E, target, res, max_prec) -> SigmaCalibration:
    """A bound that decreases in sigma (its monotone_in_sigma proof checks): the smallest
    grid sigma by the certified integer search, from its closed-form inverse."""
    with ctx.workprec(128):
        star = bound.sigma_inverse(arb(M), arb(E), to_arb(target.delta))
    cf = Interval.of(star)
    pred = _grid_pred(bound, M, E, target, res, max_prec)
    start = max(1, math.ceil(cf.lower / res)) if cf.finite else 1
    s = calibrate(pred, start, 1, budget=CLOSED_FORM_BUDGET)
    if not s.found:
        return SigmaCalibration(bound.name, "inconclusive", None, res, None, None,
                                closed_form=cf, message=s.reason)
    k, at, below = s.value, s.at, s.below
    sigma = k * res
    msg = ""
    # the closed-form inversion agrees: sigma* in (sigma - res, sigma]
    if not (sigma - res < cf.lower and cf.upper <= sigma):
        msg = "closed form sigma* not strictly inside (sigma - res, sigma]: on a grid point"
    below_txt = ("" if below is None else
                 f"; sigma = {frac_str(sigma - res)} certified infeasible, hence every sigma <= "
                 f"{frac_str(sigma - res)}")
    checks = ", ".join(bound.monotone_in_sigma)
    return SigmaCalibration(bound.name, "certified", sigma, res, at, below, branch=(
        f"the {bound.title} decreases in sigma (proof check {checks}): every "
        "sigma >= the reported one meets the target" + below_txt),
        closed_form=cf, message=msg)


def _box_fails(bound, M, E, target, lo: Fraction, hi: Fraction) -> bool:
    """Certified: no sigma in [lo, hi] is feasible: the bound evaluated on the box, then
    the bound's own sufficient conditions (Bound.box_fails)."""
    bound = resolve(bound)
    with ctx.workprec(128):
        s, tau = box_ball(lo, hi), to_arb(target.delta)
        dE, hyps = bound.ball(s, M, E)
        if tau - dE < 0 or any(g < 0 for _, g in hyps):
            return True
        return bool(bound.box_fails and bound.box_fails(M, E, tau, s, lo, hi))


def _box_holds(bound, M, E, target, lo: Fraction, hi: Fraction) -> bool:
    """Certified: every sigma in [lo, hi] is feasible."""
    bound = resolve(bound)
    with ctx.workprec(128):
        s, tau = box_ball(lo, hi), to_arb(target.delta)
        dE, hyps = bound.ball(s, M, E)
        if tau - dE >= 0 and all(g >= 0 for _, g in hyps):
            return True
        return bool(bound.box_holds and bound.box_holds(M, E, tau, s, lo, hi))


@dataclass(frozen=True)
class Infeasibility:
    """What is proved about [lo, hi]: the branch and bound's cover (a continuum statement
    iff complete), the grid points inside its uncovered boxes, each evaluated, and a
    feasible witness found in an uncovered box, if any."""

    cover: Cover
    grid_failed: bool           # every grid point in [lo, hi] certified infeasible
    grid_feasible: tuple        # grid indices found feasible in uncovered boxes
    witness: Fraction | None    # an off-grid sigma certified feasible

    @property
    def continuum(self) -> bool:
        return self.cover.complete


def _prove_infeasible(bound, M, E, target, lo: Fraction, hi: Fraction, res: Fraction, P,
                      min_width: Fraction) -> Infeasibility:
    """Branch and bound of 'no sigma in [lo, hi] is feasible'; where it stops short, each
    grid point k res of an uncovered box is evaluated (P(k): True feasible, False infeasible,
    both certified; Undecided propagates), and the boxes' midpoints are tried as witnesses."""
    cv = cover(lambda a, b: _box_fails(bound, M, E, target, a, b), lo, hi, min_width, MAX_BOXES)
    grid_ok, feasible, witness = True, [], None
    ks = sorted({k for a, b in cv.uncovered for k in range(math.ceil(a / res), math.floor(b / res) + 1)
                 if k >= 1})
    if len(ks) > 4000:
        return Infeasibility(cv, False, (), None)
    for k in ks:
        if P(k):
            feasible.append(k)
            grid_ok = False
    for a, b in cv.uncovered[:200]:
        mid = _short_in(a, b)
        if witness is None and evaluate(bound, mid, M, E, target).verdict is Tri.HOLDS:
            witness = mid
    return Infeasibility(cv, grid_ok, tuple(feasible), witness)


def _no_feasible_grid(inf, L, U, gname, hyp_note) -> tuple[str, str]:
    """(message, status) when the scan found no feasible grid sigma and the branch and bound
    over [L, U] (``inf``: None when it had nothing to do) found none either."""
    grid_ok = inf is None or inf.grid_failed
    if inf is None or inf.continuum:
        return (f"no sigma meets the target: every sigma > 0 certified infeasible "
                f"({hyp_note}; branch and bound on the rest: "
                f"{inf.cover.boxes if inf else 0} boxes)", "infeasible")
    if not grid_ok:
        return ("no grid sigma found feasible, but not every grid sigma in "
                f"[{_dn(L)}, {_up(U)}] is certified infeasible", "inconclusive")
    wit = (f"; sigma = {frac_str(inf.witness)} (off the grid) is certified feasible: use a finer "
           "--resolution" if inf.witness is not None else
           "; infeasibility between grid points not proved")
    return (f"no grid sigma ({gname}) meets the target (each certified: the "
            f"branch and bound covers {pct(inf.cover.fraction, 'down')} of "
            f"[{_dn(L)}, {_up(U)}], the grid points it leaves evaluated one by "
            f"one){wit}", "infeasible")


def _u_shaped_statement(icv, k_lo, k_hi, res, gname, hyp_note, L, low, gap, high) -> str:
    """The certified feasible grid range [k_lo, k_hi] res in words, each statement worded
    by what proves it (grid evaluations; complete covers for the continuum)."""
    parts = [f"grid ({gname}): sigma = {frac_str(k_lo * res)} .. {frac_str(k_hi * res)} certified feasible at both "
             f"ends, the grid neighbours "
             + (f"{frac_str((k_lo - 1) * res)} and " if k_lo > 1 else "") + f"{frac_str((k_hi + 1) * res)} certified "
             "infeasible, and so is every grid sigma beyond them",
             f"between the ends, the branch and bound certifies >= {pct(icv.fraction, 'down')} "
             f"of [{frac_str(k_lo * res)}, {frac_str(k_hi * res)}] feasible box by box ({icv.boxes} boxes)"]
    cont_lo = k_lo == 1 or (low is not None and low.continuum) or low is None
    cont_hi = high is None or high.continuum
    lo_end = (k_lo - 1) * res
    if k_lo == 1:
        cont = (f"below the first grid point: every sigma < {_dn(L)} infeasible (hypothesis 2)"
                + ("" if gap is None else
                   f"; [{_dn(L)}, {frac_str(res)}) " + ("certified infeasible" if gap.continuum else
                                             "not proved infeasible"
                                             + (f" (sigma = {frac_str(gap.witness)} certified feasible)"
                                                if gap.witness is not None else ""))))
        parts.append(cont)
    elif cont_lo:
        parts.append(f"every sigma in (0, {frac_str(lo_end)}] certified infeasible")
    else:
        parts.append(f"sigma in (0, {frac_str(lo_end)}]: not every sigma proved infeasible (continuum "
                     f"covered {pct(low.cover.fraction, 'down')})")
    if cont_hi:
        parts.append(f"every sigma >= {frac_str((k_hi + 1) * res)} certified infeasible")
    else:
        parts.append(f"sigma >= {frac_str((k_hi + 1) * res)}: not every sigma proved infeasible")
    notes = [hyp_note] + [f"{n}: {x.cover.boxes} boxes" for n, x in (("below", low), ("above", high))
                          if x is not None]
    return ("U-shaped bound: the reported sigma is the lower end of the feasible grid range; "
            + "; ".join(parts) + " (" + "; ".join(notes) + ")")


def _u_shaped_sigma(bound: Bound, M, E, target, res, max_prec) -> SigmaCalibration:
    """Theorem 3.1 is U-shaped in sigma.  The line (0, inf) is covered by three proofs:
    sigma < L fails hypothesis 2, sigma >= U fails condition (2) (``_sigma_range``), and
    [L, U] by branch and bound where needed.  A geometric scan of the grid in [L, U] finds
    a feasible grid point, certified bisections find the grid ends of its feasible range.

    Statements are worded by what proves them: *grid* statements ("grid sigma k res ...")
    rest on certified evaluations at grid points (and on the covers, which contain them);
    *continuum* statements ("every sigma in ...") only on complete covers."""
    L, U = bound.sigma_range(M)
    if L is None or U is None:                   # the range's balls not finite (M < 3)
        raise InputError(f"steps = {M}: {bound.name} has no sigma range here (Theorem 3.1 "
                         "needs M >= 3)")
    k_min = max(1, math.ceil(L / res))           # grid points below k_min fail hypothesis 2
    k_max = max(k_min, math.floor(U / res))      # grid points above k_max fail condition (2)
    pred = _grid_pred(bound, M, E, target, res, max_prec)
    memo = {}
    gname = f"multiples of {frac_str(res)}"
    hyp_note = (f"every sigma < {_dn(L)} fails hypothesis 2 (sigma >= sqrt(3/ln M)); every sigma "
                f">= {_up(U)} fails condition (2) (proof check interpretation.large-sigma-infeasible)")

    def P(k):
        if k not in memo:
            memo[k] = pred(k)
        v, ev = memo[k]
        return search.decided(v, k, ev)

    def fail(message, status="inconclusive"):
        return SigmaCalibration(bound.name, status, None, res, None, None, message=message)

    def infeasible_between(a: Fraction, b: Fraction, width):
        if a >= b:
            return None
        return _prove_infeasible(bound, M, E, target, a, b, res, P, width)

    try:
        scan, k = [], k_min
        while k <= k_max:
            scan.append(k)
            k = max(k + 1, math.ceil(k * Fraction(103, 100)))
        scan.append(k_max + 1)
        feas = [k for k in scan if P(k)]
        if not feas:
            inf = infeasible_between(L, U, res / 64)
            if inf is None or not inf.grid_feasible:
                return fail(*_no_feasible_grid(inf, L, U, gname, hyp_note))
            feas = [inf.grid_feasible[0]]
            scan = sorted(set(scan) | {feas[0]})
        first, last = feas[0], feas[-1]
        i, j = scan.index(first), scan.index(last)
        k_lo = search.crossing(P, scan[i - 1], first) if i > 0 else first
        k_hi = search.crossing(P, scan[j + 1], last)
        below = None
        if k_lo > 1:
            P(k_lo - 1)
            below = memo[k_lo - 1][1]
        P(k_hi + 1)
        above = memo[k_hi + 1][1]
        if (k_lo > 1 and below.verdict is not Tri.FAILS) or above.verdict is not Tri.FAILS:
            return fail("grid neighbours not certified infeasible")
        # below (k_lo - 1) res and above (k_hi + 1) res: grid and continuum
        low = infeasible_between(L, (k_lo - 1) * res, res / 65536) if k_lo > 1 else None
        gap = infeasible_between(L, k_lo * res, res / 64) if k_lo == 1 else None
        high = infeasible_between((k_hi + 1) * res, U, res / 65536)
    except Undecided as u:
        return fail(f"undecided at sigma = {u.n * res} at the precision cap")
    grid_ok = all(x is None or x.grid_failed for x in (low, high))
    at = memo[k_lo][1]
    if not grid_ok:
        return SigmaCalibration(bound.name, "inconclusive", k_lo * res, res, at, below, k_hi * res, above,
                                message="a grid sigma outside the reported range was not "
                                        "certified infeasible")
    icv = cover(lambda a, b: _box_holds(bound, M, E, target, a, b), k_lo * res, k_hi * res,
                res / 8, 2000)
    branch = _u_shaped_statement(icv, k_lo, k_hi, res, gname, hyp_note, L, low, gap, high)
    return SigmaCalibration(bound.name, "certified", k_lo * res, res, at, below, k_hi * res, above,
                            branch)


def _short_in(a: Fraction, b: Fraction) -> Fraction:
    """A decimal with few digits in [a, b] (near its midpoint)."""
    mid = (a + b) / 2
    for digits in range(1, 40):
        q = Fraction(decimal_str(mid, digits, "down"))
        if a <= q <= b:
            return q
    return mid


def _dn(q: Fraction) -> str:
    return decimal_str(q, 6, "down")


def _up(q: Fraction) -> str:
    return decimal_str(q, 6, "up")


def calibrate_sigma(steps: int, epochs: int, target: Target, bound: str,
                    resolution: Fraction = Fraction(1, 100),
                    max_prec: int = DEFAULT_MAX_PREC) -> SigmaCalibration:
    """Smallest sigma on the grid resolution * k (k >= 1) at which ``bound`` is valid and
    meets the target: certified feasible there and certifiably infeasible one step below."""
    if resolution <= 0:
        raise InputError(f"resolution must be > 0, got {resolution}")
    b = resolve(bound)
    search_of = {"decreasing": _decreasing_sigma, "u-shaped": _u_shaped_sigma}[b.sigma_shape]
    return search_of(b, steps, epochs, target, resolution, max_prec)
