"""sigma*, the noise multiplier at which a target (epsilon, delta) is met exactly, enclosed
(docs/THEORY.md section 14): a sigma certified to meet the target bounds it above, one
certified to miss it bounds it below (delta(eps) does not increase with sigma:
deploy.epsilon.MONOTONE).  The claims quantities noise_multiplier and
poisson_noise_multiplier."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, Interval, Tri, frac_str
from verifier.deploy import epsilon as DE
from verifier.deploy.epsilon import short_decimal_between


@dataclass(frozen=True)
class SigmaStar:
    """sigma* = inf {sigma : epsilon(delta) <= eps}, the noise multiplier at which the target
    is met exactly, enclosed: ``value`` = [lo, hi] with hi certified to meet the target and lo
    certified to miss it (MONOTONE["sigma"]: every sigma <= lo misses it), or None."""
    value: Interval | None
    status: str              # "ok" | "inconclusive" | "outside"
    note: str
    evaluations: int


def _refined_meets(eps: Fraction, delta: Fraction, M: int, E: int, poisson):
    """meets(sigma, w): delta(eps) at sigma from the engine refined to relative width w
    (``--rel-width``), against delta: HOLDS, FAILS or UNDECIDED."""
    def meets(s: Fraction, w: Fraction) -> Tri:
        try:
            if poisson is None:
                from verifier.bounds import profile as PR
                iv = PR.delta_bracket(s, M, E, eps, float(delta), rel_width=w).delta
            else:
                from verifier.bounds import poisson as PO
                iv = PO.delta_bracket(s, *poisson, eps, float(delta),
                                      rel_width=PO.check_rel_width(w)).delta
        except InputError:
            return Tri.UNDECIDED
        return Tri.HOLDS if iv.upper <= delta else Tri.FAILS if iv.lower > delta else \
            Tri.UNDECIDED
    return meets


def sigma_star(eps: Fraction, delta: Fraction, M: int, E: int, rel_width: Fraction,
               poisson: tuple | None = None, max_evaluations: int = 40,
               refine: bool = False) -> SigmaStar:
    """sigma* enclosed to relative width ``rel_width`` (bisection on short decimals between a
    sigma certified to miss the target and one certified to meet it), or as far as the
    engine decides (an undecided sigma inside the bracket: its resolution there; with
    ``refine`` the engine is first asked again at that sigma for a bracket of delta(eps) a
    tenth as wide, relative, as the sigma bracket: delta moves faster than sigma) or the
    budget allows; the note says which."""
    from verifier.bounds import profile as PR
    lo_edge, hi_edge = PR.SIGMA_RANGE
    _, g, engine_meets = DE.engine_for(eps, delta, M, E, poisson)
    count, lo, hi = 0, None, None

    def meets(s):
        nonlocal count
        count += 1
        try:
            return engine_meets(s, eps)[0]
        except InputError:
            return Tri.UNDECIDED
    s = min(hi_edge, max(lo_edge, short_decimal_between(g * Fraction(99, 100), g)))
    while lo is None or hi is None:            # walk by about 4/5 down or 5/4 up
        v = meets(s)
        if v is Tri.HOLDS:
            hi = s
        elif v is Tri.FAILS:
            lo = s
        if count >= max_evaluations:
            return SigmaStar(None, "inconclusive", "no bracket within the budget", count)
        if hi is None and s == hi_edge or lo is None and s == lo_edge:
            return SigmaStar(None, "outside", f"sigma* is outside the engine's range [0.3, 50] "
                             f"(sigma = {frac_str(s)} " + ("meets" if hi is not None else
                                                          "is not certified to meet")
                             + " the target)", count)
        s = (max(lo_edge, short_decimal_between(s * Fraction(3, 4), s * Fraction(4, 5)))
             if lo is None else min(hi_edge, short_decimal_between(s * Fraction(5, 4),
                                                                   s * Fraction(4, 3))))
    note = ""
    while hi - lo > rel_width * hi:
        if count >= max_evaluations:
            note = f"the budget of {max_evaluations} engine calls"
            break
        mid = short_decimal_between(lo + (hi - lo) / 4, hi - (hi - lo) / 4)
        v = meets(mid)
        if v is Tri.UNDECIDED and refine:
            count += 1
            v = _refined_meets(eps, delta, M, E, poisson)(
                mid, max(Fraction(1, 10 ** 6), min(Fraction(1, 100), (hi - lo) / hi) / 10))
        if v is Tri.UNDECIDED:
            note = (f"the engine's resolution: at sigma = {frac_str(mid)} its bracket of "
                    f"delta({frac_str(eps)}) contains {frac_str(delta)}")
            break
        lo, hi = (lo, mid) if v is Tri.HOLDS else (mid, hi)
    return SigmaStar(Interval(lo, hi), "ok", note, count)
