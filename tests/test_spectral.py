"""The sparse composition (verifier/numerics/spectral.py; docs/THEORY.md section 16): the
band edge's certificate against the full DFT, every closed-form sum against the exact
aliased law (rational masses, exact polynomial powers), the left-out coefficients' charge,
and the Poisson engine's brackets by both paths."""
from __future__ import annotations

import math

import random
from fractions import Fraction

import pytest
from flint import acb, arb, ctx, fmpq, fmpq_poly

from verifier.numerics import spectral
from verifier.numerics.spectral_sums import Sums


def _law(seed: int, n: int, step: int = 1) -> list:
    """A law of n points (spacing ``step``) with exact dyadic masses summing to 1."""
    rng = random.Random(seed)
    w = [rng.randint(1, 64) for _ in range(n)]
    tot = sum(w)
    return [(i * step, Fraction(v, tot)) for i, v in enumerate(w)]


def _balls(law):
    return [(p, arb(fmpq(m.numerator, m.denominator))) for p, m in law]


def _dft(pts, N):
    x = [acb(0)] * N
    for p, v in pts:
        x[p % N] += v
    return acb.dft(x)


def _agree_with_the_full_dft(laws, got, N, ks):
    """Each law's direct sums at ks overlap the full Arb DFT's and are at most 1e-25 wide."""
    for law, sums in zip(laws, got):
        X = _dft(law, N)
        for k in ks:
            assert sums[k].overlaps(X[k]), (k, sums[k], X[k])
            assert sums[k].real.rad() < 1e-25 and sums[k].imag.rad() < 1e-25, (k, sums[k])


@pytest.mark.parametrize("seed,n,N,T", [(1, 5, 4096, 300), (2, 9, 8192, 2000),
                                        (3, 3, 4096, 2000), (4, 40, 8192, 100000)])
def test_band_edge_certifies_every_left_out_frequency(seed, n, N, T):
    """Every k in (K, N/2] has |X[k]| <= r: no index the certificate leaves out may have a
    DFT value certified above r (the full DFT in Arb)."""
    with ctx.workprec(128):
        pts = _balls(_law(seed, n))
        r = spectral.radius(128, T)
        K = spectral.edge(pts, N, r)
        X = _dft(pts, N)
        above = [k for k in range(N // 2 + 1) if X[k].abs_lower() > r]
        assert above, "the case must have frequencies above r"
        assert K >= max(above)
        assert K < N // 2                       # and it leaves some out


def test_band_edge_keeps_the_curvature_term():
    """x_0 = 3/4, x_1 = 1/4: |X(t)|^2 = 5/8 + (3/8) cos t has its minimum 1/4 at t = pi and
    rises as 1/4 + (3/16) d^2 around it, while the first-order bound at pi grows only as
    1/4 + d^2 / 16 (phi' is orthogonal to phi there).  With r^2 = 1/4 + h^2 / 8 the last
    segment [N/2 - c/2, N/2] holds frequencies above r that the first-order bound alone
    (no h^2 V / 2) would leave out."""
    with ctx.workprec(128):
        pts = [(0, arb(fmpq(3, 4))), (1, arb(fmpq(1, 4)))]
        N = 4096
        c = spectral.stride(N, 0.25, 0.5)
        h = arb.pi() * c / N
        r = arb((arb(1) / 4 + h * h / 8).sqrt().mid())
        assert spectral.stride(N, 0.25, float(r.mid())) == c
        K = spectral.edge(pts, N, r)
        X = _dft(pts, N)
        above = [k for k in range(N // 2 + 1) if X[k].abs_lower() > r]
        assert N // 2 - c // 2 < max(above) < N // 2
        assert K >= max(above)


def test_the_quick_filter_keeps_the_curvature_term():
    """x = (1/4, 1/2, 1/4): phi(t) = cos^2(t / 2) about j0 = 1, so at t = pi phi and phi1
    both vanish and |X| rises as sin^2(s / 2) beside it, which only h^2 V / 2 (V = 1/2)
    accounts for.  With r = h^2 / 8 (below that term) the last segment holds frequencies
    above r; a filter |a| + |b| <= 2 r / (1 + h) without the term would pass t = pi (a and
    b are 0 there) and leave them out."""
    with ctx.workprec(128):
        pts = [(0, arb(fmpq(1, 4))), (1, arb(fmpq(1, 2))), (2, arb(fmpq(1, 4)))]
        N, c = 4096, 64
        h = arb.pi() * c / N
        r = arb((h * h / 8).mid())
        K = spectral.edge(pts, N, r, c)
        X = _dft(pts, N)
        above = [k for k in range(N // 2 + 1) if X[k].abs_lower() > r]
        assert N // 2 - c // 2 < max(above)
        assert K >= max(above)


def _with_tails(law, n):
    """The law's masses on its points followed by n points doubling their gaps (a Poisson
    step's tails), the last masses moved there."""
    top = law[-1][0]
    tail = [top + (1 << (i + 1)) for i in range(n)]
    return law[:-n] + [(p, m) for p, (_, m) in zip(tail, law[-n:])]


@pytest.mark.parametrize("step,tails", [(1, 0), (7, 0), (1, 12)])
def test_direct_sums_match_the_full_dft(step, tails):
    """The kept values X[k], k <= K, of two laws at once, by the blocked sums (points
    filling their span: step 1, a span not a multiple of the block), by the baby and
    giant steps (points 7 apart), and by both (a dense run and tails doubling their gaps
    to 2^12 past it: the run blocked, the tails by the baby and giant steps, the sums
    added): each ball overlaps the full Arb DFT's and is as narrow as 25 digits."""
    from verifier.numerics import direct
    with ctx.workprec(128):
        a = _balls([(p + 3, m) for p, m in _with_tails(_law(5, 1000, step), tails)]
                   if tails else [(p + 3, m) for p, m in _law(5, 1000, step)])
        b = _balls([(p + 3, m) for p, m in _law(6, 997, step)])
        if tails:
            pts = sorted({p for p, _ in a + b})
            assert direct.dense_run(pts) == (3, 3 + 996)    # the tails left to the sparse sums
        N, K = 16384, 90
        got = direct.direct_sums([a, b], N, K)
        assert all(sorted(sums) == list(range(K + 1)) for sums in got)
        _agree_with_the_full_dft([a, b], got, N, range(K + 1))


def _uniform_dft(lo: int, span: int, N: int, k: int):
    """sum_{lo <= p < lo + span} e^{-2 pi i p k / N} / span in closed form (a geometric
    sum), at the working precision."""
    if k % N == 0:
        return acb(1)
    w = lambda m: acb(arb(-2 * (m % N)) / N).exp_pi_i()        # noqa: E731
    return w(lo * k) * (1 - w(span * k)) / (1 - w(k)) / span


@pytest.mark.parametrize("span,N,K", [(60000, 1 << 18, 50), (3000, 1 << 14, 600),
                                      (8500, 1 << 14, 2100)])
def test_blocked_sums_stay_tight_over_a_long_span(span, N, K):
    """The blocked sums of a law filling a long span (a refined lattice step's run: angles
    up to 2 pi span K / N, e^72 in the first case) contain the closed form taken at 300
    bits and are at most 1e-25 wide: Horner's rule over the blocks at the ball root w^{G k}
    multiplied the radii by |Re| + |Im| a block (about 1e31 at span 60000; [+- 1.7e5] at
    span 4e5), and so did the powers w^{v k} multiplied up in v (span 8500, K 2100: angles
    past pi / 4, 92 factors), unless restarted from exact roots (direct.chain)."""
    from verifier.numerics import direct
    lo = 5
    with ctx.workprec(128):
        seq = [(p, arb(1) / span) for p in range(lo, lo + span)]
        got = direct.blocked_sums([seq], N, K, lo, lo + span - 1)[0]
    for k in range(0, K + 1, 7):
        with ctx.workprec(300):
            ref = _uniform_dft(lo, span, N, k)
        assert got[k].contains(ref), (k, got[k], ref)
        assert got[k].real.rad() < 1e-25 and got[k].imag.rad() < 1e-25, (k, got[k])


def test_sparse_sums_stay_tight_with_many_giant_steps():
    """The baby and giant steps over scattered points with K = 4000 (126 giant steps of
    z_p^32, whose products would multiply the radii by up to sqrt 2 each: 2^63) contain the
    full Arb DFT's values and are at most 1e-25 wide."""
    from verifier.numerics import direct
    with ctx.workprec(128):
        law = _balls([(p + 3, m) for p, m in _law(8, 150, 7)])
        N, K = 16384, 4000
        got = direct.sparse_sums([law], N, K)
        _agree_with_the_full_dft([law], got, N, range(0, K + 1, 37))


def test_sparse_sums_in_blocks_of_points_are_the_whole_sums(monkeypatch):
    """The sparse sums taken over blocks of points (CHUNK_BALLS small: blocks of 2 points
    and a last block of 1, two laws, 150 and 149 points) contain the full Arb DFT's values,
    as narrow as 25 digits: every block counted once (one product of the whole matrices
    held 3.2 GB at 356029 points)."""
    from verifier.numerics import direct
    monkeypatch.setattr(direct, "CHUNK_BALLS", 2 * (direct.SPARSE_BLOCK + 2 * 4))
    with ctx.workprec(128):
        a = _balls([(p + 3, m) for p, m in _law(8, 151, 7)])
        b = _balls([(p + 3, m) for p, m in _law(9, 150, 7)])
        N, K = 16384, 100
        got = direct.sparse_sums([a, b], N, K)
        _agree_with_the_full_dft([a, b], got, N, range(K + 1))


def test_direct_sums_over_tails_in_runs_of_a_constant_stride():
    """A dense run, then tails of 300 points 4 apart and 200 points 8 apart (a refined
    Poisson step's tails, whose lattice points double their steps) and a few scattered
    points: the tails' runs go by blocked sums with strides 4 and 8, the rest by the baby
    and giant steps; every value of two laws overlaps the full Arb DFT's and is as narrow
    as 25 digits."""
    from verifier.numerics import direct
    pts = list(range(3, 1003)) + [1002 + 4 * j for j in range(1, 301)]
    pts += [pts[-1] + 8 * j for j in range(1, 201)]
    pts += [pts[-1] + 16, pts[-1] + 48, pts[-1] + 112]
    assert direct.gap_runs(pts[1000:]) == [(1006, 2202, 4), (2210, 3802, 8)]
    rng = random.Random(5)
    with ctx.workprec(128):
        a = _balls([(p, Fraction(rng.randint(1, 9), 10 ** 4)) for p in pts])
        b = _balls([(p, Fraction(rng.randint(1, 9), 10 ** 4)) for p in pts[::3]])
        N, K = 16384, 60
        got = direct.direct_sums([a, b], N, K)
        _agree_with_the_full_dft([a, b], got, N, range(K + 1))


def _exact_window(law, T, N, r0):
    """The T-fold sum's masses reduced mod N, read from r0 on (exact rationals)."""
    top = max(p for p, _ in law)
    P = fmpq_poly([0] * (top + 1))
    for p, m in law:
        P += fmpq_poly([0] * p + [fmpq(m.numerator, m.denominator)])
    Q = P ** T
    c = [fmpq(0)] * N
    for i in range(Q.degree() + 1):
        c[i % N] += Q[i]
    return [c[(r0 + j) % N] for j in range(N)]


def _exact_sums(law, T, N, r0, rho_num):
    """(prefix sums of law[j] rho^j of the exact composed law's window at 400 bits, rho at
    400 bits or None for 1, the weights rho^j)."""
    exact = _exact_window(law, T, N, r0)
    with ctx.workprec(400):
        rho = None if rho_num is None else arb(fmpq(rho_num.numerator,
                                                    rho_num.denominator)).exp()
        w = [arb(1) if rho is None else rho ** j for j in range(N)]
        pre = [arb(0)]
        for j, v in enumerate(exact):
            pre.append(pre[-1] + arb(v) * w[j])
    return pre, rho, w


def _sums_contain(sl, pre, rho, N, narrow):
    """Each prefix and suffix sum of the SpectralLaw ``sl`` (at rho) contains the exact one,
    and narrow(i, prefix) holds of its radius."""
    with ctx.workprec(sl.prec):
        rho_p = None if rho is None else +rho
        for i in (0, 1, 17, 200, 511, 512, 900, 1023, 1024):
            p, s = sl.prefix(i, rho_p), sl.suffix(i, rho_p)
            assert p.contains(pre[i]), (i, p, pre[i])
            assert s.contains(pre[N] - pre[i]), (i, s, pre[N] - pre[i])
            assert narrow(i, p), (i, p)


@pytest.mark.parametrize("rho_num", [None, Fraction(1, 50), Fraction(-1, 50)])
def test_sums_enclose_the_exact_aliased_law(rho_num):
    """Prefix and suffix sums of law[j] rho^j from the kept spectrum contain the exact sums
    of the exact composed law (aliased: its support is longer than the window), for rho 1,
    e^{1/50}, e^{-1/50}."""
    law, T, N, r0 = _law(7, 6), 400, 1024, 313
    prec = 128
    with ctx.workprec(prec):
        spectra, out = spectral.compose([([dict(_balls(law))], T)], N, prec)
        sl = spectral.SpectralLaw(N, spectra[0], out, r0, prec)
        assert sl.K < N // 4                        # a sparse case
    pre, rho, _ = _exact_sums(law, T, N, r0, rho_num)
    _sums_contain(sl, pre, rho, N,
                  lambda i, p: p.rad() < 1e-20 * (1 + abs(float(pre[i].mid()))))


@pytest.mark.parametrize("rho_num", [None, Fraction(1, 50)])
def test_sums_at_a_budget_level_enclose_the_exact_aliased_law(rho_num):
    """A left-out level from the caller's budget (2^-30 here, far above the working
    precision's 2^-138; numerics.compose.left_out_level): fewer indices kept, every one
    left out at most 2^-30 certified and charged to each sum, so the prefix and suffix sums
    still contain the exact sums of the exact composed law (and lose no more than the
    charge: out x the weights' total)."""
    law, T, N, r0 = _law(7, 6), 400, 1024, 313
    prec = 128
    with ctx.workprec(prec):
        full, _ = spectral.compose([([dict(_balls(law))], T)], N, prec)
        spectra, out = spectral.compose([([dict(_balls(law))], T)], N, prec, level=1e-9)
        assert out == arb(2) ** -30 and spectral.out_bits(prec, 1e-9) == 30
        assert max(spectra[0]) < max(full[0])           # fewer kept
        sl = spectral.SpectralLaw(N, spectra[0], out, r0, prec)
    pre, rho, w = _exact_sums(law, T, N, r0, rho_num)
    _sums_contain(sl, pre, rho, N, lambda i, p: p.rad() <= 1.01 * float(
        (out * sum(w[:i], arb(0))).upper()) + 1e-20)


def test_the_left_out_level_reads_only_a_level_below_one():
    """spectral.out_bits: a budget level in (0, 1) rounded down to a power of 2, at least
    2^-16 and never below the working precision's 2^-(prec + 10); no level, a level of 0,
    1 or more, or an infinite one leave the precision's (a level of 1 or more would keep
    nothing; math.log2 of an infinite one does not round)."""
    prec = 128
    assert spectral.out_bits(prec, 1e-9) == 30
    assert spectral.out_bits(prec, 0.3) == 16
    assert spectral.out_bits(prec, 1e-60) == prec + 10
    for level in (None, 0.0, 1.0, 2.0, math.inf):
        assert spectral.out_bits(prec, level) == prec + 10, level


def test_left_out_coefficients_are_charged():
    """Each sum carries out x (its weights' total) for the at most N left-out coefficients
    (here a bound out = 1e-6 given, far above the balls' own radii)."""
    law, T, N = _law(5, 4), 300, 2048
    with ctx.workprec(128):
        spectra, _ = spectral.compose([([dict(_balls(law))], T)], N, 128)
        out = arb("1e-6")
        sl = spectral.SpectralLaw(N, spectra[0], out, 0, 128)
        rho = arb(fmpq(1, 100)).exp()
        for i in (10, 700, 2048):
            assert sl.prefix(i).rad() >= 1e-6 * i
            assert sl.suffix(N - i).rad() >= 1e-6 * i
            assert sl.prefix(i, rho).rad() >= 1e-6 * i
            assert sl.suffix(N - i, 1 / rho).rad() >= 0.99e-6 * i * float((1 / rho ** (N - 1)).mid())


def test_poisson_brackets_agree_by_both_paths(monkeypatch):
    """sigma 1, q 1e-3, T 1e5, delta 1e-5: the sparse path (38 kept indices of 32769) and the
    full DFT path give the same bracket to 7 digits, each certified on its own."""
    from verifier.bounds import poisson
    args = (Fraction(1), Fraction(1, 1000), 100000, Fraction(1, 10 ** 5))
    poisson.clear_cache()
    sparse = poisson.epsilon_bracket(*args).epsilon
    monkeypatch.setattr(spectral, "MIN_N", 1 << 40)
    poisson.clear_cache()
    full = poisson.epsilon_bracket(*args).epsilon
    poisson.clear_cache()
    for a, b in ((sparse.lower, full.lower), (sparse.upper, full.upper)):
        assert abs(float(a) - float(b)) <= 1e-7 * float(b)


def test_a_radius_not_certified_takes_the_full_path(monkeypatch):
    """compose keeps the sparse path only where prod_i r_i^{n_i} <= 2^-(prec + 10) is
    certified in Arb: with every r_i = 0.999 (the product far above it) it declines
    (None), so the full path is taken; the float choice itself is certified (one phase and
    two phases of different spreads)."""
    with ctx.workprec(128):
        rs, out = spectral.checked_radii(128, [300], [7.0])
        assert rs[0] ** 300 <= out and rs[0] == spectral.radius(128, 300)
        rs, out = spectral.checked_radii(128, [500, 5000], [0.16, 1.0])
        assert rs[0] ** 500 * rs[1] ** 5000 <= out and rs[0] > rs[1]
    law = _balls(_law(1, 5))
    monkeypatch.setattr(spectral, "radius", lambda prec, T: arb("0.999"))
    with ctx.workprec(128):
        assert spectral.checked_radii(128, [300], [1.0]) is None
        assert spectral.compose([([dict(law)], 300)], 4096, 128) is None


@pytest.mark.parametrize("rho_num", [None, Fraction(1, 50)])
def test_sums_with_the_nyquist_frequency_kept(rho_num):
    """A full spectrum (K = N/2, the Nyquist term B_{N/2} (-1)^i kept): the prefix and
    suffix sums of an exact law of N = 64 points, from its Arb DFT, contain the exact sums
    at every i (odd and even)."""
    N = 64
    law = [(p, m) for p, m in _law(9, N)]
    with ctx.workprec(128):
        X = _dft(_balls(law), N)
        sl = spectral.SpectralLaw(N, {k: X[k] for k in range(N // 2 + 1)}, arb(0), 0, 128)
        assert sl.K == N // 2
        rho = None if rho_num is None else arb(fmpq(rho_num.numerator,
                                                    rho_num.denominator)).exp()
        for i in range(N + 1):
            with ctx.workprec(300):
                w = [arb(1) if rho is None else rho ** j for j in range(N)]
                pre = sum((arb(fmpq(m.numerator, m.denominator)) * w[j]
                           for j, (_, m) in enumerate(law[:i])), arb(0))
                suf = sum((arb(fmpq(m.numerator, m.denominator)) * w[j]
                           for j, (_, m) in enumerate(law) if j >= i), arb(0))
            assert sl.prefix(i, rho).contains(pre), (i, sl.prefix(i, rho), pre)
            assert sl.suffix(i, rho).contains(suf), (i, sl.suffix(i, rho), suf)


@pytest.mark.parametrize("case", ["sparse", "nyquist"])
def test_float_sums_for_the_scans_agree_with_the_exact_sums(case):
    """The threshold scans' float sums (SpectralLaw.float_sums: one numpy inverse FFT of the
    kept spectrum, its mirrors conjugated, then running sums both ways) are within their
    stated rounding scale of the exact prefix and suffix sums at every i, for a sparse kept
    spectrum (aliased law, T = 400) and a full one with its Nyquist term."""
    if case == "sparse":
        law, T, N, r0 = _law(7, 6), 400, 1024, 313
        with ctx.workprec(128):
            spectra, out = spectral.compose([([dict(_balls(law))], T)], N, 128)
            sl = spectral.SpectralLaw(N, spectra[0], out, r0, 128)
            exact = _exact_window(law, T, N, r0)
        exact = [fmpq(v.p, v.q) if hasattr(v, "p") else v for v in exact]
    else:
        N = 64
        law = _law(9, N)
        with ctx.workprec(128):
            X = _dft(_balls(law), N)
            sl = spectral.SpectralLaw(N, {k: X[k] for k in range(N // 2 + 1)}, arb(0), 0, 128)
        exact = [fmpq(m.numerator, m.denominator) for _, m in law]
    pre, suf, err = sl.float_sums()
    assert 0 < err < 1e-9
    total = sum(exact, fmpq(0))
    run = fmpq(0)
    for i in range(N + 1):
        assert abs(pre[i] - float(run)) <= err and abs(suf[i] - float(total - run)) <= err, i
        if i < N:
            run += exact[i]
    scan = Sums(sl, "prefix")
    assert scan.floats() is sl.float_sums()
    assert Sums(sl, "suffix").floats() is None
    assert Sums(sl, "prefix", arb(1) / 2).floats() is None


def test_the_sums_polynomial_stays_tight_at_a_high_degree():
    """spectral.Poly at z = e^{2 pi i m / N}, degree 600, coefficients decaying from 1 to
    1e-60 (a composed spectrum's shape): contains the sum taken at 400 bits and is at most
    1e-30 wide (Horner's rule at the ball z multiplies radii by |Re z| + |Im z| a step:
    about 1e80 at this degree; it returned [+- 0.43] on an engine's spectrum)."""
    import random
    from flint import acb
    rng = random.Random(3)
    N, K = 40960, 600
    with ctx.workprec(128):
        cs = [acb(arb(rng.uniform(-1, 1)), arb(rng.uniform(-1, 1))) * arb(10) ** (-k // 10)
              for k in range(K + 1)]
        P = spectral.Poly(cs, N)
        for m in (1, 7, 24472, 12345, N - 3):
            got = P.at_root(m)
            with ctx.workprec(400):
                z = acb(arb(2 * (m % N)) / N).exp_pi_i()
                ref = sum((c * z ** k for k, c in enumerate(cs)), acb(0))
            assert got.contains(ref), (m, got, ref)
            assert got.real.rad() < 1e-30 and got.imag.rad() < 1e-30, (m, got)


def test_a_long_kept_spectrum_gives_the_full_paths_bracket(monkeypatch):
    """sigma 0.8, q 1e-4, T 1e4, delta 1e-10 on the sparse path (K = 560 kept indices) gives
    the full path's bracket [0.3650117352, 0.3652226572] to 9 digits (it gave [0.28, 0.70]
    with the sums' polynomials by Horner's rule)."""
    from verifier.bounds import poisson
    args = (Fraction(8, 10), Fraction(1, 10 ** 4), 10000, Fraction(1, 10 ** 10))
    monkeypatch.setattr(spectral, "COST", 1e9)
    poisson.clear_cache()
    e = poisson.epsilon_bracket(*args).epsilon
    poisson.clear_cache()
    assert Fraction("0.36501173") <= e.lower <= Fraction("0.36501174"), e
    assert Fraction("0.36522265") <= e.upper <= Fraction("0.36522266"), e


def test_many_kept_indices_take_the_full_path():
    """More than N / KEPT_SHARE kept indices (few steps: most frequencies survive) take the
    full path, whatever the cost rule says: 3 steps of a 40-point law, N = 8192."""
    law = _law(11, 40)
    with ctx.workprec(128):
        import math
        old = spectral.COST
        try:
            spectral.COST = 1e9
            got = spectral.compose([([dict(_balls(law))], 3)], 8192, 128)
        finally:
            spectral.COST = old
    assert got is None


def test_wide_direct_sums_take_the_full_path(monkeypatch):
    """Kept values whose radii exceed 2^-(prec/2) (direct sums that lost their digits) are
    not used: compose declines, so the full path is taken."""
    law, T, N = _law(7, 6), 400, 1024
    real = spectral.direct_sums

    def wide(seqs, N_, K):
        return [{k: v + acb(arb(0, 1e-10), 0) for k, v in d.items()} for d in real(seqs, N_, K)]
    with ctx.workprec(128):
        assert spectral.compose([([dict(_balls(law))], T)], N, 128) is not None
        monkeypatch.setattr(spectral, "direct_sums", wide)
        assert spectral.compose([([dict(_balls(law))], T)], N, 128) is None


def _exact_product_window(laws_counts, N, r0):
    """The sum of independent laws (each taken its count) reduced mod N from r0 (exact)."""
    Q = fmpq_poly([1])
    for law, n in laws_counts:
        P = fmpq_poly([0] * (max(p for p, _ in law) + 1))
        for p, m in law:
            P += fmpq_poly([0] * p + [fmpq(m.numerator, m.denominator)])
        Q *= P ** n
    c = [fmpq(0)] * N
    for i in range(Q.degree() + 1):
        c[i % N] += Q[i]
    return [c[(r0 + j) % N] for j in range(N)]


def test_a_phase_on_a_sublattice_goes_free_and_the_sums_stay_exact():
    """A phase of two steps whose law lives on the multiples of 8 (|X[k]| back at 1 at
    k = N/8: no radius of its Gaussian share is ever certified, its own edge N/2) composed
    with 400 steps of a spread law: the first radii would take the full path; with that phase
    free (its radius its mass, every |X[k]| below it) the others carry the decay, few indices
    are kept, no exact |Y[k]| left out lies above the level 2^-30 (a budget's), and every
    prefix and suffix sum (that level charged) contains the exact one of the exact composed
    law."""
    a, b = _law(11, 6, step=8), _law(7, 6)
    N, r0, prec = 1024, 313, 128
    with ctx.workprec(prec):
        phases = [([dict(_balls(a))], 2), ([dict(_balls(b))], 400)]
        shifted = [[_balls(a)], [_balls(b)]]
        fls = [[spectral.float_law(p[0])] for p in shifted]
        moms = [[spectral.moments(f[0])] for f in fls]
        first = spectral._edges(shifted, fls, moms, [2, 400], N, 30, None, set())
        assert first[1][0][0] == N // 2                  # the sublattice phase's own edge
        spectra, out = spectral.compose(phases, N, prec, level=1e-9)
        assert out == arb(2) ** -30 and max(spectra[0]) < N // 8
        sl = spectral.SpectralLaw(N, spectra[0], out, r0, prec)
        Xa, Xb = _dft(_balls(a), N), _dft(_balls(b), N)
        for k in range(max(spectra[0]) + 1, N // 2 + 1):    # every left-out |Y[k]| <= out
            assert not abs(Xa[k] ** 2 * Xb[k] ** 400) > out, k
    exact = _exact_product_window([(a, 2), (b, 400)], N, r0)
    with ctx.workprec(400):
        pre = [arb(0)]
        for v in exact:
            pre.append(pre[-1] + arb(v))
    _sums_contain(sl, pre, None, N, lambda i, p: p.rad() <= 1.01 * 2.0 ** -30 * i + 1e-20)
