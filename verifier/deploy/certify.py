"""certify: every bound of the registry at deployed parameters, against one target."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import DEFAULT_MAX_PREC, Interval, Tri
from verifier.deploy.evaluate import Target, check_bounds, comparisons, evaluate


TV_ROWS_NOTE = ("Why a TV row may fail under a certified (epsilon, delta): a TV bound certifies "
                "(0, delta_E)-DP, every epsilon at once, a stronger guarantee, so it meets the "
                "target only when delta_E <= delta; the target itself is decided by the exact "
                "privacy profile's row.")


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
    privacy: "PrivacyStatement | None" = None    # the (epsilon, delta) target, when given
    epsilon_at_delta: object = None   # without an epsilon target: epsilon(delta) of the run
                                      # (an EpsilonResult, certified; None outside its range)

    @property
    def status(self) -> str:
        vs = [b.verdict for b in self.bounds.values()]
        if self.privacy is not None:     # TV <= delta also gives (eps, delta) for every eps
            vs.append(self.privacy.verdict)
        if Tri.HOLDS in vs:
            return "certified"
        if Tri.UNDECIDED in vs:
            return "inconclusive"
        return "not-certified"

    @property
    def certified(self) -> bool:
        return self.status == "certified"

    @property
    def certified_by(self) -> tuple:
        """What certifies the target: each valid bound that meets it, and the exact privacy
        profile when the (epsilon, delta) target holds."""
        out = [n for n, ev in self.bounds.items() if ev.verdict is Tri.HOLDS]
        if self.privacy is not None and self.privacy.verdict is Tri.HOLDS:
            out.append("the exact privacy profile")
        return tuple(out)

    @property
    def status_line(self) -> str:
        """One line that says what the status rests on (CLI, Markdown and HTML)."""
        from verifier.core.arith import decimal_str, frac_str
        pv = self.privacy
        if self.certified:
            by = self.certified_by
            if pv is not None and pv.verdict is Tri.HOLDS:
                eps = ("" if pv.epsilon_bracket is None else
                       f"; epsilon({frac_str(pv.delta)}) <= "
                       f"{decimal_str(pv.epsilon_bracket.upper, 6, 'up')}")
                what = (f"delta({frac_str(pv.epsilon)}) <= {frac_str(pv.delta)}{eps}")
            else:
                what = f"delta_E <= {frac_str(self.target.delta)}"
            return f"CERTIFIED by {', '.join(by)}: {what}"
        if self.status == "inconclusive":
            return "INCONCLUSIVE: no bound certifies the target and one is undecided at the cap"
        return "NOT-CERTIFIED: no valid bound meets the target" + (
            "" if pv is not None else
            "; for an (epsilon, delta) target give --target-epsilon EPS with --delta D")

    # the attributes behind the JSON keys
    certificate = "DP-SGD with random allocation: privacy certificate"

    @property
    def inputs(self) -> dict:
        out = {"sigma": self.sigma, "steps": self.steps, "epochs": self.epochs, "clip": self.clip}
        if self.samples:
            out["samples"] = self.samples
        return out

    @property
    def generated_by(self) -> dict:
        from verifier.core.provenance import versions
        return versions("sympy", "mpmath")

    @property
    def sources(self) -> dict:
        from verifier.bounds import REGISTRY
        return {**{n: b.source for n, b in REGISTRY.items()},
                "mu_poisson": "Bu et al. 2019; Theorem 4.2 of arXiv 2605.06259 v1",
                "mu_uniform": "Dong, Roth & Su 2019, Corollary 5.4"}

    @property
    def privacy_profile(self):
        return self.privacy

    def to_json(self) -> dict:
        from verifier.core.arith import frac_str
        inputs = {k: (frac_str(v) if isinstance(v, Fraction) else v)
                  for k, v in self.inputs.items()}
        target = {"kind": self.target.kind, "value": frac_str(self.target.value),
                  "delta_epochs_at_most": frac_str(self.target.delta)}
        if self.privacy is not None:       # the (epsilon, delta) target; delta_E the TV rows'
            target = {"kind": "epsilon-delta", "epsilon": frac_str(self.privacy.epsilon),
                      "delta": frac_str(self.privacy.delta),
                      "delta_epochs_at_most": frac_str(self.target.delta),
                      "tv_rows": TV_ROWS_NOTE}
        out = {
            "certificate": self.certificate,
            "inputs": inputs,
            "target": target,
            "certified": self.certified,
            "status": self.status,
            "bounds": {name: ev.to_json() for name, ev in self.bounds.items()},
            "comparisons": ({
                "note": "asymptotic / comparative (docs/THEORY.md section 5): NOT certified bounds "
                        "for random allocation, though evaluated in ball arithmetic",
                **{k: v.to_json() for k, v in self.comparisons.items()},
            } if self.comparisons else {}),
            "generated_by": self.generated_by,
            "sources": self.sources,
        }
        if self.noise_per_round is not None:
            out["noise_per_round"] = frac_str(self.noise_per_round)
        if self.privacy is not None:
            out["privacy_profile"] = self.privacy.to_json()
        if self.epsilon_at_delta is not None:
            out["epsilon_at_delta"] = {k: v for k, v in self.epsilon_at_delta.to_json().items()
                                       if k != "seconds"}        # byte-reproducible files
        out["certified_by"] = list(self.certified_by)
        out["status_line"] = self.status_line
        return out


@dataclass(frozen=True)
class PrivacyStatement:
    """The certified (epsilon, delta) statement of a certificate (bounds.profile): verdict of
    delta(eps) <= delta, the bracket of delta(eps) and of epsilon(delta), the exact TV
    (delta(0)) and attack accuracy from the same profile, and the curve for the figure."""
    epsilon: Fraction
    delta: Fraction
    verdict: Tri
    delta_at_eps: Interval
    epsilon_bracket: Interval | None
    larger: str
    tv: Interval
    accuracy: Interval
    curve: tuple                 # (eps, remove Interval, add Interval)
    views: object = None         # verifier.views.summary.ViewsSummary (every view, one table)
    poisson: object = None       # bounds.poisson.PoissonEpsilon at q = 1/M, T = M E (certified)

    def sampler_comparison(self) -> tuple:
        """(verdict line, difference Interval or None): random allocation against Poisson
        subsampling at q = 1/M for the same T = M E steps, both certified; a difference only
        where the two epsilon brackets separate."""
        a, p = self.epsilon_bracket, None if self.poisson is None else self.poisson.epsilon
        if a is None or p is None:
            return "not compared: an epsilon is inconclusive", None
        d = Interval(p.lower - a.upper, p.upper - a.lower)
        if p.lower > a.upper:
            return "random allocation's epsilon is lower (certified)", d
        if a.lower > p.upper:
            return "Poisson subsampling's epsilon is lower (certified)", d
        return "not separated: the two brackets overlap", None

    def to_json(self) -> dict:
        from verifier.core.arith import frac_str
        return {"target": {"epsilon": frac_str(self.epsilon), "delta": frac_str(self.delta)},
                "verdict": self.verdict.value, "delta_at_epsilon": self.delta_at_eps.to_json(),
                "epsilon_at_delta": (None if self.epsilon_bracket is None
                                     else self.epsilon_bracket.to_json()),
                "larger_direction": self.larger, "tv": self.tv.to_json(),
                "accuracy": self.accuracy.to_json(),
                "profile": [{"epsilon": frac_str(e), "remove": r.to_json(), "add": a.to_json()}
                            for e, r, a in self.curve],
                "views": None if self.views is None else self.views.to_json(),
                "poisson_comparison": self._poisson_json(),
                "certified": "rigorous bracket (verifier epsilon / verifier delta; "
                             "docs/THEORY.md section 9)"}

    def _poisson_json(self):
        if self.poisson is None:
            return None
        verdict, d = self.sampler_comparison()
        return {"poisson": self.poisson.to_json(), "verdict": verdict,
                "difference": None if d is None else d.to_json()}


def attack_accuracy(tv: Interval) -> Interval:
    """The best membership-inference accuracy at equal priors, 1/2 + TV/2 (docs/THEORY.md
    section 1), as a bracket from the TV's."""
    return Interval(Fraction(1, 2) + tv.lower / 2, Fraction(1, 2) + tv.upper / 2)


def privacy_statement(sigma: Fraction, steps: int, epochs: int, eps: Fraction,
                      delta: Fraction) -> PrivacyStatement:
    from verifier.bounds import profile as PR
    v, iv = PR.meets(sigma, steps, epochs, eps, delta)
    er = PR.epsilon_bracket(sigma, steps, epochs, delta)
    top = min(PR.EPS_MAX, max(Fraction(1), 2 * (er.epsilon.upper if er.epsilon is not None
                                                  else eps), 2 * eps))
    P = PR.engine(sigma, steps, epochs, float(delta), eps_cap=float(top) + 1)
    rem0, add0 = PR.directions(P, Fraction(0))
    tv = Interval(max(rem0.lower, add0.lower), min(rem0.upper, add0.upper))
    acc = attack_accuracy(tv)
    grid = sorted({top * k / 16 for k in range(17)} | {eps})
    curve = tuple((e,) + PR.directions(P, e) for e in grid)
    from verifier.views.summary import views_summary
    views = views_summary(sigma, steps, epochs, delta, er.epsilon, tv, acc)
    return PrivacyStatement(eps, delta, v, iv, er.epsilon, er.larger, tv, acc, curve, views,
                            _poisson_at_rate(sigma, steps, epochs, delta))


def _poisson_at_rate(sigma: Fraction, steps: int, epochs: int, delta: Fraction):
    """Poisson subsampling at q = 1/M for T = M E steps, certified (None outside the Poisson
    engine's range)."""
    from verifier.bounds import poisson as PO
    from verifier.core.arith import InputError
    try:
        return PO.epsilon_bracket(sigma, Fraction(1, steps), steps * epochs, delta)
    except InputError:
        return None


def certify(sigma: Fraction, steps: int, epochs: int, target: Target, bound: str = "all",
            samples: int | None = None, clip: Fraction = Fraction(1),
            max_prec: int = DEFAULT_MAX_PREC, target_epsilon: Fraction | None = None) -> Certificate:
    from verifier.core.progress import report
    names = check_bounds(bound) if steps >= 3 else []
    report("certify: the TV bounds")
    evs = {b: evaluate(b, sigma, steps, epochs, target, max_prec) for b in names}
    report("certify: the exact privacy profile" + (", every view and Poisson subsampling"
                                                    if target_epsilon is not None else ""))
    noise = clip * sigma * steps / samples if samples else None
    priv = (privacy_statement(sigma, steps, epochs, target_epsilon, target.delta)
            if target_epsilon is not None else None)
    eps_at = _epsilon_at(sigma, steps, epochs, target.delta) if priv is None else None
    return Certificate(sigma, steps, epochs, samples, clip, target, evs,
                       comparisons(sigma, steps, epochs) if steps >= 3 else {}, noise, priv,
                       eps_at)


def _epsilon_at(sigma: Fraction, steps: int, epochs: int, delta: Fraction):
    """The run's certified epsilon(delta) (random allocation), reported beside a TV target;
    None outside the engine's range."""
    from verifier.bounds import profile as PR
    from verifier.core.arith import InputError
    try:
        return PR.epsilon_bracket(sigma, steps, epochs, delta)
    except InputError:
        return None


