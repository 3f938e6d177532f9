"""The exact-TV bracket: independent certified quadrature (M = 2), seeded Monte
Carlo (moderate M), below every valid upper bound, Gaussian limit (demonstration)."""
import json
from fractions import Fraction as F

import pytest
from flint import acb, arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import deploy as Dp
from verifier.cli import main
from verifier.bounds.exact_tv.bracket import exact_tv
def tv_two_by_quadrature(sigma: F) -> arb:
    """E[((Y1 + Y2)/2 - 1)_+] by certified quadrature (Arb), independent of the lattice:
    given Y1, E[(Y2 - c)_+] = Q(x_c - 1/sigma) - c Q(x_c) with c = 2 - Y1 > 0,
    x_c = sigma (ln c + u/2), Q = 1 - Phi; for Y1 >= 2 it is 1 - c = Y1 - 1."""
    with ctx.workprec(80):
        s = arb(sigma.numerator) / sigma.denominator
        u = 1 / (s * s)
        sq2 = arb(2).sqrt()
        Q = lambda w: (w / sq2).erfc() / 2  # noqa: E731
        x_star = s * (arb(2).log() + u / 2)           # Y1 = 2
        sa, ua = acb(s), acb(u)

        def f(z, analytic):
            y1 = (z / sa - ua / 2).exp()
            c = 2 - y1
            xc = sa * (c.log(analytic=analytic) + ua / 2)
            Qa = lambda w: (w / acb(sq2)).erfc() / 2  # noqa: E731
            inner = Qa(xc - 1 / sa) - c * Qa(xc)
            return inner / 2 * (-z * z / 2).exp() / acb(2 * arb.pi()).sqrt()

        d, L = arb("1e-12"), arb(14)
        core = acb.integral(f, -L, x_star - d).real
        # cut-off pieces: the integrand lies in [0, 3/(2 sqrt(2 pi))] there (E(Y2 - c)_+ <= 1 + |c| <= 3)
        bound = 3 / (2 * (2 * arb.pi()).sqrt())
        cut = arb(0).union(bound * d) + arb(0).union(bound * Q(L))
        # Y1 >= 2: (Y1 - 1)/2, closed form by partial moments
        upper_part = (Q(x_star - 1 / s) - Q(x_star)) / 2
        return core + cut + upper_part


@pytest.mark.parametrize("sigma", [F(1), F(2), F(3, 4), F(1, 2)])
def test_m2_bracket_contains_certified_quadrature(sigma):
    q = tv_two_by_quadrature(sigma)
    assert q.rad() < 1e-6
    r = exact_tv(sigma, 2)
    lo, hi = q.lower().fmpq(), q.upper().fmpq()
    assert r.tv.lower <= F(int(lo.p), int(lo.q)) and F(int(hi.p), int(hi.q)) <= r.tv.upper
    assert r.relative_width < 0.01


def test_moderate_m_agrees_with_seeded_monte_carlo():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(20261129)
    sigma, M, n = 1.0, 50, 200_000
    x = rng.standard_normal((n, M))
    ybar = np.exp(x / sigma - 0.5 / sigma**2).mean(axis=1)
    v = np.maximum(ybar - 1, 0)
    est, half = v.mean(), 3.29 * v.std(ddof=1) / np.sqrt(n)     # 99.9% interval
    r = exact_tv(F(1), M)
    assert float(r.tv.lower) <= est + half and est - half <= float(r.tv.upper)


@pytest.mark.parametrize("sigma,M", [(F(1), 10), (F(1), 10**4), (F(2), 10**5), (F(1, 2), 10**3),
                                     (F(4), 10**3)])
def test_bracket_below_every_valid_upper_bound(sigma, M):
    r = exact_tv(sigma, M)
    assert r.relative_width < 0.01
    tgt = Dp.Target.make(delta=F(1, 2))
    for b in Dp.BOUNDS:
        ev = Dp.evaluate(b, sigma, M, 1, tgt)
        if ev.applicable.value == "holds":
            assert r.tv.upper <= ev.delta_epochs.lower, b


def test_gaussian_limit_demonstration():
    """Demonstration (labelled, not a proof): TV approaches 2 Phi(mu'/2) - 1, mu' = sqrt(s2/M)."""
    import math
    gaps = []
    for M in (10, 10**6):
        r = exact_tv(F(1), M)
        mu = math.sqrt(math.expm1(1.0) / M)
        g = math.erf(mu / (2 * math.sqrt(2)))
        lo, hi = float(r.tv.lower), float(r.tv.upper)
        gaps.append(max(lo - g, g - hi, 0.0) / g)      # distance from the bracket, relative
    assert gaps[0] > 0.01 and gaps[1] < 0.005


def test_epochs_bracket_tight_and_consistent():
    one = exact_tv(F(1), 10**4)
    e = exact_tv(F(1), 10**4, 100)
    assert e.relative_width < 0.01
    assert e.tv.lower >= one.tv.lower                       # composition cannot shrink TV
    assert e.tv.upper <= 1 - (1 - one.tv.upper) ** 100      # Lemma C.2 composition bound
    tgt = Dp.Target.make(delta=F(1, 2))
    chi = Dp.evaluate("chi-square", F(1), 10**4, 100, tgt)
    assert e.tv.upper <= chi.delta_epochs.lower


@pytest.mark.parametrize("sigma,M,E,seed", [(1.0, 100, 5, 7), (0.5, 30, 3, 11)])
def test_epochs_bracket_contains_seeded_monte_carlo(sigma, M, E, seed):
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(seed)
    n = 60_000
    prod = np.ones(n)
    for _ in range(E):
        x = rng.standard_normal((n, M))
        prod *= np.exp(x / sigma - 0.5 / sigma**2).mean(axis=1)
    v = np.maximum(prod - 1, 0)
    est, half = v.mean(), 3.29 * v.std(ddof=1) / np.sqrt(n)
    r = exact_tv(F(sigma), M, E)
    assert r.relative_width < 0.01
    assert float(r.tv.lower) <= est + half and est - half <= float(r.tv.upper)


@settings(max_examples=12)
@given(st.integers(10, 40).map(lambda k: F(k, 20)), st.integers(10, 3000),
       st.integers(1, 12), st.integers(1, 12))
def test_increasing_in_epochs(sigma, M, e1, e2):
    """TV of E-fold products increases with E (a test on fewer factors is a test on more)."""
    e1, e2 = min(e1, e2), max(e1, e2)
    a, b = exact_tv(sigma, M, e1), exact_tv(sigma, M, e2)
    assert a.tv.lower <= b.tv.upper
    if e1 == 1:
        assert b.tv.upper <= 1 - (1 - a.tv_one_epoch.upper) ** e2


def test_cli_exact_json(capsys):
    assert main(["exact", "--sigma", "1", "--steps", "10000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d["tv"]) == {"lower", "upper"} and set(d["accuracy"]) == {"lower", "upper"}
    assert F(d["tv"]["lower"]) < F(d["tv"]["upper"])
    assert main(["compare", "--sigma", "1", "--steps", "10000"]) == 0
    out = capsys.readouterr().out
    assert "chi-square" in out and "exact TV" in out
    assert main(["exact", "--sigma", "1", "--steps", "1"]) == 2      # M >= 2 (M = 2 is taken)


def test_calibrate_sigma_against_exact(capsys):
    """Noise saved by calibrating to the exact TV: feasible at sigma (upper end), infeasible one
    step below (lower end), and no more noise than the chi-square calibration."""
    t = Dp.Target.make(accuracy=F(505, 1000))
    r = Dp.calibrate_sigma_exact(10**4, 1, t)
    assert r.status == "certified"
    chi = Dp.calibrate_sigma(10**4, 1, t, "chi-square")
    assert r.sigma < chi.sigma
    assert exact_tv(r.sigma, 10**4).tv.upper <= t.delta
    assert exact_tv(r.sigma - r.resolution, 10**4).tv.lower > t.delta
    assert "less noise" in r.branch
    assert main(["calibrate", "sigma", "--steps", "10000", "--target-accuracy", "0.505",
                 "--bound", "exact-tv", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sigma"] == str(float(r.sigma))
