"""One epoch of the exact TV, bracketed rigorously, with the heavy right tail split off.

TV_1(sigma, M) = E_P0[(Ybar_M - 1)_+] (docs/THEORY.md section 1; arXiv 2605.06259 v1 section 2),
Ybar_M the mean of M i.i.d. lognormals Y = exp(X/sigma - u/2), u = 1/sigma^2, E[Y] = 1.

Why a split.  The lognormal's right tail is heavy at small sigma: a plain lattice for Y
must reach T with E[Y 1{Y > T}] << TV, and the DFT window must then span T/h cells
(2^19 at sigma = 1/2, M = 1e6).  Here Y is split at a body threshold T1 chosen so that
M P(Y > T1) <= 1/100: the K items above T1 are handled by conditioning on K, and only the
body (bounded by T1) goes through the DFT, whose window is then set by the spread of the
body sum, not by the tail.

Cells.  The body [0, T1) is cut into cells of width h where Y has mass, widening (powers of
two) where the remaining mass is small; every bound below is valid for any cells, the
widths only control tightness (the added variance stays below 2e-4 s2, the width of the
bracket is governed by h^2 / s2).  Per cell the probability q and first moment
m = E[Y 1{cell}] are closed-form partial moments (docs/THEORY.md section 2; the SymPy-derived
D.lognormal_upper_tail, proof entry lognormal.upper-partial-moments), evaluated in Arb.

Upper end (convex order).  Spread the body's mass in each cell onto the cell's end points
keeping its mean; with the indicator of {Y > T1} kept, each item becomes larger in convex
order, and so does the sum.  With f(s) = (s/M - 1)_+ (convex, nondecreasing, slope 1/M),
B_n the sum of n spread body items (law by a ball-arithmetic DFT) and
Pi_n(y) = E f(B_n + y), conditioning on K ~ Bin(M, p), p = P(Y > T1):
  K = 0:  Pi_M(0);
  K = 1:  E[Pi_{M-1}(Y) | Y > T1], Pi convex in y, so below the chord on each tail cell
          (the spread again); where Pi_{M-1} is linear (y past the window) exactly linear;
  K >= 2: f(B_{M-k} + t) <= f(B_M) + t/M (B_{M-k} <= B_M in a coupling, slope 1/M), so
          at most P(K >= 2) Pi_M(0) + (E K - P(K = 1)) E[Y | Y > T1] / M.
Pi_n(y) = (h/M) pi_n((M - y)/h) with pi_n(k) = E[(B_n - k)_+] (lattice units), summed from
the window (the computed masses dominate the true ones there: aliasing only adds) plus a
Chernoff-integrated bound beyond the window, or nE[b] - k + k P(B_n < start) below it.

Lower end (a test).  TV = sup_A P1(A) - P0(A).  For A = {sum_i L_i >= K} with labels
L = (left end of Y's cell), clamped at T1/h above T1,
    E[(Ybar - 1) 1_A] = E[(Y_1 - 1) 1_A] = sum_j a_j P(R >= K - l_j),
a_j = E[(Y - 1) 1{cell j}] in closed form, R the sum of M - 1 labels (a DFT, moved by at
most its out-of-window mass).  Every K gives a lower bound; the best of a few is kept.

Floats only choose free parameters (h, T1, the cells, the window length N, the Chernoff
theta, K); each leaves the bound valid for any value.  Every reported number is an Arb ball.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.symbolic import derived as D
from verifier.numerics.memory import reserve
from verifier.numerics.lattice import (MAX_N, LatticeLaw, centred_window, normal_sf_float, powers,
                                      two_dfts, two_inverse)
from verifier.core.arith import InputError, Interval, decimal_str, to_arb
BUDGET = 1e-4            # each neglected piece is kept below BUDGET * (scale of TV)
SIGMA_RANGE = (Fraction(1, 10), Fraction(1000))   # tried: widths <= ~1% at E = 1 in between


def check_sigma(sigma: Fraction):
    if not SIGMA_RANGE[0] <= sigma <= SIGMA_RANGE[1]:
        raise InputError(f"sigma = {decimal_str(sigma, 12)} is outside the range of the "
                         f"exact-TV engine [0.1, 1000] (its lattice sizes overflow there)")


@dataclass
class OneEpoch:
    lower: arb
    upper: arb
    h: Fraction
    cells: int
    N: int


def cell_boundaries(sigma: float, h: float, J1: int, s2: float) -> list[int]:
    """Cell boundaries 0 = c_0 < ... < c_L = J1 in lattice units: width 1 while the mass
    above is large, doubling when w^2 P(Y >= a h) <= 4e-5 s2 / h^2 (then each width level
    adds at most 1e-5 s2 of variance to the spread, some 20 levels at most)."""
    u = 1 / sigma**2
    eps_w = 4e-5 * s2 / h**2
    out, a, w = [0], 0, 1
    while a < J1:
        while a % (2 * w) == 0 and a > 0:
            pge = normal_sf_float(sigma * (math.log(a * h) + u / 2))
            if (2 * w) ** 2 * pge <= eps_w:
                w *= 2
            else:
                break
        a = min(a + w, J1)
        out.append(a)
    return out


def _partial(sigma: Fraction, y: arb):
    """(P(Y >= y), E[Y 1{Y >= y}]): the SymPy-derived upper-tail partial moments
    (D.lognormal_upper_tail, docs/THEORY.md section 2) at x(y) = sigma (ln y + u/2), since Y >= y
    iff X >= x(y)."""
    s = to_arb(sigma)
    return D.lognormal_upper_tail(s, s * (y.log() + 1 / (2 * s * s)))


def upper_tails(sigma: Fraction, h: Fraction, points: list[int]):
    """Upper-tail masses G = P(Y >= c h), H = E[Y 1{Y >= c h}] at lattice points c (1 and 1
    at c = 0): cell [c_i, c_{i+1}) has q = G_i - G_{i+1}, m = H_i - H_{i+1} (differences of
    complements, no cancellation in the tail that matters)."""
    ha = to_arb(h)
    G, H = [], []
    for c in points:
        g, m = (arb(1), arb(1)) if c == 0 else _partial(sigma, c * ha)
        G.append(g)
        H.append(m)
    return G, H


def cell_moments(sigma: Fraction, h: Fraction, bounds: list[int]):
    """(q, m, p, tau): per cell [c_i, c_{i+1}) of ``bounds`` (lattice units) its probability q_i
    and first moment m_i = E[Y 1{cell}], and above the last boundary p = P(Y >= c_L h) and
    tau = E[Y 1{Y >= c_L h}] (differences of the closed-form upper tails, upper_tails)."""
    G, H = upper_tails(sigma, h, bounds)
    L = len(bounds) - 1
    return ([G[i] - G[i + 1] for i in range(L)], [H[i] - H[i + 1] for i in range(L)],
            G[-1], H[-1])


@dataclass
class _Setup:
    """The lattice variables shared by the one-epoch and the E-epoch engines."""
    sigma: Fraction
    M: int
    h: Fraction
    ha: arb
    J1: int                      # body threshold T1 = J1 h
    bounds: list                 # cell boundaries (lattice units) 0 .. J1
    q: list                      # P(Y in cell i)
    m: list                      # E[Y 1{Y in cell i}]
    p: arb                       # P(Y >= T1)
    tau: arb                     # E[Y 1{Y >= T1}]
    labels: list                 # (position, probability): the label L of Y, clamped at J1
    body: list                   # (position, probability): the spread of Y given Y < T1
    mu_l: arb
    mu_b: arb
    scale: float                 # the size of TV_1 (Gaussian limit), for budgets


def _plan(sigma: Fraction, M: int, union_loss=None):
    """The free parameters, chosen in floats (any choice keeps the bracket valid): (h, J1,
    cell boundaries, scale of TV_1).  The body threshold T1 = exp(x1/sigma - u/2) is the
    first x1 (steps of 1/8) with M P(Y > T1) <= 1/100, the K >= 2 term (M - 1) p tau below
    BUDGET * scale, and union_loss(M p + tau, scale) (the E-epoch engine's relative charge
    for epochs with an item above T1) below 1e-3."""
    if M < 2:
        raise InputError(f"steps must be >= 2 for the exact TV, got {M}")
    check_sigma(sigma)
    sf = float(sigma)
    u = 1 / sf**2
    s2 = math.expm1(u)
    sd = math.sqrt(s2)
    scale = min(0.5, math.sqrt(s2 / (2 * math.pi * M)))
    x1 = 1.0
    while (M * normal_sf_float(x1) > 0.01 or
           (M - 1) * normal_sf_float(x1) * normal_sf_float(x1 - 1 / sf) > BUDGET * scale or
           (union_loss is not None and
            union_loss(M * normal_sf_float(x1) + normal_sf_float(x1 - 1 / sf), scale) > 1e-3)):
        x1 += 0.125
    T1 = math.exp(x1 / sf - u / 2)
    # lattice step: the dyadic with a 4-bit mantissa just below sd/r (sd/h in [r, 1.07 r]);
    # each end is off by about h^2 / (12 s2) (<= 0.4% at r = 5), the window grows like
    # sd/h; smaller M (cheap, farther from the Gaussian regime) gets finer steps.  Far from
    # the Gaussian regime (small sigma: sd >> T1, or sd >> M) the step must also resolve the
    # body and the kink at S = M: at most T1/32 and M/64
    r = 5 if M >= 10**5 else 8 if M >= 100 else 12
    target = min(sd / r, T1 / 32, M / 64)
    e = math.floor(math.log2(target)) - 3
    h = Fraction(math.floor(target / 2.0**e)) * Fraction(2) ** e
    J1 = max(4, math.ceil(T1 / float(h)))
    if J1 > MAX_N:
        raise InputError(f"sigma = {decimal_str(sigma, 12)} needs a body of {J1} lattice cells "
                         f"(more than {MAX_N}); not supported")
    return h, J1, cell_boundaries(sf, float(h), J1, s2), scale


def setup(sigma: Fraction, M: int, union_loss=None) -> _Setup:
    """Cells, labels and spread body for (sigma, M) at the current precision (_plan chooses
    the parameters)."""
    h, J1, bounds, scale = _plan(sigma, M, union_loss)
    ha = to_arb(h)
    q, m, p, tau = cell_moments(sigma, h, bounds)
    L = len(bounds) - 1
    labels = [(bounds[i], q[i]) for i in range(L)] + [(J1, p)]
    w: dict[int, arb] = {}
    for i in range(L):
        a, b = bounds[i], bounds[i + 1]
        wa, wb = spread_cell(q[i], m[i], a, b, ha)
        w[a] = w.get(a, arb(0)) + wa
        w[b] = w.get(b, arb(0)) + wb
    body = [(k, v / (1 - p)) for k, v in sorted(w.items())]
    mu_l = sum((k * v for k, v in labels), arb(0))
    mu_b = sum((k * v for k, v in body), arb(0))
    return _Setup(sigma, M, h, ha, J1, bounds, q, m, p, tau, labels, body, mu_l, mu_b, scale)


def spread_cell(q: arb, m: arb, a: int, b: int, ha: arb):
    """The mean-preserving spread of a cell [a h, b h) with mass q and first moment m onto its
    end points: masses (q b h - m)/((b - a) h) at a h and (m - q a h)/((b - a) h) at b h.  The
    result is larger in convex order (Jensen: every convex function of the cell's value lies
    below its chord), so E f of it bounds E f from above for convex f; the K = 1 tail chords
    use the same weights."""
    d = (b - a) * ha
    return (q * (b * ha) - m) / d, (m - q * (a * ha)) / d


def check_N(N: int, S: _Setup, engine: str = "exact-tv"):
    if N > MAX_N:
        raise InputError(f"M = {S.M} at sigma = {decimal_str(S.sigma, 12)} needs a DFT of "
                         f"length {N} (more than {MAX_N})")
    reserve(N, engine, f"the exact TV at sigma = {decimal_str(S.sigma, 12)}, M = {S.M}")


def best_test(S: _Setup, value) -> arb:
    """The best lower end of value(K), a lower bound of TV for the test {sum of labels >= K},
    over K near the natural threshold M E[L] (every K gives a valid bound)."""
    K0 = int(round(float(Interval.of(S.M * S.mu_l).lower)))
    return max((arb(value(K).lower()) for K in range(K0 - 3, K0 + 4)), key=lambda x: x.mid())


def _lower_one(S: _Setup, R: LatticeLaw) -> arb:
    """TV_1 >= E[(Y_1 - 1) 1{L_1 + R >= K}] = sum_j a_j P(R >= K - l_j), R the sum of the
    other M - 1 labels."""
    L = len(S.bounds) - 1
    a_coef = [(S.bounds[i], S.m[i] - S.q[i]) for i in range(L)] + [(S.J1, S.tau - S.p)]
    return best_test(S, lambda K: sum((aj * R.tail_ge(K - lj) for lj, aj in a_coef), arb(0)))


def upper_one(S: _Setup, B1: LatticeLaw):
    """(upper bound of TV_1, Pi_M(0), tail cells used): the K = 0 / 1 / >= 2 split of the
    module docstring, from the law B1 of M - 1 spread body items."""
    M, h, ha, p, tau = S.M, S.h, S.ha, S.p, S.tau
    Mh = Fraction(M) / h
    hM = ha / M

    def Pi(c: int) -> arb:               # Pi_{M-1}(c h) = (h/M) pi_{M-1}(M/h - c)
        return hM * B1.stop_loss(Mh - c)

    one_p = 1 - p
    P1 = M * p * one_p ** (M - 1)
    K2 = (M * p - P1) * tau / (M * p) if p > 0 else arb(0)   # (E K - P(K=1)) E[Y|Y>T1]/M
    # Pi_M(0) = E f(B1 + b) = sum_j b_j Pi_{M-1}(j h) (one more independent body item)
    PiM = sum((v * Pi(j) for j, v in S.body), arb(0))
    U = (1 - P1) * PiM + K2
    # K = 1: E[Pi_{M-1}(Y); Y >= T1] by chords on cells [t_i, t_{i+1}), ratio 1 + 1/64,
    # then the linear piece y >= c_lin (k = M/h - c below the window's start, or k < 0)
    c_lin = max(S.J1, math.ceil(Mh - B1.start) + 1)
    tb = [S.J1]
    while tb[-1] < c_lin:
        tb.append(min(c_lin, max(tb[-1] + 1, math.ceil(tb[-1] * (1 + 1 / 64)))))
    Gt, Ht = upper_tails(S.sigma, h, tb)
    Gsum = arb(0)
    prev = Pi(tb[0])
    for i in range(len(tb) - 1):
        a, b = tb[i], tb[i + 1]
        qc, mc = Gt[i] - Gt[i + 1], Ht[i] - Ht[i + 1]
        nxt = Pi(b)
        wa, wb = spread_cell(qc, mc, a, b, ha)       # Pi_{M-1} convex: below its chord
        Gsum = Gsum + prev * wa + nxt * wb
        prev = nxt
    q_inf, m_inf = Gt[-1], Ht[-1]
    k_lin = Mh - c_lin
    lin = ((ha * B1.mean - M) * q_inf + m_inf) / M
    if k_lin > 0:
        lin = lin + hM * to_arb(k_lin) * B1.eps_lo * q_inf
    U = U + M * one_p ** (M - 1) * (Gsum + lin)
    return U, PiM, len(tb)


def tv_one(sigma: Fraction, M: int, prec: int) -> OneEpoch:
    """Rigorous bracket of TV_1(sigma, M); see the module docstring for every step."""
    with ctx.workprec(prec):
        S = setup(sigma, M)
        eps_target = 1e-3 * S.scale
        N = max(centred_window(S.labels, M - 1, eps_target, S.J1),
                centred_window(S.body, M, eps_target, S.J1))
        check_N(N, S)
        # the laws of the M - 1 labels (R) and the M - 1 spread body items (B1): one
        # forward and one inverse complex DFT for both (real sequences packed as x + iy)
        XL, XB = two_dfts(S.labels, S.body, N)
        y = two_inverse(powers(XL, M - 1, prec), powers(XB, M - 1, prec), N)
        del XL, XB
        R = LatticeLaw(y, "real", M - 1, N, S.labels, S.mu_l, S.J1)
        B1 = LatticeLaw(y, "imag", M - 1, N, S.body, S.mu_b, S.J1)
        del y
        lower = _lower_one(S, R)
        del R
        U, _, ntail = upper_one(S, B1)
        return OneEpoch(lower, arb(U.upper()), S.h, len(S.bounds) + ntail, N)
