"""Lognormal facts of Appendix D.1 (arXiv 2605.06259 v1), derived with SymPy.

Every expression here is *derived* from its definition (a Gaussian integral,
an expansion, a split of |t|^3) and then compared with the statement printed
in ``docs/THEORY.md`` section 2.  The comparison is exact algebra: a
``DerivationError`` is raised if SymPy cannot reduce the difference to 0.
The numeric evaluators in ``verifier/symbolic/derived.py`` are generated from the
expressions returned here (see ``verifier.symbolic.codegen``).

Notation (docs/THEORY.md section 1): X ~ N(0, 1), Y = exp(X/sigma - u/2), u = 1/sigma^2,
s2 = e^u - 1 (written ``expm1(u)`` so that the generated code does not cancel).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.codegen.cfunctions import expm1

sigma = sp.Symbol("sigma", positive=True)
x = sp.Symbol("x", real=True)
b = sp.Symbol("b", real=True)
c = sp.Symbol("c", real=True)
k = sp.Symbol("k", integer=True, nonnegative=True)

u = 1 / sigma**2
s2 = expm1(u)  # lognormal variance e^u - 1 (docs/THEORY.md section 2)
phi = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)  # standard normal density


class DerivationError(AssertionError):
    """A derived expression did not match the statement it should reproduce."""


def Phi(z):
    """Standard normal CDF as a SymPy expression."""
    return (1 + sp.erf(z / sp.sqrt(2))) / 2


def is_zero(expr) -> bool:
    """Exact check that ``expr`` simplifies to 0 (False means 'not shown')."""
    e = sp.expand_func(expr).rewrite(sp.exp)
    e = sp.simplify(sp.expand(e))
    return e == 0


def require_equal(derived, stated, what: str):
    if not is_zero(derived - stated):
        raise DerivationError(f"{what}: derived {derived} != stated {stated}")
    return derived


def Y(xx=x):
    """The likelihood-ratio summand Y = exp(X/sigma - u/2) (docs/THEORY.md section 1)."""
    return sp.exp(xx / sigma - u / 2)


@lru_cache(maxsize=None)
def raw_moment_general():
    """E[Y^k] = e^{k(k-1)u/2}, derived as a Gaussian integral for symbolic k."""
    derived = sp.simplify(
        sp.integrate(sp.exp(k * x / sigma - k * u / 2) * phi, (x, -sp.oo, sp.oo))
    )
    return require_equal(derived, sp.exp(k * (k - 1) * u / 2), "E[Y^k]")


def raw_moment(n: int):
    """E[Y^n] for a concrete n, instantiated from the general derivation."""
    return raw_moment_general().subs(k, n)


@lru_cache(maxsize=None)
def partial_moment_general():
    """int_{-inf}^{b} e^{kx/sigma - k c u/2} phi(x) dx = Phi(b - k/sigma) e^{k(k-c)u/2}.

    Derived by SymPy integration, then compared with docs/THEORY.md section 2.
    """
    derived = sp.integrate(sp.exp(k * x / sigma - k * c * u / 2) * phi, (x, -sp.oo, b))
    stated = Phi(b - k / sigma) * sp.exp(k * (k - c) * u / 2)
    require_equal(derived, stated, "partial moment")
    return stated


def truncated_moment(n: int, bound):
    """E[Y^n 1{X < bound}] from the partial-moment identity with c = 1."""
    return partial_moment_general().subs({k: n, c: 1, b: bound})


@lru_cache(maxsize=None)
def upper_partial_moment(n: int):
    """E[Y^n 1{X >= b}] = E[Y^n] - E[Y^n 1{X < b}], stated in the complement form
    e^{n(n-1)u/2} erfc((b - n/sigma)/sqrt 2)/2 (no cancellation in the upper tail), which the
    exact-TV cells use (docs/THEORY.md section 2); checked equal to the derived difference."""
    derived = raw_moment(n) - truncated_moment(n, b)
    stated = sp.exp(n * (n - 1) * u / 2) * sp.erfc((b - n / sigma) / sp.sqrt(2)) / 2
    require_equal(derived, stated.rewrite(sp.erf), f"upper partial moment, n = {n}")
    return stated


@lru_cache(maxsize=None)
def central_moments():
    """mu_n = E[(Y - 1)^n] for n = 2, 3, 4, expanded through E[Y^k].

    Returns a dict n -> expression and checks the stated closed forms
    mu2 = s2, mu3 = (e^u + 2) s2^2, mu4 = (e^{4u} + 2e^{3u} + 3e^{2u} - 3) s2^2.
    """
    assert is_zero(raw_moment(1) - 1), "E[Y] = 1"
    out = {}
    for n in (2, 3, 4):
        out[n] = sp.expand(
            sum(sp.binomial(n, j) * (-1) ** (n - j) * raw_moment(j) for j in range(n + 1))
        )
    eu = sp.exp(u)
    stated = {
        2: s2,
        3: (eu + 2) * s2**2,
        4: (sp.exp(4 * u) + 2 * sp.exp(3 * u) + 3 * sp.exp(2 * u) - 3) * s2**2,
    }
    for n in (2, 3, 4):
        require_equal(out[n], stated[n], f"mu{n}")
    return {n: stated[n] for n in (2, 3, 4)}


@lru_cache(maxsize=None)
def y_below_one_threshold():
    """Y < 1 <=> X < 1/(2 sigma): log Y = X/sigma - u/2 is increasing in X."""
    logY = x / sigma - u / 2
    roots = sp.solve(sp.Eq(logY, 0), x)
    if len(roots) != 1 or not sp.diff(logY, x).is_positive:
        raise DerivationError("log Y is not a single increasing crossing")
    return roots[0]


@lru_cache(maxsize=None)
def rho3():
    """rho3 = E|Y - 1|^3, Proposition D.2 of arXiv 2605.06259 v1.

    Derivation: |t|^3 = t^3 + 2(-t)^3 1{t<0}; Y < 1 iff X < 1/(2 sigma);
    expand (1 - Y)^3 = sum_k C(3,k)(-1)^k Y^k and integrate each power with
    the partial-moment identity.  The result is compared with the closed
    form of docs/THEORY.md section 2, which is returned in erf form
    (1 - 2 Phi(-a) = erf(a / sqrt 2)).
    """
    x0 = y_below_one_threshold()
    mu3 = central_moments()[3]
    lower_part = sum(
        sp.binomial(3, j) * (-1) ** j * truncated_moment(j, x0) for j in range(4)
    )
    derived = mu3 + 2 * lower_part
    eu = sp.exp(u)
    stated = (
        sp.exp(3 * u) * sp.erf(5 / (2 * sp.sqrt(2) * sigma))
        - 3 * eu * sp.erf(3 / (2 * sp.sqrt(2) * sigma))
        + 4 * sp.erf(1 / (2 * sp.sqrt(2) * sigma))
    )
    require_equal(derived, stated, "rho3 closed form")
    return stated  # erf form: no mu3 expansion, less cancellation


@lru_cache(maxsize=None)
def rho3_simplified_bound():
    """Simplification (22): rho3 <= e^{3u} + 4 (the bound whose ratio is coef_S).

    mu3 = e^{3u} - 3e^u + 2 and 0 <= (1 - Y)^3 <= 1 on {Y < 1}, so
    rho3 <= mu3 + 2 P(Y < 1) <= e^{3u} - 3 e^u + 4 <= e^{3u} + 4.
    The inequality itself is a proof check (proofs_checks); here we derive
    the expression mu3 + 2 and return the bound used by the paper.
    """
    mu3 = central_moments()[3]
    require_equal(mu3, sp.exp(3 * u) - 3 * sp.exp(u) + 2, "mu3 expanded")
    return sp.exp(3 * u) + 4


@lru_cache(maxsize=None)
def coef_simplified():
    """coef_S(sigma) = (e^{3u} + 4) / s2^2 = e^u (1 + 4e^{-3u}) / (1 - e^{-u})^2."""
    expr = rho3_simplified_bound() / s2**2
    stated = sp.exp(u) * (1 + 4 * sp.exp(-3 * u)) / (1 - sp.exp(-u)) ** 2
    require_equal(expr, stated, "coef_S")
    return expr  # (e^{3u} + 4) / expm1(u)^2: no cancellation at large sigma


@lru_cache(maxsize=None)
def coef_rho3():
    """coef_X(sigma) = rho3 / s2^2 (Section 3.1: the exact factor)."""
    return rho3() / s2**2
