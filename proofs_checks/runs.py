"""The composition of a run's phases (docs/THEORY.md section 15): the charges a run sums over
its steps and the Gaussian pair a run of Gaussian steps is, checked on the engine's own
functions (numerics/convolve.py, bounds/runs.py) evaluated on SymPy symbols."""
from __future__ import annotations

import itertools

import sympy as sp

from .framework import PROVED, REFUTED, Outcome, all_proved, bound, check, cite, identity

SRC = "docs/THEORY.md section 15 (the verifier's construction)"
COMPOSE = ("Zhu, Dong & Wang, Optimal accounting of differential privacy via characteristic "
           "function, AISTATS 2022, arXiv 2106.08567 v3, Theorem 10")
COUNTS = (1, 2, 3, 5)          # the phases' counts checked, every combination of 1..3 phases


def _nonnegative_coefficients(expr, symbols) -> Outcome:
    """expr >= 0 for all symbols >= 0: proved when its expansion has no negative
    coefficient (a polynomial with nonnegative coefficients in nonnegative variables)."""
    poly = sp.Poly(sp.expand(expr), *symbols)
    bad = [c for c in poly.coeffs() if c < 0]
    if bad:
        return Outcome(REFUTED, f"a negative coefficient {bad[0]} in {sp.sstr(poly.as_expr())[:120]}")
    return Outcome(PROVED, f"{len(poly.coeffs())} coefficients, all >= 0")


@check("runs.alias-excess",
       "A run's aliasing excess bounds the composed excess of all its steps.",
       "for steps whose computed masses exceed the true ones (total at most 1) by at most a_i "
       "in all, n_i steps of each, the composed excess is at most prod_i (1 + a_i)^{n_i} - 1, "
       "and alias_excess([(a_i, n_i)]) is at least that",
       "a_i >= 0, n_i", ("a_i >= 0", "n_i >= 1 integers"),
       "exact algebra on the engine's own function: alias_excess evaluated on symbols a_1..a_k "
       f"(k = 1, 2, 3 phases, every count in {COUNTS}) minus (prod (1 + a_i)^n_i - 1) expands "
       "to a polynomial with nonnegative coefficients; for other counts the telescoping sum "
       "sum_j a_j prod_{l < j} (1 + a_l) <= (sum_j a_j) prod_l (1 + a_l) (section 15)", SRC,
       binds=("verifier.numerics.convolve:alias_excess",))
def alias_excess():
    f = bound("verifier.numerics.convolve:alias_excess")
    parts = []
    for k in (1, 2, 3):
        a = sp.symbols(f"a1:{k + 1}", nonnegative=True)
        for ns in itertools.product(COUNTS, repeat=k):
            got = f(list(zip(a, ns)))
            need = sp.Mul(*[(1 + ai) ** n for ai, n in zip(a, ns)]) - 1
            parts.append((f"counts {ns}", _nonnegative_coefficients(got - need, a)))
    return all_proved(parts)


@check("runs.union-charge",
       "A run's union-bound charge counts every step of every phase.",
       "what the steps' upper laws leave out (an atom at L = +inf of mass c_i per step) adds at "
       "most sum_i n_i c_i to the composed profile",
       "c_i, n_i", ("c_i >= 0", "n_i >= 1 integers"),
       "exact algebra on the engine's own function: union_charge on symbols equals sum_i n_i c_i "
       f"(1..3 phases, counts in {COUNTS}); the union bound over the steps cited", SRC,
       binds=("verifier.numerics.convolve:union_charge",))
def union_charge():
    f = bound("verifier.numerics.convolve:union_charge")
    parts = []
    for k in (1, 2, 3):
        c = sp.symbols(f"c1:{k + 1}", nonnegative=True)
        for ns in itertools.product(COUNTS, repeat=k):
            parts.append((f"counts {ns}", identity(f(list(zip(c, ns))),
                                                   sum(n * ci for ci, n in zip(c, ns)), [])))
    parts.append(("union bound over the steps", cite(
        "E[f(prod L); some step's loss at +inf] <= sum_t P(step t at +inf) for f <= prod L "
        "with E L_t = 1", COMPOSE)))
    return all_proved(parts)


@check("runs.gaussian-composition",
       "A run of Gaussian steps is the Gaussian pair at mu^2 = sum_i n_i / sigma_i^2.",
       "the privacy loss of N(1, s^2) against N(0, s^2) at x is x/s^2 - 1/(2 s^2); summed over "
       "independent steps it is normal with variance mu^2 = sum_i n_i/s_i^2 and mean -mu^2/2 "
       "under the null (and +mu^2/2 under the alternative), the privacy loss of N(mu, 1) "
       "against N(0, 1); the engine's mu_squared is that sum",
       "s_i, n_i", ("s_i > 0", "n_i >= 1 integers"),
       "exact algebra: the loss's mean and variance under both hypotheses integrated by SymPy "
       "for one step, summed over 1..3 phases and compared with mu_squared on symbols; a sum "
       "of independent normals is normal (cited)", SRC,
       binds=("verifier.bounds.gaussian:mu_squared",))
def gaussian_composition():
    f = bound("verifier.bounds.gaussian:mu_squared")
    x = sp.symbols("x", real=True)
    t = sp.symbols("t", positive=True)
    loss = x / t ** 2 - 1 / (2 * t ** 2)           # one step at noise t, integrated once
    one = {}
    for mu in (0, 1):
        dens = sp.exp(-(x - mu) ** 2 / (2 * t ** 2)) / (t * sp.sqrt(2 * sp.pi))
        m = sp.simplify(sp.integrate(loss * dens, (x, -sp.oo, sp.oo)))
        v = sp.simplify(sp.integrate((loss - m) ** 2 * dens, (x, -sp.oo, sp.oo)))
        one[mu] = (m, v)
    parts = [("one step: variance equal under both", identity(one[0][1], one[1][1], []))]
    for k in (1, 2, 3):
        s = sp.symbols(f"s1:{k + 1}", positive=True)
        n = sp.symbols(f"n1:{k + 1}", positive=True, integer=True)
        var = sum(ni * one[0][1].subs(t, si) for si, ni in zip(s, n))
        mean0 = sum(ni * one[0][0].subs(t, si) for si, ni in zip(s, n))
        mean1 = sum(ni * one[1][0].subs(t, si) for si, ni in zip(s, n))
        mu2 = f(list(zip(s, n)))
        parts += [(f"{k} phases: variance", identity(var, mu2, [])),
                  (f"{k} phases: null mean", identity(mean0, -mu2 / 2, [])),
                  (f"{k} phases: alternative mean", identity(mean1, mu2 / 2, []))]
    parts.append(("a sum of independent normals is normal", cite(
        "the characteristic function of a sum of independent variables is the product",
        "any probability text, e.g. Billingsley, Probability and Measure, Section 26")))
    return all_proved(parts)
