"""One bound at one point: a certified BoundEval (delta_E, attack accuracy, hypotheses,
whether the target is met), for every bound of the registry (verifier.bounds).

Bounds: each a certified upper bound on the E-epoch total variation delta_E, so
f >= 1 - a - delta_E and attack accuracy <= 1/2 + delta_E/2 (verifier.bounds.base).
Targets: ``delta`` (delta_E <= delta) or ``accuracy`` A (1/2 + delta_E/2 <= A, i.e.
delta_E <= 2A - 1).  The sigma of a point may be a ball (the branch and bound uses it).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.bounds import REGISTRY
from verifier.bounds.base import Bound
from verifier.bounds.theorem31 import Check
from verifier.core.arith import (DEFAULT_MAX_PREC, InputError, Interval, Tri, deprecated,
                                 parse_delta, parse_exact, sign_ge0, to_arb)
from verifier.core.decide import decide
from verifier.symbolic import derived as D

BOUNDS = tuple(REGISTRY)          # names, in registry order


@dataclass(frozen=True)
class Target:
    kind: str          # "delta" | "accuracy"
    value: Fraction

    @property
    def delta(self) -> Fraction:
        """The delta_E (TV) bound the target amounts to."""
        return self.value if self.kind == "delta" else 2 * self.value - 1

    @staticmethod
    def make(delta=None, accuracy=None) -> "Target":
        if (delta is None) == (accuracy is None):
            raise InputError("give exactly one target: --delta D or --target-accuracy A")
        if delta is not None:
            return Target("delta", parse_delta(delta))
        acc = parse_exact(accuracy, "target accuracy")
        if not Fraction(1, 2) < acc < 1:
            raise InputError(f"target accuracy must be in (1/2, 1), got {str(accuracy)[:40]}")
        parse_delta(2 * acc - 1, "target accuracy's delta 2A - 1")   # the same range
        return Target("accuracy", acc)


def resolve(bound) -> Bound:
    """A registry Bound from a Bound or a name (the one place a name becomes a bound)."""
    if isinstance(bound, Bound):
        return bound
    for b in REGISTRY.values():
        if bound in b.aliases:
            deprecated(f"bound {bound}", f"bound {b.name}")
            return b
    if bound not in REGISTRY:
        raise InputError(f"unknown bound {bound!r:.40} (expected all, {', '.join(BOUNDS)})")
    return REGISTRY[bound]


def check_bounds(bound: str) -> tuple:
    """The names a --bound value selects ('all': every registry bound)."""
    if bound == "all":
        return BOUNDS
    return (resolve(bound).name,)


@dataclass(frozen=True)
class BoundEval:
    bound: str                 # the registry name
    delta_epochs: Interval
    accuracy: Interval
    hypotheses: tuple          # Check per hypothesis (empty for chi-square)
    applicable: Tri
    meets: Tri
    precision: int

    @property
    def verdict(self) -> Tri:
        """HOLDS: valid and meets the target; FAILS: invalid or certainly misses it."""
        if self.applicable is Tri.FAILS or self.meets is Tri.FAILS:
            return Tri.FAILS
        if self.applicable is Tri.HOLDS and self.meets is Tri.HOLDS:
            return Tri.HOLDS
        return Tri.UNDECIDED

    def to_json(self) -> dict:
        out = {"delta_epochs": self.delta_epochs.to_json(), "accuracy": self.accuracy.to_json(),
               "applicable": self.applicable.value, "meets_target": self.meets.value,
               "verdict": self.verdict.value, "precision_bits": self.precision,
               "source": REGISTRY[self.bound].source}
        if self.hypotheses:
            out["hypotheses"] = {h.name: h.verdict.value for h in self.hypotheses}
            out["hypothesis_margins"] = {h.name: h.value.to_json() for h in self.hypotheses}
            out["reconstructed"] = True
        return out


def clamp_tv(x: arb) -> arb:
    """An enclosure of min(x, 1): a total-variation bound above 1 says only TV <= 1."""
    if not x.is_finite():
        return arb(0).union(arb(1))
    if x <= 1:
        return x
    if x >= 1:
        return arb(1)
    return arb(x.lower()).union(arb(1))


def _eval_at(bound: Bound, sigma: Fraction, M: int, E: int, target: Target, p: int) -> BoundEval:
    with ctx.workprec(p):
        dE, hyps = bound.ball(to_arb(sigma), M, E)
        dE = clamp_tv(dE)
        checks = tuple(Check(n, sign_ge0(g), Interval.of(g)) for n, g in hyps)
        vs = [c.verdict for c in checks]
        app = Tri.FAILS if Tri.FAILS in vs else Tri.UNDECIDED if Tri.UNDECIDED in vs else Tri.HOLDS
        meets = sign_ge0(to_arb(target.delta) - dE)
        acc = arb(1) / 2 + dE / 2
        return BoundEval(bound.name, Interval.of(dE), Interval.of(acc), checks, app, meets, p)


def evaluate(bound, sigma, M, E, target: Target, max_prec=DEFAULT_MAX_PREC) -> BoundEval:
    """Certified figures of one bound (a Bound or its name), precision raised until every
    verdict is decided (a certain failure at 256 bits is enough for the searches)."""
    b = resolve(bound)

    def settled(ev):
        return (ev.meets is not Tri.UNDECIDED and ev.applicable is not Tri.UNDECIDED
                and all(h.verdict is not Tri.UNDECIDED for h in ev.hypotheses)) or (
            ev.verdict is Tri.FAILS and ev.precision >= 256)
    return decide(lambda p: _eval_at(b, sigma, M, E, target, p), settled, max_prec)


def comparisons(sigma: Fraction, M: int, E: int, prec: int = 128) -> dict:
    """Gaussian-DP comparisons of docs/THEORY.md section 5 (asymptotic; NOT certified bounds
    for random allocation, though evaluated in ball arithmetic)."""
    with ctx.workprec(prec):
        s, Ma, Ea = to_arb(sigma), arb(M), arb(E)
        mp_, mu_ = D.mu_poisson(Ma, s, Ea), D.mu_uniform(Ma, s, Ea)
        tp, tu = D.gaussian_tv(mp_), D.gaussian_tv(mu_)
        return {"mu_poisson": Interval.of(mp_), "tv_poisson": Interval.of(tp),
                "accuracy_poisson": Interval.of(arb(1) / 2 + tp / 2),
                "mu_uniform": Interval.of(mu_), "tv_uniform": Interval.of(tu),
                "accuracy_uniform": Interval.of(arb(1) / 2 + tu / 2)}
