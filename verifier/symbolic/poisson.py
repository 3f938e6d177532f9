"""One step of Poisson subsampling, derived with SymPy (docs/THEORY.md section 12).

Under Q = N(0, sigma^2) write Z = X/sigma ~ N(0, 1); with the record sampled (probability q)
the output is N(1, sigma^2), whose density against Q's is Y = e^{Z/sigma - u/2}.  So the
likelihood ratio of P = (1 - q) Q + q N(1, sigma^2) is W(Z) = 1 - q + q Y, increasing in Z,
and the privacy loss x = log W exceeds a exactly when Z >= b(a), the loss threshold below
(for e^a > 1 - q; every Z otherwise).  The tails at b:
    Q(Z >= b) = E_Q[1{Z >= b}],   P(Z >= b) = E_Q[W 1{Z >= b}] = (1 - q) Q(Z >= b) + q E_Q[Y 1{Z >= b}],
the upper partial moments of verifier.symbolic.lognormal (proof check
lognormal.upper-partial-moments).  The evaluators in derived.py are printed from these
expressions (``poisson_loss_threshold``, ``poisson_step_tails``); proof checks
poisson.loss-threshold and poisson.mixture-tails verify them."""
from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1

from verifier.symbolic import lognormal as L

q = sp.Symbol("q", positive=True)
a = sp.Symbol("a", real=True)
z = sp.Symbol("z", real=True)


def likelihood_ratio():
    """W(z) = 1 - q + q e^{z/sigma - u/2}: dP/dQ at Z = z."""
    return 1 - q + q * sp.exp(z / L.sigma - L.u / 2)


def loss_threshold():
    """b(a) = sigma (log((e^a - 1 + q)/q) + u/2): W(b(a)) = e^a (for e^a > 1 - q); e^a - 1
    written expm1(a) so that the generated code does not cancel near a = 0."""
    return L.sigma * (sp.log((expm1(a) + q) / q) + L.u / 2)


def step_tails():
    """(Q(Z >= b), P(Z >= b)) in the complement form of the upper partial moments."""
    g = L.upper_partial_moment(0)
    m = L.upper_partial_moment(1)
    return g, (1 - q) * g + q * m
