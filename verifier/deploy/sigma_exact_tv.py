"""calibrate sigma against the exact-TV bracket, and over several bounds at once.

The exact TV decreases in sigma (bounds.exact_tv.EXACT_TV.monotonicity) and lies below every
bound, so the certified integer search starts from the chi-square answer; a bracket that
straddles the target, or the engine's refusal (sigma < 0.1), stops it: inconclusive, never
"infeasible"."""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from verifier.core.arith import DEFAULT_MAX_PREC, InputError, Interval, Tri, frac_str, pct
from verifier.core.search import ENGINE_BUDGET, calibrate
from verifier.deploy.evaluate import Target
from verifier.deploy.sigma import SigmaCalibration, calibrate_sigma


def exact_verdict(tv: Interval | None, tau: Fraction) -> Tri:
    """Certified: HOLDS if the bracket's upper end meets tau, FAILS if its lower end exceeds
    it; otherwise, or when the engine refused (tv None: sigma outside its range), UNDECIDED."""
    return Tri.UNDECIDED if tv is None else tv.at_most(tau)


def calibrate_sigma_exact(steps: int, epochs: int, target: Target,
                          resolution: Fraction = Fraction(1, 100),
                          chi: SigmaCalibration | None = None) -> SigmaCalibration:
    """Smallest grid sigma whose *upper* end of the exact-TV bracket meets the target
    (verifier.exact), certified infeasible one grid step below by the *lower* end.

    The exact TV decreases in sigma (the pair at a larger sigma is a post-processing of
    the pair at a smaller one: rescale and add independent Gaussian noise), and it is
    below the chi-square bound, so the chi-square answer is feasible and the search
    bisects below it."""
    from verifier.bounds.chisquare import CHI_SQUARE
    from verifier.bounds.exact_tv import EXACT_TV
    from verifier.bounds.exact_tv import bracket as XB
    if chi is None:      # the chi-square answer at this resolution (callers may pass theirs)
        chi = calibrate_sigma(steps, epochs, target, CHI_SQUARE, resolution)
    if chi.status != "certified":
        return SigmaCalibration(EXACT_TV.name, "inconclusive", None, resolution, None, None,
                                message="the chi-square calibration did not succeed")
    tau = target.delta

    def pred(k):
        try:
            r = XB.exact_tv(k * resolution, steps, epochs)
        except InputError:
            return exact_verdict(None, tau), None
        return exact_verdict(r.tv, tau), r

    k_chi = int(chi.sigma / resolution)
    # TV decreases in sigma: the predicate is false, then true
    s = calibrate(pred, max(1, (k_chi * 19) // 20), 1, budget=ENGINE_BUDGET)
    if s.status == "undecided":
        why = ("the engine's range (sigma >= 0.1) ends there" if s.at is None else
               "the exact bracket straddles the target there; a finer lattice would decide it")
        return SigmaCalibration(EXACT_TV.name, "inconclusive", None, resolution, None, None,
                                message=f"undecided at sigma = {s.undecided_at * resolution}: {why}")
    if not s.found:
        return SigmaCalibration(EXACT_TV.name, "inconclusive", None, resolution, None, None,
                                message=s.reason)
    k, n = s.value, s.evaluations
    saved = 1 - Fraction(k) * resolution / chi.sigma
    below = ("" if k == 1 else f"; sigma = {frac_str((k - 1) * resolution)} certified infeasible (the "
             "bracket's lower end exceeds the target), hence every sigma below it")
    return SigmaCalibration(EXACT_TV.name, "certified", k * resolution, resolution, None, None,
                            branch=(f"exact TV decreases in sigma{below}; "
                                    f"{pct(saved, 'down')} less noise than the chi-square "
                                    f"calibration ({frac_str(chi.sigma)}); {n} bracket evaluations"),
                            message="")


@dataclass(frozen=True)
class SigmaCalibrations:
    """``calibrate sigma`` over the chosen bounds (and the exact-TV bracket when asked): the
    smallest certified sigma over them (the exact answer when it is certified: TV <= every
    bound), each bound's SigmaCalibration and the noise the exact answer saves."""

    per_bound: dict               # name -> SigmaCalibration
    exact: SigmaCalibration | None
    value: Fraction | None
    status: str                   # certified | infeasible | inconclusive

    def to_json(self) -> dict:
        out = {"bounds": {b: r.to_json() for b, r in self.per_bound.items()}}
        if self.exact is not None:
            out["bounds"][self.exact.bound] = self.exact.to_json()
        if self.value is not None:
            out["sigma"] = frac_str(self.value)
        return out


def calibrate_sigma_over(steps: int, epochs: int, target: Target, names, resolution: Fraction,
                         max_prec: int = DEFAULT_MAX_PREC, with_exact_tv: bool = False
                         ) -> SigmaCalibrations:
    """calibrate_sigma for each named bound, then (with_exact_tv) the exact-TV calibration from
    the chi-square answer, and the combination (verifier.deploy.steps.combine's rule)."""
    from verifier.bounds.chisquare import CHI_SQUARE
    from verifier.deploy.steps import combine
    cal = {b: calibrate_sigma(steps, epochs, target, b, resolution, max_prec) for b in names}
    c = combine("sigma", cal)
    exact = None
    if with_exact_tv:
        exact = calibrate_sigma_exact(steps, epochs, target, resolution, chi=cal.get(CHI_SQUARE.name))
        if exact.sigma:
            saved = {b: 1 - exact.sigma / rb.sigma for b, rb in cal.items()
                     if rb.status == "certified"}
            exact = replace(exact, noise_saved=saved)
            return SigmaCalibrations(cal, exact, exact.sigma, "certified")
        if c.status == "infeasible" and exact.status == "inconclusive":
            return SigmaCalibrations(cal, exact, None, "inconclusive")
    return SigmaCalibrations(cal, exact, c.value, c.status)
