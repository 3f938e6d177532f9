"""The tail-split one-epoch engine (verifier/bounds/exact_tv/one_epoch.py): pinned high-precision
references at M = 3, agreement with the truncating engine, monotonicity in M and sigma
(convex order), and the pieces it is built from (packed DFTs, skipped powers)."""
from fractions import Fraction as F

import pytest
from flint import acb, arb, ctx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truncated_engine import tv_one_epoch
from verifier.bounds.exact_tv.bracket import exact_tv
from verifier.numerics.lattice import powers, two_dfts
from verifier.bounds.exact_tv.one_epoch import tv_one
# E[((Y1 + Y2 + Y3)/3 - 1)_+] by nested mpmath quadrature at 20 digits (the inner expectation
# in closed form, the two outer integrals split at the kink); reproduced by the slow test below
M3_REFERENCE = {F(1): "0.2539609391148073327", F(1, 2): "0.54954094916226948139"}


def _mpmath_tv3(sigma: F, dps: int):
    import mpmath as mp

    with mp.workdps(dps):
        s = mp.mpf(sigma.numerator) / sigma.denominator
        u = 1 / s**2
        Q = lambda w: mp.erfc(w / mp.sqrt(2)) / 2  # noqa: E731
        phi = lambda x: mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
        Y = lambda x: mp.exp(x / s - u / 2)  # noqa: E731

        def inner(c):   # E[(Y3 - c)_+]
            if c <= 0:
                return 1 - c
            xc = s * (mp.log(c) + u / 2)
            return Q(xc - 1 / s) - c * Q(xc)

        def g(x1):
            y1 = Y(x1)
            f2 = lambda x2: inner(3 - y1 - Y(x2)) * phi(x2)  # noqa: E731
            if y1 < 3:
                return mp.quad(f2, [-mp.inf, s * (mp.log(3 - y1) + u / 2), mp.inf])
            return mp.quad(f2, [-mp.inf, mp.inf])

        return mp.quad(lambda x1: g(x1) * phi(x1), [-mp.inf, s * (mp.log(3) + u / 2), mp.inf]) / 3


@pytest.mark.parametrize("sigma", sorted(M3_REFERENCE))
def test_m3_bracket_contains_pinned_reference(sigma):
    ref = F(M3_REFERENCE[sigma])
    r = exact_tv(sigma, 3)
    assert r.tv.lower <= ref <= r.tv.upper
    assert r.relative_width < 0.01


@pytest.mark.slow
@pytest.mark.parametrize("sigma", sorted(M3_REFERENCE))
def test_m3_reference_reproduces(sigma):
    v = _mpmath_tv3(sigma, 12)
    assert abs(F(str(v)) - F(M3_REFERENCE[sigma])) < F(1, 10**10)


@pytest.mark.parametrize("sigma,M", [(F(1, 2), 10), (F(1), 1000), (F(3), 100), (F(2), 2),
                                     (F(1), 10**5)])
def test_agrees_with_the_truncating_engine(sigma, M):
    """Two constructions (tail split vs tail truncation): both rigorous, so they intersect."""
    prec = max(64, 53 + 2 * M.bit_length())
    new = tv_one(sigma, M, prec)
    lo, hi = tv_one_epoch(sigma, M, prec=prec)[:2]
    assert new.lower <= hi.upper() and lo.lower() <= new.upper
    assert new.upper > new.lower


sig = st.integers(10, 80).map(lambda k: F(k, 20))          # 0.5 .. 4 in steps of 0.05
steps = st.integers(2, 3000)


@settings(max_examples=25)
@given(sig, steps, steps)
def test_decreasing_in_steps(sigma, m1, m2):
    """Ybar_M decreases in convex order as M grows, so TV_1 decreases in M."""
    m1, m2 = min(m1, m2), max(m1, m2)
    a, b = exact_tv(sigma, m1), exact_tv(sigma, m2)
    assert a.relative_width < 0.01 and b.relative_width < 0.01
    assert b.tv.lower <= a.tv.upper


@settings(max_examples=25)
@given(sig, sig, steps)
def test_decreasing_in_sigma(s1, s2, M):
    """Mean-one lognormals increase in convex order with the variance of their log."""
    s1, s2 = min(s1, s2), max(s1, s2)
    assert exact_tv(s2, M).tv.lower <= exact_tv(s1, M).tv.upper


def test_packed_dfts_match_separate_ones():
    with ctx.workprec(80):
        p1 = [(0, arb("0.25")), (3, arb("0.5")), (9, arb("0.25"))]
        p2 = [(1, arb("0.125")), (2, arb("0.875"))]
        X1, X2 = two_dfts(p1, p2, 16)
        for pts, X in ((p1, X1), (p2, X2)):
            x = [acb(0)] * 16
            for k, v in pts:
                x[k] = x[k] + v
            ref = acb.dft(x)
            for k in range(9):
                assert X[k].overlaps(ref[k]) and X[k].rad() < 1e-20


def test_skipped_powers_enclose_the_true_power():
    with ctx.workprec(64):
        X = [acb("0.9999999"), acb("0.5", "0.5"), acb("0.001")]
        n = 10**6
        got = powers(X, n, 64)
        for z, g in zip(X, got):
            assert g.overlaps(z ** n)
        assert got[1].mid() == 0 and got[1].rad() <= 2.0 ** -70    # skipped, as a zero ball


@pytest.mark.parametrize("sigma,M,E", [(F(2), 3, 100), (F(1), 2, 2), (F(1, 2), 30, 3)])
def test_epochs_at_small_m(sigma, M, E):
    """Small M with several epochs (a Chernoff bound chosen without the tilted item once
    overflowed here): a tight bracket between TV_1 and the composition bound."""
    one, r = exact_tv(sigma, M), exact_tv(sigma, M, E)
    assert r.relative_width < 0.01
    assert one.tv.lower <= r.tv.upper and r.tv.lower <= 1 - (1 - one.tv.upper) ** E


def test_chernoff_bound_is_a_probability():
    from verifier.numerics.lattice import chernoff_bound
    pts = [(0, arb("0.5")), (1000, arb("0.5"))]
    assert chernoff_bound(pts, arb(500), 2, 5.0, 1, arb(1)) == 1      # overflowing: capped at 1
    b = chernoff_bound(pts, arb(500), 2, 0.001, 1, arb(900))
    assert 0 < b < 1


@pytest.mark.parametrize("argv", [
    ["--sigma", "0", "--steps", "10"], ["--sigma", "-1", "--steps", "10"],
    ["--sigma", "nan", "--steps", "10"], ["--sigma", "inf", "--steps", "10"],
    ["--sigma", "abc", "--steps", "10"], ["--sigma", "0.01", "--steps", "1000"],
    ["--sigma", "2000", "--steps", "10"], ["--sigma", "0.05", "--steps", "10", "--epochs", "3"],
    ["--sigma", "0.1", "--steps", "10", "--epochs", "3"], ["--sigma", "1", "--steps", "1"],
    ["--sigma", "1", "--steps", "2.5"], ["--sigma", "1", "--steps", "10", "--epochs", "0"],
    ["--sigma", "1", "--steps", "10", "--epochs", "-2"]])
def test_exact_cli_bad_input_one_line_error(argv, capsys):
    from verifier.cli import main
    assert main(["exact"] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("verifier: error:") and "\n" not in err and "Traceback" not in err


@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(sigma=st.one_of(st.text(max_size=12), st.floats(0.1, 1000).map(repr),
                       st.floats(allow_nan=True, allow_infinity=True).map(repr)))
def test_exact_cli_never_crashes(sigma, capsys):
    """Any sigma token: a bracket (exit 0) or one error line (exit 2), never a crash."""
    from verifier.cli import main
    if "\x00" in sigma or sigma.startswith("-"):
        return                                         # argparse territory, tested elsewhere
    capsys.readouterr()
    try:
        rc = main(["exact", "--sigma", sigma, "--steps-per-epoch", "10"])
    except SystemExit as e:                            # argparse rejects the token itself
        rc = e.code
    out, err = capsys.readouterr()
    assert rc in (0, 2), (sigma, rc)
    if rc == 0:
        assert "TV        in [" in out and err == "", (sigma, out, err)
    else:
        lines = err.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("verifier: error:"), (sigma, err)
