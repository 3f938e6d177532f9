"""delta(eps) at negative eps: dp_accounting's tests ask delta(-1), delta(-2).
For the pair (P0, P1) with E_P0 L = 1, delta_R(-e) = 1 - c + c delta_A(e) and delta_A(-e) =
1 - c + c delta_R(e), c = e^-e (proof check tradeoff.negative-eps); both engines read a
negative eps off the brackets at e, certified outward."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from fractions import Fraction as F

import mpmath as mp
import pytest

import verifier


def _gauss(mu2, eps):
    mp.mp.dps = 50
    mu, e = mp.sqrt(mp.mpf(mu2)), mp.mpf(eps)
    return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)


def _inside(iv, x):
    return (mp.mpf(iv.lower.numerator) / iv.lower.denominator <= x
            <= mp.mpf(iv.upper.numerator) / iv.upper.denominator)


@pytest.mark.parametrize("eps", ["-1", "-2", "-0.25"])
def test_gaussian_mechanism_at_negative_eps(eps):
    """M = 1 (random allocation) and q = 1 (Poisson) are the Gaussian mechanism with
    mu^2 = E / sigma^2: the closed form at 50 digits lies in each bracket, both directions."""
    t = _gauss(4, eps)
    r = verifier.delta("1", 1, 4, epsilon=eps)
    p = verifier.poisson_delta("1", "1", 4, epsilon=eps)
    for res in (r, p):
        assert _inside(res.delta, t) and _inside(res.remove, t) and _inside(res.add, t)
        assert res.epsilon == F(eps)


def test_negative_eps_is_the_other_direction_mirrored():
    """At M = 20 (not symmetric): delta_R(-2) from delta_A(2) and delta_A(-2) from
    delta_R(2), each end through 1 - c + c d (increasing in d)."""
    pos = verifier.delta("1.1", 20, 3, epsilon="2")
    neg = verifier.delta("1.1", 20, 3, epsilon="-2")
    c = mp.exp(-2)
    for mine, other in ((neg.remove, pos.add), (neg.add, pos.remove)):
        lo = 1 - c + c * (mp.mpf(other.lower.numerator) / other.lower.denominator)
        hi = 1 - c + c * (mp.mpf(other.upper.numerator) / other.upper.denominator)
        assert _inside(mine, lo) and _inside(mine, hi)
        assert mine.upper - mine.lower < (other.upper - other.lower) + F(1, 10 ** 12)
    assert neg.delta.lower >= 1 - F(str(mp.nstr(c, 30))) - F(1, 10 ** 9)   # delta(-e) >= 1 - e^-e


def test_cli_and_claims_take_negative_eps(tmp_path):
    p = subprocess.run([sys.executable, "-m", "verifier", "delta", "--sigma", "1",
                        "--steps-per-epoch", "1", "--epochs", "4", "--epsilon", "-1", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert _inside(verifier.Interval(F(json.loads(p.stdout)["delta"]["lower"]),
                                     F(json.loads(p.stdout)["delta"]["upper"])), _gauss(4, -1))
    truth = mp.nstr(_gauss(1, -1), 4)                      # 4 significant digits, as printed
    f = tmp_path / "neg.toml"
    f.write_text(textwrap.dedent(f"""
        format = "verifier-claims/2"
        [source]
        paper = "dp_accounting's Gaussian mechanism tests (reconstructed here)"
        [[claims]]
        id = "gaussian.delta-at-minus-one"
        where = "delta(eps = -1) at mu = 1"
        expr = "delta_at(sigma=1, steps=1, epsilon=-1)"
        printed = "{truth}"
        judge = "rounded"
    """))
    p = subprocess.run([sys.executable, "-m", "verifier", "audit", str(f), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "confirmed" in p.stdout, p.stdout + p.stderr
