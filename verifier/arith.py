"""Exact inputs, three-valued certified comparisons and outward decimal output.

Conventions (see ``shared/notes/FLINT_NOTES.md``):
- every decimal that enters the verifier (sigma, delta, 0.4748, printed table
  values) is parsed to an exact ``Fraction``; it becomes an ``arb`` only inside
  a ``ctx.workprec`` block, rounded outward at that precision;
- a comparison of balls is ``HOLDS`` or ``FAILS`` only when certain; an
  overlapping comparison is ``UNDECIDED`` and callers raise the precision
  (``PRECISIONS``) up to a cap, past which the answer is "inconclusive";
- intervals are printed as decimal strings rounded *outward*.
"""
from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq

START_PREC = 64
DEFAULT_MAX_PREC = 4096
MAX_DECIMAL_EXPONENT = 4000  # refuse "1e999999999" instead of building a huge integer


class InputError(ValueError):
    """Bad user input; the CLI prints the message on one line and exits 2."""


class Tri(enum.Enum):
    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"


def precisions(max_prec: int = DEFAULT_MAX_PREC, start: int = START_PREC):
    """The working precisions tried in turn: start, 2 start, ... up to max_prec."""
    p = start
    while p < max_prec:
        yield p
        p *= 2
    yield max_prec


def sign_ge0(g: arb) -> Tri:
    """Certified answer to 'g >= 0' for a ball g."""
    if g >= 0:
        return Tri.HOLDS
    if g < 0:
        return Tri.FAILS
    return Tri.UNDECIDED


_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?", re.ASCII)
_RATIONAL = re.compile(r"[+-]?\d+/\d+", re.ASCII)


def parse_exact(value, name: str) -> Fraction:
    """An exact rational from a decimal or 'p/q' string, an int, or a Decimal.

    Binary floats are refused: 0.1 as a float is not 1/10.
    """
    from decimal import Decimal

    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"{name} must be a finite number, got {value}")
        value = str(value)
    if isinstance(value, float):
        raise InputError(f"{name} must be given as a decimal string, not a binary float ({value!r})")
    if not isinstance(value, str):
        raise InputError(f"{name} must be a number, got {type(value).__name__} {value!r:.60}")
    text = value.strip()
    m = _DECIMAL.fullmatch(text)
    if m:
        if m.group(1) is not None and abs(int(m.group(1))) > MAX_DECIMAL_EXPONENT:
            raise InputError(f"{name} exponent out of range: {text!r:.60}")
        return Fraction(text)
    if _RATIONAL.fullmatch(text):
        num, den = text.split("/")
        if int(den) == 0:
            raise InputError(f"{name} has a zero denominator: {text!r:.60}")
        if len(text) > 2 * MAX_DECIMAL_EXPONENT:
            raise InputError(f"{name} is too long: {text[:40]!r}...")
        return Fraction(int(num), int(den))
    raise InputError(f"{name} is not a number: {value!r:.60}")


def parse_sigma(value) -> Fraction:
    s = parse_exact(value, "sigma")
    if s <= 0:
        raise InputError(f"sigma must be > 0, got {value}")
    return s


def parse_delta(value, name: str = "delta") -> Fraction:
    d = parse_exact(value, name)
    if not 0 < d < 1:
        raise InputError(f"{name} must be in (0, 1), got {value}")
    return d


def parse_steps(value, name: str = "steps") -> int:
    """Steps per epoch M: an integer >= 3 ('1.14e6' is accepted when integral)."""
    m = parse_exact(value, name)
    if m.denominator != 1:
        raise InputError(f"{name} must be an integer, got {value}")
    if m < 3:
        raise InputError(f"{name} must be >= 3 (Theorem 3.1 needs M >= 3), got {value}")
    return int(m)


def parse_epochs(value) -> int:
    e = parse_exact(value, "epochs")
    if e.denominator != 1 or e < 1:
        raise InputError(f"epochs must be an integer >= 1, got {value}")
    if e > 10**9:
        raise InputError(f"epochs is unreasonably large: {value}")
    return int(e)


def to_arb(q) -> arb:
    """Ball around an exact rational (or int) at the current precision."""
    if isinstance(q, int):
        return arb(q)
    return arb(fmpq(q.numerator, q.denominator))


def ball_bounds(x: arb) -> tuple[Fraction, Fraction]:
    """Exact rational endpoints of a finite ball."""
    if not x.is_finite():
        raise ArithmeticError("non-finite ball")
    lo, hi = x.lower().fmpq(), x.upper().fmpq()
    return (Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q)))


def _floor_log10(q: Fraction) -> int:
    """floor(log10(q)) for q > 0, exactly."""
    e = int((q.numerator.bit_length() - q.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    return e


def decimal_str(q: Fraction, digits: int = 17, direction: str = "down") -> str:
    """q rounded to ``digits`` significant digits toward -inf ('down') or +inf ('up')."""
    if q == 0:
        return "0"
    e = _floor_log10(abs(q))
    scale = Fraction(10) ** (e - digits + 1)
    t = q / scale
    n = math.floor(t) if direction == "down" else math.ceil(t)
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    s = str(abs(n))
    exp10 = e - digits + 1 + len(s) - 1
    s = s.rstrip("0") or "0"
    if -5 <= exp10 < 21:  # positional notation
        if exp10 < 0:
            return f"{sign}0.{'0' * (-exp10 - 1)}{s}"
        if len(s) <= exp10 + 1:
            return sign + s + "0" * (exp10 + 1 - len(s))
        return f"{sign}{s[:exp10 + 1]}.{s[exp10 + 1:]}"
    mant = s[0] + ("." + s[1:] if len(s) > 1 else "")
    return f"{sign}{mant}e{exp10}"


@dataclass(frozen=True)
class Interval:
    """A closed interval with exact rational endpoints (a ball, read off)."""

    lower: Fraction | None   # None: -infinity (a non-finite ball)
    upper: Fraction | None   # None: +infinity

    @classmethod
    def of(cls, x) -> "Interval":
        if isinstance(x, (int, Fraction)):
            q = Fraction(x)
            return cls(q, q)
        if not x.is_finite():
            return cls(None, None)
        lo, hi = ball_bounds(x)
        return cls(lo, hi)

    @property
    def finite(self) -> bool:
        return self.lower is not None and self.upper is not None

    def to_json(self, digits: int = 17) -> dict:
        if not self.finite:
            return {"lower": "-inf", "upper": "inf"}
        return {"lower": decimal_str(self.lower, digits, "down"),
                "upper": decimal_str(self.upper, digits, "up")}

    def short(self, digits: int = 10) -> str:
        """Human form '[lower, upper]' with outward rounding."""
        if not self.finite:
            return "[-inf, inf] (not finite at this precision)"
        if self.lower == self.upper:
            return decimal_str(self.lower, max(digits, 25), "down")
        return f"[{decimal_str(self.lower, digits, 'down')}, {decimal_str(self.upper, digits, 'up')}]"

    def contains(self, q: Fraction) -> bool:
        return self.finite and self.lower <= q <= self.upper
