"""Integer-order Rényi moments of the random-allocation pair, derived with SymPy
(docs/THEORY.md section 8).

With m_k = E[Y^k] (= e^{k(k-1)u/2}, ``lognormal.raw_moment_general``) and the M items
independent, the multinomial theorem gives

    E[(Y_1 + ... + Y_M)^a] = sum over partitions lambda of a into at most M parts of
        a! / prod_i lambda_i!  *  M! / ((M - len)! prod_j mult_j!)  *  prod_i m_{lambda_i}

(the partition sum of the issue) and, equivalently, the coefficient form used by the
evaluator (``verifier.bounds.moments``):

    E[(sum_j Y_j)^a] = a! [z^a] (sum_{k>=0} m_k z^k / k!)^M        (m_0 = 1).

The proof check ``renyi.moment-sum`` derives both for symbolic M (the coefficient of
(1 + g)^M = sum_j C(M, j) g^j) and compares them with the brute-force expansion of
(y_1 + ... + y_M)^a at small M, exactly.
"""
from __future__ import annotations

from functools import lru_cache
from math import factorial

import sympy as sp

M = sp.Symbol("M", positive=True, integer=True)
z = sp.Symbol("z")


def moment_symbols(a: int):
    """m_1 .. m_a as symbols (m_0 = 1)."""
    return sp.symbols(f"m1:{a + 1}", positive=True)


def partitions(a: int):
    """The partitions of a, as non-increasing tuples."""
    out = []

    def rec(rest, top, acc):
        if rest == 0:
            out.append(tuple(acc))
            return
        for p in range(min(rest, top), 0, -1):
            rec(rest - p, p, acc + [p])
    rec(a, a, [])
    return out


def falling(Mv, n: int):
    r = sp.Integer(1)
    for i in range(n):
        r = r * (Mv - i)
    return r


@lru_cache(maxsize=None)
def partition_sum(a: int, Mv=M):
    """E[(sum_j Y_j)^a] as the partition sum (docs/THEORY.md section 8), in m_k and M."""
    m = moment_symbols(a)
    total = sp.Integer(0)
    for lam in partitions(a):
        mult = {}
        for p in lam:
            mult[p] = mult.get(p, 0) + 1
        coef = sp.Integer(factorial(a))
        for p in lam:
            coef = coef / factorial(p)
        places = falling(Mv, len(lam))
        for c in mult.values():
            places = places / factorial(c)
        total += coef * places * sp.Mul(*[m[p - 1] for p in lam])
    return sp.expand(total)


@lru_cache(maxsize=None)
def coefficient_form(a: int, Mv=M):
    """a! [z^a] (1 + g)^M with g = sum_{k=1..a} m_k z^k / k!, expanded as
    sum_j C(M, j) g^j (exact for symbolic M: only j <= a contribute to z^a; the powers of g
    are truncated after z^a, which leaves the coefficient of z^a unchanged)."""
    m = moment_symbols(a)
    g = [sp.Integer(0)] + [m[k - 1] / factorial(k) for k in range(1, a + 1)]
    power = [sp.Integer(1)] + [sp.Integer(0)] * a          # g^0
    coeff = sp.Integer(0)
    for j in range(0, a + 1):
        coeff += sp.binomial(Mv, j) * power[a]
        power = [sp.expand(sum(power[i] * g[n - i] for i in range(n + 1))) for n in range(a + 1)]
    return sp.expand(sp.expand_func(coeff) * factorial(a))


def brute_force(a: int, Mv: int):
    """E[(y_1 + ... + y_M)^a] by expanding and replacing y_j^k by m_k (independence)."""
    m = moment_symbols(a)
    ys = sp.symbols(f"y1:{Mv + 1}", positive=True)
    expr = sp.Poly(sp.expand(sum(ys) ** a), *ys)
    total = sp.Integer(0)
    for exps, c in expr.terms():
        term = sp.Integer(c)
        for e in exps:
            if e:
                term *= m[e - 1]
        total += term
    return sp.expand(total)
