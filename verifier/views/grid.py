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

from flint import arb, arb_mat, ctx

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
        self._build(P, tau / fine ** 2, MAX_POINTS * fine ** 2)

    @classmethod
    def of_engine(cls, P, top: Fraction, tau: float = 1 / 16) -> "ProfileGrid":
        """The grid of any certified profile engine P (``upper_remove``, ``lower_remove``,
        ``upper_add``, ``lower_add`` at an exact eps; ``laws.eta``, ``laws.eta_l``) on
        [0, top], without moment bounds (their place taken by delta <= 1): a run's engine
        (views.run_tradeoff).  ``top`` is a free choice: beyond it the views use delta >= 0
        only."""
        g = cls.__new__(cls)
        g.sigma = g.M = g.E = g.mom = g._fl = None
        g.top = top
        g._build(P, tau, MAX_POINTS)
        return g

    def _build(self, P, tau: float, cap: int):
        """Evaluate P at 65 equally spaced eps of [0, top], then halve the cells where a
        direction's bracket drops by more than tau across them (floats choose)."""
        top = self.top
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
        """min over n of k_n E[L^n] e^{(1-n) eps} (n chosen by floats; each is valid); 1
        without moments (``of_engine``)."""
        if self.mom is None:
            return arb(1)
        ns, cn, _, _ = self._floats()
        n = int(ns[int((cn + (1 - ns) * float(e)).argmin())])
        with ctx.workprec(PREC):
            v = to_arb(chernoff_k(n)) * self.mom[n] * ((1 - n) * to_arb(e)).exp()
            return arb(v.upper())

    def moment_add(self, e: Fraction) -> arb:
        """c_s e^{E (s u/2 + s^2 u/(2M)) - s eps} (s chosen by floats; each is valid); 1
        without moments."""
        if self.mom is None:
            return arb(1)
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


# ---------------------------------------------------------------- the profile integrals
def profile_moments(grid: ProfileGrid, alpha: Fraction):
    """Brackets (lower, upper) as arb of E_P0[L^a] (remove) and E_P1[L^-a] (add), L the
    likelihood ratio of the grid's pair, by the identity of the module docstring: in
    c = e^eps, int e^{(a-1)eps} delta deps = int c^{a-2} delta(c) dc and int e^{-a eps} delta
    deps = int c^{-a-1} delta(c) dc, each integrated exactly against the grid's linear pieces
    (upper: chords of the upper ends; lower: lines below delta, grid.pieces)."""
    with ctx.workprec(PREC):
        a = to_arb(alpha)
        t = a - 1
        pts, coef, cs = _piece_matrix(grid)
        p = [(t * to_arb(e)).exp() for e in pts]                      # c^{a-1}
        q = [pj * cj for pj, cj in zip(p, cs)]                        # c^a
        row = p + q + [1 / x for x in q] + [1 / x for x in p]
        s = arb_mat(1, len(row), row) * coef
        # columns: (which, sign) in (remove, +), (remove, -), (add, +), (add, -); each with
        # sum A (p1 - p0), sum B (q1 - q0), sum A (1/q1 - 1/q0), sum B (1/p1 - 1/p0)
        out = {}
        for col, key in enumerate(_COLS):
            base = 4 * col
            I = s[0, base] / t + s[0, base + 1] / a
            J = -(s[0, base + 2] / a + s[0, base + 3] / t)
            out[key] = (I, J)

        def both(which):
            (Iu, Ju), (Il, Jl) = out[(which, 1)], out[(which, -1)]
            return ((arb(max(Il.lower(), arb(0).lower())), arb(Iu.upper())),
                    (arb(max(Jl.lower(), arb(0).lower())), arb(Ju.upper())))
        (IR, JR), (IA, JA) = both("remove"), both("add")
        R, A_ = grid.ends("remove"), grid.ends("add")
        top = to_arb(grid.top)
        # tails beyond top
        tJR = R[-1][2] * (-a * top).exp() / a
        tJA = A_[-1][2] * (-a * top).exp() / a
        tIR = tail_remove(grid, alpha)
        tIA = tail_add(grid, alpha)
        k = a * t
        rem = (1 + k * (IR[0] + JA[0]), 1 + k * (IR[1] + tIR + JA[1] + tJA))
        add = (1 + k * (IA[0] + JR[0]), 1 + k * (IA[1] + tIA + JR[1] + tJR))
        return rem, add


_COLS = (("remove", 1), ("remove", -1), ("add", 1), ("add", -1))


def _piece_matrix(grid: ProfileGrid):
    """The pieces of both directions as one coefficient matrix over the pieces' end points
    (cached on the grid, with c_j = e^{e_j}): row blocks p_j, q_j, 1/q_j, 1/p_j of the end
    points e_j, columns 4 per (direction, sign): the coefficients of sum A (p1 - p0),
    sum B (q1 - q0), sum A (1/q1 - 1/q0) and sum B (1/p1 - 1/p0)."""
    cached = getattr(grid, "_matrix", None)
    if cached is not None:
        return cached
    pts = sorted({e for w in ("remove", "add") for e0, e1, *_ in grid.pieces(w) for e in (e0, e1)})
    idx = {e: j for j, e in enumerate(pts)}
    m = len(pts)
    coef = arb_mat(4 * m, 4 * len(_COLS))
    with ctx.workprec(PREC):
        for col, (which, sg) in enumerate(_COLS):
            base = 4 * col
            for e0, e1, A, B, sign in grid.pieces(which):
                if sign != sg:
                    continue
                j0, j1 = idx[e0], idx[e1]
                for blk, v in ((0, A), (1, B), (2, A), (3, B)):
                    coef[blk * m + j1, base + blk] += v
                    coef[blk * m + j0, base + blk] -= v
        cs = [to_arb(e).exp() for e in pts]
    grid._matrix = (pts, coef, cs)
    return grid._matrix


def tail_remove(grid: ProfileGrid, alpha: Fraction) -> arb:
    """int_top^inf e^{(a-1)e} delta_R <= k_n E[L^n] e^{(a-n) top} / (n - a), n > a an integer."""
    x = float(grid.top)
    best, arg = None, None
    for n in range(math.floor(alpha) + 1, len(grid.mom)):
        v = (math.log(float(chernoff_k(n))) + float(grid.mom[n].log().mid())
             + float(alpha - n) * x - math.log(float(n - alpha)))
        if best is None or v < best:
            best, arg = v, n
    if arg is None:
        return arb("inf")
    n = arg
    with ctx.workprec(PREC):
        return arb((to_arb(chernoff_k(n)) * grid.mom[n] * (to_arb(alpha - n) * to_arb(grid.top)).exp()
                    / to_arb(n - alpha)).upper())


def tail_add(grid: ProfileGrid, alpha: Fraction) -> arb:
    """int_top^inf e^{(a-1)e} delta_A <= c_s e^{K(s)} e^{(a-1-s) top} / (s - a + 1), s > a - 1,
    K(s) = E (s u/2 + s^2 u/(2M)) (grid.py)."""
    t, x, u, E, M = float(alpha - 1), float(grid.top), float(grid.u.mid()), grid.E, grid.M

    def f(s):
        return (s * math.log(s) - (1 + s) * math.log1p(s) + E * (s * u / 2 + s * s * u / (2 * M))
                + (t - s) * x - math.log(s - t))
    cands = [t + 2.0 ** (k / 4) for k in range(-40, 60)]
    s = Fraction(min(cands, key=f)).limit_denominator(2 ** 20)
    if s <= alpha - 1:
        s = alpha - 1 + Fraction(1, 2 ** 20)
    with ctx.workprec(PREC):
        sa, ta = to_arb(s), to_arb(alpha - 1)
        v = (cs_arb(sa) * (E * (sa * grid.u / 2 + sa * sa * grid.u / (2 * M))
                           + (ta - sa) * to_arb(grid.top)).exp() / (sa - ta))
        return arb(v.upper())
