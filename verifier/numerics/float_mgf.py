"""A certified upper bound of a law's moment generating function sum_k v_k e^{theta k},
computed on float64 arrays (docs/THEORY.md section 17, "A float mgf with a certified upper
bound"; the verifier's construction from the textbook rounding model): the Chernoff
masses of the composition's windows (numerics.convolve) need an upper bound of a few
digits at many (law, theta) pairs, which Arb's ball loop paid at one exp a support point.

The bound (``mgf_upper``): with k* the support point where theta k is largest and
e_k = |k - k*| >= 0, e^{theta k} = e^{theta k*} r^{e_k}, r = e^{-|theta|} <= 1.  A float
r_hat >= r (Arb, rounded up), then r_hat^{e_k} by binary powering on the whole array (the
squares r_hat^{2^j}, the product of those of e_k's bits), times the float v_hat_k >= v_k,
summed by numpy.  In the standard model (u = 2^-53, every product and sum of normal
floats within a factor 1 + u of exact; Higham, Accuracy and Stability of Numerical
Algorithms, 2nd ed. 2002, section 2.2): the square r_hat^{2^j} is computed within
(1 - u)^{2^(j+1)} of exact from below, so a term's power within (1 - u)^{2 e_k + 64}, its
product with v_hat within one more factor, the sum of n nonnegative terms within
(1 - u)^{n - 1} in any order of summation; hence
    sum_k v_k r^{e_k} <= (S_hat + n 2^-1074) (1 - u)^{-N} + X (1 - u)^{-n} 2^-1000,
N = 2 max e_k + n + 66, where the terms with e_k |theta| > 700 (decided exactly in
rationals) are not powered but bounded by v_k e^{-700} <= v_k 2^-1000 (X their float sum),
so every power actually computed is at least e^{-700} (1 - u)^N > 2^-1022, a normal float,
and the products with v_hat lose at most 2^-1074 each to underflow.  The result is that
float bound times e^{theta k*} in Arb, rounded up: a ball whose upper end bounds the mgf.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, ctx

from verifier.core.arith import to_arb

U = 2.0 ** -53
FAR = 700                    # e_k |theta| > FAR: the term is bounded by v_k 2^FAR_LOG2
FAR_LOG2 = -1000             # e^-700 < 2^-1009
UNDERFLOW_LOG2 = -1074       # a product of normal floats that underflows loses at most this


_ARRAYS: dict = {}           # id(law) -> (law, arrays): the law held, so its id stays its own


def _up(x: arb) -> float:
    """A float >= the upper end of the ball x (float() rounds to nearest: one step up)."""
    return float(np.nextafter(float(x.upper()), np.inf))


def law_arrays(sub: dict) -> tuple:
    """(keys as int64, v_hat >= the upper end of each ball, the key list): a law's floats
    once for many thetas (kept for the last 64 laws asked, by identity)."""
    got = _ARRAYS.get(id(sub))
    if got is not None and got[0] is sub and len(got[1][2]) == len(sub):
        return got[1]
    ks = sorted(sub)
    ups = np.nextafter(np.array([float(sub[k].upper()) for k in ks], dtype=float), np.inf)
    out = (np.array(ks, dtype=np.int64), np.maximum(ups, 0.0), ks)
    if len(_ARRAYS) >= 64:
        _ARRAYS.pop(next(iter(_ARRAYS)))
    _ARRAYS[id(sub)] = (sub, out)
    return out


def top(ks: list, theta: Fraction) -> int:
    """The support point where theta k is largest (ks increasing): r^{e_k} <= 1 beside it."""
    return ks[-1] if theta >= 0 else ks[0]


def mgf_upper(sub: dict, theta: Fraction) -> arb:
    """A ball whose upper end is >= sum_k v_k e^{theta k} (module docstring), v_k the law's
    balls (nonnegative), theta exact."""
    keys, v, ks = law_arrays(sub)
    if not ks:
        return arb(0)
    return arrays_upper(keys, v, top(ks, theta), theta)


def pairs_upper(pts, theta: Fraction) -> arb:
    """``mgf_upper`` of a law given as (point, ball) pairs (integer points, any order; no
    cache: the Chernoff constants of lattice.chernoff_c0)."""
    if not pts:
        return arb(0)
    keys = np.fromiter((p for p, _ in pts), dtype=np.int64, count=len(pts))
    ups = np.fromiter((float(b.upper()) for _, b in pts), dtype=float, count=len(pts))
    v = np.maximum(np.nextafter(ups, np.inf), 0.0)
    return arrays_upper(keys, v, int(keys.max() if theta >= 0 else keys.min()), theta)


def arrays_upper(keys, v, star: int, theta: Fraction) -> arb:
    """The bound of the module docstring for the points ``keys`` (int64) with float upper
    bounds ``v`` of their masses, ``star`` the point where theta k is largest."""
    n = len(keys)
    e = np.abs(keys - star)
    at = abs(theta)
    far = np.zeros(n, dtype=bool) if at == 0 else e >= int(FAR / at) + 1
    # e >= floor(FAR / |theta|) + 1 > FAR / |theta|: e |theta| > FAR exactly
    with ctx.workprec(64):
        r_hat = min(_up((-to_arb(at)).exp()), 1.0)
    near = ~far
    emax = int(e[near].max()) if near.any() else 0
    power = np.ones(n)
    base, bit = r_hat, 0
    while (emax >> bit) > 0:
        sel = near & (((e >> bit) & 1) == 1)
        power[sel] *= base
        base *= base
        bit += 1
    s_hat = float(np.sum(v[near] * power[near]))
    x_far = float(np.sum(v[far]))
    N = 2 * emax + n + 66
    with ctx.workprec(64):
        bound = ((arb(s_hat) + n * arb(2) ** UNDERFLOW_LOG2) * (1 - arb(U)) ** (-N)
                 + arb(x_far) * (1 - arb(U)) ** (-n) * arb(2) ** FAR_LOG2)
        return arb(((to_arb(theta) * star).exp() * bound).upper())
