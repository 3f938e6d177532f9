"""A newcomer's first hour (issue 47): what the CLI, the API and the files say is what was
computed, in the words of the sampler that ran; every reproduction of the issue's list that
this suite can run."""
from __future__ import annotations

import json
import os
from decimal import Decimal
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given
from hypothesis import strategies as st

import verifier
from verifier.core.arith import Interval


# ---- results print as numbers, rounded outward

@given(a=st.fractions(min_value=-10 ** 6, max_value=10 ** 6),
       w=st.fractions(min_value=0, max_value=10))
def test_an_interval_prints_its_ends_rounded_outward(a, w):
    iv = Interval(a, a + w)
    text = repr(iv)
    assert text.startswith("Interval[") and str(iv) == iv.short(10)
    if w == 0:
        return
    lo, hi = (Fraction(Decimal(x)) for x in text[len("Interval["):-1].split(", "))
    assert lo <= iv.lower and iv.upper <= hi                  # the printed ball contains it


def test_a_result_prints_readably():
    r = verifier.exact_tv("1", 2)
    assert "Fraction(" not in repr(r.tv) and "Interval[0.29774" in repr(r)


# ---- the docs' promises: exact_tv at M = 2, --digits to E = 1e6

def test_exact_tv_takes_m_2_in_the_api_as_in_the_cli(cli):
    r = verifier.exact_tv("1", 2)
    rc, out, _ = cli("exact", "--sigma", "1", "--steps-per-epoch", "2", "--json")
    assert rc == 0 and json.loads(out)["tv"] == r.tv.to_json()
    with pytest.raises(verifier.InputError, match="steps must be >= 2"):
        verifier.exact_tv("1", 1)


def _gaussian_epsilon(mu, delta):
    """epsilon(delta) of the Gaussian pair N(0,1) vs N(mu,1) (Balle & Wang 2018, Theorem 8),
    bisected in mpmath at 60 digits to far below 30 digits: an independent reference."""
    with mp.workdps(60):
        mu, delta = mp.mpf(mu), mp.mpf(delta)

        def d(e):
            return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2) - delta
        a, b = mu ** 2 / 2, mu ** 2 / 2 + 10 * mu             # d(a) > 0 > d(b): bisect
        assert d(a) > 0 > d(b)
        for _ in range(240):
            a, b = ((a + b) / 2, b) if d((a + b) / 2) > 0 else (a, (a + b) / 2)
        return (a + b) / 2


def test_digits_reach_a_million_epochs_at_one_step_per_epoch(cli):
    rc, out, _ = cli("epsilon", "--sigma", "1", "--steps-per-epoch", "1", "--epochs", "1000000",
                     "--delta", "1e-5", "--digits", "30", "--json")
    assert rc == 0, out
    j = json.loads(out)
    ref = _gaussian_epsilon(1000, "1e-5")
    with mp.workdps(60):
        lo, hi = (mp.mpf(j["epsilon"][k]) for k in ("lower", "upper"))
        assert lo <= ref <= hi and (hi - lo) / ref < mp.mpf("1e-29"), (lo, ref, hi)
    rc, _, err = cli("epsilon", "--sigma", "1", "--steps-per-epoch", "3", "--epochs", "1000000",
                     "--delta", "1e-5", "--digits", "30")
    assert rc == 2 and "epochs must be at most 1000" in err     # the lattice's own range


# ---- headers, files and refusals in the sampler's words

def test_calibrate_names_m_e_and_t(cli):
    rc, out, _ = cli("calibrate", "steps", "--epochs", "3", "--sigma", "1.2",
                     "--target-epsilon", "2", "--delta", "1e-5")
    assert rc == 0 and "E = 3 epochs, sigma = 1.2" in out.splitlines()[0]
    rc, out, _ = cli("calibrate", "epochs", "--steps-per-epoch", "20", "--sigma", "1.2",
                     "--target-epsilon", "2", "--delta", "1e-5")
    assert rc == 0 and "M = 20 steps per epoch" in out.splitlines()[0]


def test_certify_names_every_file_it_wrote_and_its_target(cli, tmp_path):
    out_dir = tmp_path / "cert"
    rc, out, _ = cli("certify", "--sigma", "1.1", "--steps-per-epoch", "20", "--epochs", "3",
                     "--target-epsilon", "2", "--delta", "1e-5", "--out", out_dir)
    assert rc == 0
    wrote = out.strip().splitlines()[-1]
    names = sorted(os.listdir(out_dir))
    assert len(names) >= 5 and wrote.startswith(f"  wrote {len(names)} files: ")
    assert all(str(out_dir / n) in wrote for n in names), (wrote, names)
    j = json.loads((out_dir / "certificate.json").read_text())
    assert j["target"]["kind"] == "epsilon-delta" and j["target"]["epsilon"] == "2"
    assert "Why a TV row may fail" in (out_dir / "certificate.md").read_text()
    assert "Why a TV row may fail" in (out_dir / "certificate.html").read_text()


@pytest.mark.parametrize("argv, words, not_words", [
    (["--sampling", "poisson", "--sample-rate", "0.01", "--total-steps", "100000"],
     ("T = 100000 steps", "fewer steps,"), ("epochs", "per epoch")),
    (["--steps-per-epoch", "1000", "--epochs", "100"],
     ("M = 1000", "fewer steps per epoch"), ()),
])
def test_a_memory_refusal_speaks_the_sampler_s_words(cli, monkeypatch, argv, words, not_words):
    from verifier.numerics import memory
    monkeypatch.setattr(memory, "limit", lambda: 1)         # every allocation beyond it
    rc, _, err = cli("epsilon", "--sigma", "1", *argv, "--delta", "1e-5")
    assert rc == 2 and err.count("\n") == 1, err
    assert all(w in err for w in words) and not any(w in err for w in not_words), err


# ---- Rényi conversions at least as good as the float accountants' from the same divergences

def _float_accountant_best(curve, delta):
    """min over Opacus's and dp_accounting's default orders of their conversion (Balle et
    al. 2020, Theorem 21: D_a + log((a-1)/a) - (log delta + log a)/(a-1), as Opacus's
    get_privacy_spent) applied to the LOWER ends of our divergence brackets: what a float
    accountant would report from divergences at least as small as the true ones."""
    from verifier.views.renyi import FLOAT_ACCOUNTANT_ORDERS
    at = {o.alpha: o for o in curve.orders}
    best = None
    with mp.workdps(40):
        for a in FLOAT_ACCOUNTANT_ORDERS:
            o = at[a]
            d = max(mp.mpf(o.remove.lower.numerator) / o.remove.lower.denominator,
                    mp.mpf(o.add.lower.numerator) / o.add.lower.denominator)
            am = mp.mpf(a.numerator) / a.denominator
            e = d + mp.log((am - 1) / am) - (mp.log(delta) + mp.log(am)) / (am - 1)
            best = e if best is None else min(best, e)
    return best


@pytest.mark.parametrize("make", [
    lambda: verifier.poisson_rdp(1, "0.01", 1000),
    lambda: verifier.rdp(2, steps_per_epoch=10, epochs=1, delta="1e-5"),
])
def test_no_float_accountant_converts_the_same_divergences_to_less(make):
    c = make()
    ours = c.to_epsilon(Fraction(1, 10 ** 5)).epsilon.upper
    theirs = _float_accountant_best(c, mp.mpf("1e-5"))
    with mp.workdps(40):
        assert mp.mpf(ours.numerator) / ours.denominator <= theirs * (1 + mp.mpf("1e-9")), \
            (float(ours), theirs)


# ---- Poisson at q = 1 is the Gaussian mechanism: its closed form, at any T

@pytest.mark.parametrize("sigma, T", [(3, 10), (50, 10 ** 7)])
def test_poisson_at_rate_one_is_the_gaussian_closed_form(sigma, T, work):
    r = work(verifier.poisson_epsilon, sigma, 1, T, delta=1e-5)
    assert work.counts["reserve"] == 0 and "closed form" in r.info["closed_form"]
    ref = _gaussian_epsilon(mp.sqrt(T) / sigma, "1e-5")
    with mp.workdps(60):
        lo, hi = (mp.mpf(x.numerator) / x.denominator for x in (r.epsilon.lower, r.epsilon.upper))
        assert lo <= ref <= hi and (hi - lo) / ref <= mp.mpf("1e-3"), (lo, ref, hi)
    if r.epsilon.upper <= 60:                              # delta's own range
        d = verifier.poisson_delta(sigma, 1, T, epsilon=r.epsilon.upper)
        assert d.delta.lower <= Fraction(1, 10 ** 5) and "closed_form" in d.info


# ---- claims can say what the float RDP accountants report

RDP_CLAIMS = '''format = "verifier-claims/2"
[source]
paper = "float accountants"
[[claims]]
id = "opacus-rdp"
where = "Opacus's RDP accountant, sigma 1, q 0.01, T 1000, delta 1e-5: 2.1014"
expr = 'poisson_rdp_epsilon_min(sigma = 1, sample_rate = 0.01, total_steps = 1000, delta = 1e-5, orders = "opacus")'
printed = "2.1014"
judge = "at-most"
[[claims]]
id = "opacus-order"
where = "at order 7.8"
expr = 'poisson_rdp_epsilon_min(sigma = 1, sample_rate = 0.01, total_steps = 1000, delta = 1e-5, orders = "opacus", value = "order")'
printed = "7.8"
judge = "rounded"
[[claims]]
id = "poisson-renyi-2"
where = "D_2 of the remove direction: T log(1 + q^2 (e^(1/sigma^2) - 1))"
expr = 'poisson_renyi(sigma = 1, sample_rate = 0.01, total_steps = 1000, alpha = 2)'
printed = "0.1718"
judge = "rounded"
[[claims]]
id = "dp-accounting-ra"
where = "random allocation over dp_accounting's orders"
expr = 'rdp_epsilon_min(sigma = 2, steps = 10, delta = 1e-5, orders = "dp_accounting")'
printed = "0.7239"
judge = "at-most"
'''


def test_claims_say_what_the_float_rdp_accountants_report(cli, tmp_path):
    f = tmp_path / "rdp.toml"
    f.write_text(RDP_CLAIMS)
    rc, out, err = cli("audit", f, "--out", tmp_path / "out", "--json")
    assert rc == 0, (out, err)
    verdicts = {c["id"]: c["verdict"] for c in json.loads(out)["reports"][0]["claims"]}
    assert set(verdicts.values()) == {"confirmed"}, verdicts
    with mp.workdps(50):          # the binomial expansion of E_Q[W^2], independently
        ref = 1000 * mp.log(1 + mp.mpf("0.01") ** 2 * (mp.e - 1))
    assert mp.nstr(ref, 4) == "0.1718"
    o, = verifier.poisson_rdp(1, "0.01", 1000, orders=[2]).orders
    with mp.workdps(50):
        lo, hi = (mp.mpf(x.numerator) / x.denominator for x in (o.remove.lower, o.remove.upper))
        assert lo <= ref <= hi


def test_audit_names_every_file_it_wrote(cli, tmp_path):
    f = tmp_path / "rdp.toml"
    f.write_text(RDP_CLAIMS.split("[[claims]]")[0] + "[[claims]]" + RDP_CLAIMS.split("[[claims]]")[3])
    out_dir = tmp_path / "out"
    rc, out, _ = cli("audit", f, "--out", out_dir)
    assert rc == 0, out
    lines = [ln for ln in out.splitlines() if ln.startswith("  wrote ")]
    names = sorted(os.listdir(out_dir))
    assert all(any(str(out_dir / n) in ln for ln in lines) for n in names), (lines, names)
    assert lines[0].startswith(f"  wrote {len(names) - 1} files: ")     # and the index
