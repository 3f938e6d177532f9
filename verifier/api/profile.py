"""The (epsilon, delta) face of the API (arguments after the sampler's triple by keyword): ``epsilon``, ``delta``, ``privacy_profile`` and
``get_noise_multiplier`` (Opacus's signature); decimal strings, ints, Fractions, or floats
and numpy scalars read as the decimals they print as (``parse_exact``)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.api.keywords import keywords_after, progress_keyword, steps_per_epoch_keyword
from verifier.core.arith import InputError, Interval, frac_str, parse_exact, parse_rate


def _parse(sigma, steps, epochs):
    """The pair of epsilon() and delta(): at M = 1 (the Gaussian mechanism, in closed form)
    E up to 1e7."""
    from verifier.bounds.profile import parse_pair
    return parse_pair(sigma, steps, epochs, gaussian=True)


def _parse_delta(d) -> Fraction:
    from verifier.core.arith import parse_delta
    return parse_delta(d)


def parse_epsilon(e, negative: bool = False) -> Fraction:
    """An epsilon >= 0 (a target), or with ``negative`` any real eps (delta(eps) is defined
    for every eps; a negative one is read off the other direction at -eps)."""
    q = parse_exact(e, "epsilon")
    if q < 0 and not negative:
        raise InputError(f"epsilon must be >= 0, got {e}")
    return q


def _is_run(x) -> bool:
    from verifier.core.run import Run
    return isinstance(x, Run)


def _run_only(name: str, steps, epochs):
    if steps is not None or epochs not in (None, 1):
        raise InputError(f"{name}(run, ...): a Run carries its own steps and epochs; pass "
                         "them in its phases")


@progress_keyword
@steps_per_epoch_keyword
@keywords_after(3, "delta")
def epsilon(sigma, steps=None, epochs=1, *, delta=None, rel_width=None):
    """Certified bracket of epsilon(delta) of E epochs of M steps (an ``EpsilonResult``:
    ``epsilon`` an Interval or None when inconclusive, ``remove``/``add`` per direction);
    ``rel_width``: refined until the bracket is at most that wide relative, or as far as the
    engine gets (``info["refinement_limit"]`` says what stopped it).

    ``epsilon(run, delta=...)`` with a ``verifier.Run`` (phases of any schedule) gives the
    run's bracket, composed exactly (a ``RunEpsilon``; docs/RUNS.md).

    >>> import verifier
    >>> r = verifier.epsilon("2", 10, 10, delta="1e-6")
    >>> Fraction("2.42") <= r.epsilon.lower <= r.epsilon.upper <= Fraction("2.43")
    True
    """
    from verifier.bounds.profile import epsilon_bracket
    if delta is None:          # a certified number is about the delta the user signs off with
        raise InputError("epsilon(sigma, steps, epochs, delta=D): delta is required")
    from verifier.numerics.brackets import check_rel_width
    if _is_run(sigma):
        from verifier.bounds.runs import epsilon_bracket as run_epsilon
        _run_only("epsilon", steps, epochs)
        return run_epsilon(sigma, _parse_delta(delta), check_rel_width(rel_width))
    if steps is None:
        raise InputError("epsilon(sigma, steps, epochs, delta=D): steps (per epoch) is required")
    s, m, e = _parse(sigma, steps, epochs)
    return epsilon_bracket(s, m, e, _parse_delta(delta), check_rel_width(rel_width))


@progress_keyword
@steps_per_epoch_keyword
@keywords_after(3, "epsilon")
def delta(sigma, steps=None, epochs=1, *, epsilon=None, rel_width=None):
    """Certified bracket of delta(epsilon) = max of the remove and add directions (a
    ``DeltaResult``); ``rel_width`` as for ``epsilon``; ``delta(run, epsilon=...)`` for a
    ``verifier.Run`` (a ``RunDelta``)."""
    from verifier.bounds.profile import delta_bracket
    if epsilon is None:
        raise InputError("delta(sigma, steps, epochs, epsilon=EPS): epsilon is required")
    from verifier.numerics.brackets import check_rel_width
    if _is_run(sigma):
        from verifier.bounds.runs import delta_bracket as run_delta
        _run_only("delta", steps, epochs)
        return run_delta(sigma, parse_epsilon(epsilon, negative=True),
                         rel_width=check_rel_width(rel_width))
    if steps is None:
        raise InputError("delta(sigma, steps, epochs, epsilon=EPS): steps (per epoch) is required")
    s, m, e = _parse(sigma, steps, epochs)
    return delta_bracket(s, m, e, parse_epsilon(epsilon, negative=True),
                         rel_width=check_rel_width(rel_width))


@progress_keyword
def calibrate_run(run, *, target_epsilon=None, target_delta=None, resolution="0.01",
                  phase=None):
    """The smallest common scale c (on a grid of ``resolution``) of every phase's noise
    multiplier for which the run meets (target_epsilon, target_delta), certified, with c -
    resolution certified to fail (a ``RunScale``: ``.scale``, ``.run`` the scaled run);
    ``phase=i`` (1-based): phase i's smallest noise multiplier on the grid instead, the
    other phases as they are (``.scale`` is then that sigma)."""
    from verifier.core.run import Run
    from verifier.deploy.run_sigma import calibrate_run_scale
    if not isinstance(run, Run):
        raise InputError(f"calibrate_run(run, ...): a verifier.Run, got {type(run).__name__}")
    if target_epsilon is None or target_delta is None:
        raise InputError("calibrate_run(run, target_epsilon=EPS, target_delta=D): both required")
    return calibrate_run_scale(run, parse_epsilon(target_epsilon), _parse_delta(target_delta),
                               parse_exact(resolution, "resolution"), phase=phase)


@dataclass(frozen=True)
class ProfilePoint:
    epsilon: Fraction
    remove: Interval
    add: Interval
    delta: Interval

    def to_json(self) -> dict:
        return {"epsilon": frac_str(self.epsilon), "delta": self.delta.to_json(),
                "directions": {"remove": {"delta": self.remove.to_json()},
                               "add": {"delta": self.add.to_json()}}}


@dataclass(frozen=True)
class PrivacyProfile:
    """The certified privacy profile on a grid of eps: each point both directions' brackets
    (plot ``lower``/``upper`` of each as a band)."""
    sigma: Fraction
    steps: int
    epochs: int
    points: tuple

    def to_json(self) -> dict:
        return {"sigma": frac_str(self.sigma), "steps": self.steps, "epochs": self.epochs,
                "points": [p.to_json() for p in self.points]}


@steps_per_epoch_keyword
@keywords_after(3, "eps_grid")
def privacy_profile(sigma, steps, epochs=1, *, eps_grid=("0", "0.5", "1", "2", "4")):
    """The certified privacy profile (a ``PrivacyProfile``) on a grid of eps, both directions."""
    from verifier.bounds.profile import delta_bracket
    s, m, e = _parse(sigma, steps, epochs)
    pts = []
    for x in eps_grid:
        r = delta_bracket(s, m, e, parse_epsilon(x))
        pts.append(ProfilePoint(r.epsilon, r.remove, r.add, r.delta))
    return PrivacyProfile(s, m, e, tuple(pts))


class NoiseMultiplier(float):
    """The certified noise multiplier of ``get_noise_multiplier``: a float (pass it to
    Opacus as it is) that prints as the exact decimal certified (``.sigma``, a Fraction; by
    the float policy the accountant reads the float back as that decimal), carrying its
    calibration (``.calibration``: the delta brackets at the answer, certified)."""

    def __new__(cls, sigma: Fraction, calibration):
        self = super().__new__(cls, float(sigma))
        if Fraction(float.__repr__(self)) != sigma:
            raise ArithmeticError(f"sigma = {frac_str(sigma)} does not print as itself")
        self.sigma = Fraction(sigma)
        self.calibration = calibration
        return self

    def __reduce__(self):
        return (NoiseMultiplier, (self.sigma, self.calibration))


class NoCertifiedSigma(ValueError):
    """No sigma was certified (Opacus raises ValueError when the target cannot be met):
    one line that says why; ``.calibration`` has the details."""

    def __init__(self, calibration):
        super().__init__(f"no noise multiplier certified ({calibration.status}): "
                         f"{calibration.message}")
        self.calibration = calibration


def _steps_per_epoch(sample_rate, steps_per_epoch) -> int:
    from verifier.core.run import steps_per_epoch_of
    from verifier.core.arith import parse_steps
    if sample_rate is None and steps_per_epoch is None:
        raise InputError("give sample_rate (1/M, as Opacus passes it) or steps_per_epoch = M")
    m = None if steps_per_epoch is None else parse_steps(steps_per_epoch, name="steps_per_epoch",
                                                         minimum=1)
    if sample_rate is not None:
        m = steps_per_epoch_of(sample_rate, m)
    return parse_steps(m, name="steps_per_epoch", minimum=1)


@progress_keyword
def get_noise_multiplier(target_epsilon=None, target_delta=None, sample_rate=None,
                         epochs=None, steps=None, accountant="random_allocation",
                         epsilon_tolerance=0.01, *, steps_per_epoch=None,
                         **kwargs) -> NoiseMultiplier:
    """Opacus's ``get_noise_multiplier``, certified, for random allocation: a noise
    multiplier whose epsilon(target_delta) is certified <= target_epsilon and, as in
    Opacus, within ``epsilon_tolerance`` of it (certified > target - tolerance) when the
    search reaches that.  Same arguments and meanings as Opacus: ``sample_rate`` = 1/M (or
    ``steps_per_epoch=M``), EITHER ``epochs`` OR ``steps`` (total optimizer steps; a partial
    last epoch counts as a whole one).  Floats and numpy scalars are read as the decimals they
    print as.  Returns a ``NoiseMultiplier`` (a float; ``.sigma`` the exact decimal,
    ``.calibration`` the certificate); raises ``NoCertifiedSigma`` (a ValueError) when no
    sigma in the engine's range [0.3, 50] is certified, ``InputError`` on bad input.

    >>> import verifier
    >>> s = verifier.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5,
    ...                                   sample_rate=0.01, epochs=10, epsilon_tolerance=0.05)
    >>> s.calibration.status, 0.9 < s < 1.0, s.sigma == Fraction(repr(s))
    ('certified', True, True)
    """
    from verifier.bounds.profile import MAX_EPOCHS
    from verifier.core.arith import parse_delta, parse_epochs
    from verifier.deploy.epsilon import calibrate_sigma_tolerance
    if kwargs:
        raise InputError(f"unexpected argument {sorted(kwargs)[0]!r} (Opacus's "
                         "get_noise_multiplier arguments, or steps_per_epoch=)")
    if accountant not in ("random_allocation", "certified_poisson"):
        raise InputError(f"accountant = {accountant!r}: verifier certifies 'random_allocation' "
                         "and 'certified_poisson' (Poisson subsampling); Opacus's own "
                         "get_noise_multiplier gives float figures for 'prv', 'rdp' and 'gdp'")
    if target_epsilon is None or target_delta is None:
        raise InputError("target_epsilon and target_delta are required")
    eps = parse_exact(target_epsilon, "target_epsilon")
    if eps < 0:
        raise InputError(f"target_epsilon must be >= 0, got {target_epsilon}")
    d = parse_delta(target_delta, "target_delta")
    tol = parse_exact(epsilon_tolerance, "epsilon_tolerance")
    if tol <= 0:
        raise InputError(f"epsilon_tolerance must be > 0, got {epsilon_tolerance}")
    if (steps is None) == (epochs is None):
        raise InputError("give EITHER epochs OR steps (total optimizer steps), as in Opacus")
    if accountant == "certified_poisson":
        return _poisson_noise_multiplier(eps, d, tol, sample_rate, epochs, steps)
    m = _steps_per_epoch(sample_rate, steps_per_epoch)
    if epochs is not None:
        e = parse_epochs(epochs, MAX_EPOCHS)
    else:
        t = parse_exact(steps, "steps")
        if t.denominator != 1 or t < 1:
            raise InputError(f"steps (total optimizer steps) must be an integer >= 1, got {steps}")
        e = parse_epochs(-(-int(t) // m), MAX_EPOCHS)
    cal = calibrate_sigma_tolerance(eps, d, m, e, tol)
    if cal.status != "certified" or cal.sigma is None:
        raise NoCertifiedSigma(cal)
    return NoiseMultiplier(cal.sigma, cal)


# ---- Poisson subsampling (bounds/poisson; docs/POISSON.md) --------------------------------
def _poisson_noise_multiplier(eps, d, tol, sample_rate, epochs, steps) -> "NoiseMultiplier":
    """get_noise_multiplier for Poisson subsampling: T = steps, or int(epochs / sample_rate)
    as Opacus counts them."""
    from verifier.deploy.epsilon import calibrate_sigma_tolerance
    if sample_rate is None:
        raise InputError("accountant='certified_poisson' needs sample_rate (q)")
    q = parse_rate(sample_rate)
    if steps is None:
        e = parse_exact(epochs, "epochs")
        if e <= 0:
            raise InputError(f"epochs must be > 0, got {str(epochs)[:40]}")
        steps = int(e / q)                        # Opacus: steps = int(epochs / sample_rate)
    _, q, t = parse_poisson(1, q, steps)
    cal = calibrate_sigma_tolerance(eps, d, 1, 1, tol, poisson=(q, t))
    if cal.status != "certified" or cal.sigma is None:
        raise NoCertifiedSigma(cal)
    return NoiseMultiplier(cal.sigma, cal)


def parse_poisson(sigma, sample_rate, steps) -> tuple:
    """(sigma, q, T): the noise multiplier, the sample rate q in (0, 1] and the total number
    of steps T (Opacus's ``steps``), by the float policy of parse_exact."""
    from verifier.core.arith import parse_sigma
    if sample_rate is None or steps is None:
        raise InputError("Poisson subsampling needs sample_rate (q) and steps (T, steps in all)")
    q = parse_rate(sample_rate)
    t = parse_exact(steps, "steps")
    if t.denominator != 1 or t < 1:
        raise InputError(f"steps (steps in all) must be an integer >= 1, got {str(steps)[:40]}")
    return parse_sigma(sigma), q, int(t)


@progress_keyword
@keywords_after(3, "delta", "rel_width")
def poisson_epsilon(sigma, sample_rate, steps, *, delta=None, rel_width=None):
    """Certified bracket of epsilon(delta) of DP-SGD with Poisson subsampling: ``steps``
    (T, steps in all, Opacus's meaning) at rate ``sample_rate`` (q), noise multiplier
    ``sigma``, add/remove adjacency, both directions (a ``PoissonEpsilon``); ``rel_width``:
    the lattice is refined until the bracket is at most this wide relative (default 0.001),
    as far as the lattice's points per step (bounds.poisson.REFINE_POINTS) and the memory
    allow (``info["refinement_limit"]`` says what stopped it short).

    >>> import verifier
    >>> r = verifier.poisson_epsilon("1.1", "0.05", 20, delta="1e-5")
    >>> Fraction("1.589") <= r.epsilon.lower <= r.epsilon.upper <= Fraction("1.591")
    True
    """
    from verifier.bounds.poisson import epsilon_bracket
    if delta is None:
        raise InputError("poisson_epsilon(sigma, sample_rate, steps, delta=D): delta is required")
    from verifier.bounds.poisson import check_rel_width
    s, q, t = parse_poisson(sigma, sample_rate, steps)
    return epsilon_bracket(s, q, t, _parse_delta(delta), check_rel_width(rel_width))


@progress_keyword
@keywords_after(3, "epsilon", "rel_width")
def poisson_delta(sigma, sample_rate, steps, *, epsilon=None, rel_width=None):
    """Certified bracket of delta(epsilon) of T Poisson-subsampled steps (a
    ``PoissonDelta``): the larger of the remove and add directions, and each."""
    from verifier.bounds.poisson import delta_bracket
    if epsilon is None:
        raise InputError("poisson_delta(sigma, sample_rate, steps, epsilon=EPS): epsilon is required")
    from verifier.bounds.poisson import check_rel_width
    s, q, t = parse_poisson(sigma, sample_rate, steps)
    return delta_bracket(s, q, t, parse_epsilon(epsilon, negative=True),
                         rel_width=check_rel_width(rel_width))


@dataclass(frozen=True)
class SamplerComparison:
    """Random allocation (M steps per epoch, E epochs) against Poisson subsampling at rate
    q = 1/M for T = M E steps, both certified at the same sigma and delta; ``difference`` =
    Poisson's epsilon minus random allocation's, certified, or None when the brackets
    overlap; with a target epsilon, the noise multiplier each needs (``sigma_needed``)."""
    sigma: Fraction
    steps_per_epoch: int
    epochs: int
    delta: Fraction
    random_allocation: object          # EpsilonResult
    poisson: object                    # PoissonEpsilon
    difference: Interval | None
    verdict: str
    target_epsilon: Fraction | None = None
    sigma_needed: dict | None = None   # sampler -> EpsCalibration

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.epochs

    @property
    def sample_rate(self) -> Fraction:
        return Fraction(1, self.steps_per_epoch)

    def to_json(self) -> dict:
        out = {"sigma": frac_str(self.sigma), "steps_per_epoch": self.steps_per_epoch,
               "epochs": self.epochs, "total_steps": self.total_steps,
               "sample_rate": frac_str(self.sample_rate),
               "delta": frac_str(self.delta),
               "random_allocation": self.random_allocation.to_json(),
               "poisson": self.poisson.to_json(),
               "difference": None if self.difference is None else self.difference.to_json(),
               "verdict": self.verdict}
        if self.target_epsilon is not None:
            out["target_epsilon"] = frac_str(self.target_epsilon)
            out["sigma_needed"] = {k: v.to_json() for k, v in self.sigma_needed.items()}
        return out


@progress_keyword
@keywords_after(3, "delta", "target_epsilon", "epsilon_tolerance")
def compare_samplers(sigma, steps_per_epoch, epochs=1, *, delta=None, target_epsilon=None,
                     epsilon_tolerance="0.01") -> SamplerComparison:
    """Random allocation and Poisson subsampling (q = 1/M, T = M E) side by side, both
    certified: which needs the smaller epsilon at this sigma (only when the brackets
    separate), and with ``target_epsilon`` the noise multiplier each needs (Opacus's
    tolerance search, certified, for each)."""
    from verifier.bounds.poisson import epsilon_bracket as pe
    from verifier.bounds.profile import epsilon_bracket as ra
    from verifier.deploy.epsilon import calibrate_sigma_tolerance
    if delta is None:
        raise InputError("compare_samplers(sigma, steps_per_epoch, epochs, delta=D): delta is "
                         "required")
    s, m, e = _parse(sigma, steps_per_epoch, epochs)
    d = _parse_delta(delta)
    a, p = ra(s, m, e, d), pe(s, Fraction(1, m), m * e, d)
    diff, verdict = None, "not separated: the two brackets overlap"
    if a.epsilon is not None and p.epsilon is not None:
        if p.epsilon.lower > a.epsilon.upper:
            diff = Interval(p.epsilon.lower - a.epsilon.upper, p.epsilon.upper - a.epsilon.lower)
            verdict = "random allocation's epsilon is lower (certified)"
        elif a.epsilon.lower > p.epsilon.upper:
            diff = Interval(p.epsilon.lower - a.epsilon.upper, p.epsilon.upper - a.epsilon.lower)
            verdict = "Poisson subsampling's epsilon is lower (certified)"
    else:
        verdict = "not compared: an epsilon is inconclusive"
    eps, needed = None, None
    if target_epsilon is not None:
        eps = parse_epsilon(target_epsilon)
        tol = parse_exact(epsilon_tolerance, "epsilon_tolerance")
        needed = {"random_allocation": calibrate_sigma_tolerance(eps, d, m, e, tol),
                  "poisson": calibrate_sigma_tolerance(eps, d, m, e, tol,
                                                       poisson=(Fraction(1, m), m * e))}
    return SamplerComparison(s, m, e, d, a, p, diff, verdict, eps, needed)
