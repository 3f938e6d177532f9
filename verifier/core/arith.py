"""Exact inputs, three-valued certified comparisons and outward decimal output.

Conventions (see ``docs/FLINT_NOTES.md``):
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
import sys
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq

from verifier.core.decimals import (decimal_str, fixed_str, frac_str,  # noqa: F401
                                     pct)                                 # (re-exported)

START_PREC = 64
DEFAULT_MAX_PREC = 4096
MAX_DECIMAL_EXPONENT = 400   # refuse "1e999999999" instead of building a huge integer
MAX_NUMBER_CHARS = 2000      # a number is at most this many characters (5,000 digits: refused)

# The input layer: every command's arguments are checked against these ranges before any
# computation (one-line error, exit 2; the limits are printed by --help).  Inside them every
# evaluation stays within Arb's comfortable exponent range and every search is bounded.
SIGMA_RANGE = (Fraction(1, 100), Fraction(10**6))
MAX_STEPS = 10**18           # steps per epoch M given as an input
MAX_SEARCH_STEPS = 10**40    # the end of every search over M (answers beyond: "beyond range")
MAX_EPOCHS = 10**9           # epochs E for the closed-form bounds (the exact engine: MAX_EXACT_EPOCHS)
MAX_EXACT_EPOCHS = 1000
MIN_DELTA = Fraction(1, 10**300)
MAX_FILE_BYTES = 1 << 20     # every file read (claims, config) is capped at this size
NUMBER_LIMITS_HELP = (f"numbers at most {MAX_NUMBER_CHARS} characters, decimal exponents "
                      f"within +-{MAX_DECIMAL_EXPONENT}; files at most {MAX_FILE_BYTES} bytes.")
LIMITS_HELP = (f"Input limits: sigma in [0.01, 1e6]; steps M integer in [3, 1e18] (exact/compare: "
               f"[2, 1e18]); epochs in [1, 1e9] (exact/compare: [1, {MAX_EXACT_EPOCHS}]); delta in "
               f"[1e-300, 1); {NUMBER_LIMITS_HELP}")


def deprecated(old: str, new: str) -> None:
    """A former spelling, accepted for one release: a DeprecationWarning, which the CLI prints
    as one line 'verifier: note: ... is deprecated; use ...' on stderr."""
    import warnings
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


# exact values of claims reach 65536 bits (claims.expr.MAX_EXACT_BITS, 19,729 digits), which
# reports print in full: Python's default limit on int <-> str conversion (4,300 digits) is
# raised to cover them (never lowered)
_INT_DIGITS = 20000
if 0 < sys.get_int_max_str_digits() < _INT_DIGITS:
    sys.set_int_max_str_digits(_INT_DIGITS)


class InputError(ValueError):
    """Bad user input; the CLI prints the message on one line and exits 2."""


class InputErrors(InputError):
    """Several mistakes found in one run (a claims file): one line each, exit 2."""

    def __init__(self, messages):
        self.messages = [str(m).replace("\n", " ") for m in messages]
        super().__init__("\n".join(self.messages))


class InvertedBracket(ArithmeticError):
    """An interval whose lower end exceeds its upper end: an engine's bug, never an answer
    (an internal error: exit 4)."""


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


DECIMAL_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?", re.ASCII)
_RATIONAL = re.compile(r"[+-]?\d+/\d+", re.ASCII)


def plain_number(value, name: str):
    """A float as the decimal text it prints as, a numpy scalar as the Python number (or
    text) it stands for; anything else unchanged (the float policy of ``parse_exact``)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{name} must be a finite number, got {float.__repr__(value)}")
        return float.__repr__(value)          # np.float64 too (a float subclass), not its repr
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        kind = getattr(getattr(value, "dtype", None), "kind", "")
        if kind in "iu" and kind:
            return int(value)
        if kind == "f":
            if not math.isfinite(float(value)):
                raise InputError(f"{name} must be a finite number, got {value}")
            return str(value)                 # numpy's shortest round-trip text for its dtype
        if kind == "b":
            raise InputError(f"{name} must be a number, got the numpy bool {value}")
    return value


def parse_exact(value, name: str) -> Fraction:
    """An exact rational from a decimal or 'p/q' string, an int, a Decimal, a float or a
    numpy scalar.

    The one float policy (docs/CLI.md, "What the words mean": numbers): a float is read as the decimal it prints as
    (``repr``: the shortest decimal that rounds to it), never as its binary expansion:
    ``0.1`` is 1/10 and ``1e-05`` is 1/100000; a numpy float as numpy prints it
    (``np.float32(0.1)`` is 1/10 too).  The exact value used is what certificates print.
    """
    from decimal import Decimal

    value = plain_number(value, name)
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
    if not isinstance(value, str):
        raise InputError(f"{name} must be a number, got {type(value).__name__} {value!r:.60}")
    text = value.strip()
    if len(text) > MAX_NUMBER_CHARS:
        raise InputError(f"{name} is too long ({len(text)} characters; at most "
                         f"{MAX_NUMBER_CHARS}): {text[:24]!r}...")
    m = DECIMAL_RE.fullmatch(text)
    if m:
        if m.group(1) is not None and abs(int(m.group(1))) > MAX_DECIMAL_EXPONENT:
            raise InputError(f"{name} exponent out of range: {text!r:.60}")
        return Fraction(text)
    if _RATIONAL.fullmatch(text):
        num, den = text.split("/")
        if int(den) == 0:
            raise InputError(f"{name} has a zero denominator: {text!r:.60}")
        return Fraction(int(num), int(den))
    raise InputError(f"{name} is not a number: {value!r:.60}")


def _in_range(q: Fraction, lo: Fraction, hi: Fraction, name: str, value, what: str):
    if not lo <= q <= hi:
        raise InputError(f"{name} must be {what}, got {str(value)[:40]}")
    return q


def parse_sigma(value, name: str = "sigma") -> Fraction:
    s = parse_exact(value, name)
    if s <= 0:
        raise InputError(f"{name} must be > 0, got {str(value)[:40]}")
    return _in_range(s, *SIGMA_RANGE, name, value, "in [0.01, 1e6] (the supported range)")


def parse_delta(value, name: str = "delta") -> Fraction:
    d = parse_exact(value, name)
    if not 0 < d < 1:
        raise InputError(f"{name} must be in (0, 1), got {str(value)[:40]}")
    return _in_range(d, MIN_DELTA, Fraction(1), name, value, "in [1e-300, 1)")


def parse_rate(value, name: str = "sample_rate") -> Fraction:
    """A sample rate q in (0, 1] (Poisson's, or 1/M), by the float policy of parse_exact."""
    q = parse_exact(value, name)
    if not 0 < q <= 1:
        raise InputError(f"{name} must be in (0, 1], got {str(value)[:40]}")
    return q


def parse_steps(value, name: str = "steps", minimum: int = 3) -> int:
    """Steps per epoch M: an integer in [minimum, MAX_STEPS] ('1.14e6' is accepted when integral).
    Theorem 3.1 needs M >= 3; the exact engine and the chi-square bound take M >= 2."""
    m = parse_exact(value, name)
    if m.denominator != 1:
        raise InputError(f"{name} must be an integer, got {str(value)[:40]}")
    if m < minimum:
        why = " (Theorem 3.1 needs M >= 3)" if minimum == 3 else ""
        raise InputError(f"{name} must be >= {minimum}{why}, got {str(value)[:40]}")
    if m > MAX_STEPS:
        raise InputError(f"{name} must be at most 1e18 (the supported range), got {str(value)[:40]}")
    return int(m)


def parse_epochs(value, maximum: int = MAX_EPOCHS) -> int:
    e = parse_exact(value, "epochs")
    if e.denominator != 1 or e < 1:
        raise InputError(f"epochs must be an integer >= 1, got {str(value)[:40]}")
    if e > maximum:
        raise InputError(f"epochs must be at most {maximum} here, got {str(value)[:40]}")
    return int(e)


def read_bounded(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file, refusing more than ``limit`` (reads at most limit + 1 bytes, so a
    device such as /dev/zero or a growing pipe cannot make it read forever)."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: file larger than {limit} bytes")
    return data


def to_arb(q) -> arb:
    """Ball around an exact rational (or int) at the current precision."""
    if isinstance(q, int):
        return arb(q)
    return arb(fmpq(q.numerator, q.denominator))


MAX_BALL_EXPONENT = 1 << 22   # binary exponents beyond this are read as 'not finite'


TINY_BITS = 4096              # end points finer than 2^-4096 are rounded outward to it


def _tamed(x: arb):
    """A ball containing x whose end points have moderate binary exponents, or None: x not
    finite, or of magnitude beyond 2^MAX_BALL_EXPONENT (converting a ball like 2^(10^9) to
    a rational would build a huge integer, or abort inside FLINT).  A radius below
    2^-TINY_BITS becomes 2^-TINY_BITS, a midpoint below it 0 with the radius grown to
    cover it: rounded outward (erf(1706) = 1 - 2^-4.2e6 is [1 - 2^-4096, 1 + 2^-4096])."""
    if not x.is_finite():
        return None
    mid, rad = x.mid(), x.rad()
    parts = []
    for a in (mid, rad):
        m, e = a.man_exp()
        if m == 0:
            parts.append(0)
            continue
        top = int(e) + int(m).bit_length()          # |a| < 2^top
        if top > MAX_BALL_EXPONENT or (int(e) < -MAX_BALL_EXPONENT and top >= -TINY_BITS):
            return None                              # huge, or a mantissa of millions of bits
        parts.append(top)
    tiny = arb(2) ** -TINY_BITS
    if parts[0] != 0 and parts[0] < -TINY_BITS:     # |mid| < 2^-4096: centre at 0
        return arb(0) + (abs(mid) + rad + tiny).upper() * arb(0, 1)
    if parts[1] != 0 and parts[1] < -TINY_BITS:     # a radius finer than 2^-4096
        return mid + arb(0, tiny.upper())
    return x


def representable(x: arb) -> bool:
    """Finite and not beyond 2^MAX_BALL_EXPONENT in magnitude (``_tamed``)."""
    return _tamed(x) is not None


def ball_bounds(x: arb) -> tuple[Fraction, Fraction]:
    """Exact rational endpoints of a finite ball (rounded outward to 2^-4096 where its end
    points are finer: ``_tamed``)."""
    y = _tamed(x)
    if y is None:
        raise ArithmeticError("non-finite ball")
    lo, hi = y.lower().fmpq(), y.upper().fmpq()
    return (Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q)))


@dataclass(frozen=True)
class Interval:
    """A closed interval with exact rational endpoints (a ball, read off)."""

    lower: Fraction | None   # None: -infinity (a non-finite ball)
    upper: Fraction | None   # None: +infinity

    def __post_init__(self):
        # a bracket whose lower end exceeds its upper end is a false certificate: refused
        # where it is made (an internal error, exit 4), never printed
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise InvertedBracket(f"inverted bracket: lower end {decimal_str(Fraction(self.lower), 12)} "
                                  f"> upper end {decimal_str(Fraction(self.upper), 12, 'up')}")

    @classmethod
    def of(cls, x) -> "Interval":
        if isinstance(x, (int, Fraction)):
            q = Fraction(x)
            return cls(q, q)
        if not representable(x):
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

    def __repr__(self) -> str:
        """'Interval[0.2977426188, 0.29777447]': the ends to 10 digits, rounded outward
        (``.lower`` and ``.upper`` are the exact rationals; ``.short(n)`` n digits)."""
        return f"Interval{self.short(10)}" if self.lower != self.upper or not self.finite \
            else f"Interval[{frac_str(self.lower)}]"

    __str__ = short

    def at_most(self, bound: Fraction) -> "Tri":
        """Certified 'every point of the interval <= bound': HOLDS if the upper end is, FAILS
        if the lower end exceeds it, UNDECIDED otherwise (or when not finite)."""
        if not self.finite:
            return Tri.UNDECIDED
        return (Tri.HOLDS if self.upper <= bound else Tri.FAILS if self.lower > bound
                else Tri.UNDECIDED)

    def contains(self, q: Fraction) -> bool:
        return self.finite and self.lower <= q <= self.upper
