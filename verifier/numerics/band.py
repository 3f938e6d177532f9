"""Block sums of a lattice law read off its sparse spectrum (docs/THEORY.md section 9,
"Band-limited body laws"; the verifier's construction).

The law of a sum of n i.i.d. lattice items on a DFT window of N points is y = IDFT_N(X^n).
For large n almost every coefficient of X^n is below 2^-(prec + 10) (``lattice.powers``
certifies it); where only a band of |S| << N coefficients remains, every aggregate the engine
reads from y -- the sums S_b = sum_{r < G} y[b G + r] and the moments R_b = sum_{r < G} r
y[b G + r] over blocks of G | N points -- is an inverse DFT of length L = N / G:

    S_b = (1 / G) IDFT_L(W)[b],   W[k'] = sum_{k = k' mod L} Y[k] D_G(k),   D_G(k) = sum_{r < G} w^{r k}
    R_b = (1 / G) IDFT_L(V)[b],   V[k'] = sum_{k = k' mod L} Y[k] E_G(k),   E_G(k) = sum_{r < G} r w^{r k}

(w = e^{2 pi i / N}, IDFT normalized by 1/L as Arb's).  Both are exact identities of the
inverse DFT; the coefficients left out (|Y[k]| <= ``out`` each, at most N of them) move each
S_b by at most out G and each R_b by at most out G (G - 1) / 2 (|D_G| <= G, |E_G| <= G (G - 1) / 2),
added to the balls' radii.  Cost: |S| kernel values and one DFT of L points per block size,
where the full inverse DFT costs N log N in ball arithmetic.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from flint import acb, arb, ctx

from verifier.core.arith import InputError
from verifier.numerics import spectral
from verifier.numerics.direct import direct_sums, root
from verifier.numerics.lattice import MAX_N

KERNEL_BITS = 64    # extra working bits for D_G, E_G near k = 0: (1 - z)^2 ~ (2 pi k / N)^2


def full_length(n: int, what: str):
    """Refuse (InputError: the caller plans a coarser lattice) a transform or sum list of n
    points past lattice.MAX_N: a band law's window may be longer (plan.BAND_MAX_N), since
    only its blocks and coarse transforms are formed."""
    if n > MAX_N:
        raise InputError(f"{what} would need {n} points (more than {MAX_N})")


@dataclass(frozen=True)
class Spectrum:
    """The DFT Y[k], k = 0 .. N/2, of a real sequence of N points, kept on the indices ``vals``
    (k -> ball); every other |Y[k]| (and its mirror N - k) is at most ``out``."""
    N: int
    vals: dict
    out: arb


@dataclass(frozen=True)
class SparseDFT:
    """X[k] of a real law on N points for the k in ``vals`` (0 .. K), every other k <= N/2
    certified |X[k]| <= r (``sparse_spectra``)."""
    N: int
    vals: dict
    r: arb

    def __getitem__(self, k: int):
        return self.vals[k]


def band_power(X, n: int, prec: int) -> Spectrum:
    """X^n kept where |X[k]| > r, r^n <= 2^-(prec + 10) checked in Arb (as ``lattice.powers``):
    the left-out |X[k]^n| <= r^n <= 2^-(prec + 10) (the balls contain the true X[k]).  X is
    the list for k = 0 .. N/2 (r: ``_radius``), or a SparseDFT, whose own certified r is
    checked."""
    eps = arb(2) ** (-(prec + 10))
    if isinstance(X, SparseDFT):
        N, zs, r = X.N, X.vals, X.r
    else:
        N, zs, r = 2 * (len(X) - 1), dict(enumerate(X)), _radius(prec, n)
    if not certified_small(r, n, eps):   # cannot happen with the margin: keep every index
        if isinstance(X, SparseDFT):
            raise ValueError("a sparse spectrum's radius r^n is not certified below "
                             "2^-(prec + 10): take the full DFT")
        return Spectrum(N, {k: z ** n for k, z in zs.items()}, arb(0))
    vals = {k: z ** n for k, z in zs.items() if not z.abs_upper() <= r}
    return Spectrum(N, vals, eps)


def _radius(prec: int, n: int) -> arb:
    """A float choice of r with r^n just below 2^-(prec + 10)."""
    return arb(math.exp(-(prec + 10) * math.log(2) / n) * (1 - 1e-9))


def certified_small(r: arb, n: int, eps: arb) -> bool:
    """Whether r^n <= eps holds (in Arb): the certificate for every left-out coefficient."""
    return bool(r ** n <= eps)


def times(A: Spectrum, X: list, total: arb) -> Spectrum:
    """A times the spectrum X (k = 0 .. N/2) of a sub-probability lattice law (the law of the
    sum with one more independent item) on A's indices: every |X[k]| is at most the law's
    total mass, ``total`` an enclosure of the sum of its (true, nonnegative) masses, so a
    left-out index of the product is at most A.out total."""
    return Spectrum(A.N, {k: v * X[k] for k, v in A.vals.items()}, arb((A.out * total).upper()))


@functools.lru_cache(maxsize=1 << 15)
def _kernels(N: int, G: int, k: int, moments: bool, prec: int):
    """(D_G(k), E_G(k)) for 0 <= k <= N/2 at ``prec`` bits (E_G None unless ``moments``);
    cached: the laws of one epoch share their kept indices and block sizes."""
    if k == 0:
        return acb(G), (acb(G * (G - 1) // 2) if moments else None)
    with ctx.workprec(prec + KERNEL_BITS):
        z, zG = root(k, N), root(k * G, N)
        d = (zG - 1) / (z - 1)
        e = (z - G * zG + (G - 1) * zG * z) / (1 - z) ** 2 if moments else None
    with ctx.workprec(prec):                       # rounded to the working precision
        return +d, (+e if moments else None)


def block_sums(Y: Spectrum, G: int, moments: bool = False):
    """([S_b], [R_b] or None), b = 0 .. N/G - 1: the sums (and first moments r) of the inverse
    DFT of ``Y`` over the blocks [b G, b G + G) of its N points (G must divide N)."""
    N = Y.N
    if N % G:
        raise ValueError(f"block size {G} does not divide the window {N}")
    L = N // G
    full_length(L, "a band law's block sums")
    W = [acb(0)] * L
    V = [acb(0)] * L if moments else None
    for k, y in Y.vals.items():
        d, e = _kernels(N, G, k, moments, ctx.prec)
        fold(W, k, N, y * d)
        if moments:
            fold(V, k, N, y * e)
    rS, rR = left_out_charge(Y.out, G)
    if not moments:
        return [z.real / G + rS for z in acb.dft(W, inverse=True)], None
    # both inverse DFTs are real sequences: one DFT of W + i V holds S in its real part and
    # R in its imaginary part (linearity; each ball contains s_b + i r_b)
    Z = acb.dft([w + v * acb(0, 1) for w, v in zip(W, V)], inverse=True)
    return [z.real / G + rS for z in Z], [z.imag / G + rR for z in Z]


def fold(W: list, k: int, N: int, a: acb):
    """Add the coefficient k (0 <= k <= N/2) of a real sequence's spectrum times its kernel,
    ``a``, to W[k mod L], and its mirror N - k (conj a: both the spectrum and the kernels are
    Hermitian) to W[(N - k) mod L]; k = 0 and k = N/2 are their own mirrors."""
    L = len(W)
    W[k % L] += a
    if 0 < k < N - k:
        W[(N - k) % L] += a.conjugate()


def left_out_charge(out: arb, G: int) -> tuple:
    """(radius of each S_b, of each R_b) for the left-out coefficients (at most N of them,
    each |Y[k]| <= out, and |D_G| <= G, |E_G| <= G (G - 1) / 2; the IDFT's 1/N)."""
    return arb(0, (out * G).upper()), arb(0, (out * G * (G - 1) / 2).upper())


def float_values(Y: Spectrum):
    """The inverse DFT of ``Y`` in numpy floats (its midpoints, the left-out coefficients as
    0): for float choices only, not a bound."""
    import numpy as np
    Z = np.zeros(Y.N, dtype=complex)
    for k, y in Y.vals.items():            # the same folding as ``values``, in floats
        fold(Z, k, Y.N, complex(float(y.real.mid()), float(y.imag.mid())))
    return np.fft.ifft(Z).real


def values(Y: Spectrum) -> list:
    """Every point of the inverse DFT (the full-length fallback: N log N), each ball widened
    by ``out`` (the left-out coefficients move a point by at most out)."""
    N = Y.N
    full_length(N, "a band law's points")
    Z = [acb(0)] * N
    for k, y in Y.vals.items():
        fold(Z, k, N, y)
    r = arb(0, Y.out.upper())
    return [z.real + r for z in acb.dft(Z, inverse=True)]


SPARSE_COST = 0.5        # the direct sums are used while points x (K + 1) <= this x N log2 N


def sparse_spectra(pts: list, others: list, N: int, n: int, prec: int):
    """(X, [X_o]): the DFTs X[k] = sum_p x_p e^{-2 pi i p k / N} of the real lattice laws
    ``pts`` and ``others`` (lists of (point, ball)) for k = 0 .. K: X a SparseDFT, every k in
    (K, N/2] certified |X[k]| <= r = _radius(prec, n) (band_power checks r^n), the others
    dicts k -> ball: the verifier's construction (docs/THEORY.md section 9, "Sparse spectra
    of the item laws").  None where the direct sums would cost more than the full DFT (the
    caller falls back to it).

    Certificate (``band_edge``): the sparse composition's second-order bound (numerics.
    spectral.edge, docs/THEORY.md section 16): |X(t)| at |t - t_m| <= pi / L from X and its
    derivative at t_m, one float DFT of L points with a certified error bound, plus
    h^2 V / 2; K covers every sample where that bound is not certified <= r.  The values at
    k <= K: direct sums over the points (direct_sums: one ball matrix product)."""
    r = _radius(prec, n)
    K = band_edge(pts, N, r)
    if len(pts) * (K + 1) > SPARSE_COST * N * math.log2(N):
        return None
    X, *rest = direct_sums([pts] + list(others), N, K)
    return (SparseDFT(N, X, r), *rest)


def band_edge(pts: list, N: int, r: arb, stride: int | None = None) -> int:
    """K <= N/2 with |X[k]| <= r certified for every k in (K, N/2] (sparse_spectra's
    certificate): numerics.spectral.edge, the second-order bound on a float coarse DFT with
    a certified error bound (docs/THEORY.md sections 16, 17; ``stride``: the coarse stride
    c, else spectral.stride's), its coarse length checked against MAX_N first.  The
    first-order bound on an Arb DFT of N/c points took M 1e5, E 10 0.41 s where this takes
    0.11 (M 1e4: 0.17 -> 0.12), every bracket the same to 12 digits."""
    law = spectral.float_law(pts)
    c = stride or spectral.stride(N, float(spectral.moments(law)[1].upper()), float(r.mid()))
    full_length(-(-N // c), "a band edge's coarse DFT")
    return spectral.edge(pts, N, r, c, law)
