"""The (epsilon, delta) face of the API (issue #13): ``epsilon``, ``delta``,
``privacy_profile`` and ``get_noise_multiplier``; exact inputs (decimal strings, ints,
Fractions), never binary floats."""
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


def get_noise_multiplier(target_epsilon, target_delta, steps_per_epoch, epochs=1,
                         epsilon_tolerance="0.01", resolution=None):
    """Opacus's ``get_noise_multiplier`` for random allocation, certified: the smallest sigma
    on the grid of multiples of ``resolution`` (default: ``epsilon_tolerance``) whose
    epsilon(target_delta) is certified <= target_epsilon, with the grid point below
    certified to fail (a ``SigmaEpsCalibration``; ``.sigma`` is the answer, None if not
    found).  Sigma is a Fraction: pass ``float(...)`` to Opacus."""
    from verifier.deploy.epsilon import calibrate_sigma_eps
    eps = _parse_eps(target_epsilon)
    d = _parse_delta(target_delta)
    from verifier.core.arith import parse_epochs, parse_steps
    from verifier.bounds.profile import MAX_EPOCHS
    m = parse_steps(steps_per_epoch, name="steps_per_epoch", minimum=1)
    e = parse_epochs(epochs, MAX_EPOCHS)
    res = parse_exact(resolution if resolution is not None else epsilon_tolerance, "resolution")
    if res <= 0:
        raise InputError(f"resolution must be > 0, got {res}")
    return calibrate_sigma_eps(eps, d, m, e, res)
