"""Every certified enclosure contains an independent 60-digit mpmath reference."""
from fractions import Fraction

import mpmath as mp
import pytest
from flint import ctx
from hypothesis import example, given
from hypothesis import strategies as st

import reference as R
from verifier.symbolic import derived as D
from verifier.bounds import theorem31 as T
from verifier.core.arith import Interval, to_arb
SIGMAS = ["0.3", "0.5", "0.75", "1", "1.5", "2", "3.7", "10", "25", "50"]
STEPS = [3, 4, 10, 1000, 10**6, 1140369, 10**9, 2**53 + 1, 10**13]


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("prec", [64, 256])
def test_rho3_and_coefs_contain_quadrature_reference(sigma, prec):
    with mp.workdps(R.DPS):
        s = R.mpq(sigma)
        rho3_ref = R.rho3_quad(s)            # from the integral definition
        cS, cX = R.coef_S(s), rho3_ref / R.s2(s) ** 2
    with ctx.workprec(prec):
        x = to_arb(Fraction(sigma))
        got_rho3, got_cS, got_cX = D.rho3(x), D.coef_simplified(x), D.coef_rho3(x)
    assert R.contains(Interval.of(got_rho3), rho3_ref)
    assert R.contains(Interval.of(got_cS), cS)
    assert R.contains(Interval.of(got_cX), cX)
    # and the enclosures are tight: at least 30 correct bits at 64-bit precision
    assert got_cX.rel_accuracy_bits() > (30 if prec == 64 else 200)


@pytest.mark.parametrize("coef", ["simplified", "rho3"])
@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("M", STEPS)
def test_delta_rhs_contains_reference(coef, sigma, M):
    r = T.bound(Fraction(sigma), M, coef)
    ref_terms = None
    with mp.workdps(R.DPS):
        s = R.mpq(sigma)
        ref_terms = R.terms(mp.mpf(M), s, R.coef_of(s, coef))
        ref = mp.fsum(ref_terms)
    assert R.contains(r.delta, ref)
    for got, want in zip(r.terms, ref_terms):
        assert R.contains(got, want)


def test_delta_rhs_pinned_value():
    # sigma = 1, M = 10^6, coef_S: the mpmath reference (same digits at 60 and 80 dps)
    r = T.bound(Fraction(1), 10**6, "simplified")
    pinned = "0.01067890544085430454949063888593855794279"
    with mp.workdps(60):
        ref = R.delta_rhs(10**6, "1")
        assert mp.nstr(ref, 40) == pinned
    assert R.contains(r.delta, ref)
    assert r.delta.upper - r.delta.lower < Fraction(1, 10**30)


def test_delta_epochs_contains_reference():
    r = T.bound(Fraction(3, 2), 10**5, "rho3", epochs=7)
    with mp.workdps(R.DPS):
        d = R.delta_rhs(10**5, "1.5", "exact")
        ref = 1 - (1 - d) ** 7
    assert R.contains(r.delta_epochs, ref)


@given(
    sigma=st.fractions(min_value=Fraction(3, 10), max_value=50, max_denominator=10**6),
    M=st.integers(min_value=3, max_value=10**13),
    coef=st.sampled_from(["simplified", "rho3"]),
)
@example(sigma=Fraction(3, 10), M=3, coef="rho3")
@example(sigma=Fraction(50), M=10**13, coef="simplified")
def test_property_enclosure_contains_reference(sigma, M, coef):
    r = T.bound(sigma, M, coef)
    ref = R.delta_rhs(M, sigma, coef)
    assert R.contains(r.delta, ref)
    marg = R.conditions(M, sigma, r.delta.upper, coef)
    # hypothesis verdicts agree with the reference wherever the reference decides
    h2 = {h.name: h for h in r.hypotheses}["sigma_at_least_sqrt_3_over_ln_M"]
    ref2 = marg["sigma_at_least_sqrt_3_over_ln_M"]
    assert R.contains(h2.value, ref2)
    if h2.verdict.value == "holds":
        assert ref2 >= 0
    if h2.verdict.value == "fails":
        assert ref2 < 0


@given(
    sigma=st.fractions(min_value=Fraction(3, 10), max_value=20, max_denominator=1000),
    M=st.integers(min_value=3, max_value=10**12),
)
def test_property_delta_rhs_decreases_in_M(sigma, M):
    """Certified: delta_rhs(M + 1) < delta_rhs(M) (what the bisection relies on)."""
    with ctx.workprec(256):
        s = to_arb(sigma)
        c = D.coef_simplified(s)
        from flint import arb
        a = sum(D.terms(arb(M), s, c))
        b = sum(D.terms(arb(M + 1), s, c))
    assert b < a
