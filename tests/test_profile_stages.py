"""The random-allocation profile engine's stages one by one (verifier/bounds/profile/: plan,
body, upper, statistic; docs/THEORY.md section 9), each against an identity it must keep:
the body cells' spread keeps the mass and mean of Y below T1; the upper laws at c = 0 (E[W]
= 1 for remove, mu(W = 0) + E_nu[1/W] = 1 for add) are at least 1 and only just; the test
statistic's laws are sub-probabilities dominated by what the blocks carry."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st
from flint import arb, ctx

from verifier.bounds.profile import body as BO
from verifier.bounds.profile import plan as PL
from verifier.bounds.profile import statistic as ST
from verifier.bounds.profile import upper as UP
from verifier.bounds.profile.laws import assemble, epoch_laws
from verifier.core.arith import to_arb

PREC = 128
CASES = [(F(2), 1, 1, 1e-2), (F(2), 2, 1, 1e-5), (F(2), 3, 1, 1e-5), (F(1), 10, 3, 1e-6),
         (F(3, 10), 10, 1, 1e-5), (F(1, 2), 20, 2, 1e-8), (F(3, 5), 100, 1, 1e-5),
         (F(1), 1000, 2, 1e-6)]


def _stages(sigma, M, E, floor):
    P = PL.plan(sigma, M, E, floor)
    B = BO.body_laws(sigma, M, P, PREC)
    G = UP.log_grid(B, P, M)
    return P, B, G, UP.coarse_body(B, P, M)


@pytest.mark.parametrize("sigma,M,E,floor", CASES)
def test_body_spread_keeps_mass_and_mean(sigma, M, E, floor):
    """Step (a): the spread of the body cells [0, T1) keeps P(Y < T1) = 1 - p and
    E[Y; Y < T1] = 1 - tau (E[Y] = 1), the labels' laws are the same sub-probability."""
    with ctx.workprec(PREC):
        P = PL.plan(sigma, M, E, floor)
        C = BO.cells(sigma, M, P)
        mass = sum((v for _, v in C.spread), arb(0))
        mean = sum((k * v for k, v in C.spread), arb(0)) * to_arb(P.h)
        assert (mass - (1 - C.p)).contains(0) and abs(mass - (1 - C.p)) < 1e-20
        assert (mean - (1 - C.tau)).contains(0) and abs(mean - (1 - C.tau)) < 1e-20
        lab = sum((v for _, v in C.labels), arb(0))
        assert abs(lab - (1 - C.p)) < 1e-20
        tilted = sum((v for _, v in C.tilted), arb(0))
        assert abs(tilted - (1 - C.tau)) < 1e-20


@pytest.mark.parametrize("sigma,M,E,floor", CASES)
def test_upper_laws_at_c_zero_are_at_least_one(sigma, M, E, floor):
    """At c = 0 the remove integrand is W and E[W] = 1; the add bound reads mu(W = 0) +
    E_nu[e^{-x}] = 1.  Every step of the upper laws (spreads, moves, union-bound charges)
    can only raise these, so each law plus its charge is >= 1; and only by the grid's
    convexity slack (a dropped part, e.g. the K >= 1 tail items of mass Mp or E[W; K >= 1]
    = tau, would put it below 1; a double charge above 1 + 1e-3)."""
    with ctx.workprec(PREC):
        P, B, G, CB = _stages(sigma, M, E, floor)
        eta = to_arb(G.eta)
        rem, cR = UP.remove_law(B, G, CB, P, M)
        add, cA, _ = UP.add_law(sigma, B, G, CB, P, M)
        sR = sum((v * (k * eta).exp() for k, v in rem.items()), arb(0)) + cR
        sA = sum((v * (-k * eta).exp() for k, v in add.items()), arb(0)) + cA
        for s in (sR, sA):
            assert s.upper() >= 1, (s, B.cells.tau, B.cells.p)
            assert s.lower() < 1 + 1e-3, s


@pytest.mark.parametrize("sigma,M,E,floor", CASES[:6])
def test_statistic_laws_are_sub_probabilities(sigma, M, E, floor):
    """The tests' outcomes partition the event space (less what is left out), so the
    statistic's laws under P0 and P1 are sub-probabilities of total mass at most 1 and at
    least 1 - (what the tests leave out: K >= 3, sums beyond their windows and buckets)."""
    with ctx.workprec(PREC):
        P, B, G, CB = _stages(sigma, M, E, floor)
        _, _, fine = UP.add_law(sigma, B, G, CB, P, M)
        t0, t1, eta_l = ST.statistic_laws(ST.test_blocks(B, P, M, CB.sd_b, fine))
        for t in (t0, t1):
            tot = sum(t.values(), arb(0))
            assert tot.lower() <= 1 and tot.upper() > 1 - 1e-3, tot
        assert eta_l > 0


def test_assemble_is_epoch_laws():
    """laws.assemble on a plan is the engine's epoch_laws (one assembly of the stages)."""
    sigma, M, E, floor = F(1), 10, 3, 1e-6
    a = epoch_laws(sigma, M, E, floor, PREC)
    with ctx.workprec(PREC):
        b = assemble(sigma, M, PL.plan(sigma, M, E, floor), PREC)
    assert a.eta == b.eta and a.eta_l == b.eta_l and sorted(a.rem) == sorted(b.rem)
    assert all(_same(a.rem[k], b.rem[k]) for k in a.rem)
    assert _same(a.charge_R, b.charge_R) and _same(a.charge_A, b.charge_A)


def _same(x: arb, y: arb) -> bool:
    return bool(x.mid() == y.mid()) and bool(x.rad() == y.rad())


# ---- radii (docs/THEORY.md section 9, "Working precision"): the working precision is
# chosen for sums that carry only their own terms' radii; a difference of longer sums
# (suffix sums of a window, a cancelling chord weight) would need 20-40 bits more

def test_bucket_masses_carry_only_their_own_radii():
    """The tests' buckets partition a window: their radii add up to about the window's own
    (a difference of suffix sums would give each bucket the radii of everything beyond it:
    about the number of buckets times more)."""
    with ctx.workprec(PREC):
        P, B, _, _ = _stages(F(1), 100, 3, 1e-6)
        X = B.B1
        sd = 30.0
        buckets = ST.bucketed(X, None, 4, len(X.c), sd)
        window = sum(float(v.rad()) for v in X.c)
        got = sum(float(r1.rad()) for r1, _ in buckets)
        assert len(buckets) > 100 and 0 < got <= 1.01 * window + 1e-30 * len(buckets)


def test_body_cells_are_computed_above_the_working_precision():
    """The spread weights (q b h - m)/((b - a) h) cancel about log2 b bits after the cells'
    masses (differences of upper tails) lost theirs: computed 2 bitlen(J1) bits higher, the
    spread's radii stay near the working precision's unit."""
    with ctx.workprec(PREC):
        P = PL.plan(F(4, 5), 1000, 3, 1e-7)
        C = BO.cells(F(4, 5), 1000, P)
    assert P.J1 > 2 ** 11
    assert sum(float(v.rad()) for _, v in C.spread) < 2.0 ** -(PREC - 4)


def test_precision_tiers_keep_a_small_eps_under_two_limbs():
    """The laws for the smallest eps cap resolve eps <= 8 (not 20): at sigma 4, M 1e4, E 100,
    delta 1e-10 the finest level a 1e-6 request needs (32) runs at <= 128 bits (two limbs:
    an Arb DFT about twice as fast as at 129-192); the top cap keeps its e^61 term."""
    from verifier.bounds import profile as PR
    assert PR.prec_cap(4) == 8 and PR.prec_cap(16) == 20 and PR.prec_cap(61) == 61
    assert PR._prec(10 ** 4, 1e-10 / 32 ** 2, PR.prec_cap(4)) <= 128
    # eps 4..12 (the cap 8): sigma 0.5, M 1e4, E 100, delta 1e-10 (eps 7.9) at level 3
    assert PR.prec_cap(8) == 12 and PR._prec(10 ** 4, 1e-10 / 3 ** 2, PR.prec_cap(8)) <= 128
    assert PR._prec(3, 1e-10, PR.prec_cap(61)) - PR._prec(3, 1e-10, PR.prec_cap(4)) >= 70


def test_precision_just_above_two_limbs_is_taken_down():
    """A precision the rule puts at most LIMB_SLACK bits above 128 runs at 128 (a free
    parameter: an Arb DFT there takes about 0.45 the time): sigma 0.5, M 1e4, E 100, delta
    1e-10 (eps 7.9) at levels 6-24 (130-133 bits by the rule); far above, the rule's own."""
    from verifier.bounds import profile as PR
    for level in (6, 8, 24):
        assert PR._prec(10 ** 4, 1e-10 / level ** 2, PR.prec_cap(8)) == 128
    assert PR._prec(10 ** 4, 1e-10 / 24 ** 2, PR.prec_cap(61)) > 128 + PR.LIMB_SLACK
    assert PR._prec(10, 1e-3, PR.prec_cap(4)) < 128


def test_tail_product_takes_what_it_saves():
    """upper.product_cut (a free parameter): a dense tail goes whole into the ball product
    (1900 values against a body of 1000 far points: 2 million logs otherwise); a tail spread
    over 10^4 times its start with few far body points keeps the point-by-point route; the
    product never passes PRODUCT_LENGTH."""
    dense = [270908 + 160 * i for i in range(1900)]
    assert UP.product_cut(dense, 65000, 10, lambda v: 1000) == dense[-1]
    sparse = [int(92 * 1.03 ** i) + i for i in range(300)]
    cut = UP.product_cut(sparse, 192, 1, lambda v: 8)
    assert sparse[0] <= cut < sparse[-1] and cut - sparse[0] < 10 ** 5
    huge = [i * 10 ** 4 for i in range(1000)]
    assert UP.product_cut(huge, 0, 1, lambda v: 10 ** 6) - huge[0] <= PL.PRODUCT_LENGTH
    # the far route's cost falls with the value (B coarser against far values): sigma 0.5,
    # M 1000, level 24 (5571 values up to 1400 times the first): the product stops short
    far = [169584 * (1 + 1 / 768) ** i for i in range(5571)]
    cost = lambda v: 1025 / UP.far_coarsening(v, 0, 640, 8 * F(8, 10 ** 5))
    assert far[1000] < UP.product_cut(far, 65532, 10, cost) < far[4000]


def test_far_route_coarsens_b_within_its_room():
    """far_coarsening: the largest power of 2 whose step stays below room (b0 + v)."""
    room = F(8, 10 ** 5)
    for v in (10, 10 ** 6, 4 * 10 ** 6, 10 ** 8):
        c = UP.far_coarsening(v, 100, 640, room)
        assert c >= 1 and c & (c - 1) == 0
        assert c == 1 or c * 640 <= room * (100 + v) < 2 * c * 640
    assert UP.far_coarsening(10 ** 8, 0, 640, room) == 8


@given(st.dictionaries(st.integers(0, 10 ** 6), st.integers(1, 1000), min_size=1, max_size=40),
       st.fractions(F(1, 10 ** 4), F(1, 2)))
def test_thin_is_a_mean_preserving_spread_within_its_room(law, room):
    """spreads.thin (step (a)): the mass and the mean kept exactly (the balls contain them),
    every index n moved only to the multiples of c <= room n around it."""
    from verifier.bounds.profile.spreads import thin
    out = thin({n: arb(m) for n, m in law.items()}, room)
    assert sum(out.values(), arb(0)).contains(sum(law.values()))
    assert sum((n * v for n, v in out.items()), arb(0)).contains(sum(n * m for n, m in law.items()))
    lo, hi = min(law), max(law)
    for n in out:                       # no mass beyond the neighbours of the law's range
        assert n >= (lo - lo * room) and n <= hi + hi * room + 1
    single = thin({1000: arb(1)}, F(1, 100))     # c = 8: 1000 is a multiple of 8
    assert list(single) == [1000]
    two = thin({1001: arb(1)}, F(1, 100))
    assert sorted(two) == [1000, 1008] and two[1008].contains(arb(1) / 8)
