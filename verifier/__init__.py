"""verifier: certified checks of the privacy bounds of DP-SGD with random
allocation (van Dijk & Ertan, arXiv 2605.06259).

Python API (exact inputs: decimal strings, ints or Fractions; never floats)::

    from verifier import bound, steps_exact, closed_form
    bound("1", 10**6).delta            # Interval enclosing delta_rhs
    steps_exact("1", "0.01").m_exact   # 1140369, with its certificate
"""
__version__ = "0.1.0"

__all__ = ["bound", "steps_exact", "closed_form", "min_samples", "__version__"]


def _exact_args(sigma, delta=None):
    from .arith import parse_delta, parse_sigma

    return parse_sigma(sigma), (parse_delta(delta) if delta is not None else None)


def bound(sigma, steps, coef="simplified", epochs=1, delta=None):
    """Certified delta_rhs of Theorem 3.1 (reconstructed) with hypothesis verdicts."""
    from . import theorem31 as T
    from .arith import parse_epochs, parse_steps

    s, d = _exact_args(sigma, delta)
    return T.bound(s, parse_steps(steps), coef, parse_epochs(epochs), d)


def steps_exact(sigma, delta, coef="simplified"):
    """M_exact with its certificate (a ``StepsResult``)."""
    from . import theorem31 as T

    s, d = _exact_args(sigma, delta)
    return T.steps_exact(s, d, coef)


def closed_form(sigma, delta, coef="simplified"):
    """M_BE, closed form (4), as a certified Interval."""
    from . import theorem31 as T

    s, d = _exact_args(sigma, delta)
    return T.closed_form(s, d, coef)


def min_samples(sigma, delta, coef="simplified", noise_level="0.1"):
    """Min N = ceil(sigma M_exact / noise_level), or None if M_exact is not certified."""
    from fractions import Fraction

    from . import theorem31 as T
    from .arith import parse_exact

    r = steps_exact(sigma, delta, coef)
    if r.m_exact is None:
        return None
    return T.min_samples(r.m_exact, r.sigma, Fraction(parse_exact(noise_level, "noise_level")))
