"""M_exact and M_certified: the certified searches over M for Theorem 3.1 of arXiv
2605.06259 v1 (RECONSTRUCTED; docs/THEORY.md section 3), with their certificates.

M_exact is Table 1's definition (condition (2) at the target delta), M_certified the
smallest M the theorem certifies (condition (2) at delta_rhs(M)); both rest on the
monotonicity in M of every term and hypothesis (proof checks monotonicity.*).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.bounds.theorem31 import (HYPOTHESES, TARGET_CONDITION, Check, check_coef,
                                       closed_form, coef_value, delta_rhs_ball, needed_steps)
from verifier.core.arith import (DEFAULT_MAX_PREC, MAX_SEARCH_STEPS, InputError, Interval, Tri,
                                 sign_ge0, to_arb)
from verifier.core.decide import decide
from verifier.core.search import CLOSED_FORM_BUDGET, calibrate
from verifier.symbolic import derived as D

# ---------------------------------------------------------------------------
# M_exact: certified bisection
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PointEval:
    """All conditions of the M_exact predicate at one M, at one precision."""

    steps: int
    verdict: Tri
    checks: tuple  # Check per condition
    precision: int

    def failing(self):
        return [c for c in self.checks if c.verdict is Tri.FAILS]

    def to_json(self) -> dict:
        return {"steps": self.steps, "verdict": self.verdict.value, "precision_bits": self.precision,
                "checks": [c.to_json() for c in self.checks]}


READINGS = {
    # Table 1's definition (docs/THEORY.md section 3): the target delta in condition (2)
    "table1": "condition (2) at the target delta (Table 1's definition of M_exact)",
    # what the theorem certifies: (2) at delta = delta_rhs(M) <= delta (f_{0,d} is weaker
    # for larger d, and (2) is weakest at the smallest delta)
    "theorem": "condition (2) at delta = delta_rhs(M) (the smallest M the theorem certifies)",
}


@dataclass(frozen=True)
class StepsResult:
    sigma: Fraction
    delta: Fraction
    coef: str
    status: str                    # "certified" | "infeasible" | "inconclusive" | "beyond-range"
    m_exact: int | None
    closed_form: Interval          # M_BE
    at_m: PointEval | None         # every condition holds here
    below: PointEval | None        # some condition certifiably fails here (None if m_exact == 3)
    evaluations: int
    message: str = ""
    reading: str = "table1"

    @property
    def value(self) -> int | None:
        return self.m_exact

    @property
    def certificate(self) -> dict:
        """The evidence: every condition at M (holds) and at M - 1 (fails), the evaluations."""
        return {"at_m": self.at_m, "at_m_minus_1": self.below, "evaluations": self.evaluations}

    min_n = None    # the minimum dataset size needs a noise level: min_samples(), to_json(min_n)

    def to_json(self, min_n: int | None = None) -> dict:
        return {"status": self.status, "value": self.value, "reading": self.reading,
                "min_n": min_n,
                "certificate": {"at_m": self.at_m.to_json() if self.at_m else None,
                                "at_m_minus_1": self.below.to_json() if self.below else None,
                                "evaluations": self.evaluations},
                "message": self.message}


class _Predicate:
    """P(M) = [delta_rhs(M) <= delta] and every hypothesis of Theorem 3.1.

    P is monotone in M (false, then true) because every term T1..T6 decreases
    in M and every hypothesis, once true, stays true as M grows: proof checks
    ``monotonicity.T1-decreases-in-M`` ... ``monotonicity.T6-decreases-in-M`` and
    ``monotonicity.hypotheses-persist-in-M`` (proofs_checks/monotonicity.py).
    The bisection relies on it.  With ``reading = "theorem"`` condition (2) is taken at
    delta = delta_rhs(M) (an enclosure of the pointwise margin); it persists too: the margin
    decreases in delta and delta_rhs decreases in M (proof check
    monotonicity.condition-2-at-delta-rhs-persists-in-M).
    """

    def __init__(self, sigma: Fraction, delta: Fraction, coef: str, max_prec: int,
                 reading: str = "table1"):
        self.sigma, self.delta, self.coef, self.max_prec = sigma, delta, coef, max_prec
        self.reading = reading
        self._consts = {}

    def consts(self, p):
        k = self._consts.get(p)
        if k is None:
            k = (to_arb(self.sigma), coef_value(self.sigma, self.coef), to_arb(self.delta))
            self._consts[p] = k
        return k

    def at(self, M: int, p: int) -> PointEval:
        with ctx.workprec(p):
            s, c, d = self.consts(p)
            Ma = arb(M)
            g2 = D.hyp_sigma(Ma, s)
            _, d_rhs = delta_rhs_ball(Ma, s, c)
            g0 = d - d_rhs
            g3 = D.hyp_validity(Ma, s, c, d if self.reading == "table1" else d_rhs)
            gs = ((TARGET_CONDITION, g0), (HYPOTHESES[1], g2), (HYPOTHESES[2], g3))
            checks = tuple(Check(n, sign_ge0(g), Interval.of(g)) for n, g in gs)
        vs = [ch.verdict for ch in checks]
        v = (Tri.FAILS if Tri.FAILS in vs else Tri.HOLDS if all(x is Tri.HOLDS for x in vs)
             else Tri.UNDECIDED)
        return PointEval(M, v, checks, p)

    def __call__(self, M: int):
        ev = decide(lambda p: self.at(M, p), lambda e: e.verdict is not Tri.UNDECIDED,
                    self.max_prec)
        return ev.verdict, ev


def _limit_feasible(sigma: Fraction, delta: Fraction, max_prec: int) -> Tri:
    """Is some M feasible?  As M -> infinity every term -> 0 and hypothesis 2
    eventually holds, while condition (2) tends to 1/2 - delta - Phi(-kappa)
    from below.  HOLDS if that limit is certainly > 0, FAILS if certainly <= 0."""
    def at(p):
        with ctx.workprec(p):
            # hyp_validity with coef = 0 is exactly the M-free limit
            g = D.hyp_validity(arb(3), to_arb(sigma), arb(0), to_arb(delta))
            return Tri.HOLDS if g > 0 else Tri.FAILS if g <= 0 else Tri.UNDECIDED
    return decide(at, lambda v: v is not Tri.UNDECIDED, max_prec)


def steps_exact(sigma: Fraction, delta: Fraction, coef: str = "simplified",
                max_prec: int = DEFAULT_MAX_PREC, reading: str = "table1") -> StepsResult:
    """The smallest integer M >= 3 with delta_rhs(M) <= delta and every hypothesis of
    Theorem 3.1 holding, with its certificate.  ``reading``: "table1" (condition (2) at the
    target delta: Table 1's M_exact) or "theorem" (at delta_rhs(M): the smallest M the
    theorem certifies, M_certified <= M_exact); see READINGS."""
    coef = check_coef(coef)
    if reading not in READINGS:
        raise InputError(f"unknown reading {reading!r} (expected one of {', '.join(READINGS)})")
    cf = closed_form(sigma, delta, coef, max_prec)
    pred = _Predicate(sigma, delta, coef, max_prec, reading)

    def result(status, m=None, at=None, below=None, message="", evaluations=0):
        return StepsResult(sigma, delta, coef, status, m, cf, at, below, evaluations, message,
                           reading)

    if reading == "table1":
        lim = _limit_feasible(sigma, delta, max_prec)
        if lim is Tri.FAILS:
            return result("infeasible", message=(
                "no M satisfies validity condition (2) at the target delta: "
                "1/2 - delta - Phi(-s2/2) <= 0"))
        if lim is Tri.UNDECIDED:
            return result("inconclusive", message="feasibility limit undecided at the precision cap")
    # with (2) at delta_rhs(M) every sigma is eventually feasible: the margin tends to
    # 1/2 - Phi(-s2/2) > 0 as M grows (every term -> 0)
    need = needed_steps(sigma, cf)
    if need is None or need > MAX_SEARCH_STEPS:
        return result("beyond-range", message=(
            "every feasible M exceeds the supported range M <= 1e40 (certified: M >= M_BE "
            "and M >= e^{3/sigma^2})"))
    # M_BE is a lower bound of M_exact (delta_rhs > T1 + T2, and T1 + T2 <= delta iff
    # M >= M_BE: proof check interpretation.closed-form-lower-bound), so the search
    # starts there; the answer is certified only by direct evaluation at M_exact
    # and M_exact - 1.
    s = calibrate(pred, max(3, math.floor(need)), 3, budget=CLOSED_FORM_BUDGET,
                  ceiling=MAX_SEARCH_STEPS)
    if s.status == "undecided":
        return result("inconclusive", at=s.at, message=(
            f"conditions at M = {s.undecided_at} undecided at the precision cap ({max_prec} bits)"))
    if not s.found:
        return result("beyond-range" if s.status == "beyond" else "inconclusive",
                      message=f"search stopped: {s.reason}")
    return result("certified", s.value, s.at, s.below, evaluations=s.evaluations)


def min_samples(m_exact: int, sigma: Fraction, noise_level: Fraction = Fraction(1, 10)) -> int:
    """Min N = ceil(sigma M_exact / level): per-round noise C sigma M / N <= level
    with C = 1 (docs/THEORY.md section 3; level 0.1 gives the paper's 10 sigma M_exact)."""
    q = sigma * m_exact / noise_level
    return -((-q.numerator) // q.denominator)
