"""Exact integer moments of one epoch's likelihood ratio and the moment (Chernoff) bounds
built on them (issue #14; docs/THEORY.md section 10).

``integer_moments``: E_P0[Ybar^a] for a = 0..A at once, from the coefficient form

    E[(sum_j Y_j)^a] = a! [z^a] (sum_{k=0..A} m_k z^k / k!)^M,     m_k = E[Y^k] = e^{k(k-1)u/2}

(``verifier.symbolic.renyi``: equal to the partition sum of the issue; proof check
``renyi.moment-sum``), the M-th power of a polynomial truncated after z^A by binary
powering: O(A^2 log M) ball operations (FLINT's arb_poly products), all terms positive
(no cancellation).  The one-epoch Rényi divergence of the remove direction is then
D_a(P1 || P0) = log(E_P0[Ybar^a]) / (a - 1).
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, arb_poly, ctx

from verifier.core.arith import to_arb


def _mullow(p: arb_poly, q: arb_poly, n: int) -> arb_poly:
    r = p * q
    cs = r.coeffs()
    return arb_poly(cs[:n]) if len(cs) > n else r


def integer_moments(sigma: Fraction, M: int, amax: int, prec: int = 192) -> list:
    """[E_P0[Ybar^a] for a = 0..amax] (one epoch, Ybar the mean of M lognormals), Arb balls."""
    with ctx.workprec(prec):
        u = 1 / to_arb(sigma) ** 2
        n = amax + 1
        f = arb_poly([((k * (k - 1)) * u / 2).exp() / _fact(k) for k in range(n)])
        result = arb_poly([arb(1)])
        base, e = f, M
        while e:
            if e & 1:
                result = _mullow(result, base, n)
            e >>= 1
            if e:
                base = _mullow(base, base, n)
        cs = result.coeffs() + [arb(0)] * (n - len(result.coeffs()))
        Mq = arb(M)
        return [cs[a] * _fact(a) / Mq ** a for a in range(n)]


def _fact(k: int) -> arb:
    return arb(math.factorial(k))     # exact integer, rounded to the working precision


def chernoff_k(n: int) -> Fraction:
    """k_n = (n-1)^{n-1} / n^n = max_w (w - c)_+ c^{n-1} / w^n: (w - c)_+ <= k_n w^n c^{1-n}
    (Lemma B.1 of arXiv 2610.02414 v1 with t = n - 1; proof check renyi.hockey-stick-chernoff)."""
    return Fraction((n - 1) ** (n - 1), n ** n)
