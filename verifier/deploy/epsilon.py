"""Calibration to an (epsilon, delta) target with the certified privacy profile:
the smallest grid sigma, the largest number of epochs E, the smallest steps M.

The one predicate: ``bounds.profile.meets`` (delta(eps) <= delta certified, or certified
> delta, or undecided).  Monotonicity, which turns a crossing into "smallest"/"largest":
- in sigma: delta(eps) does not increase with sigma (the pair at a larger sigma is a
  post-processing of the pair at a smaller one: rescale and add independent Gaussian noise;
  the same argument as for the exact TV, bounds.exact_tv.EXACT_TV.monotonicity);
- in E: E epochs are a post-processing of E + 1 (drop the last epoch's output);
- in M: not proved here.  calibrate steps reports a certified M whose M - 1 certifiably
  fails, found by a search that assumes monotonicity; it says so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from verifier.core.arith import InputError, Interval, Tri, frac_str, pct
from verifier.core.search import ENGINE_BUDGET, calibrate

MONOTONE = {"sigma": "delta(eps) does not increase with sigma (post-processing: rescale and add "
                     "independent Gaussian noise)",
            "epochs": "delta(eps) does not decrease with E (E epochs are a post-processing of "
                      "E + 1: drop the last output)",
            "steps": "monotonicity in M is NOT proved: M is certified to meet the target and "
                     "M - 1 certified to fail; smaller M were not all checked"}


@dataclass(frozen=True)
class EpsCalibration:
    what: str                     # sigma | epochs | steps
    status: str                   # certified | infeasible | inconclusive | beyond-range
    value: object                 # Fraction (sigma) or int (epochs, steps) or None
    target_epsilon: Fraction
    delta: Fraction
    fixed: dict                   # the other parameters
    at: Interval | None = None    # delta(eps) bracket at the answer
    below: Interval | None = None  # delta(eps) at the neighbour that fails
    evaluations: int = 0
    message: str = ""
    compared: dict = field(default_factory=dict)   # bound -> its sigma for TV <= delta
    # tolerance calibration (Opacus's epsilon_tolerance): delta(target - tolerance) at the
    # answer, certified > delta, i.e. the answer's epsilon is within the tolerance
    within: Interval | None = None
    tolerance: Fraction | None = None

    @property
    def sigma(self):
        return self.value if self.what == "sigma" else None

    def to_json(self) -> dict:
        out = {"what": self.what, "status": self.status,
               "target": {"epsilon": frac_str(self.target_epsilon), "delta": frac_str(self.delta)},
               "fixed": {k: (frac_str(v) if isinstance(v, Fraction) else v)
                         for k, v in self.fixed.items()},
               self.what: (None if self.value is None else
                           frac_str(self.value) if isinstance(self.value, Fraction) else self.value),
               "monotonicity": MONOTONE[self.what], "evaluations": self.evaluations,
               "message": self.message}
        if self.at is not None:
            out["delta_at_answer"] = self.at.to_json()
        if self.below is not None:
            out["delta_at_neighbour"] = self.below.to_json()
        if self.compared:
            out["compared"] = {b: v for b, v in self.compared.items()}
        if self.tolerance is not None:
            out["epsilon_tolerance"] = frac_str(self.tolerance)
            out["delta_at_target_minus_tolerance"] = (None if self.within is None
                                                      else self.within.to_json())
        return out


def _pred(make, what: str = "sigma"):
    """A calibrate predicate from parameters(n) -> (sigma, M, E, budget); each call reported
    as progress ("trying ``what`` = ...")."""
    from verifier.bounds import profile as PR
    from verifier.core.progress import report

    def pred(n):
        try:
            s, m, e, be, eps, d = make(n)
            tried = {"sigma": frac_str(s), "steps": m, "epochs": e}[what]
            report(f"calibrate {what}: trying {what} = {tried}")
            v, iv = PR.meets(s, m, e, eps, d, be)     # looked up per call
        except InputError:
            return Tri.UNDECIDED, None
        return v, iv
    return pred


def _guess_sigma(eps: float, delta: float, M: int, E: int) -> float:
    """Float start for the search (any start is valid): the Gaussian-DP heuristic
    mu = sqrt(E (e^{1/sigma^2} - 1) / M) (Poisson-like CLT, docs/THEORY.md section 5), or
    mu = sqrt(E)/sigma for M = 1, solved for delta(eps) = delta."""
    def gdelta(mu):
        Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
        return Phi(-eps / mu + mu / 2) - math.exp(eps) * Phi(-eps / mu - mu / 2)
    lo, hi = 1e-6, 100.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if gdelta(mid) > delta:
            hi = mid
        else:
            lo = mid
    mu = lo
    if M == 1:
        return math.sqrt(E) / mu
    x = mu * mu * M / E
    return 1 / math.sqrt(math.log1p(x)) if x > 0 else 50.0


def _guess_sigma_poisson(eps: float, delta: float, q: float, T: int) -> float:
    """Float start for Poisson subsampling (any start is valid): the same Gaussian-DP
    heuristic with mu = q sqrt(T (e^{1/sigma^2} - 1)), or sqrt(T)/sigma at q = 1."""
    if q >= 1:
        return _guess_sigma(eps, delta, 1, T)
    m = max(1, round(1 / q))
    return _guess_sigma(eps, delta, m, max(1, round(T / m)))


def short_decimal_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The decimal with the fewest significant digits strictly inside (lo, hi) (0 < lo < hi),
    the one nearest the midpoint among those: a sigma whose float prints as itself (at most
    15 significant digits: repr(float(x)) is x), so the float policy reads it back exactly."""
    e = math.floor(math.log10(hi)) + 1
    mid = (lo + hi) / 2
    for k in range(1, 40):
        step = Fraction(10) ** (e - k)
        n_lo, n_hi = math.floor(lo / step) + 1, math.ceil(hi / step) - 1
        if n_lo <= n_hi:
            n = min(max(round(mid / step), n_lo), n_hi)
            return n * step
    return mid


def engine_for(eps: Fraction, delta: Fraction, M: int, E: int, poisson: tuple | None):
    """(fixed parameters, float start, meets(sigma, eps)) of the sampler that ran: random
    allocation of M steps per epoch over E epochs, or Poisson subsampling (q, T); the
    engine's range checked at its smallest sigma."""
    from verifier.bounds import profile as PR
    lo_edge = PR.SIGMA_RANGE[0]
    if poisson is None:
        PR.check_range(lo_edge, M, E, delta=delta, eps=eps)

        def engine_meets(s, e):
            return PR.meets(s, M, E, e, delta)
        return ({"steps": M, "epochs": E}, Fraction(_guess_sigma(float(eps), float(delta), M, E)),
                engine_meets)
    from verifier.bounds import poisson as PO
    q, T = poisson
    PO.check_range(lo_edge, q, T, delta=delta, eps=eps)

    def engine_meets(s, e):
        return PO.meets(s, q, T, e, delta)
    return ({"sampling": "poisson", "sample_rate": q, "total_steps": T},
            Fraction(_guess_sigma_poisson(float(eps), float(delta), float(q), T)), engine_meets)


def calibrate_sigma_tolerance(eps: Fraction, delta: Fraction, M: int, E: int,
                              tolerance: Fraction, max_evaluations: int = 60,
                              poisson: tuple | None = None) -> EpsCalibration:
    """Opacus's ``get_noise_multiplier`` contract, certified: a sigma (a short decimal) whose
    epsilon(delta) is certified <= eps, and certified > eps - tolerance (delta(eps -
    tolerance) > delta at the answer) when the search gets there within ``max_evaluations``
    engine calls.  No minimality claim (Opacus makes none); sigma in the engine's [0.3, 50].
    Random allocation of M steps per epoch over E epochs, or with ``poisson`` = (q, T)
    Poisson subsampling at rate q for T steps in all (bounds.poisson; M, E unused)."""
    from verifier.bounds import profile as PR
    from verifier.core.progress import report
    lo_edge, hi_edge = PR.SIGMA_RANGE
    fixed, g, engine_meets = engine_for(eps, delta, M, E, poisson)
    count = 0

    def meets(s, e):
        nonlocal count
        count += 1
        report(f"get_noise_multiplier: trying sigma = {frac_str(s)} at epsilon {frac_str(e)} "
               f"(evaluation {count}, at most {max_evaluations})")
        try:
            return engine_meets(s, e)
        except InputError:
            return Tri.UNDECIDED, None

    def answer(hi, at, within, msg):
        return EpsCalibration("sigma", "certified", hi, eps, delta, fixed, at, None, count, msg,
                              within=within, tolerance=tolerance)
    # bracket: hi certified to meet the target, lo not (failing or undecided); walk from the
    # float guess by factors of about 4/5 down or 5/4 up, then bisect on short decimals
    lo = hi = at = None
    s = min(hi_edge, max(lo_edge, short_decimal_between(g * Fraction(99, 100), g)))
    while lo is None or hi is None:
        v, iv = meets(s, eps)
        if v is Tri.HOLDS:
            hi, at = s, iv
        else:
            lo, lo_v, lo_iv = s, v, iv
        if lo is None:                             # walk down
            if hi == lo_edge:
                return answer(hi, at, None, "the smallest sigma of the engine's range (0.3) "
                                            "meets the target; the tolerance is not checked")
            s = max(lo_edge, short_decimal_between(hi * Fraction(3, 4), hi * Fraction(4, 5)))
        elif hi is None:                           # walk up
            if lo == hi_edge:
                why = "certified to fail" if lo_v is Tri.FAILS else "not certified"
                return EpsCalibration(
                    "sigma", "infeasible" if lo_v is Tri.FAILS else "inconclusive", None, eps,
                    delta, fixed, below=lo_iv, evaluations=count,
                    message=f"no noise multiplier in the engine's range [0.3, 50] certifies "
                            f"epsilon <= {frac_str(eps)} at delta = {frac_str(delta)} (sigma = "
                            f"50 {why}: delta({frac_str(eps)}) in "
                            f"{lo_iv.short(6) if lo_iv is not None else '(refused)'})")
            s = min(hi_edge, short_decimal_between(lo * Fraction(5, 4), lo * Fraction(4, 3)))
    if eps - tolerance <= 0:
        return answer(hi, at, None, f"epsilon >= 0 > {frac_str(eps)} - tolerance")
    checked = None                                 # the hi whose tolerance was last checked
    while True:
        if hi != checked:                          # a new hi: is its epsilon within tolerance?
            checked = hi
            vt, ivt = meets(hi, eps - tolerance)
            if vt is Tri.FAILS:
                return answer(hi, at, ivt, f"epsilon at sigma = {frac_str(hi)} is certified "
                                           f"in ({frac_str(eps - tolerance)}, {frac_str(eps)}]")
        if count >= max_evaluations:
            return answer(hi, at, None, f"the tolerance was not reached in {count} engine "
                                        "evaluations; sigma meets the target")
        mid = short_decimal_between(lo, hi)
        v, iv = meets(mid, eps)
        if v is Tri.HOLDS:
            hi, at = mid, iv
        else:
            lo = mid


def calibrate_sigma_eps(eps: Fraction, delta: Fraction, M: int, E: int,
                        resolution: Fraction = Fraction(1, 100)) -> EpsCalibration:
    """Smallest sigma on the grid of multiples of ``resolution`` in [0.3, 50] with
    epsilon(delta) <= eps certified; the grid point below certified to fail."""
    from verifier.bounds.profile import SIGMA_RANGE, check_range
    check_range(SIGMA_RANGE[0], M, E, delta=delta, eps=eps)
    lo_n = math.ceil(SIGMA_RANGE[0] / resolution)
    hi_n = math.floor(SIGMA_RANGE[1] / resolution)
    if lo_n > hi_n:
        raise InputError(f"resolution = {frac_str(resolution)} leaves no grid sigma in [0.3, 50]")
    fixed = {"steps": M, "epochs": E, "resolution": resolution}
    pred = _pred(lambda n: (n * resolution, M, E, None, eps, delta))
    g = _guess_sigma(float(eps), float(delta), M, E)
    start = min(hi_n, max(lo_n, int(g / float(resolution))))
    s = calibrate(pred, start, lo_n, budget=ENGINE_BUDGET, first_step=max(1, start // 16),
                  ceiling=hi_n)
    if s.status == "undecided":
        why = ("the engine refused there" if s.at is None else
               f"delta({frac_str(eps)}) in {s.at.short(6)} straddles delta")
        return EpsCalibration("sigma", "inconclusive", None, eps, delta, fixed,
                              message=f"undecided at sigma = {frac_str(s.undecided_at * resolution)}: {why}")
    if not s.found:
        return EpsCalibration("sigma", "beyond-range" if s.status == "beyond" else "inconclusive",
                              None, eps, delta, fixed, message=s.reason + " (sigma <= 50 searched)")
    n, at, below, count = s.value, s.at, s.below, s.evaluations
    sigma = n * resolution
    msg = (f"sigma = {frac_str(sigma - resolution)} certified to fail (delta({frac_str(eps)}) > "
           f"{frac_str(delta)}), hence every sigma below it" if n > lo_n else
           "the smallest grid sigma of the engine's range (0.3) already meets the target")
    return EpsCalibration("sigma", "certified", sigma, eps, delta, fixed, at, below, count, msg,
                          _compared(M, E, delta, resolution, sigma))


def _compared(M: int, E: int, delta: Fraction, resolution: Fraction, sigma: Fraction) -> dict:
    """What the TV bounds give for the same target: each certifies (0, delta)-DP, hence
    (eps, delta) for every eps, once its TV bound is <= delta; their calibrated sigma and the
    noise the (eps, delta) answer saves."""
    from verifier.deploy.evaluate import Target
    from verifier.deploy.sigma import calibrate_sigma
    out = {}
    if M < 3:
        return out
    for b in ("chi-square", "theorem31-rho3"):
        try:
            r = calibrate_sigma(M, E, Target.make(delta=delta), b, resolution)
        except InputError:
            continue
        if r.status == "certified" and r.sigma:
            out[b] = {"sigma": frac_str(r.sigma), "noise_saved": pct(1 - sigma / r.sigma, "down")}
        else:
            out[b] = {"sigma": None, "status": r.status}
    return out


def calibrate_epochs_eps(eps: Fraction, delta: Fraction, sigma: Fraction, M: int,
                         max_epochs: int = 1000) -> EpsCalibration:
    """Largest E <= max_epochs with epsilon(delta) <= eps certified; E + 1 certified to fail."""
    from verifier.bounds.profile import check_range
    check_range(sigma, M, 1, delta=delta, eps=eps)
    fixed = {"sigma": sigma, "steps": M}
    base = _pred(lambda n: (sigma, M, n, max_epochs, eps, delta), "epochs")

    def fails(n):        # HOLDS when E = n certifiably fails the target
        v, iv = base(n)
        return {Tri.HOLDS: Tri.FAILS, Tri.FAILS: Tri.HOLDS}.get(v, Tri.UNDECIDED), iv
    first = base(1)
    if first[0] is Tri.FAILS:
        return EpsCalibration("epochs", "infeasible", None, eps, delta, fixed, below=first[1],
                              evaluations=1, message="E = 1 already certified to fail")
    if first[0] is Tri.UNDECIDED:
        return EpsCalibration("epochs", "inconclusive", None, eps, delta, fixed, evaluations=1,
                              message="undecided at E = 1")
    s = calibrate(fails, 2, 2, budget=ENGINE_BUDGET, ceiling=max_epochs)
    if s.status == "beyond":
        return EpsCalibration("epochs", "beyond-range", max_epochs, eps, delta, fixed,
                              message=f"every E <= {max_epochs} meets the target (E = "
                                      f"{max_epochs} certified)")
    if s.status == "undecided":
        return EpsCalibration("epochs", "inconclusive", None, eps, delta, fixed,
                              message=f"undecided at E = {s.undecided_at}")
    if not s.found:
        return EpsCalibration("epochs", "inconclusive", None, eps, delta, fixed, message=s.reason)
    n = s.value
    return EpsCalibration("epochs", "certified", n - 1, eps, delta, fixed, s.below, s.at,
                          s.evaluations, f"E = {n} certified to fail, hence every larger E")


def calibrate_steps_eps(eps: Fraction, delta: Fraction, sigma: Fraction, E: int) -> EpsCalibration:
    """A certified M meeting the target whose M - 1 certifiably fails (monotonicity in M is
    not proved: MONOTONE['steps'])."""
    from verifier.bounds.profile import MAX_STEPS, check_range
    check_range(sigma, 1, E, delta=delta, eps=eps)
    fixed = {"sigma": sigma, "epochs": E}
    pred = _pred(lambda n: (sigma, n, E, None, eps, delta), "steps")
    s = calibrate(pred, 16, 1, budget=ENGINE_BUDGET, ceiling=MAX_STEPS)
    if s.status == "undecided":
        return EpsCalibration("steps", "inconclusive", None, eps, delta, fixed,
                              message=f"undecided at M = {s.undecided_at}")
    if not s.found:
        return EpsCalibration("steps", "beyond-range" if s.status == "beyond" else "inconclusive",
                              None, eps, delta, fixed, message=s.reason + " (M <= 1e7 searched)")
    n = s.value
    return EpsCalibration("steps", "certified", n, eps, delta, fixed, s.at, s.below, s.evaluations,
                          (f"M = {n - 1} certified to fail; " if n > 1 else "") + MONOTONE["steps"])
