"""One epoch of the random-allocation pair as three discrete laws, each a rigorous bound.

Notation of docs/THEORY.md section 1: under P0 one epoch's likelihood ratio is
W = Ybar_M = (1/M) sum_j Y_j, Y = exp(X/sigma - u/2); the E-epoch ratio is L = prod_e W_e.
The two directions of the privacy profile (arXiv 2610.02414 v1, the two profiles of one
ordered pair; the notation of issue #13):

    remove  delta_R(eps) = E_P0[(L - e^eps)_+]          f_R(w) = (prod w_e - c)_+
    add     delta_A(eps) = E_P0[(1 - e^eps L)_+]         f_A(w) = (1 - c prod w_e)_+

Both f_R and f_A are convex in every Y_{e,j} (each is (affine in Y_{e,j})_+ for the other
variables fixed); f_R is nondecreasing and f_A nonincreasing in every W_e.  So, epoch by
epoch, any of these steps can only raise E f:

  (a) a mean-preserving spread of an item (each lattice cell of Y onto its end points:
      ``spread_cell``, as in the exact-TV engine; the same for a point of a sum onto a
      coarser lattice);
  (b) for f_R, moving a value of W up; for f_A, moving it down (monotonicity);
  (c) Jensen over the pairs of k tail items: S_k = mean over the C(k, 2) pairs of
      (k/2)(Y_a + Y_b), so f(B + S_k) <= mean over pairs of f(B + (k/2)(Y_a + Y_b)) (exact at
      k = 2; proof check profile.jensen-over-pairs), bounding the event "k items above the
      body threshold T1" with the law of a pair's sum (f_R);
  (d) for f_A, on "some item >= T1": W >= (B_{M-1} + T1)/M in a coupling (the other k - 1
      tail items are replaced by body items below T1), a value moved down;
  (e) a union bound for rare events: E[f_R(prod W); event at epoch e] <= E[W_e; event]
      (f_R <= prod W and the other epochs have E W = 1), E[f_A; event] <= P(event).

Remove upper law (under P0).  Body cells [0, T1) spread (a); K = number of items >= T1:
K = 0 gives B_M h / M (B_M the sum of M spread body items, a ball-arithmetic DFT), K = 1
gives (B_{M-1} h + t)/M with t the spread tail endpoints, K = k in 2..kmax gives
(B_n h + (k/2) s)/M with s a spread pair sum (c), B_n spread onto a coarse sub-lattice (a)
and B_{M-k} <= B_n (b) for n = M - 2 (k = 2) and n = M - 3 (k >= 3) below M = 1000 (one more
inverse DFT; at M = 1000 and above n = M - 1); items above t_max,
K > kmax and the sums' masses beyond their DFT windows are charged by (e).  Then
x = log W is spread onto a grid of step eta (the ball's upper end, (a) and (b)), so that
the E-fold composition is one DFT on the grid: f_R = (e^{sum x} - c)_+ is convex and
nondecreasing in every x_e.

Add upper law (under nu = W P0, the tilted measure).  K = 0 as above, K >= 1 by (d); then
E_mu[f_A] = mu(some W_e = 0) + E_nu[(e^{-sum x} - c)_+] with nu_e(dw) = w mu_e(dw), and
(e^{-sum x} - c)_+ is convex and nonincreasing in every x_e: x spread onto the grid at the
ball's lower end.  Below the DFT window the mass is charged by (e).  The spread puts the
first cell's mass partly at 0, so with probability wa0^M (about 0.5^M at sigma = 1/2) the
spread W is 0, where f_A = 1; where that atom is not negligible the K = 0 part is split on
"all M items in the first cell" (the spread acts cell by cell, so it is valid conditionally
on the cells): the spread law minus its binomial all-in-the-first-cell piece (no atom at 0
left), and that piece redone on finer lattices of the first cell, level by level
(first_cell_levels), until the rest has mu-mass below the budget (charged, (e)).  The tests
refine the same event: the K = 0 outcome of label sum 0 (all items in the first cell) is
replaced by the sum of the items' labels on the first level's finer lattice (first_cell_test).

Lower end (a test).  delta_R(eps) >= P1(A) - e^eps P0(A) and delta_A(eps) >= P0(A') -
e^eps P1(A') for every event A, A' (and every randomized test phi in [0, 1]).  A body item's
label is randomized: the end point a of its cell with probability wa/q, b with wb/q (the
spread's weights), so that the labels' law is the spread s under P0 and the tilted spread t
(masses m wa/q, m wb/q with m = E[Y 1{cell}]) under P1, and the tests share the upper end's
DFT.  The statistic of an epoch: K = 0 with a bucket of the sum r of the M body labels, or
K = 1 with the tail cell of the tail item and a coarse bucket of the other M - 1 labels'
sum, or (for M < 1000) K = 2 with the two tail cells and a bucket of the other M - 2 labels
(K >= 3 and out-of-window sums are left out of the tests).  Its laws under P0 and P1 (one
coordinate tilted by Y: P1 = (1/M) sum_j P^(j), all events symmetric):
    P0(0, r) = s^{*M}(r)                      P1(0, r) = (t * s^{*(M-1)})(r)
    P0(1, i, r) = M p_i s^{*(M-1)}(r)         P1(1, i, r) = tau_i s^{*(M-1)}(r) + (M-1) p_i (t * s^{*(M-2)})(r)
with p_i, tau_i the probability and first moment of tail cell i.  lambda = a rounded
log-likelihood ratio of the statistic (a float choice: any function of the data gives a
valid test).

The K >= 1 parts of the remove law: (B_{M-1} + V)/M with V the tail item (or (k/2) times a
pair sum) by one ball polynomial product of the coarse B with V spread onto a lattice 4
times finer (a); V beyond the product's length point by point against B spread onto a
lattice 4 times coarser.  The K = 0 sum is spread onto a lattice about a quarter of the log
grid's step before the log (a).

Floats only choose free parameters (h, T1, the cells, windows, eta, the coarse lattice,
kmax, lambda); every reported number is an Arb ball, the DFTs included.
"""
from __future__ import annotations

import math
from math import comb
from dataclasses import dataclass
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.core.arith import InputError, Interval, decimal_str, to_arb
from verifier.numerics.compose import StepLaws
from verifier.numerics.lattice import (MAX_N, LatticeLaw, chernoff_bound, normal_sf_float, powers,
                                      two_dfts, two_inverse, window)
from verifier.bounds.exact_tv.one_epoch import cell_boundaries, upper_tails, cell_moments, spread_cell

R_SMALL, R_MID, R_LARGE = 24, 16, 10   # sd(Y) / h by M (< 1e3, < 1e5, larger)
K2_COARSE = 8        # the K >= 2 parts use B_{M-1} on a lattice this many times coarser
# body threshold T1: M P(Y > T1) <= the expected number of tail items: 1e-3, or 1e-2 for
# sigma < 0.75 (heavy tails: a higher T1 would widen the body's DFT).  Smaller values make the
# events K >= 2 rarer, whose bounds (Jensen over pairs) are the loosest part for light tails
TAIL_MASS = 1e-3
TAIL_MASS_HEAVY = 1e-2
TAIL_MASS_MIN = 1e-5
CELL_FLOOR = 1e3      # body cells widen only where w^2 P(Y >= a) <= 4e-5 (s2/h^2) CELL_FLOOR floor
K2_TEST_M = 1000     # the tests use K = 2 outcomes below this M (heavy tails: at every M)
K2_MERGE_LARGE = 16  # tail cells merged this many at a time in the K = 2 outcomes for M >= K2_TEST_M
GRID_X = 24          # log-grid points per standard deviation of one epoch's log W (upper ends)
GRID_L = 24          # grid points per standard deviation of the test statistic lambda
TEST_MERGE = 1       # tail cells merged this many at a time in the K = 1 test outcomes
BUCKET_SD = 8        # buckets per sd of the other labels' sum in the K = 1 test outcomes
TAIL_STEP = 1 / 32     # tail cells: each this much wider (relative) than the one before
TAIL_STEP_FINE = 1 / 128   # the same for light tails at 2 <= M <= FINE_TAIL_M (the tail items decide
FINE_TAIL_M = 16           # a small delta there: W is large only through them)
FIRST_CELL_LEVELS = 16  # at most this many levels (the rest charged: valid, only looser)
FIRST_CELL_N = 1024      # lattice points per level of the add law's first-cell piece
FIRST_CELL_SPLIT = 1e-2  # the add law is split on the first cell where its atom at 0 exceeds this times the budget
PAIR_MERGE = 4       # the pair sums' tail cells merged this many at a time (1 for short tails)
PAIR_MERGE_CELLS = 256   # ... where there are at most this many tail cells
PAIR_STEP = 1 / 32   # the pair sums' geometric grid (relative step); FINE at M <= FINE_TAIL_M
PAIR_STEP_FINE = 1 / 256
FAR_B = 16           # the far tail parts meet B spread onto a lattice this many times coarser
RANDOM_LABELS_M = 1000  # the tests' labels are randomized (sharing the upper end's DFTs) from this M
BUCKET_K0 = 64       # buckets per sd of the labels' sum in the K = 0 test outcomes
COARSE_SD = 12       # coarse lattice points per sd of B_{M-1} in the K >= 1 parts of the upper ends


@dataclass
class Plan:
    """The free parameters (floats chose them; any value leaves every bound valid)."""
    h: Fraction
    J1: int
    bounds: list                 # body cell boundaries, lattice units, 0 .. J1
    tail: list                   # tail cell boundaries, lattice units, J1 .. t_max
    kmax: int
    budget: float                # each charge is kept below it (float target)


def plan(sigma: Fraction, M: int, E: int, floor: float) -> Plan:
    sf = float(sigma)
    u = 1 / sf ** 2
    s2 = math.expm1(u)
    sd = math.sqrt(s2)
    budget = 1e-4 * floor / E
    x1 = 1.0
    # light tails: at most TAIL_MASS, and small enough that E (Mp)^3 / 6 (about the
    # probability of K >= 3 tail items in some epoch, bounded through Jensen over pairs, the
    # loosest step for light tails) stays below 1e-5 floor (down to TAIL_MASS_MIN)
    tail_mass = (min(TAIL_MASS, max(TAIL_MASS_MIN, (6e-5 * floor / E) ** (1 / 3)))
                 if sigma >= Fraction(3, 4) and M >= 3 else
                 TAIL_MASS if sigma >= Fraction(3, 4) else TAIL_MASS_HEAVY)
    while M * normal_sf_float(x1) > tail_mass:
        x1 += 0.125
    T1 = math.exp(x1 / sf - u / 2)
    r = R_LARGE if M >= 10 ** 5 else R_MID if M >= 1000 else R_SMALL
    target = min(sd / r, T1 / 64)
    e = math.floor(math.log2(target)) - 3
    h = Fraction(math.floor(target / 2.0 ** e)) * Fraction(2) ** e
    hf = float(h)
    J1 = max(4, math.ceil(T1 / hf))
    if J1 > MAX_N:
        raise InputError(f"sigma = {decimal_str(sigma, 12)} needs a body of {J1} lattice cells "
                         f"(more than {MAX_N}); not supported")
    # body cells: for light tails width 1 while the mass above is at least about floor (the
    # region a small delta resolves), then the exact-TV engine's doubling rule (heavy tails:
    # that rule alone; their body reaches far and gains nothing from it)
    light = sigma >= Fraction(3, 4)
    bounds = cell_boundaries(sf, hf, J1, s2 * (min(1.0, CELL_FLOOR * floor) if light else 1.0))

    def beyond(c):          # E[Y; Y >= t] + (M - 1) P(Y >= t), t = c h: the charge (e)
        x = sf * (math.log(c * hf) + u / 2)
        return normal_sf_float(x - 1 / sf) + (M - 1) * normal_sf_float(x)
    tail = [J1]
    step = TAIL_STEP_FINE if light and 2 <= M <= FINE_TAIL_M else TAIL_STEP
    while beyond(tail[-1]) > budget:
        tail.append(max(tail[-1] + 1, math.ceil(tail[-1] * (1 + step))))
        if len(tail) > 20000:
            raise InputError(f"sigma = {decimal_str(sigma, 12)}, M = {M}: the lognormal tail "
                             f"needs more than 20000 cells at this delta; not supported")
    mp = M * normal_sf_float(x1)
    tauf = normal_sf_float(x1 - 1 / sf)
    kmax = 1
    while E * (tauf * mp ** kmax / math.factorial(kmax)
               + mp ** (kmax + 1) / math.factorial(kmax + 1)) > budget:
        kmax += 1
        if kmax > 12:      # proofs_checks/profile.py checks the pair identity for k <= 12
            raise InputError(f"sigma = {decimal_str(sigma, 12)}, M = {M}: more than 12 tail "
                             f"items would be needed at this delta; not supported")
    return Plan(h, J1, bounds, tail, kmax, budget)


def tail_charge(H_inf: arb, G_inf: arb, M: int, tau: arb, mp: arb, kmax: int) -> arb:
    """Step (e) for the events left out of the remove law: some item >= t_max,
    E[W; some Y_j >= t] <= E[Y; Y >= t] + (M - 1) P(Y >= t); and K > kmax,
    E[W; K > kmax] <= tau (Mp)^kmax / kmax! + (Mp)^(kmax+1) / (kmax+1)!
    (P(Bin(n, p) >= k) <= (np)^k / k!)."""
    return (H_inf + (M - 1) * G_inf + tau * mp ** kmax / math.factorial(kmax)
            + mp ** (kmax + 1) / math.factorial(kmax + 1))


def spread_log(x: arb, eta_inv: arb, up: bool):
    """(k, th): the exact end (upper if ``up``, else lower) of x / eta, spread onto grid points
    k and k + 1 with masses 1 - th, th (mean preserved: a mean-preserving spread of that end,
    which is itself x moved up, resp. down)."""
    t = x * eta_inv
    t = t.upper() if up else t.lower()
    k = int(t.floor().unique_fmpz())
    return k, t - k


class _Law(LatticeLaw):
    """exact_tv's window law, with its two Chernoff bounds re-tried in Arb over a ladder of
    theta when the float choice failed (a mass that underflows in floats, e.g. the lattice
    cell at 0 for a large sigma, can make the chosen theta useless; every theta is valid,
    the smallest bound is kept)."""

    def __init__(self, y, part, n, N, pts, mu, span, extra=None, left=None, target=None):
        super().__init__(y, part, n, N, pts, mu, span, extra, left)
        if not self.alias:
            return
        # the ladder only where the float choice missed the window's target by far
        floor_ok = 1e-30 if target is None else max(1e-30, 100 * target)
        ex = (extra[0], extra[1]) if extra else None
        sd = math.sqrt(max(n, 1)) * max(1.0, float(Interval.of(_spread_sd(pts, mu)).upper))
        for side in ("lo", "up"):
            cur = self.eps_lo if side == "lo" else self.eps_up
            if side == "lo" and self.start == 0:
                continue
            if cur.upper() < floor_ok:
                continue
            t = self.mean - self.start if side == "lo" else self.b - self.mean
            best = cur
            for k in range(-8, 4):
                c = chernoff_bound(pts, mu, n, 2.0 ** k / sd, -1 if side == "lo" else 1, t, ex)
                if c.upper() < best.upper():
                    best = c
            if side == "lo":
                self.eps_lo = best
            elif best.upper() < cur.upper():
                self.eps_up = best
                # the integrated upper tail is kept as computed (valid for its own theta)


def _spread_sd(pts, mu):
    tot = sum((v for _, v in pts), arb(0))
    return (sum(((k - mu) ** 2 * v for k, v in pts), arb(0)) / tot).sqrt()


def _sub(pts):
    """Conditional mean of a sub-probability lattice law (a centring for the Chernoff bounds)."""
    tot = sum((v for _, v in pts), arb(0))
    return sum((k * v for k, v in pts), arb(0)) / tot


def _coarse(law: _Law, *gs: int):
    """The window's masses of ``law`` spread onto the multiples of each g in ``gs`` (each a
    multiple of the first; mean-preserving, step (a)): one dict multiple -> mass per g.  A
    point v = j g + r goes to j g and (j + 1) g with weights 1 - r/g and r/g; per block of g
    points these are the block's sums S = sum c and R = sum r c, each block summed on its own
    (differences of global prefix sums would carry the radii of everything before the
    block), the coarser blocks from the finer ones exactly (R_J = sum (R_j + (j g - J G) S_j))."""
    c = law.c
    n = len(c)
    s0 = law.start
    g = gs[0]
    blocks: dict[int, tuple] = {}                 # j -> (S, R) for the finest g
    for j in range(s0 // g, (s0 + n - 1) // g + 1):
        lo, hi = max(j * g - s0, 0), min((j + 1) * g - s0, n)
        if lo >= hi:
            continue
        S = R = arb(0)
        base = s0 - j * g
        for t in range(lo, hi):
            S += c[t]
            R += (base + t) * c[t]                # r c, r = v - j g
        blocks[j] = (S, R)
    outs = []
    for G in gs:
        if G % g:
            raise ValueError("each lattice of _coarse must be a multiple of the first")
        f = G // g
        if f == 1:
            coarse = blocks
        else:
            coarse = {}
            for j, (S, R) in blocks.items():
                J = j // f
                S2, R2 = coarse.get(J, (arb(0), arb(0)))
                coarse[J] = (S2 + S, R2 + R + (j * g - J * G) * S)
        out: dict[int, arb] = {}
        for J, (S, R) in coarse.items():
            _add(out, J, S - R / G)
            _add(out, J + 1, R / G)
        outs.append(out)
    return outs if len(outs) > 1 else outs[0]


def _keep_range(law: dict, lim: float) -> tuple[int, int]:
    """(lo, hi): the indices of ``law`` outside [lo, hi] hold at most ``lim`` on each side
    (float upper ends: a choice; _collapse is valid for any range)."""
    ks = sorted(law)
    acc, lo = 0.0, ks[0]
    for k in ks:
        acc += max(float(law[k].upper()), 0.0)
        if acc > lim:
            break
        lo = k
    acc, hi = 0.0, ks[-1]
    for k in reversed(ks):
        acc += max(float(law[k].upper()), 0.0)
        if acc > lim:
            break
        hi = k
    return min(lo, hi), max(lo, hi)


def _collapse(law: dict, lo: int, hi: int, up: bool) -> dict:
    """Masses at indices outside [lo, hi] moved to one end (step (b)): for ``up`` (remove),
    those below lo onto lo and those above hi onto the largest index; else (add) those
    below lo onto the smallest index and those above hi onto hi."""
    out: dict[int, arb] = {}
    top, bot = max(law), min(law)
    for j, v in law.items():
        t = j if lo <= j <= hi else ((lo if j < lo else top) if up else (bot if j < lo else hi))
        out[t] = out.get(t, arb(0)) + v
    return out


def _geometric(points: dict, base: int, ratio: float) -> dict:
    """Each point v >= base (lattice units) spread onto its neighbours in the geometric set
    base, ceil(base r), ... (mean-preserving, exact rational weights: step (a))."""
    grid = [base]
    top = max(points)
    while grid[-1] < top:
        grid.append(max(grid[-1] + 1, math.ceil(grid[-1] * ratio)))
    import bisect
    out: dict[int, arb] = {}
    for v, c in points.items():
        i = bisect.bisect_right(grid, v) - 1
        a = grid[i]
        if a == v:
            out[a] = out.get(a, arb(0)) + c
            continue
        b = grid[i + 1]
        w = arb(v - a) / (b - a)
        out[a] = out.get(a, arb(0)) + c * (1 - w)
        out[b] = out.get(b, arb(0)) + c * w
    return out


def _cell_mean(q: arb, m: arb, lo: arb, hi: arb) -> arb:
    """An enclosure of E[Y | cell] = m / q, which lies in the cell [lo, hi]: the ball m / q
    cut to the cell (the whole cell when q is not certified positive)."""
    r = m / q if q > 0 else arb("nan")
    if not r.is_finite():
        return lo.union(hi)
    a = lo if not r.lower() > lo.upper() else arb(r.lower())
    b = hi if not r.upper() < hi.lower() else arb(r.upper())
    return a.union(b)


def _onto_lattice(values: dict, g: int) -> dict:
    """Each value v >= 0 (lattice units, exact rational) spread onto the multiples j g of g
    (mean-preserving, exact weights: step (a)): index j -> mass."""
    out: dict[int, arb] = {}
    for v, c in values.items():
        j = math.floor(v / g)
        r = v - j * g
        if r == 0:
            _add(out, j, c)
            continue
        w = to_arb(r / g)
        _add(out, j, c * (1 - w))
        _add(out, j + 1, c * w)
    return out


def _convolve(a: dict, ratio: int, b: dict) -> dict:
    """The law of A ratio + B for independent lattice variables with masses ``a`` (index ->
    ball) and ``b``: index -> ball, by one ball polynomial product (Arb's arb_poly)."""
    from flint import arb_poly
    amin, bmin = min(a), min(b)
    pa = [arb(0)] * ((max(a) - amin) * ratio + 1)
    for j, v in a.items():
        pa[(j - amin) * ratio] = v
    pb = [arb(0)] * (max(b) - bmin + 1)
    for j, v in b.items():
        pb[j - bmin] = v
    off = amin * ratio + bmin
    return {off + i: v for i, v in enumerate((arb_poly(pa) * arb_poly(pb)).coeffs())
            if not v.is_zero()}


@dataclass
class _Window:
    """A window's masses (c[i] at start + i), the shape _coarse reads."""
    c: list
    start: int


def _coarse_keep_low(c: list, g: int) -> dict:
    """Masses c[v] at v = 0, 1, ... (lattice units): those at v < g kept where they are, the
    others spread onto the multiples of g (_coarse, step (a)): value -> mass.  Unlike a plain
    spread onto the multiples of g, no mass moves onto 0 (where the add integrand is 1)."""
    out = {v: c[v] for v in range(min(g, len(c)))}
    if len(c) > g:
        high = [arb(0)] * g + list(c[g:])
        for j, v in (_coarse(_Window(high, 0), g) if g > 1 else dict(enumerate(high))).items():
            if j > 0:
                _add(out, j * g, v)
    return out


def _all_in_first_cell(wa0: arb, wb0: arb, M: int) -> list:
    """The spread law's piece on "all M items in the first cell": each item at 0 or at the
    cell's end (masses wa0, wb0), so the sum's law is binomial: index k -> C(M, k) wa0^(M-k) wb0^k."""
    return [comb(M, k) * _ipow(wa0, M - k) * _ipow(wb0, k) for k in range(M + 1)]


def _ipow(x: arb, n: int) -> arb:
    """x^n for an integer n >= 0 by repeated squaring (python-flint's ``x ** n`` is nan for a
    ball that contains 0, e.g. the mass of a far cell)."""
    out, base = arb(1), x
    while n:
        if n & 1:
            out = out * base
        base = base * base
        n >>= 1
    return out


def _split_first_cell(wa0: arb, M: int, budget: float, SM, c1: int) -> bool:
    """Split the add law on the first cell [0, c1 h) (a float choice; both ways are valid)
    when the spread's atom at W = 0, wa0^M, is not negligible and the window holds the
    all-in-the-first-cell piece (0 .. M c1)."""
    return (SM.start == 0 and len(SM.c) > M * c1
            and float(wa0.mid()) ** M > FIRST_CELL_SPLIT * budget)


def _k_body(k: int, body_k: dict, first: tuple) -> tuple:
    """(n, coarse law of B_n) for the K = k part: ``first`` for k = 1, else the body law with
    the fewest items kept for k (body_k: 2 -> n = M - 2 or M - 1, 3 -> n = M - 3 where at
    hand); always n >= M - k, so B_{M-k} <= B_n in the coupling (step (b))."""
    return first if k == 1 else body_k[min(k, max(body_k))]


def _refine_first_bucket(k0: list, BM, T1l) -> list:
    """The K = 0 test buckets with the label sum 0 (all items in the first cell) taken out of
    the first bucket (its masses P0 = BM at 0, P1 = T1l at 0), for first_cell_test's outcomes
    to replace it: the outcomes stay a partition."""
    r1, r2 = k0[0]
    return [(r1 - BM.c[0], r2 - T1l.c[0])] + k0[1:]


def _fine_cells(sigma: Fraction, a: Fraction, n: int):
    """(q, m) of the first cell's fine cells [i a/n, (i + 1) a/n), i < n (cell_moments)."""
    q, m, _, _ = cell_moments(sigma, a / n, list(range(n + 1)))
    return q, m


def _first_cell_n(M: int) -> int:
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
    _test_laws with alpha = gamma = 1, beta = 0; ``fine`` = (q, m) of the first level's cells
    (_fine_cells).  Any function of the outcome is a test."""
    from flint import arb_poly
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
    for larger M); ``first``: the first level's (q, m) when already computed (_fine_cells)."""
    from flint import arb_poly
    n = _first_cell_n(M)
    pts: list = []
    level = 0
    while True:
        hl = a / n
        hla = to_arb(hl)
        q, m = first if level == 0 and first is not None else _fine_cells(sigma, a, n)
        w = [arb(0)] * (n + 1)
        for i in range(n):
            wa, wb = spread_cell(q[i], m[i], i, i + 1, hla)
            w[i] += wa
            w[i + 1] += wb
        law = (arb_poly(w) ** M).coeffs()
        for k, v in enumerate(_all_in_first_cell(*spread_cell(q[0], m[0], 0, 1, hla), M)):
            law[k] -= v
        unit = hla / M
        pts.extend((unit * T, c) for T, c in enumerate(law) if T > 0 and not c.is_zero())
        charge = law[0]                       # W = 0: zero up to the balls' radii
        rest = _ipow(q[0], M)                 # mu(all items in [0, hl))
        level += 1
        if float(rest.upper()) <= 1e-2 * budget or level >= FIRST_CELL_LEVELS:
            return pts, charge + rest
        a = hl


def _test_laws(blocks):
    """The statistic lambda (a rounded float log-likelihood ratio: any function of the
    outcome gives a valid test) on a grid of step eta_l = sd(lambda) / GRID_L, and its laws
    under P0 and P1: (test0, test1, eta_l).

    Within a block lambda = log(beta/alpha + (gamma/alpha) r2/r1) is nondecreasing in
    rho = r2/r1, so with the buckets sorted by rho (float) each grid value takes a run of
    consecutive buckets.  The float statistic is made monotone
    along the sorted buckets (a running maximum; buckets whose float masses underflow take
    their predecessor's value, the first ones the lowest): still a function of the outcome."""
    import numpy as np
    pre = {}                                  # id(buckets) -> (order, prefix sums, floats)
    fl = []
    for al, be, ga, bk in blocks:
        if id(bk) not in pre:
            r1 = np.array([float(x.mid()) for x, _ in bk])
            r2 = np.array([float(y.mid()) for _, y in bk])
            with np.errstate(divide="ignore", invalid="ignore"):
                rho = np.where(r1 > 0, r2 / np.where(r1 > 0, r1, 1.0), np.inf)
            order = np.argsort(rho, kind="stable")
            pre[id(bk)] = (order, [bk[i] for i in order], r1[order], r2[order])
        order, _, r1, r2 = pre[id(bk)]
        f0 = float(al.mid()) * r1
        f1 = float(be.mid()) * r1 + float(ga.mid()) * r2
        ok = (f0 > 1e-300) & (f1 > 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(ok, np.log(np.where(ok, f1, 1.0) / np.where(ok, f0, 1.0)), -np.inf)
        fl.append((x, np.where(ok, f0, 0.0), ok))
    xs = np.concatenate([x[ok] for x, _, ok in fl])
    ws = np.concatenate([w[ok] for _, w, ok in fl])
    ml = float(np.dot(xs, ws) / ws.sum())
    sl = math.sqrt(max(float(np.dot((xs - ml) ** 2, ws) / ws.sum()), 1e-30))
    eta_l = Fraction(sl / GRID_L).limit_denominator(10 ** 12)
    lo_cap = ml - 16 * sl
    test0: dict[int, arb] = {}
    test1: dict[int, arb] = {}
    for (al, be, ga, bk), (x, _, _) in zip(blocks, fl):
        sb = pre[id(bk)][1]
        ks = np.round(np.maximum(np.maximum.accumulate(x), lo_cap)
                      / float(eta_l)).astype(np.int64)
        cuts = [0] + [int(i) + 1 for i in np.flatnonzero(np.diff(ks))] + [len(ks)]
        for s_, e_ in zip(cuts, cuts[1:]):
            # each run summed on its own (a difference of prefix sums would carry the radii
            # of everything before the run)
            s1 = s2 = arb(0)
            for r1_, r2_ in sb[s_:e_]:
                s1 += r1_
                s2 += r2_
            k = int(ks[s_])
            _add(test0, k, al * s1)
            _add(test1, k, be * s1 + ga * s2)
    return test0, test1, eta_l


def _moments_f(pairs):
    """Float mean and standard deviation of (value, weight) pairs."""
    tw = sum(w for _, w in pairs)
    mu = sum(x * w for x, w in pairs) / tw
    var = sum((x - mu) ** 2 * w for x, w in pairs) / tw
    return mu, math.sqrt(max(var, 1e-30))


def _add(d: dict, k: int, v: arb):
    d[k] = d.get(k, arb(0)) + v


def epoch_laws(sigma: Fraction, M: int, E: int, floor: float, prec: int) -> StepLaws:
    P = plan(sigma, M, E, floor)
    with ctx.workprec(prec):
        return _laws(sigma, M, E, P, prec)


def _laws(sigma, M, E, P: Plan, prec) -> StepLaws:
    h, J1, bounds = P.h, P.J1, P.bounds
    ha = to_arb(h)
    Ma = arb(M)
    q, m, p, tau = cell_moments(sigma, h, bounds)
    L = len(bounds) - 1
    # body: the spread (a) for the upper ends, sub-probability law of mass 1 - p.  The tests'
    # labels: for M >= RANDOM_LABELS_M the same spread read as a randomized label (end point
    # a with probability wa/q, b with wb/q, given the cell): under P0 their law is the
    # spread, under P1 (the cell's tilted mass m split in the same proportions) the tilted
    # spread, and the tests share the upper end's DFTs; below, the cells' left ends (a
    # deterministic label: more power, its own DFTs, cheap at small M)
    randomized = M >= RANDOM_LABELS_M
    w: dict[int, arb] = {}
    wt: dict[int, arb] = {}
    for i in range(L):
        wa, wb = spread_cell(q[i], m[i], bounds[i], bounds[i + 1], ha)
        if i == 0:
            wa0, wb0 = wa, wb                 # the first cell's (the add law's split)
        _add(w, bounds[i], wa)
        _add(w, bounds[i + 1], wb)
        if randomized:
            r = _cell_mean(q[i], m[i], bounds[i] * ha, bounds[i + 1] * ha)
            _add(wt, bounds[i], wa * r)
            _add(wt, bounds[i + 1], wb * r)
    spread = sorted(w.items())
    if randomized:
        labels, tilted = spread, sorted(wt.items())
    else:
        labels, tilted = [(bounds[i], q[i]) for i in range(L)], [(bounds[i], m[i]) for i in range(L)]
    mu_s, mu_b, mu_t = _sub(spread), _sub(labels), _sub(tilted)
    # tail cells [t_i, t_{i+1}) from T1 to t_max; beyond t_max: G_inf, H_inf
    tb = P.tail
    Gt, Ht = upper_tails(sigma, h, tb)
    G_inf, H_inf = Gt[-1], Ht[-1]

    def tail_spread(step: int):
        """The tail cells merged ``step`` at a time, each spread onto its end points (a)."""
        out: dict[int, arb] = {}
        idx = list(range(0, len(tb) - 1, step)) + [len(tb) - 1]
        for a, b in zip(idx, idx[1:]):
            wa, wb = spread_cell(Gt[a] - Gt[b], Ht[a] - Ht[b], tb[a], tb[b], ha)
            _add(out, tb[a], wa)
            _add(out, tb[b], wb)
        return out
    p_in = p - G_inf                          # P(T1 <= Y < t_max)

    eps_t = max(P.budget * 1e-2, 1e-300)
    # windows: one length per DFT, each law its own placement (the sums with one tilted
    # item have the heavier right tail)
    N, lS = window(spread, M, eps_t, J1)
    if randomized:
        NB, lB = N, lS
    else:
        NB, lB = window(labels, M, eps_t, J1)
    NX, lX = window(labels, max(M - 1, 0), eps_t, J1, extra=(tilted, J1))
    if randomized:
        N = max(N, NX)
    NT = max(NB, NX)

    def placed(n, left, length):       # a window found for n, centred in one of length
        return None if left is None else left + (length - n) // 2
    lX = placed(NX, lX, NT)
    lB = placed(NB, lB, NT)
    lS = placed(NB, lS, N) if randomized else lS
    if max(N, NT) > MAX_N:
        raise InputError(f"M = {M} at sigma = {decimal_str(sigma, 12)} needs a DFT of length "
                         f"{max(N, NT)} (more than {MAX_N})")

    def power(X, n):
        return [acb(1)] * len(X) if n == 0 else powers(X, n, prec)
    XB, XT = two_dfts(labels, tilted, NT)
    # b^{*n} and t * b^{*n} from one power b^{*(M-3)} multiplied up
    ones = [acb(1)] * len(XB)
    PB3 = power(XB, max(M - 3, 0))
    PB2 = [a * b for a, b in zip(PB3, XB)] if M >= 3 else (ones if M == 2 else None)
    PB1 = [a * b for a, b in zip(PB2, XB)] if M >= 2 else ones
    zeros = [acb(0)] * len(XB)
    yB = two_inverse([a * b for a, b in zip(PB1, XB)], PB1, NT)          # b^M, b^{M-1}
    yT = two_inverse([a * b for a, b in zip(PB1, XT)],                   # t b^{M-1}, t b^{M-2}
                      [a * b for a, b in zip(PB2, XT)] if M >= 2 else zeros, NT)
    # K = 2 test outcomes only where tail items move the likelihood ratio (M < K2_TEST_M,
    # or heavy tails at every M):
    # leaving outcomes out of a test is always valid, and for large M it loses about
    # P(K = 2) relative
    k2 = 2 <= M and (M < K2_TEST_M or sigma < Fraction(3, 4))      # heavy tails: always
    y2 = (two_inverse(PB2, [a * b for a, b in zip(PB3, XT)] if M >= 3 else zeros, NT)
          if k2 else None)                                                # b^{M-2}, t b^{M-3}
    del PB3, PB2, XT
    if randomized:                     # the labels' laws are the spread's: s^M, s^{M-1}
        yS = yB
    yS2 = None                         # s^{M-2}, s^{M-3}: the body of the K >= 2 parts
    if not randomized:
        XS = two_dfts(spread, [], N)[0]
        if M >= 4 and P.kmax >= 2:
            PS3 = power(XS, M - 3)
            PS2 = [a * b for a, b in zip(PS3, XS)]
            yS2 = two_inverse(PS2, PS3, N)
            PS = [a * b for a, b in zip(PS2, XS)]
            del PS2, PS3
        else:
            PS = power(XS, M - 1)
        yS = two_inverse([a * b for a, b in zip(PS, XS)], PS, N)        # s^M, s^{M-1}
        del PS, XS
    del PB1, XB
    ex = (tilted, mu_t, J1)
    SM = _Law(yS, "real", M, N, spread, mu_s, J1, left=lS, target=eps_t)
    S1 = _Law(yS, "imag", M - 1, N, spread, mu_s, J1, left=lS, target=eps_t)
    if randomized:
        BM, B1 = SM, S1                # the tests' P0 laws of M and M - 1 labels
    else:
        BM = _Law(yB, "real", M, NT, labels, mu_b, J1, left=lB, target=eps_t)
        B1 = _Law(yB, "imag", M - 1, NT, labels, mu_b, J1, left=lB, target=eps_t)
    T1l = _Law(yT, "real", M - 1, NT, labels, mu_b, J1, extra=ex, left=lX, target=eps_t)
    T2l = (_Law(yT, "imag", M - 2, NT, labels, mu_b, J1, extra=ex, left=lX, target=eps_t)
           if M >= 2 else None)
    B2 = _Law(y2, "real", M - 2, NT, labels, mu_b, J1, left=lB, target=eps_t) if k2 else None
    T3l = (_Law(y2, "imag", M - 3, NT, labels, mu_b, J1, extra=ex, left=lX, target=eps_t)
           if k2 and M >= 3 else None)
    del yS, yB, yT, y2

    # ---- shared float choices: the grid of x = log W
    one_p = 1 - p
    stride = max(1, len(SM.c) // 8192)            # a float choice: a subsample suffices
    pairs = [(math.log(max((SM.start + i) * float(h) / M, 1e-300)), max(float(SM.c[i].mid()), 0.0))
             for i in range(0, len(SM.c), stride) if (SM.start + i) > 0]
    mx, sx = _moments_f(pairs)
    eta = Fraction(sx / GRID_X).limit_denominator(10 ** 12)
    eta_inv = 1 / to_arb(eta)
    k_floor = math.floor((mx - 14 * sx) / float(eta))     # remove: values below moved up
    c_log = (ha / Ma).log()

    # ---- remove upper law
    rem: dict[int, arb] = {}

    def put_R(x: arb, mass: arb):
        k, th = spread_log(x, eta_inv, True)
        if k < k_floor:
            _add(rem, k_floor, mass)
        else:
            _add(rem, k, mass * (1 - th))
            _add(rem, k + 1, mass * th)
    # K = 0: B_M spread onto the multiples of G0 (step (a) for a sum), G0 h / M about a
    # quarter of the log grid's step at W = 1 (a float choice), then each point spread onto
    # the log grid
    G0 = max(1, int(float(eta) * M / float(h) / 4))
    K0 = _coarse(SM, G0) if G0 > 1 else {SM.start + i: c for i, c in enumerate(SM.c)}
    logs = {j: (None if j == 0 else arb(j * G0).log() + c_log) for j in K0}   # shared with add
    for j, c in K0.items():
        if logs[j] is None:
            _add(rem, k_floor, c)            # W = 0 moved up (b)
        else:
            put_R(logs[j], c)
    # beyond the window (e): E[W; B_M >= b] <= (h/M)(b P(B >= b) + int_b^inf P(B >= v) dv)
    charge_R = arb(0)
    if SM.alias:
        charge_R += ha / Ma * (SM.b * SM.eps_up + SM.tail_up)
    # K = k >= 1: (B_{M-1} h + k t)/M with B_{M-1} coarse and t the spread tail endpoints
    sd_b = math.sqrt(max(float(((M - 1) * sum(((kk - mu_s) ** 2 * v for kk, v in spread),
                                               arb(0)) / one_p).mid()), 1.0))
    g = max(1, int(sd_b / COARSE_SD))
    g = g - g % 4 if g >= 8 else g          # a multiple of 4 (the tail parts' lattice g/4)
    Bc_full, B8 = _coarse(S1, g, K2_COARSE * g)          # sub-probability, mass (1-p)^{M-1}
    # the coarse law kept where its two tails beyond hold more than `lim`; beyond, moved to
    # one end (b): for remove that costs at most lim (top h / M) in E[W], for add at most lim
    top_w = float(tb[-1] * h) * P.kmax / M + float(J1 * h)
    lim = 1e-3 * P.budget * min(1.0, 1 / top_w)
    lo_c, hi_c = _keep_range(Bc_full, lim)
    Bc = _collapse(Bc_full, lo_c, hi_c, up=True)
    BcA = _collapse(Bc_full, lo_c, hi_c, up=False)
    del Bc_full
    def body_window_charge(S_: _Law, n_: int) -> arb:
        """E[W; B_n >= b, K >= 1] for the body law B_n of the K >= 1 parts beyond its window
        b (e): the body part, and the tail items', independent of the body items given K:
        sum_k P(K = k) E[S_k/M | K = k] P(B_n >= b) = E[K] (tau/p)/M P(B_n >= b) = tau P(B_n >= b)."""
        if not S_.alias:
            return arb(0)
        return ((1 - one_p ** M) * ha / Ma * (S_.b * S_.eps_up + S_.tail_up)
                + tau * S_.eps_up) / one_p ** n_
    charge_R += body_window_charge(S1, M - 1)
    # k = 1 at full resolution.  k >= 2: Jensen over the pairs (S_k = mean over pairs of
    # (k/2)(Y_a + Y_b), step (c)), exact for k = 2, with the law of a pair's sum from the
    # tail cells (merged 4 at a time where there are more than PAIR_MERGE_CELLS); B on a
    # lattice 8 times coarser (weights (M p)^(k-1) smaller; coarser spreads are still step (a))
    # the body of the K = k >= 2 parts: B_{M-k} <= B_n in the coupling for any n >= M - k;
    # n = M - 2 (k = 2) and M - 3 (k >= 3) where their laws are at hand (M < 1000: one more
    # inverse DFT; small M: a point mass or the one-item spread), else n = M - 1 (one item
    # of mean about 1/M in W more than needed; rare events at large M)
    G8 = K2_COARSE * g

    def coarse8(law, n):                 # law of n body items onto the multiples of G8
        if n == 0:
            return {0: arb(1)}
        c8 = _coarse(law, G8)
        return _collapse(c8, *_keep_range(c8, lim), up=True)
    body_k = {2: (M - 1, _collapse(B8, *_keep_range(B8, lim), up=True))}
    del B8
    if 2 <= M <= 3:                       # n = M - 2 <= 1: a point mass or the spread itself
        one = [arb(0)] * (J1 + 1)
        for j, v in spread:
            one[j] += v
        body_k[2] = (M - 2, coarse8(_Window(one, 0), M - 2))
        if M == 3:
            body_k[3] = (0, {0: arb(1)})
    elif yS2 is not None:
        S2 = _Law(yS2, "real", M - 2, N, spread, mu_s, J1, left=lS, target=eps_t)
        S3 = _Law(yS2, "imag", M - 3, N, spread, mu_s, J1, left=lS, target=eps_t)
        body_k[2], body_k[3] = (M - 2, coarse8(S2, M - 2)), (M - 3, coarse8(S3, M - 3))
        del yS2
        charge_R += body_window_charge(S2, M - 2) + body_window_charge(S3, M - 3)
    tw1 = tail_spread(1)
    tw4 = sorted(tail_spread(1 if len(tb) <= PAIR_MERGE_CELLS else PAIR_MERGE).items())
    pair: dict[int, arb] = {}
    for ia, (ta, ca) in enumerate(tw4):
        for tb_, cb_ in tw4[ia:]:
            _add(pair, ta + tb_, ca * cb_ * (1 if tb_ == ta else 2))
    pair = _geometric(pair, 2 * J1, 1 + (PAIR_STEP_FINE if M <= FINE_TAIL_M else PAIR_STEP))
    # the sum B + V of the coarse B and the tail part V (t, or (k/2) s), V spread onto a
    # lattice 4 times finer than B's (step (a)), by one ball polynomial product; then each
    # point of the sum spread onto the log grid
    for k in range(1, P.kmax + 1):
        if k > M:
            break
        # P(K = k, all tail items < t_max) / (1-p)^n / p_in^min(k,2) (the body law B_n has
        # mass (1-p)^n), times the tail law(s) of total mass p_in^min(k,2)
        n_k, Bk = _k_body(k, body_k, (M - 1, Bc))
        wk = arb(comb(M, k)) * p_in ** (k - min(k, 2)) * one_p ** (M - k - n_k)
        if not wk > 0:
            continue
        if k == 1:
            gk, vs = g, {Fraction(t): ct for t, ct in tw1.items()}
        else:
            gk, vs = G8, {Fraction(k * t, 2): ct for t, ct in pair.items()}
        # V's lattice: 4 times finer than B's for k <= 2, B's own for k >= 3 (rarer events)
        sub = gk // 4 if gk % 4 == 0 and k <= 2 else (gk if k >= 3 else 1)
        # the product kept to about 4096 points (V gets at least 1024): values of V beyond go
        # point by point with B spread onto a lattice FAR_B times coarser (for each value of
        # V separately, any spread of B is step (a)); they are far in the tail (small mass)
        room = max(4096 - (max(Bk) - min(Bk)) * (gk // sub), 1024)
        cut = min(vs) + room * sub
        dense = {v: c for v, c in vs.items() if v <= cut}
        for n, c in _convolve(Bk, gk // sub, _onto_lattice(dense, sub)).items():
            put_R((arb(n * sub) * ha / Ma).log(), c * wk)
        far = [(to_arb(v), c) for v, c in vs.items() if v > cut]
        if far:
            Bs = _onto_lattice({Fraction(j * gk): c for j, c in Bk.items()}, FAR_B * gk)
            for j, cb in Bs.items():
                bj, mass_b = arb(j * FAR_B * gk), cb * wk
                for v, c in far:
                    put_R(((bj + v) * ha / Ma).log(), mass_b * c)
    # items above t_max, K > kmax (e)
    mp = Ma * p
    kf = P.kmax
    charge_R += tail_charge(H_inf, G_inf, M, tau, mp, kf)

    # ---- add upper law (under nu = W mu), values moved down
    add: dict[int, arb] = {}

    def put_A(x: arb, mass: arb):
        k, th = spread_log(x, eta_inv, False)
        _add(add, k, mass * (1 - th))
        _add(add, k + 1, mass * th)
    charge_A = arb(0)
    split = _split_first_cell(wa0, M, P.budget, SM, bounds[1])
    if split:
        # the spread's atom at W = 0 (every item in the first cell and spread onto 0, mass
        # wa0^M) would be charged whole: split on S = the number of items in the first cell
        # [0, c_1 h).  S < M: the spread law minus its all-in-the-first-cell piece (the spread
        # acts cell by cell, so it is valid conditionally on the cells, step (a)); at least
        # one item is at c_1 h or above, so W > 0.  Its values below G0 are kept as they are
        # (the coarse lattice would spread them onto 0), the rest coarse as for remove.
        cc = list(SM.c)
        for k, v in enumerate(_all_in_first_cell(wa0, wb0, M)):
            cc[k * bounds[1]] -= v
        for v, c in _coarse_keep_low(cc, G0).items():
            if v == 0:
                charge_A += c                 # 0 up to the balls' radii
            else:
                wv = arb(v) * ha / Ma
                put_A(wv.log(), wv * c)
        # S = M: the items on finer lattices, level by level (first_cell_levels)
        fine = _fine_cells(sigma, bounds[1] * h, _first_cell_n(M))
        pts, ch = first_cell_levels(sigma, M, bounds[1] * h, P.budget, first=fine)
        for wv, c in pts:
            put_A(wv.log(), wv * c)
        charge_A += ch
    else:
        for j, c in K0.items():
            if logs[j] is None:
                charge_A += c                 # mu(W = 0): f_A = 1 there
            else:
                put_A(logs[j], arb(j * G0) * ha / Ma * c)
    del logs, K0
    charge_A += SM.eps_lo                     # below the window (e)
    # K >= 1: W >= (B_{M-1} h + T1)/M (d); B_{M-1} coarse (a)
    wK = (1 - one_p ** M) / one_p ** (M - 1)
    T1a = J1 * ha
    for j, cb in BcA.items():
        wv = (arb(j * g) * ha + T1a) / Ma
        put_A(wv.log(), wv * cb * wK)
    charge_A += wK * S1.eps_lo

    # ---- the test statistic's laws (lower ends)
    sd_l = sd_b                         # sd of the labels' sum, lattice units
    # K = 1 outcomes: tail cell i (incl. the last, [t_max, inf)), bucket of the other labels
    def bucketed(X: _Law, Y: _Law | None, size: int, reach: float):
        """[(mass of X, mass of Y)] over buckets of ``size`` consecutive sums of X's window
        within ``reach`` standard deviations (sd_b) of its mean (Y's window must contain the
        bucket; sums outside are left out of the tests)."""
        for Z in (X, Y):
            if Z is not None and Z._A is None:
                Z.prepare_tails()
        out = []
        centre = float(X.mean.mid()) - X.start
        first = max(0, int(centre - reach * sd_l))
        last = min(len(X.c), int(centre + reach * sd_l) + 1)
        for s_ in range(first, last, size):
            e_ = min(last, s_ + size)
            v0, v1 = X.start + s_, X.start + e_
            r1 = X._A[s_] - X._A[e_]
            if Y is not None:
                lo_i, hi_i = v0 - Y.start, v1 - Y.start
                if lo_i < 0 or hi_i > len(Y.c):
                    continue
                r2 = Y._A[lo_i] - Y._A[hi_i]
            else:
                r2 = arb(0)
            out.append((r1, r2))
        return out
    # The outcomes come in blocks: a block is (alpha, beta, gamma, buckets) with buckets
    # [(r1, r2)] and outcome masses P0 = alpha r1, P1 = beta r1 + gamma r2.
    # K = 0: buckets of consecutive sums r of the M labels (a coarser statistic is a test
    # too), P0 = b^M, P1 = t b^{M-1} over the bucket
    k0 = bucketed(BM, T1l, max(1, int(sd_l / BUCKET_K0)), len(BM.c))
    blocks = [(arb(1), arb(0), arb(1), k0)]
    if split and not randomized and BM.start == 0 and T1l.start == 0 and k0:
        # the label sum 0 (all items in the first cell: its label is 0, every other cell's
        # is >= 1) taken out of the first bucket and refined by the first cell's fine labels
        blocks = [(arb(1), arb(0), arb(1), _refine_first_bucket(k0, BM, T1l)),
                  (arb(1), arb(0), arb(1), first_cell_test(fine, M))]
    buckets = bucketed(B1, T2l, max(1, int(sd_l / BUCKET_SD)), 12)
    idx = list(range(0, len(tb) - 1, TEST_MERGE)) + [len(tb) - 1]   # tail cells merged
    tails = [(Gt[a] - Gt[b], Ht[a] - Ht[b]) for a, b in zip(idx, idx[1:])] + [(G_inf, H_inf)]
    for pi, ti in tails:
        blocks.append((Ma * pi, ti, (M - 1) * pi, buckets))
    # K = 2 outcomes: the two tail items' cells (tail cells merged 8 at a time) and a coarse
    # bucket of the other M - 2 labels (tail cells merged 8 at a time):
    #   P0 = M (M-1) p_a p_b b^{M-2}               (a != b; half of it for a = b)
    #   P1 = (M-1)(tau_a p_b + tau_b p_a) b^{M-2} + (M-1)(M-2) p_a p_b (t b^{M-3})   (idem)
    if B2 is not None:
        mg = 8 if M < K2_TEST_M else K2_MERGE_LARGE
        idx = list(range(0, len(tb) - 1, mg)) + [len(tb) - 1]
        t8 = [(Gt[a] - Gt[b], Ht[a] - Ht[b]) for a, b in zip(idx, idx[1:])] + [(G_inf, H_inf)]
        bk2 = bucketed(B2, T3l, max(1, int(sd_l / 3)), 10)
        for ia, (pa, ta) in enumerate(t8):
            for ib in range(ia, len(t8)):
                pb_, tb2 = t8[ib]
                half = 1 if ia != ib else arb(1) / 2
                c0 = M * (M - 1) * pa * pb_ * half
                c1 = (M - 1) * (ta * pb_ + tb2 * pa) * half
                c2 = (M - 1) * (M - 2) * pa * pb_ * half
                blocks.append((c0, c1, c2, bk2))
    test0, test1, eta_l = _test_laws(blocks)
    def out(Z):
        return arb(0) if Z is None else Z.eps_lo + Z.eps_up
    mp2 = (Ma * p) ** 2 / 2
    alias0 = out(BM) + Ma * p * out(B1) + mp2 * out(B2)
    alias1 = (out(T1l) + tau * out(B1) + (M - 1) * p * out(T2l)
              + Ma * tau * p * out(B2) + mp2 * out(T3l))
    info = {"h": h, "J1": J1, "N": N, "tail_cells": len(tb), "kmax": P.kmax,
            "cells": len(bounds) + len(tb)}
    return StepLaws(eta, rem, add, charge_R, charge_A, eta_l, test0, test1, alias0, alias1, info)
