"""The mutation suite's one list: every place that decides a certified statement, a broken
version of it, and the real checks (test node ids) of which at least one must fail.

Run by ``python -m pytest -m mutation`` (``tests/test_mutations.py``): for each entry a
fresh pytest process starts with ``VERIFIER_MUTATION=<id>`` (``tests/conftest.py`` applies
the mutation before any test module is imported) and runs the entry's killers; the
mutation is *killed* when that run reports a failing test.  A baseline run of every killer
without a mutation must pass.

Kinds: hypothesis (hypothesis checks), box (branch-and-bound box tests and the proofs that
bound the sigma line), search (the certified searches and their predicates), tail (the
Chernoff and tail charges of the exact TV), spread (the convex-order spreads), compose
(composition and targets), test (the lower ends' test outcomes), judge (claim judges),
proof (proof-check helpers), input (the input layer).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable


@dataclass(frozen=True)
class Mutation:
    id: str
    kind: str
    what: str                      # the decision and how it is broken
    apply: Callable[[], None]      # patches the running interpreter
    killers: tuple                 # test node ids, relative to the repository root


def _set(path: str, value):
    mod, attr = path.rsplit(":", 1)
    obj = importlib.import_module(mod)
    *owners, last = attr.split(".")
    for o in owners:
        obj = getattr(obj, o)
    setattr(obj, last, value)


def _get(path: str):
    mod, attr = path.rsplit(":", 1)
    obj = importlib.import_module(mod)
    for a in attr.split("."):
        obj = getattr(obj, a)
    return obj


PROFILE_STAGES = ("spreads", "first_cell", "plan", "body", "upper", "statistic", "laws")


def _get_profile(name: str):
    """A function of the profile engine's stages (verifier/bounds/profile/), by name."""
    for m in PROFILE_STAGES:
        mod = importlib.import_module("verifier.bounds.profile." + m)
        if name in vars(mod):
            return vars(mod)[name]
    raise KeyError(name)


def _set_profile(name: str, value):
    """Replace a function of the profile engine's stages wherever a stage looks it up (the
    stage modules import each other's names, so the defining module and every importer)."""
    real = _get_profile(name)
    for m in PROFILE_STAGES:
        mod = importlib.import_module("verifier.bounds.profile." + m)
        if vars(mod).get(name) is real:
            setattr(mod, name, value)


def _powers_exact_zero():
    """lattice.powers giving the skipped terms as exact zeros (not balls holding z^n), in the
    module and where the composition imports it."""
    from flint import acb
    real = _get("verifier.numerics.lattice:powers")

    def fake(X, n, prec):
        return [acb(0) if z.mid() == 0 else z for z in real(X, n, prec)]
    for mod in ("verifier.numerics.lattice", "verifier.numerics.convolve"):
        _set(mod + ":powers", fake)


def _float_best_by_prefix_differences():
    """ComposedProfile._float_best reading the remove test's tail masses as differences of
    float prefix sums (1 - (1 - 1e-20) = 0 in floats: the scan's threshold blind there)."""
    import math

    import numpy as np
    from verifier.numerics.compose import ComposedProfile

    def old(self, eps, ge):
        F0 = np.array([float(v.mid()) for v in self.P0])
        F1 = np.array([float(v.mid()) for v in self.P1])
        lo, hi = min(self.s0, self.s1), max(self.s0 + len(F0), self.s1 + len(F1))
        ts = np.arange(lo, hi + 1)

        def at(Fa, start, t):
            return Fa[np.clip(t - start, 0, len(Fa) - 1)]
        c = math.exp(min(float(eps), 700.0))
        if ge:
            v = (F1[-1] - at(F1, self.s1, ts)) - c * (F0[-1] - at(F0, self.s0, ts))
        else:
            v = at(F0, self.s0, ts + 1) - c * at(F1, self.s1, ts + 1)
        return int(ts[int(np.argmax(v))])
    ComposedProfile._float_best = old


def _float_sums_mirror_unconjugated():
    """SpectralLaw.float_sums with the mirrored coefficients X[N - k] = X[k] (not conjugated:
    the law read as a complex one)."""
    import numpy as np
    from verifier.numerics import spectral
    real = spectral.SpectralLaw.float_sums

    def float_sums(self):
        if self._floats is None and self.N <= spectral.FLOAT_SUMS_N:
            N = self.N
            X = np.zeros(N, dtype=np.complex128)
            for k, v in self.a.items():
                X[k] = N * complex(float(v.real.mid()), float(v.imag.mid()))
                if 0 < k < N - k:
                    X[N - k] = X[k]
            law = np.fft.ifft(X).real
            pre = np.concatenate(([0.0], np.cumsum(law)))
            suf = np.concatenate((np.cumsum(law[::-1])[::-1], [0.0]))
            self._floats = (pre, suf, 1e-15 * N * (2 * np.log2(N) * np.abs(X).sum() / N + 1))
        return real(self)
    spectral.SpectralLaw.float_sums = float_sums


def _stop_ignores_the_step():
    """bounds.poisson.stopped with the next step's growth fixed at 2 (a halving)."""
    from verifier.bounds import poisson as PO
    real = PO.stopped
    PO.stopped = lambda note, n, width, before, grow=2: real(note, n, width, before, 2)


def _thin_down():
    """spreads.thin moving each index down to the multiple of c below it (not a spread)."""
    from flint import arb

    def thin(law, room):
        out = {}
        for n, v in law.items():
            k = room.numerator * n // room.denominator if n > 0 else 0
            c = 1 if k < 2 else 1 << (k.bit_length() - 1)
            out[n // c * c] = out.get(n // c * c, arb(0)) + v
        return out
    _set_profile("thin", thin)


def _const_arb(v):
    def f(*a, **k):
        from flint import arb
        return arb(v)
    return f


def _flip_sign():
    from verifier.core.arith import Tri
    real = _get("verifier.core.arith:sign_ge0")

    def flipped(g):
        v = real(g)
        return {Tri.HOLDS: Tri.FAILS, Tri.FAILS: Tri.HOLDS}.get(v, v)
    for site in ("verifier.deploy.evaluate:sign_ge0", "verifier.bounds.theorem31:sign_ge0",
                 "verifier.bounds.theorem31_steps:sign_ge0"):
        _set(site, flipped)


def _poisson_as_random_allocation():
    from verifier import accountants as A
    from verifier.sampling import RandomAllocationBatchSampler
    real = A.describe_sampler

    def wrong(loader):
        kind, detail = real(loader)
        if kind == "poisson":
            s = RandomAllocationBatchSampler(1, round(1 / detail))
            s.batches_yielded = 10 ** 9
            return "random_allocation", s
        return kind, detail
    A.describe_sampler = wrong


def _float_as_binary():
    from verifier.core import arith
    real = arith.plain_number
    arith.plain_number = lambda v, name: Fraction(v) if isinstance(v, float) else real(v, name)


def _tolerance_meets_always():
    from verifier.bounds import profile as PR
    from verifier.core.arith import Tri
    real = PR.meets

    def wrong(*a, **k):
        v, iv = real(*a, **k)
        return Tri.HOLDS, iv
    import verifier.deploy.epsilon as DE
    real_cal = DE.calibrate_sigma_tolerance

    def cal(*a, **k):
        PR.meets = wrong
        try:
            return real_cal(*a, **k)
        finally:
            PR.meets = real
    DE.calibrate_sigma_tolerance = cal


def _condition_2_without_phi():
    import sympy as sp
    from verifier.symbolic import terms as T
    real = T.hypotheses()
    T.hypotheses = lambda: {**real, "validity_condition_2":
                            sp.Rational(1, 2) - T.berry_esseen_eps() - T.delta}


def _t6_exponent_26():
    import sympy as sp
    from verifier.symbolic import terms as T
    real = T.terms()
    L = sp.log(T.M)
    t6 = T.T6_NUM / (T.T6_A * sp.sqrt(L) - T.T6_B / sp.sqrt(L)) * T.M ** sp.Rational(-26, 24)
    T.terms = lambda: (*real[:5], t6)


def _first_cell_piece_short():
    real = _get_profile("all_in_first_cell")
    _set_profile("all_in_first_cell", lambda wa, wb, M: real(wa, wb, M)[:-1])


def _egf_wrong_factorial():
    import math
    from verifier.bounds import moments
    moments.moment_egf = lambda u, n, exp=None: [
        (exp or (lambda x: x.exp()))((k * (k - 1)) * u / 2) / math.factorial(k + 1)
        for k in range(n)]


def _truncated_power_wrong():
    from verifier.bounds import moments
    real = moments.truncated_power
    moments.truncated_power = lambda f, M, n: real(f, M - 1 if M % 2 and M > 1 else M, n)


def _tiny_radius_dropped():
    from flint import arb
    from verifier.core import arith
    real = arith._tamed

    def wrong(x):
        y = real(x)
        if y is not None and y is not x and x.is_finite():
            return arb(x.mid())                  # the radius forgotten
        return y
    arith._tamed = wrong


def _lost_ball_as_zero():
    from fractions import Fraction
    from verifier.numerics import brackets as PR
    from verifier.core.arith import Interval, representable
    real = PR.delta_interval

    def wrong(lo, hi):
        if not representable(hi):
            return Interval(Fraction(0), Fraction(0))
        return real(lo, hi)
    PR.delta_interval = wrong


def _tolerance_unchecked():
    from verifier.bounds import profile as PR
    from verifier.core.arith import Tri
    import verifier.deploy.epsilon as DE
    real_cal, real_meets = DE.calibrate_sigma_tolerance, PR.meets

    def cal(eps, delta, M, E, tolerance, *a, **k):
        def meets(s, m, e_, e, d, *b):
            if e != eps:                        # the tolerance query: answered unchecked
                return Tri.FAILS, real_meets(s, m, e_, eps, d, *b)[1]
            return real_meets(s, m, e_, e, d, *b)
        PR.meets = meets
        try:
            return real_cal(eps, delta, M, E, tolerance, *a, **k)
        finally:
            PR.meets = real_meets
    DE.calibrate_sigma_tolerance = cal


def _mean_value_without_radius():
    from verifier.bounds import theorem31 as T
    from verifier.symbolic import derived as D

    def mv(coef, Ma, s, lo, hi):
        sm = T.to_arb((lo + hi) / 2)
        cm = T.COEFS[coef](sm)
        _, d_mid = T.delta_rhs_ball(Ma, sm, cm)
        return D.hyp_validity(Ma, sm, cm, d_mid), d_mid      # the derivative term dropped
    T._mean_value = mv


def _sigma_range(scale_lo=1, scale_hi=1):
    def apply():
        from verifier.bounds import REGISTRY
        for b in REGISTRY.values():
            if b.sigma_range is not None:
                real = b.sigma_range
                object.__setattr__(b, "sigma_range", lambda M, real=real: (
                    real(M)[0] * scale_lo, real(M)[1] * scale_hi))
    return apply


def _search_off_by_one():
    from verifier.core import search as search
    real = search.smallest_int

    def wrong(*a, **k):
        n, at, below, c = real(*a, **k)
        return n + 1, at, below, c                            # not the smallest
    _set("verifier.core.search:smallest_int", wrong)    # the one calibration driver's search


def _undecided_as_fails():
    from verifier.core.arith import Tri
    _set("verifier.core.search:decided", lambda v, n, ev=None: v is Tri.HOLDS)


def _exact_verdict(refused=None, straddle=None):
    def apply():
        from verifier.deploy import sigma_exact_tv as Dp
        from verifier.core.arith import Tri
        real = Dp.exact_verdict

        def v(tv, tau):
            if tv is None:
                return refused or real(tv, tau)
            r = real(tv, tau)
            return straddle if (straddle and r is Tri.UNDECIDED) else r
        Dp.exact_verdict = v
    return apply


def _decide_never_raises():
    def first_only(at, settled, max_prec=None, start=64):
        return at(start)                       # the first precision's answer, settled or not
    for site in ("verifier.core.decide:decide", "verifier.bounds.theorem31:decide",
                 "verifier.bounds.theorem31_steps:decide", "verifier.deploy.evaluate:decide",
                 "verifier.claims.audit:decide"):
        _set(site, first_only)


def _exact_inconclusive_drops_the_bounds():
    from dataclasses import replace
    from verifier import deploy
    from verifier.deploy import sigma_exact_tv as SX
    real = SX.calibrate_sigma_over

    def over(*a, **k):
        r = real(*a, **k)
        if r.exact is not None and r.exact.sigma is None:    # the old bug: result dropped
            return replace(r, value=None, status="inconclusive")
        return r
    SX.calibrate_sigma_over = deploy.calibrate_sigma_over = over


def _fails():
    from verifier.core.arith import Tri
    return Tri.FAILS


def _chernoff_zero():
    from verifier.numerics import lattice as X
    X.chernoff_bound = _const_arb(0)
    X.chernoff_c0 = _const_arb(0)


def _tail_integral_capped():
    from verifier.numerics import lattice as X
    def capped(c0, theta):                      # the old bug: min(1, C0)/theta only
        return X.cap1(c0) / X.to_arb(Fraction(theta).limit_denominator(10**12))
    X.chernoff_tail_integral = capped


def _spread_at_lower_end():
    from flint import arb
    from verifier.bounds.exact_tv import one_epoch as X
    X.spread_cell = lambda q, m, a, b, ha: (q, arb(0))   # all mass at the lower end


def _spread_point_floor():
    from flint import arb
    from verifier.bounds.exact_tv import epochs as XE
    real = XE.spread_point
    XE.spread_point = lambda tu: (real(tu)[0], arb(0))   # rounded down: not a spread


def _no_composition():
    _set("verifier.bounds.theorem31:delta_epochs_ball", lambda d, E: d)


def _accuracy_target_as_delta():
    from verifier import deploy as Dp
    Dp.Target.delta = property(lambda self: self.value)


def _widen_rounding():
    from verifier.claims import audit as A
    from verifier.core.arith import Interval
    real = A.rounding_interval

    def wide(printed, digits=None):
        iv = real(printed, digits)
        w = iv.upper - iv.lower
        return Interval(iv.lower - 10 * w, iv.upper + 10 * w)
    A.rounding_interval = wide


def _at_most_on_lower_end():
    from verifier.claims import judges as J
    # the inequality flipped: value >= printed taken for value <= printed
    J.at_most = lambda value, b: (J.CONFIRMED if value.lower >= b else
                                  J.REFUTED if value.upper < b else None)


def _relative_confirms_loosely():
    from verifier.claims import judges as J
    J.relative = lambda value, ref, tol: J.CONFIRMED


def _proof(helper, verdict="proved"):
    def apply():
        from proofs_checks import framework as Fw
        out = Fw.Outcome(verdict, "mutated: always " + verdict)
        setattr(Fw, helper, lambda *a, **k: out)
        # the checks import the helpers by name
        for mod in ("lognormal", "monotonicity", "tail", "taylor", "interpretation", "chisquare",
                    "edgeworth"):
            m = importlib.import_module(f"proofs_checks.{mod}")
            if hasattr(m, helper):
                setattr(m, helper, getattr(Fw, helper))
    return apply


def _all_proved_ignores_unknown():
    from proofs_checks import framework as Fw

    def lax(parts):
        for name, o in parts:
            if o.verdict == Fw.REFUTED:
                return Fw.Outcome(Fw.REFUTED, name)
        return Fw.Outcome(Fw.PROVED, "mutated")
    Fw.all_proved = lax
    for mod in ("lognormal", "monotonicity", "tail", "taylor", "interpretation", "chisquare"):
        m = importlib.import_module(f"proofs_checks.{mod}")
        if hasattr(m, "all_proved"):
            m.all_proved = lax


def _reading_ignored():
    from verifier.bounds import theorem31_steps as TS
    real = TS._Predicate.__init__

    def init(self, sigma, delta, coef, max_prec, reading="table1"):
        real(self, sigma, delta, coef, max_prec, "table1")
    TS._Predicate.__init__ = init


def _needed_steps_too_high():
    from verifier.bounds import theorem31_steps as TS
    real = TS.needed_steps
    TS.needed_steps = lambda sigma, cf: (lambda n: None if n is None else n * 10**40)(real(sigma, cf))


def _sigma_range_unbounded():
    from verifier.core import arith as arith
    arith.SIGMA_RANGE = (Fraction(1, 10**300), Fraction(10**300))


D = "tests/test_decisions.py::"
P = "tests/test_profile.py::"


def _profile_spread_contracted():
    def contracted(q, m, a, b, ha):       # all of the cell's mass at its left end
        from flint import arb
        return q, arb(0)
    _set_profile("spread_cell", contracted)


def _profile_spread_log_flipped():
    real = _get_profile("spread_log")
    _set_profile("spread_log", lambda x, e, up: real(x, e, not up))


def _profile_geometric_down():
    def down(points, base, ratio):
        import bisect
        import math
        grid = [base]
        while grid[-1] < max(points):
            grid.append(max(grid[-1] + 1, math.ceil(grid[-1] * ratio)))
        out = {}
        for v, c in points.items():
            a = grid[bisect.bisect_right(grid, v) - 1]
            out[a] = out.get(a, 0) + c
        return out
    _set_profile("geometric", down)


def _profile_collapse_flipped():
    real = _get_profile("collapse")
    _set_profile("collapse", lambda law, lo, hi, up: real(law, lo, hi, not up))


def _profile_onto_lattice_down():
    def down(values, g):
        import math
        out = {}
        for v, c in values.items():
            j = math.floor(v / g)
            out[j] = out[j] + c if j in out else c
        return out
    _set_profile("onto_lattice", down)


def _profile_coarse_down():
    def down(law, *gs):              # every point at its block's lower end (no spread)
        outs = []
        for g in gs:
            d = {}
            for i, c in enumerate(law.c):
                j = (law.start + i) // g
                d[j] = d[j] + c if j in d else c
            outs.append(d)
        return outs if len(gs) > 1 else outs[0]
    _set_profile("coarse", down)


def _profile_convolve_shifted():
    real = _get_profile("convolve")
    _set_profile("convolve",
         lambda a, ratio, b: {k - 1: v for k, v in real(a, ratio, b).items()})


def _profile_packed_parts_swapped():
    real = _get("verifier.numerics.compose:compose_laws")

    def swapped(subs, E, what, target):
        out = real(subs, E, what, target)
        return out[::-1] if len(out) == 2 else out
    _set("verifier.numerics.compose:compose_laws", swapped)


def _profile_add_moment_low():
    real = _get("verifier.bounds.profile.compose:add_moment_bound")

    def low(sigma, M, E, eps):       # the AM-GM exponent's u/2 term dropped
        from flint import arb
        return arb((real(sigma, M, E, eps) * (-E * arb(sigma) ** -2 / 2 * arb(1)).exp()).upper())
    _set("verifier.bounds.profile.compose:add_moment_bound", low)


def _profile_first_cell_charge_dropped():
    real = _get_profile("first_cell_levels")

    def dropped(sigma, M, a, budget, first=None):  # the last level's piece (and the W = 0
        from flint import arb                          # balls) not charged
        return real(sigma, M, a, budget, first)[0], arb(0)
    _set_profile("first_cell_levels", dropped)


def _profile_first_cell_swapped():
    real = _get_profile("all_in_first_cell")
    _set_profile("all_in_first_cell", lambda wa, wb, M: real(wb, wa, M))


def _profile_first_cell_test_p1_low():
    real = _get_profile("first_cell_test")
    _set_profile("first_cell_test",
         lambda fine, M: [(p0, p1 / 2) for p0, p1 in real(fine, M)])


def _profile_k_body_short():
    # the K = k >= 2 parts on the body law with the fewest items for every k (B_{M-3} at k = 2:
    # one body item short of B_{M-2}, a move down, not step (b))
    _set_profile("k_body",
         lambda k, body_k, first: first if k == 1 else body_k[max(body_k)])


def _profile_keep_low_dropped():
    real = _get_profile("coarse_keep_low")

    def dropped(c, g):               # the points in (0, g) left out
        return {v: x for v, x in real(c, g).items() if v == 0 or v >= g}
    _set_profile("coarse_keep_low", dropped)


def _profile_bisect_swapped():
    real = _get("verifier.numerics.brackets:bisect")

    def swapped(good, bad, ok, rel, absolute, **kw):
        b, o = real(good, bad, ok, rel, absolute, **kw)
        return o, b
    _set("verifier.numerics.brackets:bisect", swapped)


def _profile_meets_undecided_holds():
    from verifier.core.arith import Tri
    real = _get("verifier.bounds.profile:meets")

    def loose(*a, **k):
        v, iv = real(*a, **k)
        return (Tri.HOLDS if v is Tri.UNDECIDED else v), iv
    _set("verifier.bounds.profile:meets", loose)


def _profile_symmetry_everywhere():
    from verifier.numerics.compose import ComposedProfile as Profile
    real = Profile.__init__

    def init(self, *a, **k):
        real(self, *a, **k)
        self.symmetric = True            # the M = 1 reflection used for every M
    Profile.__init__ = init



def _run_tradeoff_grids_swapped():
    real = _get("verifier.views.run_tradeoff:grids")
    _set("verifier.views.run_tradeoff:grids", lambda run: real(run)[::-1])


def _run_tradeoff_lower_run_ignored():
    real = _get("verifier.views.run_tradeoff:bands")
    _set("verifier.views.run_tradeoff:bands", lambda grid, at, below=None: real(grid, at))


def _grid_without_moments_as_zero():
    from flint import arb
    from verifier.views.grid import ProfileGrid
    for name in ("moment_remove", "moment_add"):
        real = getattr(ProfileGrid, name)
        setattr(ProfileGrid, name, (lambda real: lambda self, e: arb(0) if self.mom is None
                                    else real(self, e))(real))


def _run_tradeoff_gaussian_smaller_mu():
    from verifier.views import run_tradeoff as RT
    real = RT.GaussianProfile.__init__
    RT.GaussianProfile.__init__ = lambda self, mu2, top: real(self, mu2 * 9 / 10, top)


def _at_most_lax():
    from verifier.core.arith import Interval, Tri
    Interval.at_most = lambda self, b: Tri.HOLDS if self.lower <= b else Tri.FAILS


V = "tests/test_views.py::"


def _views_upper_read_right():
    from verifier.views.grid import ProfileGrid
    real = ProfileGrid.ends

    def ends(self, which):
        out = real(self, which)
        return [(e, lo, out[min(i + 1, len(out) - 1)][2]) for i, (e, lo, _) in enumerate(out)]
    ProfileGrid.ends = ends                   # each cell's upper end read at its right


def _views_conversion_prefactor_flipped():
    from flint import ctx
    from verifier.core.arith import to_arb
    from verifier.views import renyi as RV

    def conv(D, alpha, delta, improved, prec=RV.PREC):
        with ctx.workprec(prec):
            a, d = to_arb(alpha), to_arb(delta)
            if improved:
                return to_arb(D) + (a / (a - 1)).log() - (d.log() + a.log()) / (a - 1)
            return to_arb(D) - d.log() / (a - 1)
    _set("verifier.views.conversions:_conv", conv)


def _views_chord_without_left_weight():
    _set("verifier.views.renyi:_chord", lambda p0, p1, f: f * p1)


CV = "tests/test_claims_v2.py::"


def _truncated_as_rounded():
    from verifier.claims import judges as J
    J.truncated = lambda value, printed: J.within(value, J.rounding_interval(printed.rstrip(".")))


def _between_upper_only():
    from verifier.claims import judges as J
    J.between = lambda value, low, high: (J.CONFIRMED if value.upper <= high else
                                          J.REFUTED if value.lower > high else None)


def _equals_numeric_proves():
    from verifier.claims import audit as A
    real = A._exactly_equal
    A._exactly_equal = lambda claim, env: True if claim.judge == "equals" else real(claim, env)


def _extremum_without_lower_end():
    from verifier.claims import extremum as EX
    from verifier.core.arith import Interval
    real = EX._extremum

    def best_only(*a, **k):
        r = real(*a, **k)
        end = r.value.upper if a[3] == "min" else r.value.lower
        return EX.Extremum(Interval(end, end), r.at, r.evaluations, r.converged)
    EX._extremum = best_only


# ---- Poisson subsampling (bounds/poisson, numerics/dominating, poisson_accountant) ---------
PO = "tests/test_poisson.py::"
PS = "tests/test_poisson_single.py::"


def _poisson_single_add_as_remove():
    real = _get("verifier.bounds.poisson.single:direction_balls")
    _set("verifier.bounds.poisson.single:direction_balls",
         lambda sigma, q, a: (real(sigma, q, a)[0],) * 2)


def _bisection_undecided_as_above():
    real = _get("verifier.numerics.brackets:certified_bisection")
    _set("verifier.numerics.brackets:certified_bisection",
         lambda compare, width, eps_max: real(lambda e: compare(e) or 1, width, eps_max))


def _poisson_single_bisection_flipped():
    real = _get("verifier.bounds.poisson.single:_above")
    _set("verifier.bounds.poisson.single:_above", lambda *a: -real(*a))



def _poisson_atom_dropped():
    real = _get("verifier.numerics.dominating:connect_the_dots")

    def dropped(points):
        from flint import arb
        b, _ = real(points)
        return b, arb(0)                  # the constant beyond the last point left out
    _set("verifier.numerics.dominating:connect_the_dots", dropped)
    import verifier.bounds.poisson.pair as PP
    PP.connect_the_dots = dropped


def _poisson_chord_from_origin_dropped():
    from flint import arb
    import verifier.bounds.poisson.pair as PP

    def no_chord(points):                 # the interpolant's first slope taken as 0
        b = {}
        s_left = arb(0)
        for i, (k, c, d) in enumerate(points):
            s_right = ((points[i + 1][2] - d) / (points[i + 1][1] - c)
                       if i + 1 < len(points) else arb(0))
            b[k] = s_right - s_left
            s_left = s_right
        return b, points[-1][2]
    PP.connect_the_dots = no_chord


def _poisson_mixture_weights_swapped():
    import verifier.bounds.poisson.pair as PP
    real = PP._tails             # what tails and the step laws' _tails_at both call

    def swapped(s, qa, q_one, a, check):
        g, p = real(s, qa, q_one, a, check)
        m = (p - (1 - qa) * g) / qa      # E[Y 1{Z >= b}]
        return g, qa * g + (1 - qa) * m
    PP._tails = swapped


def _poisson_cells_cumulative():
    import verifier.bounds.poisson.pair as PP

    def cumulative(tails, below=None):     # each cell given the whole tail above it
        out = {} if below is None else {tails[0][0] - 1: below}
        for k, g in tails:
            out[k] = g
        return out
    PP.cell_masses = cumulative


def _poisson_tests_not_scanned():
    from verifier.numerics.compose import ComposedProfile
    real = ComposedProfile.__init__

    def init(self, *a, **k):
        k["scan_tests"] = False
        real(self, *a, **k)
    ComposedProfile.__init__ = init


def _poisson_largest_sigma():
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    from verifier.core.run import Gaussian, Phase, Run
    real = CertifiedPoissonAccountant.run

    def run(self):                   # every phase read at the largest noise multiplier
        r = real(self)
        s = max(p.noise_multiplier for p in r.phases)
        return Run(tuple(Phase(Gaussian(s), p.sampler, p.steps) for p in r.phases))
    CertifiedPoissonAccountant.run = run


def _poisson_smallest_rate():
    from verifier.poisson_accountant import CertifiedPoissonAccountant
    from verifier.core.run import Phase, Poisson, Run
    real = CertifiedPoissonAccountant.run

    def run(self):                   # every phase read at the smallest sample rate
        r = real(self)
        q = min(p.sampler.sample_rate for p in r.phases)
        return Run(tuple(Phase(p.mechanism, Poisson(q), p.steps) for p in r.phases))
    CertifiedPoissonAccountant.run = run


def _poisson_any_sampler():
    from verifier import poisson_accountant as PA
    real = PA.describe_sampler
    PA.describe_sampler = lambda loader: ("poisson", getattr(loader.batch_sampler,
                                                              "sample_rate", 0.05))
    del real


def _poisson_rate_unchecked():
    from verifier import poisson_accountant as PA
    real = PA.run_refusal

    def loose(acc):
        why = real(acc)
        return None if why and "bound Poisson sampler's rate" in why else why
    PA.run_refusal = loose
    import verifier.poisson_accountant
    verifier.poisson_accountant.run_refusal = loose


def _poisson_threshold_without_u():
    import sympy as sp
    from verifier.symbolic import lognormal as L
    from verifier.symbolic import poisson as PS
    from sympy.codegen.cfunctions import expm1
    PS.loss_threshold = lambda: L.sigma * sp.log((expm1(PS.a) + PS.q) / PS.q)   # u/2 dropped


def _poisson_tails_weights_swapped():
    from verifier.symbolic import lognormal as L
    from verifier.symbolic import poisson as PS

    def swapped():
        g, m = L.upper_partial_moment(0), L.upper_partial_moment(1)
        return g, PS.q * g + (1 - PS.q) * m
    PS.step_tails = swapped


def _ctd_last_slope_kept():
    from verifier.numerics import dominating as DM

    def wrong(points):               # the slope beyond c_n kept (no constant continuation)
        b = {}
        s_left = (points[0][2] - 1) / points[0][1]
        for i, (k, c, d) in enumerate(points):
            if i + 1 < len(points):
                s_right = (points[i + 1][2] - d) / (points[i + 1][1] - c)
            else:
                s_right = s_left
            b[k] = s_right - s_left
            s_left = s_right
        return b, points[-1][2]
    DM.connect_the_dots = wrong


def _sampler_comparison_unchecked():
    from verifier.deploy.certify import PrivacyStatement
    from verifier.core.arith import Interval

    def always(self):                 # "lower" whether or not the brackets separate
        a, p = self.epsilon_bracket, self.poisson.epsilon
        return ("random allocation's epsilon is lower (certified)",
                Interval(p.lower - a.upper, p.upper - a.lower))
    PrivacyStatement.sampler_comparison = always


def _poisson_renyi_tails_dropped():
    from verifier.views import poisson_renyi as PR
    real = PR._phi_cdf
    PR._phi_cdf = lambda x: real(x) * 0          # every closed-form tail taken as 0


def _poisson_renyi_binomial_exponent():
    import math
    from flint import arb
    from verifier.views import poisson_renyi as PR
    from verifier.core.arith import to_arb

    def wrong(sigma, q, a):                       # e^{k(k+1)u/2}: E[Y^k] mistaken
        s, qa = to_arb(sigma), to_arb(q)
        u = 1 / (s * s)
        return sum((math.comb(a, k) * (1 - qa) ** (a - k) * qa ** k
                    * (k * (k + 1) * u / 2).exp() for k in range(a + 1)), arb(0))
    PR._integer_remove = wrong


def _gaussian_compare_lax():
    from flint import ctx
    from verifier.bounds import gaussian as G
    from verifier.core.arith import to_arb

    def lax(mu2, eps, delta, prec):           # 64 bits, an undecided comparison read as "meets"
        with ctx.workprec(64):
            return 1 if G._delta_ball(mu2, eps) > to_arb(delta) else -1
    G._compare = lax


def _gaussian_profile_without_c():
    import sympy as sp
    from verifier.symbolic import gaussian as GS

    def wrong():
        xs = GS.threshold()
        return (sp.erfc((xs - GS.mu) / sp.sqrt(2)) - sp.erfc(xs / sp.sqrt(2))) / 2
    GS.profile = wrong


def _gaussian_uncertified_upper():
    from fractions import Fraction
    from verifier.bounds import gaussian as G
    from verifier.core.arith import Interval
    real = G.epsilon_interval

    def wrong(mu2, delta, digits):            # the old fallback: 1e6 as an upper end
        iv, n = real(mu2, delta, digits)
        return (Interval(Fraction(0), Fraction(10 ** 6)) if iv is None else iv), n
    G.epsilon_interval = wrong


def _profile_test_tilt_doubled():
    real = _get_profile("tail_cells")
    _set_profile("tail_cells", lambda B, P, merge: [(p, 2 * t) for p, t in real(B, P, merge)])


def _accepted_without_abs():
    from verifier.claims import accuracy as AC
    real = AC.accepted_interval

    def acc(claim, printed):
        if claim.judge == "approx":
            from dataclasses import replace
            return real(replace(claim, abs_tolerance=None), printed)
        return real(claim, printed)
    return acc


def _sigma_star_undecided_as_miss():
    """sigma*'s walk and bisection read an undecided engine answer as a certified miss."""
    import verifier.deploy.epsilon as DE
    from verifier.core.arith import Tri
    real = DE.engine_for

    def engine_for(*a, **k):
        fixed, g, meets = real(*a, **k)

        def wrong(s, e):
            v, iv = meets(s, e)
            return (Tri.FAILS if v is Tri.UNDECIDED else v), iv
        return fixed, g, wrong
    return _set("verifier.deploy.epsilon:engine_for", engine_for)


def _sigma_star_lower_end_unchecked():
    """sigma*'s bracket reported from the sigma that meets the target alone (lower end = the
    upper end: the miss never checked)."""
    import verifier.deploy.sigma_star as DE
    real = DE.sigma_star

    def wrong(*a, **k):
        r = real(*a, **k)
        if r.value is None:
            return r
        from verifier.core.arith import Interval
        return DE.SigmaStar(Interval(r.value.upper, r.value.upper), r.status, r.note,
                            r.evaluations)
    return _set("verifier.deploy.sigma_star:sigma_star", wrong)


def _corner_flipped():
    """an extremum taken at the opposite corner of the box (a monotonicity read backwards)"""
    import verifier.claims.monotone as MO
    real = MO.corner

    def wrong(node, box, kind, takes):
        c = real(node, box, kind, takes)
        if c is None:
            return c
        point, why = c
        return {k: (box[k][0] if v == box[k][1] else box[k][1]) for k, v in point.items()}, why
    return _set("verifier.claims.monotone:corner", wrong)


def _refined_verdict_swapped():
    """sigma*'s refined predicate with its two certified verdicts swapped"""
    import verifier.deploy.sigma_star as SS
    from verifier.core.arith import Tri
    real = SS._refined_meets

    def refined(*a):
        meets = real(*a)

        def wrong(s, w):
            v = meets(s, w)
            return {Tri.HOLDS: Tri.FAILS, Tri.FAILS: Tri.HOLDS}.get(v, v)
        return wrong
    return _set("verifier.deploy.sigma_star:_refined_meets", refined)


def _monotone_range_one_corner():
    from verifier.claims import expr as X
    from verifier.core.arith import frac_str

    def one(q, raw, ends, mono, prec, max_prec):
        return X._exact_quantity(q, {**raw, **{k: frac_str(v[0]) for k, v in ends.items()}},
                                 prec, max_prec)
    _set("verifier.claims.expr:_monotone_range", one)


def _renyi_grid_unrefined():
    from verifier.views import grid as G
    _set("verifier.views.renyi:ProfileGrid", lambda sigma, M, E, fine=1: G.ProfileGrid(sigma, M, E))


def _tradeoff_grid_unrefined():
    from verifier.views import grid as G
    _set("verifier.views.tradeoff:ProfileGrid",
         lambda sigma, M, E, tau=1 / 16, fine=1: G.ProfileGrid(sigma, M, E, tau=tau))


def _laplace_tilting_shifted():
    from verifier.bounds import moments as MO
    _set("verifier.bounds.laplace:moment_egf", lambda u, n, exp=None: MO.moment_egf(u, n + 1)[1:])


def _band_left_out_uncharged():
    from flint import arb as _arb
    _set("verifier.numerics.band:left_out_charge", lambda out, G: (_arb(0), _arb(0)))


def _band_left_out_halved():
    real = _get("verifier.numerics.band:left_out_charge")
    _set("verifier.numerics.band:left_out_charge",
         lambda out, G: tuple(r / 2 for r in real(out, G)))


def _band_power_uncertified():
    from flint import arb as _arb
    _set("verifier.numerics.band:_radius", lambda prec, n: _arb("0.999"))
    _set("verifier.numerics.band:certified_small", lambda r, n, eps: True)


def _band_times_uncharged():
    from flint import arb as _arb
    import verifier.numerics.band as BA
    BA.times = lambda A, X, total: BA.Spectrum(A.N, {k: v * X[k] for k, v in A.vals.items()},
                                               _arb(0))


def _sparse_edge_short():
    orig = _get("verifier.numerics.band:band_edge")
    _set("verifier.numerics.band:band_edge", lambda *a, **k: orig(*a, **k) // 4)


R = "tests/test_runs.py::"


def _runs_phase_count_ignored():
    real = _get("verifier.numerics.compose:compose_phases")

    def once(phases, what, target):          # every phase after the first taken once
        return real([(subs, n if i == 0 else 1) for i, (subs, n) in enumerate(phases)],
                    what, target)
    _set("verifier.numerics.compose:compose_phases", once)


def _runs_grouped_counts_ignored():
    from verifier.numerics import convolve as C

    def grouped(phases, N):          # every phase in one group, at the first one's count
        if len(phases) < 2:
            return phases
        nvar = len(phases[0][0])
        return [([C.convolved([subs[j] for subs, _ in phases]) for j in range(nvar)],
                 phases[0][1])]
    C.grouped = grouped


def _runs_convolved_drops_a_law():
    from verifier.numerics import convolve as C
    real = C.convolved
    C.convolved = lambda subs: real(subs[:-1])


def _compose_remove_cut_floor():
    import math
    _set("verifier.numerics.ends:remove_cut",
         lambda eps, eta, start, n: min(max(math.floor(eps / eta) - start, 0), n))


def _compose_tilted_shifted():
    real = _get("verifier.numerics.ends:tilted")
    _set("verifier.numerics.ends:tilted", lambda law, first, step: real(law, first * step, step))


def _compose_at_least_shifted():
    real = _get("verifier.numerics.ends:mass_at_least")
    _set("verifier.numerics.ends:mass_at_least", lambda P, start, t: real(P, start, t + 1))


def _runs_common_factor_counts_dropped():
    from verifier.numerics import convolve as C
    real = C.convolved
    C.convolved = lambda subs, counts=None: real(subs)


def _runs_first_phase_only(name):
    real = _get("verifier.numerics.compose:" + name)
    _set("verifier.numerics.compose:" + name, lambda parts: real(parts[:1]))


def _runs_window_mass_first_phase():
    real = _get("verifier.numerics.convolve:chernoff_mass_phases")
    _set("verifier.numerics.convolve:chernoff_mass_phases",
         lambda parts, theta, b: real(parts[:1], theta, b))


def _runs_mixed_epochs_once():
    real = _get("verifier.bounds.runs:mixed_engine")

    def once(ra, steps, floor, eps_cap, fine):     # the epochs composed once, not E times
        return real((ra[0], ra[1], 1), steps, floor, eps_cap, fine)
    _set("verifier.bounds.runs:mixed_engine", once)


def _runs_regrid_to_nearest():
    from verifier.numerics import compose as C
    real = C.regrid

    def nearest(laws, eta, eta_l, prec):       # each mass moved whole to the lower point
        import math
        g = real(laws, eta, eta_l, prec)

        def move(law):
            out = {}
            for s, m in law.items():
                j = math.floor(s * laws.eta / eta)
                out[j] = out[j] + m if j in out else m
            return out
        return C.StepLaws(eta=eta, rem=move(laws.rem), add=move(laws.add),
                          charge_R=g.charge_R, charge_A=g.charge_A, eta_l=eta_l,
                          test0=g.test0, test1=g.test1, alias0=g.alias0, alias1=g.alias1,
                          info=g.info)
    C.regrid = nearest


def _ra_history_at_largest():
    from verifier.accountants import RandomAllocationAccountant
    from verifier.core.run import Gaussian, Phase, Run
    real = RandomAllocationAccountant.run

    def run(self):                   # every epoch read at the largest noise multiplier
        r = real(self)
        s = max(p.noise_multiplier for p in r.phases)
        return Run(tuple(Phase(Gaussian(s), p.sampler, p.steps) for p in r.phases))
    RandomAllocationAccountant.run = run


def _dp_event_k_dropped():
    import verifier.dp_accountant as DA
    real = DA._allocation_leaf

    def leaf(event, count):          # num_selected read as 1: k of M accounted as one of M
        r = real(event, count)
        return r if isinstance(r, str) else [(s, M, 1, n) for s, M, _k, n in r]
    DA._allocation_leaf = leaf


def _ra_bind_k_dropped():
    from verifier.accountants import RandomAllocationAccountant
    real = RandomAllocationAccountant.bind

    def bind(self, data_loader):     # the loader's k of M read as one of M
        out = real(self, data_loader)
        self.steps_per_record = 1
        return out
    RandomAllocationAccountant.bind = bind


def _failed_caps_ignored():
    import verifier.numerics.brackets as BR
    real = BR.epsilon_search

    def search(*a, failed=None, **kw):
        return real(*a, failed=None, **kw)
    BR.epsilon_search = search


def _renyi_k_of_m_lower_from_blocks():
    import verifier.views.run_renyi as RR
    real = RR.k_of_m_reduction

    def reduction(m, s, n):          # both ends from the blocks: the lower pair dropped
        r = real(m, s, n)
        return None if r is None else (r[1], r[1])
    RR.k_of_m_reduction = reduction


def _kofm_block_dropped():
    from verifier.bounds import runs as RU
    from verifier.core.run import Run
    real = RU.k_of_m_runs

    def fewer(run):                  # the reduction's last block left out
        up, lo = real(run)
        return Run(up.phases[:-1] or up.phases), lo
    RU.k_of_m_runs = fewer


def _kofm_lower_too_little_noise():
    from verifier.bounds import runs as RU
    from verifier.core.run import Gaussian, Phase, Run
    real = RU.k_of_m_runs

    def loud(run):                   # the sum's Gaussian without its factor sqrt(M)
        up, lo = real(run)
        ks = [p for p in run.phases if RU.engine_of(p.sampler).reduced(p) is not None]
        ph = tuple(Phase(Gaussian(q.noise_multiplier / q.sampler.steps_per_record), p.sampler,
                         p.steps) if i < len(ks) else p
                   for i, (p, q) in enumerate(zip(lo.phases, ks + list(lo.phases))))
        return up, Run(ph)
    RU.k_of_m_runs = loud


def _training_skipped_step_unseen():
    from verifier.sampling import RandomAllocationBatchSampler
    real = RandomAllocationBatchSampler.__iter__

    def it(self):                    # the sampler says a batch is always in flight
        for b in real(self):
            yield b
        self.in_flight = 10 ** 9
    RandomAllocationBatchSampler.__iter__ = it


def _runs_merge_counts_dropped():
    from verifier.core.run import Run

    def merged(self):                        # the first phase of each kind only
        out = {}
        for p in self.phases:
            out.setdefault(p.step_kind, p.steps)
        return tuple((m, s, n) for (m, s), n in out.items())
    Run.merged = merged


def _claims_run_first_phase_only():
    """A claims file's run read as its first phase only."""
    from verifier.claims import run_quantities as RQ
    from verifier.claims.values import ARG_PARSERS
    from verifier.core.run import Run
    orig = RQ.run_arg
    ARG_PARSERS["run"] = lambda v: Run(orig(v).phases[:1])


def _sweep_key_without_run():
    """A sweep cell's key computed without its run."""
    from verifier.sweep import cells, run as R
    orig = cells.key
    k = lambda compute, cell: orig(compute, {a: v for a, v in cell.items() if a != "run"})
    cells.key = R.key = k


def _window_charge_dropped():
    """The composed window's charge 2 e^eps P_out left out of the upper ends (P_out itself
    kept: only the formulas of the upper ends lose the term)."""
    from verifier.numerics.compose import ComposedProfile as CP

    def without(orig):
        def f(self, eps):
            saved = self.oR, self.oA
            self.oR, self.oA = self.oR * 0, self.oA * 0
            try:
                return orig(self, eps)
            finally:
                self.oR, self.oA = saved
        return f
    CP._upper_remove, CP._upper_add = without(CP._upper_remove), without(CP._upper_add)


def _epsilon_upper_from_lower_ball():
    """epsilon(delta)'s 'delta(e) <= delta' read off the lower end of delta(e)."""
    from verifier.numerics import brackets as B
    orig = B.epsilon_direction

    class Swapped:
        def __init__(self, P):
            self.P = P

        def __getattr__(self, name):
            return getattr(self.P, name.replace("upper_", "lower_"))
    B.epsilon_direction = lambda P, which, delta, *a, **k: orig(Swapped(P), which, delta, *a, **k)


def _calibrate_phase_scales_all():
    """Phase i's calibration scales every phase (the phase argument of scaled dropped)."""
    from verifier.deploy import run_sigma
    orig = run_sigma.scaled
    return _set("verifier.deploy.run_sigma:scaled", lambda run, c, phase=None: orig(run, c))


def _blocked_sums_short():
    real = _get("verifier.numerics.direct:blocked_sums")
    _set("verifier.numerics.direct:blocked_sums",
         lambda seqs, N, K, lo, hi, g=1: real([[(p, v) for p, v in seq if p < hi]
                                               for seq in seqs], N, K, lo, hi - g, g))


def _spectral_radius_unchecked():
    from flint import arb
    from verifier.numerics import spectral
    spectral.checked_radii = lambda bits, ns, Vs: (spectral.radii(bits, ns, Vs),
                                                   arb(2) ** -bits)


def _left_out_level_uncharged():
    """The sparse path certifies its edges at the budget's level but charges the sums the
    working precision's 2^-(prec + 10)."""
    _rewritten("verifier.numerics.spectral:_edges", "    out = got[1]\n",
               "    out = arb(2) ** -(prec + 10)\n")


def _float_twiddles_uncertified():
    from verifier.numerics import float_dft
    real = float_dft.twiddles
    float_dft._TWIDDLES.clear()
    float_dft.twiddles = lambda L: (real(L)[0], 0.0)


def _float_law_radii_dropped():
    from verifier.numerics import spectral
    real = spectral.float_law
    spectral.float_law = lambda pts: real(pts)[:2] + (0.0,)


def _float_l1_real_part_only():
    import numpy as np
    from verifier.numerics import float_dft
    float_dft.l1_upper = lambda x: float(np.abs(x.real).sum())


def _sparse_tails_dropped():
    """The direct sums of a dense run with tails: the tails' sums not added."""
    from flint import acb
    from verifier.numerics import direct
    direct.sparse_sums = lambda seqs, N, K: [{k: acb(0) for k in range(K + 1)} for _ in seqs]


def _rewritten(path: str, old: str, new: str):
    """The function at ``path`` recompiled from its source with ``old`` replaced by ``new``
    (once, and it must occur), in its own module's namespace (which it then replaces)."""
    import inspect
    import textwrap
    f = _get(path)
    src = textwrap.dedent(inspect.getsource(f))
    if src.count(old) != 1:
        raise RuntimeError(f"{path}: the text to mutate is not there once: {old!r}")
    exec(compile(src.replace(old, new), f.__code__.co_filename, "exec"), f.__globals__)


def _guide_ignored():
    real = _get("verifier.numerics.brackets:bisect")

    def blind(good, bad, ok, rel, absolute, guide=None):
        return real(good, bad, ok, rel, absolute)
    _set("verifier.numerics.brackets:bisect", blind)


def _sums_by_horner():
    """SpectralLaw's sums' polynomial evaluated by Horner's rule at the ball root (acb_poly)."""
    from flint import acb_poly
    import verifier.numerics.spectral as S

    def at_root(self, m):
        coeffs = [self.M[a, b] for a in range(self.A) for b in range(self.B)]
        return acb_poly(coeffs)(S.root(m, self.N))
    S.Poly.at_root = at_root


def _bisection_rel_fixed():
    """The epsilon search's tolerance fixed at REL, whatever the request, where every
    engine looks it up."""
    from verifier.numerics import brackets
    for mod in ("verifier.numerics.brackets", "verifier.bounds.poisson",
                "verifier.bounds.runs", "verifier.bounds.profile"):
        _set(mod + ":bisection_rel", lambda rel_width: brackets.REL)


def _next_guess_ignored():
    """Every engine's refined search starts from its first guess."""
    for mod in ("verifier.numerics.brackets", "verifier.bounds.poisson",
                "verifier.bounds.runs", "verifier.bounds.profile"):
        _set(mod + ":next_guess", lambda guess, ivs: guess)


def _k_of_m_tests_unused():
    from verifier.bounds.runs import k_of_m as KM
    KM.epsilon_lower_ends = lambda run, delta, lo, up, rel: (lo.epsilon, lo.remove, lo.add)
    KM.delta_lower_ends = lambda run, eps, lo: (lo.delta, lo.remove, lo.add)


def _k_of_m_all_shifted():
    from verifier.bounds.runs import k_of_m as KM
    KM.epoch_laws = lambda q, m, M, k: KM.convolved(q, m, 0, M)


def _k_of_m_shift_dropped():
    from verifier.bounds.runs import k_of_m as KM
    real = KM.coordinate_laws

    def same(sigma, r, eta, J):
        q, _ = real(sigma, r, eta, J)
        return q, list(q)
    KM.coordinate_laws = same


def _k_of_m_unweighted():
    from verifier.bounds.runs import k_of_m as KM
    from verifier.core.arith import to_arb
    KM.weight = lambda eps: to_arb(eps)


def _spectral_nyquist_flipped():
    from verifier.numerics import spectral

    def omega(self, i, rho):
        B0, P, Bn, _ = self._coefs(rho)
        z = spectral.root(i, self.N)
        return (2 * P(z)).real + (-Bn.real if i % 2 == 0 else Bn.real) + B0.real
    spectral.SpectralLaw._omega = omega


def _spectral_mirror_not_doubled():
    """SpectralLaw's sums with each kept k counted once, not with its mirror N - k."""
    from verifier.numerics import spectral

    def omega(self, i, rho):
        B0, P, Bn, _ = self._coefs(rho)
        z = spectral.root(i, self.N)
        return P(z).real + (Bn.real if i % 2 == 0 else -Bn.real) + B0.real
    spectral.SpectralLaw._omega = omega


def _lazy_scan_blind():
    """The lazy threshold scan reading each tail as a difference of two floats (the prefix
    sums rounded first: a P0 tail below 1e-16 reads as 0)."""
    from verifier.numerics import ends
    from verifier.numerics.compose import ComposedProfile

    def blind(self, t, ge):
        f = lambda P, i: float(P[min(max(i, 0), len(P) - 1)].mid())   # noqa: E731
        if ge:
            return (f(self.P1, -1) - f(self.P1, t - self.s1),
                    f(self.P0, -1) - f(self.P0, t - self.s0))
        return tuple(float(v.mid()) for v in (ends.mass_at_most(self.P0, self.s0, t),
                                               ends.mass_at_most(self.P1, self.s1, t)))
    ComposedProfile._event_floats = blind


MUTATIONS = [
    Mutation("training.any-run-certified", "input",
             "the accountant's refusals dropped (a Poisson, shuffled or unseen run gets a number)",
             lambda: _set("verifier.accountants:run_refusal", lambda acc: None),
             ("tests/test_accountant.py::test_refuses_every_sampler_but_random_allocation",
              "tests/test_accountant.py::test_steps_whose_loader_was_not_seen_are_refused")),
    Mutation("training.poisson-taken-for-random-allocation", "input",
             "Opacus's Poisson sampler described as random allocation",
             _poisson_as_random_allocation,
             ("tests/test_accountant.py::test_refuses_every_sampler_but_random_allocation",)),
    Mutation("training.epochs-left-early-undercounted", "input",
             "epochs counted from the steps only (an epoch left early and begun again is a new "
             "allocation)",
             lambda: _set("verifier.accountants:RandomAllocationAccountant.epochs",
                          lambda self: -(-len(self) // (self.steps_per_epoch or 1))),
             ("tests/test_accountant.py::test_epochs_left_early_count_as_allocations_drawn",)),
    Mutation("input.float-read-as-binary", "input",
             "a float read as its binary expansion, not as the decimal it prints as",
             _float_as_binary,
             ("tests/test_arith.py::test_exact_decimals_not_floats",
              "tests/test_accountant.py::test_float_policy_in_the_accountant")),
    Mutation("search.tolerance-calibration-verdict-ignored", "search",
             "get_noise_multiplier's search takes every sigma as meeting the target (the certified "
             "predicate's verdict ignored)",
             _tolerance_meets_always,
             ("tests/test_profile.py::test_get_noise_multiplier_api",)),
    Mutation("input.claims-exact-size-unlimited", "input",
             "claims' exact values unlimited in size (a tower of powers is computed)",
             lambda: _set("verifier.claims.expr:MAX_EXACT_BITS", 1 << 40),
             ("tests/test_hostile_claims.py::test_size_limits_in_process",)),
    Mutation("input.claims-ball-size-unchecked", "input",
             "the results of an expression's evaluation not checked against the size limit",
             lambda: _set("verifier.claims.expr:_ball_sized", lambda x: x),
             ("tests/test_hostile_claims.py::test_size_limits_in_process",)),
    # binding mutations: the ENGINE's code broken, check-proofs must fail (the check reads
    # the engine's objects, not a copy)
    Mutation("binding.condition-2-without-phi", "proof",
             "Phi(-kappa) dropped from the engine's validity condition (2)",
             _condition_2_without_phi,
             ("proofs_checks/test_proofs.py::test_check[interpretation.large-sigma-infeasible]",)),
    Mutation("binding.large-sigma-cutoff-8", "proof",
             "the engine's large-sigma cut-off constant 4 -> 8 (sigma_range)",
             lambda: _set("verifier.bounds.theorem31:LARGE_SIGMA_S2_NUM", 8),
             ("proofs_checks/test_proofs.py::test_check[interpretation.large-sigma-infeasible]",)),
    Mutation("binding.chernoff-k-smaller", "proof",
             "the engine's Chernoff constants k_n made 1% smaller (unsafe)",
             lambda: _set("verifier.bounds.moments:chernoff_k",
                          lambda n: Fraction((n - 1) ** (n - 1), n ** n) * Fraction(99, 100)),
             ("proofs_checks/test_proofs.py::test_check[renyi.hockey-stick-chernoff]",)),
    Mutation("binding.t6-exponent", "proof",
             "the engine's T6 exponent -25/24 -> -26/24",
             _t6_exponent_26,
             ("proofs_checks/test_proofs.py::test_check[tail.T6-bounds-tail]",)),
    Mutation("binding.negative-eps-without-c", "proof",
             "the engine's delta(-e) = 1 - c + c delta'(e) with the factor c = e^-e dropped",
             lambda: _set("verifier.numerics.brackets:negative_eps_delta", lambda c, d: 1 - c + d),
             ("proofs_checks/test_proofs.py::test_check[tradeoff.negative-eps]",
              "tests/test_negative_eps.py::test_gaussian_mechanism_at_negative_eps")),
    Mutation("binding.first-cell-piece-one-term-short", "proof",
             "the engine's all-in-the-first-cell binomial piece one term short",
             _first_cell_piece_short,
             ("proofs_checks/test_proofs.py::test_check[profile.first-cell-split]",)),
    Mutation("binding.moments-egf-factorial", "proof",
             "the engine's integer moments with 1/(k+1)! in place of 1/k!",
             _egf_wrong_factorial,
             ("proofs_checks/test_proofs.py::test_check[renyi.moment-sum]",)),
    Mutation("binding.truncated-power-off", "proof",
             "the engine's truncated power one squaring short for odd M",
             _truncated_power_wrong,
             ("proofs_checks/test_proofs.py::test_check[renyi.moment-sum]",)),
    Mutation("input.tiny-radius-dropped", "input",
             "a ball's radius finer than 2^-4096 dropped instead of widened (ends not outward)",
             _tiny_radius_dropped,
             ("tests/test_arith.py::test_ball_bounds_round_extreme_ends_outward",)),
    Mutation("compose.lost-delta-ball-as-zero", "compose",
             "a delta(eps) ball the engine lost (not finite) read as upper end 0, not 1",
             _lost_ball_as_zero,
             ("tests/test_arith.py::test_profile_bracket_of_a_lost_ball_is_trivial",)),
    Mutation("search.tolerance-accepted-unchecked", "search",
             "get_noise_multiplier's tolerance step taken as certified without its evaluation",
             _tolerance_unchecked,
             ("tests/test_profile.py::test_get_noise_multiplier_api",)),
    Mutation("input.claims-sizes-not-checked-at-load", "input",
             "claims' exact sub-values not checked when the file is read",
             lambda: _set("verifier.claims.expr:check_sizes", lambda node, env: None),
             ("tests/test_hostile_claims.py::test_size_limits_in_process",)),
    Mutation("input.engine-range-unchecked", "input",
             "the (epsilon, delta) engine's range not enforced",
             lambda: _set("verifier.core.ranges:Range.check", lambda self, *a, **k: None),
             ("tests/test_cli.py::test_engine_range_stated_once",)),
    Mutation("search.accountant-float-rounded-to-nearest", "search",
             "the accountant's certified upper end converted to the nearest float (it may round down)",
             lambda: _set("verifier.accountants:up_float", float),
             ("tests/test_accountant.py::test_reported_float_is_rounded_up",)),
    Mutation("judge.truncated-as-rounded", "judge",
             "the truncated judge ('1.36843...') read as rounding", _truncated_as_rounded,
             (CV + "test_every_judge_confirms_and_refutes",)),
    Mutation("judge.between-upper-end-only", "judge",
             "the between judge checks only value <= high", _between_upper_only,
             (CV + "test_every_judge_confirms_and_refutes",)),
    Mutation("judge.equals-proved-by-numerics", "judge",
             "an identity 'proved' whenever it is asked (numerics taken as proof)",
             _equals_numeric_proves,
             (CV + "test_equals_with_a_quantity_is_numeric_only",
              CV + "test_every_judge_confirms_and_refutes")),
    Mutation("box.extremum-without-lower-end", "box",
             "the extremum reported as the best point value alone (no cover of the box)",
             _extremum_without_lower_end,
             (CV + "test_extremum_of_a_parabola_and_its_argmin",)),
    Mutation("views.remove-tail-dropped", "tail",
             "the Rényi integral's remove tail beyond the grid (the moment bound) replaced by 0",
             lambda: _set("verifier.views.grid:tail_remove", _const_arb(0)),
             (V + "test_profile_integral_encloses_the_exact_integer_moment",)),
    Mutation("views.upper-end-read-right", "spread",
             "on each cell of the profile grid the upper end of delta read at the right end "
             "(delta is nonincreasing: the left end bounds the cell)",
             _views_upper_read_right,
             (V + "test_profile_integral_encloses_the_exact_integer_moment",
              V + "test_gaussian_tradeoff_is_G_mu")),
    Mutation("views.zcdp-remove-amplified", "compose",
             "the remove direction's zCDP parameter divided by M (as if amplification survived)",
             lambda: _set("verifier.views.renyi:rho_remove",
                          lambda sigma, E: Fraction(E) / (2 * sigma ** 2) / 100),
             (V + "test_zcdp_of_random_allocation",)),
    Mutation("views.conversion-prefactor-flipped", "compose",
             "the improved Rényi conversion with log(a/(a-1)) for log((a-1)/a)",
             _views_conversion_prefactor_flipped,
             (V + "test_improved_conversion_value_at_an_order",)),
    Mutation("views.tradeoff-second-family-dropped", "compose",
             "the cover of the trade-off's upper end without the second family (negative eps)",
             lambda: _set("verifier.views.tradeoff:_upper_lines",
                          (lambda real: lambda g, w, fam: real(g, w, fam) if fam == 1 else [])(
                              _get("verifier.views.tradeoff:_upper_lines"))),
             (V + "test_gaussian_tradeoff_is_G_mu",)),
    Mutation("views.chord-weight-dropped", "spread",
             "the log-convexity chord between integer moments without the weight of phi(n)",
             _views_chord_without_left_weight,
             (V + "test_gaussian_mechanism_is_its_zcdp_envelope",)),
    Mutation("views.gaussian-symmetry-for-every-M", "compose",
             "the M = 1 reflection (both directions equal) applied to the Rényi curve at every M",
             lambda: _set("verifier.views.renyi:_gaussian", lambda M: True),
             (V + "test_real_orders_bracket_and_order_monotonicity",
              V + "test_zcdp_of_random_allocation")),
    Mutation("profile.symmetry-for-every-M", "compose",
             "the M = 1 symmetry (delta_A = delta_R) applied at every M",
             _profile_symmetry_everywhere,
             (P + "test_published_pld_brackets_intersect_and_ours_is_narrower",
              P + "test_dp_accounting_random_allocation_row_is_consistent")),
    Mutation("profile.spread-contracted", "spread",
             "each body cell's mass put at its left end instead of spread onto both ends",
             _profile_spread_contracted,
             (P + "test_gaussian_mechanism_inside_both_directions",)),
    Mutation("profile.log-spread-wrong-end", "spread",
             "the log-grid spread starts from the ball's other end (down for remove, up for add)",
             _profile_spread_log_flipped, (P + "test_spread_log_moves_in_the_stated_direction",)),
    Mutation("profile.pair-sums-rounded-down", "spread",
             "the pair sums moved to their lower geometric neighbour (not a mean-preserving spread)",
             _profile_geometric_down, (P + "test_geometric_and_collapse_contracts",)),
    Mutation("profile.collapse-wrong-way", "spread",
             "the coarse law's far masses moved down for remove and up for add",
             _profile_collapse_flipped, (P + "test_geometric_and_collapse_contracts",)),
    Mutation("profile.onto-lattice-rounded-down", "spread",
             "the tail parts put at the lattice point below instead of spread onto both neighbours",
             _profile_onto_lattice_down, (P + "test_lattice_spreads_keep_mass_and_mean",)),
    Mutation("profile.coarse-rounded-down", "spread",
             "a sum's block put at the block's lower end instead of spread onto both ends",
             _profile_coarse_down, (P + "test_lattice_spreads_keep_mass_and_mean",)),
    Mutation("profile.convolve-shifted", "spread",
             "the ball polynomial product's result read one lattice point low",
             _profile_convolve_shifted, (P + "test_convolve_is_the_convolution",)),
    Mutation("profile.packed-laws-swapped", "compose",
             "the two laws composed in one DFT read back in swapped order",
             _profile_packed_parts_swapped, (P + "test_composed_window_bounds_the_aliased_mass",)),
    Mutation("profile.add-moment-bound-low", "tail",
             "the add direction's moment bound lowered by e^{-E u/2} (the AM-GM step's shift dropped)",
             _profile_add_moment_low, (P + "test_add_moment_bound_is_above_the_truth",)),
    Mutation("profile.first-cell-levels-dropped", "spread",
             "the add law's all-in-the-first-cell piece left out (the atom at W = 0 subtracted, "
             "nothing put back)",
             lambda: _set_profile("first_cell_levels",
                          lambda sigma, M, a, budget, first=None: ([], _const_arb(0)())),
             (P + "test_m2_against_quadrature",
              P + "test_first_cell_levels_account_for_the_mass")),
    Mutation("profile.first-cell-charge-dropped", "tail",
             "the first-cell levels' last piece (all items below the last level) not charged",
             _profile_first_cell_charge_dropped, (P + "test_first_cell_levels_account_for_the_mass",)),
    Mutation("profile.first-cell-binomial-swapped", "spread",
             "the all-in-the-first-cell binomial piece built with the cell's two end masses swapped",
             _profile_first_cell_swapped, (P + "test_first_cell_levels_account_for_the_mass",
                                           P + "test_m2_against_quadrature")),
    Mutation("profile.first-cell-split-never", "spread",
             "the add law never split on the first cell (its atom at W = 0 charged whole)",
             lambda: _set_profile("split_first_cell",
                          lambda *a: False),
             (P + "test_m2_against_quadrature",
              P + "test_small_sigma_small_m_is_bracketed")),
    Mutation("profile.first-cell-test-p1-low", "test",
             "the first cell's refined test outcomes with their P1 masses halved",
             _profile_first_cell_test_p1_low, (P + "test_m2_against_quadrature",)),
    Mutation("profile.k-body-one-item-short", "spread",
             "the K = 2 part of the remove law on B_{M-3}, one body item fewer than K = 2 leaves",
             _profile_k_body_short, (P + "test_k2_body_has_enough_items",)),
    Mutation("profile.first-bucket-not-refined", "test",
             "the K = 0 test bucket keeps the all-in-the-first-cell outcomes that the refined "
             "outcomes count again (not a partition)",
             lambda: _set_profile("refine_first_bucket",
                          lambda k0, BM, T1l: k0),
             (P + "test_m2_against_quadrature",)),
    Mutation("profile.keep-low-dropped", "spread",
             "the add law's sums below the coarse lattice's first step left out",
             _profile_keep_low_dropped, (P + "test_coarse_keep_low_keeps_mass_mean_and_zero",)),
    Mutation("profile.tail-charge-dropped", "tail",
             "the union-bound charge for items above t_max and K > kmax replaced by 0",
             lambda: _set_profile("tail_charge", _const_arb(0)),
             (P + "test_large_floor_charges_the_truncated_tail",)),
    Mutation("profile.window-mass-dropped", "tail",
             "the Chernoff bound of the composed DFT window's outside mass replaced by 0",
             lambda: _set("verifier.numerics.convolve:chernoff_mass", _const_arb(0)),
             (P + "test_composed_window_bounds_the_aliased_mass",)),
    Mutation("profile.bisection-returns-wrong-end", "search",
             "the eps bisection returns its two ends swapped (eps_hi not certified)",
             _profile_bisect_swapped, (P + "test_epsilon_bracket_invariant",)),
    Mutation("profile.undecided-taken-as-holds", "search",
             "the (epsilon, delta) predicate reads an undecided comparison as 'meets'",
             _profile_meets_undecided_holds, (P + "test_meets_is_three_valued_and_consistent",
                                              P + "test_calibrate_sigma_is_minimal_on_the_grid")),
    Mutation("hypothesis.sigma-always-holds", "hypothesis",
             "hypothesis 2 (sigma >= sqrt(3/ln M)) margin replaced by the constant 1",
             lambda: _set("verifier.symbolic.derived:hyp_sigma", _const_arb(1)),
             (D + "test_hypothesis_verdicts_agree_with_the_reference",)),
    Mutation("hypothesis.validity-always-holds", "hypothesis",
             "validity condition (2) margin replaced by the constant 1",
             lambda: _set("verifier.symbolic.derived:hyp_validity", _const_arb(1)),
             (D + "test_hypothesis_verdicts_agree_with_the_reference",)),
    Mutation("hypothesis.steps-always-holds", "hypothesis",
             "hypothesis 1 (M >= 3) margin replaced by the constant 1",
             lambda: _set("verifier.bounds.theorem31:steps_margin", lambda M: 1),
             (D + "test_hypothesis_verdicts_agree_with_the_reference",)),
    Mutation("hypothesis.sign-flipped", "hypothesis",
             "the certified sign test g >= 0 returns the opposite verdict",
             _flip_sign, (D + "test_hypothesis_verdicts_agree_with_the_reference",)),
    Mutation("box.fails-always", "box", "the box test 'no sigma in [a, b] is feasible' always true",
             lambda: _set("verifier.deploy.sigma:_box_fails", lambda *a: True),
             (D + "test_box_tests_agree_with_the_reference",
              D + "test_coarse_grid_does_not_claim_the_continuum")),
    Mutation("box.holds-always", "box", "the box test 'every sigma in [a, b] is feasible' always true",
             lambda: _set("verifier.deploy.sigma:_box_holds", lambda *a: True),
             (D + "test_box_tests_agree_with_the_reference",)),
    Mutation("box.mean-value-no-radius", "box",
             "the mean-value form drops its derivative term (the box evaluated at its midpoint)",
             _mean_value_without_radius, (D + "test_box_tests_agree_with_the_reference",)),
    Mutation("box.hypothesis-2-end-too-high", "box",
             "the end L below which hypothesis 2 proves infeasibility doubled",
             _sigma_range(scale_lo=2), (D + "test_sigma_range_ends_are_proofs",)),
    Mutation("box.condition-2-end-too-low", "box",
             "the end U above which condition (2) proves infeasibility divided by 100 (it then "
             "cuts into the feasible range)",
             _sigma_range(scale_hi=Fraction(1, 100)), (D + "test_sigma_range_ends_are_proofs",)),
    Mutation("search.not-minimal", "search", "the integer search returns one above its answer",
             _search_off_by_one, (D + "test_m_exact_table1_row_unchanged",
                                  D + "test_steps_and_calibrate_steps_agree")),
    Mutation("search.undecided-taken-as-fails", "search",
             "an undecided comparison in a search is read as a failure",
             _undecided_as_fails, (D + "test_exact_calibration_straddle_is_inconclusive",
                                   "tests/test_steps.py::test_undecided_becomes_inconclusive_never_a_guess")),
    Mutation("search.decide-never-raises-precision", "search",
             "the precision loop stops at 64 bits whatever the ball says",
             _decide_never_raises,
             ("tests/test_steps.py::test_undecided_becomes_inconclusive_never_a_guess",)),
    Mutation("search.exact-inconclusive-drops-the-bounds", "search",
             "an inconclusive exact-TV calibration discards the bounds' certified answer",
             _exact_inconclusive_drops_the_bounds,
             (D + "test_inconclusive_exact_keeps_the_bounds_answer",)),
    Mutation("search.exact-refusal-as-fails", "search",
             "the exact engine's refusal (sigma < 0.1) is read as 'certified infeasible'",
             _exact_verdict(refused=_fails()),
             (D + "test_exact_calibration_refusal_below_is_inconclusive",)),
    Mutation("search.exact-straddle-as-fails", "search",
             "an exact bracket straddling the target is read as 'certified infeasible'",
             _exact_verdict(straddle=_fails()),
             (D + "test_exact_calibration_certifies_with_a_failing_lower_end",)),
    Mutation("search.reading-ignored", "search",
             "M_certified searched with condition (2) at the target delta (Table 1's reading)",
             _reading_ignored, (D + "test_steps_sigma_5_certifies_through_the_theorems_reading",
                                D + "test_steps_and_calibrate_steps_agree")),
    Mutation("search.lower-bound-too-high", "search",
             "the certified lower bound of every feasible M (M_BE, e^{3/sigma^2}) multiplied by 1e40",
             _needed_steps_too_high, (D + "test_m_exact_table1_row_unchanged",)),
    Mutation("tail.chernoff-zero", "tail", "the out-of-window Chernoff mass replaced by 0",
             _chernoff_zero, (D + "test_forced_small_windows_stay_rigorous",)),
    Mutation("tail.chernoff-integral-capped", "tail",
             "the integrated Chernoff tail drops max(0, ln C0)/theta (the capped constant)",
             _tail_integral_capped, (D + "test_chernoff_tail_integral_keeps_the_constant",)),
    Mutation("spread.cell-mass-at-lower-end", "spread",
             "the body cells' convex-order spread replaced by all mass at the cell's lower end",
             _spread_at_lower_end,
             ("tests/test_exact_one.py::test_m3_bracket_contains_pinned_reference",
              "tests/test_exact.py::test_m2_bracket_contains_certified_quadrature")),
    Mutation("spread.log-grid-rounded-down", "spread",
             "the E-epoch log-grid spread replaced by rounding down to the grid",
             _spread_point_floor,
             ("tests/test_exact.py::test_epochs_bracket_contains_seeded_monte_carlo",
              "tests/test_exact_one.py::test_epochs_at_small_m")),
    Mutation("compose.no-composition", "compose",
             "delta_E over E epochs taken as the one-epoch delta (composition dropped)",
             _no_composition, (D + "test_bound_delta_is_the_epochs_target",)),
    Mutation("compose.accuracy-target-as-delta", "compose",
             "an accuracy target A read as delta_E <= A instead of 2A - 1",
             _accuracy_target_as_delta,
             ("tests/test_deploy.py::test_accuracy_target_is_twice_minus_one",)),
    Mutation("judge.rounded-too-wide", "judge",
             "the rounding interval of a printed value widened tenfold",
             _widen_rounding, ("tests/test_claims.py::test_user_claims_all_verdicts",)),
    Mutation("judge.at-most-flipped", "judge",
             "'value <= printed' decided as 'value >= printed' (the inequality flipped)",
             _at_most_on_lower_end, ("tests/test_claims.py::test_user_claims_all_verdicts",)),
    Mutation("judge.relative-always-confirms", "judge",
             "the relative-difference judge confirms without comparing",
             _relative_confirms_loosely, ("tests/test_claims.py::test_user_claims_all_verdicts",)),
    Mutation("proof.identity-always-proved", "proof", "the identity helper always says proved",
             _proof("identity"), ("tests/test_negative_controls.py",)),
    Mutation("proof.sign-always-proved", "proof", "the sign helper always says proved",
             _proof("sign_proved"),
             ("tests/test_negative_controls.py::test_increasing_term_refuted_by_monotonicity_check",)),
    Mutation("proof.cite-counted-as-proved", "proof", "a cited textbook lemma counted as proved",
             _proof("cite", "proved"),
             ("proofs_checks/test_proofs.py::test_check[chisquare.tv-bound]",)),
    Mutation("proof.chain-ignores-unknown-steps", "proof",
             "a chain is proved although a step is only unknown",
             _all_proved_ignores_unknown,
             ("tests/test_negative_controls.py::test_chain_with_an_unknown_step_is_not_proved",)),
    Mutation("input.sigma-range-dropped", "input", "the input layer's sigma range removed",
             _sigma_range_unbounded,
             ("tests/test_hostile.py::test_refused_quickly_and_nothing_written[sigma beyond 1e6]",)),
    Mutation("brackets.bisection-undecided-as-above", "search",
             "the certified bisection of epsilon reads an undecided comparison as 'delta above "
             "the target' (an end no comparison certified)",
             _bisection_undecided_as_above,
             (PS + "test_the_bisection_never_ends_on_an_undecided_comparison",)),
    Mutation("poisson.one-step-closed-form-unused", "input",
             "one step (T = 1) answered by the lattice, not its closed form",
             lambda: _set("verifier.bounds.poisson.single:closed_form", lambda T: False),
             (PS + "test_dp_accounting_subsampled_rows_decided",)),
    Mutation("poisson.one-step-closed-form-always", "input",
             "every T answered by one step's closed form",
             lambda: _set("verifier.bounds.poisson.single:closed_form", lambda T: True),
             (PS + "test_two_steps_are_not_one",)),
    Mutation("poisson.one-step-add-as-remove", "spread",
             "one step's add direction taken as its remove direction",
             _poisson_single_add_as_remove,
             (PS + "test_one_step_closed_form_holds_the_quadrature_to_many_digits",)),
    Mutation("poisson.one-step-bisection-flipped", "spread",
             "one step's epsilon bisection reads 'delta above the target' as 'below'",
             _poisson_single_bisection_flipped,
             (PS + "test_one_step_epsilon_by_bisection_holds_the_root",)),
    Mutation("poisson.atom-at-infinity-dropped", "tail",
             "the dominating pair's A-atom at +inf (delta beyond the last lattice point) left "
             "out: the cut-off tail uncharged",
             _poisson_atom_dropped, (PO + "test_forced_coarse_laws_and_early_cut_stay_rigorous",)),
    Mutation("poisson.chord-from-origin-dropped", "spread",
             "the interpolant's segment from (0, 1) to the first point replaced by a flat one",
             _poisson_chord_from_origin_dropped,
             (PO + "test_one_step_brackets_hold_the_quadrature",
              PO + "test_q_one_is_the_gaussian_mechanism")),
    Mutation("poisson.mixture-weights-swapped", "spread",
             "P(x >= a) = (1 - q) G + q H computed as q G + (1 - q) H",
             _poisson_mixture_weights_swapped,
             (PO + "test_one_step_brackets_hold_the_quadrature",)),
    Mutation("poisson.test-cells-cumulative", "test",
             "each test cell given the whole tail above it, not the difference of tails",
             _poisson_cells_cumulative, (PO + "test_one_step_brackets_hold_the_quadrature",
                                         PO + "test_q_one_is_the_gaussian_mechanism")),
    Mutation("poisson.test-thresholds-not-scanned", "test",
             "the lower ends' thresholds only near eps / eta (the cells' left-end labels "
             "shift the best one by T/2 cells)",
             _poisson_tests_not_scanned,
             (PO + "test_issue_example_and_published_float_accountants",
              PO + "test_lower_ends_find_the_best_threshold_on_a_coarse_lattice")),
    Mutation("poisson.accountant-largest-sigma", "input",
             "the history-to-run conversion reads every phase at the largest noise multiplier",
             _poisson_largest_sigma, (PO + "test_poisson_accountant_composes_mixed_steps_exactly",)),
    Mutation("poisson.accountant-smallest-rate", "input",
             "the history-to-run conversion reads every phase at the smallest sample rate",
             _poisson_smallest_rate, (PO + "test_poisson_accountant_composes_mixed_steps_exactly",)),
    Mutation("poisson.accountant-any-sampler", "input",
             "any batch sampler taken for Opacus's Poisson sampler",
             _poisson_any_sampler,
             (PO + "test_poisson_accountant_binds_only_opacus_poisson_sampler",)),
    Mutation("poisson.accountant-rate-unchecked", "input",
             "steps at a rate other than the bound sampler's certified",
             _poisson_rate_unchecked,
             (PO + "test_poisson_accountant_binds_only_opacus_poisson_sampler",)),
    Mutation("binding.poisson-threshold-without-u", "proof",
             "the engine's loss threshold b(a) with its u/2 dropped",
             _poisson_threshold_without_u,
             ("proofs_checks/test_proofs.py::test_check[poisson.loss-threshold]",)),
    Mutation("binding.poisson-tails-weights-swapped", "proof",
             "the engine's P-tail with the mixture weights q and 1 - q swapped",
             _poisson_tails_weights_swapped,
             ("proofs_checks/test_proofs.py::test_check[poisson.mixture-tails]",)),
    Mutation("binding.connect-the-dots-no-constant-tail", "proof",
             "the dominating pair's interpolant continued with its last slope, not constant",
             _ctd_last_slope_kept,
             ("proofs_checks/test_proofs.py::test_check[poisson.connect-the-dots]",)),
    Mutation("poisson.sampler-comparison-unchecked", "judge",
             "the certificate says random allocation's epsilon is lower without the brackets "
             "separating",
             _sampler_comparison_unchecked,
             (PO + "test_certificate_compares_with_poisson_certified",)),
    Mutation("poisson.renyi-tails-dropped", "tail",
             "the Rényi integrals' closed-form tails beyond the window taken as 0",
             _poisson_renyi_tails_dropped, (PO + "test_renyi_narrow_window_stays_rigorous",)),
    Mutation("poisson.renyi-binomial-exponent", "spread",
             "the remove direction's exact integer moments with e^{k(k+1)u/2}",
             _poisson_renyi_binomial_exponent,
             (PO + "test_renyi_integer_orders_exact_and_the_integration_agrees",)),
    Mutation("gaussian.bisection-undecided-meets", "search",
             "the digits path's comparison at 64 bits only, an undecided one read as meeting "
             "delta",
             _gaussian_compare_lax,
             ("tests/test_gaussian_digits.py::test_epsilon_to_the_digits_asked",)),
    Mutation("binding.gaussian-profile-without-c", "proof",
             "the closed form's e^eps factor dropped",
             _gaussian_profile_without_c,
             ("proofs_checks/test_proofs.py::test_check[gaussian.profile-closed-form]",)),
    Mutation("poisson.rel-width-ignored", "search",
             "the requested relative width ignored (the default target kept)",
             lambda: _set("verifier.bounds.poisson:check_rel_width",
                          lambda rel: __import__("fractions").Fraction(1, 1000)),
             (PO + "test_rel_width_on_demand",)),
    Mutation("gaussian.uncertified-upper-end", "search",
             "epsilon's upper end 1e6 reported when no eps was certified to meet delta",
             _gaussian_uncertified_upper,
             ("tests/test_gaussian_digits.py::test_epsilon_without_a_certified_upper_end_is_inconclusive",)),
    Mutation("profile.tail-parts-dropped", "spread",
             "the remove law's K >= 1 parts (tail items with the coarse body) left out",
             lambda: _set_profile("tail_parts", lambda *a: None),
             ("tests/test_profile_stages.py::test_upper_laws_at_c_zero_are_at_least_one",)),
    Mutation("profile.add-tail-items-dropped", "spread",
             "the add law's K >= 1 part (W >= (B_(M-1) + T1)/M, step (d)) left out, uncharged",
             lambda: _set_profile("add_tail_items", _const_arb(0)),
             ("tests/test_profile_stages.py::test_upper_laws_at_c_zero_are_at_least_one",)),
    Mutation("profile.test-tail-tilt-doubled", "test",
             "the tests' tail cells carry twice their tilted mass E[Y; cell] under P1",
             _profile_test_tilt_doubled,
             ("tests/test_profile_stages.py::test_statistic_laws_are_sub_probabilities", P + "test_m2_against_quadrature")),
    Mutation("profile.refinement-stops-at-level-one", "search",
             "a requested width's refinement loop returns the first level's bracket whatever "
             "its width (the stopping rule dropped)",
             lambda: _set("verifier.bounds.profile:refine",
                          lambda compute, wide, **k: (compute(1)[1], None)),
             ("tests/test_rel_width.py::test_requested_width_is_met_and_meets_the_default_bracket",
              "tests/test_rel_width.py::test_refine_loop_jumps_to_the_predicted_level_and_stops_when_narrow_enough")),
    Mutation("profile.refinement-stall-ignored", "search",
             "a requested width's refinement goes on past a bracket that stopped narrowing",
             lambda: _set("verifier.bounds.profile:STALLED", -1),
             ("tests/test_rel_width.py::test_refine_loop_stops_when_the_bracket_stops_narrowing",)),
    Mutation("profile.refinement-time-unpredicted", "search",
             "a requested width's next level is picked as if its time did not grow with the level",
             lambda: _set("verifier.bounds.profile:TIME_ORDER", 0),
             ("tests/test_rel_width.py::test_next_level_uses_the_measured_order_and_the_time_left",)),
    Mutation("profile.refinement-time-unmargined", "search",
             "a requested width's next level is picked by its predicted time without the margin",
             lambda: _set("verifier.bounds.profile:TIME_MARGIN", 1),
             ("tests/test_rel_width.py::test_next_level_uses_the_measured_order_and_the_time_left",)),
    Mutation("profile.stall-against-level-one", "search",
             "a requested width's refinement says the bracket stopped narrowing from level 1 "
             "(planned apart) to a refined level",
             lambda: _set("verifier.bounds.profile:stall_span", lambda a, b: 2 * a <= b),
             ("tests/test_rel_width.py::test_a_stall_is_judged_over_a_doubling_only",)),
    Mutation("profile.stall-on-short-span", "search",
             "a requested width's refinement says the bracket stopped narrowing from two levels "
             "less than a doubling apart",
             lambda: _set("verifier.bounds.profile:stall_span", lambda a, b: True),
             ("tests/test_rel_width.py::test_a_stall_is_judged_over_a_doubling_only",)),
    Mutation("profile.first-level-order-kept", "search",
             "a requested width measures the width order against level 1 even where its lattice "
             "differs (the band path: refined levels' lattice boosted)",
             lambda: _set("verifier.bounds.profile:level_one_apart", lambda M: False),
             ("tests/test_rel_width.py::test_next_level_uses_the_measured_order_and_the_time_left",
              "tests/test_rel_width.py::test_level_one_is_apart_on_the_band_path")),
    Mutation("profile.thin-moves-down", "spread",
             "the tail parts' product output is moved down onto its coarser lattices instead of "
             "spread onto them (the upper end no longer an upper end)",
             _thin_down,
             ("tests/test_profile_stages.py::test_thin_is_a_mean_preserving_spread_within_its_room",)),
    Mutation("profile.far-route-unbounded", "search",
             "the far route spreads B onto a lattice as coarse as it likes (its room in log W ignored)",
             lambda: _set_profile("far_coarsening", lambda v, b0, step, room: 1 << 20),
             ("tests/test_profile_stages.py::test_far_route_coarsens_b_within_its_room",)),
    Mutation("profile.limb-slack-dropped", "search",
             "a precision a few bits above two limbs is kept (three-limb DFTs at the corner)",
             lambda: _set("verifier.bounds.profile:LIMB_SLACK", 0),
             ("tests/test_profile_stages.py::test_precision_just_above_two_limbs_is_taken_down",)),
    Mutation("numerics.skipped-powers-exact-zero", "box",
             "the composition's negligible powers z^n (|z|^n below 2^-(prec+10)) become exact "
             "zeros instead of balls that hold them",
             _powers_exact_zero,
             ("tests/test_exact_one.py::test_skipped_powers_enclose_the_true_power",)),
    Mutation("compose.float-best-by-prefix-differences", "search",
             "the remove test's threshold is scanned on differences of float prefix sums (its "
             "P0 tail below 1e-16 reads as 0: the lower end of delta is 0 at tiny delta)",
             _float_best_by_prefix_differences,
             ("tests/test_poisson.py::test_remove_tests_find_their_threshold_at_tiny_tails[dense]",)),
    Mutation("compose.float-scan-unresolved", "search",
             "the threshold scan trusts its float sums however far below their rounding "
             "scale its best value lies (a P0 tail of 1e-20 read in floats: the lower end of "
             "delta is 0 at tiny delta)",
             lambda: _set("verifier.numerics.compose:SCAN_RESOLVED", 0.0),
             ("tests/test_poisson.py::test_remove_tests_find_their_threshold_at_tiny_tails[sparse]",)),
    Mutation("spectral.float-sums-mirror-unconjugated", "search",
             "the scans' float sums take the kept spectrum's mirrors unconjugated",
             _float_sums_mirror_unconjugated,
             ("tests/test_spectral.py::test_float_sums_for_the_scans_agree_with_the_exact_sums",)),
    Mutation("poisson.partial-step-dropped", "search",
             "a refinement halves the lattice step where the bracket is just too wide (no 7/8, "
             "6/8 or 5/8 of it: sigma 1, q 1e-3, T 1e5 asked for 1e-8 stopped 1.37e-8 wide at "
             "the point limit)",
             lambda: _set("verifier.bounds.poisson:next_step", lambda eta, width, want, n: eta / 2),
             ("tests/test_poisson.py::test_a_bracket_just_too_wide_takes_a_partial_step_within_the_point_limit",)),
    Mutation("poisson.stop-ignores-the-step", "search",
             "the point limit of a refinement judged as if the next step were a halving, "
             "whatever step it takes",
             _stop_ignores_the_step,
             ("tests/test_poisson.py::test_a_bracket_just_too_wide_takes_a_partial_step_within_the_point_limit",)),
    Mutation("memory.cached-engines-kept-at-the-limit", "search",
             "a reservation past the memory limit is refused while cached engines of earlier "
             "questions hold the memory it counts",
             lambda: _set("verifier.numerics.memory:release_all", lambda: 0),
             ("tests/test_memory.py::test_cached_engines_are_let_go_before_the_limit_refuses",)),
    Mutation("poisson.stall-ignored", "search",
             "a Poisson or run refinement goes on past a finer step that did not narrow the "
             "bracket (sigma 0.3, q 1e-6, T 1e7: 21 s more for nothing)",
             lambda: _set("verifier.bounds.poisson:STALL", 10 ** 9),
             ("tests/test_poisson.py::test_refinement_says_why_it_stopped_short",)),
    Mutation("poisson.stall-too-eager", "search",
             "a Poisson or run refinement stops after any finer step, however much it narrowed",
             lambda: _set("verifier.bounds.poisson:STALL", 0),
             ("tests/test_poisson.py::test_refinement_says_why_it_stopped_short",)),
    Mutation("poisson.limb-slack-dropped", "search",
             "a Poisson or run precision a few bits above two limbs is kept (three-limb DFTs "
             "at T 1e5 and 1e6)",
             lambda: _set("verifier.bounds.poisson:LIMB_SLACK", 0),
             ("tests/test_poisson.py::test_precision_just_above_two_limbs_is_taken_down",)),
    Mutation("profile.heavy-tail-tests-within-12-sd", "test",
             "the K = 1 tests bucket the other labels within 12 sd of their mean at heavy tails too",
             lambda: _set("verifier.bounds.profile.statistic:k1_reach", lambda P, n: 12),
             (P + "test_heavy_tails_tests_reach_the_whole_window",)),
    Mutation("claims.monotone-range-one-corner", "judge",
             "an engine quantity over a range of a monotone argument is evaluated at the range's "
             "lower ends only (its values at the other corner left out of the enclosure)",
             _monotone_range_one_corner,
             ("tests/test_claims_views.py::test_an_engine_call_over_a_range_encloses_its_values_at_both_ends",)),
    Mutation("profile.refined-tail-mass-kept", "search",
             "a requested width refines the lattice but keeps the light tails' default tail mass",
             lambda: _set("verifier.bounds.profile.plan:TAIL_FINE", 0),
             ("tests/test_rel_width.py::test_light_tails_refine_their_tail_mass_too",)),
    Mutation("profile.heavy-tail-mass-kept", "search",
             "a requested width keeps the heavy tails' default tail mass at every level",
             lambda: _set("verifier.bounds.profile.plan:TAIL_FINE_HEAVY", 0),
             (P + "test_heavy_tails_refine_their_tail_mass_and_cells",)),
    Mutation("profile.heavy-cells-kept", "search",
             "a requested width keeps the heavy tails' body cells (the doubling rule's default "
             "budget) at every level",
             lambda: _set("verifier.bounds.profile.plan:CELL_FINE_HEAVY", 0),
             (P + "test_heavy_tails_refine_their_tail_mass_and_cells",)),
    Mutation("profile.k2-pairs-merged", "test",
             "the K = 2 test outcomes are pairs of merged tail cells at every level (not every "
             "cell's pairs grouped by their sum where the tail's span allows)",
             lambda: _set("verifier.bounds.profile.statistic:pairs_by_product", lambda P: False),
             (P + "test_small_light_m_refines_its_pairs_of_tail_items",)),
    Mutation("profile.pair-law-merged", "spread",
             "the pair sums' law merges the tail cells at every level (not every pair by one "
             "ball polynomial product where the tail's span allows)",
             lambda: _set("verifier.bounds.profile.upper:pairs_by_product", lambda P: False),
             (P + "test_small_light_m_refines_its_pairs_of_tail_items",)),
    Mutation("profile.pairs-product-regardless-of-cost", "search",
             "the pairs of tail items are formed by ball polynomial products wherever the product "
             "fits, whatever it costs against the merged pairs (sigma 1, M 2: 7 of 8 s)",
             lambda: _set("verifier.bounds.profile.plan:PRODUCT_COST", 0),
             (P + "test_long_tails_at_small_m_form_their_pairs_one_by_one",)),
    Mutation("profile.pairs-cheap-product-dropped", "search",
             "a short tail's pairs are formed by products only where they cost less than the "
             "merged pairs (the cheap products, 20 times narrower at sigma 4, M 2, dropped)",
             lambda: _set("verifier.bounds.profile.plan:PRODUCT_CHEAP", 0),
             (P + "test_long_tails_at_small_m_form_their_pairs_one_by_one",)),
    Mutation("profile.pair-step-unrefined", "spread",
             "at small M with light tails the pair sums' geometric grid keeps its default step "
             "at every level",
             lambda: _set("verifier.bounds.profile.upper:pair_step",
                          lambda M, f, sl: 1 / 256 if M <= 16 else 1 / 32),
             (P + "test_small_light_m_refines_its_pairs_of_tail_items",)),
    Mutation("profile.log-grid-refined-as-level", "search",
             "a requested width refines the grid of log W only as the level (not fine isqrt(fine))",
             lambda: _set("verifier.bounds.profile.upper:grid_refinement", lambda f: f),
             (P + "test_refined_log_grid_follows_the_epochs",)),
    Mutation("renyi.grid-refinement-ignored", "search",
             "a requested width of the Rényi curve refines nothing (the grid ignores its level)",
             _renyi_grid_unrefined,
             ("tests/test_rel_width.py::test_renyi_curve_on_request_refines_the_profile_grid",)),
    Mutation("laplace.taylor-remainder-dropped", "tail",
             "the Laplace engine's Lagrange remainders (head and cells) replaced by 0",
             lambda: _set("verifier.bounds.laplace:_pm", _const_arb(0)),
             ("tests/test_laplace.py::test_a_short_taylor_model_stays_rigorous_through_its_remainders",)),
    Mutation("laplace.tails-dropped", "tail",
             "the lognormal Laplace transform's tails outside its window (and the add tail "
             "beyond T) replaced by 0",
             lambda: _set("verifier.bounds.laplace:_upto", _const_arb(0)),
             ("tests/test_laplace.py::test_a_narrow_window_is_covered_by_its_tail_bounds",)),
    Mutation("laplace.tilting-shifted", "spread",
             "E[Y^j e^{-sY}] taken with m_{j+1} for m_j (the tilting identity off by one)",
             _laplace_tilting_shifted,
             ("tests/test_laplace.py::test_two_items_match_the_quadrature",)),
    Mutation("laplace.engine-unused", "search",
             "a requested width of the Rényi curve never asks the Laplace engine",
             lambda: _set("verifier.bounds.laplace:MAX_ORDER", 0),
             ("tests/test_laplace.py::test_rdp_on_request_reaches_1e_8_at_real_orders",)),
    Mutation("laplace.tilted-index-off-by-one", "spread",
             "the lattice point of s e^{ju} taken one tilt too far (i + (j + 1) r)",
             lambda: _set("verifier.bounds.laplace:tilted_index", lambda i, j, r: i + (j + 1) * r),
             ("proofs_checks/test_proofs.py::test_check[laplace.tilting]",
              "tests/test_laplace.py::test_two_items_match_the_quadrature")),
    Mutation("laplace.fractional-constant", "spread",
             "x^b's constant taken as b / Gamma(2 - b)",
             lambda: _set("verifier.bounds.laplace:scale_arb",
                          lambda b, gamma=None: b / (gamma or (lambda x: x.gamma()))(2 - b)),
             ("proofs_checks/test_proofs.py::test_check[laplace.power-integrals]",
              "tests/test_laplace.py::test_two_items_match_the_quadrature")),
    Mutation("claims.renyi-accuracy-never-asked", "judge",
             "a real-order Rényi claim undecided at the default bracket never asks the engine "
             "for the digits it prints (renyi not refinable)",
             lambda: _set("verifier.claims.values:REFINABLE",
                          tuple(q for q in _get("verifier.claims.values:REFINABLE")
                                if q not in ("renyi", "rdp_epsilon"))),
             ("tests/test_claims_views.py::test_a_real_order_renyi_claim_asks_for_the_digits_it_prints",)),
    Mutation("renyi.order-monotonicity-unused", "spread",
             "the Rényi curve's orders bracketed each alone (D_a nondecreasing in a unused)",
             lambda: _set("verifier.views.renyi:_monotone", lambda rows: sorted(rows)),
             ("tests/test_laplace.py::test_orders_beyond_the_engine_inherit_the_monotone_ends",)),
    Mutation("tradeoff.grid-refinement-ignored", "search",
             "a requested width of the trade-off bands refines nothing (the grid ignores its "
             "level)",
             _tradeoff_grid_unrefined,
             ("tests/test_rel_width.py::test_tradeoff_on_request_refines_the_profile_grid",)),
    Mutation("claims.accuracy-never-asked", "judge",
             "a judge undecided at the engines' default accuracy never asks for the width its "
             "printed digits need",
             lambda: _set("verifier.claims.accuracy:accuracy_request",
                          lambda claim, case, printed=None: None),
             ("tests/test_claims_accuracy.py::test_dp_accounting_gaussian_rows_are_confirmed",)),
    Mutation("claims.accuracy-asked-once", "judge",
             "an undecided judge asks for the width its printed digits need once, not again "
             "from the narrower bracket",
             lambda: _set("verifier.claims.accuracy:ROUNDS", 1),
             ("tests/test_claims_accuracy.py::test_the_request_is_renewed_from_each_narrower_bracket",)),
    Mutation("gaussian.closed-form-unused", "search",
             "a requested accuracy at M = 1 refines the lattice instead of using the Gaussian "
             "mechanism's closed form",
             lambda: _set("verifier.bounds.profile:closed_form", lambda M, w: False),
             ("tests/test_claims_accuracy.py::test_dp_accounting_gaussian_rows_are_confirmed",)),
    Mutation("claims.abs-tolerance-dropped", "judge",
             "approx's accepted interval ignores abs_tolerance (relative tolerance only)",
             lambda: _set("verifier.claims.accuracy:accepted_interval", _accepted_without_abs()),
             ("tests/test_claims_language.py::test_approx_with_an_absolute_tolerance",)),
    Mutation("claims.per-case-printed-ignored", "judge",
             "every case judged against the claim's printed value, not its own",
             lambda: _set("verifier.claims.format:Claim.printed_of", lambda self, idx: self.printed),
             ("tests/test_claims_language.py::test_a_printed_value_per_case",)),
    Mutation("memory.limit-ignored", "input",
             "the memory limit never refuses a run (an engine allocates past it)",
             lambda: _set("verifier.numerics.memory:limit", lambda: None),
             ("tests/test_memory.py::test_reserve_refuses_beyond_the_limit_and_allows_below",
              "tests/test_memory.py::test_a_worker_holds_its_cells_to_its_share")),
    Mutation("sweep.memory-preflight-skipped", "input",
             "a sweep's cells are not held to a worker's memory before anything runs",
             lambda: _set("verifier.sweep.preflight:cell_limit", lambda b: 1 << 62),
             ("tests/test_memory.py::test_a_sweep_refuses_a_cell_beyond_a_workers_share_before_anything_runs",)),
    Mutation("claims.sigma-star-miss-unchecked", "search",
             "noise_multiplier's bracket has no certified miss: its lower end is the sigma that "
             "meets the target",
             _sigma_star_lower_end_unchecked,
             ("tests/test_claims_views.py::test_noise_multiplier_of_the_gaussian_mechanism_encloses_the_root",
              "tests/test_claims_views.py::test_noise_multiplier_brackets_meet_and_miss")),
    Mutation("claims.sigma-star-undecided-as-miss", "search",
             "noise_multiplier's search reads an undecided engine answer as a certified miss",
             _sigma_star_undecided_as_miss,
             ("tests/test_claims_views.py::test_noise_multiplier_brackets_meet_and_miss",)),
    Mutation("claims.monotone-corner-flipped", "search",
             "an engine quantity's extremum over a box read at the opposite corner",
             _corner_flipped,
             ("tests/test_claims_views.py::test_extrema_of_engine_quantities_at_the_corners",)),
    Mutation("claims.sigma-star-refined-verdict-swapped", "search",
             "sigma*'s refined predicate reads a certified miss as a meet and back",
             _refined_verdict_swapped,
             ("tests/test_claims_views.py::test_the_refined_decision_of_sigma_star_at_the_gaussian_root",)),
    Mutation("claims.rdp-epsilon-smaller-direction", "judge",
             "rdp_epsilon converts the smaller direction's D_alpha, not the larger",
             lambda: _set("verifier.claims.profile_quantities:max", min),   # its one max
             ("tests/test_claims_views.py::test_rdp_epsilon_is_the_larger_direction",)),
    Mutation("band.left-out-uncharged", "spread",
             "a band law's block sums and moments drop the charge of the spectrum's left-out "
             "coefficients",
             _band_left_out_uncharged,
             ("tests/test_band.py::test_left_out_coefficients_are_charged",)),
    Mutation("band.left-out-halved", "spread",
             "a band law's block sums charge half the left-out coefficients' bound out G",
             _band_left_out_halved,
             ("tests/test_band.py::test_the_left_out_charge_is_attained_by_an_aligned_spectrum",)),
    Mutation("band.mirror-dropped", "spread",
             "a band law's folded spectrum leaves out the mirror N - k of each kept coefficient",
             lambda: _set("verifier.numerics.band:fold",
                          lambda W, k, N, a: W.__setitem__(k % len(W), W[k % len(W)] + a)),
             ("tests/test_band.py::test_left_out_coefficients_are_charged",
              "tests/test_band.py::test_block_sums_enclose_the_full_inverse_dft")),
    Mutation("band.power-uncertified", "spread",
             "band_power leaves out coefficients above 2^-(prec + 10) without its Arb check "
             "(a radius r with r^n far above the charge)",
             _band_power_uncertified,
             ("tests/test_band.py::test_band_power_certifies_what_it_leaves_out",
              "tests/test_band.py::test_block_sums_enclose_the_full_inverse_dft")),
    Mutation("band.product-uncharged", "spread",
             "a band spectrum times one more item's spectrum charges nothing for the left-out "
             "coefficients",
             _band_times_uncharged,
             ("tests/test_band.py::test_band_power_certifies_what_it_leaves_out",)),
    Mutation("band.moments-from-the-real-part", "spread",
             "a band law's block moments read from the real part of the packed inverse DFT of "
             "W + i V (the sums' own), not its imaginary part",
             lambda: _rewritten("verifier.numerics.band:block_sums",
                                "[z.imag / G + rR for z in Z]", "[z.real / G + rR for z in Z]"),
             ("tests/test_band.py::test_block_sums_enclose_the_full_inverse_dft",)),
    Mutation("band.window-order-unshifted", "spread",
             "a band law's blocks are read in the transform's order, not from its window's start",
             lambda: _set("verifier.bounds.profile.bandlaw:window_order",
                          lambda start, G, L: list(range(L))),
             ("tests/test_band.py::test_band_aggregates_are_the_points_aggregates",)),
    Mutation("band.bucket-offset-dropped", "test",
             "the tests' buckets pair a band law's block with the second law's block of the "
             "same index, not at the same points",
             lambda: _set("verifier.bounds.profile.statistic:block_offset", lambda X, Y, G: 0),
             ("tests/test_band.py::test_band_aggregates_are_the_points_aggregates",)),
    Mutation("band.sparse-edge-short", "spread",
             "the sparse spectra stop their direct sums at a quarter of the certified band",
             _sparse_edge_short,
             ("tests/test_band.py::test_sparse_spectra_are_the_full_dft_where_they_keep_and_certified_beyond",)),
    Mutation("band.full-length-unchecked", "spread",
             "a band law longer than the DFT limit forms its points, block sums or coarse DFT "
             "at full length (band.full_length checks nothing)",
             lambda: _set("verifier.numerics.band:full_length", lambda n, what: None),
             ("tests/test_band.py::test_a_band_law_longer_than_the_dft_limit_forms_no_transform_of_its_length",)),
    Mutation("band.boosts-unplanned", "spread",
             "a band level whose finest lattice is refused is not planned coarser (band_boosts "
             "offers the finest and the level's own only)",
             lambda: _set("verifier.bounds.profile.laws:band_boosts",
                          lambda sigma, M, fine: (4, 1) if M >= 1000 and fine > 1 else (1,)),
             ("tests/test_band.py::test_a_level_whose_finer_lattice_is_too_long_is_planned_at_its_own",)),
    # ---- runs: phases of different steps (numerics/compose.py, bounds/runs.py, core/run.py)
    Mutation("runs.phase-count-ignored", "compose",
             "the composition over phases raises every phase after the first to the power 1, "
             "not to its own count",
             _runs_phase_count_ignored,
             (R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge",
              R + "test_phases_of_gaussian_steps_contain_the_closed_form")),
    Mutation("runs.grouped-counts-ignored", "compose",
             "phases of different counts convolved into one kind of step at the first "
             "phase's count (numerics/convolve.py grouped: only equal counts may share a "
             "power)",
             _runs_grouped_counts_ignored,
             (R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge",
              R + "test_a_phase_split_in_two_composes_to_the_same_law")),
    Mutation("runs.convolved-drops-a-law", "compose",
             "the convolution of a group of equal-count phases leaves out its last phase's "
             "step",
             _runs_convolved_drops_a_law,
             ("tests/test_convolved.py::test_every_point_of_the_input_balls_convolves_into_the_output",
              R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge",
              R + "test_two_different_poisson_steps_against_quadrature")),
    Mutation("runs.common-factor-counts-dropped", "compose",
             "phases whose counts share a factor g composed as the product of their laws "
             "(each once) raised to g, not of their laws raised to n_j / g",
             _runs_common_factor_counts_dropped,
             (R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge",
              R + "test_a_phase_split_in_two_composes_to_the_same_law")),
    Mutation("runs.charge-first-phase-only", "tail",
             "the union-bound charge of a run counts the first phase's steps only",
             lambda: _runs_first_phase_only("union_charge"),
             (R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge",
              "proofs_checks/test_proofs.py::test_check[runs.union-charge]")),
    Mutation("runs.alias-first-phase-only", "test",
             "the tests' aliasing excess of a run counts the first phase's steps only",
             lambda: _runs_first_phase_only("alias_excess"),
             (R + "test_lower_ends_of_phases_are_the_best_exact_test_and_the_alias_excess_counts_all_steps",
              "proofs_checks/test_proofs.py::test_check[runs.alias-excess]")),
    Mutation("binding.compose-remove-cut-floor", "proof",
             "the remove end's cut at floor(eps / eta), not ceil: the index just below eps "
             "counted with a negative term e^{s eta} - c",
             _compose_remove_cut_floor,
             ("proofs_checks/test_proofs.py::test_check[compose.upper-ends]",)),
    Mutation("binding.compose-tilted-shifted", "proof",
             "the tilted masses one lattice step too high (law[j] e^{(s + 1) eta})",
             _compose_tilted_shifted,
             ("proofs_checks/test_proofs.py::test_check[compose.upper-ends]",
              R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge")),
    Mutation("binding.compose-add-end-mass-dropped", "proof",
             "the add end without its - c P(S <= s1) term",
             lambda: _set("verifier.numerics.ends:upper_add_end",
                          lambda total, w, below, c, out, ch: total - w + 2 * c * out + ch),
             ("proofs_checks/test_proofs.py::test_check[compose.upper-ends]",
              R + "test_upper_ends_of_phases_are_the_exact_composition_plus_every_phase_s_charge")),
    Mutation("binding.compose-at-least-shifted", "proof",
             "the remove test's event {S >= t + 1} read as {S >= t}'s mass",
             _compose_at_least_shifted,
             ("proofs_checks/test_proofs.py::test_check[compose.lower-ends]",)),
    Mutation("binding.compose-test-excess-added", "proof",
             "a test's lower end raised by the aliasing excess instead of lowered",
             lambda: _set("verifier.numerics.ends:lower_test_end",
                          lambda p, q, ex, qo, c: p + ex - c * (q + qo)),
             ("proofs_checks/test_proofs.py::test_check[compose.lower-ends]",
              R + "test_lower_ends_of_phases_are_the_best_exact_test_and_the_alias_excess_counts_all_steps")),
    Mutation("binding.runs-mu-squared", "proof",
             "a run of Gaussian steps read at mu^2 = sum n_i / sigma_i (the square dropped)",
             lambda: _set("verifier.bounds.runs:mu_squared",
                          lambda pairs: sum((n / s for s, n in pairs), 0)),
             ("proofs_checks/test_proofs.py::test_check[runs.gaussian-composition]",
              R + "test_phases_of_gaussian_steps_contain_the_closed_form")),
    Mutation("runs.window-mass-first-phase", "tail",
             "the Chernoff bound of a run's composed window uses the first phase's mgf only",
             _runs_window_mass_first_phase,
             (R + "test_composed_window_of_phases_bounds_the_aliased_mass",)),
    Mutation("runs.merge-drops-counts", "compose",
             "phases of the same kind of step merge into the first one's count (the later "
             "phases' steps dropped)",
             _runs_merge_counts_dropped,
             (R + "test_values_are_exact_immutable_and_hashable",
              R + "test_one_phase_gives_today_s_engines_bit_for_bit")),
    Mutation("runs.mixed-epochs-once", "compose",
             "a mixed run composes its random-allocation epochs once, not E times",
             _runs_mixed_epochs_once,
             (R + "test_mixed_run_lies_above_each_part_and_near_the_epochs_alone_with_little_noise_added",)),
    Mutation("brackets.inversion-unchecked", "search",
             "an interval whose lower end exceeds its upper end is made and printed (the "
             "check in core.arith.Interval dropped)",
             lambda: _set("verifier.core.arith:Interval.__post_init__", lambda self: None),
             ("tests/test_inverted_brackets.py::test_an_inverted_interval_cannot_be_made",
              "tests/test_inverted_brackets.py::test_an_engine_s_inverted_bracket_is_an_internal_error_not_an_answer")),
    Mutation("runs.regrid-to-nearest", "spread",
             "a kind of epoch moved onto the run's lattice by rounding each point down, not "
             "by a mean-preserving spread in L",
             _runs_regrid_to_nearest,
             (R + "test_regridded_laws_keep_mass_and_mean_and_raise_every_upper_end",)),
    Mutation("runs.accountant-epochs-at-largest-sigma", "input",
             "the random-allocation accountant's history-to-run conversion reads every epoch "
             "at the largest noise multiplier",
             _ra_history_at_largest,
             ("tests/test_accountant.py::test_noise_change_at_an_epoch_boundary_composes_the_epochs_exactly",)),
    Mutation("runs.dp-event-num-selected-dropped", "input",
             "the dp_accounting run accountant reads RandomAllocationDpEvent's num_selected "
             "= k as 1 (k of M accounted as one of M)",
             _dp_event_k_dropped,
             ("tests/test_dp_accounting.py::test_k_of_m_epochs_are_a_run_with_k_per_record",)),
    Mutation("runs.accountant-k-of-m-read-as-one", "input",
             "the random-allocation accountant bound to a k-of-M loader accounts its epochs "
             "as one of M",
             _ra_bind_k_dropped,
             ("tests/test_accountant.py::test_a_k_of_m_loader_makes_the_accountant_certify_k_of_m",)),
    Mutation("runs.planned-k-of-m-read-as-one", "input",
             "make_private_with_epsilon with a k-of-M loader calibrates sigma for one of M "
             "(the planned run's k not read from the loader)",
             lambda: _set("verifier.accountants:planned_steps_per_record", lambda k: k),
             ("tests/test_opacus.py::test_a_k_of_m_loader_trains_and_is_certified_as_k_of_m",)),
    Mutation("runs.renyi-k-of-m-read-as-one", "compose",
             "the Rényi curve of a run reads a k-of-M epoch as one of M (its reduction "
             "skipped)",
             lambda: _set("verifier.views.run_renyi:k_of_m_reduction", lambda m, s, n: None),
             ("tests/test_runs.py::test_renyi_of_k_of_m_lies_between_its_reductions_pairs",)),
    Mutation("runs.renyi-k-of-m-lower-from-blocks", "compose",
             "the Rényi curve of k of M takes its lower end from the blocks' pair (an upper "
             "pair), not the Gaussian pair of the steps' sum",
             _renyi_k_of_m_lower_from_blocks,
             ("tests/test_runs.py::test_renyi_of_k_of_m_lies_between_its_reductions_pairs",)),
    Mutation("runs.cli-steps-per-record-ignored", "input",
             "verifier epsilon --steps-per-record K answers for one of M (K dropped)",
             lambda: _set("verifier.cli.profile:k_of_m_run", lambda args: None),
             ("tests/test_runs.py::test_cli_k_of_m_from_flags_and_from_a_run_file",)),
    Mutation("runs.k-of-m-block-dropped", "compose",
             "k of M reduced to one block fewer than k (an epoch's last block left out)",
             _kofm_block_dropped,
             (R + "test_k_of_m_brackets_a_gauss_hermite_reference",)),
    Mutation("runs.k-of-m-lower-without-sqrt-m", "test",
             "k of M's lower end from the sum statistic with noise sigma / k instead of "
             "sqrt(M) sigma / k",
             _kofm_lower_too_little_noise,
             (R + "test_k_of_m_brackets_a_gauss_hermite_reference",)),
    Mutation("claims.bound-name-collision-unchecked", "input",
             "a claim may bind a name that is also a constant or function of the expression "
             "language (e bound to 5 read as Euler's number)",
             lambda: _set("verifier.claims.schema:check_bindable", lambda k, where: None),
             ("tests/test_claims_v2.py::test_a_bound_name_that_is_a_constant_or_function_is_refused",)),
    Mutation("claims.range-miss-confirmed", "judge",
             "a claim case outside an engine's range is judged confirmed, not not-applicable",
             lambda: _set("verifier.claims.audit:NOT_APPLICABLE", "confirmed"),
             ("tests/test_claims_v2.py::test_a_case_outside_an_engine_s_range_is_not_applicable_with_the_range",)),
    Mutation("runs.k-of-m-sqrt-rounded-down", "test",
             "k of M's lower run reads sqrt(M) rounded down (too little noise: a lower end "
             "above the truth)",
             lambda: _set("verifier.bounds.runs.samplers:sqrt_up",
                          lambda n, digits=12: Fraction(__import__("math").isqrt(
                              n * 10 ** (2 * digits)), 10 ** digits)),
             (R + "test_the_lower_run_s_noise_is_rounded_up",)),
    Mutation("training.state-epochs-trusted", "input",
             "a loaded random-allocation state's epochs trusted though fewer than its steps "
             "begin",
             lambda: _set("verifier.accountant_state:random_allocation_state",
                          lambda st: (st.get("steps_per_epoch"), [tuple(h) for h in st["history"]],
                                      st.get("epochs", 0))),
             ("tests/test_accountant.py::test_a_state_that_contradicts_itself_is_refused_on_load",)),
    Mutation("training.skipped-step-unseen", "input",
             "a batch drawn without its optimizer step is not refused (the in-flight "
             "allowance made unbounded)",
             _training_skipped_step_unseen,
             ("tests/test_accountant.py::test_a_batch_drawn_without_its_noisy_step_is_refused_at_get_epsilon",)),
    Mutation("runs.plan-gaussian-always", "compose",
             "every run of several kinds of step is answered by the Gaussian closed form (its "
             "sampling ignored)",
             lambda: _set("verifier.bounds.runs:plan", lambda run: "gaussian"
                          if len(run.merged()) > 1 else "single"),
             (R + "test_two_phase_schedule_meets_its_target_and_beats_the_collapse",)),
    Mutation("runs.calibrate-phase-scales-all", "search",
             "calibrating phase i's noise multiplier scales every phase's instead",
             _calibrate_phase_scales_all,
             (R + "test_calibrating_one_phase_s_noise_is_certified_and_minimal",)),
    Mutation("claims.run-first-phase-only", "input",
             "a claims file's [runs] table read as its first phase only",
             _claims_run_first_phase_only,
             ("tests/test_claims_runs.py::test_the_example_s_run_claims_are_confirmed_by_the_run_engine",)),
    Mutation("sweep.run-left-out-of-the-key", "input",
             "a sweep cell's key leaves out its run (an edited [run] template read back)",
             _sweep_key_without_run,
             ("tests/test_sweep_runs.py::test_an_edited_template_is_recomputed_not_read_back",)),
    Mutation("compose.union-charge-counted-once", "tail",
             "the upper ends charge each kind of step's union-bound atom once, not once per "
             "step (compose.py's call, not the bound function)",
             lambda: _set("verifier.numerics.compose:union_charge",
                          lambda parts: sum((c for c, n in parts), 0)),
             ("tests/test_charges.py::test_every_step_s_charge_enters_the_upper_ends",)),
    Mutation("compose.union-charge-halved", "tail",
             "the union-bound charge of the steps halved",
             lambda: _set("verifier.numerics.compose:union_charge",
                          lambda parts: sum((n * c for c, n in parts), 0) / 2),
             ("tests/test_charges.py::test_every_step_s_charge_enters_the_upper_ends",)),
    Mutation("compose.window-charge-dropped", "tail",
             "the composed window's charge 2 e^eps P_out left out of the upper ends (the "
             "wrap-around of the DFT's window uncharged)",
             _window_charge_dropped,
             ("tests/test_charges.py::test_a_window_forced_small_still_brackets_the_closed_form",)),
    Mutation("brackets.epsilon-upper-from-uncertified-side", "search",
             "epsilon(delta)'s upper end where the lower end of delta(e) meets delta (the "
             "uncertified side of the comparison)",
             _epsilon_upper_from_lower_ball,
             ("tests/test_charges.py::test_epsilon_ends_come_from_the_certified_side_of_each_comparison",)),
    Mutation("brackets.lower-end-rounded-up", "spread",
             "a delta bracket's lower end taken from the upper end of its lower ball",
             lambda: _set("verifier.numerics.brackets:delta_interval",
                          lambda lo, hi: __import__("verifier.core.arith", fromlist=["x"]).Interval(
                              __import__("verifier.core.arith", fromlist=["x"]).ball_bounds(lo)[1]
                              if lo is not None else Fraction(0),
                              __import__("verifier.core.arith", fromlist=["x"]).ball_bounds(hi)[1]
                              if hi is not None and hi.is_finite() else Fraction(1))),
             ("tests/test_charges.py::test_delta_brackets_round_outward_from_their_balls",)),
    Mutation("sweep.cell-digest-unchecked", "input",
             "a sweep's cell file read back on resume without checking its digest (an edited "
             "record trusted)",
             lambda: _set("verifier.sweep.cells:digest", lambda rec: rec.get("digest")),
             ("tests/test_sweep_cells.py::test_a_tampered_torn_or_foreign_cell_file_is_named_and_recomputed",)),
    Mutation("sweep.failed-cell-never-retried", "input",
             "a cell that failed is kept as failed on resume",
             lambda: _set("verifier.sweep.cells:RETRIED", ()),
             ("tests/test_sweep_cells.py::test_a_failed_cell_is_retried_unless_asked_not_to",)),
    Mutation("report.files-renamed-one-by-one", "input",
             "a certificate's or audit's files renamed into the folder one by one (a kill "
             "between two renames leaves old and new files mixed)",
             lambda: _set("verifier.report.folder:write_together",
                          lambda out_dir, files: _get("verifier.report.folder:write_atomic")(files)),
             ("tests/test_folder.py::test_an_interruption_at_any_step_leaves_the_old_folder_whole",)),
    Mutation("runs.parts-drop-the-second", "compose",
             "a run trained in parts (run + run) keeps the first part only",
             lambda: _set("verifier.core.run:Run.__add__", lambda self, other: self),
             ("tests/test_accountant.py::test_a_run_trained_in_parts_is_the_sum_of_its_accountants_runs",)),
    Mutation("accountants.other-rate-accepted", "input",
             "the random-allocation accountant reads a sample rate that is not its 1/M as "
             "its own M (a run it cannot certify accounted silently)",
             lambda: _set("verifier.accountants:RandomAllocationAccountant._M_from_rate",
                          lambda self, rate: self.steps_per_epoch or round(1 / float(rate))),
             ("tests/test_accountant.py::test_both_accountants_refuse_alike",)),
    Mutation("arith.interval-printed-to-nearest", "spread",
             "an interval printed with its ends rounded to nearest, not outward",
             lambda: _set("verifier.core.arith:Interval.short",
                          lambda self, digits=10: f"[{float(self.lower):.10g}, "
                                                  f"{float(self.upper):.10g}]"),
             ("tests/test_friction.py::test_an_interval_prints_its_ends_rounded_outward",)),
    Mutation("renyi.float-accountant-orders-unsearched", "search",
             "the (epsilon, delta) conversions of the Rényi views search the verifier's 23 "
             "default orders only, not Opacus's and dp_accounting's default lists",
             lambda: _set("verifier.views.renyi:CONVERSION_ORDERS",
                          _get("verifier.views.renyi:DEFAULT_ORDERS")),
             ("tests/test_friction.py::test_no_float_accountant_converts_the_same_divergences_to_less",)),
    Mutation("poisson.rate-one-mu-squared-wrong", "closed-form",
             "Poisson at q = 1 read as the Gaussian pair at mu^2 = T / sigma (not sigma^2)",
             lambda: _set("verifier.bounds.poisson:mu_squared",
                          lambda pairs: sum((n / s for s, n in pairs), Fraction(0))),
             ("tests/test_friction.py::test_poisson_at_rate_one_is_the_gaussian_closed_form",)),
    Mutation("poisson-accountant.batches-uncounted", "input",
             "the Poisson accountant does not count the batches its bound sampler draws (a "
             "batch whose step was skipped accounted as if the run had one step fewer)",
             lambda: _set("verifier.poisson_accountant:count_batches", lambda bs: [0, 0]),
             ("tests/test_accountant.py::test_the_poisson_accountant_refuses_a_batch_drawn_without_its_step",)),
    Mutation("spectral.edge-without-curvature", "box",
             "the band edge's certificate keeps the first-order Taylor bound only (no "
             "h^2 V / 2): frequencies beside a minimum of |X| are left out while above r",
             lambda: _set("verifier.numerics.spectral:curvature", lambda h, V: 0),
             ("tests/test_spectral.py::test_band_edge_keeps_the_curvature_term",)),
    Mutation("spectral.quick-cap-without-curvature", "box",
             "the band edge's quick filter compares (|a| + |b|)(1 + h) / 2 with r alone (no "
             "h^2 V / 2): a frequency where phi and phi1 both vanish passes",
             lambda: _set("verifier.numerics.spectral:quick_cap",
                          lambda r, rest, h: float((r * 2 / (1 + h)).lower()) * (1 - 2.0 ** -40)),
             ("tests/test_spectral.py::test_the_quick_filter_keeps_the_curvature_term",)),
    Mutation("band.blocked-sums-short", "compose",
             "the blocked direct sums stop one point short of the laws' span",
             _blocked_sums_short,
             ("tests/test_spectral.py::test_direct_sums_match_the_full_dft",)),
    Mutation("spectral.radius-unchecked", "box",
             "the sparse composition takes its radii without checking prod r_i^{n_i} <= "
             "2^-bits",
             _spectral_radius_unchecked,
             ("tests/test_spectral.py::test_a_radius_not_certified_takes_the_full_path",)),
    Mutation("spectral.left-out-level-uncharged", "compose",
             "the sparse composition's edges at the budget's left-out level, its sums charged "
             "at the working precision's 2^-(prec + 10)",
             _left_out_level_uncharged,
             ("tests/test_spectral.py::"
              "test_sums_at_a_budget_level_enclose_the_exact_aliased_law",)),
    Mutation("float-dft.error-bound-zero", "box",
             "the float DFT's certified error bound taken as 0 (the butterflies' roundings "
             "uncharged)",
             lambda: _set("verifier.numerics.float_dft:error_bound", lambda L, S: 0.0),
             ("tests/test_float_dft.py::test_the_bound_is_not_loose_by_more_than_its_design",)),
    Mutation("run-tradeoff.k-of-m-grids-swapped", "compose",
             "a k-of-M run's trade-off: the lower ends from the lower run's grid, the upper "
             "ends from the upper run's",
             _run_tradeoff_grids_swapped,
             ("tests/test_run_tradeoff.py::test_k_of_m_bands_come_from_the_reduction_s_two_runs",)),
    Mutation("run-tradeoff.lower-run-ignored", "compose",
             "a k-of-M run's trade-off read off the upper run alone (its lower run's grid, and "
             "the TV's lower end from it, dropped)",
             _run_tradeoff_lower_run_ignored,
             ("tests/test_run_tradeoff.py::test_k_of_m_bands_come_from_the_reduction_s_two_runs",)),
    Mutation("views.grid-without-moments-as-zero", "tail",
             "a run's profile grid (no moment bounds) takes delta <= 0 in place of delta <= 1",
             _grid_without_moments_as_zero,
             ("tests/test_run_tradeoff.py::test_the_composed_lattice_engine_s_band_holds_g_mu",)),
    Mutation("run-tradeoff.gaussian-smaller-mu", "compose",
             "a Gaussian run's trade-off from the closed form at 9/10 of its mu^2",
             _run_tradeoff_gaussian_smaller_mu,
             ("tests/test_run_tradeoff.py::test_a_gaussian_run_s_band_holds_g_mu",)),
    Mutation("run-certify.at-most-lax", "judge",
             "a bracket whose lower end meets a bound read as meeting it (Interval.at_most, "
             "the run certificate's and its meets' decision)",
             _at_most_lax,
             ("tests/test_run_certificate.py::test_each_target_is_decided_both_ways_and_"
              "undecided_inside_its_bracket",)),
    Mutation("refine.last-replaces-narrowest", "search",
             "the refinements return their last bracket where a finer step widened it",
             lambda: _set("verifier.bounds.poisson:narrowest", lambda best, got: got),
             ("tests/test_refine_best.py::test_a_stalled_refinement_returns_its_narrowest_"
              "bracket",)),
    Mutation("run-certify.no-refined-pass", "search",
             "a run's certificate stops at the first pass's width where it straddles the target",
             lambda: _set("verifier.deploy.run_certify:REFINED_WIDTH", None),
             ("tests/test_run_certificate.py::test_a_target_near_delta_eps_is_decided_by_the_"
              "refined_pass",)),
    Mutation("run-certify.accuracy-unhalved", "judge",
             "a run's attack accuracy taken as its TV (not 1/2 + TV/2)",
             lambda: [_set(m + ":attack_accuracy", lambda tv: tv)
                      for m in ("verifier.deploy.certify", "verifier.deploy.run_certify")],
             ("tests/test_run_certificate.py::test_a_gaussian_run_s_figures_hold_the_closed_forms",)),
    Mutation("float-mgf.rounding-uncharged", "box",
             "the float mgf's rounding factor (1 - u)^-N dropped (u taken as 0)",
             lambda: _set("verifier.numerics.float_mgf:U", 0.0),
             ("tests/test_float_mgf.py::test_the_rounding_charge_is_needed",)),
    Mutation("float-mgf.far-threshold-zero", "box",
             "every term beside the top one taken as far (bounded by v 2^-1000, not powered)",
             lambda: _set("verifier.numerics.float_mgf:FAR", 0),
             ("tests/test_float_mgf.py::test_both_signs_of_theta_and_zero",)),
    Mutation("float-mgf.far-terms-uncharged", "box",
             "the far terms' charge X 2^-1000 made negligible (2^-1100)",
             lambda: _set("verifier.numerics.float_mgf:FAR_LOG2", -1100),
             ("tests/test_float_mgf.py::test_far_terms_are_charged",)),
    Mutation("float-mgf.underflow-uncharged", "box",
             "the float mgf's underflow charge n 2^-1074 made negligible (2^-1200)",
             lambda: _set("verifier.numerics.float_mgf:UNDERFLOW_LOG2", -1200),
             ("tests/test_float_mgf.py::test_the_underflow_charge_is_needed",)),
    Mutation("float-mgf.top-on-the-wrong-side", "box",
             "the powers' base point taken at the other end of the support (r^e > 1 read as "
             "at most 1)",
             lambda: _set("verifier.numerics.float_mgf:top",
                          lambda ks, theta: ks[0] if theta >= 0 else ks[-1]),
             ("tests/test_float_mgf.py::test_both_signs_of_theta_and_zero",)),
    Mutation("float-mgf.chernoff-mgf-zero", "tail",
             "the Chernoff masses' mgf taken as 0 (the window's outside mass uncharged)",
             lambda: _set("verifier.numerics.convolve:mgf_upper", _const_arb(0)),
             (P + "test_composed_window_bounds_the_aliased_mass",)),
    Mutation("lattice.chernoff-c0-uncentred", "tail",
             "the Chernoff constant's float mgf sums taken about 0, the centring e^{-theta mu} "
             "dropped",
             lambda: _rewritten("verifier.numerics.lattice:chernoff_c0",
                                "up.log() - sign * th * mu_", "up.log()"),
             ("tests/test_float_mgf.py::test_chernoff_constant_bounds_the_arb_sum_tightly",)),
    Mutation("spectral.free-phase-below-its-mass", "box",
             "a free phase's radius taken as 2^-40, below its mass (its |X[k]| not bounded by "
             "it), the others' radii loosened by it",
             lambda: [_set("verifier.numerics.spectral:l1_bound", _const_arb(2.0 ** -40)),
                      _rewritten("verifier.numerics.spectral:checked_radii",
                                 "max(float(m.upper()), 1.0)", "float(m.upper())")],
             ("tests/test_spectral.py::test_a_phase_on_a_sublattice_goes_free_and_the_sums_"
              "stay_exact",)),
    Mutation("runs.mixed-lattice-of-the-epochs-alone", "search",
             "a mixed run's lattice the epochs' alone (the Poisson steps' own step not taken)",
             lambda: [_rewritten("verifier.bounds.runs.lattice:mixed_engine",
                                 "own = [] if eta_p is None else [eta_p / fine]", "own = []"),
                      _set("verifier.bounds.runs:mixed_engine",
                           _get("verifier.bounds.runs.lattice:mixed_engine"))],
             ("tests/test_runs.py::test_a_mixed_run_takes_the_steps_own_lattice_where_it_is_"
              "finer",)),
    Mutation("float-dft.twiddles-uncertified", "box",
             "the float DFT's twiddles taken as exact (mu = 0)",
             _float_twiddles_uncertified,
             ("tests/test_float_dft.py::test_twiddles_error_is_certified",)),
    Mutation("float-dft.l1-real-part-only", "box",
             "the float DFT's input norm S from the real parts alone",
             _float_l1_real_part_only,
             ("tests/test_float_dft.py::test_l1_and_abs_bounds_are_upper_bounds",)),
    Mutation("spectral.edge-radii-uncharged", "box",
             "the band edge's float coarse DFT of the masses' midpoints without their "
             "radii (dx = 0)",
             _float_law_radii_dropped,
             ("tests/test_float_dft.py::test_edge_charges_the_masses_radii",)),
    Mutation("band.sparse-tails-dropped", "compose",
             "the direct sums of a law's dense run leave out its sparse tails' sums",
             _sparse_tails_dropped,
             ("tests/test_spectral.py::test_direct_sums_match_the_full_dft",)),
    Mutation("brackets.guided-probe-unbounded", "search",
             "the guided bisection takes its secant point without checking that it lies "
             "inside (bad, ok) (a point outside ends the search short, or moves an end out)",
             lambda: _rewritten("verifier.numerics.brackets:bisect",
                                "float(bad) < aim < float(ok) and", "True or"),
             ("tests/test_guided_bisection.py::test_the_invariant_holds_whatever_the_guide_says",)),
    Mutation("brackets.guide-ignored", "search",
             "the epsilon search bisects without its evaluations' floats (a free parameter: "
             "about 17 certified ends an end instead of 3-6)",
             _guide_ignored,
             ("tests/test_guided_bisection.py::"
              "test_a_faithful_guide_takes_a_few_evaluations_where_bisection_takes_14_or_more",
              "tests/test_guided_bisection.py::"
              "test_epsilon_direction_reads_its_own_evaluations_as_the_guide")),
    Mutation("brackets.no-overshoot-on-one-side", "search",
             "the guided bisection aims at the secant root only, where one end moved twice "
             "running (secant steps that stay on one side of a curved guide)",
             lambda: _rewritten("verifier.numerics.brackets:bisect",
                                "past = max(past, 2 * abs(root - before))", "pass"),
             ("tests/test_guided_bisection.py::test_a_curved_guide_is_overshot",)),
    Mutation("spectral.sums-by-horner", "compose",
             "the sparse path's sums read by Horner's rule at a ball root of unity (radii "
             "multiplied by up to sqrt 2 a degree: the brackets lost at K = 560)",
             _sums_by_horner,
             ("tests/test_spectral.py::test_the_sums_polynomial_stays_tight_at_a_high_degree",
              "tests/test_spectral.py::test_a_long_kept_spectrum_gives_the_full_paths_bracket")),
    Mutation("spectral.kept-share-unchecked", "compose",
             "the sparse path taken with more than N / KEPT_SHARE kept indices (few steps: "
             "the direct sums' multiplied-up powers lose their digits)",
             lambda: _set("verifier.numerics.spectral:KEPT_SHARE", 1),
             ("tests/test_spectral.py::test_many_kept_indices_take_the_full_path",)),
    Mutation("spectral.kept-radii-unchecked", "compose",
             "the sparse path's kept values used whatever their radii (direct sums that lost "
             "their digits give brackets of [0, 1])",
             lambda: _rewritten("verifier.numerics.spectral:compose",
                                "if not all(y.real.rad() <= tight", "if False and not all("
                                "y.real.rad() <= tight"),
             ("tests/test_spectral.py::test_wide_direct_sums_take_the_full_path",)),
    Mutation("poisson.refine-drops-the-coarser-bracket", "search",
             "a finer lattice step that certifies no end replaces the coarser step's certified "
             "bracket (the answer becomes 'inconclusive')",
             lambda: _rewritten("verifier.bounds.poisson:refine",
                                "return best if best is not None else (iv, P)", "return iv, P"),
             ("tests/test_poisson.py::test_a_finer_step_without_an_end_keeps_the_last_bracket",)),
    Mutation("poisson.stall-not-retried", "search",
             "a refinement that stopped narrowing short of the target is not taken again at a "
             "lower floor (epsilon near 1e-3 stays 0.75% wide)",
             lambda: _set("verifier.bounds.poisson:again_if_stalled",
                          lambda compute, eta, target, note, state: _get(
                              "verifier.bounds.poisson:refine")(compute, eta, target, note)),
             ("tests/test_poisson.py::test_a_stalled_refinement_is_taken_again_at_a_lower_floor",
              "tests/test_poisson.py::test_a_small_epsilon_is_bracketed_to_the_default_width")),
    Mutation("direct.chains-unbroken", "compose",
             "the direct sums' chains of ball products by roots (Horner's rule over a window's "
             "blocks, the powers multiplied up) never restart from exact roots (span 60000: "
             "radii about 1e31 times wider)",
             lambda: _set("verifier.numerics.direct:WRAP_BITS", 10 ** 6),
             ("tests/test_spectral.py::test_blocked_sums_stay_tight_over_a_long_span",
              "tests/test_spectral.py::test_sparse_sums_stay_tight_with_many_giant_steps")),
    Mutation("direct.powers-chain-unbroken", "compose",
             "the blocked sums' powers w^{g v k} are multiplied up in v without restarting "
             "from exact roots (span 8500, K 2100: radii 1.8e-22 for 4e-31)",
             lambda: _rewritten("verifier.numerics.direct:_block_powers",
                                "if v % R else", "if True else"),
             ("tests/test_spectral.py::test_blocked_sums_stay_tight_over_a_long_span",)),
    Mutation("direct.blocks-horner-unbroken", "compose",
             "Horner's rule over the blocks runs in one chunk, never restarted from an exact "
             "root",
             lambda: _rewritten("verifier.numerics.direct:_block_powers",
                                "chain(g * G * k, N, exact=True)", "1 << 30"),
             ("tests/test_spectral.py::test_blocked_sums_stay_tight_over_a_long_span",)),
    Mutation("direct.giant-steps-unbroken", "compose",
             "the sparse sums' giant steps z_p^{aB} are multiplied up without restarting from "
             "exact roots (K 4000: 126 factors)",
             lambda: _rewritten("verifier.numerics.direct:sparse_sums",
                                "if (a + 1) % R else", "if True else"),
             ("tests/test_spectral.py::test_sparse_sums_stay_tight_with_many_giant_steps",)),
    Mutation("direct.last-block-of-points-dropped", "compose",
             "the sparse sums over blocks of points leave out the last block",
             lambda: _rewritten("verifier.numerics.direct:sparse_sums",
                                "for c0 in range(0, len(pts), size):",
                                "for c0 in range(0, len(pts) - size, size):"),
             ("tests/test_spectral.py::"
              "test_sparse_sums_in_blocks_of_points_are_the_whole_sums",)),
    Mutation("direct.strided-runs-dropped", "compose",
             "the direct sums of the tails' runs of a constant stride are not added",
             lambda: _rewritten("verifier.numerics.direct:direct_sums",
                                "out = got if out is None else [_added(x, y) for x, y in "
                                "zip(out, got)]", "out = got if out is None else out"),
             ("tests/test_spectral.py::"
              "test_direct_sums_over_tails_in_runs_of_a_constant_stride",)),
    Mutation("poisson.tv-zero-one-step", "closed-form",
             "epsilon 0 when each kind of step's one step (or epoch), not its count, sums to "
             "at most delta (one Poisson phase, or a run's phases)",
             lambda: _rewritten("verifier.bounds.poisson.single:tv_at_most",
                                "(n * to_arb(q) * tv(s)", "(to_arb(q) * tv(s)"),
             ("tests/test_poisson.py::test_epsilon_zero_by_the_total_variation",
              "tests/test_runs.py::test_a_run_is_epsilon_zero_by_the_total_variation")),
    Mutation("poisson.tv-zero-half-the-mean", "closed-form",
             "one step's total variation taken at half the means' distance",
             lambda: _rewritten("verifier.bounds.poisson.single:tv_at_most",
                                "(1 / (2 * arb(2).sqrt()", "(1 / (4 * arb(2).sqrt()"),
             ("tests/test_poisson.py::test_epsilon_zero_by_the_total_variation",)),
    Mutation("runs.tv-zero-epochs-dropped", "closed-form",
             "a run's epsilon 0 by the Poisson steps' total variations alone, its "
             "random-allocation epochs left out of the sum",
             lambda: _rewritten("verifier.bounds.poisson.single:tv_at_most",
                                "total += sum(", "total += 0 * sum("),
             ("tests/test_runs.py::test_a_run_is_epsilon_zero_by_the_total_variation",)),
    Mutation("poisson.stall-retried-once", "search",
             "a refinement that stalled again after its retry at a lower floor is not taken "
             "again (epsilon 2.6e-6 at T 2 stays 0.27% wide)",
             lambda: _set("verifier.bounds.poisson:STALL_RETRIES", 1),
             ("tests/test_poisson.py::test_a_refinement_stalled_again_is_retried_while_it_narrows",
              "tests/test_poisson.py::"
              "test_a_tiny_epsilon_of_two_steps_is_bracketed_to_the_default_width")),
    Mutation("brackets.next-guess-ignored", "compose",
             "a refined lattice step's epsilon search starts from the first (Renyi) guess, not "
             "the last bracket (a free parameter: the cap, and so the precision and memory)",
             _next_guess_ignored,
             ("tests/test_poisson.py::test_a_refined_search_starts_at_the_last_brackets_cap",)),
    Mutation("brackets.failed-caps-ignored", "compose",
             "an epsilon search starts again at a cap where the same quantity's last search "
             "found no answer within it (a free parameter: the compositions paid twice)",
             _failed_caps_ignored,
             ("tests/test_poisson.py::test_a_search_does_not_start_again_at_a_cap_that_failed",)),
    Mutation("spectral.nyquist-sign-flipped", "compose",
             "the sparse sums' Nyquist term B_{N/2} taken with the sign of (-1)^(i+1)",
             _spectral_nyquist_flipped,
             ("tests/test_spectral.py::test_sums_with_the_nyquist_frequency_kept",)),
    Mutation("spectral.left-out-uncharged", "compose",
             "the sparse composition's sums carry nothing for the left-out coefficients",
             lambda: _set("verifier.numerics.spectral:SpectralLaw.left_out",
                          lambda self, weight: 0),
             ("tests/test_spectral.py::test_left_out_coefficients_are_charged",)),
    Mutation("spectral.mirror-not-doubled", "compose",
             "the sparse composition's sums count each kept frequency once, not with its "
             "mirror N - k",
             _spectral_mirror_not_doubled,
             ("tests/test_spectral.py::test_sums_enclose_the_exact_aliased_law",)),
    Mutation("compose.lazy-scan-blind", "search",
             "the sparse composition's threshold scan reads the remove test's tails as "
             "differences of floats (blind below 1e-16: the lower end at tiny delta is 0)",
             _lazy_scan_blind,
             ("tests/test_poisson.py::test_remove_tests_find_their_threshold_at_tiny_tails[sparse]",)),
    Mutation("runs.k-of-m-tests-unused", "test",
             "k of M's lower end by the Gaussian pair of the steps' sum alone, the tests on "
             "the likelihood-ratio cells dropped",
             _k_of_m_tests_unused,
             ("tests/test_runs.py::test_k_of_m_brackets_a_gauss_hermite_reference",
              "tests/test_runs.py::test_k_of_m_lower_end_is_near_pld_accounting_s",
              "tests/test_runs.py::test_k_of_m_tests_bound_a_run_with_other_phases")),
    Mutation("runs.k-of-m-tests-all-shifted", "test",
             "the k-of-M tests' law under P shifts all M steps, not k of them",
             _k_of_m_all_shifted,
             ("tests/test_runs.py::test_k_of_m_brackets_a_gauss_hermite_reference",
              "tests/test_runs.py::test_k_of_m_tests_laws_are_the_exact_convolutions")),
    Mutation("runs.k-of-m-tests-shift-dropped", "test",
             "the k-of-M tests' shifted steps take the unshifted cell masses (m = q)",
             _k_of_m_shift_dropped,
             ("tests/test_runs.py::test_k_of_m_brackets_a_gauss_hermite_reference",
              "tests/test_runs.py::test_k_of_m_lower_end_is_near_pld_accounting_s")),
    Mutation("runs.k-of-m-tests-dft-short", "test",
             "the k-of-M tests' convolutions on a DFT shorter than their support (wrapped "
             "around, nothing charged)",
             lambda: _set("verifier.bounds.runs.k_of_m:smooth_length",
                          lambda n: 2 * max(2, n // 4)),
             ("tests/test_runs.py::test_k_of_m_tests_laws_are_the_exact_convolutions",)),
    Mutation("runs.k-of-m-tests-unweighted", "test",
             "the k-of-M tests weigh the other hypothesis' mass by eps, not e^eps",
             _k_of_m_unweighted,
             ("tests/test_runs.py::test_k_of_m_brackets_a_gauss_hermite_reference",)),
    Mutation("brackets.bisection-rel-fixed", "search",
             "the epsilon search bisects to its default tolerance (REL) whatever width was requested",
             _bisection_rel_fixed,
             ("tests/test_poisson.py::test_a_narrow_request_narrows_the_bisection_and_the_charges",
              "tests/test_runs.py::test_a_narrow_request_on_a_run_is_met")),
    Mutation("poisson.charge-floor-unscaled", "search",
             "the Poisson steps' cut-off and tail charges relative to delta whatever width "
             "was requested",
             lambda: _set("verifier.bounds.poisson:charge_floor",
                          lambda delta, rel_width: float(delta)),
             ("tests/test_poisson.py::test_a_narrow_request_narrows_the_bisection_and_the_charges",
              "tests/test_runs.py::test_a_narrow_request_on_a_run_is_met")),
]

BY_ID = {m.id: m for m in MUTATIONS}


def apply(mutation_id: str):
    BY_ID[mutation_id].apply()
