"""The judges' decisions on certified enclosures (docs/CLAIMS.md): each compares an
``Interval`` with a printed value, a bound or a reference and returns a verdict only when
the enclosure decides it (None: undecided, the caller raises precision or says
inconclusive)."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from verifier.core.arith import Interval, parse_exact

CONFIRMED, REFUTED, INCONCLUSIVE, NOT_APPLICABLE = (
    "confirmed", "refuted", "inconclusive", "not-applicable")
VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE, NOT_APPLICABLE)



def rounding_interval(printed: str, digits: int | None = None) -> Interval:
    """All values that round to ``printed`` (half a unit in the last printed digit).

    '1.57e9' -> [1.565e9, 1.575e9]; '4.30e5' -> [4.295e5, 4.305e5].  Values on
    an end point are accepted (they round to the printed value under
    round-half-up or round-half-even, depending on the digit)."""
    d = Decimal(printed.strip())
    t = d.as_tuple()
    exp = t.exponent
    if digits is not None:
        exp = d.adjusted() - digits + 1
    v = parse_exact(printed, "printed")
    h = Fraction(1, 2) * Fraction(10) ** exp
    return Interval(v - h, v + h)


def within(value: Interval, acc: Interval) -> str | None:
    if acc.lower <= value.lower and value.upper <= acc.upper:
        return CONFIRMED
    if value.upper < acc.lower or value.lower > acc.upper:
        return REFUTED
    return None


def at_most(value: Interval, b: Fraction) -> str | None:
    """value <= b: confirmed if its upper end is, refuted if its lower end exceeds b."""
    return CONFIRMED if value.upper <= b else REFUTED if value.lower > b else None


def at_least(value: Interval, b: Fraction) -> str | None:
    return CONFIRMED if value.lower >= b else REFUTED if value.upper < b else None


def sub(a: Interval, b: Interval) -> Interval:
    return Interval(a.lower - b.upper, a.upper - b.lower)


def abs_range(a: Interval):
    lo = Fraction(0) if a.lower <= 0 <= a.upper else min(abs(a.lower), abs(a.upper))
    return lo, max(abs(a.lower), abs(a.upper))


def relative(value: Interval, ref: Interval, tol: Fraction) -> str | None:
    dmin, dmax = abs_range(sub(value, ref))
    rmin, rmax = abs_range(ref)
    if dmax <= tol * rmin:
        return CONFIRMED
    if dmin > tol * rmax:
        return REFUTED
    return None


def truncation_interval(printed: str) -> tuple:
    """(p, p + ulp) for printed leading digits p ('1.36843...'): the value v has them when
    p <= v < p + ulp (p >= 0), p - ulp < v <= p (p < 0)."""
    core = printed.strip()
    if core.endswith("..."):
        core = core[:-3]
    d = Decimal(core)
    ulp = Fraction(10) ** d.as_tuple().exponent
    p = parse_exact(core, "printed")
    return (p, p + ulp) if p >= 0 else (p - ulp, p)


def truncated(value: Interval, printed: str) -> str | None:
    lo, hi = truncation_interval(printed)
    neg = parse_exact(printed.strip().rstrip("."), "printed") < 0
    if not neg:
        if lo <= value.lower and value.upper < hi:
            return CONFIRMED
        if value.upper < lo or value.lower >= hi:
            return REFUTED
    else:
        if lo < value.lower and value.upper <= hi:
            return CONFIRMED
        if value.upper <= lo or value.lower > hi:
            return REFUTED
    return None


def between(value: Interval, low: Fraction, high: Fraction) -> str | None:
    if low <= value.lower and value.upper <= high:
        return CONFIRMED
    if value.upper < low or value.lower > high:
        return REFUTED
    return None
