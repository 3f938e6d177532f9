"""The numerical kernel, part 2: the T-fold composition of one step's four lattice laws
(remove and add upper laws, the test statistic under P0 and P1), two per complex DFT
(x1 + i x2), and the privacy profile delta(eps) bracketed from them for any eps at O(1)
cost.  A "step" is one epoch of random allocation (bounds/profile/laws.py and its stages) or one step of
Poisson subsampling (bounds/poisson/pair.py): any pair whose per-step laws have the shape
of ``StepLaws``; the count of composed steps is called E below.

Upper end, remove.  With law_R the E-fold composition of the remove grid law (x = sum of
the epochs' grid values, step eta) and c = e^eps, s0 = ceil(eps / eta):

    sum_s law_R[s] (e^{s eta} - c)_+ = T - sum_{s < s0} law_R[s] e^{s eta} - c sum_{s >= s0} law_R[s],
    T = (sum_k rem_k e^{k eta})^E                            (an identity of polynomials)

so no tail of the grid is cut off, and the balls' radii are multiplied by at most e^eps.
Plus E times the per-epoch charge of the union bound (laws.py, step (e)).

Upper end, add.  The same with the add law (under nu): s1 = floor(-eps / eta),

    sum_s law_A[s] (e^{-s eta} - c)_+ = T' - sum_{s > s1} law_A[s] e^{-s eta} - c sum_{s <= s1} law_A[s],
    T' = (sum_k add_k e^{-k eta})^E,

the weighted sum over s > s1 kept as a suffix sum (the weights e^{-s eta} are huge at the
window's left end; a difference of prefix sums would carry their radii).

Lower ends.  The tests {sum_e lambda_e >= t} (remove) and {sum_e lambda_e <= t} (add) on the
composed laws of the test statistic under P0 and P1, for thresholds t near eps; the P1
(resp. P0) probability is lowered by the aliasing excess E a (1 + a)^{E-1}.

Every bound is clamped to [0, 1] (0 <= delta <= 1)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import to_arb
from verifier.numerics.convolve import alias_excess, compose_laws, compose_phases, union_charge
from verifier.numerics import ends      # the ends' formulas (bound by check-proofs)
from verifier.numerics.lattice import prefix_sums, suffix_sums
from verifier.numerics.spectral import SpectralLaw
from verifier.numerics.spectral_sums import Sums


SCAN = 64           # the lazy threshold scan's points per grid (_float_best_lazy)
SCAN_RESOLVED = 1e3  # ... in floats while its best value is this far above their rounding


@dataclass
class StepLaws:
    """One step (an epoch of random allocation, a step of Poisson subsampling) as four
    discrete laws on grids, and the charges of what the upper laws leave out.  Upper ends:
    delta_R(eps) <= sum_s rem[s] (e^{s eta} - e^eps)_+ + charge_R and delta_A(eps) <=
    sum_s add[s] (e^{-s eta} - e^eps)_+ + charge_A, for the step and (composed, charges
    times the count) for the composition; lower ends: test0, test1 are the laws of a
    statistic under P0 and P1 (masses at least the true ones, in excess by at most alias0,
    alias1)."""
    eta: Fraction
    rem: dict                     # grid index -> mass (remove, under P0)
    add: dict                     # grid index -> mass (add, under P1)
    charge_R: object              # arb: what the remove law leaves out (union bound)
    charge_A: object              # arb: what the add law leaves out
    eta_l: Fraction
    test0: dict                   # statistic index -> P0 mass of the included outcomes
    test1: dict                   # statistic index -> P1 mass
    alias0: object                # arb: excess of the computed P0 masses (aliasing), per step
    alias1: object
    info: dict = field(default_factory=dict)


class ComposedProfile:
    """The E-fold composition of one step's laws ``laws`` (the attributes of
    ``StepLaws``: eta, rem, add, charge_R, charge_A, eta_l, test0,
    test1, alias0, alias1, info); ``upper_*(eps)`` and ``lower_*(eps)`` are certified ends of
    each direction at any exact eps >= 0 (O(1) each).  ``add_upper(E, eps)``, if given, is
    another valid upper end of the add direction (the better of the two is kept)."""

    def __init__(self, laws, E: int, prec: int, floor: float, eps_cap: float = 16,
                 symmetric: bool = False, add_upper=None, scan_tests: bool = False,
                 phases: list | None = None, unit: str = "epochs"):
        # phases: a run of different steps, [(StepLaws, count), ...] on one lattice (the same
        # eta and eta_l; docs/THEORY.md section 15); ``laws`` and ``E`` are then the first
        # phase's laws and the count of all steps.  One phase is the E-fold composition.
        phases = [(laws, E)] if phases is None else list(phases)
        if not phases or any(n < 1 for _, n in phases):
            raise ValueError("ComposedProfile: every phase needs a count >= 1")
        for lw, _ in phases[1:]:
            if lw.eta != phases[0][0].eta or lw.eta_l != phases[0][0].eta_l:
                raise ValueError("ComposedProfile: the phases' lattices differ (eta, eta_l)")
        laws, E = phases[0][0], sum(n for _, n in phases)
        self.phases = phases
        self.E, self.prec, self.laws, self.eps_cap = E, prec, laws, eps_cap
        self.symmetric = symmetric
        self.add_upper = add_upper
        # scan_tests: the tests' thresholds also near the float-best one over the whole
        # window (a statistic whose labels are biased, e.g. the left ends of the cells,
        # moves the best threshold away from eps / eta_l by up to E/2 cells)
        self.scan_tests = scan_tests
        self._floats = {}             # _float_best's float sums, by direction of the event
        # the composed windows' outside mass is charged as 2 e^eps P_out: below 1e-5 floor
        # for every eps <= eps_cap (beyond, still valid, only looser)
        target = 1e-5 * floor * math.exp(-eps_cap)
        left_out = functools.partial(left_out_level, target, eps_cap, float(laws.eta))
        one = len(phases) == 1
        with ctx.workprec(prec):
            eta = to_arb(laws.eta)
            ez = eta.exp()

            def compose(a, b, what):
                if one:
                    return compose_laws([getattr(laws, a), getattr(laws, b)], E, what, target,
                                        unit, left_out)
                return compose_phases([([getattr(lw, a), getattr(lw, b)], n)
                                       for lw, n in phases], what, target, left_out=left_out)

            def total(name, sign):     # prod over phases of (sum_k law_k e^{sign k eta})^n
                out = None
                for lw, n in phases:
                    f = sum((v * (sign * k * eta).exp() for k, v in getattr(lw, name).items()),
                            arb(0)) ** n
                    out = f if out is None else out * f
                return out
            # remove: prefix sums of law and of law e^{s eta}
            (self.sR, law, self.oR), (self.sA, lawA, self.oA) = compose("rem", "add", "upper")
            if isinstance(law, SpectralLaw):   # the sums in closed form where read
                self.R_w = Sums(law, "prefix", ez, (self.sR * eta).exp())
                self.R_0 = Sums(law, "prefix")
                self.A_ws = Sums(lawA, "suffix", 1 / ez, (-self.sA * eta).exp())
                self.A_0 = Sums(lawA, "prefix")
            else:
                weighted = ends.tilted(law, (self.sR * eta).exp(), ez)
                self.R_w, self.R_0 = prefix_sums(weighted), prefix_sums(law)
                # add: the weighted sum over j >= i as a suffix sum: the weights e^{-s eta}
                # are huge at the window's left end, and a difference of prefix sums would
                # carry their radii (cancellation)
                weighted = ends.tilted(lawA, (-self.sA * eta).exp(), 1 / ez)
                self.A_ws, self.A_0 = suffix_sums(weighted), prefix_sums(lawA)
            self.T_R = total("rem", 1)
            self.T_A = total("add", -1)
            # tests: the two composed laws of the statistic; P1 (remove) and P0 (add) are
            # lowered by the label windows' aliasing excess E a (1 + a)^{E-1} and by the
            # composed window's P_out; the other probability is raised by its P_out
            (self.s0, l0, self.o0), (self.s1, l1, self.o1) = compose("test0", "test1", "test")
            if isinstance(l0, SpectralLaw):
                self.P0, self.P1 = Sums(l0, "prefix"), Sums(l1, "prefix")
            else:
                self.P0, self.P1 = prefix_sums(l0), prefix_sums(l1)
            self.ex0 = alias_excess([(lw.alias0, n) for lw, n in phases]) + self.o0
            self.ex1 = alias_excess([(lw.alias1, n) for lw, n in phases]) + self.o1
            self.ch_R = union_charge([(lw.charge_R, n) for lw, n in phases])
            self.ch_A = union_charge([(lw.charge_A, n) for lw, n in phases])

    # M = 1 (the Gaussian mechanism): the reflection x -> 1/sigma - x maps P0 to P1 and P1
    # to P0 and L to 1/L, so delta_A = delta_R (proof check profile.gaussian-symmetry): with
    # ``symmetric`` each end is the better of the two directions'
    def _end(self, kind: str, which: str, eps: Fraction) -> arb:
        own = getattr(self, f"_{kind}_{which}")(eps)
        if not self.symmetric:
            return own
        other = getattr(self, f"_{kind}_{'add' if which == 'remove' else 'remove'}")(eps)
        return min_upper(own, other) if kind == "upper" else max_lower(own, other)

    def upper_remove(self, eps: Fraction) -> arb:
        return self._end("upper", "remove", eps)

    def upper_add(self, eps: Fraction) -> arb:
        return self._end("upper", "add", eps)

    def lower_remove(self, eps: Fraction) -> arb:
        return self._end("lower", "remove", eps)

    def lower_add(self, eps: Fraction) -> arb:
        return self._end("lower", "add", eps)

    # ---- upper ends (compose.py docstring); 2 c P_out: the composed window's aliasing
    def _upper_remove(self, eps: Fraction) -> arb:
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            n = len(self.R_0) - 1
            i = ends.remove_cut(eps, self.laws.eta, self.sR, n)
            U = ends.upper_remove_end(self.T_R, self.R_w[i], self.R_0[n], self.R_0[i], c,
                                      self.oR, self.ch_R)
            return clamp_upper(U)

    def _upper_add(self, eps: Fraction) -> arb:
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            n = len(self.A_0) - 1
            i = ends.add_cut(eps, self.laws.eta, self.sA, n)            # j < i: s <= s1
            U = ends.upper_add_end(self.T_A, self.A_ws[i], self.A_0[i], c, self.oA, self.ch_A)
            U = clamp_upper(U)
            if self.add_upper is not None:       # the better of two valid upper ends
                U = min_upper(U, self.add_upper(self.E, eps))
            return U

    # ---- lower ends
    def _float_best(self, eps: Fraction, ge: bool) -> int:
        """The threshold t maximizing the float estimate of P1(S >= t) - e^eps P0(S >= t)
        (ge) or P0(S <= t) - e^eps P1(S <= t) (a free parameter: any t gives a valid test)."""
        import numpy as np
        if isinstance(self.P0, Sums):
            return self._float_best_lazy(eps, ge)
        if ge not in self._floats:
            # ge: the masses at indices >= i, each a difference of two balls taken in Arb
            # before it is rounded to a float (in floats, 1 - (1 - 1e-20) is 0: the remove
            # test's P0 tail vanished and the scan chose a threshold whose certified lower
            # end was 0; sigma 0.7, q 1e-3, T 1e6, delta 1e-12); else the prefix sums
            def f(P):
                return np.array([float((P[-1] - v).mid() if ge else v.mid()) for v in P])
            self._floats[ge] = (f(self.P0), f(self.P1))
        F0, F1 = self._floats[ge]
        lo, hi = min(self.s0, self.s1), max(self.s0 + len(F0), self.s1 + len(F1))
        ts = np.arange(lo, hi + 1)

        def at(F, start, t):         # the floats at composed index t (mass below / from t)
            return F[np.clip(t - start, 0, len(F) - 1)]
        c = math.exp(min(float(eps), 700.0))
        if ge:
            v = at(F1, self.s1, ts) - c * at(F0, self.s0, ts)
        else:
            v = at(F0, self.s0, ts + 1) - c * at(F1, self.s1, ts + 1)
        return int(ts[int(np.argmax(v))])

    def _float_best_lazy(self, eps: Fraction, ge: bool) -> int:
        """_float_best on sums in closed form (numerics.spectral): the float estimate on a
        grid of SCAN points over the window, then on finer grids around the best point so
        far, to a step of 1 (the masses kept by threshold; a free parameter as above)."""
        c = math.exp(min(float(eps), 700.0))
        lo = min(self.s0, self.s1)
        hi = max(self.s0 + len(self.P0) - 1, self.s1 + len(self.P1) - 1)
        got = self._float_scan(c, ge, lo, hi)
        if got is not None:
            return got

        def value(t):
            key = (ge, t)
            if key not in self._floats:
                self._floats[key] = self._event_floats(t, ge)
            a, b = self._floats[key]
            return a - c * b
        a, b = lo, hi
        while True:
            step = max(1, (b - a) // SCAN)
            best = max(list(range(a, b + 1, step)) + [b], key=value)
            if step == 1:
                return best
            a, b = max(lo, best - step), min(hi, best + step)

    def _float_scan(self, c: float, ge: bool, lo: int, hi: int) -> int | None:
        """_float_best_lazy's scan on float sums of the whole window (spectral_sums.Sums.floats:
        one FFT a law, where ten phases of 1e4 steps read 4815 ball prefix sums for their
        scans), or None where they are not at hand or the best value found is not above
        SCAN_RESOLVED times their rounding scale (a tail of 1e-20 read in floats; the ball
        scan then)."""
        import numpy as np
        f0, f1 = self.P0.floats(), self.P1.floats()
        if f0 is None or f1 is None:
            return None
        ts = np.arange(lo, hi + 1)

        def at(arr, start, t):        # the sums at composed index t (clipped to the window)
            return arr[np.clip(t - start, 0, len(arr) - 1)]
        if ge:                        # P1(S >= t) - c P0(S >= t)
            v = at(f1[1], self.s1, ts) - c * at(f0[1], self.s0, ts)
            err = f1[2] + c * f0[2]
        else:                         # P0(S <= t) - c P1(S <= t)
            v = at(f0[0], self.s0, ts + 1) - c * at(f1[0], self.s1, ts + 1)
            err = f0[2] + c * f1[2]
        i = int(np.argmax(v))
        return int(ts[i]) if v[i] > SCAN_RESOLVED * err else None

    def _event_floats(self, t: int, ge: bool) -> tuple:
        """(P1, P0) of {S >= t} (ge) or (P0, P1) of {S <= t} in floats, each mass a ball
        difference rounded once (a tail below 1e-16 is not read as 0)."""
        if ge:
            pair = (ends.mass_at_least(self.P1, self.s1, t),
                    ends.mass_at_least(self.P0, self.s0, t))
        else:
            pair = (ends.mass_at_most(self.P0, self.s0, t), ends.mass_at_most(self.P1, self.s1, t))
        return tuple(float(v.mid()) for v in pair)

    def _thresholds(self, eps: Fraction, t0: int, ge: bool):
        """The thresholds whose tests are taken (any are valid): t0 +- 6 (t0 the lattice's
        eps), or, where the profile scans, t0 +- 2 and the scan's best +- 3 (the same
        brackets on sixteen configurations as t0 +- 6 with them, 40% fewer ball sums)."""
        if not self.scan_tests:
            return list(range(t0 - 6, t0 + 7))
        tb = self._float_best(eps, ge)
        return sorted(set(range(t0 - 2, t0 + 3)) | set(range(tb - 3, tb + 4)))

    def _lower_remove(self, eps: Fraction) -> arb:
        """max over thresholds t of P1(S >= t) - e^eps P0(S >= t), P1 lowered and P0 raised."""
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            t0 = round(eps / self.laws.eta_l)
            best = arb(0)
            for t in self._thresholds(eps, t0, True):
                v = ends.lower_test_end(ends.mass_at_least(self.P1, self.s1, t),
                                        ends.mass_at_least(self.P0, self.s0, t),
                                        self.ex1, self.o0, c)
                if v.lower() > best.lower():
                    best = arb(v.lower())
            return best

    def _lower_add(self, eps: Fraction) -> arb:
        """max over t of P0(S <= t) - e^eps P1(S <= t), P0 lowered and P1 raised."""
        with ctx.workprec(self.prec):
            c = to_arb(eps).exp()
            t0 = round(-eps / self.laws.eta_l)
            best = arb(0)
            for t in self._thresholds(eps, t0, False):
                v = ends.lower_test_end(ends.mass_at_most(self.P0, self.s0, t),
                                        ends.mass_at_most(self.P1, self.s1, t),
                                        self.ex0, self.o1, c)
                if v.lower() > best.lower():
                    best = arb(v.lower())
            return best


LEFT_OUT_SHARE = 2.0 ** -10    # the sparse path's left-out charge: at most this x target


def left_out_level(target: float, eps_cap: float, eta: float, N: int) -> float:
    """The level of the sparse path's left-out frequencies (numerics.spectral.out_bits) on a
    window of N: every sum the profile reads carries out x its weights' total
    (SpectralLaw.left_out), at most N for a plain sum and e^eps (1/eta + 1) for a sum
    weighted by e^{s eta} or e^{-s eta} up to the cut at eps (the largest weight below
    e^eps, the others falling geometrically by e^-eta), and an end takes it times at most
    1 + e^eps; so for eps <= eps_cap an end moves by at most LEFT_OUT_SHARE x target (the
    composed windows' outside mass is charged at target: a free parameter, every level is
    certified and charged)."""
    ec = math.exp(eps_cap)
    return LEFT_OUT_SHARE * target / ((1 + ec) * (N + ec * (1 / eta + 1)))


def min_upper(a: arb, b: arb) -> arb:      # upper ends: the smaller (both are valid; nan never wins)
    if not b.is_finite():
        return a
    return a if a.is_finite() and a.upper() <= b.upper() else b


def max_lower(a: arb, b: arb) -> arb:      # lower ends: the larger (nan never wins)
    if not b.is_finite():
        return a
    return a if a.is_finite() and a.lower() >= b.lower() else b


def clamp_upper(U: arb) -> arb:
    if U.is_finite() and U < 1:
        return arb(U.upper())
    return arb(1)


def regrid(laws: StepLaws, eta: Fraction, eta_l: Fraction, prec: int) -> StepLaws:
    """The same step's laws on the lattice (eta, eta_l) of a run it is composed in
    (docs/THEORY.md section 15).  Upper laws: each mass at L = e^{+-s eta_old} spread
    mean-preservingly in L onto the two neighbouring points e^{+-j eta}, e^{+-(j+1) eta}
    (the integrands (L y - c)_+ are convex in L, so the spread raises every upper end, and
    E[L] is kept for the union bound); the charges as they were.  Test laws: each label k
    read as round(k eta_l_old / eta_l) (a function of the step's outcome: the composed
    statistic is still a statistic, its laws exact; the aliasing excess as it was)."""
    with ctx.workprec(prec):
        def spread(law: dict, sign: int) -> dict:
            out: dict = {}
            for s, m in law.items():
                x = s * laws.eta
                j = math.floor(x / eta)
                if j * eta == x:
                    out[j] = out[j] + m if j in out else m
                    continue
                a = (sign * to_arb(j * eta)).exp()
                b = (sign * to_arb((j + 1) * eta)).exp()
                v = (sign * to_arb(x)).exp()
                w = (v - a) / (b - a)                  # the weight of j + 1 (in [0, 1])
                for k, part in ((j + 1, m * w), (j, m * (1 - w))):
                    out[k] = out[k] + part if k in out else part
            return out

        def relabel(law: dict) -> dict:
            out: dict = {}
            for k, m in law.items():
                n = round(k * laws.eta_l / eta_l)
                out[n] = out[n] + m if n in out else m
            return out
        return StepLaws(eta=eta, rem=spread(laws.rem, 1), add=spread(laws.add, -1),
                        charge_R=laws.charge_R, charge_A=laws.charge_A, eta_l=eta_l,
                        test0=relabel(laws.test0), test1=relabel(laws.test1),
                        alias0=laws.alias0, alias1=laws.alias1,
                        info={**laws.info, "regridded_from": (laws.eta, laws.eta_l)})
