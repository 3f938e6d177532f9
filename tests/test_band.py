"""Body laws read off their sparse spectra (verifier/numerics/band.py, bounds/profile/bandlaw.py;
docs/THEORY.md section 9, "Band-limited body laws"): block sums against the full inverse DFT
(enclosure), the left-out coefficients' charge, band_power's certificate, and the engine's
brackets by both paths."""
from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from flint import acb, arb, ctx

from verifier.numerics import band as BA
from verifier.numerics.lattice import powers, two_dfts, two_inverse


def _law(seed: int, span: int = 300):
    rng = random.Random(seed)
    pts = [(j, arb(rng.random())) for j in range(span)]
    tot = sum((v for _, v in pts), arb(0))
    return [(j, v / tot * arb("0.99")) for j, v in pts]


def _full(Y: list, N: int) -> list:
    return [z.real for z in two_inverse(Y, [acb(0)] * len(Y), N)]


def _direct(c: list, G: int, b: int):
    return (sum(c[b * G:(b + 1) * G], arb(0)),
            sum((r * c[b * G + r] for r in range(G)), arb(0)))


def test_block_sums_enclose_the_full_inverse_dft():
    with ctx.workprec(128):
        N, n = 40960, 400
        X = two_dfts(_law(3), [], N)[0]
        Y = BA.band_power(X, n, 128)
        assert len(Y.vals) < N // 100                # the band: a few coefficients of N/2
        c = _full(powers(X, n, 128), N)
        for G in (1, 8, 64):
            S, R = BA.block_sums(Y, G, moments=True)
            for b in range(0, N // G, max(1, N // G // 40)):
                s, r = _direct(c, G, b)
                assert S[b].overlaps(s) and R[b].overlaps(r), (G, b)
                assert S[b].rad() < 1e-30 and R[b].rad() < 1e-27
        v = BA.values(Y)
        assert all(a.overlaps(b) for a, b in zip(v, c))


def test_left_out_coefficients_are_charged():
    """Keep only the 40 largest coefficients of an unpowered spectrum: the rest (up to about
    1e-3 each) must be charged to every block sum and moment, and the mirror N - k of each
    kept k counted once."""
    with ctx.workprec(128):
        N = 4096
        X = two_dfts(_law(5, 200), [], N)[0]
        order = sorted(range(len(X)), key=lambda k: -float(X[k].abs_upper()))
        keep = set(order[:40])
        out = max((X[k].abs_upper() for k in order[40:]), key=float)
        Y = BA.Spectrum(N, {k: X[k] for k in keep}, arb(out.upper()))
        assert float(out) > 1e-6
        c = _full(X, N)
        for G in (1, 4, 32):
            S, R = BA.block_sums(Y, G, moments=True)
            for b in range(N // G):
                s, r = _direct(c, G, b)
                assert s.lower() >= S[b].lower() and s.upper() <= S[b].upper(), (G, b)
                assert r.lower() >= R[b].lower() and r.upper() <= R[b].upper(), (G, b)
        v = BA.values(Y)
        assert all(x.lower() <= y.lower() and y.upper() <= x.upper() for x, y in zip(v, c))


def test_the_left_out_charge_is_attained_by_an_aligned_spectrum():
    """Every coefficient left out (|Y[k]| <= out, nothing kept) and the worst case they allow:
    Y[k] = out e^{-2 pi i j0 k / N}, whose inverse DFT is out at j0 and 0 elsewhere. The block
    sums of one point must contain it: the charge out G is attained at G = 1 (a halved charge
    excludes it)."""
    N, j0, out = 64, 5, arb(2) ** -10
    with ctx.workprec(128):
        Y = BA.Spectrum(N, {}, out)
        S, _ = BA.block_sums(Y, 1)
        w = [out * acb.exp_pi_i(acb(-2 * j0 * k, 0) / N) for k in range(N)]
        x = [z.real for z in acb.dft(w, inverse=True)]
        assert x[j0].overlaps(out) and all(abs(float(v.mid())) < 1e-30 for i, v in
                                           enumerate(x) if i != j0)
        assert all(S[j].contains(x[j]) for j in range(N))


def test_band_power_certifies_what_it_leaves_out():
    with ctx.workprec(128):
        N, n = 8192, 60
        X = two_dfts(_law(7, 120), [], N)[0]
        Y = BA.band_power(X, n, 128)
        assert 0 < len(Y.vals) < len(X)
        for k, z in enumerate(X):
            if k not in Y.vals:
                assert (z ** n).abs_upper() <= Y.out, k
            else:
                assert Y.vals[k].overlaps(z ** n)
        T = BA.times(Y, X, arb(1))
        for k in range(0, len(X), 37):
            if k not in T.vals:
                assert (X[k] ** (n + 1)).abs_upper() <= T.out, k


def test_a_block_size_must_fit():
    with pytest.raises(ValueError):
        BA.block_sums(BA.Spectrum(12, {0: acb(1)}, arb(0)), 5)


def _brackets(fine: int):
    from verifier.bounds import profile as PR
    PR.clear_cache()
    P = PR.engine(Fraction(1, 2), 1000, 10, 1e-3, eps_cap=8, fine=fine)
    return PR.directions(P, Fraction(28, 10))


def test_the_engine_reads_band_laws_from_band_m_at_every_level():
    from verifier.bounds.profile import plan as PL
    from verifier.bounds.profile.bandlaw import BandLaw
    from verifier.bounds.profile.plan import band_path
    from verifier.bounds.profile.body import body_laws
    from verifier.bounds import profile as PR
    assert band_path(1000) and not band_path(999)       # at every level
    # level 1 plans its own lattice (no boost); refined levels try the boosted ones first
    assert PL.band_boosts(s_light := Fraction(1), 1000, 1) == (1,)
    assert PL.band_boosts(s_light, 1000, 2)[0] == PL.H_BAND_LIGHT
    assert PL.band_boosts(Fraction(1, 2), 1000, 2)[0] == PL.H_BAND
    s, M = Fraction(1, 2), 1000
    floor = 1e-3 / 4
    P = PL.plan(s, M, 10, floor, 2)
    with ctx.workprec(PR._prec(M, floor, PR.prec_cap(8))):
        P1 = PL.plan(s, M, 10, floor, 1)
        assert P1.band and P1.h == 8 * P.h      # level 1 at its own lattice, level 2 boosted (2 x H_BAND)
        B1 = body_laws(s, M, P1, ctx.prec)
        assert all(isinstance(L, BandLaw) for L in (B1.SM, B1.BM, B1.T1l))
        B = body_laws(s, M, P, ctx.prec)
        assert all(isinstance(L, BandLaw) for L in (B.SM, B.S1, B.BM, B.B1, B.T1l, B.T2l))
        for L in (B.SM, B.T1l):
            assert L.start % L.align == 0 and L.align > 1
            G = L.fit(L.align)
            S, R = L.blocks(G, moments=True)
            for i in range(0, len(S), max(1, len(S) // 20)):
                s_ = sum(L.c[i * G:(i + 1) * G], arb(0))
                assert S[i].overlaps(s_), i


def test_band_laws_give_the_full_paths_brackets(monkeypatch):
    """The same engine by band laws and by the full inverse DFTs: the brackets overlap and
    are as narrow (sigma 0.5, M 1000, E 10, level 2; the band path's buckets and coarse
    lattices are powers of 2 at most the full path's)."""
    from verifier.bounds.profile import plan as PL
    rem1, add1 = _brackets(2)
    monkeypatch.setattr(PL, "band_path", lambda M: False)
    rem0, add0 = _brackets(2)
    for a, b in ((rem0, rem1), (add0, add1)):
        assert a.lower <= b.upper and b.lower <= a.upper
        assert (b.upper - b.lower) <= Fraction(105, 100) * (a.upper - a.lower)



def test_the_tests_leave_out_only_negligible_outcomes(monkeypatch):
    """Refined levels leave out of the tests the outcomes worth less than a tenth of the
    per-epoch budget (laws.DROP_SHARE): the lower ends move by less than 1e-7 relative, and
    fewer outcomes are formed."""
    from verifier.bounds.profile import laws as LW
    from verifier.bounds.profile import plan as PL
    assert 0 < LW.DROP_SHARE <= 0.1
    rem1, add1 = _brackets(2)
    monkeypatch.setattr(LW, "DROP_SHARE", 0.0)
    rem0, add0 = _brackets(2)
    assert abs(rem1.lower - rem0.lower) <= Fraction(1, 10 ** 7) * rem0.lower
    assert rem1.upper == rem0.upper
    assert (PL.grid_refinement(6, PL.band_path(1000)) == 6
            and PL.grid_refinement(6, PL.band_path(999)) == 12
            and PL.grid_refinement(16, PL.band_path(1000)) == 16 * PL.BAND_GRID
            and PL.grid_refinement(16, PL.band_path(999)) == 64)
    assert (PL.test_refinement(16, False, True)[0] == 4 // PL.BAND_GRID
            and PL.test_refinement(16, False, False)[0] == 4
            and PL.test_refinement(6, False, True)[0] == 2)
    # the band path's tail cells BAND_TAIL times finer from BAND_GRID_FROM, merged back in
    # the K = 1 tests only
    assert PL.tail_step(False, 16, True) == PL.TAIL_STEP / 16 / PL.BAND_TAIL
    assert PL.tail_step(False, 6, True) == PL.tail_step(False, 6) == PL.TAIL_STEP / 6
    assert PL.test_refinement(16, False, True)[1:] == (PL.BAND_TAIL, 4)
    assert PL.test_refinement(16, False, False)[1:] == (1, 4)


def test_band_laws_reserve_their_own_memory_estimate():
    """The band path holds no inverse transform of full length: its estimate counts 2 balls
    per point at refined levels (1.7 measured), 1 at level 1 (its edges in floats), not the
    full path's 13."""
    from verifier.bounds import profile as PR
    from verifier.numerics import memory
    PR.clear_cache()
    with memory.dry_run(), pytest.raises(memory.DryRun) as d:
        PR.engine(Fraction(1, 2), 1000, 10, 1e-3, eps_cap=8, fine=2)
    per = (d.value.need - memory.BASELINE) // d.value.points
    assert per == memory.PER_POINT["profile-band"] * memory.ball_bytes(128) or per in {
        memory.PER_POINT["profile-band"] * memory.ball_bytes(p) for p in range(53, 400)}
    assert memory.PER_POINT["profile-band"] < memory.PER_POINT["profile"]
    with memory.dry_run(), pytest.raises(memory.DryRun) as d:     # level 1: its own count
        PR.engine(Fraction(1, 2), 1000, 10, 1e-3, eps_cap=8, fine=1)
    per1 = (d.value.need - memory.BASELINE) // d.value.points
    assert per1 < per and per1 in {memory.PER_POINT["profile-band-1"] * memory.ball_bytes(p)
                                   for p in range(53, 400)}


def test_band_aggregates_are_the_points_aggregates():
    """What the stages read off a BandLaw -- the coarse lattices' spreads (spreads.coarse) and
    the tests' buckets with a second law's masses at the same points (statistic.bucketed) --
    equals what they read off its points (the full inverse DFT), block for block."""
    from verifier.bounds import profile as PR
    from verifier.bounds.profile import plan as PL
    from verifier.bounds.profile.body import body_laws
    from verifier.bounds.profile.spreads import Window, coarse
    from verifier.bounds.profile.statistic import block_offset, bucketed
    s, M = Fraction(1, 2), 1000
    floor = 1e-3 / 4
    P = PL.plan(s, M, 10, floor, 2)
    with ctx.workprec(PR._prec(M, floor, PR.prec_cap(8))):
        B = body_laws(s, M, P, ctx.prec)
        g = B.S1.fit(B.S1.align // 8)
        band, points = coarse(B.S1, g, 8 * g), coarse(Window(B.S1.c, B.S1.start), g, 8 * g)
        for a, b in zip(band, points):
            assert a.keys() == b.keys() and len(a) > 20
            assert all(a[j].overlaps(b[j]) for j in a)
        X, Y = B.BM, B.T1l
        G = X.fit(X.align // 4)
        assert block_offset(X, Y, G) != 0              # the two windows placed apart
        sd = float(X.N) / 40
        got = bucketed(X, Y, G, 6, sd)
        cx = float(X.mean.mid()) - X.start
        first = max(0, int(cx - 6 * sd) // G)
        want = []
        for i in range(first, first + len(got) + 40):
            v0 = X.start + i * G
            if i * G + G > X.N or not (Y.start <= v0 and v0 + G <= Y.start + Y.N):
                continue
            want.append((sum(X.c[i * G:i * G + G], arb(0)),
                         sum(Y.c[v0 - Y.start:v0 - Y.start + G], arb(0))))
        want = want[:len(got)]
        assert len(got) > 20 and len(want) == len(got)
        for (a1, a2), (b1, b2) in zip(got, want):
            assert a1.overlaps(b1) and a2.overlaps(b2)


def _sparse_law(rng, N: int, npts: int):
    pts = sorted(rng.sample(range(N), npts))
    w = [rng.random() for _ in pts]
    tot = sum(w)
    return [(p, arb(x / tot) * arb("0.99")) for p, x in zip(pts, w)]


@pytest.mark.parametrize("seed", range(4))
def test_sparse_spectra_are_the_full_dft_where_they_keep_and_certified_beyond(seed,
                                                                             monkeypatch):
    """sparse_spectra (docs/THEORY.md section 9, "Sparse spectra of the item laws") against
    the full ball DFT: every value it gives overlaps the DFT's, no index beyond its band has
    a DFT ball certainly above r, and band_power keeps the same indices from both.  Laws
    clustered (a smooth bump: a narrow band) and scattered (a wide one)."""
    monkeypatch.setattr(BA, "SPARSE_COST", 10 ** 9)     # the direct sums even where dearer
    rng = random.Random(seed)
    N, n = [3072, 4096, 6144, 8192][seed], rng.choice([40, 400, 4000])
    with ctx.workprec(128):
        if seed % 2:
            law = _sparse_law(rng, N, 60)
        else:
            law = [(1000 + j, arb(math.comb(200, j)) / arb(2) ** 200 * arb('0.99'))
                   for j in range(201)]                       # a binomial bump
        tilted = [(p, v * arb(rng.random())) for p, v in law]
        X1, X2 = two_dfts(law, tilted, N)
        S1, S2 = BA.sparse_spectra(law, [tilted], N, n, 128)
        K = max(S1.vals)
        assert all(S1[k].overlaps(X1[k]) and S2[k].overlaps(X2[k]) for k in range(K + 1))
        r = BA._radius(128, n)
        assert not any(X1[k].abs_lower() > r for k in range(K + 1, N // 2 + 1))
        full, sparse = BA.band_power(X1, n, 128), BA.band_power(S1, n, 128)
        assert set(full.vals) == set(sparse.vals) and full.vals
        assert all(full.vals[k].overlaps(sparse.vals[k]) for k in full.vals)
        if seed % 2 == 0 and n >= 400:
            assert K < N // 8                            # a narrow band: few direct sums


def test_sparse_band_edge_charges_the_frequencies_between_its_coarse_points():
    """band_edge's certificate between the coarse points (the second-order bound of
    numerics.spectral.edge): a law whose spectrum peaks at k = 96, halfway between the
    coarse points 64 and 128 (two atoms 128 apart, smoothed by a binomial bump), where the
    coarse points see about 0.5; with a forced stride of 64 the band must still reach past
    96, and no k beyond it is certified above r."""
    N, c = 12288, 64
    with ctx.workprec(128):
        bump = [arb(math.comb(170, j)) / arb(2) ** 170 for j in range(171)]
        law = {}
        for a in (0, 128):
            for j, v in enumerate(bump):
                law[a + j] = law.get(a + j, arb(0)) + v / 2
        law = sorted(law.items())
        X = two_dfts(law, [], N)[0]
        r = arb("0.9")
        assert X[96].abs_lower() > r and X[64].abs_upper() < r and X[128].abs_upper() < r
        K = BA.band_edge(law, N, r, stride=c)
        assert K >= 96
        assert not any(X[k].abs_lower() > r for k in range(K + 1, N // 2 + 1))


def test_a_level_whose_finer_lattice_is_too_long_is_planned_at_its_own(monkeypatch):
    """plan.lattice_refinement: the band path's lattice H_BAND times as fine as level k's (up
    to level 64's), nondecreasing; where the finer lattice's window would pass the band
    path's limit, laws.epoch_laws plans the level at the next coarser one (band_boosts), at
    last at its own, instead of refusing it."""
    from verifier.bounds.profile import body as BO
    from verifier.bounds.profile import laws as LW
    from verifier.bounds.profile import plan as PL
    levels = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    lat = [PL.lattice_refinement(f, PL.H_BAND) for f in levels]
    assert lat == sorted(lat) and lat[:7] == [PL.H_BAND * f for f in levels[:7]]
    assert lat[-1] == 64 == PL.H_BAND_FINE
    assert [PL.lattice_refinement(f, 1) for f in levels] == levels
    s, M, E, floor = Fraction(1, 2), 1000, 10, 1e-3
    assert PL.band_boosts(s, 1000, 2) == (4, 2, 1) and PL.band_boosts(s, 999, 2) == (1,)
    assert PL.band_boosts(s, 1000, 1) == (1,) and PL.band_boosts(Fraction(1), 1000, 2) == (2, 1)
    boosted, own = PL.plan(s, M, E, floor, 2), PL.plan(s, M, E, floor, 2, boost=1)
    assert boosted.h == own.h / PL.H_BAND
    laws = LW.epoch_laws(s, M, E, floor, 128, fine=2)
    assert laws.info["h"] == boosted.h
    monkeypatch.setattr(BO, "BAND_MAX_N", laws.info["N"] - 1)     # the finest lattice refused
    laws2 = LW.epoch_laws(s, M, E, floor, 128, fine=2)
    assert laws2.info["h"] == 2 * boosted.h and laws2.info["N"] < laws.info["N"]
    monkeypatch.setattr(BO, "BAND_MAX_N", laws2.info["N"] - 1)    # ... and the next one
    laws3 = LW.epoch_laws(s, M, E, floor, 128, fine=2)
    assert laws3.info["h"] == own.h and laws3.info["N"] < laws2.info["N"]


def test_a_band_law_longer_than_the_dft_limit_forms_no_transform_of_its_length(monkeypatch):
    """A band law's window may pass lattice.MAX_N (plan.BAND_MAX_N: only its blocks and
    coarse transforms are formed); its points, block sums or coarse DFT longer than MAX_N are
    refused in one line (the level is then planned coarser), not allocated."""
    from verifier.core.arith import InputError
    with ctx.workprec(128):
        N = 4096
        law = [(1000 + j, arb(math.comb(200, j)) / arb(2) ** 200) for j in range(201)]
        X, = BA.sparse_spectra(law, [], N, 4000, 128)
        Y = BA.band_power(X, 4000, 128)
        assert len(BA.values(Y)) == N and len(BA.block_sums(Y, 4)[0]) == N // 4
        monkeypatch.setattr(BA, "MAX_N", N // 8)
        with pytest.raises(InputError, match="band law's points would need 4096 points"):
            BA.values(Y)
        with pytest.raises(InputError, match="block sums would need 1024 points"):
            BA.block_sums(Y, 4)
        assert len(BA.block_sums(Y, 8)[0]) == N // 8
        with pytest.raises(InputError, match="coarse DFT"):
            BA.band_edge(law, N, arb("0.5"), stride=4)


def test_band_power_reads_a_sparse_spectrum_with_its_own_radius():
    """band_power takes a SparseDFT's certified r (not its own choice) and checks r^n in Arb:
    a spectrum certified only for a radius too large for n is refused, not read."""
    with ctx.workprec(128):
        N = 4096
        law = [(1000 + j, arb(math.comb(200, j)) / arb(2) ** 200 * arb("0.99"))
               for j in range(201)]
        X, = BA.sparse_spectra(law, [], N, 4000, 128)
        assert BA.band_power(X, 4000, 128).vals
        with pytest.raises(ValueError):
            BA.band_power(X, 40, 128)          # r^40 is far above 2^-138


@pytest.mark.parametrize("M", [1000, 10 ** 5])
def test_level_one_from_band_m_is_within_the_default_width(M):
    """Level 1 on the band path at its own lattice (R_MID from M = 1000 on): sigma 1, E 10,
    delta 1e-5 at most 0.1% wide (before 2026-12-07, with randomized labels and R_LARGE
    from 1e5: 0.111% and 0.275%; at level 1's lattice with R_LARGE still 0.153% at 1e5)."""
    from verifier.bounds import profile as PR
    r = PR.epsilon_bracket(Fraction(1), M, 10, Fraction(1, 10 ** 5))
    e = r.epsilon
    assert (e.upper - e.lower) / e.lower <= Fraction(1, 1000)
