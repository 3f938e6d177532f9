"""A run's certificate (deploy/run_certify.py, report/run_certificate.py; docs/RUNS.md, "A
certificate to file"): a Gaussian run against its closed forms at 50 digits (delta(eps), the
TV, the attack accuracy), each kind of target decided both ways and undecided where it
should be, the worst-phase collapse above the run, the CLI's files, exit codes and
refusals."""
import json
import os
from fractions import Fraction as F

import mpmath as mp
import pytest

import verifier
from verifier.core.arith import InputError, Tri

RUN = verifier.Run((verifier.phase("2", sampler="every_step", steps=3),
                    verifier.phase("3", sampler="every_step", steps=5)))
MU2 = F(3, 4) + F(5, 9)
RUN_FILE = "examples/runs/two_phase_poisson.toml"


def gauss_delta(eps) -> F:
    """delta(eps) of the Gaussian pair at mu: Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)."""
    with mp.workdps(50):
        mu, e = mp.sqrt(mp.mpf(MU2.numerator) / MU2.denominator), mp.mpf(eps.numerator) / eps.denominator
        return F(mp.nstr(mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu), 40))


def test_a_gaussian_run_s_figures_hold_the_closed_forms():
    c = verifier.certify(RUN, delta="1e-5", target_epsilon="3")
    d3, tv = gauss_delta(F(3)), gauss_delta(F(0))
    assert c.decided_by.lower <= d3 <= c.decided_by.upper
    assert c.tv.lower <= tv <= c.tv.upper
    assert c.accuracy.lower <= F(1, 2) + tv / 2 <= c.accuracy.upper
    assert c.epsilon.lower <= c.epsilon.upper and c.kind == "epsilon-delta"
    assert c.verdict is (Tri.HOLDS if d3 <= F(1, 10 ** 5) else Tri.FAILS)


@pytest.mark.parametrize("kind", ["epsilon-delta", "accuracy", "tv"])
def test_each_target_is_decided_both_ways_and_undecided_inside_its_bracket(kind):
    d3, tv = gauss_delta(F(3)), gauss_delta(F(0))
    acc = F(1, 2) + tv / 2
    truth = {"epsilon-delta": d3, "accuracy": acc, "tv": tv}[kind]

    def cert(bound):
        if kind == "epsilon-delta":
            return verifier.certify(RUN, delta=bound, target_epsilon="3")
        if kind == "accuracy":
            return verifier.certify(RUN, delta="1e-5", target_accuracy=bound)
        return verifier.certify(RUN, delta=bound)
    above, below = cert(truth * F(11, 10)), cert(truth * F(9, 10))
    assert above.kind == kind and above.verdict is Tri.HOLDS and above.status == "certified"
    assert below.verdict is Tri.FAILS and below.status == "not-certified"
    inside = cert(truth)                     # the truth itself lies in every bracket
    assert inside.verdict is Tri.UNDECIDED and inside.status == "inconclusive"
    assert "INCONCLUSIVE" in inside.status_line and "NOT-CERTIFIED" in below.status_line


def test_the_worst_phase_collapse_lies_above_the_run():
    run = verifier.run_from_file(RUN_FILE)
    c = verifier.certify(run, delta="1e-5", target_epsilon="3.5")
    assert c.worst_phase.lower > c.epsilon.upper          # the schedule's saving, certified
    assert c.renyi_epsilon.upper >= c.epsilon.lower      # a conversion is an upper bound
    g = verifier.certify(RUN, delta="1e-5")      # every step at sigma 2: 8 steps of it
    assert g.worst_phase.lower > g.epsilon.upper
    one = verifier.Run((verifier.phase("2", sampler="every_step", steps=3),))
    assert verifier.certify(one, delta="1e-5").worst_phase is None   # nothing to collapse


@pytest.mark.parametrize("kw", [{"epochs": 2}, {"steps_per_epoch": 10}, {"bound": "chi-square"},
                                {"target_epsilon": "1", "target_accuracy": "0.6"},
                                {"target_accuracy": "0.4"}, {"delta": None}])
def test_the_api_refuses_in_one_line(kw):
    args = {"delta": "1e-5", **kw}
    with pytest.raises(InputError):
        verifier.certify(RUN, **args)


def test_cli_writes_the_files_and_says_the_status(cli, tmp_path):
    out = str(tmp_path / "cert")
    rc, text, err = cli("certify", "--run", RUN_FILE, "--delta", "1e-5", "--target-epsilon",
                        "3.5", "--out", out)
    assert rc == 0 and "status: CERTIFIED" in text, err
    assert "at the worst phase" in text and "attack accuracy in [" in text
    got = json.load(open(os.path.join(out, "certificate.json")))
    assert got["status"] == "certified" and got["run"]["phases"][1]["noise_multiplier"] == "0.9"
    md = open(os.path.join(out, "certificate.md")).read()
    assert "| 2 | 40 steps of Poisson q = 0.05 at sigma = 0.9 |" in md
    first = {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)}
    cli("certify", "--run", RUN_FILE, "--delta", "1e-5", "--target-epsilon", "3.5", "--out", out)
    assert first == {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)}
    rc, _, _ = cli("certify", "--run", RUN_FILE, "--delta", "1e-5", "--target-epsilon", "3.3")
    assert rc == 1
    rc, js, _ = cli("certify", "--run", RUN_FILE, "--delta", "1e-5", "--json")
    assert rc == 1 and json.loads(js)["kind"] == "tv"       # TV ~ 0.21 > 1e-5


@pytest.mark.parametrize("argv, says", [
    (["--run", RUN_FILE, "--delta", "1e-5", "--sigma", "1"], "drop --sigma"),
    (["--run", RUN_FILE, "--delta", "1e-5", "--epochs", "2"], "drop --epochs"),
    (["--run", RUN_FILE], "--delta"),
    (["--run", RUN_FILE, "--delta", "1e-5", "--target-epsilon", "1", "--target-accuracy",
      "0.6"], "not both"),
    (["--run", "no/such/file.toml", "--delta", "1e-5"], "no/such/file.toml"),
])
def test_cli_refuses_in_one_line(cli, argv, says):
    rc, out, err = cli("certify", *argv)
    assert rc == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_a_target_near_delta_eps_is_decided_by_the_refined_pass():
    """The two-phase Poisson run at eps 3.5 with the target a tenth of the first pass's width
    below its upper end: the first pass (the engines' default width) straddles it, the refined
    pass (1e-5 relative) decides it."""
    from verifier.bounds.runs import delta_bracket
    from verifier.deploy.run_certify import meets
    run = verifier.run_from_file(RUN_FILE)
    first = delta_bracket(run, F(7, 2), floor=7e-9).delta
    target = first.upper - (first.upper - first.lower) / 10
    assert first.at_most(target) is Tri.UNDECIDED
    verdict, iv = meets(run, F(7, 2), target)
    assert verdict is not Tri.UNDECIDED and verdict is iv.at_most(target)
    assert iv.lower <= first.upper and first.lower <= iv.upper    # both hold the truth
    assert iv.upper - iv.lower <= (first.upper - first.lower) / 100
