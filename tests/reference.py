"""Independent mpmath references (60 digits), typed from docs/THEORY.md, not generated.

These do not share code with the verifier: rho3 comes from quadrature of its
integral definition E|Y - 1|^3, the terms from the formulas of docs/THEORY.md section 3.
"""
from fractions import Fraction

import mpmath as mp

DPS = 60


def mpq(q):
    if isinstance(q, mp.mpf):
        return q
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def s2(sigma):
    return mp.expm1(1 / sigma**2)


def Phi(x):
    return mp.ncdf(x)


def rho3_quad(sigma):
    """E|Y - 1|^3 by quadrature, Y = exp(X/sigma - u/2), X ~ N(0, 1)."""
    u = 1 / sigma**2
    f = lambda x: abs(mp.exp(x / sigma - u / 2) - 1) ** 3 * mp.npdf(x)  # noqa: E731
    x0 = 1 / (2 * sigma)
    pts = sorted({x0, mp.mpf(3) / sigma, mp.mpf(0)})
    return mp.quad(f, [-mp.inf] + pts + [mp.inf])


def rho3_closed(sigma):
    u = 1 / sigma**2
    return (mp.exp(3 * u) * (1 - 2 * Phi(-5 / (2 * sigma)))
            - 3 * mp.exp(u) * (1 - 2 * Phi(-3 / (2 * sigma)))
            + 4 * (1 - 2 * Phi(-1 / (2 * sigma))))


def coef_S(sigma):
    u = 1 / sigma**2
    return mp.exp(u) * (1 + 4 * mp.exp(-3 * u)) / (-mp.expm1(-u)) ** 2


def coef_X(sigma):
    return rho3_closed(sigma) / s2(sigma) ** 2


def B():
    return mpq("0.4748")  # built at the working precision, never at import


def terms(M, sigma, coef):
    u = 1 / sigma**2
    v = s2(sigma)
    mu = mp.sqrt(v / (M - 1))
    pi, e = mp.pi, mp.e
    T1 = 2 * B() * coef * mu
    T2 = mu / mp.sqrt(2 * pi)
    T3 = (1 / (4 * mp.sqrt(2 * pi)) + (1 / (2 * mp.sqrt(2 * e * pi)))
          * (1 + mp.exp(u) / (-mp.expm1(-u)))) * mu**2
    T4 = mu**3 / (4 * mp.sqrt(2 * e * pi))
    T5 = mu**4 / (32 * mp.sqrt(2 * e * pi))
    L = mp.log(M)
    T6 = mpq("4.52") / (mpq("2.88") * mp.sqrt(L) - mpq("2.41") / mp.sqrt(L)) * mp.power(M, mp.mpf(-25) / 24)
    return [T1, T2, T3, T4, T5, T6]


def coef_of(sigma, coef):
    return coef_S(sigma) if coef == "simplified" else coef_X(sigma)


def delta_rhs(M, sigma, coef="simplified"):
    with mp.workdps(DPS):
        sigma = mpq(sigma)
        return mp.fsum(terms(mp.mpf(M), sigma, coef_of(sigma, coef)))


def conditions(M, sigma, delta, coef="simplified"):
    """Margins (>= 0 means holds) of the M_exact predicate, as in docs/THEORY.md section 3."""
    with mp.workdps(DPS):
        sigma, delta = mpq(sigma), mpq(delta)
        c = coef_of(sigma, coef)
        M = mp.mpf(M)
        d = mp.fsum(terms(M, sigma, c))
        eps = B() * c * mp.sqrt(s2(sigma) / (M - 1))
        return {
            "delta_rhs_at_most_delta": delta - d,
            "sigma_at_least_sqrt_3_over_ln_M": sigma**2 * mp.log(M) - 3,
            "validity_condition_2": mp.mpf(1) / 2 - eps - delta - Phi(-s2(sigma) / 2),
        }


def contains(interval, x) -> bool:
    """Does the verifier's exact-rational Interval contain the mpmath value x?
    (x is known to ~60 digits; allow 1e-50 relative slack for its own error.)"""
    with mp.workdps(DPS):
        lo, hi = mpq(interval.lower), mpq(interval.upper)
        slack = abs(x) * mp.mpf(10) ** -50
        return lo - slack <= x <= hi + slack


def exact_convolution(parts):
    """The law of the sum of independent lattice steps, exactly: ``parts`` [(law, n)], law
    a dict index -> Fraction, n copies of each (the laws of runs and of convolved phases)."""
    law = {0: Fraction(1)}
    for d, n in parts:
        for _ in range(n):
            new = {}
            for a, x in law.items():
                for b, y in d.items():
                    new[a + b] = new.get(a + b, 0) + x * y
            law = new
    return law
