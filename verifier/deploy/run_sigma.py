"""Calibration of a run's noise (docs/RUNS.md): the smallest common scale c on a grid of
step ``resolution`` such that the run with every phase's noise multiplier multiplied by c
meets an (epsilon, delta) target, certified, and c - resolution certified to fail; or, for
one phase i, the smallest noise multiplier of that phase on the grid (the others fixed).

Monotonicity (which turns the crossing into "smallest"): delta(eps) of the run does not
increase with c (or with phase i's sigma), since each phase's pair at a larger sigma is a post-processing of the pair
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
    phase: int | None = None      # one phase's noise multiplier calibrated (1-based): scale
                                  # is then that phase's sigma

    def to_json(self) -> dict:
        name = "scale" if self.phase is None else "noise_multiplier"
        out = {"what": "run scale" if self.phase is None else f"noise of phase {self.phase}",
               "status": self.status,
               name: None if self.scale is None else frac_str(self.scale),
               "target": {"epsilon": frac_str(self.target_epsilon), "delta": frac_str(self.delta)},
               "resolution": frac_str(self.resolution), "monotonicity": MONOTONE,
               "evaluations": self.evaluations, "message": self.message,
               "run": None if self.run is None else self.run.to_json()}
        if self.at is not None:
            out["delta_at_answer"] = self.at.to_json()
        if self.below is not None:
            out["delta_at_neighbour"] = self.below.to_json()
        return out


def scaled(run, c: Fraction, phase: int | None = None):
    """The run with every phase's noise multiplier times c; with ``phase`` (1-based), that
    phase's noise multiplier set to c and the others kept."""
    from verifier.core.run import Gaussian, Phase, Run
    return Run(tuple(Phase(Gaussian(c if i == phase else p.noise_multiplier
                                    if phase is not None else p.noise_multiplier * c),
                           p.sampler, p.steps)
                     for i, p in enumerate(run.phases, 1)))


def _grid(run, resolution: Fraction, phase: int | None) -> tuple:
    """(floor, ceiling, start) of the grid index n (the scale or the phase's sigma n *
    resolution) keeping every noise multiplier in the engines' range [0.3, 50]."""
    from verifier.bounds.poisson import RANGE
    lo_s, hi_s = RANGE.sigma
    if phase is None:
        sig = [p.noise_multiplier for p in run.phases]
        floor = math.ceil(lo_s / min(sig) / resolution)
        ceiling = math.floor(hi_s / max(sig) / resolution)
        start = round(1 / resolution)
    else:
        floor, ceiling = math.ceil(lo_s / resolution), math.floor(hi_s / resolution)
        start = round(run.phases[phase - 1].noise_multiplier / resolution)
    if floor > ceiling:
        raise InputError("no common scale keeps every phase's noise multiplier in the engine's "
                         "range [0.3, 50]" if phase is None else
                         f"resolution {frac_str(resolution)} leaves no grid point in [0.3, 50]")
    return floor, ceiling, min(max(start, floor), ceiling)


def check_phase(run, phase) -> int | None:
    """``phase`` as a 1-based index of one of the run's phases (or None: every phase)."""
    if phase is None:
        return None
    if isinstance(phase, bool) or not isinstance(phase, int) or not \
            1 <= phase <= len(run.phases):
        raise InputError(f"phase must be a phase number 1..{len(run.phases)} of the run, got "
                         f"{str(phase)[:40]}")
    return phase


def calibrate_run_scale(run, target_epsilon: Fraction, delta: Fraction,
                        resolution: Fraction = Fraction(1, 100), phase: int | None = None
                        ) -> RunScale:
    """The smallest grid scale c, or phase ``phase``'s smallest grid sigma (module
    docstring), searched over the engines' sigma range [0.3, 50] of every phase."""
    from verifier.bounds import runs
    from verifier.deploy.run_certify import meets
    if resolution <= 0:
        raise InputError(f"resolution must be > 0, got {frac_str(resolution)}")
    phase = check_phase(run, phase)
    runs.check(run, delta=delta, eps=target_epsilon)
    floor, ceiling, start = _grid(run, resolution, phase)
    what = "the noise scale c" if phase is None else f"phase {phase}'s noise multiplier"

    def pred(n):
        from verifier.core.progress import report
        report(f"calibrate the run: trying {what} = {frac_str(n * resolution)}")
        return meets(scaled(run, n * resolution, phase), target_epsilon, delta)
    s = calibrate(pred, start, floor, budget=ENGINE_BUDGET, ceiling=ceiling)
    common = dict(target_epsilon=target_epsilon, delta=delta, resolution=resolution,
                  phase=phase)
    if s.status == "found":
        c = s.value * resolution
        msg = ("" if s.below is not None else
               f"the smallest {what} in range ({frac_str(c)}) already meets the target")
        return RunScale("certified", c, scaled(run, c, phase), at=s.at, below=s.below,
                        evaluations=s.evaluations, message=msg, **common)
    if s.status == "beyond":
        return RunScale("infeasible", None, None, message=f"even the largest {what} in range "
                        f"({frac_str(ceiling * resolution)}) fails the target, certified",
                        **common)
    return RunScale("inconclusive", None, None, at=s.at, message=s.reason or "", **common)
