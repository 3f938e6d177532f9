"""The privacy profile of both directions on a grid of eps, every value a certified end,
for the views that integrate or take a supremum over eps (docs/THEORY.md
section 10): the Rényi curve at real orders and the trade-off curves.

Both directions delta_R, delta_A are nonincreasing in eps (THEORY section 9), so on a
cell [a, b] of the grid

    lower(b) <= delta(eps) <= upper(a)       for every eps in [a, b],

which turns the grid into a cover of [0, top]; beyond ``top`` the moment bounds below
take over.  Every upper end is the smaller of the engine's (verifier.bounds.profile) and a
moment bound (both valid):

    remove  delta_R(eps) <= k_n E_P0[L^n] e^{(1-n) eps}            (integer n >= 2)
    add     delta_A(eps) <= c_s E_P0[L^{-s}] e^{-s eps},  E_P0[L^{-s}] <= e^{E (s u/2 + s^2 u/(2M))}

(Lemma B.1 of arXiv 2610.02414 v1, k_n = c_{n-1}, c_s = s^s/(1+s)^{1+s}; the add moment by
the arithmetic-geometric mean inequality Ybar >= (prod Y_j)^{1/M} and the Gaussian moment
generating function: proof checks renyi.hockey-stick-chernoff and renyi.add-moment).

Floats only choose the grid (any grid is valid): cells are halved where a direction's
bracket drops by more than a fraction ``tau`` across the cell beyond its own width.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import to_arb
from verifier.numerics.brackets import negative_eps_delta
from verifier.bounds.moments import chernoff_k, integer_moments

PREC = 160
TINY = 1e-15          # a direction below this is not refined further
MAX_POINTS = 6000


def _lo(x: arb) -> arb:
    return arb(x.lower()) if x.lower() > 0 else arb(0)


def _hi(x: arb) -> arb:
    return arb(x.upper())


class ProfileGrid:
    """delta_R and delta_A of (sigma, M, E) at grid points 0 = e_0 < ... < e_n = top, each an
    exact lower and upper end (arb balls of radius 0), and the moment bounds beyond top."""

    def __init__(self, sigma: Fraction, M: int, E: int, tau: float = 1 / 16,
                 floor: float = 1e-13, nmom: int = 64, fine: int = 1):
        """``fine`` > 1: the engine at that refinement level, tau fine^2 smaller and up to
        fine^2 times MAX_POINTS points (a requested accuracy of the views)."""
        from verifier.bounds import profile as PR
        self.sigma, self.M, self.E = sigma, M, E
        with ctx.workprec(PREC):
            self.u = 1 / to_arb(sigma) ** 2
            one = integer_moments(sigma, M, nmom, PREC)
            self.mom = [m ** E for m in one]            # E_P0[L^n], n = 0..nmom
        self._fl = None
        top = self._top()
        self.top = top
        P = PR.engine(sigma, M, E, floor, eps_cap=float(top) + 1, fine=fine)
        tau, cap = tau / fine ** 2, MAX_POINTS * fine ** 2
        self.eta = P.laws.eta
        self._P = P
        self.pts: dict = {}
        n0 = 64
        for i in range(n0 + 1):
            self._eval(top * i / n0)
        hmin = max(Fraction(min(P.laws.eta, P.laws.eta_l)) / 4, top / 2 ** 16)
        while len(self.pts) < cap:
            es = sorted(self.pts)
            split = [(a, b) for a, b in zip(es, es[1:]) if b - a > hmin and self._coarse(a, b, tau)]
            if not split:
                break
            for a, b in split[: cap - len(self.pts)]:
                self._eval((a + b) / 2)
        self.eps = sorted(self.pts)
        self._P = None                                   # the grid is all that is kept

    # ---- construction
    def _top(self) -> Fraction:
        """The smallest eps of a ladder (<= 60) where both moment bounds are below TINY
        (floats: a free parameter)."""
        ns, cn, ss, ka = self._floats()
        e = Fraction(1, 4)
        while e < 60:
            x = float(e)
            if max((cn + (1 - ns) * x).min(), (ka - ss * x).min()) < math.log(TINY):
                return e
            e *= 2 if e < 4 else Fraction(5, 4)
        return Fraction(60)

    def _eval(self, e: Fraction):
        P = self._P
        with ctx.workprec(PREC):
            ur = _min(_hi(P.upper_remove(e)), self.moment_remove(e))
            ua = _min(_hi(P.upper_add(e)), self.moment_add(e))
            self.pts[e] = (_lo(P.lower_remove(e)), ur, _lo(P.lower_add(e)), ua)

    def _coarse(self, a, b, tau) -> bool:
        pa, pb = self.pts[a], self.pts[b]
        for k in (0, 2):
            hi_a, lo_b, hi_b = pa[k + 1], pb[k], pb[k + 1]
            if float(hi_a.upper()) < TINY:
                continue
            if float(hi_a.upper()) - float(lo_b.lower()) > tau * float(hi_a.upper()) + \
                    float(hi_b.upper()) - float(lo_b.lower()):
                return True
        return False

    # ---- the moment bounds (valid at every eps); floats only choose n and s
    def _floats(self):
        import numpy as np
        if getattr(self, "_fl", None) is None:
            ns = np.arange(2, len(self.mom))
            cn = np.array([math.log(float(chernoff_k(int(n)))) + float(self.mom[int(n)].log().mid())
                           for n in ns])
            u = float(self.u.mid())
            ss = 2.0 ** (np.arange(-40, 160) / 8)
            ka = (ss * np.log(ss) - (1 + ss) * np.log1p(ss)
                  + self.E * (ss * u / 2 + ss * ss * u / (2 * self.M)))
            self._fl = (ns, cn, ss, ka)
        return self._fl

    def moment_remove(self, e: Fraction) -> arb:
        """min over n of k_n E[L^n] e^{(1-n) eps} (n chosen by floats; each is valid)."""
        ns, cn, _, _ = self._floats()
        n = int(ns[int((cn + (1 - ns) * float(e)).argmin())])
        with ctx.workprec(PREC):
            v = to_arb(chernoff_k(n)) * self.mom[n] * ((1 - n) * to_arb(e)).exp()
            return arb(v.upper())

    def moment_add(self, e: Fraction) -> arb:
        """c_s e^{E (s u/2 + s^2 u/(2M)) - s eps} (s chosen by floats; each is valid)."""
        _, _, ss, ka = self._floats()
        s = to_arb(Fraction(float(ss[int((ka - ss * float(e)).argmin())])))
        with ctx.workprec(PREC):
            v = cs_arb(s) * (self.E * (s * self.u / 2 + s * s * self.u / (2 * self.M))
                             - s * to_arb(e)).exp()
            return arb(v.upper())

    # ---- read-out
    def ends(self, which: str):
        """[(eps, lower, upper)] of one direction ('remove' or 'add'), made monotone: the
        upper end at e_i is the least upper end at or before it, the lower end the largest at
        or after it (both valid: delta is nonincreasing)."""
        k = 0 if which == "remove" else 2
        if not hasattr(self, "_ends"):
            self._ends = {}
        if which not in self._ends:
            lo = [self.pts[e][k] for e in self.eps]
            hi = [self.pts[e][k + 1] for e in self.eps]
            for i in range(1, len(hi)):
                if hi[i - 1].upper() < hi[i].upper():
                    hi[i] = hi[i - 1]
            for i in range(len(lo) - 2, -1, -1):
                if lo[i + 1].lower() > lo[i].lower():
                    lo[i] = lo[i + 1]
            self._ends[which] = [(e, lo[i], hi[i]) for i, e in enumerate(self.eps)]
        return self._ends[which]

    def pieces(self, which: str):
        """The cover of [1, e^top] in c = e^eps by linear pieces: [(eps0, eps1, A, B, sign)]
        with delta(c) <= A + B c (sign +1, the chord of the upper ends: delta is convex in c)
        or delta(c) >= A + B c (sign -1) for every c in [e^eps0, e^eps1].  Lower pieces: on
        a cell the constant lower end at its right, the chord of the left neighbour cell
        extended (through its upper end on the left and the cell's lower end; for the first
        cell the neighbour at eps = -e_1), or the chord of the right neighbour extended back; each valid on the whole cell (convexity), so any
        float choice of where to switch between them gives a valid lower bound."""
        if not hasattr(self, "_pieces"):
            self._pieces = {}
        if which in self._pieces:
            return self._pieces[which]
        ends = self.ends(which)
        other = "add" if which == "remove" else "remove"
        out = []
        with ctx.workprec(PREC):
            cs = [to_arb(e).exp() for e, _, _ in ends]
            n = len(ends)
            for i in range(n - 1):
                (e0, lo0, hi0), (e1, lo1, hi1) = ends[i], ends[i + 1]
                c0, c1 = cs[i], cs[i + 1]
                B = (hi1 - hi0) / (c1 - c0)
                out.append((e0, e1, hi0 - B * c0, B, 1))
                cands = [(lo1, arb(0))]                                  # the constant
                if i >= 1:
                    cm, him = cs[i - 1], ends[i - 1][2]
                else:
                    # the left neighbour at eps = -e_1: delta(-e) = 1 - e^-e + e^-e delta'(e)
                    # with delta' the other direction (proof check tradeoff.negative-eps),
                    # and delta is convex in c on all of c > 0
                    cm = 1 / cs[1]
                    him = negative_eps_delta(cm, self.ends(other)[1][2])
                s1 = (lo0 - him) / (c0 - cm)
                cands.append((lo0 - s1 * c0, s1))
                if i + 2 < n:
                    c2, hi2 = cs[i + 2], ends[i + 2][2]
                    s2 = (hi2 - lo1) / (c2 - c1)
                    cands.append((lo1 - s2 * c1, s2))
                out.extend(_lower_pieces(e0, e1, c0, c1, cands))
        self._pieces[which] = out
        return out


def _lower_pieces(e0: Fraction, e1: Fraction, c0: arb, c1: arb, cands):
    """Split [e0, e1] at the float midpoint in eps and give each half the candidate line
    largest at the half's middle (floats choose; every candidate is valid on the cell)."""
    def best(x: float):
        return max(cands, key=lambda ab: float(ab[0].mid()) + float(ab[1].mid()) * x)
    if len(cands) == 1:
        A, B = cands[0]
        return [(e0, e1, A, B, -1)]
    em = (e0 + e1) / 2
    f0, fm, f1 = float(e0), float(em), float(e1)
    out = []
    for a, b, x in ((e0, em, math.exp((f0 + fm) / 2)), (em, e1, math.exp((fm + f1) / 2))):
        A, B = best(x)
        out.append((a, b, A, B, -1))
    return out


def _log_cs(s: float) -> float:
    return s * math.log(s) - (1 + s) * math.log1p(s)


def cs_arb(s: arb) -> arb:
    """c_s = s^s / (1 + s)^{1+s} (Lemma B.1 of arXiv 2610.02414 v1)."""
    return (s * s.log() - (1 + s) * (1 + s).log()).exp()


def _min(a: arb, b: arb) -> arb:
    return a if a.upper() <= b.upper() else b
