"""Outward decimal output: every number the verifier prints, rounded in the stated
direction (after '<=' up, after '>=' down) or exact (docs/FLINT_NOTES.md)."""
from __future__ import annotations

import math
from fractions import Fraction


def _ge_pow10(n: int, d: int, e: int) -> bool:
    """n / d >= 10^e for n, d > 0, in integers (no Fraction normalisation: a gcd of
    million-bit integers takes seconds)."""
    return n >= d * 10 ** e if e >= 0 else n * 10 ** -e >= d


def _floor_log10(q: Fraction) -> int:
    """floor(log10(q)) for q > 0, exactly."""
    n, d = q.numerator, q.denominator
    e = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)
    while not _ge_pow10(n, d, e):
        e -= 1
    while _ge_pow10(n, d, e + 1):
        e += 1
    return e


def decimal_str(q: Fraction, digits: int = 17, direction: str = "down") -> str:
    """q rounded to ``digits`` significant digits toward -inf ('down') or +inf ('up')."""
    if q == 0:
        return "0"
    e = _floor_log10(abs(q))
    k = e - digits + 1                      # t = q / 10^k, rounded to an integer
    num, den = (q.numerator, q.denominator * 10 ** k) if k >= 0 else \
        (q.numerator * 10 ** -k, q.denominator)
    n = num // den if direction == "down" else -(-num // den)
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


def frac_str(q) -> str:
    """Exact text of a rational: a finite decimal when there is one, else p/q."""
    q = Fraction(q)
    d, a, b = q.denominator, 0, 0
    while d % 2 == 0:
        d, a = d // 2, a + 1
    while d % 5 == 0:
        d, b = d // 5, b + 1
    if d != 1:
        return f"{q.numerator}/{q.denominator}"
    m = max(a, b)             # q 10^m is an integer: its digits are all the digits of q
    digits = len(str(abs(q.numerator * 2 ** (m - a) * 5 ** (m - b))))
    return decimal_str(q, max(digits, 1), "down")


def fixed_str(q: Fraction, decimals: int, direction: str) -> str:
    """q with ``decimals`` digits after the point, rounded toward -inf ('down') or +inf ('up'):
    the form of every percentage and width printed (after '<=' round up, after '>=' down)."""
    t = Fraction(q) * 10 ** decimals
    n = math.floor(t) if direction == "down" else math.ceil(t)
    sign = "-" if n < 0 else ""
    n = abs(n)
    if decimals == 0:
        return f"{sign}{n}"
    return f"{sign}{n // 10 ** decimals}.{n % 10 ** decimals:0{decimals}d}"


def pct(q: Fraction, direction: str, decimals: int = 1) -> str:
    """A fraction as a percentage rounded in the stated direction ('up' or 'down')."""
    return fixed_str(Fraction(q) * 100, decimals, direction) + "%"
