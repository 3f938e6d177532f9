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

KERNEL_BITS = 64    # extra working bits for D_G, E_G near k = 0: (1 - z)^2 ~ (2 pi k / N)^2


@dataclass(frozen=True)
class Spectrum:
    """The DFT Y[k], k = 0 .. N/2, of a real sequence of N points, kept on the indices ``vals``
    (k -> ball); every other |Y[k]| (and its mirror N - k) is at most ``out``."""
    N: int
    vals: dict
    out: arb


def band_power(X: list, n: int, prec: int) -> Spectrum:
    """X^n (X given for k = 0 .. N/2) kept where |X[k]| > r, r^n <= 2^-(prec + 10) checked in
    Arb (as ``lattice.powers``): the left-out |X[k]^n| <= r^n <= 2^-(prec + 10) (the balls
    contain the true X[k])."""
    N = 2 * (len(X) - 1)
    eps = arb(2) ** (-(prec + 10))
    r = _radius(prec, n)
    if not certified_small(r, n, eps):   # cannot happen with the margin: keep every index
        return Spectrum(N, {k: z ** n for k, z in enumerate(X)}, arb(0))
    vals = {k: z ** n for k, z in enumerate(X) if not z.abs_upper() <= r}
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
        z = acb(arb(2 * k) / N).exp_pi_i()
        zG = acb(arb(2 * k * G % (2 * N)) / N).exp_pi_i()
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
    W = [acb(0)] * L
    V = [acb(0)] * L if moments else None
    for k, y in Y.vals.items():
        d, e = _kernels(N, G, k, moments, ctx.prec)
        fold(W, k, N, y * d)
        if moments:
            fold(V, k, N, y * e)
    rS, rR = left_out_charge(Y.out, G)
    S = [z.real / G + rS for z in acb.dft(W, inverse=True)]
    if not moments:
        return S, None
    return S, [z.real / G + rR for z in acb.dft(V, inverse=True)]


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


def values(Y: Spectrum) -> list:
    """Every point of the inverse DFT (the full-length fallback: N log N), each ball widened
    by ``out`` (the left-out coefficients move a point by at most out)."""
    N = Y.N
    Z = [acb(0)] * N
    for k, y in Y.vals.items():
        fold(Z, k, N, y)
    r = arb(0, Y.out.upper())
    return [z.real + r for z in acb.dft(Z, inverse=True)]
