"""Certified evaluation of Theorem 3.1 of arXiv 2605.06259 v1 (RECONSTRUCTED).

The formulas are the generated evaluators of ``verifier._derived`` (printed
from the SymPy expressions in ``verifier.symbolic.theorem31``); this module
adds precision control, three-valued hypothesis verdicts, the closed form (4),
the certified M_exact search and the E-epoch composition.

Statement used (docs/THEORY.md section 3, our reconstruction of the paper's
Theorem 3.1, which reproduces all 30 cells of Table 1): if M >= 3,
sigma >= sqrt(3/ln M), validity condition (2) holds and
delta >= delta_rhs(M, sigma) = T1 + ... + T6, one epoch is f_{0,delta}-DP.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from . import _derived as D
from .search import SearchLimit, Undecided, smallest_int
from .arith import (DEFAULT_MAX_PREC, MAX_SEARCH_STEPS, InputError, Interval, Tri, precisions,
                    sign_ge0, to_arb)

SOURCE = "Theorem 3.1 of arXiv 2605.06259 v1"
RECONSTRUCTED_NOTE = (
    "Theorem 3.1 as reconstructed in docs/THEORY.md section 3 (the public text of "
    "arXiv 2605.06259 v1 is lossy); validity condition (2) is reconstructed "
    "from Lemma E.1. The reconstruction reproduces all 30 cells of Table 1.")

COEFS = {
    # simplification (22): coef_S = (e^{3u} + 4)/s2^2  (the theorem as stated)
    "simplified": D.coef_simplified,
    # Section 3.1: the exact factor coef_X = rho3/s2^2 "in both places"
    "exact": D.coef_exact,
}

TERM_NAMES = ("T1", "T2", "T3", "T4", "T5", "T6")
HYPOTHESES = ("steps_at_least_3", "sigma_at_least_sqrt_3_over_ln_M", "validity_condition_2")
TARGET_CONDITION = "delta_rhs_at_most_delta"

# Relative accuracy asked of reported enclosures (bits); raised precision
# is used until an enclosure is at least this tight or the cap is reached.
REPORT_ACCURACY_BITS = 60
# Largest number of predicate evaluations in one M_exact search.
MAX_SEARCH_EVALUATIONS = 20000


def check_coef(coef: str) -> str:
    if coef not in COEFS:
        raise InputError(f"unknown coef {coef!r} (expected 'simplified' or 'exact')")
    return coef


def coef_value(sigma: Fraction, coef: str) -> arb:
    """coef_S or coef_X at sigma, at the current precision."""
    return COEFS[check_coef(coef)](to_arb(sigma))


# ---------------------------------------------------------------------------
# delta_rhs and the hypotheses at one (M, sigma)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Check:
    """One condition, 'holds' iff value >= 0 (value is a certified enclosure)."""

    name: str
    verdict: Tri
    value: Interval

    def to_json(self) -> dict:
        return {"name": self.name, "verdict": self.verdict.value, "margin": self.value.to_json()}


@dataclass(frozen=True)
class BoundResult:
    sigma: Fraction
    steps: int
    coef: str
    epochs: int
    terms: tuple            # Interval per T1..T6
    delta: Interval         # delta_rhs (one epoch)
    delta_epochs: Interval  # 1 - (1 - delta_rhs)^E
    coef_value: Interval
    hypotheses: tuple       # Check per hypothesis
    precision: int          # bits of the final evaluation
    accuracy_bits: int      # relative accuracy of delta and delta_E (bits)

    @property
    def applicable(self) -> Tri:
        vs = [h.verdict for h in self.hypotheses]
        if Tri.FAILS in vs:
            return Tri.FAILS
        if Tri.UNDECIDED in vs:
            return Tri.UNDECIDED
        return Tri.HOLDS

    def meets(self, target: Fraction) -> Tri:
        """Is the E-epoch value certified <= target (delta_rhs itself when E = 1)?  The
        target of every command is over all epochs (one meaning of --delta)."""
        d = self.delta_epochs
        if not d.finite:
            return Tri.UNDECIDED
        return Tri.HOLDS if d.upper <= target else Tri.FAILS if d.lower > target else Tri.UNDECIDED


def _rel_bits(x: arb) -> int:
    return x.rel_accuracy_bits() if x.is_finite() else -1


def delta_epochs_ball(delta: arb, epochs: int) -> arb:
    """delta_E = 1 - (1 - delta)^E (Dong, Roth & Su 2019, Lemma C.2; docs/THEORY.md section 5),
    evaluated as -expm1(E log1p(-delta)) to avoid cancellation."""
    if not delta.is_finite():   # unknown delta (>= 0, a sum of positive terms): [0, 1]
        return arb(0).union(arb(1))
    if delta < 1:
        if epochs == 1:
            return delta
        return -(epochs * (-delta).log1p()).expm1()
    if delta >= 1:          # a per-epoch delta >= 1 is vacuous, and so is its composition
        return arb(1)
    lo = arb(delta.lower())  # the ball straddles 1: [delta_E(lower), 1]
    return (-(epochs * (-lo).log1p()).expm1()).union(arb(1))


def steps_margin(M: int) -> int:
    """Hypothesis 1 of Theorem 3.1: M >= 3 holds iff M - 3 >= 0."""
    return M - 3


def _hyp_checks(M: int, sigma: Fraction, coef_ball: arb, delta_for_2: arb):
    Ma, s = arb(M), to_arb(sigma)
    g2 = D.hyp_sigma(Ma, s)
    g3 = D.hyp_validity(Ma, s, coef_ball, delta_for_2)
    return (
        Check(HYPOTHESES[0], Tri.HOLDS if steps_margin(M) >= 0 else Tri.FAILS,
              Interval.of(Fraction(steps_margin(M)))),
        Check(HYPOTHESES[1], sign_ge0(g2), Interval.of(g2)),
        Check(HYPOTHESES[2], sign_ge0(g3), Interval.of(g3)),
    )


def bound(sigma: Fraction, steps: int, coef: str = "simplified", epochs: int = 1,
          delta: Fraction | None = None, max_prec: int = DEFAULT_MAX_PREC) -> BoundResult:
    """Certified delta_rhs(M, sigma), its terms and the hypothesis verdicts.

    Validity condition (2) is checked at delta = delta_rhs itself (its upper end): the
    theorem applied with that delta certifies f_{0,delta_rhs}, hence f_{0,delta} for every
    delta >= delta_rhs, and (2) is weakest at the smallest delta (proof check
    interpretation.condition-2-at-delta-rhs).  ``delta``, a target over all epochs, is
    judged by ``BoundResult.meets``.  Precision is raised until every hypothesis is decided
    and delta_rhs is known to REPORT_ACCURACY_BITS, or the cap; once a hypothesis certainly
    fails (the theorem says nothing) a 64-bit enclosure is reported as it is.
    """
    check_coef(coef)
    if steps < 3:
        raise InputError(f"steps must be >= 3 (Theorem 3.1 needs M >= 3), got {steps}")
    result = None
    for p in precisions(max_prec):
        result = bound_at(sigma, steps, coef, epochs, None, p)
        decided = all(h.verdict is not Tri.UNDECIDED for h in result.hypotheses)
        if decided and (result.accuracy_bits >= REPORT_ACCURACY_BITS
                        or result.applicable is Tri.FAILS):
            break
    return result


def bound_at(sigma: Fraction, steps: int, coef: str, epochs: int, delta: Fraction | None,
             prec: int) -> BoundResult:
    """``bound`` at one working precision (no escalation).  ``delta``: the delta used in
    condition (2) (None: delta_rhs itself, the theorem's reading; see ``bound``)."""
    with ctx.workprec(prec):
        c = coef_value(sigma, coef)
        ts = D.terms(arb(steps), to_arb(sigma), c)
        d = sum(ts[1:], ts[0])
        d_for_2 = to_arb(delta) if delta is not None else arb(d.upper())
        hyps = _hyp_checks(steps, sigma, c, d_for_2)
        dE = delta_epochs_ball(d, epochs)
        return BoundResult(sigma, steps, coef, epochs, tuple(Interval.of(t) for t in ts),
                           Interval.of(d), Interval.of(dE), Interval.of(c), hyps, prec,
                           min(_rel_bits(d), _rel_bits(dE)))


def closed_form_ball(sigma: Fraction, delta: Fraction, coef: str) -> arb:
    """M_BE = 1 + ((2 B coef + 1/sqrt(2 pi)) sqrt(s2)/delta)^2, closed form (4)
    of arXiv 2605.06259 v1 (T1 + T2 = delta solved for M), at ctx.prec."""
    return D.closed_form_steps(to_arb(sigma), coef_value(sigma, coef), to_arb(delta))


def closed_form(sigma: Fraction, delta: Fraction, coef: str = "simplified",
                max_prec: int = DEFAULT_MAX_PREC) -> Interval:
    for p in precisions(max_prec):
        with ctx.workprec(p):
            x = closed_form_ball(sigma, delta, coef)
            if _rel_bits(x) >= REPORT_ACCURACY_BITS:
                break
    return Interval.of(x)


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


class _Predicate:
    """P(M) = [delta_rhs(M) <= delta] and every hypothesis of Theorem 3.1.

    P is monotone in M (false, then true) because every term T1..T6 decreases
    in M and every hypothesis, once true, stays true as M grows: proof checks
    ``monotonicity.T1-decreases-in-M`` ... ``monotonicity.T6-decreases-in-M`` and
    ``monotonicity.hypotheses-persist-in-M`` (proofs_checks/monotonicity.py).
    The bisection relies on it.  With ``reading = "theorem"`` condition (2) is taken at
    delta = delta_rhs(M) (an enclosure of the pointwise margin); it persists too: the margin
    decreases in delta and delta_rhs decreases in M (monotonicity.condition-2-at-delta-rhs).
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

    def __call__(self, M: int):
        ev = None
        for p in precisions(self.max_prec):
            with ctx.workprec(p):
                s, c, d = self.consts(p)
                Ma = arb(M)
                g2 = D.hyp_sigma(Ma, s)
                ts = D.terms(Ma, s, c)
                d_rhs = sum(ts[1:], ts[0])
                g0 = d - d_rhs
                g3 = D.hyp_validity(Ma, s, c, d if self.reading == "table1" else d_rhs)
                gs = ((TARGET_CONDITION, g0), (HYPOTHESES[1], g2), (HYPOTHESES[2], g3))
                checks = tuple(Check(n, sign_ge0(g), Interval.of(g)) for n, g in gs)
            vs = [ch.verdict for ch in checks]
            if Tri.FAILS in vs:
                ev = PointEval(M, Tri.FAILS, checks, p)
                break
            if all(v is Tri.HOLDS for v in vs):
                ev = PointEval(M, Tri.HOLDS, checks, p)
                break
            ev = PointEval(M, Tri.UNDECIDED, checks, p)
        return ev.verdict, ev


def _limit_feasible(sigma: Fraction, delta: Fraction, max_prec: int) -> Tri:
    """Is some M feasible?  As M -> infinity every term -> 0 and hypothesis 2
    eventually holds, while condition (2) tends to 1/2 - delta - Phi(-kappa)
    from below.  HOLDS if that limit is certainly > 0, FAILS if certainly <= 0."""
    for p in precisions(max_prec):
        with ctx.workprec(p):
            # hyp_validity with coef = 0 is exactly the M-free limit
            g = D.hyp_validity(arb(3), to_arb(sigma), arb(0), to_arb(delta))
            if g > 0:
                return Tri.HOLDS
            if g <= 0:
                return Tri.FAILS
    return Tri.UNDECIDED


def _needed_steps(sigma: Fraction, cf: Interval) -> Fraction | None:
    """A certified lower bound of every feasible M: M_BE (closed form (4), proof check
    interpretation.closed-form-lower-bound) and e^{3/sigma^2} (hypothesis 2:
    sigma >= sqrt(3/ln M) iff M >= e^{3/sigma^2}); None if not finite."""
    with ctx.workprec(64):
        e = Interval.of((3 / to_arb(sigma) ** 2).exp())
    lows = [x.lower for x in (cf, e) if x.finite]
    return max(lows) if lows else None


def steps_exact(sigma: Fraction, delta: Fraction, coef: str = "simplified",
                max_prec: int = DEFAULT_MAX_PREC, reading: str = "table1") -> StepsResult:
    """The smallest integer M >= 3 with delta_rhs(M) <= delta and every hypothesis of
    Theorem 3.1 holding, with its certificate.  ``reading``: "table1" (condition (2) at the
    target delta: Table 1's M_exact) or "theorem" (at delta_rhs(M): the smallest M the
    theorem certifies, M_certified <= M_exact); see READINGS."""
    check_coef(coef)
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
    need = _needed_steps(sigma, cf)
    if need is None or need > MAX_SEARCH_STEPS:
        return result("beyond-range", message=(
            "every feasible M exceeds the supported range M <= 1e40 (certified: M >= M_BE "
            "and M >= e^{3/sigma^2})"))
    # M_BE is a lower bound of M_exact (delta_rhs > T1 + T2, and T1 + T2 <= delta iff
    # M >= M_BE: proof check interpretation.closed-form-lower-bound), so the search
    # starts there; the answer is certified only by direct evaluation at M_exact
    # and M_exact - 1.
    try:
        m, at, below, n = smallest_int(pred, max(3, math.floor(need)), 3, MAX_SEARCH_EVALUATIONS,
                                       ceiling=MAX_SEARCH_STEPS)
    except Undecided as u:
        return result("inconclusive", at=u.ev, message=(
            f"conditions at M = {u.n} undecided at the precision cap ({max_prec} bits)"))
    except SearchLimit as e:
        return result("beyond-range" if e.beyond else "inconclusive", message=f"search stopped: {e}")
    return result("certified", m, at, below, evaluations=n)


def min_samples(m_exact: int, sigma: Fraction, noise_level: Fraction = Fraction(1, 10)) -> int:
    """Min N = ceil(sigma M_exact / level): per-round noise C sigma M / N <= level
    with C = 1 (docs/THEORY.md section 3; level 0.1 gives the paper's 10 sigma M_exact)."""
    q = sigma * m_exact / noise_level
    return -((-q.numerator) // q.denominator)
