"""certify / calibrate: acceptance values, round trips, minimality, inputs, exit codes."""
import doctest
import json
import os
from fractions import Fraction as F

import mpmath as mp
import pytest

import reference as R
import verifier
from verifier import deploy as Dp
T001 = Dp.Target.make(delta=F(1, 100))


def ref_chi(sigma, M, E):
    with mp.workdps(R.DPS):
        s = R.mpq(sigma)
        return mp.sqrt((1 + R.s2(s) / M) ** E - 1) / 2


def ref_theorem_feasible(sigma, M, E, tau, coef):
    """Theorem 3.1 at delta = delta_rhs, composed over E epochs (60-digit reference)."""
    with mp.workdps(R.DPS):
        d = R.delta_rhs(M, sigma, coef)
        m = R.conditions(M, sigma, d, coef)
        dE = 1 - (1 - d) ** E if d < 1 else mp.mpf(1)
        return (dE <= R.mpq(tau) and m["sigma_at_least_sqrt_3_over_ln_M"] >= 0
                and m["validity_condition_2"] >= 0)


def test_acceptance_sigma1_table1_row():
    ok = Dp.certify(F(1), 1140369, 1, T001, "theorem31-simplified")
    assert ok.certified
    no = Dp.certify(F(1), 1140368, 1, T001, "theorem31-simplified")
    assert no.status == "not-certified"
    assert no.bounds["theorem31-simplified"].meets.value == "fails"


def test_certify_contains_references():
    c = Dp.certify(F(3, 2), 10**5, 7, Dp.Target.make(delta=F(1, 10)))
    assert R.contains(c.bounds["chi-square"].delta_epochs, ref_chi("1.5", 10**5, 7))
    with mp.workdps(R.DPS):
        d = R.delta_rhs(10**5, "1.5", "exact")
        assert R.contains(c.bounds["theorem31-rho3"].delta_epochs, 1 - (1 - d) ** 7)


@pytest.mark.parametrize("E", [1, 3])
def test_chi_square_sigma_round_trip(E):
    r = Dp.calibrate_sigma(10**6, E, T001, "chi-square")
    assert r.status == "certified"
    assert r.at.verdict.value == "holds" and r.below.verdict.value == "fails"
    with mp.workdps(R.DPS):      # tau exact to 60 digits too, not rounded to a double
        assert ref_chi(r.sigma, 10**6, E) <= R.mpq("0.01") < ref_chi(r.sigma - r.resolution,
                                                                     10**6, E)
    # the closed-form inversion lies in (sigma - res, sigma]
    assert r.sigma - r.resolution < r.closed_form.lower and r.closed_form.upper <= r.sigma


@pytest.mark.parametrize("bound", Dp.BOUNDS)
def test_calibrate_steps_minimal(bound):
    r = Dp.calibrate_steps(F(3, 2), 4, T001, bound)
    assert r.status == "certified"
    m = r.steps
    if bound == "chi-square":
        with mp.workdps(R.DPS):
            assert ref_chi("1.5", m, 4) <= R.mpq("0.01") < ref_chi("1.5", m - 1, 4)
    else:
        coef = "simplified" if bound.endswith("simplified") else "exact"
        assert ref_theorem_feasible("1.5", m, 4, "0.01", coef)
        assert not ref_theorem_feasible("1.5", m - 1, 4, "0.01", coef)


def test_calibrate_sigma_u_shape_endpoints():
    r = Dp.calibrate_sigma(10**5, 1, T001, "theorem31-rho3")
    assert r.status == "certified" and "U-shaped" in r.branch
    lo, hi, res = r.sigma, r.sigma_max, r.resolution
    assert ref_theorem_feasible(lo, 10**5, 1, "0.01", "exact")
    assert not ref_theorem_feasible(lo - res, 10**5, 1, "0.01", "exact")
    assert ref_theorem_feasible(hi, 10**5, 1, "0.01", "exact")
    assert not ref_theorem_feasible(hi + res, 10**5, 1, "0.01", "exact")
    # simplified factor: infeasible for every sigma at this M
    assert Dp.calibrate_sigma(10**5, 1, T001, "theorem31-simplified").status == "infeasible"


def test_accuracy_target_is_twice_minus_one():
    t = Dp.Target.make(accuracy=F(51, 100))
    assert t.delta == F(1, 50)
    c = Dp.certify(F(1), 10**4, 2, t, "chi-square")
    acc = c.bounds["chi-square"].accuracy
    assert acc.upper <= F(51, 100) and c.certified


def test_min_samples():
    assert Dp.min_samples(F(1), 1140369) == 11403690
    assert Dp.min_samples(F(3, 4), 3716108, F(2), F(1, 5)) == 27870810


def test_api_doctests():
    import verifier.api.tv as tv
    res = doctest.testmod(tv)
    assert res.attempted >= 10 and res.failed == 0
    import importlib
    res = doctest.testmod(importlib.import_module("verifier.api.profile"))
    assert res.attempted >= 3 and res.failed == 0


def test_api_reads_floats_as_printed():
    # the one float policy: 0.01 is 1/100, the certificate names the exact value used
    a = verifier.certify(1.0, steps_per_epoch=1000, delta=0.01)
    b = verifier.certify("1", steps_per_epoch=1000, delta="0.01")
    from verifier.report.certificate import certificate_json
    assert certificate_json(a) == certificate_json(b)
    with pytest.raises(verifier.core.arith.InputError, match="finite"):
        verifier.certify(float("nan"), steps_per_epoch=1000, delta="0.01")


# --------------------------------------------------------------------- CLI
from conftest import cli_main as run_main  # noqa: E402 (the shared in-process runner)


def test_certify_exit_codes_and_json(tmp_path, capsys):
    rc, out, _ = run_main(capsys, "certify", "--sigma", "1", "--steps", "1140369", "--delta", "0.01",
                          "--json", "--out", str(tmp_path))
    assert rc == 0
    d = json.loads(out)
    assert d["certified"] is True and set(d["bounds"]) == set(Dp.BOUNDS)
    assert set(d["bounds"]["chi-square"]["delta_epochs"]) == {"lower", "upper"}
    rc, _, _ = run_main(capsys, "certify", "--sigma", "1", "--steps", "1140368", "--delta", "0.01",
                        "--bound", "theorem31-simplified", "--out", str(tmp_path))
    assert rc == 1


def test_certify_inconclusive_exit_3(tmp_path, capsys):
    # a target equal to the chi-square value to 200 digits: undecidable at 64 bits
    from flint import arb, ctx
    from verifier.symbolic import derived as DD
    with ctx.workprec(1000):
        v = DD.chi_square_tv(arb(1000), arb(1), arb(1))
        q = v.mid().fmpq()
    target = f"{int(q.p)}/{int(q.q)}"
    rc, out, err = run_main(capsys, "certify", "--sigma", "1", "--steps", "1000", "--delta", target,
                            "--bound", "chi-square", "--max-prec", "64", "--out", str(tmp_path))
    assert rc == 3, err
    assert "INCONCLUSIVE" in out


def test_certificate_reproducible_and_atomic(tmp_path, capsys, monkeypatch):
    args = ["certify", "--sigma", "1", "--steps", "1140369", "--delta", "0.01"]
    run_main(capsys, *args, "--out", str(tmp_path / "a"))
    run_main(capsys, *args, "--out", str(tmp_path / "b"))
    files = sorted(os.listdir(tmp_path / "a"))
    assert files == sorted(os.listdir(tmp_path / "b"))
    # the trade-off lines of TV bounds at delta_E = 0.01 are the diagonal: not drawn
    assert "certificate-feasibility.svg" in files and "certificate-tradeoff.svg" not in files
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    before = (tmp_path / "a" / "certificate.json").read_bytes()
    # interrupt the writer while it writes the second file: nothing is replaced
    import verifier.report.writer as rep
    calls = {"n": 0}
    real_fsync = os.fsync

    def flaky_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("simulated interrupt")
        real_fsync(fd)

    monkeypatch.setattr(rep.os, "fsync", flaky_fsync)
    rc, _, err = run_main(capsys, *args[:-1], "0.02", "--out", str(tmp_path / "a"))
    assert rc == 130
    assert (tmp_path / "a" / "certificate.json").read_bytes() == before
    assert sorted(os.listdir(tmp_path / "a")) == sorted(os.listdir(tmp_path / "b"))


def test_calibrate_json_keys(capsys):
    rc, out, _ = run_main(capsys, "calibrate", "steps", "--sigma", "1", "--delta", "0.01", "--json")
    assert rc == 0 and json.loads(out)["steps"] == 4296
    rc, out, _ = run_main(capsys, "calibrate", "sigma", "--steps", "1000000", "--delta", "0.01",
                          "--bound", "chi-square", "--json")
    assert rc == 0 and json.loads(out)["sigma"] == "0.41"
    rc, out, _ = run_main(capsys, "calibrate", "samples", "--sigma", "1", "--delta", "0.01",
                          "--bound", "theorem31-simplified", "--json")
    d = json.loads(out)
    assert rc == 0 and d["samples"] == 11403690 and d["steps"] == 1140369


def test_calibrate_infeasible_exit_1(capsys):
    rc, out, _ = run_main(capsys, "calibrate", "sigma", "--steps", "100000", "--delta", "0.01",
                          "--bound", "theorem31-simplified")
    assert rc == 1 and "infeasible" in out


def test_config_files(tmp_path, capsys):
    toml = tmp_path / "run.toml"
    toml.write_text('sigma = 1.0\nsamples = 11403690\nbatch_size = 10\ndelta = "0.01"\n'
                    'bound = "theorem31-simplified"\n')
    rc, out, err = run_main(capsys, "certify", "--config", str(toml), "--out", str(tmp_path))
    assert rc == 0, err
    js = tmp_path / "run.json"
    js.write_text(json.dumps({"sigma": "1", "steps": 1140369, "delta": "0.01"}))
    rc, _, err = run_main(capsys, "certify", "--config", str(js), "--steps", "1140369",
                          "--out", str(tmp_path))
    assert rc == 0, err


BAD = [
    (["--sigma", "1", "--steps", "100", "--samples", "1000", "--batch-size", "20", "--delta", "0.1"],
     "given twice"),
    (["--sigma", "1", "--samples", "1000", "--batch-size", "7", "--delta", "0.1"], "does not divide"),
    (["--sigma", "1", "--batch-size", "7", "--delta", "0.1"], "needs samples"),
    (["--sigma", "1", "--steps", "100", "--epochs", "0", "--delta", "0.1"], "epochs"),
    (["--sigma", "1", "--steps", "100", "--delta", "1.5"], "delta"),
    (["--sigma", "1", "--steps", "100", "--target-accuracy", "0.4"], "accuracy"),
    (["--sigma", "1", "--steps", "100", "--delta", "0.1", "--target-accuracy", "0.6"], "exactly one"),
    (["--sigma", "1", "--steps", "100"], "exactly one"),
    (["--sigma", "1", "--steps", "100", "--delta", "0.1", "--bound", "renyi"], "unknown bound"),
    (["--sigma", "0", "--steps", "100", "--delta", "0.1"], "sigma"),
    (["--sigma", "1", "--steps", "2", "--delta", "0.1"], "steps"),
    (["--steps", "100", "--delta", "0.1"], "sigma is required"),
    (["--sigma", "1", "--delta", "0.1"], "steps per epoch required"),
    (["--sigma", "1", "--steps", "100", "--delta", "0.1", "--clip", "-1"], "clip"),
    (["--sigma", "1", "--steps", "100", "--delta", "0.1", "--config", "/nonexistent.toml"], "cannot read"),
]


@pytest.mark.parametrize("argv,needle", BAD, ids=[b[1] for b in BAD])
def test_certify_bad_input(argv, needle, tmp_path, capsys):
    rc, out, err = run_main(capsys, "certify", *argv, "--out", str(tmp_path / "never"))
    assert rc == 2 and err.count("\n") == 1 and needle in err and "Traceback" not in err
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("content,needle", [
    ("sigma = [1]\n", "must be a number"), ("nope = 1\n", "unknown config key"),
    ("sigma = 1\nsigma = 2\n", "cannot read config"), ('{"sigma": NaN}', "cannot read config"),
])
def test_bad_config(tmp_path, capsys, content, needle):
    p = tmp_path / ("c.json" if content.startswith("{") else "c.toml")
    p.write_text(content)
    rc, _, err = run_main(capsys, "calibrate", "steps", "--config", str(p), "--delta", "0.1")
    assert rc == 2 and needle in err and err.count("\n") == 1


def test_config_conflicting_with_flag(tmp_path, capsys):
    p = tmp_path / "c.toml"
    p.write_text('sigma = "2"\n')
    rc, _, err = run_main(capsys, "calibrate", "steps", "--config", str(p), "--sigma", "1",
                          "--delta", "0.1")
    assert rc == 2 and "given twice" in err


@pytest.mark.parametrize("tag", ["simplified", "rho3"])
def test_sigma_derivatives_match_finite_differences(tag):
    """The generated d/dsigma evaluators (mean-value form) agree with a 60-digit central
    difference of the reference."""
    from flint import arb
    from verifier.symbolic import derived as DD
    M = 10**6
    with mp.workdps(R.DPS):
        def d(sg):
            return mp.fsum(R.terms(mp.mpf(M), sg, R.coef_of(sg, tag)))

        def g3(sg):
            c, dd = R.coef_of(sg, tag), d(sg)
            eps = R.B() * c * mp.sqrt(R.s2(sg) / (M - 1))
            return mp.mpf(1) / 2 - eps - dd - R.Phi(-R.s2(sg) / 2)
        x = mp.mpf(3) / 2
        dd_ref, dg_ref = mp.diff(d, x), mp.diff(g3, x)
    suffix = tag
    got_d = getattr(DD, f"delta_rhs_dsigma_{suffix}")(arb(M), arb(3) / 2)
    got_g = getattr(DD, f"validity_dsigma_{suffix}")(arb(M), arb(3) / 2)
    assert abs(float(got_d.mid()) - float(dd_ref)) < 1e-12 * abs(float(dd_ref)) + 1e-15
    assert abs(float(got_g.mid()) - float(dg_ref)) < 1e-12 * abs(float(dg_ref)) + 1e-15


def test_calibrate_sigma_exact_large_m_certified():
    r = Dp.calibrate_sigma(10**8, 1, T001, "theorem31-rho3")
    assert r.status == "certified"
    assert ref_theorem_feasible(r.sigma, 10**8, 1, "0.01", "exact")
    assert not ref_theorem_feasible(r.sigma - r.resolution, 10**8, 1, "0.01", "exact")
    assert not ref_theorem_feasible(r.sigma_max + r.resolution, 10**8, 1, "0.01", "exact")
