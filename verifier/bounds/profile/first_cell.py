"""The add law's first cell (docs/THEORY.md section 9, "The add law's first cell"): the piece
"all M items in the first body cell [0, c_1 h)" of one epoch, split off the spread law and
redone level by level on finer lattices (the upper end), and the tests' outcomes refining
the same event (the lower end).
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

from flint import arb, arb_poly

from verifier.core.arith import to_arb
from verifier.bounds.exact_tv.one_epoch import cell_moments, spread_cell
from verifier.bounds.profile.plan import FIRST_CELL_LEVELS, FIRST_CELL_N, FIRST_CELL_SPLIT
from verifier.bounds.profile.spreads import ipow

def all_in_first_cell(wa0: arb, wb0: arb, M: int) -> list:
    """The spread law's piece on "all M items in the first cell": each item at 0 or at the
    cell's end (masses wa0, wb0), so the sum's law is binomial: index k -> C(M, k) wa0^(M-k) wb0^k."""
    return [comb(M, k) * ipow(wa0, M - k) * ipow(wb0, k) for k in range(M + 1)]


def split_first_cell(wa0: arb, M: int, budget: float, SM, c1: int) -> bool:
    """Split the add law on the first cell [0, c1 h) (a float choice; both ways are valid)
    when the spread's atom at W = 0, wa0^M, is not negligible and the window holds the
    all-in-the-first-cell piece (0 .. M c1)."""
    return (SM.start == 0 and SM.N > M * c1
            and float(wa0.mid()) ** M > FIRST_CELL_SPLIT * budget)


def refine_first_bucket(k0: list, BM, T1l) -> list:
    """The K = 0 test buckets with the label sum 0 (all items in the first cell) taken out of
    the first bucket (its masses P0 = BM at 0, P1 = T1l at 0), for first_cell_test's outcomes
    to replace it: the outcomes stay a partition."""
    r1, r2 = k0[0]
    return [(r1 - BM.c[0], r2 - T1l.c[0])] + k0[1:]


def fine_cells(sigma: Fraction, a: Fraction, n: int):
    """(q, m) of the first cell's fine cells [i a/n, (i + 1) a/n), i < n (cell_moments)."""
    q, m, _, _ = cell_moments(sigma, a / n, list(range(n + 1)))
    return q, m


def first_cell_n(M: int) -> int:
    """Points per first-cell level: n M bounded (a sum of many items is smooth on a coarse
    lattice; a polynomial power's cost grows with its length)."""
    n = FIRST_CELL_N
    while n > 16 and n * M > 16 * FIRST_CELL_N:
        n //= 2
    return n


def first_cell_test(fine: tuple, M: int) -> list:
    """The tests' outcomes inside "all M items in the first cell [0, a)" (the K = 0 outcome
    of label sum 0, refined): the sum T of the items' fine labels (the left end i of the
    cell [i a/n, (i + 1) a/n)), P0(T) = (sum q_i z^i)^M and P1(T) = (sum m_i z^i)(sum q_i
    z^i)^{M-1} (one coordinate tilted by Y; the event is symmetric), as [(P0, P1)] for
    statistic_laws with alpha = gamma = 1, beta = 0; ``fine`` = (q, m) of the first level's cells
    (fine_cells).  Any function of the outcome is a test."""
    q, m = fine
    Q, Mm = arb_poly(q), arb_poly(m)
    Q1 = Q ** (M - 1) if M > 1 else arb_poly([1])
    return list(zip((Q1 * Q).coeffs(), (Q1 * Mm).coeffs()))


def first_cell_levels(sigma: Fraction, M: int, a: Fraction, budget: float, first=None):
    """The add law's piece on "all M items in the first cell [0, a)", level by level: the
    items given Y < a on the lattice of step a/n (cells [i a/n, (i + 1) a/n), each spread onto
    its end points: step (a); their q and m the closed-form partial moments, cell_moments),
    the law of their sum the M-th power of one ball polynomial; its own all-in-the-first-cell
    piece (the binomial of the first fine cell's spread, the only way to reach W = 0)
    subtracted and handled by the next level on [0, a/n); stopped when mu(all items below the
    level's a) <= 1e-2 budget, which is charged (f_A <= 1: step (e)).  Returns
    ([(W, mu-mass)], charge) with W > 0 balls.  n is a free choice (1024 for M <= 16, fewer
    for larger M); ``first``: the first level's (q, m) when already computed (fine_cells)."""
    n = first_cell_n(M)
    pts: list = []
    level = 0
    while True:
        hl = a / n
        hla = to_arb(hl)
        q, m = first if level == 0 and first is not None else fine_cells(sigma, a, n)
        w = [arb(0)] * (n + 1)
        for i in range(n):
            wa, wb = spread_cell(q[i], m[i], i, i + 1, hla)
            w[i] += wa
            w[i + 1] += wb
        law = (arb_poly(w) ** M).coeffs()
        for k, v in enumerate(all_in_first_cell(*spread_cell(q[0], m[0], 0, 1, hla), M)):
            law[k] -= v
        unit = hla / M
        pts.extend((unit * T, c) for T, c in enumerate(law) if T > 0 and not c.is_zero())
        charge = law[0]                       # W = 0: zero up to the balls' radii
        rest = ipow(q[0], M)                 # mu(all items in [0, hl))
        level += 1
        if float(rest.upper()) <= 1e-2 * budget or level >= FIRST_CELL_LEVELS:
            return pts, charge + rest
        a = hl


