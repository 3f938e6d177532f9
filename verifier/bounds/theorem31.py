"""Certified evaluation of Theorem 3.1 of arXiv 2605.06259 v1 (RECONSTRUCTED).

The formulas are the generated evaluators of ``verifier.symbolic.derived`` (printed
from the SymPy expressions in ``verifier.symbolic.terms``); this module adds precision
control, three-valued hypothesis verdicts, the closed form (4), the E-epoch composition
and the two Bound objects of the registry (verifier.bounds).  The searches over M live
in ``verifier.bounds.theorem31_steps``.

Statement used (docs/THEORY.md section 3, our reconstruction of the paper's
Theorem 3.1, which reproduces all 30 cells of Table 1): if M >= 3,
sigma >= sqrt(3/ln M), validity condition (2) holds and
delta >= delta_rhs(M, sigma) = T1 + ... + T6, one epoch is f_{0,delta}-DP.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from flint import arb, ctx

from verifier.bounds.base import Bound
from verifier.core.arith import (DEFAULT_MAX_PREC, InputError, Interval, Tri, deprecated,
                                 sign_ge0, to_arb)
from verifier.core.decide import decide
from verifier.symbolic import derived as D

SOURCE = "Theorem 3.1 of arXiv 2605.06259 v1"
RECONSTRUCTED_NOTE = (
    "Theorem 3.1 as reconstructed in docs/THEORY.md section 3 (the public text of "
    "arXiv 2605.06259 v1 is lossy); validity condition (2) is reconstructed "
    "from Lemma E.1. The reconstruction reproduces all 30 cells of Table 1.")

COEFS = {
    # simplification (22): coef_S = (e^{3u} + 4)/s2^2  (the theorem as stated)
    "simplified": D.coef_simplified,
    # Section 3.1: the paper's "exact factor" coef_X = rho3/s2^2 "in both places", rho3 the
    # third absolute central moment itself (named rho3 here: "exact" means the exact TV)
    "rho3": D.coef_rho3,
}
# the former spelling, accepted for one release with a deprecation note
COEF_ALIASES = {"exact": "rho3"}

TERM_NAMES = ("T1", "T2", "T3", "T4", "T5", "T6")
HYPOTHESES = ("steps_at_least_3", "sigma_at_least_sqrt_3_over_ln_M", "validity_condition_2")
TARGET_CONDITION = "delta_rhs_at_most_delta"

# Relative accuracy asked of reported enclosures (bits); raised precision
# is used until an enclosure is at least this tight or the cap is reached.
REPORT_ACCURACY_BITS = 60


def check_coef(coef: str) -> str:
    """The canonical factor name ('simplified' or 'rho3'; 'exact' a deprecated alias)."""
    if coef in COEF_ALIASES:
        deprecated(f"coef {coef}", f"coef {COEF_ALIASES[coef]}")
        coef = COEF_ALIASES[coef]
    if coef not in COEFS:
        raise InputError(f"unknown coef {str(coef)!r:.40} (expected 'simplified' or 'rho3')")
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
    target: Fraction | None = None   # a target delta over all epochs (``meets``), if given

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
        return self.delta_epochs.at_most(target)

    # the attributes behind the JSON keys
    source = SOURCE
    reconstructed = RECONSTRUCTED_NOTE

    @property
    def precision_bits(self) -> int:
        return self.precision

    @property
    def hypothesis_margins(self) -> dict:
        return {h.name: h.value for h in self.hypotheses}

    @property
    def target_delta(self) -> Fraction | None:
        return self.target

    @property
    def meets_target(self) -> Tri | None:
        return None if self.target is None else self.meets(self.target)

    def to_json(self) -> dict:
        from verifier.core.arith import frac_str
        out = {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs,
               "coef": self.coef, "delta": self.delta.to_json(),
               "delta_epochs": self.delta_epochs.to_json(),
               "terms": {n: t.to_json() for n, t in zip(TERM_NAMES, self.terms)},
               "coef_value": self.coef_value.to_json(),
               "hypotheses": {h.name: h.verdict.value for h in self.hypotheses},
               "hypothesis_margins": {k: v.to_json() for k, v in self.hypothesis_margins.items()},
               "applicable": self.applicable.value, "precision_bits": self.precision_bits,
               "source": self.source, "reconstructed": self.reconstructed}
        if self.target is not None:
            out["target_delta"] = frac_str(self.target)
            out["meets_target"] = self.meets_target.value
        return out


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


def delta_rhs_ball(Ma: arb, s: arb, c: arb):
    """(T1, ..., T6) and delta_rhs = T1 + ... + T6 at the current precision: the one place
    the six terms are summed."""
    ts = D.terms(Ma, s, c)
    return ts, sum(ts[1:], ts[0])


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
    coef = check_coef(coef)
    if steps < 3:
        raise InputError(f"steps must be >= 3 (Theorem 3.1 needs M >= 3), got {steps}")

    def settled(r):
        decided = all(h.verdict is not Tri.UNDECIDED for h in r.hypotheses)
        return decided and (r.accuracy_bits >= REPORT_ACCURACY_BITS or r.applicable is Tri.FAILS)
    r = decide(lambda p: bound_at(sigma, steps, coef, epochs, None, p), settled, max_prec)
    return r if delta is None else replace(r, target=delta)


def bound_at(sigma: Fraction, steps: int, coef: str, epochs: int, delta: Fraction | None,
             prec: int) -> BoundResult:
    """``bound`` at one working precision (no escalation).  ``delta``: the delta used in
    condition (2) (None: delta_rhs itself, the theorem's reading; see ``bound``)."""
    with ctx.workprec(prec):
        c = coef_value(sigma, coef)
        ts, d = delta_rhs_ball(arb(steps), to_arb(sigma), c)
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
    def at(p):
        with ctx.workprec(p):
            return closed_form_ball(sigma, delta, coef)
    return Interval.of(decide(at, lambda x: _rel_bits(x) >= REPORT_ACCURACY_BITS, max_prec))


def needed_steps(sigma: Fraction, cf: Interval) -> Fraction | None:
    """A certified lower bound of every feasible M: M_BE (closed form (4), proof check
    interpretation.closed-form-lower-bound) and e^{3/sigma^2} (hypothesis 2:
    sigma >= sqrt(3/ln M) iff M >= e^{3/sigma^2}); None if not finite."""
    with ctx.workprec(64):
        e = Interval.of((3 / to_arb(sigma) ** 2).exp())
    lows = [x.lower for x in (cf, e) if x.finite]
    return max(lows) if lows else None


# ---------------------------------------------------------------------------
# the two bounds (verifier.bounds registry): one epoch by the theorem at delta = delta_rhs,
# E epochs by composition
# ---------------------------------------------------------------------------
def _ball(coef: str):
    def ball(s: arb, M: int, E: int):
        """(delta_E, hypothesis margins) on a ball s; condition (2) at delta = delta_rhs
        itself (an enclosure of the pointwise margin)."""
        Ma = arb(M)
        c = COEFS[coef](s)
        _, d = delta_rhs_ball(Ma, s, c)
        hyps = ((HYPOTHESES[0], arb(steps_margin(M))), (HYPOTHESES[1], D.hyp_sigma(Ma, s)),
                (HYPOTHESES[2], D.hyp_validity(Ma, s, c, d)))
        return delta_epochs_ball(d, E), hyps
    return ball


def _steps_lower(coef: str):
    def lower(sigma: Fraction, E: int, tau: Fraction):
        """M_BE at the per-epoch delta 1 - (1 - tau)^{1/E}, and e^{3/sigma^2}."""
        with ctx.workprec(64):
            s, t = to_arb(sigma), to_arb(tau)
            d1 = -((-t).log1p() / E).expm1()
            return needed_steps(sigma, Interval.of(D.closed_form_steps(s, COEFS[coef](s), d1)))
    return lower


def _mean_value(coef: str, Ma: arb, s: arb, lo: Fraction, hi: Fraction):
    """Mean-value form on the box s = [lo, hi]: enclosures of the condition-(2) margin
    (at delta = delta_rhs) and of delta_rhs, as g(mid) + g'(box) [-r, r] with g' the
    SymPy derivatives (generated *_dsigma_* evaluators): second order in the width."""
    mid, r = (lo + hi) / 2, (hi - lo) / 2
    sm, rad = to_arb(mid), arb(0, arb(r.numerator) / r.denominator)
    cm = COEFS[coef](sm)
    _, d_mid = delta_rhs_ball(Ma, sm, cm)
    g3 = D.hyp_validity(Ma, sm, cm, d_mid) + getattr(D, f"validity_dsigma_{coef}")(Ma, s) * rad
    d_box = d_mid + getattr(D, f"delta_rhs_dsigma_{coef}")(Ma, s) * rad
    return g3, d_box


def _box_fails(coef: str):
    def fails(M: int, E: int, tau: arb, s: arb, lo: Fraction, hi: Fraction) -> bool:
        """Sufficient conditions for 'no sigma in [lo, hi] is feasible' that avoid the
        dependency problem of coef_X on wide boxes: every term and eps increase with coef,
        so a lower bound of coef gives a lower bound of delta_rhs and an upper bound of the
        margin of (2) (proof check interpretation.terms-increase-with-coef); then the
        mean-value form."""
        Ma = arb(M)
        # coef >= s2^{-1/2} (Lyapunov: rho3 >= s2^{3/2}; coef_S >= coef_X by (22)):
        # proof check lognormal.coef-lyapunov-lower-bound
        c_low = arb(D.lognormal_variance(s).rsqrt().lower())
        _, d_low = delta_rhs_ball(Ma, s, c_low)
        if tau - delta_epochs_ball(d_low, E) < 0 or D.hyp_validity(Ma, s, c_low, d_low) < 0:
            return True
        g3, d_box = _mean_value(coef, Ma, s, lo, hi)
        if g3 < 0:
            return True
        return bool(d_box.is_finite() and tau - delta_epochs_ball(d_box, E) < 0)
    return fails


def _box_holds(coef: str):
    def holds(M: int, E: int, tau: arb, s: arb, lo: Fraction, hi: Fraction) -> bool:
        """Every sigma in [lo, hi] feasible, by the mean-value form (hypothesis 2 on the box)."""
        Ma = arb(M)
        if not D.hyp_sigma(Ma, s) >= 0 or steps_margin(M) < 0:
            return False
        g3, d_box = _mean_value(coef, Ma, s, lo, hi)
        return bool(g3 >= 0 and d_box < 1 and tau - delta_epochs_ball(d_box, E) >= 0)
    return holds


# condition (2) fails at delta >= T2 once s2 <= LARGE_SIGMA_S2_NUM / (M - 1), i.e. sigma >=
# 1/sqrt(log(1 + LARGE_SIGMA_S2_NUM/(M - 1))) (proof check interpretation.large-sigma-infeasible,
# which reads this constant)
LARGE_SIGMA_S2_NUM = 4


def sigma_range(M: int):
    """(L, U): every sigma < L fails hypothesis 2 (L <= sqrt(3/ln M)), every sigma >= U fails
    condition (2) at delta = delta_rhs >= T2 (U >= 1/sqrt(log(1 + 4/(M-1))), proof check
    interpretation.large-sigma-infeasible).  Exact rationals from the balls' outer ends."""
    with ctx.workprec(128):
        lo_b = (3 / arb(M).log()).sqrt()
        hi_b = (LARGE_SIGMA_S2_NUM / arb(M - 1)).log1p().rsqrt()
    return Interval.of(lo_b).lower, Interval.of(hi_b).upper


_MONO_M = tuple(f"monotonicity.T{i}-decreases-in-M" for i in range(1, 7)) + (
    "monotonicity.hypotheses-persist-in-M", "monotonicity.condition-2-at-delta-rhs-persists-in-M")


def _theorem_bound(name: str, coef: str, source: str, title: str, aliases=()) -> Bound:
    return Bound(name=name, title=title, source=source, reconstructed=True,
                 hypotheses=HYPOTHESES, monotone_in_steps=_MONO_M, sigma_shape="u-shaped",
                 monotone_in_sigma=("interpretation.large-sigma-infeasible",),
                 ball=_ball(coef), steps_lower=_steps_lower(coef),
                 box_fails=_box_fails(coef), box_holds=_box_holds(coef),
                 sigma_range=sigma_range, aliases=aliases)


THEOREM31_SIMPLIFIED = _theorem_bound(
    "theorem31-simplified", "simplified",
    "Theorem 3.1 of arXiv 2605.06259 v1, coef_S (reconstructed, docs/THEORY.md section 3); "
    "E epochs: Dong, Roth & Su 2019, Lemma C.2",
    "Theorem 3.1, simplified factor coef_S")
THEOREM31_EXACT = _theorem_bound(
    "theorem31-rho3", "rho3",
    "Theorem 3.1 with the exact factor coef_X, Section 3.1 of arXiv 2605.06259 v1 "
    "(reconstructed); E epochs: Dong, Roth & Su 2019, Lemma C.2",
    "Theorem 3.1, third-moment factor coef_X", aliases=("theorem31-exact",))
