"""Edgeworth refinement, Theorem 4.1 of arXiv 2605.06259 v1 (docs/THEORY.md section 6)."""
from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb, ctx


from .framework import DEMONSTRATION, PROVED, REFUTED, UNKNOWN, Outcome, check

SRC = "Theorem 4.1 of arXiv 2605.06259 v1 (docs/THEORY.md section 6)"
x = sp.Symbol("x", real=True)
eps = sp.Symbol("epsilon", positive=True)      # epsilon = 1/sqrt(n)
g, k = sp.symbols("g k", real=True)             # skewness, excess kurtosis
A, Bq = sp.symbols("A B_q", real=True)         # unknown coefficients of p_n
Phi = lambda z: (1 + sp.erf(z / sp.sqrt(2))) / 2  # noqa: E731
phi = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
He = lambda n: sp.hermite_prob(n, x)  # noqa: E731


def edgeworth_two_term():
    """Phi(x) - phi(x)[g/(6 sqrt n) He2 + k/(24 n) He3 + g^2/(72 n) He5], with 1/sqrt(n) = eps."""
    return Phi(x) - phi * (eps * g / 6 * He(2) + eps**2 * (k / 24 * He(3) + g**2 / 72 * He(5)))


def stated_p():
    c_n, d_n = g * eps / 6, k * eps**2 / 24
    return x - c_n * (x**2 - 1) - d_n * (x**3 - 3 * x) + c_n**2 * (4 * x**3 - 7 * x)


def derive_p():
    """Solve Phi(x + eps A + eps^2 B_q) = Edgeworth + O(eps^3) for A and B_q."""
    lhs = sp.series(Phi(x + eps * A + eps**2 * Bq), eps, 0, 3).removeO()
    rhs = sp.expand(edgeworth_two_term())
    eqs = [sp.simplify(sp.expand(lhs).coeff(eps, j) - rhs.coeff(eps, j)) for j in (0, 1, 2)]
    if eqs[0] != 0:
        return None
    sol = sp.solve(eqs[1:], [A, Bq], dict=True)
    if len(sol) != 1:
        return None
    return x + eps * sol[0][A] + eps**2 * sol[0][Bq]


@check("edgeworth.p_n", "The Edgeworth polynomial p_n of Theorem 4.1, derived.",
       "Phi(p_n(x)) = Phi(x) - phi(x)[g/(6 sqrt n) He2 + k/(24 n) He3 + g^2/(72 n) He5] + o(1/n) "
       "with p_n = x - c_n (x^2-1) - d_n (x^3-3x) + c_n^2 (4x^3-7x), c_n = g/(6 sqrt n), d_n = k/(24 n)",
       "x, n, g, k", ("n >= 1", "x real"),
       "exact algebra: SymPy series of Phi(x + A/sqrt(n) + B/n) in 1/sqrt(n) to second order, "
       "coefficients matched and solved for A and B, compared with the stated p_n", SRC)
def p_n_check():
    derived = derive_p()
    if derived is None:
        return Outcome(UNKNOWN, "could not solve the matching equations")
    diff = sp.simplify(sp.expand(derived - stated_p()))
    if diff == 0:
        return Outcome(PROVED, f"derived p_n = {sp.sstr(sp.collect(sp.expand(derived), eps))}")
    return Outcome(REFUTED, f"derived p_n differs from the stated one by {sp.sstr(diff)}")


# ---------------------------------------------------------------------------
# demonstration: exact F_2 by certified quadrature against Phi(p_2) and Phi
# ---------------------------------------------------------------------------
def _cdf_two(sigma: Fraction, c: arb, prec=64):
    """P(Y1 + Y2 <= c) for c > 0, certified:  int phi(x1) Phi(sigma(ln(c - Y1(x1)) + u/2)) dx1
    over x1 < x1* = sigma (ln c + u/2), split as [-L, x1* - h] (acb.integral, analytic
    integrand) plus the two cut-off pieces, each enclosed in [0, its probability mass]."""
    with ctx.workprec(prec):
        s = arb(sigma.numerator) / sigma.denominator
        u = 1 / (s * s)
        x_star = s * (c.log() + u / 2)
        h = arb("1e-6")
        Lcut = arb(12)
        sq2 = arb(2).sqrt()
        sa, ua, ca = acb(s), acb(u), acb(c)

        def f(z, analytic):
            y1 = (z / sa - ua / 2).exp()
            arg = sa * ((ca - y1).log(analytic=analytic) + ua / 2)
            return (-arg / acb(sq2)).erfc() / 2 * (-z * z / 2).exp() / acb(2 * arb.pi()).sqrt()

        core = acb.integral(f, -Lcut, x_star - h).real
        Phi_a = lambda w: (-w / sq2).erfc() / 2  # noqa: E731
        cut = (Phi_a(x_star) - Phi_a(x_star - h)) + Phi_a(-Lcut)
        return core + arb(0).union(cut)


def _demo_rows(sigma=Fraction(3), xs=(Fraction(-3, 2), Fraction(-1, 2), Fraction(1, 2), Fraction(3, 2))):
    n = 2
    with ctx.workprec(64):
        s = arb(sigma.numerator) / sigma.denominator
        uu = 1 / (s * s)
        s2 = uu.expm1()
        eu = uu.exp()
        gg = (eu + 2) * s2.sqrt()                                   # mu3 / s2^{3/2}
        kk = (eu**4 + 2 * eu**3 + 3 * eu**2 - 3) - 3                 # mu4 / s2^2 - 3
        cn, dn = gg / (6 * arb(n).sqrt()), kk / (24 * n)
    rows = []
    for xv in xs:
        with ctx.workprec(64):
            xa = arb(xv.numerator) / xv.denominator
            c = 2 + xa * (2 * s2).sqrt()
            F = _cdf_two(sigma, c)
            p = xa - cn * (xa**2 - 1) - dn * (xa**3 - 3 * xa) + cn**2 * (4 * xa**3 - 7 * xa)
            Phi_a = lambda w: (-w / arb(2).sqrt()).erfc() / 2  # noqa: E731
            rows.append({"x": str(xv), "F_2": F.str(8), "|F_2 - Phi(p_2)|": abs(F - Phi_a(p)).str(3),
                         "|F_2 - Phi|": abs(F - Phi_a(xa)).str(3)})
    return rows


@check("edgeworth.demo-n2", "Demonstration (not a proof): Edgeworth vs normal approximation at n = 2.",
       "|F_2(x) - Phi(p_2(x))| against |F_2(x) - Phi(x)|, sigma = 3, F_2 the exact CDF of the "
       "normalised sum of two lognormals", "x", ("sigma = 3", "n = 2"),
       "certified quadrature (Arb acb.integral, cut-off pieces enclosed by their probability mass); "
       "a finite sample of x: a demonstration, never a proof", SRC)
def demo_n2():
    rows = _demo_rows()
    text = "; ".join(f"x={r['x']}: |F-Phi(p)| {r['|F_2 - Phi(p_2)|']} vs |F-Phi| {r['|F_2 - Phi|']}"
                     for r in rows)
    return Outcome(DEMONSTRATION, text, {"rows": rows})
