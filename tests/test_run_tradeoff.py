"""The trade-off bands of a run (views/run_tradeoff.py; docs/THEORY.md section 15, "Views of
a run"): Gaussian runs against G_mu at 50 digits (the closed form's grid, and the Poisson
lattice's composed engine through the moment-free grid), a one-phase run bit for bit the
single-phase curve, k of M read off its reduction's two runs, the API and the CLI."""
import json
from fractions import Fraction as F

import mpmath as mp
import pytest

from verifier.core.arith import InputError
from verifier.core.run import Run, phase

RUN_FILE = "examples/runs/two_phase_poisson.toml"
AT = [F(k, 8) for k in range(1, 8)]


def g_mu(mu2, a: F):
    """G_mu(a) = Phi(Phi^-1(1 - a) - mu) at 50 digits."""
    with mp.workdps(50):
        z = mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a.numerator) / a.denominator)
        return F(mp.nstr(mp.ncdf(z - mp.sqrt(mp.mpf(mu2.numerator) / mu2.denominator)), 40))


def _holds_g_mu(points, mu2, width):
    for p in points:
        g = g_mu(mu2, p.a)
        for band in (p.f, p.reverse):               # the Gaussian pair is symmetric
            assert band.lower <= g <= band.upper, (p.a, band, g)
            assert band.upper - band.lower < width


def test_a_gaussian_run_s_band_holds_g_mu():
    """Every-step phases at sigma 2 (3 steps) and 3 (5 steps): the Gaussian pair at
    mu^2 = 3/4 + 5/9, by the closed form's grid."""
    from verifier.views.run_tradeoff import run_tradeoff
    run = Run((phase("2", sampler="every_step", steps=3), phase("3", sampler="every_step",
                                                                 steps=5)))
    c = run_tradeoff(run, at=AT)
    assert c.info["plan"] == "gaussian"
    _holds_g_mu(c.points, F(3, 4) + F(5, 9), 1e-3)
    assert c.tv.lower <= c.closest.upper and c.closest.lower <= c.tv.upper


def test_the_composed_lattice_engine_s_band_holds_g_mu():
    """The same Gaussian run through the run's Poisson lattice (q = 1 steps of two kinds,
    composed by their transforms) on the grid without moment bounds: the engine path of
    every Poisson run, against the closed form."""
    from verifier.bounds.runs.lattice import engine, guess_epsilon, lattice_step
    from verifier.views.grid import ProfileGrid
    from verifier.views.tradeoff import bands
    steps = ((F(2), F(1), 3), (F(3), F(1), 5))
    top = F(9)
    P = engine(steps, 1e-13, float(top) + 1, lattice_step(steps, guess_epsilon(steps, 1e-5)))
    g = ProfileGrid.of_engine(P, top, tau=1 / 32)
    pts, tv, _ = bands(g, AT)
    _holds_g_mu(pts, F(3, 4) + F(5, 9), 2e-3)


def test_a_one_phase_run_is_the_single_phase_curve_bit_for_bit():
    from verifier.views.run_tradeoff import run_tradeoff
    from verifier.views.tradeoff import tradeoff_curve
    c = run_tradeoff(Run((phase("1", steps_per_epoch=10, epochs=2),)), points=5)
    ref = tradeoff_curve(F(1), 10, 2, points=5)
    assert [(p.f, p.reverse) for p in c.points] == [(p.f, p.reverse) for p in ref.points]
    assert c.tv == ref.tv


def test_k_of_m_bands_come_from_the_reduction_s_two_runs():
    """2 of 10 steps, 2 epochs: the lower ends are the upper run's (4 epochs of 1 of 5),
    read from its upper ends of delta; the TV's lower end from the lower run (the Gaussian
    pair of an epoch's sum), strictly below the upper run's."""
    from verifier.bounds.runs import k_of_m_runs
    from verifier.views.run_tradeoff import run_tradeoff
    run = Run((phase("1", steps_per_epoch=10, steps_per_record=2, epochs=2),))
    up, _ = k_of_m_runs(run)
    c, cu = run_tradeoff(run, at=AT), run_tradeoff(up, at=AT)
    assert c.info["plan"] == "k-of-m"
    for p, q in zip(c.points, cu.points):
        assert p.f.lower == q.f.lower and p.reverse.lower == q.reverse.lower
        assert p.f.lower <= p.f.upper and p.f.upper >= q.f.lower
    assert c.tv.lower < cu.tv.lower and c.tv.upper == cu.tv.upper


def test_the_run_s_bands_agree_with_its_epsilon_and_tv():
    """The two-phase Poisson run: f(a) >= 1 - delta - e^eps a at the certified epsilon's
    upper end (the upper ends cannot fall below it), and the TV within the certified
    delta(0)."""
    from verifier.bounds.runs import delta_bracket, epsilon_bracket
    from verifier.core.run_files import run_from_file
    from verifier.views.run_tradeoff import run_tradeoff
    import math
    run = run_from_file(RUN_FILE)
    c = run_tradeoff(run, at=AT)
    e = float(epsilon_bracket(run, F(1, 10 ** 5)).epsilon.upper)
    for p in c.points:
        assert float(p.f.upper) >= 1 - 1e-5 - math.exp(e) * float(p.a) - 1e-12
    d0 = delta_bracket(run, F(0)).delta
    assert c.tv.lower <= d0.upper and d0.lower <= c.tv.upper


def test_the_api_takes_a_run_and_refuses_what_it_carries():
    import verifier
    run = Run((phase("2", sampler="every_step", steps=3),))
    c = verifier.tradeoff(run, at="1/2")
    assert [p.a for p in c.points] == [F(1, 2)]
    assert json.loads(json.dumps(c.to_json()))["run"] == run.to_json()
    for kw in ({"rel_width": "1e-4"}, {"epochs": 2}):
        with pytest.raises(InputError):
            verifier.tradeoff(run, **kw)
    with pytest.raises(InputError):
        verifier.tradeoff(run, 10)


def test_cli_tradeoff_of_a_run_file_and_of_k_of_m(cli):
    rc, out, err = cli("tradeoff", "--run", RUN_FILE, "--at", "0.25,0.5")
    assert rc == 0 and "Trade-off curves of a run of 2 phases" in out, err
    assert "exact TV in [" in out and "profile grid points" in out
    rc, out, _ = cli("tradeoff", "--run", RUN_FILE, "--at", "0.5", "--json")
    got = json.loads(out)
    assert rc == 0 and got["run"]["phases"][0]["noise_multiplier"] == "1.2"
    assert got["points"][0]["a"] == "0.5"
    rc, out, _ = cli("tradeoff", "--sigma", "1", "--steps-per-epoch", "10", "--epochs", "2",
                     "--steps-per-record", "2", "--at", "0.5")
    assert rc == 0 and "k = 2 per record" in out


@pytest.mark.parametrize("argv, says", [
    (["--run", RUN_FILE, "--rel-width", "1e-3"], "--rel-width"),
    (["--run", RUN_FILE, "--sigma", "2"], "drop --sigma"),
    (["--steps-per-epoch", "3"], "give --sigma"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--steps-per-record", "11"], "11"),
])
def test_cli_tradeoff_refuses_in_one_line(cli, argv, says):
    rc, out, err = cli("tradeoff", *argv)
    assert rc == 2 and says in err and len(err.strip().splitlines()) == 1
