"""Every view of one deployment in one table: the exact epsilon(delta) of the
privacy profile beside the (epsilon, delta) that the Rényi curve and its zCDP compression
give, TV and attack accuracy, each certified, with what each conversion loses.

The loss of a conversion is (its certified epsilon) - (the exact epsilon(delta)): an
interval [conv.lower - exact.upper, conv.upper - exact.lower]; every conversion is an upper
bound of the exact epsilon, so the loss is >= 0 (the test suite checks that its interval
does not lie below 0)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import Interval, decimal_str, frac_str


@dataclass(frozen=True)
class ViewRow:
    name: str
    value: Interval           # epsilon (or TV / accuracy) bracket
    loss: Interval | None     # epsilon - exact epsilon, for the conversions
    note: str

    def to_json(self) -> dict:
        return {"name": self.name, "value": self.value.to_json(),
                "loss": None if self.loss is None else self.loss.to_json(), "note": self.note}


@dataclass(frozen=True)
class ViewsSummary:
    delta: Fraction
    rows: tuple
    rho: Interval
    renyi: object             # RenyiCurve
    tradeoff: object          # TradeoffCurve

    def to_json(self) -> dict:
        return {"delta": frac_str(self.delta), "rows": [r.to_json() for r in self.rows],
                "zcdp_rho": self.rho.to_json(),
                "tradeoff": self.tradeoff.to_json() if self.tradeoff is not None else None,
                "certified": "each value a rigorous bracket (docs/THEORY.md sections 9 and 10); "
                             "a conversion's loss is its epsilon minus the exact epsilon"}


def conversion_loss(conv: Interval, exact: Interval | None) -> Interval | None:
    """(a conversion's epsilon) - (the exact epsilon), as an interval; None without exact."""
    if exact is None:
        return None
    return Interval(conv.lower - exact.upper, conv.upper - exact.lower)


def views_summary(sigma: Fraction, M: int, E: int, delta: Fraction, exact_eps: Interval | None,
                  tv: Interval, accuracy: Interval, with_tradeoff: bool = True) -> ViewsSummary:
    from verifier.views.renyi import renyi_curve
    from verifier.views.tradeoff import tradeoff_curve
    rc = renyi_curve(sigma, M, E, refine_delta=delta)
    rows = [ViewRow("exact epsilon(delta): privacy profile", exact_eps or Interval(None, None),
                    Interval(Fraction(0), Fraction(0)) if exact_eps else None,
                    "both directions, certified bisection (the reference)")]
    for name, cv in (("Rényi curve, improved conversion", rc.to_epsilon(delta)),
                     ("Rényi curve, classical conversion", rc.to_epsilon(delta, improved=False)),
                     ("zCDP, improved conversion", rc.zcdp_epsilon(delta)),
                     ("zCDP, classical conversion", rc.zcdp_epsilon(delta, improved=False))):
        rows.append(ViewRow(name, cv.epsilon, conversion_loss(cv.epsilon, exact_eps),
                            f"{cv.name}, order {decimal_str(Fraction(cv.alpha), 6)}"))
    rows.append(ViewRow("TV = delta(0)", tv, None, "the exact TV from the same profile"))
    rows.append(ViewRow("attack accuracy 1/2 + TV/2", accuracy, None, "membership inference, "
                                                                    "equal priors"))
    to = tradeoff_curve(sigma, M, E, points=41) if with_tradeoff else None
    return ViewsSummary(delta, tuple(rows), rc.rho, rc, to)
