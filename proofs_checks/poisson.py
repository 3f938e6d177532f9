"""The Poisson-subsampling engine's identities (verifier/bounds/poisson; docs/THEORY.md
section 12): the loss threshold and the step's tails the evaluators are printed from, and
the dominating pair the engine builds (the engine's own ``connect_the_dots``, run on
symbols)."""
from __future__ import annotations

import sympy as sp

from verifier.symbolic import lognormal as L
from verifier.symbolic import poisson as PS
from .framework import all_proved, bound, check, cite, identity, sign_proved

SRC = "docs/THEORY.md section 12 (the verifier's construction)"
CTD = ("Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, Connect the dots: tighter discrete "
       "approximations of privacy loss distributions, PETS 2022(4), arXiv 2207.04380 v1, "
       "Section 3")
COMPOSE = ("Zhu, Dong & Wang, Optimal accounting of differential privacy via characteristic "
           "function, AISTATS 2022, arXiv 2106.08567 v3, Theorem 10")
MAX_POINTS_CHECKED = 5


@check("poisson.loss-threshold",
       "The Poisson step's privacy loss exceeds a exactly above the engine's threshold b(a).",
       "W(z) = 1 - q + q e^{z/sigma - u/2} is increasing in z and W(b(a)) = e^a for "
       "b(a) = sigma (log((e^a - 1 + q)/q) + u/2), e^a > 1 - q",
       "sigma, q, a, z", ("sigma > 0", "0 < q <= 1", "e^a > 1 - q"),
       "exact algebra: dW/dz = (q/sigma) e^{z/sigma - u/2} > 0 (SymPy's sign); W(b(a)) - e^a "
       "reduced to 0 by SymPy", SRC,
       binds=("verifier.symbolic.poisson:loss_threshold",
              "verifier.symbolic.poisson:likelihood_ratio"))
def loss_threshold():
    W = bound("verifier.symbolic.poisson:likelihood_ratio")()
    b = bound("verifier.symbolic.poisson:loss_threshold")()
    return all_proved([
        ("W increasing in z", sign_proved(sp.diff(W, PS.z), "positive")),
        ("W(b(a)) = e^a", identity(W.subs(PS.z, b), sp.exp(PS.a), []))])


@check("poisson.mixture-tails",
       "The tails of one Poisson-subsampled step in the complement form the engine evaluates.",
       "Q(Z >= b) = erfc(b/sqrt 2)/2 and P(Z >= b) = E_Q[W 1{Z >= b}] = (1 - q) Q(Z >= b) + "
       "q E_Q[Y 1{Z >= b}] = (1 - q) erfc(b/sqrt 2)/2 + q erfc((b - 1/sigma)/sqrt 2)/2",
       "sigma, q, b", ("sigma > 0", "0 <= q <= 1", "b real"),
       "exact algebra: the engine's expressions (verifier.symbolic.poisson:step_tails) minus "
       "(1 - q) E_Q[1{Z >= b}] + q E_Q[Y 1{Z >= b}], the latter integrated by SymPy from the "
       "Gaussian density, reduced to 0", SRC,
       binds=("verifier.symbolic.poisson:step_tails",))
def mixture_tails():
    g, p = bound("verifier.symbolic.poisson:step_tails")()
    x = L.x
    Y = sp.exp(x / L.sigma - L.u / 2)
    gq = sp.integrate(L.phi, (x, L.b, sp.oo))
    gy = sp.integrate(sp.expand(Y * L.phi), (x, L.b, sp.oo))
    return all_proved([
        ("Q-tail", identity(g, gq.rewrite(sp.erfc), [])),
        ("P-tail", identity(p, ((1 - PS.q) * gq + PS.q * gy).rewrite(sp.erfc), []))])


@check("poisson.connect-the-dots",
       "The engine's dominating pair from the profile at lattice points realizes the "
       "piecewise-linear interpolation, and dominating pairs compose.",
       "for points 0 < c_0 < ... < c_n with profile values d_i, connect_the_dots returns "
       "B-masses b_i at L = c_i and an A-atom d_n at L = +inf with sum_i c_i b_i + d_n = 1 - "
       "(the B-mass at L = 0 carries no A-mass) and sum_{i >= j} b_i (c_i - c_j) + d_n = d_j at "
       "every node; the interpolant lies above the convex profile, so the pair dominates it, "
       "and T-fold products of dominating pairs dominate",
       "c_i, d_i", ("0 < c_0 < ... < c_n", "d_i the profile of a pair with A << B at c_i"),
       "exact algebra on the engine's own function: connect_the_dots evaluated on SymPy "
       f"symbols for n + 1 = 1..{MAX_POINTS_CHECKED} points, each identity reduced to 0; the "
       "chord bound and the composition of dominating pairs cited", SRC + "; " + CTD,
       binds=("verifier.numerics.dominating:connect_the_dots",))
def connect_the_dots():
    f = bound("verifier.numerics.dominating:connect_the_dots")
    parts = []
    for n in range(1, MAX_POINTS_CHECKED + 1):
        cs = sp.symbols(f"c0:{n}", positive=True)
        ds = sp.symbols(f"d0:{n}", real=True)
        b, atom = f([(i, cs[i], ds[i]) for i in range(n)])
        parts.append((f"{n} points: the A-mass is 1",
                      identity(sum(cs[i] * b[i] for i in range(n)) + atom, sp.Integer(1), [])))
        for j in range(n):
            val = sum(b[i] * (cs[i] - cs[j]) for i in range(j, n)) + atom
            parts.append((f"{n} points: the pair's profile at c_{j}", identity(val, ds[j], [])))
    parts.append(("the interpolant is above the profile (a chord of a convex function) and is "
                  "a pair's profile", cite("connect the dots", CTD)))
    parts.append(("T-fold products of dominating pairs dominate", cite("composition", COMPOSE)))
    return all_proved(parts)



@check("gaussian.profile-closed-form",
       "The Gaussian mechanism's privacy profile in the closed form the digits-on-demand path "
       "evaluates.",
       "for N(mu, 1) vs N(0, 1): the likelihood ratio e^{mu x - mu^2/2} is increasing in x and "
       "equals e^eps at x* = eps/mu + mu/2, and delta(eps) = int_{x*}^inf (phi(x - mu) - "
       "e^eps phi(x)) dx = (erfc((x* - mu)/sqrt 2) - e^eps erfc(x*/sqrt 2))/2, every real eps",
       "mu, eps", ("mu > 0", "eps real"),
       "exact algebra: SymPy's sign of the derivative, the threshold identity, and the "
       "integral of the two Gaussian densities from x* reduced against the engine's "
       "expression (verifier.symbolic.gaussian:profile)",
       "docs/THEORY.md section 13 (Balle & Wang, ICML 2018, Theorem 8)",
       binds=("verifier.symbolic.gaussian:profile", "verifier.symbolic.gaussian:threshold"))
def gaussian_profile():
    from verifier.symbolic import gaussian as GS
    mu, eps, x = GS.mu, GS.eps, GS.x
    xs = bound("verifier.symbolic.gaussian:threshold")()
    prof = bound("verifier.symbolic.gaussian:profile")()
    lr = sp.exp(mu * x - mu ** 2 / 2)
    phi = lambda t: sp.exp(-t ** 2 / 2) / sp.sqrt(2 * sp.pi)       # noqa: E731
    integral = (sp.integrate(phi(x - mu), (x, xs, sp.oo))
                - sp.exp(eps) * sp.integrate(phi(x), (x, xs, sp.oo)))
    return all_proved([
        ("the likelihood ratio increases", sign_proved(sp.diff(lr, x), "positive")),
        ("threshold", identity(lr.subs(x, xs), sp.exp(eps), [])),
        ("the profile integral", identity(integral.rewrite(sp.erfc), prof, []))])
