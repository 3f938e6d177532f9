"""Exact integer moments of one epoch's likelihood ratio and the moment (Chernoff) bounds
built on them (docs/THEORY.md section 10).

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


def moment_egf(u, n: int, exp=None) -> list:
    """[m_k / k! for k = 0..n-1], m_k = E[Y^k] = e^{k(k-1)u/2} (lognormal.raw-moments): one
    item's moments as an exponential generating function.  ``exp`` is the exponential of
    u's kind (an arb's ``.exp()`` by default); proof check renyi.moment-sum calls this
    function with a SymPy u and ``sympy.exp`` and compares every coefficient the engine
    uses with the derived moments."""
    exp = exp or (lambda x: x.exp())
    return [exp((k * (k - 1)) * u / 2) / math.factorial(k) for k in range(n)]


def truncated_power(f: arb_poly, M: int, n: int) -> arb_poly:
    """f^M truncated after z^(n-1), by binary powering with truncated products (the low
    coefficients of a product depend only on the factors' low coefficients); checked
    exactly against FLINT's exact rational powers by proof check renyi.moment-sum."""
    result = arb_poly([arb(1)])
    base, e = f, M
    while e:
        if e & 1:
            result = _mullow(result, base, n)
        e >>= 1
        if e:
            base = _mullow(base, base, n)
    return result


def moment_from_coefficient(coef, a: int, M):
    """E[(Y_1 + ... + Y_M)^a / M^a] from c = [z^a] of the M-th power: a! c / M^a (the
    coefficient form; proof check renyi.moment-sum calls it with SymPy symbols)."""
    return coef * math.factorial(a) / M ** a


def integer_moments(sigma: Fraction, M: int, amax: int, prec: int = 192) -> list:
    """[E_P0[Ybar^a] for a = 0..amax] (one epoch, Ybar the mean of M lognormals), Arb balls:
    the coefficient form a! [z^a] (sum_k m_k z^k / k!)^M / M^a (moment_egf,
    truncated_power, moment_from_coefficient)."""
    with ctx.workprec(prec):
        u = 1 / to_arb(sigma) ** 2
        n = amax + 1
        result = truncated_power(arb_poly(moment_egf(u, n)), M, n)
        cs = result.coeffs() + [arb(0)] * (n - len(result.coeffs()))
        Mq = arb(M)
        return [moment_from_coefficient(cs[a], a, Mq) for a in range(n)]


def chernoff_k(n: int) -> Fraction:
    """k_n = (n-1)^{n-1} / n^n = max_w (w - c)_+ c^{n-1} / w^n: (w - c)_+ <= k_n w^n c^{1-n}
    (Lemma B.1 of arXiv 2610.02414 v1 with t = n - 1; proof check renyi.hockey-stick-chernoff)."""
    return Fraction((n - 1) ** (n - 1), n ** n)
