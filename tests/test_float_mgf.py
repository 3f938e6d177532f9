"""The float mgf's certified upper bound (numerics/float_mgf.py, docs/THEORY.md section 17):
above the exact sum of Arb at 200 bits for laws over hundreds of decades and thetas of both
signs, within 1e-9 of it where the sum is not near underflow, and each charge of the bound
needed by a case built for it."""
from fractions import Fraction as F

import numpy as np
from flint import arb, ctx
from hypothesis import given, strategies as st

from verifier.numerics.float_mgf import law_arrays, mgf_upper, top


def exact(sub, theta):
    with ctx.workprec(200):
        th = arb(theta.numerator) / theta.denominator
        return sum((v * (th * k).exp() for k, v in sub.items()), arb(0))


@st.composite
def laws(draw):
    lo = draw(st.integers(-10 ** 5, 10 ** 5))
    span = draw(st.sampled_from([1, 50, 3000, 10 ** 5]))
    ks = draw(st.lists(st.integers(lo, lo + span), min_size=1, max_size=60, unique=True))
    decades = draw(st.sampled_from([0, 5, 30, 300]))
    vs = draw(st.lists(st.tuples(st.floats(0, 1), st.integers(0, decades)),
                       min_size=len(ks), max_size=len(ks)))
    return {k: arb(m) * arb(10) ** (-d) for k, (m, d) in zip(ks, vs)}


thetas = st.builds(F, st.integers(-10 ** 7, 10 ** 7), st.sampled_from([10 ** 3, 10 ** 6, 10 ** 9]))


@given(laws(), thetas)
def test_the_bound_encloses_the_exact_mgf(sub, theta):
    up, ex = mgf_upper(sub, theta), exact(sub, theta)
    assert up.upper() >= ex.upper()
    with ctx.workprec(200):             # tight where the float sum (the mgf over e^{theta k*},
        th = arb(theta.numerator) / theta.denominator        # k* its top point) is far from
        inner = ex * (-th * top(sorted(sub), theta)).exp()   # underflow
    if inner > arb(10) ** -250:
        assert up.upper() <= ex.upper() * (1 + arb(10) ** -9)


def test_both_signs_of_theta_and_zero():
    sub = {-7: arb("0.25"), 0: arb("0.5"), 12: arb("0.25")}
    for theta in (F(3, 10), F(-3, 10), F(0), F(-40), F(40)):
        up, ex = mgf_upper(sub, theta), exact(sub, theta)
        assert up.upper() >= ex.upper() and up.upper() <= ex.upper() * (1 + arb(10) ** -12)
    assert mgf_upper({}, F(1)) == 0


def test_the_rounding_charge_is_needed():
    """1 and five terms just below half an ulp of 1: the float sum stays 1 + 2^-52, below the
    exact 1 + 5x; the (1 - u)^-N factor of the bound lifts it above."""
    x = 2.0 ** -53 * (1 - 2.0 ** -10)
    sub = {0: arb(1), **{k: arb(x) for k in range(1, 6)}}
    with ctx.workprec(200):
        ex = 1 + 5 * arb(x)
        assert arb(float(np.sum(law_arrays(sub)[1]))) < ex     # the bare float sum fails
        assert mgf_upper(sub, F(0)).upper() >= ex


def test_far_terms_are_charged():
    """A term at e |theta| = 710 (beyond 700: bounded, not powered) carries the whole sum
    e^{-710}, far above the underflow charge n 2^-1074."""
    sub = {0: arb(0), 710: arb(1)}
    with ctx.workprec(200):
        ex = arb(-710).exp()
        assert mgf_upper(sub, F(-1)).upper() >= ex
        assert ex > 2 * arb(2) ** -1074 * 10 ** 10


def test_the_law_arrays_are_the_upper_ends():
    sub = {3: arb(1) / 3, -2: arb("0.1")}
    keys, v, ks = law_arrays(sub)
    assert list(keys) == ks == [-2, 3]
    assert all(arb(float(x)) >= sub[k].upper() for x, k in zip(v, ks))
    assert law_arrays(sub) is law_arrays(sub)                   # kept, by identity


def test_the_underflow_charge_is_needed():
    """Ten terms of 0.45 * 2^-1074 each (normal masses about 5e-307 at e = 40..49, theta = -1):
    every float product with its power underflows to 0, so the float sum is the top point's
    (its zero mass one float step up, 2^-1074), below the exact 4.5 * 2^-1074; the charge
    n 2^-1074 keeps the bound above it."""
    theta = F(-1)
    with ctx.workprec(200):
        tiny = arb("0.45") * arb(2) ** -1074
        sub = {0: arb(0), **{k: tiny * arb(k).exp() for k in range(40, 50)}}
        ex = 10 * tiny
        keys, v, _ = law_arrays(sub)
        assert float(np.sum(v[1:] * np.exp(-np.arange(40, 50.0)))) == 0.0   # all lost
        assert arb(float(v[0])) < ex                                     # the lift alone
        assert mgf_upper(sub, theta).upper() >= ex


def test_chernoff_constant_bounds_the_arb_sum_tightly():
    """lattice.chernoff_c0 takes its mgf sums from the float bound: its value lies above
    the Arb sums at 200 bits (centred at a ball mu, one extra item) and within 1e-9 of them
    relatively, on both sides."""
    from verifier.numerics.lattice import chernoff_c0
    pts = [(0, arb("0.2")), (3, arb("0.5")), (40, arb("0.3"))]
    extra = ([(0, arb("0.6")), (7, arb("0.4"))], arb("2.8"))
    mu = arb("13.7")
    for sign, theta, t in ((1, 0.05, 90), (-1, 0.2, 30), (1, 1.5, 300)):
        th = F(theta).limit_denominator(10 ** 12)
        with ctx.workprec(200):
            tha = arb(th.numerator) / th.denominator
            mg = lambda ps, m: sum(((sign * tha * (p - m)).exp() * v for p, v in ps), arb(0))
            ref = (25 * mg(pts, mu).log() + mg(*extra).log() - tha * t).exp()
        got = chernoff_c0(pts, mu, 25, theta, sign, arb(t), extra)
        assert got.upper() >= ref.upper()
        assert got.upper() <= ref.upper() * (1 + arb(10) ** -9)
