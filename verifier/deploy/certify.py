"""certify: every bound of the registry at deployed parameters, against one target."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import DEFAULT_MAX_PREC, Tri
from verifier.deploy.evaluate import Target, check_bounds, comparisons, evaluate


@dataclass(frozen=True)
class Certificate:
    """Result of ``certify``: every figure an Interval, every verdict three-valued."""

    sigma: Fraction
    steps: int
    epochs: int
    samples: int | None
    clip: Fraction
    target: Target
    bounds: dict            # bound name -> BoundEval
    comparisons: dict       # name -> Interval (asymptotic, not certified bounds)
    noise_per_round: Fraction | None

    @property
    def status(self) -> str:
        vs = [b.verdict for b in self.bounds.values()]
        if Tri.HOLDS in vs:
            return "certified"
        if Tri.UNDECIDED in vs:
            return "inconclusive"
        return "not-certified"

    @property
    def certified(self) -> bool:
        return self.status == "certified"


def certify(sigma: Fraction, steps: int, epochs: int, target: Target, bound: str = "all",
            samples: int | None = None, clip: Fraction = Fraction(1),
            max_prec: int = DEFAULT_MAX_PREC) -> Certificate:
    names = check_bounds(bound)
    evs = {b: evaluate(b, sigma, steps, epochs, target, max_prec) for b in names}
    noise = clip * sigma * steps / samples if samples else None
    return Certificate(sigma, steps, epochs, samples, clip, target, evs,
                       comparisons(sigma, steps, epochs), noise)


