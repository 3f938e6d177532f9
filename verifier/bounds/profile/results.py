"""The answers of the (epsilon, delta) engine of random allocation: delta(eps) and
epsilon(delta) brackets with each direction's (verifier.bounds.profile)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import Interval, frac_str
from verifier.numerics.brackets import DeltaAnswer, EpsilonAnswer


class _PairRun:
    """What both answers of the pair share: their CERTIFIED statement and the run's JSON keys."""

    @property
    def CERTIFIED(self) -> str:
        return CERTIFIED

    def run_json(self) -> dict:
        return {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs}


@dataclass(frozen=True)
class DeltaResult(_PairRun, DeltaAnswer):
    sigma: Fraction
    steps: int
    epochs: int
    epsilon: Fraction
    delta: Interval              # delta(eps) = max of the two directions
    remove: Interval
    add: Interval
    larger: str                  # "remove", "add" or "undecided"
    seconds: float
    info: dict

    def to_json(self) -> dict:
        return {**self.run_json(), "epsilon": frac_str(self.epsilon), **self.answer_json()}


@dataclass(frozen=True)
class EpsilonResult(_PairRun, EpsilonAnswer):
    sigma: Fraction
    steps: int
    epochs: int
    delta: Fraction
    epsilon: Interval | None     # None: inconclusive (no certified upper end within [0, 60])
    remove: Interval | None
    add: Interval | None
    larger: str
    seconds: float
    info: dict

    def to_json(self) -> dict:
        return {**self.run_json(), "delta": frac_str(self.delta), **self.answer_json()}


CERTIFIED = ("rigorous bracket: upper ends by convex-order spreads and monotone moves of each "
             "epoch's law (charges for what is left out), lower ends by explicit tests; every "
             "number an Arb ball (DFTs included); epsilon by certified bisection "
             "(docs/THEORY.md section 9)")
