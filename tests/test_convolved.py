"""The convolution of a run's step laws of equal count (numerics.convolve.convolved, Arb ball
polynomials in a Huffman order): every value of the input balls, convolved exactly
(Fractions), lies in the output ball at every index of the sum's span; the output is
narrow."""
from __future__ import annotations

import random
from fractions import Fraction as F

from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import exact_convolution
from verifier.numerics.convolve import convolved


def _exact(x: arb) -> tuple[F, F]:
    """(midpoint, radius) of a ball as exact rationals."""
    (m, e), (rm, re) = x.mid().man_exp(), x.rad().man_exp()
    return F(int(m)) * F(2) ** int(e), F(int(rm)) * F(2) ** int(re)


def _conv(laws: list) -> dict:
    return exact_convolution([(law, 1) for law in laws])


def _ball(rng: random.Random, bits: int, radius: bool, negative: bool) -> arb:
    """A ball with a ``bits``-bit midpoint at a random scale (exactly representable), its
    radius 0 or a random dyadic; a negative midpoint now and then."""
    man = rng.getrandbits(bits) | 1
    if negative and rng.random() < 0.2:
        man = -man
    exp = -bits - rng.randint(0, 60)
    with ctx.workprec(bits + 64):      # made exactly (at the default 53 bits it would round)
        rad = arb((rng.getrandbits(20) + 1, exp - rng.randint(0, 40))) if radius else arb(0)
        return arb((man, exp), rad)


def _check(laws: list, rng: random.Random, points: int = 4):
    """Random points of the input boxes (each value at its midpoint or at an end of its
    ball), convolved exactly, inside the output balls; every index of the span present."""
    out = convolved(laws)
    lo = sum(min(law) for law in laws)
    hi = sum(max(law) for law in laws)
    assert sorted(out) == list(range(lo, hi + 1))
    balls = {k: _exact(v) for k, v in out.items()}
    boxes = [{k: _exact(v) for k, v in law.items()} for law in laws]
    for _ in range(points):
        pick = [{k: m + r * rng.choice((-1, 0, 1)) for k, (m, r) in box.items()}
                for box in boxes]
        for k, t in _conv(pick).items():
            m, r = balls[k]
            assert abs(t - m) <= r, (k, float(t), float(m), float(r))
    return balls


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32), st.lists(st.integers(1, 30), min_size=1, max_size=5),
       st.integers(60, 200), st.booleans())
def test_every_point_of_the_input_balls_convolves_into_the_output(seed, widths, bits,
                                                                  radius):
    """Hypothesis: laws of 1-30 points (gaps left out at random), midpoints of 60-200 bits
    (more than the scale holds: the floored products are inexact), with or without radii,
    some midpoints negative; the working precision 53-200 bits."""
    rng = random.Random(seed)
    laws = []
    for w in widths:
        k0 = rng.randint(-20, 20)
        law = {k0 + i: _ball(rng, bits, radius, True) for i in range(w) if rng.random() < 0.8}
        laws.append(law or {k0: _ball(rng, bits, radius, True)})
    with ctx.workprec(rng.choice((53, 100, 133, 200))):
        _check(laws, rng)


def test_exact_inputs_whose_products_do_not_fit_the_scale_are_still_enclosed():
    """Balls of radius 0 whose 190-bit midpoints' products need more than the working
    precision: the rounding's radius covers them."""
    rng = random.Random(7)
    with ctx.workprec(256):             # exact balls (radius 0)
        laws = [{k: arb((rng.getrandbits(190) | 1, -190)) for k in range(6)} for _ in range(3)]
    assert all(v.rad() == 0 for law in laws for v in law.values())
    with ctx.workprec(120):
        _check(laws, rng, points=1)


def test_the_inputs_radii_are_carried_through_to_the_ends():
    """Wide input balls (radius 2^-20 around midpoints near 1/2): the product of the upper
    ends and of the lower ends inside the output."""
    laws = [{0: arb((1, -1), (1, -20)), 1: arb((1, -2), (1, -20))} for _ in range(4)]
    with ctx.workprec(100):
        balls = _check(laws, random.Random(3), points=8)
    for s in (1, -1):
        ends = [{k: _exact(v)[0] + s * _exact(v)[1] for k, v in law.items()} for law in laws]
        for k, t in _conv(ends).items():
            m, r = balls[k]
            assert abs(t - m) <= r


def test_the_output_is_narrow_and_its_sum_is_the_product_of_the_sums():
    """Ten laws of 200 points at 133 bits: every radius below 2^-100 (absolute), the sum of
    the output's midpoints within 2^-100 of the product of the inputs' sums."""
    rng = random.Random(11)
    laws = []
    for _ in range(10):
        w = [rng.random() * 10 ** -rng.randint(0, 30) for _ in range(200)]
        s = sum(w)
        laws.append({k: arb(x / s) for k, x in enumerate(w)})
    with ctx.workprec(133):
        out = convolved(laws)
        total = arb(1)
        for law in laws:
            total *= sum(law.values(), arb(0))
    assert max(_exact(v)[1] for v in out.values()) < F(1, 2 ** 100)
    mids = sum(_exact(v)[0] for v in out.values())
    assert abs(mids - _exact(total)[0]) < F(1, 2 ** 100)
