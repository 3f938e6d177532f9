"""calibrate steps: the certified smallest M at which a bound is valid and meets the
target; min N for a per-round noise level; the combination over the chosen bounds."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import DEFAULT_MAX_PREC, MAX_SEARCH_STEPS, Interval, decimal_str, to_arb
from verifier.core.search import CLOSED_FORM_BUDGET, calibrate
from verifier.deploy.evaluate import BoundEval, Target, evaluate, resolve


@dataclass(frozen=True)
class StepsCalibration:
    bound: str
    status: str                 # certified | inconclusive
    steps: int | None
    at: BoundEval | None        # target certified here
    below: BoundEval | None     # certifiably not at steps - 1 (None if steps == 3)
    evaluations: int
    closed_form: Interval | None = None   # chi-square: the real M* of the inversion
    message: str = ""

    def to_json(self) -> dict:
        e = {"status": self.status, "steps": self.steps, "evaluations": self.evaluations,
             "message": self.message}
        if self.at:
            e["at_steps"] = self.at.to_json()
        if self.below:
            e["at_steps_minus_1"] = self.below.to_json()
        if self.closed_form:
            e["closed_form_steps"] = self.closed_form.to_json()
        return e


def calibrate_steps(sigma: Fraction, epochs: int, target: Target, bound: str,
                    max_prec: int = DEFAULT_MAX_PREC) -> StepsCalibration:
    """Smallest M >= 3 at which ``bound`` is valid and meets the target.

    Monotone in M (the bound's monotone_in_steps proof checks: monotonicity.* for
    Theorem 3.1, chisquare.steps-inverse for the chi-square bound), so the certified search
    applies, from the bound's certified lower bound of every feasible M."""
    b = resolve(bound)
    def pred(M):
        ev = evaluate(bound, sigma, M, epochs, target, max_prec)
        return ev.verdict, ev

    cf = None
    if b.steps_inverse is not None:
        with ctx.workprec(128):
            cf = Interval.of(b.steps_inverse(to_arb(sigma), arb(epochs), to_arb(target.delta)))
    need = b.steps_lower(sigma, epochs, target.delta)
    if need is None or need > MAX_SEARCH_STEPS:
        return StepsCalibration(b.name, "inconclusive", None, None, None, 0, cf, (
            "every feasible M exceeds the supported range M <= 1e40 (certified lower bound "
            + ("not finite" if need is None else f">= {decimal_str(need, 4, 'down')}") + ")"))
    s = calibrate(pred, max(3, math.floor(need)), 3, budget=CLOSED_FORM_BUDGET,
                  ceiling=MAX_SEARCH_STEPS)
    if s.status == "undecided":
        return StepsCalibration(b.name, "inconclusive", None, s.at, None, 0, cf,
                                f"undecided at M = {s.undecided_at} at the precision cap")
    if not s.found:
        return StepsCalibration(b.name, "inconclusive", None, None, None, 0, cf,
                                ("no M <= 1e40 is feasible: " if s.status == "beyond" else "")
                                + s.reason)
    return StepsCalibration(b.name, "certified", s.value, s.at, s.below, s.evaluations, cf)


def min_samples(sigma: Fraction, steps: int, clip: Fraction = Fraction(1),
                level: Fraction = Fraction(1, 10)) -> int:
    """Smallest N with per-round noise C sigma M / N <= level: ceil(C sigma M / level)."""
    return TS.min_samples(steps, clip * sigma, level)


@dataclass(frozen=True)
class Calibration:
    """Result of ``calibrate_sigma`` / ``calibrate_steps`` over the chosen bounds:
    ``value`` is the smallest certified answer over the valid bounds (None if none),
    ``per_bound`` holds each bound's SigmaCalibration / StepsCalibration."""

    what: str
    value: object
    status: str               # certified | infeasible | inconclusive
    per_bound: dict

    def to_json(self) -> dict:
        from verifier.core.arith import frac_str
        v = self.value
        return {"what": self.what,
                "value": frac_str(v) if isinstance(v, Fraction) else v,
                "status": self.status,
                "per_bound": {b: r.to_json() for b, r in self.per_bound.items()}}


def combine(what: str, results: dict) -> Calibration:
    vals = [getattr(r, what) for r in results.values() if r.status == "certified"]
    if vals:
        return Calibration(what, min(vals), "certified", results)
    if any(r.status == "inconclusive" for r in results.values()):
        return Calibration(what, None, "inconclusive", results)
    return Calibration(what, None, "infeasible", results)


