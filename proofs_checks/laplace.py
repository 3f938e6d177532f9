"""The identities behind the Laplace engine of real-order Rényi moments
(verifier/bounds/laplace.py; docs/THEORY.md section 10b)."""
from __future__ import annotations

import sympy as sp

from .framework import PROVED, REFUTED, Outcome, all_proved, bound, check, cite, identity

SRC = "docs/THEORY.md section 10b (the verifier's construction)"
z, w, t, x, u, c = sp.symbols("z w t x u c", positive=True)
j, i, r = sp.symbols("j i r", positive=True, integer=True)


def _Y(v):
    return sp.exp(sp.sqrt(u) * v - u / 2)


@check("laplace.tilting", "Tilting a lognormal by its j-th power scales it by e^{ju}, and the "
       "engine finds s e^{ju} j r steps up its lattice.",
       "phi(z) Y(z)^j = e^{j(j-1)u/2} phi(z - j sqrt(u)) and Y(w + j sqrt(u)) = e^{ju} Y(w), so "
       "E[Y^j e^{-sY}] = m_j L(s e^{ju}); on the lattice s_k = s_0 e^{k u/r} (lattice_step) "
       "s_i e^{ju} = s_{tilted_index(i, j, r)}",
       "z, w, u, j, i, r",
       ("u > 0", "j >= 0 an integer", "r >= 1 an integer"),
       "SymPy reduces both integrand identities to 0 (symbolic j, u); the substitution "
       "z = w + j sqrt(u) is a translation of the real line; the engine's lattice_step and "
       "tilted_index are called with SymPy symbols and e^{step tilted_index} = e^{step i} e^{ju} "
       "is reduced to 0; the engine's moment_egf is the one proof check renyi.moment-sum binds",
       SRC, binds=("verifier.bounds.laplace:tilted_index", "verifier.bounds.laplace:lattice_step",
                   "verifier.bounds.laplace:moment_egf"))
def tilting():
    phi = lambda v: sp.exp(-v ** 2 / 2)
    parts = [("phi Y^j = m_j phi(. - j sqrt u)",
              identity(phi(z) * _Y(z) ** j, sp.exp(j * (j - 1) * u / 2) * phi(z - j * sp.sqrt(u)), [])),
             ("Y(w + j sqrt u) = e^{ju} Y(w)", identity(_Y(w + j * sp.sqrt(u)), sp.exp(j * u) * _Y(w), []))]
    step = bound("verifier.bounds.laplace:lattice_step")(u, r)
    k = bound("verifier.bounds.laplace:tilted_index")(i, j, r)
    parts.append(("engine: s_i e^{ju} is the lattice point tilted_index(i, j, r)",
                  identity(sp.exp(step * k), sp.exp(step * i) * sp.exp(j * u), [])))
    from verifier.bounds import moments
    same = bound("verifier.bounds.laplace:moment_egf") is moments.moment_egf
    parts.append(("engine: the coefficients m_j / j! are moments.moment_egf",
                  Outcome(PROVED, "the same function (checked by renyi.moment-sum)") if same
                  else Outcome(REFUTED, "laplace.moment_egf is not moments.moment_egf")))
    return all_proved(parts)


@check("laplace.power-integrals", "The integral forms of x^b (0 < b < 1) and x^{-g} (g > 0) "
       "the engine integrates, with their constants as the engine evaluates them.",
       "x^b = b / Gamma(1 - b) int_0^inf (1 - e^{-tx}) t^{-b-1} dt,  x^{-g} = 1 / Gamma(g) "
       "int_0^inf t^{g-1} e^{-tx} dt (x > 0); exchanged with the expectation (Tonelli)",
       "x, t, b = 1/(1 + c), g",
       ("x > 0", "0 < b < 1 (b = 1/(1 + c), c > 0)", "g > 0"),
       "integration by parts: SymPy verifies the antiderivative's derivative, both boundary "
       "limits 0, and int e^{-tx} t^{-b} dt = Gamma(1 - b) x^{b-1}; the Gamma integral; the "
       "engine's scale_arb and add_scale called with SymPy symbols and sympy.gamma; Tonelli's "
       "theorem for exchanging E and the t-integral of a nonnegative integrand (cited)",
       SRC, binds=("verifier.bounds.laplace:scale_arb", "verifier.bounds.laplace:add_scale"))
def power_integrals():
    b = 1 / (1 + c)
    g = sp.Symbol("g", positive=True)
    F = -(1 - sp.exp(-t * x)) * t ** (-b) / b
    parts = [("antiderivative", identity(sp.diff(F, t), (1 - sp.exp(-t * x)) * t ** (-b - 1)
                                         - (x / b) * sp.exp(-t * x) * t ** (-b), []))]
    lims = (sp.limit(F, t, 0, "+"), sp.limit(F, t, sp.oo))
    parts.append(("boundary terms", Outcome(PROVED, "both limits are 0") if lims == (0, 0)
                  else Outcome(REFUTED, f"limits {lims}")))
    I = sp.integrate(sp.exp(-t * x) * t ** (-b), (t, 0, sp.oo), conds="none")
    whole = bound("verifier.bounds.laplace:scale_arb")(b, sp.gamma) * (x / b) * I
    parts.append(("x^b = scale_arb(b) (x/b) int e^{-tx} t^{-b}", identity(whole, x ** b, [])))
    G = sp.integrate(t ** (g - 1) * sp.exp(-t * x), (t, 0, sp.oo), conds="none")
    parts.append(("x^{-g} = add_scale(g) int t^{g-1} e^{-tx}",
                  identity(bound("verifier.bounds.laplace:add_scale")(g, sp.gamma) * G, x ** (-g), [])))
    parts.append(("E and the t-integral exchanged", cite(
        "Tonelli's theorem (nonnegative integrands)", "Billingsley, Probability and Measure, "
        "Theorem 18.3")))
    return all_proved(parts)
