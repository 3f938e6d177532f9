"""A radix-2 DFT in float64 arrays with a certified bound on its error (docs/THEORY.md
section 17, "A float DFT with a certified error bound"; the verifier's construction from
the textbook rounding model), for checks that need a few digits only (the sparse
composition's band edges, numerics.spectral): numpy does the butterflies on whole arrays,
no Python loop over balls.

The transform: y = x in bit-reversed order, then for h = 1, 2, ..., L/2 every block of 2h
becomes (a + w^j b, a - w^j b), j < h, w = e^{-2 pi i / (2h)} (iterative Cooley-Tukey,
decimation in time; the output is X[k] = sum_j x_j e^{-2 pi i j k / L} in natural order).

The bound (``error_bound``): with u = 2^-53, twiddles w_hat with |w_hat - w| <= mu
(certified in Arb, ``twiddles``), S >= sum_j |x_j| of the float input, every computed
|X_hat[k] - X[k]| <= 1.001 kappa L S + L log2(L) 2^-1070, kappa = 2 rho (1 + u) + u,
rho = 4 u (1 + mu) + mu.  Proof (section 17): every exact entry after each stage is a DFT
of a subsequence of x, so at most S in modulus; a complex product is within
sqrt(2) gamma_2 < 4u of exact relatively (Higham, Accuracy and Stability of Numerical
Algorithms, 2nd ed. 2002, Lemma 3.5; an FMA in a component removes a rounding), a sum
within u; so the worst entry error e_s obeys e_{s+1} <= 2 (1 + u) e_s + kappa S while
e_s <= S, e_0 = 0, giving e_m <= kappa S L (1 + u)^m; the last term covers underflow
(an absolute 2^-1074 an operation, six operations a butterfly entry).
"""
from __future__ import annotations

import math

import numpy as np
from flint import acb, arb, ctx

U = 2.0 ** -53
_TWIDDLES: dict = {}
_REVERSED: dict = {}


def twiddles(L: int) -> tuple:
    """(w_hat, mu): the floats nearest e^{-2 pi i j / L}, j < L/2, from Arb at 80 bits, and
    a float mu >= max_j |w_hat_j - e^{-2 pi i j / L}| (certified in Arb, rounded up);
    cached per L."""
    got = _TWIDDLES.get(L)
    if got is not None:
        return got
    re, im, mu = np.empty(L // 2), np.empty(L // 2), arb(0)
    with ctx.workprec(80):
        for j in range(L // 2):
            z = acb(arb(-2 * j) / L).exp_pi_i()          # L a power of 2: -2j/L exact
            re[j], im[j] = float(z.real), float(z.imag)
            mu = mu.max(arb((acb(re[j], im[j]) - z).abs_upper()))
    got = (re + 1j * im, float(mu.upper()) * (1 + 2.0 ** -50) + 2.0 ** -1070)
    _TWIDDLES[L] = got
    return got


def _bit_reversed(L: int) -> np.ndarray:
    """The bit-reversal permutation of range(L), cached per L and read-only (the band edges
    of ten phases took 40 of them at L 8192: 7.6 of their 25 ms)."""
    got = _REVERSED.get(L)
    if got is None:
        got = _REVERSED[L] = _reversal(L)
        got.flags.writeable = False            # shared by every caller of this length
    return got


def _reversal(L: int) -> np.ndarray:
    m = L.bit_length() - 1
    idx = np.arange(L)
    out = np.zeros(L, dtype=np.int64)
    for b in range(m):
        out |= ((idx >> b) & 1) << (m - 1 - b)
    return out


def fft(x: np.ndarray) -> np.ndarray:
    """X[k] = sum_j x_j e^{-2 pi i j k / L} (L = len(x) a power of 2, at least 2) by the
    module's butterflies, in float64: within ``error_bound`` of the exact DFT of x."""
    L = len(x)
    if L < 2 or L & (L - 1):
        raise ValueError(f"fft: length {L} is not a power of 2 >= 2")
    w, _ = twiddles(L)
    y = np.asarray(x, dtype=np.complex128)[_bit_reversed(L)]
    h = 1
    while h < L:
        y = y.reshape(-1, 2 * h)
        a, b = y[:, :h], y[:, h:] * w[::L // (2 * h)][:h]
        y = np.concatenate((a + b, a - b), axis=1)
        h *= 2
    return y.reshape(L)


def error_bound(L: int, S: float) -> float:
    """A float at least max_k |fft(x)[k] - DFT(x)[k]| for a float input x of length L with
    sum_j |x_j| <= S (the module docstring's bound, its floats rounded up by a relative
    2^-40, far above their own roundings)."""
    _, mu = twiddles(L)
    rho = 4 * U * (1 + mu) + mu
    kappa = 2 * rho * (1 + U) + U
    m = L.bit_length() - 1
    return (1.001 * kappa * L * S + L * m * 2.0 ** -1070) * (1 + 2.0 ** -40)


def l1_upper(x: np.ndarray) -> float:
    """A float at least sum_j |x_j| (complex x): the float sum of |Re x_j| + |Im x_j| (at
    least |x_j|; the absolute values exact), within (2n) u of exact relatively (any order
    of summation), rounded up by a relative 2^-40 and a count of 2^-1070."""
    n = len(x)
    if n * 2.0 ** -51 >= 2.0 ** -20:
        return math.inf
    s = float(np.abs(x.real).sum() + np.abs(x.imag).sum())
    return s * (1 + (n + 4) * 2.0 ** -51) * (1 + 2.0 ** -40) + n * 2.0 ** -1070


def abs_upper(z: np.ndarray) -> np.ndarray:
    """Floats at least |z| elementwise: sqrt(re^2 + im^2) in floats (the squares and the
    sum each within u, the square root correctly rounded: IEEE 754), raised by a relative
    2^-48 and an absolute 2^-500 (squares that underflow)."""
    return np.sqrt(z.real * z.real + z.imag * z.imag) * (1 + 2.0 ** -48) + 2.0 ** -500
