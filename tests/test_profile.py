"""The certified privacy profile (bounds/profile): closed forms at M = 1, the exact
TV at eps = 0, published reference numbers, Monte Carlo, monotonicity, the searches'
invariants and the engine's pieces (spreads, windows, charges) against their contracts."""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath as mp
import pytest
from flint import arb, ctx

from verifier.bounds import profile as PR
from verifier.bounds.profile import compose as C
from verifier.bounds.profile import first_cell as FC
from verifier.bounds.profile import spreads as SP
from verifier.bounds.profile import upper as UP
from verifier.numerics import compose as NC
from verifier.numerics.brackets import epsilon_direction
from verifier.core.arith import Interval, Tri, to_arb


def _mp(q: F):
    return mp.mpf(q.numerator) / q.denominator


def gaussian_delta(eps: F, sigma: F, E: int):
    """delta(eps) of the Gaussian mechanism with mu = sqrt(E)/sigma, at 60 digits
    (Balle & Wang 2018, Theorem 8; both directions are equal)."""
    with mp.workdps(60):
        mu = mp.sqrt(E) / _mp(sigma)
        e = _mp(eps)
        return mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)


def _contains(iv: Interval, x) -> bool:
    with mp.workdps(60):
        return _mp(iv.lower) <= x <= _mp(iv.upper)


# ---------------------------------------------------------------- M = 1: the Gaussian mechanism
@pytest.mark.parametrize("sigma,E,eps_list", [
    ("2", 1, ["0", "0.5", "1", "2", "3"]),
    ("2", 10, ["0", "1", "3"]),
    ("4", 100, ["0", "1", "3"]),
])
def test_gaussian_mechanism_inside_both_directions(sigma, E, eps_list):
    s = F(sigma)
    P = PR.engine(s, 1, E, 1e-13)
    for e in eps_list:
        rem, add = PR.directions(P, F(e))
        ref = gaussian_delta(F(e), s, E)
        assert _contains(rem, ref), (e, rem, ref)
        assert _contains(add, ref), (e, add, ref)
        # and tight: the remove bracket within 3% of the value (where delta > 1e-12)
        if ref > 1e-12:
            assert (rem.upper - rem.lower) <= F(3, 100) * F(str(mp.nstr(ref, 20)))


def test_gaussian_epsilon_of_delta_brackets_the_closed_form():
    """epsilon(1e-5) at M = 1, sigma = 2, E = 10: the root of the closed form lies inside."""
    s, E, d = F(2), 10, F(1, 10 ** 5)
    r = PR.epsilon_bracket(s, 1, E, d)
    assert r.bracketed
    with mp.workdps(60):
        root = mp.findroot(lambda x: gaussian_delta(F(str(mp.nstr(x, 40))), s, E) - mp.mpf("1e-5"),
                           (_mp(r.epsilon.lower), _mp(r.epsilon.upper)), solver="anderson")
    assert r.epsilon.lower <= F(str(mp.nstr(root, 30))) <= r.epsilon.upper
    assert (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower <= F(5, 1000)


def test_large_floor_charges_the_truncated_tail():
    """With floor = 1e-2 the tail above t_max is left out of the grid and charged: at eps = 3
    the remove bracket must still contain the closed form (3.4e-10), through the charge."""
    P = PR.engine(F(2), 1, 1, 1e-2)
    for e in ("2", "3"):
        rem, add = PR.directions(P, F(e))
        ref = gaussian_delta(F(e), F(2), 1)
        assert _contains(rem, ref) and _contains(add, ref)


# ---------------------------------------------------------------- eps = 0: the exact TV
@pytest.mark.parametrize("sigma,M,E", [("1", 100, 1), ("2", 10, 10),
                                       ("1", 2000, 1), ("2", 1000, 3)])   # the band path
def test_eps_zero_agrees_with_the_exact_tv(sigma, M, E):
    from verifier.bounds.exact_tv.bracket import exact_tv
    r = PR.delta_bracket(F(sigma), M, E, F(0))
    x = exact_tv(F(sigma), M, E)
    for iv in (r.remove, r.add):
        assert max(iv.lower, x.tv.lower) <= min(iv.upper, x.tv.upper), (iv, x.tv)
    # the profile's bracket is at least as tight as the exact-TV engine's here
    assert r.remove.upper - r.remove.lower <= x.tv.upper - x.tv.lower


# ---------------------------------------------------------------- published numbers
# PLD_accounting 2.0 (gaussian_allocation_epsilon_range, default accuracy), float [lower, upper],
# as reported by PLD_accounting; ours must intersect and be narrower
PLD_ROWS = [("1", 100, 1, "1e-5", "0.60851", "0.635652"),
            ("1", 100, 10, "1e-5", "1.66441", "1.73982"),
            ("2", 10, 10, "1e-6", "2.38033", "2.46608")]


@pytest.mark.parametrize("sigma,M,E,delta,lo,hi", PLD_ROWS)
def test_published_pld_brackets_intersect_and_ours_is_narrower(sigma, M, E, delta, lo, hi):
    r = PR.epsilon_bracket(F(sigma), M, E, F(delta))
    assert r.bracketed
    assert max(r.epsilon.lower, F(lo)) <= min(r.epsilon.upper, F(hi))
    assert r.epsilon.upper - r.epsilon.lower < F(hi) - F(lo)
    assert (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower <= F(5, 1000)


def test_dp_accounting_random_allocation_row_is_consistent():
    """Google dp_accounting's random-allocation test: epsilon = 2.4265 (an upper bound,
    tolerance 1e-3) at sigma = 2, M = 10, E = 10, delta = 1e-6: our eps_lo <= 2.4265 * 1.001."""
    r = PR.epsilon_bracket(F(2), 10, 10, F(1, 10 ** 6))
    assert r.epsilon.lower <= F("2.4265") * F("1.001")
    assert r.larger == "remove"


# ---------------------------------------------------------------- Monte Carlo
def _mc(sigma: float, M: int, E: int, eps: float, n: int, seed: int):
    """Seeded Monte Carlo of both directions in their bounded forms: remove
    E_P1[(1 - e^eps / L)_+] (sampled under P1: one tilted coordinate per epoch, a change of
    measure that makes the rare event frequent) and add E_P0[(1 - e^eps L)_+]; values and
    standard errors."""
    import numpy as np
    rng = np.random.default_rng(seed)
    u = 1 / sigma ** 2

    def logL(tilt: bool):
        tot = np.zeros(n)
        for _ in range(E):
            X = rng.standard_normal((n, M))
            if tilt:
                X[:, 0] += 1 / sigma
            Y = np.exp(X / sigma - u / 2)
            tot += np.log(Y.mean(axis=1))
        return tot
    r = np.clip(1 - np.exp(eps - logL(True)), 0, None)
    a = np.clip(1 - np.exp(eps + logL(False)), 0, None)
    return (r.mean(), r.std() / math.sqrt(n)), (a.mean(), a.std() / math.sqrt(n))


@pytest.mark.parametrize("sigma,M,E,eps", [("1", 4, 1, "1"), ("1.5", 5, 5, "1")])
def test_monte_carlo_inside_the_bracket(sigma, M, E, eps):
    P = PR.engine(F(sigma), M, E, 1e-13)
    rem, add = PR.directions(P, F(eps))
    (mr, sr), (ma, sa) = _mc(float(F(sigma)), M, E, float(F(eps)), 200_000, 20261201)
    z = 3.3      # a two-sided 99.9% allowance
    assert float(rem.lower) - z * sr <= mr <= float(rem.upper) + z * sr, (rem, mr, sr)
    assert float(add.lower) - z * sa <= ma <= float(add.upper) + z * sa, (add, ma, sa)


# ---------------------------------------------------------------- monotonicity
def test_delta_decreases_in_eps_certified():
    P = PR.engine(F(1), 100, 1, 1e-13)
    prev = None
    for e in ("0", "0.25", "0.5", "1", "2"):
        rem, _ = PR.directions(P, F(e))
        if prev is not None:
            assert rem.upper < prev.lower
        prev = rem


@pytest.mark.parametrize("a,b", [
    (("1", 100, 1), ("1.25", 100, 1)),        # decreases in sigma
    (("1", 100, 1), ("1", 1000, 1)),          # decreases in M
    (("1", 100, 2), ("1", 100, 1)),           # increases in E
])
def test_epsilon_monotone_where_brackets_separate(a, b):
    d = F(1, 10 ** 5)
    ra = PR.epsilon_bracket(F(a[0]), a[1], a[2], d)
    rb = PR.epsilon_bracket(F(b[0]), b[1], b[2], d)
    assert rb.epsilon.upper < ra.epsilon.lower


# ---------------------------------------------------------------- the searches
def test_epsilon_bracket_invariant():
    """The returned ends are certified: delta(eps_hi) <= delta by the upper ends, and
    delta(eps_lo) > delta by a test (every eps below eps_lo fails)."""
    d = F(1, 10 ** 5)
    r = PR.epsilon_bracket(F(1), 100, 1, d)
    P = PR.engine(F(1), 100, 1, float(d))
    hi, lo = r.epsilon.upper, r.epsilon.lower
    da = arb(1) / 10 ** 5
    assert P.upper_remove(hi) <= da and P.upper_add(hi) <= da
    assert P.lower_remove(lo) > da or P.lower_add(lo) > da
    assert lo > 0


def test_meets_is_three_valued_and_consistent():
    d = F(1, 10 ** 5)
    r = PR.epsilon_bracket(F(1), 100, 1, d)
    assert PR.meets(F(1), 100, 1, r.epsilon.upper, d)[0] is Tri.HOLDS
    assert PR.meets(F(1), 100, 1, r.epsilon.lower, d)[0] is Tri.FAILS
    # inside the bracket (0.24% wide) neither end decides: undecided, never a guess
    mid = (r.epsilon.lower + r.epsilon.upper) / 2
    assert PR.meets(F(1), 100, 1, mid, d)[0] is Tri.UNDECIDED


def test_inconclusive_beyond_eps_60():
    """M = 1, sigma = 1, E = 100: epsilon(1e-5) is about 93, beyond the engine's range."""
    r = PR.epsilon_bracket(F(1), 1, 100, F(1, 10 ** 5))
    assert not r.bracketed and r.epsilon is None


def test_calibrate_sigma_is_minimal_on_the_grid():
    from verifier.deploy.epsilon import calibrate_sigma_eps
    res = F(1, 20)
    r = calibrate_sigma_eps(F(2), F(1, 10 ** 5), 100, 10, res)
    assert r.status == "certified"
    d = F(1, 10 ** 5)
    # checked on the composed laws directly (not through the search's predicate)
    up = PR.directions(PR.engine(r.value, 100, 10, float(d)), F(2))
    assert max(up[0].upper, up[1].upper) <= d
    low = PR.directions(PR.engine(r.value - res, 100, 10, float(d)), F(2))
    assert max(low[0].lower, low[1].lower) > d


def test_calibrate_epochs_is_maximal():
    from verifier.deploy.epsilon import calibrate_epochs_eps
    r = calibrate_epochs_eps(F(1), F(1, 10 ** 5), F(1), 1000)
    assert r.status == "certified"
    E = r.value
    assert PR.meets(F(1), 1000, E, F(1), F(1, 10 ** 5), 1000)[0] is Tri.HOLDS
    assert PR.meets(F(1), 1000, E + 1, F(1), F(1, 10 ** 5), 1000)[0] is Tri.FAILS


def test_get_noise_multiplier_api():
    """Opacus's signature and meanings: keyword arguments, sample_rate = 1/M, EITHER epochs
    OR total steps, epsilon_tolerance a tolerance on epsilon; a float back (the exact decimal
    it prints as is certified), numpy scalars in, a one-line ValueError when no sigma is
    certified, InputError on bad input."""
    import pickle
    import numpy as np
    import verifier
    from verifier.api.profile import NoCertifiedSigma, NoiseMultiplier
    s = verifier.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01,
                                      epochs=10, epsilon_tolerance=0.05)
    assert isinstance(s, NoiseMultiplier) and isinstance(s, float)
    assert F(repr(s)) == s.sigma and s.calibration.status == "certified"
    assert s.calibration.delta == F(1, 10 ** 5) and s.calibration.target_epsilon == 2
    # certified: epsilon(1e-5) <= 2 at the answer, and > 2 - 0.05 (the tolerance)
    assert s.calibration.at.upper <= F(1, 10 ** 5) < s.calibration.within.lower
    r = verifier.epsilon(s, 100, 10, delta=1e-5)            # the float read back exactly
    assert F("1.95") < r.epsilon.lower and r.epsilon.upper <= 2
    # the same answer from numpy scalars, steps_per_epoch and total steps
    t = verifier.get_noise_multiplier(target_epsilon=np.float64(2.0), target_delta=np.float32(1e-5),
                                      steps_per_epoch=100, steps=1000, epsilon_tolerance=0.05)
    assert t == s and pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(s)).calibration.status == "certified"
    with pytest.raises(NoCertifiedSigma) as err:       # epsilon = 0 needs infinite noise
        verifier.get_noise_multiplier(target_epsilon=0, target_delta=1e-5, sample_rate=0.05,
                                      epochs=1)
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
    assert "epsilon <= 0" in str(err.value) and err.value.calibration.status == "infeasible"
    for bad in (float("nan"), float("inf"), -1.0, "x"):
        with pytest.raises(verifier.InputError):
            verifier.get_noise_multiplier(target_epsilon=bad, target_delta=1e-5,
                                          sample_rate=0.01, epochs=1)
    for kw in ({"target_delta": 1.5}, {"epochs": 1, "steps": 100}, {"epochs": None},
               {"sample_rate": 0.3}, {"accountant": "prv"}, {"eps_error": 0.1},
               {"epsilon_tolerance": 0}, {"steps_per_epoch": 50}):
        args = dict(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, epochs=1)
        args.update(kw)
        with pytest.raises(verifier.InputError):
            verifier.get_noise_multiplier(**args)


def test_short_decimal_between():
    from verifier.deploy.epsilon import short_decimal_between as sd
    assert sd(F(9, 10), F(1)) == F("0.95") and sd(F("0.91"), F("0.96")) == F("0.94")
    assert sd(F(1), F(2)) == F("1.5") and sd(F(12), F(31)) == F(20)
    for lo, hi in ((F(1, 3), F(1, 3) + F(1, 10 ** 12)), (F("0.3"), F("0.30000001"))):
        x = sd(lo, hi)
        assert lo < x < hi and F(repr(float(x))) == x


# ---------------------------------------------------------------- the engine's pieces
def test_spread_log_moves_in_the_stated_direction():
    with ctx.workprec(128):
        eta_inv = arb(1000)
        for x in (arb("0.123456789"), arb(-2) / 7, arb(0)):
            for up in (True, False):
                k, th = SP.spread_log(x, eta_inv, up)
                m = k + th                      # the spread's mean, in grid units
                assert 0 <= th.mid() <= 1 or th == 0
                if up:
                    assert m >= x * eta_inv
                else:
                    assert m <= x * eta_inv


def test_geometric_and_collapse_contracts():
    with ctx.workprec(128):
        pts = {100: arb(1) / 4, 137: arb(1) / 4, 250: arb(1) / 2}
        g = SP.geometric(pts, 100, 1 + 1 / 16)
        tot = sum(g.values(), arb(0))
        mean = sum((k * v for k, v in g.items()), arb(0))
        assert abs(float(tot.mid()) - 1) < 1e-30
        assert abs(float(mean.mid()) - (100 / 4 + 137 / 4 + 250 / 2)) < 1e-20
        law = {0: arb(1), 5: arb(2), 10: arb(3)}
        up = SP.collapse(law, 3, 7, True)
        down = SP.collapse(law, 3, 7, False)
        assert set(up) == {3, 5, 10} and set(down) == {0, 5, 7}


def test_composed_window_bounds_the_aliased_mass():
    """_power2 with a small window (large target), the two laws packed in one DFT: every
    windowed mass >= the true mass at its index, and P_out >= the true mass outside the
    window (the true law from a window that holds the whole support), for each law."""
    P = PR.engine(F(2), 10, 1, 1e-13)
    from verifier.bounds.exact_tv.epochs import _grid_law_power
    subs = [P.laws.test0, P.laws.test1]
    with ctx.workprec(200):
        got = NC.compose_laws(subs, 20, "test", 1e-2)
        for sub, (s_al, al, o_al) in zip(subs, got):
            kmin, true = _grid_law_power(sub, 20)          # the whole support, no aliasing
            s_true = 20 * kmin
            assert len(al) < len(true) and o_al > 0
            outside = arb(0)
            for i, v in enumerate(true):
                j = s_true + i - s_al
                if 0 <= j < len(al):
                    assert al[j].upper() >= v.lower()
                else:
                    outside += v
            assert o_al.upper() >= outside.lower()


def _mass_mean(d: dict, unit=1):
    tot = sum(d.values(), arb(0))
    return tot, sum((k * unit * v for k, v in d.items()), arb(0))


def test_lattice_spreads_keep_mass_and_mean():
    """_onto_lattice and _coarse (step (a) onto a coarser lattice): the mass and the mean are
    kept exactly (to the balls' radii), every point lands on a multiple, the coarser blocks
    from the finer ones agree with a direct spread."""
    with ctx.workprec(128):
        vals = {F(7): arb(1) / 4, F(23, 2): arb(1) / 4, F(40): arb(1) / 2}
        out = SP.onto_lattice(vals, 6)
        tot, mean = _mass_mean(out, 6)
        assert abs(float((tot - 1).mid())) < 1e-30
        assert abs(float(mean.mid()) - (7 / 4 + 23 / 8 + 20)) < 1e-12
        assert all(isinstance(k, int) for k in out)
        law = SP.Window([arb(k + 1) / 100 for k in range(37)], 13)
        fine, coarse = SP.coarse(law, 3, 12)
        direct = SP.onto_lattice({F(13 + i): v for i, v in enumerate(law.c)}, 12)
        for g, out in ((3, fine), (12, coarse)):
            tot, mean = _mass_mean(out, g)
            assert abs(float((tot - sum(law.c, arb(0))).mid())) < 1e-25
            want = sum(((13 + i) * v for i, v in enumerate(law.c)), arb(0))
            assert abs(float((mean - want).mid())) < 1e-22
        assert set(coarse) == set(direct)
        for k in coarse:
            assert abs(float((coarse[k] - direct[k]).mid())) < 1e-25


def test_convolve_is_the_convolution():
    """_convolve (one ball polynomial product) against the direct double sum."""
    with ctx.workprec(128):
        a = {2: arb(1) / 3, 3: arb(1) / 6, 5: arb(1) / 2}
        b = {0: arb(1) / 5, 1: arb(2) / 5, 7: arb(2) / 5}
        got = SP.convolve(a, 4, b)
        want: dict = {}
        for j, u in a.items():
            for k, v in b.items():
                want[4 * j + k] = want.get(4 * j + k, arb(0)) + u * v
        assert set(got) == set(want)
        for k in want:
            assert abs(float((got[k] - want[k]).mid())) < 1e-30


def test_union_charges_are_present():
    """Both directions charge what their laws leave out: certified positive (a dropped
    charge would be 0), and small against the budget they are sized for."""
    for M in (1, 100):
        L = PR.engine(F(2), M, 1, 1e-2).laws
        assert L.charge_R > 0 and L.charge_A > 0, (M, L.charge_R, L.charge_A)
        assert L.charge_R < 1e-4 and L.charge_A < 1e-4


# ---------------------------------------------------------------- command line
from conftest import cli_process as _run  # noqa: E402 (the shared subprocess runner)


def test_cli_epsilon_json_shape():
    import json
    p = _run("epsilon", "--sigma", "2", "--steps", "10", "--epochs", "10", "--delta", "1e-6",
             "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert set(j["epsilon"]) == {"lower", "upper"}
    assert set(j["directions"]) == {"remove", "add"}
    assert set(j["directions"]["remove"]["epsilon"]) == {"lower", "upper"}
    # dp_accounting's upper bound 2.4265 (tolerance 1e-3) is consistent with our bracket
    assert F(j["epsilon"]["lower"]) <= F("2.4265") * F("1.001")


def test_cli_delta_json_shape():
    import json
    p = _run("delta", "--sigma", "2", "--steps", "1", "--epsilon", "1", "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert set(j["delta"]) == {"lower", "upper"}
    ref = gaussian_delta(F(1), F(2), 1)
    assert _contains(Interval(F(j["delta"]["lower"]), F(j["delta"]["upper"])), ref)


@pytest.mark.parametrize("args,needle", [
    (["epsilon", "--sigma", "0.1", "--steps", "10", "--delta", "1e-5"], "sigma = 0.1"),
    (["epsilon", "--sigma", "1", "--steps", "10", "--delta", "0.9"], "delta = 0.9"),
    (["epsilon", "--sigma", "1", "--steps", "10", "--delta", "1e-13"], "delta"),
    (["epsilon", "--sigma", "1", "--steps", "0", "--delta", "1e-5"], "steps"),
    (["epsilon", "--sigma", "1", "--steps", "10", "--epochs", "2000", "--delta", "1e-5"], "2000"),
    (["epsilon", "--sigma", "nan", "--steps", "10", "--delta", "1e-5"], "sigma"),
    (["delta", "--sigma", "1", "--steps", "10", "--epsilon", "-61"], "epsilon = -61 is outside"),
    (["delta", "--sigma", "1", "--steps", "10", "--epsilon", "61"], "epsilon = 61"),
    (["delta", "--sigma", "1", "--steps", "2e7", "--epsilon", "1"], "steps"),
])
def test_cli_bad_input_is_one_line_exit_2(args, needle):
    p = _run(*args)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    err = p.stderr.strip()
    assert err.count("\n") == 0 and "Traceback" not in err and needle in err


def test_large_sigma_small_m_many_epochs_is_bracketed():
    """sigma = 50, M = 2, E = 1000, delta = 1e-12: the label windows' Chernoff bounds must not
    collapse to the trivial 1 (a lattice mass that underflows in floats once made the float
    choice of theta useless; the Arb re-try keeps the best theta)."""
    r = PR.epsilon_bracket(F(50), 2, 1000, F(1, 10 ** 12))
    assert r.bracketed and r.epsilon.lower > 0
    assert (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower <= F(5, 1000)


# ---------------------------------------------------------------- free parameters of the search
@pytest.mark.parametrize("sigma,M,E,delta", [("1", 100, 10, "1e-5"), ("0.5", 1000, 10, "1e-10"),
                                             ("2", 10, 100, "1e-3")])
def test_cap_guess_is_from_above_and_caps_agree(sigma, M, E, delta):
    """The eps guess (a classical Renyi conversion of the exact moments) is an upper end of
    epsilon (it only picks the windows' cap, but it must not send a search to a cap too
    small); and the bracket found with the widest cap overlaps the automatic one."""
    s, d = F(sigma), F(delta)
    r = PR.epsilon_bracket(s, M, E, d)
    assert r.bracketed
    g = PR.guess_epsilon(s, M, E, float(d))
    assert g >= float(r.epsilon.lower)
    P = PR.engine(s, M, E, float(d), eps_cap=61)
    lo, hi = epsilon_direction(P, "remove", d)
    assert max(lo, r.remove.lower) <= min(hi, r.remove.upper)


def test_add_moment_bound_is_above_the_truth():
    """The add direction's moment bound (C_theta e^{-theta eps + E theta (theta/M + 1) u/2}):
    above the Gaussian mechanism's closed form at M = 1 and above the certified lower end of
    the lattice engine at sigma = 0.5, M = 10 (where it decides the add direction)."""
    for sigma, E, e in (("2", 1, "3"), ("1", 10, "12"), ("0.5", 1, "9")):
        b = C.add_moment_bound(F(sigma), 1, E, F(e))
        ref = gaussian_delta(F(e), F(sigma), E)
        with mp.workdps(60):
            assert mp.mpf(b.upper().mid().str(40, radius=False)) >= ref, (sigma, E, e, b, ref)
    P = PR.engine(F(1, 2), 10, 1, 1e-13)
    for e in ("3", "5", "8"):
        assert C.add_moment_bound(F(1, 2), 10, 1, F(e)).upper() >= P._lower_add(F(e)).lower()


def test_small_sigma_small_m_is_bracketed():
    """sigma = 0.5, M = 5 and (over ten epochs) M = 10, sigma = 0.6, M = 2: the plain spread
    puts the first cell's mass at W = 0 with probability ~ 0.5^M per epoch; split on the first
    cell, the add direction's upper end lies below the remove direction's lower end, and
    epsilon is bracketed within 0.5% (widths 10% to 33% before the split)."""
    for sigma, M, E, delta, rel in (("0.5", 5, 1, "1e-5", F(1, 1000)),
                                    ("0.5", 10, 10, "1e-5", F(1, 200)),
                                    ("0.5", 10, 10, "1e-3", F(1, 200)),
                                    ("0.6", 2, 10, "1e-3", F(1, 200))):
        r = PR.epsilon_bracket(F(sigma), M, E, F(delta))
        assert r.bracketed and r.larger == "remove", (sigma, M, E, delta)
        assert (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower < rel, (sigma, M, E, r.epsilon)


def _delta_m2(which: str, sigma: F, eps: F):
    """delta_R(eps) = E_P0[((Y1 + Y2)/2 - c)_+] or delta_A(eps) = E_P0[(1 - c (Y1 + Y2)/2)_+]
    at M = 2, E = 1, c = e^eps, at 50 digits: the integral over X2 in closed form (Y2 < t iff
    X2 < b = sigma (ln t + u/2); E[Y 1{X < b}] = Phi(b - 1/sigma)), the one over X1 by mpmath
    quadrature, split where the inner integrand changes form."""
    with mp.workdps(50):
        s = _mp(sigma)
        u, c = 1 / s ** 2, mp.e ** _mp(eps)

        def inner(x1):
            y1 = mp.e ** (x1 / s - u / 2)
            if which == "remove":                     # E[(Y2 - t)_+] / 2, t = 2c - y1
                t = 2 * c - y1
                if t <= 0:
                    return ((y1 + 1) / 2 - c) * mp.npdf(x1)
                b = s * (mp.log(t) + u / 2)
                return (mp.ncdf(1 / s - b) - t * mp.ncdf(-b)) / 2 * mp.npdf(x1)
            t = 2 / c - y1                            # add: Y2 < t
            if t <= 0:
                return mp.mpf(0)
            b = s * (mp.log(t) + u / 2)
            return ((1 - c * y1 / 2) * mp.ncdf(b) - c / 2 * mp.ncdf(b - 1 / s)) * mp.npdf(x1)
        if which == "remove":
            xc = s * (mp.log(2 * c) + u / 2)          # Y1 = 2c
            cuts = [-mp.inf, 0, xc - 2, xc - 1, xc, xc + 1, xc + 8, mp.inf]
        else:
            xc = s * (mp.log(2 / c) + u / 2)          # Y1 = 2/c
            cuts = [-mp.inf, xc - 8, xc - 2, xc]
        return mp.quad(inner, cuts)


@pytest.mark.parametrize("which,sigma,eps,slack", [
    ("add", "0.5", "2", "1.01"), ("add", "0.5", "4", "1.01"), ("add", "0.5", "6", "1.01"),
    ("add", "0.6", "3", "1.01"),
    ("remove", "4", "1.1", "1.05"), ("remove", "2", "2.2", "1.05"), ("remove", "1", "3", "1.05")])
def test_m2_against_quadrature(which, sigma, eps, slack):
    """M = 2, E = 1: each direction's bracket contains the 50-digit quadrature, and its upper
    end is within 1% (add) or 5% (remove) of it, the add lower end too (the tests' outcome
    "all items in the first cell" refined by fine labels; it was 0 before).  Add at eps = 6: delta_A = 3.1e-4 lives where
    both items are below 0.005, inside the first lattice cell (the first-cell levels carry it).
    Remove at delta_R about 1e-11 (light tails: W is large only through the tail items): the
    K = 2 part on B_0 = 0, not on one body item more than there is (200 times the truth at
    sigma = 4), the coarse body law kept by its tails' mass, not by 12 sd."""
    P = PR.engine(F(sigma), 2, 1, 1e-13)
    rem, add = PR.directions(P, F(eps))
    got = rem if which == "remove" else add
    ref = _delta_m2(which, F(sigma), F(eps))
    assert _contains(got, ref), (got, ref)
    with mp.workdps(50):
        assert _mp(got.upper) <= ref * mp.mpf(slack), (got, ref)
        if which == "add":      # the first cell's fine labels in the test: lower end too
            assert _mp(got.lower) >= ref / mp.mpf(slack), (got, ref)


def test_small_light_m_refines_its_pairs_of_tail_items():
    """sigma 4, M 2, E 1, delta 1e-10 (light tails, small M: W is large only through the tail
    items, and delta(1.0608) lives where both are in the tail): at refinement level 16 the
    remove bracket contains the 50-digit quadrature, its lower end within 3e-4 below and its
    upper end within 6e-5 above (relative; 1.4e-4 and 2.9e-5).  Before: the K = 2 test
    outcomes as pairs of merged tail cells put the lower end 3.7e-3 below (and it stopped
    narrowing there); the pair sums' law from merged cells put the upper end 1.0e-4 above,
    and with their geometric grid fixed at 1/256, 6.0e-4."""
    P = PR.engine(F(4), 2, 1, 1e-10, eps_cap=2.1, fine=16)
    rem, _ = PR.directions(P, F("1.0608"))
    ref = _delta_m2("remove", F(4), F("1.0608"))
    assert _contains(rem, ref), (rem, ref)
    with mp.workdps(50):
        assert _mp(rem.upper) <= ref * mp.mpf("1.00006"), (rem, ref)
        assert _mp(rem.lower) >= ref * mp.mpf("0.9997"), (rem, ref)


def test_long_tails_at_small_m_form_their_pairs_one_by_one():
    """sigma 1, M 2, E 1, delta 1e-10 (the tail reaches 230 times the body threshold): at
    refinement level 4 the pairs of tail items are formed one by one over merged cells (a
    ball polynomial product 771337 long cost 7 of the level's 8 s for the same brackets to 9
    digits), sigma 4's short tail still by products (plan.pairs_by_product, by cost); the
    remove bracket of delta(5.856) contains the 50-digit quadrature, at most 1.2e-3 wide
    (relative; 1.1e-3: epsilon's 3e-5)."""
    from verifier.bounds.profile.plan import plan, pairs_by_product
    assert not pairs_by_product(plan(F(1), 2, 1, 1e-10, 4))
    assert pairs_by_product(plan(F(4), 2, 1, 1e-10, 4))
    assert pairs_by_product(plan(F(4), 2, 1, 1e-10, 32))
    P = PR.engine(F(1), 2, 1, 1e-10, eps_cap=6.9, fine=4)
    rem, _ = PR.directions(P, F("5.856"))
    ref = _delta_m2("remove", F(1), F("5.856"))
    assert _contains(rem, ref), (rem, ref)
    assert rem.upper - rem.lower <= F(12, 10 ** 4) * rem.lower, rem


# delta_R(2.8) at sigma 0.5, M 1000, E 10: the refinement level 32 bracket (certified by the
# same engine with every free parameter 32 times finer, rounded outward; 3.3e-6 wide)
HEAVY_M1000_L32 = (F("9.9726514e-4"), F("9.9726847e-4"))


def test_heavy_tails_refine_their_tail_mass_and_cells():
    """sigma 0.5, M 1000, E 10, refinement level 4: the remove bracket of delta(2.8) is at most
    2e-4 wide (relative; 1.55e-4) and meets level 32's.  With the heavy tails' tail mass fixed
    at the default 1e-2 it was 3.2e-4 wide, with their body cells' doubling rule fixed 2.5e-4
    (and both stopped narrowing near 1.5e-4 at levels 16-24: the tests of K >= 2 tail items,
    the cells' spread)."""
    P = PR.engine(F("0.5"), 1000, 10, 1e-3, eps_cap=3.8, fine=4)
    rem, _ = PR.directions(P, F("2.8"))
    assert rem.upper - rem.lower <= F(2, 10 ** 4) * rem.lower, rem
    lo, hi = HEAVY_M1000_L32
    assert rem.lower <= hi and lo <= rem.upper, rem


def test_refined_log_grid_follows_the_epochs():
    """sigma 2, M 10, E 100, refinement level 4: both brackets of delta(5) at most 2.4e-4 wide
    (relative; 1.9e-4 and 2.3e-4) and meeting level 16's (rounded outward).  The grid of
    log W is refined as fine isqrt(fine) (plan.grid_refinement): each epoch is spread onto it
    before the 100-fold composition; refined as fine alone they were 3.1e-4 and 3.5e-4."""
    P = PR.engine(F(2), 10, 100, 1e-6, eps_cap=6, fine=4)
    rem, add = PR.directions(P, F(5))
    refs = {"remove": (F("6.034952e-3"), F("6.035009e-3")),
            "add": (F("5.797646e-3"), F("5.797713e-3"))}
    for iv, (lo, hi) in ((rem, refs["remove"]), (add, refs["add"])):
        assert iv.upper - iv.lower <= F(24, 10 ** 5) * iv.lower, iv
        assert iv.lower <= hi and lo <= iv.upper, iv


def test_heavy_tails_tests_reach_the_whole_window():
    """sigma = 0.5, M = 2, E = 1, delta_R(6.9) = 9.8e-4 at refinement level 8: the remove
    bracket contains the 50-digit quadrature and its lower end is within 5e-5 relative of it.
    The K = 1 tests used to bucket the other item's label within 12 sd of its mean only (its
    law is skewed far past that at heavy tails): 1.3e-4 low at every level."""
    P = PR.engine(F("0.5"), 2, 1, 1e-3, eps_cap=7.9, fine=8)
    rem, _ = PR.directions(P, F("6.9"))
    ref = _delta_m2("remove", F("0.5"), F("6.9"))
    assert _contains(rem, ref), (rem, ref)
    with mp.workdps(50):
        assert _mp(rem.lower) >= ref * (1 - mp.mpf("5e-5")), (rem, ref)


def test_k2_body_has_enough_items():
    """The K = k parts of the remove law sit on B_n with n >= M - k (B_{M-k} <= B_n: a move
    up); with one body item fewer the upper end at sigma = 4, M = 4, delta_R about 6e-12
    falls below the certified lower end (the tests)."""
    M = 6
    body_k = {2: (M - 2, {0: arb(1)}), 3: (M - 3, {0: arb(1)})}
    for k in range(1, 6):
        n, _ = UP.k_body(k, body_k, (M - 1, {0: arb(1)}))
        assert n >= M - k, (k, n)
    P = PR.engine(F(4), 4, 1, 1e-13)
    for e in ("0.8", "0.9"):
        rem, _ = PR.directions(P, F(e))
        assert rem.lower <= rem.upper <= rem.lower * F(11, 10), (e, rem)


def test_light_tails_small_m_tiny_delta_are_tight():
    """sigma = 2, M = 3 and sigma = 4, M = 2 at delta = 1e-10 (15.6% and 15.5% wide before the
    two mends above): within 0.5%."""
    for sigma, M in (("2", 3), ("4", 2), ("4", 5)):
        r = PR.epsilon_bracket(F(sigma), M, 1, F(1, 10 ** 10))
        assert r.bracketed and (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower < F(1, 200)


@pytest.mark.parametrize("M", [3, 40])
def test_first_cell_levels_account_for_the_mass(M):
    """first_cell_levels at sigma = 0.5, M = 3 and 40 (n = 1024 and 256 lattice points per
    level) on [0, 9/32): the masses plus the charge are
    P(Y < a)^M (50-digit mpmath), the first moment E[W; all Y_j < a] = P(Y < a)^{M-1} E[Y 1{Y < a}]
    is kept up to the last level's charged piece, and every W lies in (0, a]."""
    sigma, a = F(1, 2), F(9, 32)
    with ctx.workprec(256), mp.workdps(60):        # the ends read at the working precision
        pts, charge = FC.first_cell_levels(sigma, M, a, 1e-18)
        top = to_arb(a) * (1 + arb(10) ** -60)
        assert all(w > 0 and w.upper() <= top for w, _ in pts)
        mass = sum((c for _, c in pts), arb(0)) + charge
        first = sum((w * c for w, c in pts), arb(0))
        s = _mp(sigma)
        b = s * (mp.log(_mp(a)) + 1 / (2 * s ** 2))       # Y < a iff X < b
        q, m = mp.ncdf(b), mp.ncdf(b - 1 / s)
        want_mass, want_first = q ** M, q ** (M - 1) * m
        lo = lambda z: mp.mpf(z.lower().str(40, radius=False))   # noqa: E731
        hi = lambda z: mp.mpf(z.upper().str(40, radius=False))   # noqa: E731
        assert lo(mass) <= want_mass * (1 + mp.mpf(10) ** -35)
        assert hi(mass) >= want_mass * (1 - mp.mpf(10) ** -35)
        assert hi(first) <= want_first * (1 + mp.mpf(10) ** -35)
        assert lo(first) >= want_first * (1 - mp.mpf(10) ** -15)


def test_coarse_keep_low_keeps_mass_mean_and_zero():
    """_coarse_keep_low: the points below g stay where they are (nothing new at 0), the rest
    spread onto multiples of g; mass and mean kept."""
    with ctx.workprec(128):
        c = [arb(k + 1) / 100 for k in range(29)]
        out = SP.coarse_keep_low(c, 4)
        assert all(v < 4 or v % 4 == 0 for v in out)
        assert abs(float((out[0] - c[0]).mid())) < 1e-30
        for v in (1, 2, 3):
            assert abs(float((out[v] - c[v]).mid())) < 1e-30
        tot = sum(out.values(), arb(0))
        mean = sum((v * x for v, x in out.items()), arb(0))
        assert abs(float((tot - sum(c, arb(0))).mid())) < 1e-25
        assert abs(float((mean - sum((i * x for i, x in enumerate(c)), arb(0))).mid())) < 1e-25


def test_heavy_tail_charges_stay_near_the_budget():
    """sigma = 0.3, M = 10, delta = 1e-5: the body window's excess for the tail items is
    charged through E[tail item] (tau), not through t_max (about 1e11 here: a charge of 6e-4
    that left the run inconclusive); epsilon is bracketed."""
    L = PR.engine(F(3, 10), 10, 1, 1e-5).laws
    assert L.charge_R < 1e-8
    r = PR.epsilon_bracket(F(3, 10), 10, 1, F(1, 10 ** 5))
    assert r.bracketed and (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower < F(1, 1000)
    # M = 1000: the first-cell split at large M (16 points per level), within 0.1%
    r = PR.epsilon_bracket(F(3, 10), 1000, 1, F(1, 10 ** 3))
    assert r.bracketed and (r.epsilon.upper - r.epsilon.lower) / r.epsilon.lower < F(1, 1000)
