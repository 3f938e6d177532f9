"""The profile engine's free parameters for one epoch of random allocation: the lattice step
h, the body threshold T1 and its cells, the tail cells up to t_max, kmax and the charge
budget (docs/THEORY.md section 9, "Free parameters chosen from the target").  Floats choose
them; any value leaves every bound of the stages valid (body.py, upper.py, statistic.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, decimal_str
from verifier.numerics.lattice import MAX_N, normal_sf_float
from verifier.bounds.exact_tv.one_epoch import cell_boundaries

LIGHT_TAILS = Fraction(3, 4)   # sigma >= 3/4: "light" lognormal tails (the T1, cell and K = 2
                               # test choices below differ from the heavy-tail ones)
R_SMALL, R_MID, R_LARGE = 24, 16, 10   # sd(Y) / h by M (< 1e3, < 1e5, larger; level 1 takes
                                       # R_MID from 1e3 on: on the band path h is cheap, and
                                       # at R_LARGE M 1e5-1e7 were 0.11-0.19% wide: 0.02-0.10%
                                       # now, 1.0-1.7 times the time; docs/BENCHMARKS.md)
K2_COARSE = 8        # the K >= 2 parts use B_{M-1} on a lattice this many times coarser
# body threshold T1: M P(Y > T1) <= the expected number of tail items: 1e-3, or 1e-2 for
# sigma < 0.75 (heavy tails: a higher T1 would widen the body's DFT).  Smaller values make the
# events K >= 2 rarer, whose bounds (Jensen over pairs) are the loosest part for light tails
TAIL_MASS = 1e-3
TAIL_MASS_HEAVY = 1e-2
TAIL_MASS_MIN = 1e-5
TAIL_FINE = 2        # refinement level f: light tails' tail mass f^TAIL_FINE smaller (the body
                     # reaches further; sigma 0.8, M 1000, level 8: the remove bracket 3.7e-4 ->
                     # 4.3e-5 wide at the same time: docs/THEORY.md section 9)
TAIL_FINE_HEAVY = 1  # ... heavy tails' f^TAIL_FINE_HEAVY smaller (their body's DFT widens faster)
CELL_FINE_HEAVY = 2  # heavy tails' body cells: the doubling rule's variance budget f^2 smaller
                     # (real widths 1/f: sigma 0.5, M 1000, level 16, both: the remove bracket of
                     # delta(2.8) 1.6e-4 -> 1.2e-5 wide; a fixed rule stopped it narrowing)
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
PAIR_CELLS = 1024    # ... and beyond, to about this many (sigma 0.5, M 1000, level 24: 5571 cells;
                     # merged 6 the remove bracket 0.06% wider than merged 4, at half the pairs)
PAIR_STEP = 1 / 32   # the pair sums' geometric grid (relative step); FINE at M <= FINE_TAIL_M
PAIR_STEP_FINE = 1 / 256
PRODUCT_CHEAP = 1 << 17   # the pairs' products of at most this many coefficients are cheap (0.4 s),
PRODUCT_COST = 3          # ... and a longer one's coefficient costs about this many pairs formed
                          # one by one (measured: 3.1 us per coefficient of a 771337-long
                          # product, 1.2 us per merged pair; pairs_by_product)
PRODUCT_LENGTH = 1 << 20  # the tail parts' ball polynomial products at most about this long,
PRODUCT_PER_PUT = 8       # and at most this many coefficients per log of the point-by-point
                          # route they replace (upper.product_cut)
FAR_B = 16           # the far tail parts meet B spread onto a lattice this many times coarser
FAR_X = Fraction(8)     # refined levels: ... and coarser by powers of 2 while its step in log W
                        # stays below this many steps of the log grid (upper.far_route)
THIN_X = Fraction(1, 8)  # refined levels: the tail parts' product output spread onto lattices
                         # whose step in log W stays below this many grid steps (spreads.thin)
BAND_M = 1000        # from this M every level reads its body laws off the sparse spectra
BUCKET_K0 = 64       # buckets per sd of the labels' sum in the K = 0 test outcomes
COARSE_SD = 12       # coarse lattice points per sd of B_{M-1} in the K >= 1 parts of the upper ends


def log_rooms(fine: int) -> tuple:
    """(thin, far): the steps in log W, in steps of the log grid, within which the tail
    parts' product output and the far route's body are spread onto coarser lattices: THIN_X
    and FAR_X at refined levels (sigma 0.5, M 1000, E 10, level 24: the tail parts 15.6 ->
    6.3 s, the remove bracket of delta(2.8) the same to 10 digits); 0 at level 1, whose
    brackets stay those the references pinned (the coarsenings moved the 8th digit there)."""
    return (THIN_X, FAR_X) if fine > 1 else (Fraction(0), Fraction(0))


def fine_tails(sigma, M: int) -> bool:
    """Light tails at 2 <= M <= FINE_TAIL_M: tail cells TAIL_STEP / TAIL_STEP_FINE times finer
    (the tail items decide a small delta there)."""
    return sigma >= LIGHT_TAILS and 2 <= M <= FINE_TAIL_M


def band_path(M: int) -> bool:
    """Whether the body laws are read off their sparse spectra (bounds/profile/bandlaw.py; a
    cost choice, both ways exact up to radii): from BAND_M items, at every level, the tests'
    labels the cells' left ends (deterministic).  Level 1 had read them from the spread
    (randomized labels sharing the upper end's full DFTs) until 2026-12-07: sigma 0.5 to 4,
    M 1e3, 1e4, 1e6, E 10, delta 1e-5 and 1e-10 (24 cases, one process each), the band path
    at level 1's own lattice took 0.6 to 1.0 times the time (M 1e6: about half; 1.4 times
    at sigma 0.5, M 1000, delta 1e-10) for brackets 1.6 to 1.8 times narrower, each inside
    the old one (sigma 1, M 1e4: 0.1192% -> 0.0722%, 0.39 -> 0.22 s; M 1e6: 0.284% ->
    0.156%, 1.67 -> 0.94 s).  Decided once, in ``plan`` (Plan.band); the one test of
    M >= BAND_M (profile.level_one_apart, time_order_min and start_level ask it)."""
    return M >= BAND_M


H_BAND = 4          # on the band path the lattice step is this much finer than level k's (heavy
H_BAND_LIGHT = 2    # tails; light tails this much: their body cells, the sparse spectra's points,
                    # are of width 1 and as many as the lattice is fine)
H_BAND_FINE = 64    # at most as fine as level 64's
BAND_MAX_N = 1 << 24   # the band path's windows may be this long (no transform of their length
                       # is formed: numerics/band.py refuses one past lattice.MAX_N)


def lattice_refinement(fine: int, boost: int) -> int:
    """How many times finer than the default the lattice step h is at refinement level
    ``fine`` (a free parameter): max(fine, min(boost fine, H_BAND_FINE)), ``boost`` 1 off the
    band path.  Where the body laws are read off their sparse spectra (the band path:
    band_boosts) a finer lattice costs little (the sparse spectra's points are the cells,
    the stages read blocks) and narrows both ends: sigma 0.5, M 1e4, E 100, level 16, the
    remove bracket of delta(2.3415) at delta 1e-3 with h 2, 4 and 8 times finer than level
    16's 7.63e-9, 5.50e-9, 5.05e-9 wide (27.8, 29.2, 32.7 s), of delta(7.926) at 1e-10
    1.29e-14, 1.10e-14, 1.06e-14 (41.6, 42.2, 44.9 s; peak memory 1.56 GB at h 4 times finer,
    a window of 6291456 points).  Nondecreasing in ``fine``."""
    return max(fine, min(boost * fine, H_BAND_FINE))


def band_boosts(sigma, M: int, fine: int) -> tuple:
    """The lattice boosts a level is planned with, in turn while the engine's limits refuse
    one (laws.epoch_laws): on the band path H_BAND, H_BAND / 2, ..., 1 for heavy tails,
    H_BAND_LIGHT, ..., 1 for light tails (sigma 4, M 1e4, E 100: a 1e-4 request 2.5 -> 4.4 s at
    delta 1e-10 with H_BAND, 1e-6 at 1e-3 21 -> 28 s: their cells are as many as the lattice
    is fine); else, and at level 1, 1 (level 1 at its own lattice: at H_BAND_LIGHT sigma 1,
    M 1000, E 10 took 0.21 -> 0.25 s for a bracket already within the default's 0.1%)."""
    if fine == 1 or not band_path(M):
        return (1,)
    top = H_BAND if sigma < LIGHT_TAILS else H_BAND_LIGHT
    return tuple(top >> i for i in range(top.bit_length()))


BAND_GRID = 2        # band path, levels >= BAND_GRID_FROM: both grids this much finer than
BAND_GRID_FROM = 8   # ``fine`` and the K = 1 buckets this much coarser (test_refinement)
BAND_TAIL = 2        # ... and the tail cells this much finer, merged back BAND_TAIL at a time in
                     # the K = 1 tests (tail_step, test_refinement)


def grid_refinement(fine: int, band: bool = False) -> int:
    """How many times finer than the defaults the grids of log W (upper ends) and of the
    test statistic are at refinement level ``fine``: fine isqrt(fine) (free parameters).
    Both grids' errors are about their steps squared and cost little: for the statistic see
    test_refinement; for log W, each epoch is spread onto the grid before the E-fold
    composition, so its error grows with E (sigma 1, M 1e4, E 100, delta 1e-8, level 24: the
    remove bracket of delta(0.656) 2.8e-5 -> 2.1e-5 wide, 26 -> 28 s).  Where the body laws
    are read off their sparse spectra (``band``: Plan.band) the body costs far
    less and the grids' cost (the E-fold composition, the tests' runs) decides a level's
    time: there ``fine`` (a 1e-6 request, grids fine x isqrt(fine) -> fine: sigma 0.5, M 1000,
    E 10: 1.8e-6 in 40 s -> 9.5e-7 in 39 s; sigma 1, M 1e4, E 100, delta 1e-8: 1.9e-6 ->
    1.2e-6 in 34-38 s; sigma 0.5, M 1e4, E 1, delta 1e-10: 1.9e-6 in 44 s -> 6.5e-7 in 44 s).
    Below it the finer grids stay (sigma 1, M 100, E 10: 6.2e-7 in 28 s; with ``fine`` the
    bracket stopped at 4.1e-5).  With the sparse spectra and the finer lattice
    (lattice_refinement) the body costs little again: from level BAND_GRID_FROM the band
    path's grids are BAND_GRID times finer still, its K = 1 buckets BAND_GRID coarser
    (sigma 0.5, M 1e4, E 100, delta 1e-10, level 16: the remove bracket of delta(7.926)
    2.54e-5 -> 2.07e-5 wide relative, 32 -> 39 s; the buckets alone: 5 s less, 4e-7 lower)."""
    if band:
        return fine * (BAND_GRID if fine >= BAND_GRID_FROM else 1)
    return fine * max(1, math.isqrt(fine))


def test_refinement(fine: int, small_light: bool, band: bool = False) -> tuple[int, int, int]:
    """(bucket factor, K = 1 merge, K = 2 merge) of the tests at refinement level ``fine``
    (free parameters: any values give valid tests); ``small_light``: fine_tails; the
    statistic's grid is grid_refinement's.  Measured at sigma 2, M 10 and sigma 0.8-1,
    M 100-1000 (docs/THEORY.md section 9, "A requested accuracy"): the statistic's grid
    decides much of the lower ends' error (about eta_l^2) and costs little; the K = 1 buckets
    and tail cells matter at M >= 100, but at small M with light tails (tail cells 4 times
    finer, blocks x buckets the level's cost) not beyond the ordinary tail step; the K = 2
    outcomes (pairs of tail cells, quadratic in their number) little.  So at level f,
    s = isqrt(f): the buckets s times finer; the K = 1 tail cells the plan's (merged 4 at
    small M, light tails); the K = 2 cells merged f // s more where their pairs are formed
    one by one (where pairs_by_product, statistic.k2_by_sum groups every cell's pairs by
    their sum instead).  On the band path from BAND_GRID_FROM the buckets BAND_GRID coarser
    (grid_refinement) and the tail cells, BAND_TAIL times finer there (tail_step), merged
    back BAND_TAIL at a time in the K = 1 outcomes (the K = 2 outcomes keep the finer cells:
    sigma 0.5, M 1e4, E 100, level 16, merged back too the remove bracket's lower end of
    delta(7.926) at delta 1e-10 lost 3.7e-6 relative, 37% of the width, for 1.1 s)."""
    s = max(1, math.isqrt(fine))
    k1 = round(TAIL_STEP / TAIL_STEP_FINE) if small_light and fine > 1 else 1
    if band and fine >= BAND_GRID_FROM:
        return max(1, s // BAND_GRID), k1 * BAND_TAIL, max(1, fine // s)
    return s, k1, max(1, fine // s)


def tail_step(small_light: bool, fine: int, band: bool = False) -> float:
    """The tail cells' relative step: TAIL_STEP, or TAIL_STEP_FINE at small M with light tails
    (fine_tails), ``fine`` times finer at refinement level ``fine``; on the band path from
    BAND_GRID_FROM BAND_TAIL times finer still, the K = 1 tests merging them back
    (test_refinement: the upper ends' tail spread narrows, the tests' blocks stay as many).
    sigma 0.5, M 1e4, E 100, level 16: the remove bracket of delta(7.926) 38% narrower at
    delta 1e-10 (39.0 -> 41.6 s), of delta(2.3415) 13% at 1e-3 (26.2 -> 28.2 s); the tests'
    cells not merged back cost 4-6 s more for 3% of the width."""
    step = (TAIL_STEP_FINE if small_light else TAIL_STEP) / fine
    return step / BAND_TAIL if band and fine >= BAND_GRID_FROM else step


def pairs_by_product(P: "Plan") -> bool:
    """Whether the pairs of tail items are formed by ball polynomial products over every
    tail cell (the pair sums' law, upper.pair_law; the K = 2 test outcomes grouped by the
    sum of the cells' left ends, statistic.k2_by_sum) rather than one by one over merged
    cells (a free parameter: both routes are valid; the products lose nothing to merging):
    at refined levels where the product is at most PRODUCT_LENGTH coefficients long and
    either cheap (at most PRODUCT_CHEAP) or costing no more than the merged pairs it
    replaces (a coefficient about PRODUCT_COST pairs).  Light tails at small M have short
    tails (sigma 4, M 2, E 1, delta 1e-10, level 32: 4839 cells, a product 41979 long: the
    remove bracket 20 times narrower than from merged pairs); sigma 1 there reaches 230 times
    its body threshold (level 4: 2801 cells, a product 771337 long, three of them 7 s of the
    level's 8; the merged pairs 0.3 s, the same brackets to 9 digits).  Level 1 keeps the
    pairs one by one, its brackets the ones the references pinned."""
    length = 2 * (P.tail[-1] - P.tail[0]) + 1
    cells = -(-len(P.tail) // pair_merge(len(P.tail)))
    return P.fine > 1 and length <= PRODUCT_LENGTH and (
        length <= PRODUCT_CHEAP or PRODUCT_COST * length <= cells * cells // 2)


def pair_merge(n: int) -> int:
    """How many tail cells the pairs formed one by one merge at a time: 1 up to
    PAIR_MERGE_CELLS cells, then PAIR_MERGE, or more to leave about PAIR_CELLS."""
    return 1 if n <= PAIR_MERGE_CELLS else max(PAIR_MERGE, -(-n // PAIR_CELLS))


def pair_step(M: int, fine: int, small_light: bool) -> float:
    """The relative step of the pair sums' geometric grid (a free parameter): PAIR_STEP, or
    PAIR_STEP_FINE at M <= FINE_TAIL_M; at small M with light tails (fine_tails) also
    ``fine`` times finer, since the pairs of tail items decide a small delta there (sigma 4,
    M 2, E 1, delta 1e-10, level 32: the remove bracket's upper end of delta(1.0608) 4.4e-4
    above a 50-digit quadrature with the step 1/256, 3.8e-5 with 1/8192)."""
    base = PAIR_STEP_FINE if M <= FINE_TAIL_M else PAIR_STEP
    return base / fine if small_light else base


@dataclass
class Plan:
    """The free parameters (floats chose them; any value leaves every bound valid)."""
    h: Fraction
    J1: int
    bounds: list                 # body cell boundaries, lattice units, 0 .. J1
    tail: list                   # tail cell boundaries, lattice units, J1 .. t_max
    kmax: int
    budget: float                # each charge is kept below it (float target)
    fine: int = 1                # the refinement level: lattice, grids and buckets this many
                                 # times finer than the defaults (a requested accuracy)
    fine_tails: bool = False     # fine_tails(sigma, M): the finer tail step
    heavy: bool = False          # sigma < LIGHT_TAILS (the K = 1 tests then bucket the other
                                 # labels' whole window: their law is skewed far past 12 sd)
    band: bool = False           # band_path(M): the body laws read off their spectra


def _tail_mass(light: bool, M: int, E: int, floor: float, fine: int) -> float:
    """M P(Y > T1), the expected number of tail items (a free parameter).  Light tails: at
    most TAIL_MASS, and small enough that E (Mp)^3 / 6 (about the probability of K >= 3 tail
    items in some epoch, bounded through Jensen over pairs, the loosest step for light tails)
    stays below 1e-5 floor (down to TAIL_MASS_MIN).  Heavy tails: TAIL_MASS_HEAVY.  Both
    f^TAIL_FINE(_HEAVY) smaller at refinement level f for M >= 3 (measured, docs/THEORY.md
    section 9: heavy tails at sigma 0.5-0.6, M 10-1000 stopped narrowing near 1e-5 relative
    without it; at M = 2 it only widened the body's DFT: 14 s -> 24 s for 1e-6)."""
    if M < 3:
        return TAIL_MASS if light else TAIL_MASS_HEAVY
    if not light:
        return TAIL_MASS_HEAVY / fine ** TAIL_FINE_HEAVY
    return min(TAIL_MASS, max(TAIL_MASS_MIN, (6e-5 * floor / E) ** (1 / 3))) / fine ** TAIL_FINE


def plan(sigma: Fraction, M: int, E: int, floor: float, fine: int = 1,
         boost: int | None = None) -> Plan:
    """The free parameters for a charge floor (delta of interest) and a refinement level
    ``fine`` (1: the defaults; k: the lattice step h and every grid k times finer; on the
    band path the lattice step lattice_refinement's with ``boost``, by default the first of
    band_boosts)."""
    sf = float(sigma)
    u = 1 / sf ** 2
    s2 = math.expm1(u)
    sd = math.sqrt(s2)
    budget = 1e-4 * floor / E
    x1 = 1.0
    light = sigma >= LIGHT_TAILS
    tail_mass = _tail_mass(light, M, E, floor, fine)
    while M * normal_sf_float(x1) > tail_mass:
        x1 += 0.125
    T1 = math.exp(x1 / sf - u / 2)
    band = band_path(M)
    boost = band_boosts(sigma, M, fine)[0] if boost is None else boost
    r0 = R_LARGE if M >= 10 ** 5 and fine > 1 else R_MID if M >= 1000 else R_SMALL
    r = r0 * lattice_refinement(fine, boost if band else 1)
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
    # that rule alone, its budget refined with the level; their body reaches far and gains
    # nothing from width 1)
    bounds = cell_boundaries(sf, hf, J1, s2 * (min(1.0, CELL_FLOOR * floor) if light
                                               else fine ** -CELL_FINE_HEAVY))

    def beyond(c):          # E[Y; Y >= t] + (M - 1) P(Y >= t), t = c h: the charge (e)
        x = sf * (math.log(c * hf) + u / 2)
        return normal_sf_float(x - 1 / sf) + (M - 1) * normal_sf_float(x)
    tail = [J1]
    step = tail_step(fine_tails(sigma, M), fine, band)
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
    return Plan(h, J1, bounds, tail, kmax, budget, fine, fine_tails(sigma, M), not light, band)


START_LEVEL = 3                           # the first level of requests at most START_WIDTH
START_WIDTH = Fraction(1, 10 ** 4)        # and wider than START_NARROWEST at M >= BAND_M
START_NARROWEST = Fraction(1, 10 ** 5)    # narrower requests start at level 1: from level 3
# the loop's first jump and time prediction fell short (1e-6, sigma 0.5, M 1e4, E 1, delta
# 1e-10: 2.0e-6 at level 12 in 27 s, stopped by time; from level 1: 6.5e-7 in 44 s)


def start_level(M: int, rel_width) -> int:
    """The first level of a requested width (a cost choice: every level is certified):
    START_LEVEL where the body laws are band-limited (M >= BAND_M) and START_NARROWEST <
    rel_width <= START_WIDTH -- there level 1 (about 4e-4 to 1.2e-3 wide) never met the
    request and only chose the next level (sigma 0.5, M 1e4, E 100, 1e-4: levels 1 then 3-4
    in 5.5-5.9 s, level 3 alone in 2.7-4.3 s at delta 1e-10 and 1e-3; sigma 1 and 4 at M 1e4,
    E 100: 2.5 and 1.6 s); else level 1."""
    if rel_width is not None and band_path(M) and START_NARROWEST < rel_width <= START_WIDTH:
        return START_LEVEL
    return 1
