"""Stages 2-4 of one epoch of random allocation: the log grid, the remove upper law (under
P0) and the add upper law (under the tilted measure nu = W P0), each a law of x = log W on a
grid of step eta plus a charge for what it leaves out (docs/THEORY.md section 9, "Upper
ends", steps (a)-(e), "How the one-epoch upper laws are assembled", "The add law's first
cell").  Every law is a ball dictionary grid index -> mass; floats only choose free
parameters.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from flint import arb

from verifier.core.arith import to_arb
from verifier.bounds.exact_tv.one_epoch import spread_cell
from verifier.bounds.profile.spreads import is_band
from verifier.numerics.band import float_values
from verifier.bounds.profile.body import Body
from verifier.bounds.profile.first_cell import (all_in_first_cell, fine_cells, first_cell_levels,
                                               first_cell_n, split_first_cell)
from verifier.bounds.profile.plan import (COARSE_SD, FAR_B, GRID_X, K2_COARSE, PRODUCT_LENGTH,
                                         PRODUCT_PER_PUT, Plan, grid_refinement, log_rooms,
                                         pair_merge, pair_step, pairs_by_product)
from verifier.bounds.profile.spreads import (Window, add_mass, coarse, coarse_keep_low, collapse,
                                            convolve, float_moments_arrays, geometric, keep_range, thin,
                                            onto_lattice, spread_log, sub_mean)


@dataclass(frozen=True)
class LogGrid:
    """The grid of x = log W (step eta, a float choice) and the K = 0 sum B_M on a coarse
    lattice (multiples of G0) with the logs of its points (None at W = 0)."""
    eta: Fraction
    eta_inv: arb
    k_floor: int            # remove: values below this grid index moved up (step (b))
    G0: int
    K0: dict
    logs: dict


def log_grid(B: Body, P: Plan, M: int) -> LogGrid:
    """eta = sd(log W) / (GRID_X grid_refinement(level)) from a float subsample of B_M; B_M
    spread onto the multiples of G0 (step (a) for a sum), G0 h / M about a quarter of eta at
    W = 1 (a float choice)."""
    SM, h = B.SM, P.h
    band = is_band(SM)                               # a BandLaw (bandlaw.py)
    stride = max(1, SM.N // 8192)                    # a float choice: a subsample suffices
    idx = np.arange(0, SM.N, stride)
    if band:       # its points in floats (numpy's inverse DFT of the kept spectrum): the
        y = float_values(SM.Y)                      # balls of block size 1 took an Arb DFT
        c = y[(SM.start % SM.N + idx) % SM.N]       # of the window (M 1000: 19 of 175 ms)
    else:
        c = np.array([float(SM.c[i].mid()) for i in idx])
    v = SM.start + idx                               # the subsample's points and masses in
    keep = v > 0                                     # numpy (a Python loop over 10^4 pairs
    x = np.log(np.maximum(v[keep] * (float(h) / M), 1e-300))   # took 16 of 145 ms at M 1000)
    mx, sx = float_moments_arrays(x, np.maximum(c[keep], 0.0))
    eta = Fraction(sx / (GRID_X * grid_refinement(P.fine, P.band))).limit_denominator(10 ** 12)
    k_floor = math.floor((mx - 14 * sx) / float(eta))
    c_log = (to_arb(h) / arb(M)).log()
    G0 = max(1, int(float(eta) * M / float(h) / 4))
    G0 = SM.fit(G0) if band else G0
    K0 = coarse(SM, G0) if G0 > 1 else {SM.start + i: c for i, c in enumerate(SM.c)}
    logs = {j: (None if j == 0 else arb(j * G0).log() + c_log) for j in K0}
    return LogGrid(eta, 1 / to_arb(eta), k_floor, G0, K0, logs)


@dataclass(frozen=True)
class CoarseBody:
    """The body sums of the K >= 1 parts on coarse lattices: B_{M-1} on the multiples of g
    (moved up for remove, down for add beyond the kept range: step (b)), and for K = k >= 2
    the body law B_n (n >= M - k) on the multiples of K2_COARSE g."""
    g: int
    sd_b: float             # sd of the sum of M - 1 body items, lattice units (a float)
    Bc: dict
    BcA: dict
    body_k: dict            # k -> (n, law of B_n on the multiples of G8)
    lim: float


def coarse_body(B: Body, P: Plan, M: int) -> CoarseBody:
    """The coarse laws are kept where their two tails beyond hold more than ``lim``; beyond,
    moved to one end (step (b)): for remove that costs at most lim (top h / M) in E[W], for
    add at most lim.  The body of the K = k >= 2 parts: B_{M-k} <= B_n in the coupling for any
    n >= M - k; n = M - 2 (k = 2) and M - 3 (k >= 3) where their laws are at hand (M < 1000:
    one more inverse DFT; small M: a point mass or the one-item spread), else n = M - 1."""
    C = B.cells
    one_p = 1 - C.p
    mu_s = sub_mean(C.spread)
    sd_b = math.sqrt(max(float(((M - 1) * sum(((kk - mu_s) ** 2 * v for kk, v in C.spread),
                                               arb(0)) / one_p).mid()), 1.0))
    g = max(1, int(sd_b / (COARSE_SD * P.fine)))
    g = g - g % 4 if g >= 8 else g          # a multiple of 4 (the tail parts' lattice g/4)
    if is_band(B.S1):                       # a BandLaw: g and K2_COARSE g fit its alignment
        g = min(B.S1.fit(g), max(1, B.S1.align // K2_COARSE))
    G8 = K2_COARSE * g
    Bc_full, B8 = coarse(B.S1, g, G8)       # sub-probability, mass (1-p)^{M-1}
    top_w = float(P.tail[-1] * P.h) * P.kmax / M + float(P.J1 * P.h)
    lim = 1e-3 * P.budget * min(1.0, 1 / top_w)
    lo_c, hi_c = keep_range(Bc_full, lim)

    def coarse8(law, n):                 # law of n body items onto the multiples of G8
        if n == 0:
            return {0: arb(1)}
        c8 = coarse(law, G8)
        return collapse(c8, *keep_range(c8, lim), up=True)
    body_k = {2: (M - 1, collapse(B8, *keep_range(B8, lim), up=True))}
    if 2 <= M <= 3:                       # n = M - 2 <= 1: a point mass or the spread itself
        one = [arb(0)] * (P.J1 + 1)
        for j, v in C.spread:
            one[j] += v
        body_k[2] = (M - 2, coarse8(Window(one, 0), M - 2))
        if M == 3:
            body_k[3] = (0, {0: arb(1)})
    elif B.S2 is not None:
        body_k[2], body_k[3] = (M - 2, coarse8(B.S2, M - 2)), (M - 3, coarse8(B.S3, M - 3))
    return CoarseBody(g, sd_b, collapse(Bc_full, lo_c, hi_c, up=True),
                      collapse(Bc_full, lo_c, hi_c, up=False), body_k, lim)


def tail_charge(H_inf: arb, G_inf: arb, M: int, tau: arb, mp: arb, kmax: int) -> arb:
    """Step (e) for the events left out of the remove law: some item >= t_max,
    E[W; some Y_j >= t] <= E[Y; Y >= t] + (M - 1) P(Y >= t); and K > kmax,
    E[W; K > kmax] <= tau (Mp)^kmax / kmax! + (Mp)^(kmax+1) / (kmax+1)!
    (P(Bin(n, p) >= k) <= (np)^k / k!)."""
    return (H_inf + (M - 1) * G_inf + tau * mp ** kmax / math.factorial(kmax)
            + mp ** (kmax + 1) / math.factorial(kmax + 1))


def body_window_charge(S_, n_: int, B: Body, P: Plan, M: int) -> arb:
    """E[W; B_n >= b, K >= 1] for the body law B_n of the K >= 1 parts beyond its window b
    (step (e)): the body part, and the tail items', independent of the body items given K:
    sum_k P(K = k) E[S_k/M | K = k] P(B_n >= b) = E[K] (tau/p)/M P(B_n >= b) = tau P(B_n >= b)."""
    if not S_.alias:
        return arb(0)
    one_p = 1 - B.cells.p
    return ((1 - one_p ** M) * to_arb(P.h) / arb(M) * (S_.b * S_.eps_up + S_.tail_up)
            + B.cells.tau * S_.eps_up) / one_p ** n_


def k_body(k: int, body_k: dict, first: tuple) -> tuple:
    """(n, coarse law of B_n) for the K = k part: ``first`` for k = 1, else the body law with
    the fewest items kept for k (body_k: 2 -> n = M - 2 or M - 1, 3 -> n = M - 3 where at
    hand); always n >= M - k, so B_{M-k} <= B_n in the coupling (step (b))."""
    return first if k == 1 else body_k[min(k, max(body_k))]


def tail_spread(B: Body, P: Plan, step: int) -> dict:
    """The tail cells merged ``step`` at a time, each spread onto its end points (a)."""
    tb, Gt, Ht = P.tail, B.cells.Gt, B.cells.Ht
    ha = to_arb(P.h)
    out: dict[int, arb] = {}
    idx = list(range(0, len(tb) - 1, step)) + [len(tb) - 1]
    for a, b in zip(idx, idx[1:]):
        wa, wb = spread_cell(Gt[a] - Gt[b], Ht[a] - Ht[b], tb[a], tb[b], ha)
        add_mass(out, tb[a], wa)
        add_mass(out, tb[b], wb)
    return out


def pair_law(B: Body, P: Plan, M: int, tw1: dict) -> dict:
    """The law of a pair's sum of tail items, spread onto a geometric grid from 2 T1 (a):
    every pair of the spread tail cells (``tw1``: tail_spread(B, P, 1)) by one ball
    polynomial product where plan.pairs_by_product (sigma 4, M 2, E 1, delta 1e-10, level
    32: the remove bracket's upper end of delta(1.0608) 1.030955e-10 -> 1.030922e-10, a
    50-digit quadrature's 1.030916e-10, in the 0.6 s the merged pairs took), else one by one,
    the cells merged plan.pair_merge at a time."""
    n = len(P.tail)
    if pairs_by_product(P):
        pair = convolve(tw1, 1, tw1)
    else:
        merge = pair_merge(n)
        tw = sorted((tw1 if merge == 1 else tail_spread(B, P, merge)).items())
        pair = {}
        for ia, (ta, ca) in enumerate(tw):
            for tb_, cb_ in tw[ia:]:
                add_mass(pair, ta + tb_, ca * cb_ * (1 if tb_ == ta else 2))
    return geometric(pair, 2 * P.J1, 1 + pair_step(M, P.fine, P.fine_tails))


class _Remove:
    """The remove law being filled: each value x of log W at the ball's upper end spread onto
    the grid (steps (a), (b)); values below k_floor moved up onto it (b)."""

    def __init__(self, G: LogGrid):
        self.G, self.law = G, {}

    def put(self, x: arb, mass: arb):
        k, th = spread_log(x, self.G.eta_inv, True)
        if k < self.G.k_floor:
            add_mass(self.law, self.G.k_floor, mass)
        else:
            add_mass(self.law, k, mass * (1 - th))
            add_mass(self.law, k + 1, mass * th)


def product_cut(vs: list, body_span: int, sub: int, far_cost) -> Fraction:
    """The largest tail value the ball polynomial product takes (a free parameter: both
    routes are step (a)): the product is about body_span + (v - vs[0]) / sub coefficients
    long (at most PRODUCT_LENGTH), a value left to the point-by-point route costs
    far_cost(v) logs; the cut minimizes length / PRODUCT_PER_PUT + logs.  At sigma 0.8,
    M 1000, level 24 the product takes all 1900 values (a fixed 4096 coefficients took 58:
    2 million logs); at sigma 0.5, M 2 the heavy tail spans 10^4 times T1 and its 300 values
    cost 2000 logs, far less than a product that long."""
    rest = [0.0]
    for v in reversed(vs):
        rest.append(rest[-1] + far_cost(v))
    rest.reverse()                       # rest[n]: the far route's logs for vs[n:]
    best, cut = None, vs[0]
    v0 = float(vs[0])                    # floats: a cost model (Fraction arithmetic here
    for n, v in enumerate(vs, 1):        # took 35 of 380 ms at M 10)
        length = body_span + (float(v) - v0) / sub
        if length > PRODUCT_LENGTH and n > 1:
            break
        cost = length / PRODUCT_PER_PUT + rest[n]
        if best is None or cost < best:
            best, cut = cost, v
    return cut


def far_coarsening(v, b0: int, step: int, room: Fraction) -> int:
    """c = 2^i, the largest with c step <= room (b0 + v): how much coarser than ``step`` the
    far route spreads B (on lattice units from b0 up) against the tail value v."""
    if not room:               # level 1 (no log rooms): c = 1 for every v, no Fraction made
        return 1               # (M 10: 60 of 380 ms went to this rule's exact arithmetic)
    k = room * (b0 + v) / step
    return 1 << (max(1, math.floor(k)).bit_length() - 1)


def tail_parts(R: _Remove, B: Body, CB: CoarseBody, P: Plan, M: int):
    """K = k >= 1 tail items: (B_n h + V)/M with V the spread tail endpoints (k = 1) or (k/2)
    times a pair sum (k >= 2, Jensen over the pairs: step (c)), by one ball polynomial
    product of the coarse B_n with V on a lattice 4 times finer (a), its output thinned at
    refined levels (spreads.thin, (a)); values of V beyond the product's cut point by point
    against B spread FAR_B times coarser, coarser still for far values (far_route, (a))."""
    C, ha, Ma = B.cells, to_arb(P.h), arb(M)
    one_p, p_in = 1 - C.p, C.p - C.Gt[-1]         # P(T1 <= Y < t_max)
    thin_x, far_x = (x * R.G.eta for x in log_rooms(P.fine))
    tw1 = tail_spread(B, P, 1)
    pair = pair_law(B, P, M, tw1)
    for k in range(1, min(P.kmax, M) + 1):
        # P(K = k, all tail items < t_max) / (1-p)^n / p_in^min(k,2) (the body law B_n has
        # mass (1-p)^n), times the tail law(s) of total mass p_in^min(k,2)
        n_k, Bk = k_body(k, CB.body_k, (M - 1, CB.Bc))
        wk = arb(comb(M, k)) * p_in ** (k - min(k, 2)) * one_p ** (M - k - n_k)
        if not wk > 0:
            continue
        if k == 1:
            gk, vs = CB.g, {Fraction(t): ct for t, ct in tw1.items()}
        else:
            gk, vs = K2_COARSE * CB.g, {Fraction(k * t, 2): ct for t, ct in pair.items()}
        # V's lattice: 4 times finer than B's for k <= 2, B's own for k >= 3 (rarer events)
        sub = gk // 4 if gk % 4 == 0 and k <= 2 else (gk if k >= 3 else 1)
        step, b0 = FAR_B * gk, max(min(Bk), 0) * gk

        def coarsen(v, step=step, b0=b0):
            return far_coarsening(v, b0, step, far_x)
        far_n = (max(Bk) - min(Bk)) // FAR_B + 2      # about the far route's body points at c = 1
        cut = product_cut(sorted(vs), (max(Bk) - min(Bk)) * (gk // sub), sub,
                          lambda v: far_n / coarsen(v))
        dense = {v: c for v, c in vs.items() if v <= cut}
        for n, c in thin(convolve(Bk, gk // sub, onto_lattice(dense, sub)), thin_x).items():
            R.put((arb(n * sub) * ha / Ma).log(), c * wk)
        far_route(R, Bk, gk, sorted((v, c) for v, c in vs.items() if v > cut), wk, P, M, coarsen)


def far_route(R: _Remove, Bk: dict, gk: int, far: list, wk: arb, P: Plan, M: int, coarsen):
    """Values v of V beyond the product's cut, point by point against B (on the multiples of
    gk) spread onto a lattice FAR_B c times coarser, c = coarsen(v) (far_coarsening: its
    step in x = log W, at most c FAR_B gk / (min B + v), within the room at v; step (a) for
    each fixed V = v: B is independent of V, so B spread given V = v spreads the sum; B's
    points closer than a grid step of log W carry nothing the grid keeps).  sigma 0.5,
    M 1000, E 10, level 24: 2.5 million puts with c = 1 (the far values reach 1400 times the
    cut)."""
    ha, Ma = to_arb(P.h), arb(M)
    step = FAR_B * gk
    spread: dict[int, dict] = {}
    for v, c in far:
        cf = coarsen(v)
        if cf not in spread:
            spread[cf] = onto_lattice({j * gk: cb for j, cb in Bk.items()}, cf * step)
        va, mass = to_arb(v), c * wk
        for j, cb in spread[cf].items():
            R.put(((arb(j * cf * step) + va) * ha / Ma).log(), cb * mass)


def remove_law(B: Body, G: LogGrid, CB: CoarseBody, P: Plan, M: int) -> tuple[dict, arb]:
    """(law, charge) of the remove direction's upper end for one epoch."""
    R = _Remove(G)
    for j, c in G.K0.items():
        if G.logs[j] is None:
            add_mass(R.law, G.k_floor, c)            # W = 0 moved up (b)
        else:
            R.put(G.logs[j], c)
    SM, C = B.SM, B.cells
    # beyond the window (e): E[W; B_M >= b] <= (h/M)(b P(B >= b) + int_b^inf P(B >= v) dv)
    charge = arb(0)
    if SM.alias:
        charge += to_arb(P.h) / arb(M) * (SM.b * SM.eps_up + SM.tail_up)
    charge += body_window_charge(B.S1, M - 1, B, P, M)
    if B.S2 is not None:
        charge += body_window_charge(B.S2, M - 2, B, P, M) + body_window_charge(B.S3, M - 3, B, P, M)
    tail_parts(R, B, CB, P, M)
    # items above t_max, K > kmax (e)
    charge += tail_charge(C.Ht[-1], C.Gt[-1], M, C.tau, arb(M) * C.p, P.kmax)
    return R.law, charge


class _Add:
    """The add law being filled (under nu = W mu): values of log W at the ball's lower end
    spread onto the grid (steps (a), (b)), each with its weight w times its mu-mass."""

    def __init__(self, G: LogGrid):
        self.G, self.law = G, {}

    def put(self, x: arb, mass: arb):
        k, th = spread_log(x, self.G.eta_inv, False)
        add_mass(self.law, k, mass * (1 - th))
        add_mass(self.law, k + 1, mass * th)


def first_cell_split(A: _Add, sigma: Fraction, B: Body, G: LogGrid, P: Plan, M: int):
    """The K = 0 part split on S = the number of items in the first cell [0, c_1 h) (the
    spread's atom at W = 0, mass wa0^M, would be charged whole).  S < M: the spread law minus
    its all-in-the-first-cell piece (the spread acts cell by cell, so it is valid
    conditionally on the cells, step (a)); W > 0 there.  Its values below G0 are kept as they
    are, the rest coarse as for remove.  S = M: finer lattices level by level
    (first_cell_levels).  Returns (charge, the first level's fine cells)."""
    C, c1, ha, Ma = B.cells, P.bounds[1], to_arb(P.h), arb(M)
    charge = arb(0)
    cc = list(B.SM.c)
    for k, v in enumerate(all_in_first_cell(C.wa0, C.wb0, M)):
        cc[k * c1] -= v
    for v, c in coarse_keep_low(cc, G.G0).items():
        if v == 0:
            charge += c                       # 0 up to the balls' radii
        else:
            wv = arb(v) * ha / Ma
            A.put(wv.log(), wv * c)
    fine = fine_cells(sigma, c1 * P.h, first_cell_n(M))
    pts, ch = first_cell_levels(sigma, M, c1 * P.h, P.budget, first=fine)
    for wv, c in pts:
        A.put(wv.log(), wv * c)
    return charge + ch, fine


def add_law(sigma: Fraction, B: Body, G: LogGrid, CB: CoarseBody, P: Plan, M: int):
    """(law, charge, fine) of the add direction's upper end for one epoch; ``fine`` the first
    cell's fine lattice where the K = 0 part was split on it (else None)."""
    A = _Add(G)
    ha, Ma, SM = to_arb(P.h), arb(M), B.SM
    charge, fine = arb(0), None
    if split_first_cell(B.cells.wa0, M, P.budget, SM, P.bounds[1]):
        ch, fine = first_cell_split(A, sigma, B, G, P, M)
        charge += ch
    else:
        for j, c in G.K0.items():
            if G.logs[j] is None:
                charge += c                   # mu(W = 0): f_A = 1 there
            else:
                A.put(G.logs[j], arb(j * G.G0) * ha / Ma * c)
    charge += SM.eps_lo                       # below the window (e)
    charge += add_tail_items(A, B, CB, P, M)
    return A.law, charge, fine


def add_tail_items(A: _Add, B: Body, CB: CoarseBody, P: Plan, M: int) -> arb:
    """The add law's K >= 1 part: W >= (B_{M-1} h + T1)/M in a coupling (step (d)), B_{M-1}
    coarse (a); returns its charge, the mass of B_{M-1} below its window (e)."""
    ha, Ma = to_arb(P.h), arb(M)
    one_p = 1 - B.cells.p
    wK = (1 - one_p ** M) / one_p ** (M - 1)
    T1a = P.J1 * ha
    for j, cb in CB.BcA.items():
        wv = (arb(j * CB.g) * ha + T1a) / Ma
        A.put(wv.log(), wv * cb * wK)
    return wK * B.S1.eps_lo
