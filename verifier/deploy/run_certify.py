"""certify_run: a run (``verifier.core.run.Run``: phases of a noise or batch-size schedule,
k-of-M epochs, Poisson steps) against one target, in the terms an engineer signs off with,
every figure certified (docs/RUNS.md, "A certificate to file").

The target, one of (the first given):
- (epsilon, delta): met when the run's delta(epsilon) <= delta, both directions of the
  adjacency (bounds.runs.delta_bracket);
- attack accuracy A: met when the membership-inference accuracy at equal priors,
  (1 + TV) / 2 with TV = delta(0) (the exact total variation of the run's pair), is <= A;
- delta alone: the paper's delta, met when TV = delta(0) <= delta ((0, delta)-DP).
Beside it: epsilon(delta) of the run, the TV and the attack accuracy, the Rényi curve's
best conversion (what an RDP accountant would report, certified as an upper bound), and for
Poisson steps the run collapsed to its worst phase (every step at the smallest noise and
the largest rate: what the run would be charged without its schedule).  Every verdict is
three-valued: an undecided comparison is *inconclusive*, never a guess."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import Interval, InputError, Tri, decimal_str, frac_str
from verifier.deploy.certify import attack_accuracy

KINDS = ("epsilon-delta", "accuracy", "tv")


@dataclass(frozen=True)
class RunCertificate:
    """Result of ``certify_run``: every figure an Interval, the verdict three-valued."""

    run: object
    kind: str                       # one of KINDS
    delta: Fraction
    target_epsilon: Fraction | None
    target_accuracy: Fraction | None
    verdict: Tri
    decided_by: Interval            # delta(eps), the accuracy, or the TV: what met the target
    epsilon: Interval | None        # epsilon(delta) of the run (None: undecided at the cap)
    larger: str
    tv: Interval
    accuracy: Interval
    renyi_epsilon: Interval | None  # the Rényi curve's improved conversion at delta
    worst_phase: Interval | None    # epsilon(delta) of the run at its worst phase (Poisson)
    certified_by: str

    @property
    def status(self) -> str:
        return {Tri.HOLDS: "certified", Tri.FAILS: "not-certified",
                Tri.UNDECIDED: "inconclusive"}[self.verdict]

    @property
    def target_line(self) -> str:
        if self.kind == "epsilon-delta":
            return (f"(epsilon, delta) = ({frac_str(self.target_epsilon)}, "
                    f"{frac_str(self.delta)})")
        if self.kind == "accuracy":
            return f"membership-inference accuracy <= {frac_str(self.target_accuracy)}"
        return f"TV = delta(0) <= {frac_str(self.delta)} (the paper's delta)"

    @property
    def status_line(self) -> str:
        what = {"epsilon-delta": f"delta({frac_str(self.target_epsilon or 0)})",
                "accuracy": "accuracy", "tv": "TV"}[self.kind]
        bound = self.target_accuracy if self.kind == "accuracy" else self.delta
        if self.verdict is Tri.HOLDS:
            eps = ("" if self.epsilon is None else
                   f"; epsilon({frac_str(self.delta)}) <= "
                   f"{decimal_str(self.epsilon.upper, 6, 'up')}")
            return f"CERTIFIED: {what} <= {frac_str(bound)}{eps}"
        if self.verdict is Tri.FAILS:
            return (f"NOT-CERTIFIED: {what} > {frac_str(bound)} "
                    f"({what} >= {decimal_str(self.decided_by.lower, 6, 'down')})")
        return (f"INCONCLUSIVE: {what} in {self.decided_by.short(8)} straddles "
                f"{frac_str(bound)}")

    certificate = "DP-SGD run: privacy certificate"

    def to_json(self) -> dict:
        def iv(x):
            return None if x is None else x.to_json()

        def q(x):
            return None if x is None else frac_str(x)
        return {"certificate": self.certificate, "run": self.run.to_json(), "kind": self.kind,
                "delta": q(self.delta), "target_epsilon": q(self.target_epsilon),
                "target_accuracy": q(self.target_accuracy), "target_line": self.target_line,
                "status": self.status, "status_line": self.status_line,
                "verdict": self.verdict.value, "decided_by": iv(self.decided_by),
                "epsilon": iv(self.epsilon), "larger": self.larger, "tv": iv(self.tv),
                "accuracy": iv(self.accuracy), "renyi_epsilon": iv(self.renyi_epsilon),
                "worst_phase": iv(self.worst_phase), "certified_by": self.certified_by}


def worst_phase(run, delta: Fraction) -> Interval | None:
    """epsilon(delta) of the run's steps all at its smallest noise multiplier and largest
    sample rate (Poisson and every-step phases only; None otherwise or out of range)."""
    from verifier.bounds.runs import epsilon_bracket, sample_rate_of
    from verifier.core.run import Run, phase
    merged = run.merged()
    rates = [sample_rate_of(s) for _, s, _ in merged]
    if len(merged) < 2 or any(q is None for q in rates):
        return None
    sigma = min(m.noise_multiplier for m, _, _ in merged)
    try:
        return epsilon_bracket(Run((phase(sigma, sample_rate=max(rates), steps=run.steps),)),
                               delta).epsilon
    except InputError:
        return None


REFINED_WIDTH = Fraction(1, 10 ** 5)    # the second pass's relative width


def meets(run, eps: Fraction, delta: Fraction) -> tuple:
    """Three-valued, certified: delta(eps) <= delta for the run?  (Tri, bracket of
    delta(eps)), as bounds.poisson.meets and bounds.profile.meets for one phase, refined as
    far as the decision needs: first to the engines' default width with the floor at
    delta / 1000 (a delta(eps) far below delta need not be known to 0.1% of itself); where
    that straddles delta, to REFINED_WIDTH relative."""
    from verifier.bounds.runs import delta_bracket
    iv = delta_bracket(run, eps, floor=float(delta) / 1000).delta
    if iv.at_most(delta) is Tri.UNDECIDED:
        iv = delta_bracket(run, eps, floor=float(delta) / 10 ** 6, rel_width=REFINED_WIDTH).delta
    return iv.at_most(delta), iv


def certify_run(run, delta: Fraction, target_epsilon: Fraction | None = None,
                target_accuracy: Fraction | None = None) -> RunCertificate:
    """The run's certificate against the target of the module docstring."""
    from verifier.bounds.runs import check, delta_bracket, epsilon_bracket
    from verifier.core.progress import report
    from verifier.views.renyi import CONVERSION_ORDERS
    from verifier.views.run_renyi import run_renyi
    if target_epsilon is not None and target_accuracy is not None:
        raise InputError("certify a run: give --target-epsilon or --target-accuracy, not both")
    if target_accuracy is not None and not Fraction(1, 2) <= target_accuracy <= 1:
        raise InputError(f"target accuracy {frac_str(target_accuracy)} is outside [1/2, 1]")
    check(run, delta=delta, eps=target_epsilon)
    report("certify a run: epsilon(delta)")
    er = epsilon_bracket(run, delta)
    report("certify a run: the TV and the attack accuracy")
    tv = delta_bracket(run, Fraction(0)).delta
    acc = attack_accuracy(tv)
    if target_epsilon is not None:
        kind, (verdict, decided) = "epsilon-delta", meets(run, target_epsilon, delta)
    elif target_accuracy is not None:
        kind, decided, verdict = "accuracy", acc, acc.at_most(target_accuracy)
    else:
        kind, decided, verdict = "tv", tv, tv.at_most(delta)
    report("certify a run: the Rényi view and the worst-phase collapse")
    try:                    # the float accountants' orders up to 256 (Opacus's stop at 63)
        ren = run_renyi(run, [a for a in CONVERSION_ORDERS if a <= 256]).to_epsilon(delta).epsilon
    except InputError:      # an order beyond the Rényi engine's arithmetic: not reported
        ren = None
    return RunCertificate(run, kind, delta, target_epsilon, target_accuracy, verdict, decided,
                          er.epsilon, er.larger, tv, acc, ren, worst_phase(run, delta),
                          er.certified_by)
