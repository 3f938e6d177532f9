"""The float DFT with a certified error bound (verifier/numerics/float_dft.py; docs/THEORY.md
section 17) and the band edge built on it (numerics.spectral.edge): the float transform
within its bound of Arb's DFT of the same floats, the twiddles' certified error, the
bound's terms each needed, and the edge's charge of the masses' radii."""
from __future__ import annotations

import numpy as np
import pytest
from flint import acb, arb, ctx, fmpq
from hypothesis import given, settings, strategies as st

from verifier.numerics import float_dft as FD
from verifier.numerics import spectral


def _arb_dft(x: np.ndarray) -> list:
    with ctx.workprec(200):
        return acb.dft([acb(float(z.real), float(z.imag)) for z in x])


@pytest.mark.parametrize("L", [2, 4, 64, 1024])
def test_fft_is_the_dft(L):
    """The butterflies give the DFT in natural order (numpy's FFT as a float reference)."""
    rng = np.random.default_rng(L)
    x = rng.random(L) + 1j * rng.random(L)
    assert np.allclose(FD.fft(x), np.fft.fft(x), rtol=0, atol=1e-12 * L)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 11), st.integers(0, 2 ** 32 - 1), st.sampled_from(["uniform", "spread"]))
def test_fft_lies_within_its_bound_of_the_exact_dft(m, seed, kind):
    """Every computed X_hat[k] within error_bound(L, S) of the exact DFT of the same floats
    (Arb at 200 bits, balls far narrower than the bound), masses of every scale."""
    L = 1 << m
    rng = np.random.default_rng(seed)
    x = rng.random(L) - 0.5 + 1j * (rng.random(L) - 0.5)
    if kind == "spread":
        x *= 10.0 ** rng.integers(-30, 5, L)
    got, exact = FD.fft(x), _arb_dft(x)
    bound = FD.error_bound(L, FD.l1_upper(x))
    for k in range(L):
        d = (acb(float(got[k].real), float(got[k].imag)) - exact[k]).abs_upper()
        assert d <= bound, (k, d, bound)


def test_the_bound_is_not_loose_by_more_than_its_design():
    """The bound exceeds the observed error (else a term could be dropped unseen) but by
    less than a factor 1e9 at L = 1024 (kappa L S: about 1e-12 S)."""
    rng = np.random.default_rng(7)
    x = rng.random(1024) + 1j * rng.random(1024)
    got, exact = FD.fft(x), _arb_dft(x)
    worst = max(float((acb(float(g.real), float(g.imag)) - e).abs_upper())
                for g, e in zip(got, exact))
    bound = FD.error_bound(1024, FD.l1_upper(x))
    assert 0 < worst <= bound < 1e9 * worst


@pytest.mark.parametrize("L", [8, 256, 4096])
def test_twiddles_error_is_certified(L):
    """mu is at least every twiddle's distance from e^{-2 pi i j / L} (200 bits)."""
    w, mu = FD.twiddles(L)
    with ctx.workprec(200):
        worst = max((acb(float(z.real), float(z.imag)) - acb(arb(-2 * j) / L).exp_pi_i())
                    .abs_upper() for j, z in enumerate(w))
    assert worst > 0
    assert worst <= mu < 1e-15


def test_l1_and_abs_bounds_are_upper_bounds():
    rng = np.random.default_rng(3)
    x = (rng.random(500) - 0.5) * 1e-3 + 1j * (rng.random(500) - 0.5)
    with ctx.workprec(200):
        exact = sum((acb(float(z.real), float(z.imag)).abs_upper() for z in x), arb(0))
        assert exact <= FD.l1_upper(x)
        for z, up in zip(x, FD.abs_upper(x)):
            assert acb(float(z.real), float(z.imag)).abs_upper() <= up


def test_fft_refuses_a_length_not_a_power_of_two():
    with pytest.raises(ValueError, match="power of 2"):
        FD.fft(np.zeros(12, dtype=complex))


def test_edge_charges_the_masses_radii():
    """Masses (3/4, 1/4) +- 1e-6: |X(pi)| = 1/2 at the midpoints but 1/2 + 2e-6 for the law
    (3/4 + 1e-6, 1/4 - 1e-6) inside the balls; with r = 1/2 + 1e-6 the midpoints' bound
    alone (about 1/2 + 1e-7) would certify the frequency N/2, where that law exceeds r.
    The edge must keep it (K = N/2)."""
    eps = fmpq(1, 10 ** 6)
    with ctx.workprec(128):
        pts = [(0, arb(fmpq(3, 4), eps)), (1, arb(fmpq(1, 4), eps))]
        r = arb(fmpq(1, 2) + eps)
        N, c = 1 << 16, 16
        K = spectral.edge(pts, N, r, c)
        inside = [(0, arb(fmpq(3, 4) + eps)), (1, arb(fmpq(1, 4) - eps))]
        Xpi = sum((v * (-1) ** p for p, v in inside), arb(0))
        assert Xpi > r                      # the law in the balls above r at k = N/2
        assert K == N // 2
        exact = [(0, arb(fmpq(3, 4))), (1, arb(fmpq(1, 4)))]
        assert spectral.edge(exact, N, r, c) < N // 2   # exact masses: certified there
