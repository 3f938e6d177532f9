"""The (epsilon, delta) face of the API: ``epsilon``, ``delta``, ``privacy_profile`` and
``get_noise_multiplier`` (Opacus's signature); decimal strings, ints, Fractions, or floats
and numpy scalars read as the decimals they print as (``parse_exact``)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, Interval, frac_str, parse_exact


def _parse(sigma, steps, epochs):
    from verifier.bounds.profile import parse_pair
    return parse_pair(sigma, steps, epochs)


def _parse_delta(d) -> Fraction:
    from verifier.core.arith import parse_delta
    return parse_delta(d)


def _parse_eps(e) -> Fraction:
    q = parse_exact(e, "epsilon")
    if q < 0:
        raise InputError(f"epsilon must be >= 0, got {e}")
    return q


def epsilon(sigma, steps, epochs=1, delta=None):
    """Certified bracket of epsilon(delta) of E epochs of M steps (an ``EpsilonResult``:
    ``epsilon`` an Interval or None when inconclusive, ``remove``/``add`` per direction).

    >>> import verifier
    >>> r = verifier.epsilon("2", 10, 10, "1e-6")
    >>> Fraction("2.42") <= r.epsilon.lower <= r.epsilon.upper <= Fraction("2.43")
    True
    """
    from verifier.bounds.profile import epsilon_bracket
    if delta is None:          # a certified number is about the delta the user signs off with
        raise InputError("epsilon(sigma, steps, epochs, delta): delta is required")
    s, m, e = _parse(sigma, steps, epochs)
    return epsilon_bracket(s, m, e, _parse_delta(delta))


def delta(sigma, steps, epochs=1, epsilon=None):
    """Certified bracket of delta(epsilon) = max of the remove and add directions (a
    ``DeltaResult``)."""
    from verifier.bounds.profile import delta_bracket
    if epsilon is None:
        raise InputError("delta(sigma, steps, epochs, epsilon): epsilon is required")
    s, m, e = _parse(sigma, steps, epochs)
    return delta_bracket(s, m, e, _parse_eps(epsilon))


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


def privacy_profile(sigma, steps, epochs=1, eps_grid=("0", "0.5", "1", "2", "4")):
    from verifier.bounds.profile import delta_bracket
    s, m, e = _parse(sigma, steps, epochs)
    pts = []
    for x in eps_grid:
        r = delta_bracket(s, m, e, _parse_eps(x))
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
    from verifier.accountants import steps_per_epoch_of
    from verifier.core.arith import parse_steps
    if sample_rate is None and steps_per_epoch is None:
        raise InputError("give sample_rate (1/M, as Opacus passes it) or steps_per_epoch = M")
    m = None if steps_per_epoch is None else parse_steps(steps_per_epoch, name="steps_per_epoch",
                                                         minimum=1)
    if sample_rate is not None:
        m = steps_per_epoch_of(sample_rate, m)
    return parse_steps(m, name="steps_per_epoch", minimum=1)


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
    if accountant != "random_allocation":
        raise InputError(f"accountant = {accountant!r}: verifier certifies 'random_allocation' "
                         "only (Poisson: not yet); Opacus's own get_noise_multiplier gives "
                         "float figures for 'prv', 'rdp' and 'gdp'")
    if target_epsilon is None or target_delta is None:
        raise InputError("target_epsilon and target_delta are required")
    eps = parse_exact(target_epsilon, "target_epsilon")
    if eps < 0:
        raise InputError(f"target_epsilon must be >= 0, got {target_epsilon}")
    d = parse_delta(target_delta, "target_delta")
    tol = parse_exact(epsilon_tolerance, "epsilon_tolerance")
    if tol <= 0:
        raise InputError(f"epsilon_tolerance must be > 0, got {epsilon_tolerance}")
    m = _steps_per_epoch(sample_rate, steps_per_epoch)
    if (steps is None) == (epochs is None):
        raise InputError("give EITHER epochs OR steps (total optimizer steps), as in Opacus")
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
