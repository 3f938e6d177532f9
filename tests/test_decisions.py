"""Every decision behind a certified statement, checked against independent references
(a review): box tests, the sigma-range proofs, grid and continuum statements of the sigma
calibration, the exact calibration's invariant, the two readings of condition (2), the
meaning of --delta, the Chernoff tail charge, the free parameters of the exact-TV engine,
outward rounding.  The mutation suite (tests/mutations.py) names these tests as the checks
that must fail when a decision is broken."""
import json
import math
import random
from fractions import Fraction as F
from functools import lru_cache

import mpmath as mp
from flint import arb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as R
from verifier import deploy as Dp
from verifier.bounds import REGISTRY
from verifier.deploy import sigma as Ds
from verifier.bounds import theorem31 as T
from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import Interval, InputError
from verifier.cli import main
M6, TAU = 10**6, F(1, 100)
TARGET = Dp.Target.make(delta=TAU)


def ref_margin(bound: str, sigma: F, M: int, E: int, tau: F):
    """The smallest margin of the bound's feasibility at sigma (>= 0: feasible), at 60 digits,
    typed from docs/THEORY.md (sections 3, 5, 7), sharing no code with the verifier:
    hypotheses, condition (2) at delta = delta_rhs, and delta_E = 1 - (1 - delta_rhs)^E <= tau."""
    # at huge M the margin of the smallest feasible M is ~ value / M: carry 2 log10(M) more digits
    with mp.workdps(R.DPS + 2 * len(str(M))):
        s, t = R.mpq(sigma), R.mpq(tau)
        v = R.s2(s)
        if bound == "chi-square":   # expm1/log1p: (1 + v/M)^E - 1 without cancellation
            return t - min(mp.mpf(1), mp.sqrt(mp.expm1(E * mp.log1p(v / M))) / 2)
        c = R.coef_of(s, "simplified" if bound == "theorem31-simplified" else "rho3")
        Mm = mp.mpf(M)
        d = mp.fsum(R.terms(Mm, s, c))
        eps = R.B() * c * mp.sqrt(v / (Mm - 1))
        # Phi(-v/2) < e^{-10^11} when v > 10^6: below every margin that matters here
        g3 = mp.mpf(1) / 2 - eps - d - (R.Phi(-v / 2) if v < 10**6 else 0)
        g2 = s**2 * mp.log(Mm) - 3
        dE = 1 - (1 - d) ** E if d < 1 else mp.mpf(1)
        return min(t - dE, g2, g3, mp.mpf(M - 3))


def ref_hypotheses(bound: str, sigma: F, M: int):
    """Reference margins of the three hypotheses (condition (2) at delta = delta_rhs)."""
    with mp.workdps(R.DPS):
        s = R.mpq(sigma)
        v = R.s2(s)
        c = R.coef_of(s, "simplified" if bound == "theorem31-simplified" else "rho3")
        Mm = mp.mpf(M)
        d = mp.fsum(R.terms(Mm, s, c))
        eps = R.B() * c * mp.sqrt(v / (Mm - 1))
        return {"steps_at_least_3": mp.mpf(M - 3), "sigma_at_least_sqrt_3_over_ln_M": s**2 * mp.log(Mm) - 3,
                "validity_condition_2": mp.mpf(1) / 2 - eps - d - R.Phi(-v / 2)}


HYP_POINTS = [(F(1), 10**6), (F(3, 10), 1000), (F(46, 100), 10**6), (F(5), 1000), (F(20), 10**6),
              (F(1), 2), (F(2), 3), (F(12, 10), 10**4), (F(9), 10**6), (F(3, 2), 10**9)]


@pytest.mark.parametrize("bound", ["theorem31-rho3", "theorem31-simplified"])
def test_hypothesis_verdicts_agree_with_the_reference(bound):
    """Each hypothesis verdict (both code paths: deploy.evaluate and theorem31.bound) has the
    sign of the 60-digit reference margin; each kind of verdict occurs."""
    seen = set()
    for sigma, M in HYP_POINTS:
        ref = ref_hypotheses(bound, sigma, M)
        ev = Dp.evaluate(bound, sigma, M, 1, Dp.Target.make(delta=F(1, 2)))
        checks = list(ev.hypotheses)
        if M >= 3:
            checks += list(T.bound(sigma, M, "simplified" if bound == "theorem31-simplified"
                                   else "rho3").hypotheses)
        for h in checks:
            m = ref[h.name]
            want = "holds" if m >= 0 else "fails"
            assert h.verdict.value == want, (bound, sigma, M, h.name, h.verdict, m)
            seen.add((h.name, want))
    assert len(seen) == 6, seen


def _points(a: F, b: F, rng, n=5):
    pts = [a, b, (a + b) / 2]
    for _ in range(n):
        pts.append(a + (b - a) * F(rng.randrange(1, 10**6), 10**6))
    return pts


# --- box tests of the branch and bound ------------------------------------------------------
BOXES = [(F(3, 10), F(46, 100)), (F(45, 100), F(6, 10)), (F(6, 10), F(8, 10)), (F(8, 10), F(86, 100)),
         (F(85, 100), F(9, 10)), (F(86, 100), F(87, 100)), (F(87, 100), F(88, 100)), (F(1), F(2)),
         (F(2), F(9)), (F(9), F(92, 10)), (F(921, 100), F(922, 100)), (F(92, 10), F(95, 10)),
         (F(10), F(20)), (F(100), F(500)), (F(1), F(1) + F(1, 10**6))]


@pytest.mark.parametrize("bound", ["theorem31-rho3", "theorem31-simplified"])
def test_box_tests_agree_with_the_reference(bound):
    rng = random.Random(11)
    decided = {"fails": 0, "holds": 0}
    for a, b in BOXES:
        fails = Ds._box_fails(bound, M6, 1, TARGET, a, b)
        holds = Ds._box_holds(bound, M6, 1, TARGET, a, b)
        assert not (fails and holds), (a, b)
        for x in _points(a, b, rng):
            m = ref_margin(bound, x, M6, 1, TAU)
            if fails:
                assert m < 0, (bound, a, b, x, m)
                decided["fails"] += 1
            if holds:
                assert m >= 0, (bound, a, b, x, m)
                decided["holds"] += 1
    # boxes straddling the feasible range's ends are neither (each a real decision)
    for a, b in [(F(85, 100), F(9, 10)), (F(9), F(95, 10))]:
        if bound == "theorem31-rho3":
            assert not Ds._box_fails(bound, M6, 1, TARGET, a, b)
            assert not Ds._box_holds(bound, M6, 1, TARGET, a, b)
    assert decided["fails"] > 0
    assert decided["holds"] > 0 or bound == "theorem31-simplified"


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(lo=st.integers(30, 1200), width=st.integers(1, 400), seed=st.integers(0, 10**6),
       bound=st.sampled_from(["theorem31-rho3", "theorem31-simplified"]))
def test_property_box_verdicts_agree_with_the_reference(lo, width, seed, bound):
    """Whenever a box test says fails/holds on [a, b], random exact sigmas in the box agree
    with the 60-digit reference."""
    a, b = F(lo, 100), F(lo + width, 100)
    rng = random.Random(seed)
    fails = Ds._box_fails(bound, M6, 1, TARGET, a, b)
    holds = Ds._box_holds(bound, M6, 1, TARGET, a, b)
    if fails or holds:
        for x in _points(a, b, rng, 3):
            m = ref_margin(bound, x, M6, 1, TAU)
            assert (m < 0) if fails else (m >= 0), (a, b, x)


@pytest.mark.parametrize("M", [3, 100, M6, 10**12])
def test_sigma_range_ends_are_proofs(M):
    """Every sigma < L fails hypothesis 2 and every sigma >= U fails condition (2) at
    delta_rhs (checked at the ends themselves, where the margin is smallest)."""
    L, U = REGISTRY["theorem31-rho3"].sigma_range(M)
    with mp.workdps(R.DPS):
        assert R.mpq(L) ** 2 * mp.log(M) - 3 <= 0
    for bound in ("theorem31-rho3", "theorem31-simplified"):
        for x in (U, U * 2, U * 10):
            assert ref_margin(bound, x, M, 1, F(1, 2)) < 0, (bound, M, x)


# --- the sigma calibration: grid and continuum statements (finding 1) -----------------------
def test_coarse_grid_does_not_claim_the_continuum():
    r = Dp.calibrate_sigma(M6, 1, TARGET, "theorem31-rho3", F(10))
    assert r.status == "infeasible"
    assert "no grid sigma" in r.message and "every sigma > 0" not in r.message
    w = F(r.message.split("sigma = ")[1].split(" ")[0])
    assert ref_margin("theorem31-rho3", w, M6, 1, TAU) >= 0          # the witness is feasible
    assert Dp.evaluate("theorem31-rho3", F(1), M6, 1, TARGET).verdict.value == "holds"


def test_first_grid_point_does_not_claim_below_it():
    r = Dp.calibrate_sigma(M6, 1, TARGET, "theorem31-rho3", F(5))
    assert r.status == "certified" and r.sigma == 5
    assert "every sigma outside" not in r.branch
    assert "not proved infeasible" in r.branch


def test_continuum_statements_hold_at_random_points():
    r = Dp.calibrate_sigma(M6, 1, TARGET, "theorem31-rho3", F(1, 100))
    assert (r.status, r.sigma, r.sigma_max) == ("certified", F(87, 100), F(921, 100))
    assert "every sigma in (0, 0.86] certified infeasible" in r.branch
    assert "every sigma >= 9.22 certified infeasible" in r.branch
    rng = random.Random(5)
    for x in [F(5, 100), F(3, 10), F(86, 100)] + [F(rng.randrange(5000, 86000), 10**5) for _ in range(8)]:
        assert ref_margin("theorem31-rho3", x, M6, 1, TAU) < 0, x
    for x in [F(922, 100), F(20), F(600)] + [F(rng.randrange(922, 60000), 100) for _ in range(8)]:
        assert ref_margin("theorem31-rho3", x, M6, 1, TAU) < 0, x
    assert ref_margin("theorem31-rho3", F(87, 100), M6, 1, TAU) >= 0
    assert ref_margin("theorem31-rho3", F(921, 100), M6, 1, TAU) >= 0


def test_simplified_infeasible_everywhere_is_a_continuum_proof():
    r = Dp.calibrate_sigma(M6, 1, TARGET, "theorem31-simplified", F(1, 100))
    assert r.status == "infeasible" and "every sigma > 0 certified infeasible" in r.message
    rng = random.Random(7)
    for x in [F(rng.randrange(50, 10**6), 10**3) for _ in range(12)]:
        assert ref_margin("theorem31-simplified", x, M6, 1, TAU) < 0, x


# --- the exact calibration keeps its invariant (finding 2) ---------------------------------
class _FakeEngine:
    """A monotone fake TV(sigma) = 1/(1 + 10 sigma) with brackets of relative width 1e-3,
    refusing sigma < floor: tests the search logic of calibrate_sigma_exact alone."""

    def __init__(self, floor=F(1, 10), straddle=None):
        self.floor, self.straddle = floor, straddle

    def __call__(self, sigma, M, E=1, prec=None):
        if sigma < self.floor:
            raise InputError(f"sigma {sigma} below the engine's range")
        v = 1 / (1 + 10 * sigma)
        if self.straddle is not None and sigma == self.straddle[0]:
            t = self.straddle[1]
            lo, hi = t - F(1, 10**6), t + F(1, 10**6)
        else:
            lo, hi = v * (1 - F(1, 2000)), v * (1 + F(1, 2000))
        return type("R", (), {"tv": Interval(lo, hi)})()


def _exact_cal(monkeypatch, engine, tau):
    import verifier.bounds.exact_tv.bracket as X
    monkeypatch.setattr(X, "exact_tv", engine)
    chi = Dp.SigmaCalibration("chi-square", "certified", F(2), F(1, 100), None, None)
    return Dp.calibrate_sigma_exact(100, 1, Dp.Target.make(delta=tau), F(1, 100), chi=chi)


def test_exact_calibration_certifies_with_a_failing_lower_end(monkeypatch):
    r = _exact_cal(monkeypatch, _FakeEngine(), F(21, 100))     # TV <= 0.21 iff sigma >= 0.376
    assert r.status == "certified" and r.sigma == F(38, 100), r
    assert "0.37 certified infeasible" in r.branch
    r = _exact_cal(monkeypatch, _FakeEngine(), F(17, 100))     # iff sigma >= 0.488
    assert r.status == "certified" and r.sigma == F(49, 100), r
    # the boundary on a grid point: the bracket straddles there, never taken as a failure
    r = _exact_cal(monkeypatch, _FakeEngine(), F(1, 5))        # iff sigma >= 0.4
    assert r.status == "inconclusive" and "straddles" in r.message


def test_exact_calibration_refusal_below_is_inconclusive(monkeypatch):
    # TV <= 1/2 iff sigma >= 0.1: the engine refuses 0.09, so 0.1 is not certified minimal
    r = _exact_cal(monkeypatch, _FakeEngine(floor=F(1, 10)), F(1, 2) + F(1, 10**3))
    assert r.status == "inconclusive" and r.sigma is None, r
    assert "engine's range" in r.message


def test_exact_calibration_straddle_is_inconclusive(monkeypatch):
    tau = F(1, 5)
    r = _exact_cal(monkeypatch, _FakeEngine(straddle=(F(39, 100), tau)), tau)
    assert r.status == "inconclusive" and "straddles" in r.message


def test_inconclusive_exact_keeps_the_bounds_answer(monkeypatch, capsys):
    import verifier.bounds.exact_tv.bracket as X
    monkeypatch.setattr(X, "exact_tv", _FakeEngine(floor=F(10**6)))     # refuses everything
    rc = main(["calibrate", "sigma", "--steps", "1000000", "--delta", "0.01", "--bound", "exact"])
    out = capsys.readouterr().out
    assert rc == 0 and "result: sigma = 0.41" in out and "inconclusive" in out


# --- two readings of condition (2), one answer per question (finding 10) -------------------
@pytest.mark.parametrize("sigma,delta", [(F(5), F(1, 100)), (F(9, 2), F(1, 100)), (F(1), F(1, 100)),
                                         (F(2), F(1, 1000))])
def test_steps_and_calibrate_steps_agree(sigma, delta):
    c = TS.steps_exact(sigma, delta, "simplified", reading="theorem")
    k = Dp.calibrate_steps(sigma, 1, Dp.Target.make(delta=delta), "theorem31-simplified")
    assert c.status == k.status == "certified" and c.m_exact == k.steps
    m = c.m_exact
    assert ref_margin("theorem31-simplified", sigma, m, 1, delta) >= 0
    assert ref_margin("theorem31-simplified", sigma, m - 1, 1, delta) < 0
    t = TS.steps_exact(sigma, delta, "simplified", reading="table1")
    assert t.status == "infeasible" or t.m_exact >= m


def test_steps_sigma_5_certifies_through_the_theorems_reading(capsys):
    rc = main(["steps", "--sigma", "5", "--delta", "0.01", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["status"] == "infeasible" and d["m_exact"] is None
    assert d["m_certified"]["value"] == 11846218014


def test_m_exact_table1_row_unchanged():
    assert TS.steps_exact(F(1), TAU, "simplified").m_exact == 1140369
    assert TS.steps_exact(F(1), TAU, "rho3").m_exact == 429713


# --- one meaning of --delta (finding 7), files only with --out (finding 8) -----------------
def test_bound_delta_is_the_epochs_target(capsys):
    rc = main(["bound", "--sigma", "1.8325", "--steps", "464", "--coef", "rho3", "--epochs", "100",
               "--delta", "0.341"])
    out = capsys.readouterr().out
    assert rc == 1 and "delta_E <= target fails" in out
    rc = main(["bound", "--sigma", "1.8325", "--steps", "464", "--coef", "rho3", "--epochs", "100",
               "--delta", "0.341", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["meets_target"] == "fails" and F(d["delta_epochs"]["lower"]) > F("0.99")


def test_certify_writes_only_with_out(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["certify", "--sigma", "1", "--steps", "1140369", "--delta", "0.01"]) == 0
    assert "wrote" not in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    assert main(["certify", "--sigma", "1", "--steps", "1140369", "--delta", "0.01",
                 "--out", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c" / "certificate.json").exists()


# --- outward rounding (finding 3) ----------------------------------------------------------
def test_numbers_after_at_most_are_rounded_up():
    from verifier.report.figures import figure_tradeoff
    c = Dp.certify(F(1), M6, 1, TARGET)
    up = c.bounds["theorem31-rho3"].delta_epochs.upper
    assert F("0.0065544") < up < F("0.0065545")
    svg = figure_tradeoff(F(1), M6, 1, {b: e.delta_epochs for b, e in c.bounds.items()})
    assert "delta_E &lt;= 0.00656" in svg and "0.00655<" not in svg


def test_percentages_are_rounded_in_the_safe_direction():
    from verifier.core.arith import pct
    assert pct(F(1) - F(39, 87), "down") == "55.1%"       # noise saved: at least
    assert pct(F(462, 10**5), "up", 3) == "0.462%"        # a width: at most
    assert pct(F(4621, 10**6), "up", 3) == "0.463%"


# --- the exact-TV engine: the Chernoff constant and the free parameters (finding 5) --------
def test_chernoff_tail_integral_keeps_the_constant():
    from flint import arb
    from verifier.numerics.lattice import chernoff_tail_integral
    for c0, th in [(F(1, 3), 0.5), (F(5), 0.25), (F(10**6), 2.0), (F(1), 1.0)]:
        with mp.workdps(40):
            C, t = R.mpq(c0), R.mpq(F(th))
            exact = mp.quad(lambda x: min(mp.mpf(1), C * mp.exp(-t * x)), [0, mp.log(max(C, 1)) / t + 1e-30, mp.inf])
        b = chernoff_tail_integral(arb(c0.numerator) / c0.denominator, th)
        assert float(b.lower()) >= float(exact) * (1 - 1e-12), (c0, th, b, exact)
        assert float(b.upper()) <= float(exact) * (1 + 1e-9) + 1e-12


M3_REF = {F(1): F("0.2539609391148073327"), F(1, 2): F("0.54954094916226948139")}


@pytest.mark.parametrize("N", [128, 192, 256, 384])
@pytest.mark.parametrize("sigma", sorted(M3_REF))
def test_forced_small_windows_stay_rigorous(sigma, N, monkeypatch):
    """Small forced DFT windows put the out-of-window mass on the Chernoff charges: the
    bracket must still contain the pinned reference, and its lower end never goes below 0."""
    import verifier.bounds.exact_tv.one_epoch as X
    from verifier.bounds.exact_tv.bracket import exact_tv
    monkeypatch.setattr(X, "centred_window", lambda pts, n, eps, span: N)
    r = exact_tv(sigma, 3)
    assert 0 <= r.tv.lower <= M3_REF[sigma] <= r.tv.upper <= 1


@lru_cache(maxsize=8)
def _reference_interval(sigma: F, M: int):
    """An independent reference for TV(sigma, M), as (lower, upper): M = 3 the pinned nested
    quadrature (20 digits), M = 2 the certified Arb quadrature of tests/test_exact.py, M = 1000
    a seeded Monte Carlo 99.9% interval (200,000 samples)."""
    if M == 3:
        return M3_REF[sigma], M3_REF[sigma]
    if M == 2:
        from test_exact import tv_two_by_quadrature
        q = tv_two_by_quadrature(sigma)
        lo, hi = q.lower().fmpq(), q.upper().fmpq()
        return F(int(lo.p), int(lo.q)), F(int(hi.p), int(hi.q))
    import numpy as np
    rng = np.random.default_rng(20261201 + M)
    s = float(sigma)
    acc = []
    for _ in range(10):
        x = rng.standard_normal((20_000, M))
        ybar = np.exp(x / s - 0.5 / s**2).mean(axis=1)
        acc.append(np.maximum(ybar - 1, 0))
    v = np.concatenate(acc)
    est, half = v.mean(), 3.29 * v.std(ddof=1) / np.sqrt(len(v))
    return F(float(est - half)), F(float(est + half))


@settings(max_examples=int(__import__("os").environ.get("VERIFIER_FUZZ_EXACT", "16")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(case=st.sampled_from([(F(1), 3), (F(1, 2), 3), (F(1), 2), (F(1, 2), 2), (F(1), 1000)]),
       h_shift=st.integers(-1, 1), j_add=st.integers(0, 6),
       n_pow=st.integers(7, 11), th_scale=st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0]),
       merge=st.integers(0, 3), k_shift=st.integers(-6, 6))
def test_property_free_parameters_any_value_is_valid(case, h_shift, j_add, n_pow, th_scale,
                                                     merge, k_shift):
    """The exact-TV free parameters (lattice step, body threshold, cells, DFT window, Chernoff
    theta, the test's threshold K) fuzzed over their allowed ranges: the bracket contains the
    reference at M = 2 and 3 and meets the seeded Monte Carlo interval at M = 1000."""
    sigma, M = case
    import verifier.numerics.lattice as XL
    import verifier.bounds.exact_tv.one_epoch as X
    from verifier.bounds.exact_tv.bracket import exact_tv
    real_plan, real_window, real_choose = X._plan, X.centred_window, XL.chernoff_choose

    def plan(sg, M, union_loss=None):
        h, J1, _, scale = real_plan(sg, M, union_loss)
        h2 = h * F(2) ** h_shift
        J = max(4, math.ceil(J1 * h / h2)) + j_add
        s2 = math.expm1(float(1 / sg**2))
        cells = X.cell_boundaries(float(sg), float(h2), J, s2)
        if merge:   # coarser cells: drop every other interior boundary, `merge` times
            for _ in range(merge):
                cells = [cells[0]] + cells[1:-1:2] + [cells[-1]] if len(cells) > 3 else cells
        return h2, J, cells, scale

    real_best = X.best_test

    def best(S, value):    # one threshold K, shifted from the natural one
        K0 = int(round(float(Interval.of(S.M * S.mu_l).lower)))
        return real_best(S, value) if k_shift == 0 else arb(value(K0 + k_shift).lower())

    def window(pts, n, eps, span):
        return max(1 << n_pow, min(real_window(pts, n, eps, span), 1 << n_pow))

    def choose(*a, **k):
        tl, tu, ll, lu = real_choose(*a, **k)
        return tl * th_scale, tu * th_scale, ll, lu

    ref_lo, ref_hi = _reference_interval(sigma, M)
    X._plan, X.centred_window, XL.chernoff_choose, X.best_test = plan, window, choose, best
    try:
        r = exact_tv(sigma, M)
    finally:
        X._plan, X.centred_window, XL.chernoff_choose, X.best_test = (real_plan, real_window,
                                                                real_choose, real_best)
    assert 0 <= r.tv.lower <= ref_hi and ref_lo <= r.tv.upper <= 1, (case, r.tv, ref_lo, ref_hi)


# --- smaller findings (11) -----------------------------------------------------------------
def test_delta_epochs_never_above_one(capsys):
    rc = main(["bound", "--sigma", "2.0697", "--steps", "4", "--json"])
    assert rc in (0, 1)
    d = json.loads(capsys.readouterr().out)
    assert F(d["delta_epochs"]["upper"]) <= 1
    c = Dp.certify(F("2.0697"), 4, 1, Dp.Target.make(delta=F(1, 2)))
    assert all(e.delta_epochs.upper <= 1 for e in c.bounds.values())


def test_exact_takes_two_steps(capsys):
    assert main(["exact", "--sigma", "1", "--steps", "2"]) == 0
    assert main(["compare", "--sigma", "1", "--steps", "2"]) == 0
    out = capsys.readouterr().out
    assert "theorem31-simplified" in out and "fails" in out      # M >= 3 fails, and says so


# --- claims loader (finding 6) -------------------------------------------------------------
def _claims_file(tmp_path, printed, cid="x.y", judge="rounded"):
    p = tmp_path / "c.toml"
    p.write_text('format = "verifier-claims/1"\n[[claims]]\n'
                 f'id = "{cid}"\nwhere = "w"\nquantity = "rho3"\nargs = {{ sigma = "1" }}\n'
                 f'printed = "{printed}"\njudge = "{judge}"\n')
    return p


def test_claims_rounded_needs_a_decimal(tmp_path, capsys):
    p = _claims_file(tmp_path, "6/11")
    rc = main(["audit", str(p), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "c.toml" in err and "x.y" in err
    assert not (tmp_path / "o").exists()


def test_claims_bad_id_names_the_allowed_characters(tmp_path, capsys):
    p = _claims_file(tmp_path, "1", cid="a/b")
    rc = main(["audit", str(p), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and "letters, digits and . _ : -" in err


def test_former_spellings_accepted_with_a_note(capsys):
    """'exact' means the exact TV: the third-moment factor is 'rho3'; the former spellings
    stay accepted for one release, each with a one-line note on stderr."""
    assert main(["steps", "--sigma", "1", "--delta", "0.01", "--coef", "exact", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["coef"] == "rho3" and json.loads(out)["m_exact"] == 429713
    assert err == "verifier: note: coef exact is deprecated; use coef rho3\n"
    assert main(["calibrate", "steps", "--sigma", "1", "--delta", "0.01", "--bound",
                 "theorem31-exact", "--json"]) == 0
    out, err = capsys.readouterr()
    assert list(json.loads(out)["bounds"]) == ["theorem31-rho3"]
    assert "bound theorem31-exact is deprecated; use bound theorem31-rho3" in err
    with pytest.warns(DeprecationWarning):
        assert TS.steps_exact(F(1), TAU, "exact").coef == "rho3"
