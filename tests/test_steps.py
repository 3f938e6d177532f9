"""M_exact: Table 1 values, certificates, minimality, inconclusive path."""
from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as R
from verifier.symbolic import derived as D
from verifier.bounds import theorem31 as T
from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import Tri, to_arb
# Table 1 of arXiv 2605.06259 v1 (delta = 1/100): our certified M_exact, whose
# 3-digit roundings are the published cells.
TABLE1_M_EXACT = {
    ("0.50", "simplified"): (1574557422, "1.57e9"),
    ("0.75", "simplified"): (3716108, "3.72e6"),
    ("1.00", "simplified"): (1140369, "1.14e6"),
    ("1.50", "simplified"): (3231737, "3.23e6"),
    ("2.00", "simplified"): (14889792, "1.49e7"),
    ("0.50", "rho3"): (1571395658, "1.57e9"),
    ("0.75", "rho3"): (3101237, "3.10e6"),
    ("1.00", "rho3"): (429713, "4.30e5"),
    ("1.50", "rho3"): (102856, "1.03e5"),
    ("2.00", "rho3"): (59097, "5.91e4"),
}


def rounds_to(n: int, printed: str) -> bool:
    return float(f"{n:.2e}") == float(printed)


def reference_feasible(M, sigma, delta, coef):
    return all(v >= 0 for v in R.conditions(M, sigma, delta, coef).values())


@pytest.mark.parametrize("key", sorted(TABLE1_M_EXACT))
def test_table1_m_exact_and_minimality(key):
    sigma, coef = key
    want, printed = TABLE1_M_EXACT[key]
    r = TS.steps_exact(Fraction(sigma), Fraction(1, 100), coef)
    assert r.status == "certified" and r.m_exact == want
    assert rounds_to(want, printed)
    # certificate: everything holds at M_exact, something fails at M_exact - 1
    assert r.at_m.verdict is Tri.HOLDS and all(c.verdict is Tri.HOLDS for c in r.at_m.checks)
    assert r.below.steps == want - 1 and r.below.failing()
    # re-checked independently with the 60-digit mpmath reference
    assert reference_feasible(want, sigma, "0.01", coef)
    assert not reference_feasible(want - 1, sigma, "0.01", coef)
    # M_BE <= M_exact (closed form is a lower bound) and within 0.2%
    assert r.closed_form.upper <= want
    assert (want - r.closed_form.lower) / want <= Fraction(2, 1000)


def reference_limit(sigma, delta):
    """1/2 - delta - Phi(-s2/2): condition (2) as M -> infinity (60 digits)."""
    with mp.workdps(R.DPS):
        sg, d = R.mpq(sigma), R.mpq(delta)
        return mp.mpf(1) / 2 - d - R.Phi(-R.s2(sg) / 2)


def test_infeasible_when_condition_2_cannot_hold():
    # tiny sigma: kappa = s2/2 is huge, Phi(-kappa) ~ 0, feasible; but delta close to 1/2
    # makes 1/2 - delta - Phi(-kappa) <= 0 for sigma large (kappa ~ u/2 -> 0, Phi -> 1/2)
    r = TS.steps_exact(Fraction(10), Fraction(1, 2) - Fraction(1, 10**6), "simplified")
    assert r.status == "infeasible" and r.m_exact is None
    assert reference_limit(10, Fraction(1, 2) - Fraction(1, 10**6)) < 0
    # sigma = 3/2: the limit 1/2 - delta - Phi(-kappa) changes sign near delta = 0.110
    assert TS.steps_exact(Fraction(3, 2), Fraction(11, 100)).status == "certified"
    assert TS.steps_exact(Fraction(3, 2), Fraction(111, 1000)).status == "infeasible"
    assert reference_limit("1.5", "0.11") > 0 > reference_limit("1.5", "0.111")


def _delta_equal_to_rhs(M, sigma, coef, digits=300):
    """A rational delta within 10^-300 of delta_rhs(M): undecidable at low precision."""
    with ctx.workprec(2000):
        s = to_arb(sigma)
        d = sum(D.terms(arb(M), s, T.coef_value(sigma, coef)))
        return Fraction(int(d.mid().fmpq().p), int(d.mid().fmpq().q))


def test_undecided_becomes_inconclusive_never_a_guess():
    M0, sigma = 987654, Fraction(1)
    delta = _delta_equal_to_rhs(M0, sigma, "simplified")
    low = TS.steps_exact(sigma, delta, "simplified", max_prec=128)
    assert low.status == "inconclusive" and low.m_exact is None
    assert "undecided" in low.message
    high = TS.steps_exact(sigma, delta, "simplified", max_prec=8192)
    # with enough precision it is decided, and the answer is M0 or M0 + 1
    assert high.status == "certified" and high.m_exact in (M0, M0 + 1)
    assert max(high.at_m.precision, high.below.precision) > 128


def test_huge_steps_beyond_float_integers():
    M = 2**53 + 1
    r = T.bound(Fraction(1), M)
    r2 = T.bound(Fraction(1), M - 1)
    assert r.delta.upper < r2.delta.lower  # M and M - 1 are separated


@settings(max_examples=25)
@given(
    sigma=st.fractions(min_value=Fraction(1, 2), max_value=8, max_denominator=100),
    delta=st.fractions(min_value=Fraction(1, 10**6), max_value=Fraction(1, 4), max_denominator=10**6),
    coef=st.sampled_from(["simplified", "rho3"]),
)
def test_property_m_exact_minimal_and_above_closed_form(sigma, delta, coef):
    r = TS.steps_exact(sigma, delta, coef)
    if r.status == "infeasible":  # condition (2) cannot hold for any M: check the limit
        assert reference_limit(sigma, delta) <= 0
        return
    assert r.status == "certified"
    assert reference_limit(sigma, delta) > 0
    m = r.m_exact
    assert reference_feasible(m, sigma, delta, coef)
    if m > 3:
        assert not reference_feasible(m - 1, sigma, delta, coef)
    assert r.closed_form.upper <= m or m == 3


def test_min_samples():
    assert TS.min_samples(1574557422, Fraction(1, 2)) == 7872787110
    assert TS.min_samples(3716108, Fraction(3, 4)) == 27870810
    assert TS.min_samples(3, Fraction(1, 3)) == 10  # ceil(10/1 * 1/3 * 3) = 10
    assert TS.min_samples(7, Fraction(1, 3)) == 24  # ceil(70/3)
