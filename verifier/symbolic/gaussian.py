"""The Gaussian mechanism's privacy profile in closed form, derived with SymPy
(docs/THEORY.md section 13).

The pair N(mu, 1) vs N(0, 1) (mu = sqrt(T)/sigma for T compositions of the Gaussian
mechanism with noise multiplier sigma: random allocation at M = 1, Poisson subsampling at
q = 1).  The likelihood ratio e^{mu x - mu^2/2} exceeds e^eps iff x > x* = eps/mu + mu/2, so
    delta(eps) = int_{x*}^inf (phi(x - mu) - e^eps phi(x)) dx
               = erfc((x* - mu)/sqrt 2)/2 - e^eps erfc(x*/sqrt 2)/2
for every real eps (Balle & Wang, ICML 2018, Theorem 8; Dong, Roth & Su 2019, Corollary 2.13);
both directions are equal (the reflection x -> mu - x).  Proof check
gaussian.profile-closed-form derives it by integration."""
from __future__ import annotations

import sympy as sp

mu = sp.Symbol("mu", positive=True)
eps = sp.Symbol("eps", real=True)
x = sp.Symbol("x", real=True)


def threshold():
    """x* = eps/mu + mu/2: the likelihood ratio e^{mu x - mu^2/2} exceeds e^eps iff x > x*."""
    return eps / mu + mu / 2


def profile():
    """delta(eps) in complement form (no cancellation in the upper tail)."""
    xs = threshold()
    return (sp.erfc((xs - mu) / sp.sqrt(2)) - sp.exp(eps) * sp.erfc(xs / sp.sqrt(2))) / 2
