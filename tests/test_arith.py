"""Exact input parsing and outward decimal output."""
from decimal import Decimal
from fractions import Fraction as F

import pytest
from flint import arb, ctx
from hypothesis import given
from hypothesis import strategies as st

from verifier.core.arith import (InputError, Interval, Tri, decimal_str, parse_delta, parse_exact,
                            parse_sigma, parse_steps, sign_ge0)


def test_exact_decimals_not_floats():
    assert parse_exact("0.4748", "B") == F(4748, 10000)
    assert parse_exact(Decimal("4.52"), "c") == F(452, 100)
    assert parse_exact("1/3", "x") == F(1, 3)
    # the one float policy: a float is the decimal it prints as, not its binary value
    assert parse_exact(0.1, "x") == F(1, 10)
    assert parse_exact(1e-05, "x") == F(1, 100000)
    assert parse_exact(0.1 + 0.2, "x") == F("0.30000000000000004")


def test_numpy_scalars_read_as_they_print():
    np = pytest.importorskip("numpy")
    assert parse_exact(np.float64(3.0), "x") == 3
    assert parse_exact(np.float64(1.1), "x") == F(11, 10)
    assert parse_exact(np.float32(0.1), "x") == F(1, 10)       # float32 prints as 0.1
    assert parse_exact(np.int64(7), "x") == 7
    assert parse_exact(np.array(2.5), "x") == F(5, 2)
    for bad in (np.float64("nan"), np.float32("inf"), np.bool_(True), np.array([1.0])):
        with pytest.raises(InputError):
            parse_exact(bad, "x")


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "", "1e", "0x10", "1/0", "１", "1e99999", None, [], True,
                                 float("nan"), float("inf"), 1e308 * 10])
def test_parse_refuses(bad):
    with pytest.raises(InputError):
        parse_exact(bad, "x")


def test_domain_checks():
    with pytest.raises(InputError, match="sigma must be > 0"):
        parse_sigma("0")
    with pytest.raises(InputError, match=r"delta must be in \(0, 1\)"):
        parse_delta("1")
    with pytest.raises(InputError, match="M >= 3"):
        parse_steps("2")
    assert parse_steps("1.14e6") == 1140000
    assert parse_steps(str(2**53 + 1)) == 2**53 + 1


def test_sign_is_three_valued():
    assert sign_ge0(arb("1 +/- 0.5")) is Tri.HOLDS
    assert sign_ge0(arb("-1 +/- 0.5")) is Tri.FAILS
    assert sign_ge0(arb("0.1 +/- 0.5")) is Tri.UNDECIDED
    assert sign_ge0(arb(0)) is Tri.HOLDS


@given(st.fractions(min_value=F(-10**12), max_value=F(10**12)).filter(lambda q: q != 0),
       st.integers(min_value=1, max_value=30))
def test_decimal_str_is_outward(q, digits):
    lo, hi = F(decimal_str(q, digits, "down")), F(decimal_str(q, digits, "up"))
    assert lo <= q <= hi
    # and tight: within one unit of the last digit
    assert hi - lo <= abs(q) * F(10) ** (1 - digits) * 2


def test_interval_json_rounds_outward():
    with ctx.workprec(64):
        x = arb(1) / 3
    iv = Interval.of(x)
    j = iv.to_json(5)
    assert F(j["lower"]) <= iv.lower and F(j["upper"]) >= iv.upper
    assert j == {"lower": "0.33333", "upper": "0.33334"}


def test_ball_bounds_round_extreme_ends_outward():
    """A radius finer than 2^-4096 is widened to it, a midpoint below it is centred at 0:
    the rational ends still enclose the ball (erf(1706) = 1 - 2^-4.2e6, exp(-1e7))."""
    from flint import arb, ctx
    from verifier.core.arith import TINY_BITS, ball_bounds, representable
    tiny = F(1, 2 ** TINY_BITS)
    with ctx.workprec(64):
        x = arb(1) + arb(0, arb(2) ** -5000000)          # 1 +/- 2^-5e6
        lo, hi = ball_bounds(x)
        assert lo < 1 < hi and hi - lo <= F(1, 2 ** 60)   # widened to the working precision
        y = (-arb(10) ** 7).exp()                        # e^-1e7 > 0, far below 2^-4096
        lo, hi = ball_bounds(y)
        assert lo <= 0 < hi <= 2 * tiny
        assert not representable(arb(2) ** (2 ** 30)) and not representable(arb("nan"))


def test_profile_bracket_of_a_lost_ball_is_trivial():
    """A delta(eps) ball the engine lost (not finite) gives [0, 1]: delta is a hockey-stick
    divergence with e^eps >= 1."""
    from flint import arb
    from verifier.numerics.brackets import delta_interval as _iv
    assert _iv(None, arb("nan")) == Interval(F(0), F(1))
    assert _iv(arb("inf"), arb("inf")) == Interval(F(0), F(1))
    assert _iv(arb(1) / 4, arb(1) / 2) == Interval(F(1, 4), F(1, 2))
