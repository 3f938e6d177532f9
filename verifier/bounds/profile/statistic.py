"""Stage 5 of one epoch of random allocation: the test statistic (docs/THEORY.md section 9,
"Lower ends (tests)").  delta_R(eps) >= P1(A) - e^eps P0(A) and delta_A(eps) >= P0(A') -
e^eps P1(A') for every event (and randomized test): the outcome of an epoch is K = 0 with a
bucket of the M labels' sum, K = 1 with the tail cell and a bucket of the other labels, or
K = 2 with the two tail cells and a bucket; lambda a rounded float log-likelihood ratio of
the outcome (any function of the outcome gives a valid test), with its laws under P0 and P1.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from verifier.bounds.profile.spreads import is_band
from verifier.bounds.profile.body import Body
from verifier.bounds.profile.first_cell import first_cell_test, refine_first_bucket
from verifier.bounds.profile.plan import (BUCKET_K0, BUCKET_SD, GRID_L, K2_MERGE_LARGE, K2_TEST_M,
                                         TEST_MERGE, Plan, pairs_by_product,
                                         tail_step, test_refinement)
from verifier.bounds.profile.spreads import convolve


def bucketed(X, Y, size: int, reach: float, sd: float) -> list:
    """[(mass of X, mass of Y)] over buckets of ``size`` consecutive sums of X's window within
    ``reach`` standard deviations ``sd`` of its mean (Y's window must contain the bucket;
    sums outside are left out of the tests).  Each bucket summed on its own: a difference of
    suffix sums would carry the radii of every sum beyond it (the window's length times a
    sum's radius: about 19 bits of precision at N = 2^19; docs/THEORY.md section 9, "Working
    precision")."""
    if is_band(X):                                   # BandLaws: aligned blocks
        return bucketed_blocks(X, Y, X.fit(size), reach, sd)
    zero = arb(0)
    out = []
    centre = float(X.mean.mid()) - X.start
    first = max(0, int(centre - reach * sd))
    last = min(len(X.c), int(centre + reach * sd) + 1)
    for s_ in range(first, last, size):
        e_ = min(last, s_ + size)
        v0, v1 = X.start + s_, X.start + e_
        r1 = sum(X.c[s_:e_], zero)
        if Y is not None:
            lo_i, hi_i = v0 - Y.start, v1 - Y.start
            if lo_i < 0 or hi_i > len(Y.c):
                continue
            r2 = sum(Y.c[lo_i:hi_i], zero)
        else:
            r2 = zero
        out.append((r1, r2))
    return out


def bucketed_blocks(X, Y, G: int, reach: float, sd: float) -> list:
    """bucketed for BandLaws (bandlaw.py): the buckets are X's window blocks of G points
    (a power of 2 fitting the alignment) meeting the range within ``reach`` sd of the mean,
    their masses from the spectra; Y's blocks at the same points (the windows share the
    alignment), buckets outside Y's window left out."""
    SX = X.blocks(G)[0]
    SY, jy = (Y.blocks(G)[0], block_offset(X, Y, G)) if Y is not None else (None, 0)
    centre = float(X.mean.mid()) - X.start
    first = max(0, int(centre - reach * sd) // G)
    last = min(len(SX), int(centre + reach * sd) // G + 1)
    out = []
    for i in range(first, last):
        if SY is None:
            out.append((SX[i], arb(0)))
        elif 0 <= i + jy < len(SY):
            out.append((SX[i], SY[i + jy]))
    return out


def block_offset(X, Y, G: int) -> int:
    """Y's block index of X's block i is i + this (both windows' starts multiples of G)."""
    return (X.start - Y.start) // G


REACH1 = 12      # the K = 1 buckets within this many sd of the other labels' mean (light tails)


def k1_reach(P: Plan, n: int) -> float:
    """How far (in sd) the K = 1 tests bucket the other labels (window of n sums): heavy tails
    the whole window (sigma 0.5, M 2: 12 sd left out outcomes worth 1.2e-7 of delta(6.9) =
    9.8e-4, the remove direction's lower end stuck 1.3e-4 relative low at every level)."""
    return n if P.heavy else REACH1


def tail_cells(B: Body, P: Plan, merge: int) -> list:
    """[(P(Y in cell), E[Y; Y in cell])] of the tail cells merged ``merge`` at a time, and of
    the last one [t_max, inf)."""
    tb, Gt, Ht = P.tail, B.cells.Gt, B.cells.Ht
    idx = list(range(0, len(tb) - 1, merge)) + [len(tb) - 1]
    return [(Gt[a] - Gt[b], Ht[a] - Ht[b]) for a, b in zip(idx, idx[1:])] + [(Gt[-1], Ht[-1])]


def test_blocks(B: Body, P: Plan, M: int, sd: float, fine) -> list:
    """The outcomes in blocks (alpha, beta, gamma, buckets), buckets [(r1, r2)], outcome
    masses P0 = alpha r1, P1 = beta r1 + gamma r2.  ``fine``: the first cell's fine lattice
    where the add law was split on it (the K = 0 outcome "label sum 0" is then refined)."""
    Ma = arb(M)
    # K = 0: buckets of consecutive sums r of the M labels, P0 = b^M, P1 = t b^{M-1}
    k0 = bucketed(B.BM, B.T1l, max(1, int(sd / (BUCKET_K0 * P.fine))), B.BM.N, sd)
    blocks = [(arb(1), arb(0), arb(1), k0)]
    if fine is not None and B.BM.start == 0 and B.T1l.start == 0 and k0:
        # the label sum 0 (all items in the first cell: its label is 0, every other cell's
        # is >= 1) taken out of the first bucket and refined by the first cell's fine labels
        blocks = [(arb(1), arb(0), arb(1), refine_first_bucket(k0, B.BM, B.T1l)),
                  (arb(1), arb(0), arb(1), first_cell_test(fine, M))]
    # K = 1: tail cell i (incl. the last, [t_max, inf)), bucket of the other labels
    bucket_f, merge1, merge2 = test_refinement(P.fine, P.fine_tails, P.band)
    buckets = bucketed(B.B1, B.T2l, max(1, int(sd / (BUCKET_SD * bucket_f))),
                       k1_reach(P, B.B1.N), sd)
    for pi, ti in tail_cells(B, P, TEST_MERGE * merge1):
        blocks.append((Ma * pi, ti, (M - 1) * pi, buckets))
    # K = 2: the two tail items' cells (merged) and a coarse bucket of the other M - 2 labels:
    #   P0 = M (M-1) p_a p_b b^{M-2}               (a != b; half of it for a = b)
    #   P1 = (M-1)(tau_a p_b + tau_b p_a) b^{M-2} + (M-1)(M-2) p_a p_b (t b^{M-3})   (idem)
    if B.B2 is not None:
        bk2 = bucketed(B.B2, B.T3l, max(1, int(sd / 3)), 10, sd)
        if pairs_by_product(P):
            blocks += [(al, be, ga, bk2) for al, be, ga in k2_by_sum(B, P, M)]
        else:
            t8 = tail_cells(B, P, (8 if M < K2_TEST_M else K2_MERGE_LARGE) * merge2)
            for ia, (pa, ta) in enumerate(t8):
                for ib in range(ia, len(t8)):
                    pb_, tb2 = t8[ib]
                    half = 1 if ia != ib else arb(1) / 2
                    blocks.append((M * (M - 1) * pa * pb_ * half, (M - 1) * (ta * pb_ + tb2 * pa) * half,
                                   (M - 1) * (M - 2) * pa * pb_ * half, bk2))
    return blocks


def k2_by_sum(B: Body, P: Plan, M: int) -> list:
    """[(alpha, beta, gamma)] of the K = 2 outcomes "the two tail items' cells have their left
    ends' sum in key j" (a function of the outcome: a valid test), key j a geometric bucket
    of relative step the plan's tail step, over every tail cell: the unions of the pair
    outcomes (a, b) of test_blocks, P0 = M (M-1)/2 sum p_a p_b, P1 = (M-1) sum tau_a p_b
    + (M-1)(M-2)/2 sum p_a p_b over the ordered pairs in the key, each sum from one ball
    polynomial product (the ordered pairs' sums, spreads.convolve), summed key by key.  At
    M = 2 the sum is the likelihood ratio's own statistic; the pairs of merged cells it
    replaces cost quadratically in outcomes (sigma 4, M 2, E 1, delta 1e-10, level 32: the
    remove bracket's lower end of delta(1.0608) 1.030802e-10 with the cells merged 8, the
    statistic 5.3 s; 1.030861e-10 by sum, 0.9 s; a 50-digit quadrature's 1.030916e-10)."""
    tb = P.tail
    cells = tail_cells(B, P, 1)                    # cell i has left end tb[i]; the last t_max
    pm = {tb[i]: c[0] for i, c in enumerate(cells)}
    tm = {tb[i]: c[1] for i, c in enumerate(cells)}
    pp, tp = convolve(pm, 1, pm), convolve(tm, 1, pm)
    base, lr = 2 * tb[0], math.log1p(tail_step(P.fine_tails, P.fine, P.band))
    keys: dict[int, list] = {}
    for s_ in sorted(set(pp) | set(tp)):
        keys.setdefault(int(math.log(s_ / base) / lr), []).append(s_)
    zero, Ma = arb(0), arb(M)
    out = []
    for j in sorted(keys):
        a = sum((pp.get(s_, zero) for s_ in keys[j]), zero)
        t = sum((tp.get(s_, zero) for s_ in keys[j]), zero)
        out.append((Ma * (M - 1) / 2 * a, (M - 1) * t, arb((M - 1) * (M - 2)) / 2 * a))
    return out


def alias_masses(B: Body, M: int) -> tuple[arb, arb]:
    """(alias0, alias1): the outcomes' mass outside the windows under P0 and P1 (subtracted
    from the probability that must be a lower bound and added to the other)."""
    def out(Z):
        return arb(0) if Z is None else Z.eps_lo + Z.eps_up
    Ma, p, tau = arb(M), B.cells.p, B.cells.tau
    mp2 = (Ma * p) ** 2 / 2
    alias0 = out(B.BM) + Ma * p * out(B.B1) + mp2 * out(B.B2)
    alias1 = (out(B.T1l) + tau * out(B.B1) + (M - 1) * p * out(B.T2l)
              + Ma * tau * p * out(B.B2) + mp2 * out(B.T3l))
    return alias0, alias1


def statistic_laws(blocks, grid: int = 1, drop: float = 0.0):
    """The statistic lambda (a rounded float log-likelihood ratio: any function of the
    outcome gives a valid test) on a grid of step eta_l = sd(lambda) / (GRID_L grid) (``grid``:
    plan.grid_refinement), and its laws under P0 and P1: (test0, test1, eta_l).

    Within a block lambda = log(beta/alpha + (gamma/alpha) r2/r1) is nondecreasing in
    rho = r2/r1, so with the buckets sorted by rho (float) each grid value takes a run of
    consecutive buckets.  The float statistic is made monotone
    along the sorted buckets (a running maximum; buckets whose float masses underflow take
    their predecessor's value, the first ones the lowest): still a function of the outcome.

    ``drop`` (refined levels: the plan's per-epoch budget): outcomes whose float P0 and P1
    masses are both below drop / (the number of outcomes) are left out of the tests (any
    event is a valid test; the lower ends lose at most about ``drop`` per epoch of P1 mass),
    and their ball sums are not formed (sigma 0.5, M 1e4, E 100, level 16: most of the K = 1
    outcomes lie in the far tails of the other labels' sum)."""
    pre = {}                                  # id(buckets) -> (order, sorted buckets, floats)
    groups: dict = {}                         # id(buckets) -> the blocks' indices that share them
    for i, (_, _, _, bk) in enumerate(blocks):
        if id(bk) not in pre:
            pre[id(bk)] = _sorted_buckets(bk)
        groups.setdefault(id(bk), []).append(i)
    tau = drop / max(1, sum(len(bk) for _, _, _, bk in blocks))
    # the floats of every block sharing a bucket list as the rows of one array (the same
    # elementwise operations as block by block: M 10 has 1908 blocks on 3 lists)
    rows = {key: _float_rows([blocks[i] for i in idx], pre[key], tau)
            for key, idx in groups.items()}
    xs, ws = _in_block_order(groups, rows)
    ml = float(np.dot(xs, ws) / ws.sum())
    sl = math.sqrt(max(float(np.dot((xs - ml) ** 2, ws) / ws.sum()), 1e-30))
    eta_l = Fraction(sl / (GRID_L * grid)).limit_denominator(10 ** 12)
    lo_cap = ml - 16 * sl
    at = {}                                    # block index -> (ks, cuts) or None (none kept)
    for key, idx in groups.items():
        X, _, _, KEEP = rows[key]
        KS = np.round(np.maximum(np.maximum.accumulate(X, axis=1), lo_cap)
                      / float(eta_l)).astype(np.int64)
        at.update(zip(idx, _cut_rows(KS, KEEP)))
    runs = []                                  # (alpha, beta, gamma, kept buckets, ks, cuts)
    for i, (al, be, ga, bk) in enumerate(blocks):
        if at[i] is None:
            continue
        ks, cuts, kept = at[i]
        sb = pre[id(bk)][1]
        if kept is not None:
            sb = [sb[j] for j in kept]
        runs.append((al, be, ga, sb, ks, cuts))
    test0, test1 = ball_masses(runs)
    return test0, test1, eta_l


def _sorted_buckets(bk) -> tuple:
    """(order, buckets sorted by rho = r2 / r1 in floats, r1 and r2 sorted)."""
    r1 = np.array([float(x) for x, _ in bk])     # float(ball): its midpoint
    r2 = np.array([float(y) for _, y in bk])
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(r1 > 0, r2 / np.where(r1 > 0, r1, 1.0), np.inf)
    order = np.argsort(rho, kind="stable")
    return order, [bk[i] for i in order], r1[order], r2[order]


def _float_rows(blks: list, pre: tuple, tau: float) -> tuple:
    """(X, W, OK, KEEP or None): per block (a row) and sorted bucket, the float statistic
    log(P1 / P0), the float P0 mass where both masses are above 1e-300 (else 0), whether
    they are, and (tau > 0) whether the outcome is kept."""
    _, _, r1, r2 = pre
    a = np.array([float(al.mid()) for al, _, _, _ in blks])[:, None]
    b = np.array([float(be.mid()) for _, be, _, _ in blks])[:, None]
    g = np.array([float(ga.mid()) for _, _, ga, _ in blks])[:, None]
    f0 = a * r1[None, :]
    f1 = b * r1[None, :] + g * r2[None, :]
    ok = (f0 > 1e-300) & (f1 > 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(ok, np.log(np.where(ok, f1, 1.0) / np.where(ok, f0, 1.0)), -np.inf)
    keep = ((f0 >= tau) | (f1 >= tau)) if tau > 0 else None
    return x, np.where(ok, f0, 0.0), ok, keep


def _in_block_order(groups: dict, rows: dict) -> tuple:
    """(xs, ws): the statistic and P0 floats of every outcome with both masses above 1e-300,
    list of buckets after list in the order of their first block (the blocks' own order:
    test_blocks builds each list's blocks one after another; any order is a valid float
    choice of the grid step, this one the order block by block took)."""
    parts = [rows[key] for _, key in sorted((idx[0], key) for key, idx in groups.items())]
    return (np.concatenate([X[OK] for X, _, OK, _ in parts]),
            np.concatenate([W[OK] for _, W, OK, _ in parts]))


def _cut_rows(KS, KEEP) -> list:
    """Per row: (ks of the kept outcomes, the cuts between runs of equal ks, the kept indices
    or None for all), or None where no outcome is kept."""
    L = KS.shape[1]
    if L == 0:                         # an empty list of buckets: no outcome, no run
        return [None] * KS.shape[0]
    if KEEP is None:                   # all kept: the runs' cuts of every row at once
        r, c = np.nonzero(np.diff(KS, axis=1))
        bounds = np.searchsorted(r, np.arange(KS.shape[0] + 1))
        return [(KS[j], [0] + (c[bounds[j]:bounds[j + 1]] + 1).tolist() + [L], None)
                for j in range(KS.shape[0])]
    out = []
    for ks, keep in zip(KS, KEEP):
        idx = np.flatnonzero(keep)
        if not len(idx):
            out.append(None)
            continue
        kept = None
        if len(idx) < L:
            ks, kept = ks[idx], idx
        out.append((ks, [0] + (np.flatnonzero(np.diff(ks)) + 1).tolist() + [len(ks)], kept))
    return out


def ball_masses(runs) -> tuple:
    """(test0, test1): the runs' P0 and P1 masses in ball arithmetic.  Each run summed on its
    own (a difference of prefix sums would carry the radii of everything before the run; most
    runs are one bucket); the products gathered over all runs and summed per grid value in
    the runs' order (a stable sort: the same balls as adding them one by one)."""
    zero = arb(0)
    keys, p0, p1 = [], [], []
    for al, be, ga, sb, ks, cuts in runs:
        if len(cuts) == len(sb) + 1:                 # every run is one bucket
            s1s, s2s, kk = [x for x, _ in sb], [y for _, y in sb], ks
        else:
            s1s, s2s = [], []
            for s_, e_ in zip(cuts, cuts[1:]):
                if e_ - s_ == 1:
                    s1, s2 = sb[s_]
                else:
                    s1 = s2 = zero
                    for r1_, r2_ in sb[s_:e_]:
                        s1 += r1_
                        s2 += r2_
                s1s.append(s1)
                s2s.append(s2)
            kk = ks[np.asarray(cuts[:-1], dtype=np.int64)]
        keys.append(kk)
        p0 += [al * s1 for s1 in s1s]
        p1 += [be * s1 + ga * s2 for s1, s2 in zip(s1s, s2s)]
    if not keys:
        return {}, {}
    return grouped(np.concatenate(keys), p0, p1)


def grouped(keys, *vals: list) -> tuple:
    """For each list of values (all keyed by ``keys``): key -> the sum of its values with that
    key, each sum in the values' order, the keys in the order of their first value (as adding
    the values one by one into a dict).  One stable sort for all the lists."""
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    at = order.tolist()
    cuts = [0] + (np.flatnonzero(np.diff(ks)) + 1).tolist() + [len(at)]
    groups = sorted(zip(order[cuts[:-1]].tolist(), cuts, cuts[1:]))
    out = []
    for v in vals:
        vs = [v[i] for i in at]
        out.append({int(ks[a]): sum(vs[a + 1:b], vs[a]) for _, a, b in groups})
    return tuple(out)
