"""Digits on demand for the Gaussian mechanism (bounds/gaussian.py):
the closed form to any number of digits, epsilon by certified bisection; dp_accounting's
printed test values decided to their last digit."""
from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath as mp
import pytest

from verifier.bounds import gaussian as G
from verifier.cli import main

mp.mp.dps = 80


@pytest.fixture(autouse=True)
def eighty_digits():
    """80 digits for every test here, whatever another module set (mp.mp is global)."""
    with mp.workdps(80):
        yield


def M(x):
    if isinstance(x, (F, int)):
        x = F(x)
        return mp.mpf(x.numerator) / x.denominator
    return mp.mpf(x)


def ref_delta(mu2, eps):
    mu = mp.sqrt(M(mu2))
    return mp.ncdf(mu / 2 - M(eps) / mu) - mp.exp(M(eps)) * mp.ncdf(-mu / 2 - M(eps) / mu)


@pytest.mark.parametrize("mu2,eps,digits", [(F(1), F(1), 30), (F(9), F(1), 20), (F(1), F(0), 50),
                                            (F(10), F(-2), 25), (F(1, 100), F(3), 12)])
def test_delta_to_the_digits_asked(mu2, eps, digits):
    iv = G.delta_interval(mu2, eps, digits)
    r = ref_delta(mu2, eps)
    assert M(iv.lower) <= r <= M(iv.upper)
    assert iv.upper - iv.lower <= F(1, 10 ** digits) * iv.lower


@pytest.mark.parametrize("mu2,delta,digits", [(F(10), F(1, 10 ** 5), 30), (F(1), F(1, 10 ** 5), 50),
                                              (F(1, 10 ** 6), F(1, 10 ** 12), 10),
                                              (F(400), F(1, 2), 20)])
def test_epsilon_to_the_digits_asked(mu2, delta, digits):
    iv, n = G.epsilon_interval(mu2, delta, digits)
    root = mp.findroot(lambda e: ref_delta(mu2, e) - M(delta), M(iv.lower))
    assert M(iv.lower) <= root <= M(iv.upper)
    assert iv.upper - iv.lower <= F(1, 10 ** digits) * max(iv.upper, F(1))
    assert ref_delta(mu2, iv.upper) <= M(delta) < ref_delta(mu2, iv.lower)


def test_epsilon_zero_when_delta_at_zero_is_small_enough():
    iv, _ = G.epsilon_interval(F(1, 100), F(1, 2), 10)       # delta(0) = TV < 1/2
    assert iv.lower == iv.upper == 0


def test_dp_accounting_printed_values_decided(capsys):
    """Rows of dp_accounting's Gaussian tests the lattice engine left inconclusive at their
    eighth digit: each printed value is the rounding of the certified delta."""
    for mu2, eps, printed in ((1, 1, "0.12693674"), (9, 1, "0.78760074"), (1, 0, "0.38292492")):
        iv = G.delta_interval(F(mu2), F(eps), 12)
        p = F(printed)
        half = F(1, 2 * 10 ** 8)
        assert p - half <= iv.lower and iv.upper < p + half, (mu2, eps, iv)


def _cli(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_digits_both_samplers_agree(capsys):
    rc, out, _ = _cli(capsys, "epsilon", "--sigma", "1", "--steps-per-epoch", "1", "--epochs",
                      "10", "--delta", "1e-5", "--digits", "30", "--json")
    rc2, out2, _ = _cli(capsys, "epsilon", "--sampling", "poisson", "--sample-rate", "1",
                        "--sigma", "1", "--total-steps", "10", "--delta", "1e-5", "--digits",
                        "30", "--json")
    a, b = json.loads(out), json.loads(out2)
    assert rc == rc2 == 0 and a["epsilon"] == b["epsilon"] and a["mu_squared"] == "10"
    assert a["epsilon"]["lower"].startswith("17.85658683010761392552182517")


@pytest.mark.parametrize("argv,word", [
    (["--digits", "0"], "digits"), (["--digits", "1001"], "digits"),
    (["--digits", "abc"], "digits"), (["--digits", "nan"], "digits")])
def test_cli_digits_hostile_one_line(capsys, argv, word):
    rc, _, err = _cli(capsys, "epsilon", "--sigma", "1", "--steps-per-epoch", "1", "--delta",
                      "1e-5", *argv)
    assert rc == 2 and err.count("\n") == 1 and word in err, err


def test_cli_digits_refused_for_other_pairs(capsys):
    rc, _, err = _cli(capsys, "epsilon", "--sigma", "1", "--steps-per-epoch", "10", "--delta",
                      "1e-5", "--digits", "10")
    assert rc == 2 and "Gaussian mechanism" in err


def test_epsilon_without_a_certified_upper_end_is_inconclusive(monkeypatch):
    """When no eps is certified to meet delta (here: every comparison undecided), the answer
    is inconclusive, never an uncertified upper end."""
    monkeypatch.setattr(G, "_compare", lambda mu2, eps, delta, prec: 0 if eps > 0 else 1)
    iv, _ = G.epsilon_interval(F(1), F(1, 10 ** 5), 10)
    assert iv is None


def test_epsilon_to_hundreds_of_digits_is_an_answer_not_an_internal_error(capsys):
    """Issue 46: --digits 400 (documented range [1, 1000]) took math.log2 of a width that
    underflows a float (exit 4); the bisection's step now comes from the exact width.  The
    bracket holds a 450-digit reference and is 400 digits narrow."""
    from verifier.numerics.brackets import floor_log2
    import math
    assert all(floor_log2(F(n, d)) == math.floor(math.log2(n / d))
               for n in range(1, 70) for d in range(1, 70))
    assert floor_log2(F(1, 10 ** 400)) == -1329 and floor_log2(F(2 ** 3000 + 1)) == 3000
    iv, _ = G.epsilon_interval(F(1, 4), F(1, 10 ** 5), 400)
    with mp.workdps(450):
        ref = mp.findroot(lambda e: ref_delta(F(1, 4), e) - mp.mpf("1e-5"), mp.mpf(2))
        assert M(iv.lower) <= ref <= M(iv.upper)
        assert M(iv.upper) - M(iv.lower) <= mp.mpf(10) ** -399 * ref
    assert main(["epsilon", "--sigma", "2", "--steps-per-epoch", "1", "--delta", "1e-5",
                 "--digits", "400"]) == 0


@pytest.mark.parametrize("E", [1001, 5000, 10 ** 7])
def test_one_step_per_epoch_beyond_the_lattice_s_epochs_is_the_closed_form(E):
    """M = 1 is the Gaussian mechanism: epsilon() and delta() at E > 1000 epochs (the
    lattice engine's range) answer by the closed form at mu^2 = E / sigma^2, the bracket
    containing an 80-digit reference and at most 0.1% wide, as Poisson at q = 1 and T = E;
    E = 1000 stays on the lattice engine; above 1e7 one line."""
    import verifier
    sigma = F(40)
    mu2 = F(E) / sigma ** 2
    r = verifier.epsilon("40", 1, E, delta="1e-5")
    assert "closed_form" in r.info and r.epsilon == r.remove == r.add
    lo, hi = M(r.epsilon.lower), M(r.epsilon.upper)      # delta(eps) decreases in eps
    assert ref_delta(mu2, lo) >= mp.mpf("1e-5") >= ref_delta(mu2, hi)
    assert hi - lo <= mp.mpf("1e-3") * hi
    d = verifier.delta("40", 1, E, epsilon="1")
    assert M(d.delta.lower) <= ref_delta(mu2, 1) <= M(d.delta.upper)
    assert "closed_form" in d.info
    p = verifier.poisson_epsilon("40", 1, E, delta="1e-5")
    assert p.epsilon == r.epsilon
    assert "closed_form" not in verifier.epsilon("40", 1, 1000, delta="1e-5").info
    with pytest.raises(verifier.InputError, match="at most 10000000"):
        verifier.epsilon("40", 1, 10 ** 7 + 1, delta="1e-5")
    with pytest.raises(verifier.InputError, match="at most 1000 here"):
        verifier.epsilon("40", 2, 1001, delta="1e-5")
