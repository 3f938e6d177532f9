"""The (epsilon, delta) face of the API (issue #13): ``epsilon``, ``delta``,
``privacy_profile`` and ``get_noise_multiplier``; exact inputs (decimal strings, ints,
Fractions), never binary floats (except ``get_noise_multiplier``'s targets, which Opacus
passes as floats: read by their repr)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, Interval, frac_str, parse_exact


def _parse(sigma, steps, epochs):
    from verifier.bounds.profile import MAX_EPOCHS
    from verifier.core.arith import parse_epochs, parse_sigma, parse_steps
    return parse_sigma(sigma), parse_steps(steps, minimum=1), parse_epochs(epochs, MAX_EPOCHS)


def _parse_delta(d) -> Fraction:
    from verifier.core.arith import parse_delta
    return parse_delta(d)


def _parse_eps(e) -> Fraction:
    q = parse_exact(e, "epsilon")
    if q < 0:
        raise InputError(f"epsilon must be >= 0, got {e}")
    return q


def epsilon(sigma, steps, epochs=1, delta="1e-5"):
    """Certified bracket of epsilon(delta) of E epochs of M steps (an ``EpsilonResult``:
    ``epsilon`` an Interval or None when inconclusive, ``remove``/``add`` per direction).

    >>> import verifier
    >>> r = verifier.epsilon("2", 10, 10, "1e-6")
    >>> Fraction("2.42") <= r.epsilon.lower <= r.epsilon.upper <= Fraction("2.43")
    True
    """
    from verifier.bounds.profile import epsilon_bracket
    s, m, e = _parse(sigma, steps, epochs)
    return epsilon_bracket(s, m, e, _parse_delta(delta))


def delta(sigma, steps, epochs=1, epsilon="1"):
    """Certified bracket of delta(epsilon) = max of the remove and add directions (a
    ``DeltaResult``)."""
    from verifier.bounds.profile import delta_bracket
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


class CertifiedSigma(Fraction):
    """The certified noise multiplier of ``get_noise_multiplier``: an exact Fraction (pass
    ``float(s)`` to Opacus) carrying its calibration (``.calibration``: the delta(eps)
    brackets at the answer and one grid step below, both certified)."""

    def __new__(cls, value, calibration):
        self = super().__new__(cls, value)
        self.calibration = calibration
        return self

    @property
    def sigma(self) -> Fraction:            # the plain Fraction (as on the calibration)
        return Fraction(self)

    def __repr__(self) -> str:
        return f"CertifiedSigma({frac_str(self)})"

    def __reduce__(self):
        return (CertifiedSigma, (Fraction(self), self.calibration))


class NoCertifiedSigma(ValueError):
    """No grid sigma was certified (Opacus raises ValueError when the target cannot be met):
    ``.calibration`` says why (infeasible, inconclusive or beyond the engine's range)."""

    def __init__(self, calibration):
        super().__init__(f"no noise multiplier certified: {calibration.status}"
                         + (f" ({calibration.message})" if calibration.message else ""))
        self.calibration = calibration


def _opacus_number(value, name: str) -> Fraction:
    """Opacus passes targets as floats: a float is read as the decimal Python prints for it
    (its repr, the shortest decimal that rounds to it: 1e-05 -> 1/100000, 3.0 -> 3), so the
    certified statement is about the number the user wrote; every other input as parse_exact."""
    import math
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{name} must be a finite number, got {value!r}")
        value = repr(value)
    return parse_exact(value, name)


def get_noise_multiplier(target_epsilon, target_delta, steps_per_epoch, epochs=1,
                         epsilon_tolerance="0.01", resolution=None) -> CertifiedSigma:
    """Opacus's ``get_noise_multiplier`` for random allocation, certified: the smallest sigma
    on the grid of multiples of ``resolution`` (default: ``epsilon_tolerance``) whose
    epsilon(target_delta) is certified <= target_epsilon, with the grid point below
    certified to fail.  Returns a ``CertifiedSigma`` (a Fraction: ``float(...)`` for
    Opacus; ``.calibration`` the certificate); raises ``NoCertifiedSigma`` (a ValueError)
    when no grid sigma is certified.  Float targets, as Opacus passes them, are read by
    their repr (``1e-05`` is 1/100000).

    >>> import verifier
    >>> s = verifier.get_noise_multiplier(2.0, 1e-5, steps_per_epoch=100, epochs=10,
    ...                                   epsilon_tolerance=0.05)
    >>> s, float(s), s.calibration.status
    (CertifiedSigma(0.95), 0.95, 'certified')
    """
    from verifier.deploy.epsilon import calibrate_sigma_eps
    from verifier.core.arith import parse_delta, parse_epochs, parse_steps
    from verifier.bounds.profile import MAX_EPOCHS
    eps = _opacus_number(target_epsilon, "target_epsilon")
    if eps < 0:
        raise InputError(f"target_epsilon must be >= 0, got {target_epsilon}")
    d = parse_delta(_opacus_number(target_delta, "target_delta"), "target_delta")
    m = parse_steps(steps_per_epoch, name="steps_per_epoch", minimum=1)
    e = parse_epochs(epochs, MAX_EPOCHS)
    res = _opacus_number(resolution if resolution is not None else epsilon_tolerance,
                         "resolution")
    if res <= 0:
        raise InputError(f"resolution must be > 0, got {res}")
    cal = calibrate_sigma_eps(eps, d, m, e, res)
    if cal.status != "certified" or cal.sigma is None:
        raise NoCertifiedSigma(cal)
    return CertifiedSigma(cal.sigma, cal)
