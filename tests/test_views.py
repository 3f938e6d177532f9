"""The views of the pair: Rényi curve, zCDP, conversions, trade-off bands.

References are independent: mpmath at 60 digits (partition sums, the Gaussian mechanism's
closed forms), a seeded Monte Carlo, the exact-TV engine and the (epsilon, delta) engine."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from verifier.views import renyi as RV
from verifier.views import grid as G
from verifier.views.grid import ProfileGrid
from verifier.bounds.moments import integer_moments
from verifier.views.tradeoff import tradeoff_curve

mpmath.mp.dps = 60
DELTA = F(1, 10 ** 5)


def _contains(iv, x) -> bool:
    """x (an mpmath number) lies in the Interval iv (exact rational ends)."""
    lo = mpmath.mpf(iv.lower.numerator) / iv.lower.denominator
    hi = mpmath.mpf(iv.upper.numerator) / iv.upper.denominator
    return lo <= x <= hi


def _ball_contains(b, x) -> bool:
    from verifier.core.arith import ball_bounds
    lo, hi = ball_bounds(b)
    return mpmath.mpf(lo.numerator) / lo.denominator <= x <= mpmath.mpf(hi.numerator) / hi.denominator


def _partition_sum(sigma, M, a):
    """E[Ybar^a] by the partition sum of the issue, mpmath (independent of the evaluator)."""
    from sympy.utilities.iterables import partitions
    u = 1 / (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
    tot = mpmath.mpf(0)
    for p in partitions(a, m=M):
        parts = [k for k, c in p.items() for _ in range(c)]
        coef = mpmath.factorial(a)
        for k in parts:
            coef /= mpmath.factorial(k)
        places = mpmath.mpf(1)
        for i in range(len(parts)):
            places *= M - i
        for c in p.values():
            places /= mpmath.factorial(c)
        term = coef * places
        for k in parts:
            term *= mpmath.e ** (k * (k - 1) * u / 2)
        tot += term
    return tot / mpmath.mpf(M) ** a


# ------------------------------------------------------------------ fixtures (shared work)
@pytest.fixture(scope="module")
def gauss():
    return RV.renyi_curve(F(1), 1, 1, orders=[F(5, 4), F(3, 2), F(2), F(5, 2), F(3), F(8)],
                          refine_delta=DELTA)


@pytest.fixture(scope="module")
def ra100():
    return RV.renyi_curve(F(1), 100, 1, refine_delta=DELTA)


@pytest.fixture(scope="module")
def grid100():
    return ProfileGrid(F(1), 100, 1)


@pytest.fixture(scope="module")
def to_gauss():
    return tradeoff_curve(F(1), 1, 1, points=11)


@pytest.fixture(scope="module")
def to_ra():
    return tradeoff_curve(F(2), 10, 10, points=11)


# ------------------------------------------------------------------ integer orders
@pytest.mark.parametrize("sigma,M", [(F(1), 1), (F(1), 3), (F(1, 2), 7), (F(2), 50)])
def test_integer_moments_enclose_the_partition_sum(sigma, M):
    ms = integer_moments(sigma, M, 12)
    for a in range(13):
        assert _ball_contains(ms[a], _partition_sum(sigma, M, a)), (sigma, M, a)


@pytest.mark.parametrize("sigma,M", [(F(1), 10), (F(1, 2), 1000), (F(3), 10 ** 6), (F(3, 10), 7)])
def test_order_two_is_the_chi_square_divergence(sigma, M):
    c = RV.renyi_curve(sigma, M, 3, orders=[F(2)], with_profile=False)
    u = 1 / (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
    ref = 3 * mpmath.log(1 + mpmath.expm1(u) / M)       # E epochs: E log(1 + s2/M)
    assert _contains(c.at(2).remove, ref)
    assert c.at(2).remove.upper - c.at(2).remove.lower < F(1, 10 ** 15)


def test_integer_moments_match_a_seeded_monte_carlo():
    import numpy as np
    rng = np.random.default_rng(20261201)
    sigma, M, n = 2.0, 3, 2_000_000
    X = rng.standard_normal((n, M))
    W = np.exp(X / sigma - 1 / (2 * sigma ** 2)).mean(axis=1)
    ms = integer_moments(F(2), M, 4)
    for a in (2, 3, 4):
        est, se = float((W ** a).mean()), float((W ** a).std() / math.sqrt(n))
        assert abs(est - float(ms[a].mid())) < 6 * se, (a, est, float(ms[a].mid()), se)


def test_the_cost_of_many_orders_stays_polynomial():
    # alpha up to 256 at M = 1e7 in one binary powering of a degree-259 polynomial
    ms = integer_moments(F(1), 10 ** 7, 259)
    assert all(m.is_finite() and m > 0 for m in ms)
    assert float(ms[256].rad() / ms[256].mid()) < 1e-30


# ------------------------------------------------------------------ real orders, both directions
@pytest.mark.parametrize("a", [F(2), F(3), F(5), F(8)])
def test_profile_integral_encloses_the_exact_integer_moment(grid100, a):
    ms = integer_moments(F(1), 100, 12)
    rem, _ = G.profile_moments(grid100, a)
    exact = ms[int(a)]
    lo, hi = rem
    assert lo.lower() <= exact.lower() and exact.upper() <= hi.upper()
    # and is a real bracket, not the trivial one
    assert float(hi.upper()) - float(lo.lower()) < 0.05 * (float(exact) - 1)


def test_gaussian_mechanism_is_its_zcdp_envelope(gauss):
    for o in gauss.orders:
        ref = mpmath.mpf(o.alpha.numerator) / o.alpha.denominator / 2       # a / (2 sigma^2)
        assert _contains(o.remove, ref) and _contains(o.add, ref), o.alpha
    assert gauss.zcdp_remove.lower == gauss.zcdp_remove.upper == F(1, 2)
    assert gauss.zcdp_add.lower == gauss.zcdp_add.upper == F(1, 2)
    # zCDP loses nothing: the two conversions agree up to the order grid
    r, z = gauss.to_epsilon(DELTA), gauss.zcdp_epsilon(DELTA)
    assert abs(float(r.epsilon.upper) - float(z.epsilon.upper)) < 2e-3 * float(z.epsilon.upper)


def test_real_orders_bracket_and_order_monotonicity(ra100):
    orders = ra100.orders
    for o in orders:
        assert o.remove.lower <= o.remove.upper and o.add.lower <= o.add.upper
    for a, b in zip(orders, orders[1:]):          # D_a is nondecreasing in a
        assert a.remove.lower <= b.remove.upper and a.add.lower <= b.add.upper
    # real orders below 2 are narrow (profile integral + log-convexity)
    o = ra100.at(F(3, 2))
    assert o.remove.upper - o.remove.lower < F(3, 1000) * o.remove.upper


def test_zcdp_of_random_allocation(ra100):
    # remove: exactly 1/(2 sigma^2) whatever M; add: certified between the best order and u/2
    assert ra100.zcdp_remove.lower == ra100.zcdp_remove.upper == F(1, 2)
    za = ra100.zcdp_add
    assert 0 < za.lower <= za.upper <= F(1, 2)
    best = max(o.add.lower / o.alpha for o in ra100.orders)
    assert za.lower >= best
    assert za.upper < F(1, 20)            # the add direction keeps its amplification
    assert ra100.rho.upper == F(1, 2)


def test_conversions_are_upper_bounds_of_the_exact_epsilon(ra100):
    from verifier.bounds.profile import epsilon_bracket
    ex = epsilon_bracket(F(1), 100, 1, DELTA).epsilon
    convs = [ra100.to_epsilon(DELTA, improved=False), ra100.to_epsilon(DELTA),
             ra100.zcdp_epsilon(DELTA, improved=False), ra100.zcdp_epsilon(DELTA)]
    for cv in convs:
        assert cv.epsilon.upper >= ex.lower, cv
    assert convs[1].epsilon.upper <= convs[0].epsilon.upper          # improved <= classical
    assert convs[3].epsilon.upper <= convs[2].epsilon.upper
    assert convs[1].epsilon.upper < convs[3].epsilon.upper           # zCDP loses the most here


def test_improved_conversion_value_at_an_order():
    # the Balle et al. / CKS formula at a fixed order, against mpmath
    o = RV.RenyiOrder(F(5), RV.Interval(F(5, 2), F(5, 2)), RV.Interval(F(1), F(1)), "test")
    cv = RV.convert([o], DELTA)
    a, d = mpmath.mpf(5), mpmath.mpf(1) / 10 ** 5
    ref = mpmath.mpf(5) / 2 + mpmath.log((a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)
    assert _contains(cv.epsilon, ref) and cv.direction == "remove"
    cl = RV.convert([o], DELTA, improved=False)
    assert _contains(cl.epsilon, mpmath.mpf(5) / 2 + mpmath.log(1 / d) / (a - 1))
    z = RV.zcdp_convert(RV.Interval(F(1, 2), F(1, 2)), DELTA, improved=False)
    assert _contains(z.epsilon, mpmath.mpf(1) / 2 + 2 * mpmath.sqrt(mpmath.log(1 / d) / 2))


# ------------------------------------------------------------------ trade-off bands
def _G(a, mu):
    if a == 0:
        return mpmath.mpf(1)
    if a == 1:
        return mpmath.mpf(0)
    x = mpmath.mpf(a.numerator) / a.denominator
    return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * (1 - x)) - mu)


def test_gaussian_tradeoff_is_G_mu(to_gauss):
    for p in to_gauss.points:
        g = _G(p.a, 1)
        assert _contains(p.f, g) and _contains(p.reverse, g), p.a
        if 0 < p.a < 1:
            assert p.f.upper - p.f.lower < F(1, 1000)


def test_gaussian_tradeoff_over_epochs_is_G_sqrtE_over_sigma():
    c = tradeoff_curve(F(2), 1, 4, at=[F(1, 10), F(1, 2), F(9, 10)])     # mu = sqrt(4)/2 = 1
    for p in c.points:
        assert _contains(p.f, _G(p.a, 1)), p.a


def test_tradeoff_distance_to_the_diagonal_is_the_exact_tv(to_ra):
    from verifier.bounds.exact_tv.bracket import exact_tv
    ex = exact_tv(F(2), 10, 10).tv
    tv = to_ra.tv
    assert tv.lower <= ex.upper and ex.lower <= tv.upper              # the same number
    assert to_ra.closest.lower <= tv.upper
    assert to_ra.closest.lower >= tv.lower - F(1, 100)               # the grid of a touches it
    for p in to_ra.points:                                           # f >= 1 - a - TV
        assert p.f.upper >= 1 - p.a - tv.upper
        assert p.f.lower >= min(1 - p.a - tv.upper, 0) or p.f.lower >= 0


def test_tradeoff_bands_are_monotone_and_mutually_inverse(to_ra):
    pts = to_ra.points
    for p, q in zip(pts, pts[1:]):
        assert p.f.upper >= q.f.lower and p.reverse.upper >= q.reverse.lower
    # T(P1, P0) = T(P0, P1)^{-1}: at b = the ends of f(a), the reversed band brackets a
    inner = [p for p in pts if 0 < p.a < 1 and p.f.lower > 0]
    at = sorted({p.f.lower for p in inner} | {p.f.upper for p in inner})
    rev = {q.a: q.reverse for q in tradeoff_curve(F(2), 10, 10, at=at).points}
    for p in inner:
        assert rev[p.f.upper].lower <= p.a <= rev[p.f.lower].upper, p.a


def test_tradeoff_lies_above_theorem_31():
    # Theorem 3.1's certified delta_rhs (a valid TV bound at M = 1000, sigma = 1) gives
    # f >= 1 - a - delta: the band must not lie below that line
    from verifier.bounds import theorem31 as T
    d = T.bound(F(1), 1000, "simplified", 1).delta_epochs.upper
    c = tradeoff_curve(F(1), 1000, 1, at=[F(1, 10), F(1, 2), F(9, 10)])
    for p in c.points:
        assert p.f.upper >= 1 - p.a - d


# ------------------------------------------------------------------ interfaces
def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "verifier", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_rdp_cli_json_shape():
    r = _cli("rdp", "--sigma", "1", "--steps", "4", "--orders", "2,2.5", "--delta", "1e-5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    alphas = [F(o["alpha"]) for o in out["orders"]]
    assert {F(2), F(5, 2)} <= set(alphas) and alphas == sorted(alphas)
    for o in out["orders"]:
        for k in ("remove", "add"):
            assert set(o[k]) == {"lower", "upper"} and F(o[k]["lower"]) <= F(o[k]["upper"])
    assert set(out["zcdp"]["remove"]) == {"lower", "upper"} and "add" in out["zcdp"]
    conv = out["conversions"]
    assert F(conv["renyi_improved"]["epsilon"]["upper"]) >= F(conv["exact"]["lower"])


def test_tradeoff_cli_json_shape():
    r = _cli("tradeoff", "--sigma", "1", "--steps", "1", "--at", "0.25,0.5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [p["a"] for p in out["points"]] == ["0.25", "0.5"]
    for p in out["points"]:
        assert F(p["f"]["lower"]) <= F(p["f"]["upper"])


@pytest.mark.parametrize("args", [
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", "1"),
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", "0.5"),
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", "nan"),
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", "two"),
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", ","),
    ("rdp", "--sigma", "1", "--steps", "4", "--alpha-max", "1"),
    ("rdp", "--sigma", "1", "--steps", "4", "--alpha-max", "5000"),
    ("rdp", "--sigma", "0", "--steps", "4"),
    ("rdp", "--sigma", "1", "--steps", "4", "--delta", "2"),
    ("rdp", "--sigma", "1", "--steps", "4", "--orders", "2", "--alpha-max", "3"),
    ("tradeoff", "--sigma", "1", "--steps", "4", "--points", "1"),
    ("tradeoff", "--sigma", "1", "--steps", "4", "--points", "many"),
    ("tradeoff", "--sigma", "1", "--steps", "4", "--at", "1.5"),
    ("tradeoff", "--sigma", "1", "--steps", "0"),
    ("tradeoff", "--sigma", "-1", "--steps", "4"),
])
def test_hostile_inputs_one_line_exit_2(args):
    r = _cli(*args, timeout=60)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_api_objects():
    import verifier
    c = verifier.rdp("1", 1, orders="2,3")
    assert c.at(2).remove.contains(F(1)) and c.at(3).add.contains(F(3, 2))
    t = verifier.tradeoff("1", 1, at="0.5")
    assert _contains(t.points[0].f, _G(F(1, 2), 1))
    with pytest.raises(verifier.InputError):
        verifier.rdp("1", 1, orders="1")
    with pytest.raises(verifier.InputError):
        c.at(5)


def test_frac_str_is_exact():
    from hypothesis import given, strategies as st
    from verifier.core.arith import frac_str

    @given(st.integers(-10 ** 30, 10 ** 30), st.integers(0, 80), st.integers(0, 40),
           st.sampled_from([1, 3, 7]))
    def check(n, a, b, d):
        q = F(n, 2 ** a * 5 ** b * d)
        assert F(frac_str(q)) == q
    check()


def test_certificate_shows_every_view_in_one_table(tmp_path):
    r = _cli("certify", "--sigma", "2", "--steps", "10", "--epochs", "2", "--delta", "1e-5",
             "--target-epsilon", "2", "--out", str(tmp_path), "--json", timeout=600)
    assert r.returncode == 0, r.stderr
    cert = json.loads((tmp_path / "certificate.json").read_text())
    views = cert["privacy_profile"]["views"]
    rows = {row["name"]: row for row in views["rows"]}
    exact = rows["exact epsilon(delta): privacy profile"]["value"]
    for name in ("Rényi curve, improved conversion", "Rényi curve, classical conversion",
                 "zCDP, improved conversion", "zCDP, classical conversion"):
        row = rows[name]
        assert F(row["value"]["upper"]) >= F(exact["lower"])         # an upper bound
        assert F(row["loss"]["upper"]) >= 0
    assert F(views["zcdp_rho"]["lower"]) == F(views["zcdp_rho"]["upper"]) == F(2, 8)
    assert "TV = delta(0)" in rows and "attack accuracy 1/2 + TV/2" in rows
    md = (tmp_path / "certificate.md").read_text()
    assert "## Every view of the pair" in md and "loss against the exact epsilon" in md
    svg = (tmp_path / "certificate-tradeoff.svg").read_text()
    assert "certified band" in svg
