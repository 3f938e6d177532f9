"""Digits on demand for the Gaussian mechanism (docs/THEORY.md section 13): delta(eps) from
its closed form (D.gaussian_profile, printed from verifier.symbolic.gaussian; proof check
gaussian.profile-closed-form) at whatever precision the requested digits need, and
epsilon(delta) by certified bisection (delta(eps) is strictly decreasing in eps).

The pair of T compositions of the Gaussian mechanism with noise multiplier sigma is
N(mu, 1) vs N(0, 1) with mu^2 = T / sigma^2 (exact rational): random allocation with M = 1
step per epoch (T = E epochs) and Poisson subsampling at q = 1.  Both directions are equal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import Interval, ball_bounds, decimal_str, frac_str, to_arb
from verifier.core.decide import decide
from verifier.numerics.brackets import certified_bisection
from verifier.symbolic import derived as D

MAX_DIGITS = 1000
PREC_CAP = 20000


def mu_squared(pairs) -> Fraction:
    """mu^2 of the Gaussian pair that steps of the Gaussian mechanism on every record are:
    sum_i n_i / sigma_i^2 over ``pairs`` ((sigma_i, n_i), ...), exact (n_i steps at noise
    multiplier sigma_i, exact Fractions; SymPy symbols in the proof check
    runs.gaussian-composition).  One phase: T / sigma^2."""
    return sum((n / sigma ** 2 for sigma, n in pairs), 0)


def _delta_ball(mu2: Fraction, eps: Fraction) -> arb:
    return D.gaussian_profile(to_arb(mu2).sqrt(), to_arb(eps))


def delta_interval(mu2: Fraction, eps: Fraction, digits: int) -> Interval:
    """delta(eps) with relative width <= 10^-digits (absolute below 10^-(digits + 300)), the
    precision raised until it is reached (the last bracket at the cap otherwise)."""
    want, tiny = Fraction(1, 10 ** digits), Fraction(1, 10 ** (digits + 300))

    def at(p):
        with ctx.workprec(p):
            lo, hi = ball_bounds(_delta_ball(mu2, eps))
        return Interval(max(lo, Fraction(0)), min(hi, Fraction(1)))

    def settled(iv):
        return iv.upper - iv.lower <= want * iv.lower or iv.upper <= tiny
    return decide(at, settled, PREC_CAP, _start(digits))


def _compare(mu2: Fraction, eps: Fraction, delta: Fraction, prec: int) -> int:
    """+1: delta(eps) > delta certified; -1: <= delta certified; 0 undecided at the cap."""
    def at(p):
        with ctx.workprec(p):
            d = to_arb(delta)                     # at this precision (1/10^5 is not dyadic)
            v = _delta_ball(mu2, eps)
            return 1 if v > d else -1 if v <= d else 0
    return decide(at, lambda c: c != 0, PREC_CAP, prec)


def _start(digits: int) -> int:
    """The first working precision for D digits (about 3.33 bits a digit, with guard bits)."""
    return 64 + int(3.33 * digits) + 32


def epsilon_interval(mu2: Fraction, delta: Fraction, digits: int) -> tuple[Interval | None, int]:
    """(bracket of epsilon(delta) with width <= 10^-digits relative (10^-digits absolute
    below eps 1), evaluations); [0, 0] when delta(0) <= delta; None when no eps <= 1e6 is
    certified to meet delta (inconclusive).  Each end certified: delta(lower) > delta (or
    lower = 0) and delta(upper) <= delta."""
    prec, scale = _start(digits), Fraction(10) ** -digits
    return certified_bisection(lambda e: _compare(mu2, e, delta, prec),
                               lambda lo, hi: scale * max(hi, Fraction(1)), 10 ** 6)


@dataclass(frozen=True)
class GaussianAnswer:
    """epsilon(delta) or delta(eps) of the Gaussian mechanism to ``digits`` digits."""
    what: str                 # "epsilon" or "delta"
    mu2: Fraction             # mu^2 = T / sigma^2
    at: Fraction              # the delta (what = epsilon) or the eps (what = delta)
    value: Interval
    digits: int
    evaluations: int

    def to_json(self) -> dict:
        return {"method": "closed form (Gaussian mechanism: N(mu, 1) vs N(0, 1), mu^2 = T / "
                          "sigma^2; docs/THEORY.md section 13)",
                "mu_squared": frac_str(self.mu2), "digits": self.digits,
                ("delta" if self.what == "epsilon" else "epsilon"): frac_str(self.at),
                self.what: {"lower": decimal_str(self.value.lower, self.digits + 3, "down"),
                            "upper": decimal_str(self.value.upper, self.digits + 3, "up")},
                "evaluations": self.evaluations,
                "certified": "both directions equal (reflection); every end an Arb ball's "
                             "outward end; epsilon by certified bisection"}


GAUSSIAN_INFO = ("the Gaussian mechanism in closed form (Balle & Wang 2018, Theorem 8; proof "
                 "check gaussian.profile-closed-form; docs/THEORY.md section 13)")


def closed_form_digits(rel_width: Fraction) -> int:
    """The digits of the Gaussian closed form that give a relative width <= rel_width."""
    return max(1, math.ceil(-math.log10(float(rel_width)))) + 1


def closed_form_width_digits(rel_width, default: Fraction) -> int:
    """closed_form_digits of a requested width (checked), of ``default`` if None."""
    from verifier.numerics.brackets import check_rel_width
    return closed_form_digits(check_rel_width(rel_width, default))


def check_digits(digits) -> int:
    from verifier.core.arith import InputError, parse_exact
    d = parse_exact(digits, "digits")
    if d.denominator != 1 or not 1 <= d <= MAX_DIGITS:
        raise InputError(f"digits must be an integer in [1, {MAX_DIGITS}], got {digits}")
    return int(d)
