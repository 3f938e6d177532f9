"""Calibration of a run's noise (docs/RUNS.md): the smallest common scale c on a grid of
step ``resolution`` such that the run with every phase's noise multiplier multiplied by c
meets an (epsilon, delta) target, certified, and c - resolution certified to fail.

Monotonicity (which turns the crossing into "smallest"): delta(eps) of the run does not
increase with c, since each phase's pair at a larger sigma is a post-processing of the pair
at a smaller one (rescale and add independent Gaussian noise, docs/THEORY.md sections 9,
12), and a product of post-processed pairs is a post-processing of the product.  The one
predicate is the run engine's delta(eps) bracket (bounds/runs.py) compared with delta,
three-valued; the one driver is core.search.calibrate."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, Interval, frac_str
from verifier.core.search import ENGINE_BUDGET, calibrate

MONOTONE = ("delta(eps) of the run does not increase when every phase's noise multiplier is "
            "scaled up (each phase's pair at a larger sigma is a post-processing of the pair at "
            "a smaller one)")


@dataclass(frozen=True)
class RunScale:
    status: str                   # certified | infeasible | inconclusive | beyond-range
    scale: Fraction | None        # c: every phase's sigma times c
    run: object                   # the scaled run (verifier.Run) or None
    target_epsilon: Fraction
    delta: Fraction
    resolution: Fraction
    at: Interval | None = None    # delta(eps) at the answer
    below: Interval | None = None  # delta(eps) at c - resolution (certified > delta)
    evaluations: int = 0
    message: str = ""

    def to_json(self) -> dict:
        out = {"what": "run scale", "status": self.status,
               "scale": None if self.scale is None else frac_str(self.scale),
               "target": {"epsilon": frac_str(self.target_epsilon), "delta": frac_str(self.delta)},
               "resolution": frac_str(self.resolution), "monotonicity": MONOTONE,
               "evaluations": self.evaluations, "message": self.message,
               "run": None if self.run is None else self.run.to_json()}
        if self.at is not None:
            out["delta_at_answer"] = self.at.to_json()
        if self.below is not None:
            out["delta_at_neighbour"] = self.below.to_json()
        return out


def scaled(run, c: Fraction):
    """The run with every phase's noise multiplier times c."""
    from verifier.core.run import Gaussian, Phase, Run
    return Run(tuple(Phase(Gaussian(p.noise_multiplier * c), p.sampler, p.steps)
                     for p in run.phases))


def calibrate_run_scale(run, target_epsilon: Fraction, delta: Fraction,
                        resolution: Fraction = Fraction(1, 100)) -> RunScale:
    """The smallest grid scale c (module docstring), searched over the engines' sigma range
    [0.3, 50] of every phase."""
    from verifier.bounds import runs
    from verifier.bounds.poisson import RANGE
    if resolution <= 0:
        raise InputError(f"resolution must be > 0, got {frac_str(resolution)}")
    runs.check(run, delta=delta, eps=target_epsilon)
    lo_s, hi_s = RANGE.sigma
    smallest = min(p.noise_multiplier for p in run.phases)
    largest = max(p.noise_multiplier for p in run.phases)
    floor = math.ceil(lo_s / smallest / resolution)
    ceiling = math.floor(hi_s / largest / resolution)
    if floor > ceiling:
        raise InputError("no common scale keeps every phase's noise multiplier in the engine's "
                         "range [0.3, 50]")
    start = min(max(round(1 / resolution), floor), ceiling)

    def pred(n):
        from verifier.core.progress import report
        report(f"calibrate the run: trying the noise scale c = {frac_str(n * resolution)}")
        iv = runs.delta_bracket(scaled(run, n * resolution), target_epsilon).delta
        return iv.at_most(delta), iv
    s = calibrate(pred, start, floor, budget=ENGINE_BUDGET, ceiling=ceiling)
    common = dict(target_epsilon=target_epsilon, delta=delta, resolution=resolution)
    if s.status == "found":
        c = s.value * resolution
        msg = ("" if s.below is not None else
               f"the smallest scale in range ({frac_str(c)}) already meets the target")
        return RunScale("certified", c, scaled(run, c), at=s.at, below=s.below,
                        evaluations=s.evaluations, message=msg, **common)
    if s.status == "beyond":
        return RunScale("infeasible", None, None, message="even the largest scale in range "
                        f"({frac_str(ceiling * resolution)}) fails the target, certified",
                        **common)
    return RunScale("inconclusive", None, None, at=s.at, message=s.reason or "", **common)
