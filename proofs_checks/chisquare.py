"""The chi-square bound (follow-up paper arXiv 2610.09651; docs/THEORY.md section 7)."""
from __future__ import annotations

import sympy as sp

from verifier.symbolic import lognormal as L
from .framework import PROVED, REFUTED, Outcome, all_proved, check, cite, identity, sign_proved

SRC = "arXiv 2610.09651 (docs/THEORY.md section 7)"
Mn = sp.Symbol("M", positive=True, integer=True)
En = sp.Symbol("E", positive=True, integer=True)
e_ = sp.Symbol("e", positive=True, integer=True)
x1 = sp.Symbol("x1", real=True)
c2 = sp.Symbol("chi2", positive=True)


@check("chisquare.likelihood-ratio", "The likelihood ratio of the pair is the mean of lognormals.",
       "dN(e_j/sigma, I)/dN(0, I)(x) = exp(x_j/sigma - u/2) = Y_j, and P1 = (1/M) sum_j "
       "N(e_j/sigma, I), so dP1/dP0 = (1/M) sum_j Y_j = Ybar_M", "x, sigma, M",
       ("sigma > 0", "M >= 1"), "exact algebra: the ratio of Gaussian densities in coordinate j "
       "(the other coordinates cancel); the mixture's ratio is the mean of the components' "
       "ratios, for symbolic M (a SymPy Sum over j) and written out in M = 1..4 coordinates", SRC)
def likelihood_ratio():
    p1 = sp.exp(-(x1 - 1 / L.sigma) ** 2 / 2)
    p0 = sp.exp(-x1**2 / 2)
    j = sp.Symbol("j", integer=True, positive=True)
    p, q0 = sp.IndexedBase("p"), sp.Symbol("p0", positive=True)
    parts = [("coordinate j: ratio = Y_j", identity(p1 / p0, L.Y(x1), [])),
             ("every M: (sum_j p_j / M) / p0 = (1/M) sum_j p_j/p0",
              identity(sp.Sum(p[j], (j, 1, Mn)) / (Mn * q0),
                       sp.Sum(p[j] / q0, (j, 1, Mn)) / Mn, []))]
    for M in range(1, 5):
        xs = sp.symbols(f"x1:{M + 1}", real=True)
        dens = lambda shift: sp.exp(-sum((xi - si) ** 2 for xi, si in zip(xs, shift)) / 2)  # noqa: E731
        mix = sum(dens([1 / L.sigma if i == jj else 0 for i in range(M)]) for jj in range(M)) / M
        ys = sum(L.Y(xi) for xi in xs) / M
        parts.append((f"M = {M}: dP1/dP0 = Ybar_M", identity(mix / dens([0] * M), ys, [])))
    return all_proved(parts)


def second_moment_outcome(raw2=None) -> Outcome:
    raw2 = L.raw_moment(2) if raw2 is None else raw2
    # Ybar^2 = (1/M^2)(sum_j Y_j^2 + sum_{j != k} Y_j Y_k), independent, E[Y] = 1
    ey = L.raw_moment(1)
    second = (Mn * raw2 + Mn * (Mn - 1) * ey**2) / Mn**2
    return identity(second, 1 + L.s2 / Mn, [{L.sigma: 2, Mn: 5}])


@check("chisquare.second-moment", "Second moment of the likelihood ratio.",
       "E_P0[Ybar_M^2] = 1 + s2/M, hence chi^2(P1 || P0) = s2/M", "M, sigma",
       ("M >= 1", "sigma > 0"), "exact algebra: expand Ybar^2 over i.i.d. Y_j with the derived "
       "E[Y] = 1, E[Y^2] = e^u", SRC)
def second_moment():
    return second_moment_outcome()


@check("chisquare.product-rule", "chi-square of E-fold products.",
       "1 + chi^2(P^{(x)E} || Q^{(x)E}) = prod_e E_Q[L_e^2] = (1 + chi^2)^E", "E, chi2",
       ("E >= 1 integer",), "the likelihood ratio of a product measure is the product of the "
       "coordinates' ratios and E_Q of a product of independent factors is the product of their "
       "expectations (cited); SymPy evaluates the product of E equal factors", SRC)
def product_rule():
    prod = sp.product(1 + c2, (e_, 1, En))
    return all_proved([
        ("factorisation", cite("for product measures dP^E/dQ^E = prod_e dP/dQ(x_e), and the "
                               "expectation of a product of independent random variables is the "
                               "product of the expectations",
                               "e.g. Billingsley, Probability and Measure, 3rd ed., Theorem 21.4 "
                               "(independence) and Section 18 (product measures)")),
        ("prod_e (1 + chi^2) = (1 + chi^2)^E", identity(prod - 1, (1 + c2) ** En - 1, []))])


@check("chisquare.tv-bound", "Total variation from chi-square.",
       "TV = E_P0[(L - 1)_+] = E_P0|L - 1|/2 <= sqrt(E_P0[(L - 1)^2])/2 = sqrt(chi^2)/2",
       "L", ("E_P0[L] = 1",), "exact algebra for E[(L-1)^2] = E[L^2] - 1 and E[(L-1)_+] = "
       "E|L-1|/2 (since E[L - 1] = 0); Cauchy-Schwarz (E|Z|)^2 <= E[Z^2] for the inequality",
       SRC)
def tv_bound():
    Lr, a = sp.symbols("L a", real=True)
    # pointwise: (z)_+ = (|z| + z)/2, so E[(L-1)_+] = (E|L-1| + E[L-1])/2 = E|L-1|/2
    pos = identity(sp.Max(Lr - 1, 0), (sp.Abs(Lr - 1) + (Lr - 1)) / 2, [{Lr: 3}, {Lr: sp.Rational(1, 3)}])
    if pos.verdict != PROVED:  # SymPy may not simplify Max/Abs: check both branches exactly
        up = sp.Symbol("w", positive=True)
        both = (sp.simplify(sp.Max(up, 0) - (sp.Abs(up) + up) / 2) == 0
                and sp.simplify(sp.Max(-up, 0) - (sp.Abs(-up) - up) / 2) == 0)
        pos = Outcome(PROVED if both else pos.verdict, "checked on z > 0 and z < 0")
    square = identity(sp.expand((Lr - 1) ** 2), Lr**2 - 2 * Lr + 1, [])
    return all_proved([
        ("(z)_+ = (|z| + z)/2", pos),
        ("(L-1)^2 = L^2 - 2L + 1, so E[(L-1)^2] = E[L^2] - 1 = chi^2", square),
        ("Cauchy-Schwarz", cite("(E|Z| * 1)^2 <= E[Z^2] E[1^2] (Cauchy-Schwarz inequality)",
                                "Cauchy-Schwarz inequality; e.g. Billingsley, Probability and "
                                "Measure, 3rd ed., eq. (5.36)")),
    ])


@check("chisquare.attack-accuracy", "Membership-inference accuracy bound over E epochs.",
       "accuracy <= 1/2 + TV/2 <= 1/2 + (1/4) sqrt((1 + (e^{1/sigma^2} - 1)/M)^E - 1)",
       "M, E, sigma", ("M >= 1", "E >= 1", "sigma > 0"),
       "exact algebra: compose chisquare.second-moment, chisquare.product-rule and "
       "chisquare.tv-bound", SRC)
def attack_accuracy():
    chi2_E = (1 + L.s2 / Mn) ** En - 1
    stated = sp.Rational(1, 2) + sp.sqrt((1 + (sp.exp(1 / L.sigma**2) - 1) / Mn) ** En - 1) / 4
    return all_proved([
        ("second moment", second_moment_outcome()),
        ("product rule", product_rule()),
        ("TV bound", tv_bound()),
        ("assembled", identity(sp.Rational(1, 2) + sp.sqrt(chi2_E) / 2 / 2, stated,
                               [{L.sigma: 2, Mn: 5, En: 3}])),
    ])


# ---------------------------------------------------------------------------
# the expressions the numeric layer evaluates (verifier.symbolic.comparisons)
# ---------------------------------------------------------------------------
from verifier.symbolic import comparisons as CMP  # noqa: E402

Mc, Ec, tc = CMP.M, CMP.E, CMP.tau
PTS = [{L.sigma: 2, Mc: 7, Ec: 3, tc: sp.Rational(1, 10)}]


@check("chisquare.evaluated-expression", "The evaluated chi-square bound is the stated one.",
       "expm1(E log1p(s2/M)) = (1 + s2/M)^E - 1, so sqrt(expm1(E log1p(s2/M)))/2 = "
       "sqrt((1 + s2/M)^E - 1)/2", "M, E, sigma", ("M > 1 (the engine's M >= 2)", "E >= 1",
                                                   "sigma > 0"),
       "exact algebra (expm1(x) = e^x - 1, log1p(x) = log(1 + x))", SRC)
def chi_evaluated():
    from sympy.codegen.cfunctions import expm1, log1p
    e = CMP.chi_square_tv().replace(expm1, lambda z: sp.exp(z) - 1).replace(
        log1p, lambda z: sp.log(1 + z))
    return identity(e, sp.sqrt((1 + (sp.exp(L.u) - 1) / Mc) ** Ec - 1) / 2, PTS)


def _plain(e):
    from sympy.codegen.cfunctions import expm1, log1p
    return e.replace(expm1, lambda z: sp.exp(z) - 1).replace(log1p, lambda z: sp.log(1 + z))


@check("chisquare.sigma-inverse", "The chi-square bound inverts in closed form for sigma.",
       "sigma* = 1/sqrt(log(1 + M((1 + 4 tau^2)^{1/E} - 1))) gives sqrt((1 + s2/M)^E - 1)/2 = tau; "
       "the bound decreases in sigma, so sigma >= sigma* meets tau", "M, E, tau",
       ("M > 0", "E >= 1", "tau > 0"), "exact algebra: substitute sigma* and simplify; "
       "d s2/d sigma < 0", SRC)
def chi_sigma_inverse():
    from .framework import sign_proved
    chi2 = (1 + (sp.exp(L.u) - 1) / Mc) ** Ec - 1
    s_star = _plain(CMP.chi_square_sigma_inverse())
    s2_at = sp.simplify(sp.exp(1 / s_star**2) - 1)
    return all_proved([
        ("s2(sigma*) = M((1 + 4tau^2)^{1/E} - 1)",
         identity(s2_at, Mc * ((1 + 4 * tc**2) ** (1 / Ec) - 1), PTS)),
        ("(1 + s2/M)^E = 1 + 4 tau^2 there",
         identity((1 + Mc * ((1 + 4 * tc**2) ** (1 / Ec) - 1) / Mc) ** Ec, 1 + 4 * tc**2, PTS)),
        ("chi^2 increases with s2", sign_proved(sp.diff(chi2.subs(sp.exp(L.u) - 1, sp.Symbol("s", positive=True)),
                                                       sp.Symbol("s", positive=True)), "positive")),
        ("s2 decreases in sigma", sign_proved(sp.diff(sp.exp(L.u), L.sigma), "negative")),
    ])


@check("chisquare.steps-inverse", "The chi-square bound inverts in closed form for M.",
       "M* = s2 / ((1 + 4 tau^2)^{1/E} - 1) gives sqrt((1 + s2/M*)^E - 1)/2 = tau; the bound "
       "decreases in M", "sigma, E, tau", ("sigma > 0", "E >= 1", "tau > 0"),
       "exact algebra: substitute M* and simplify; d/dM (1 + s/M)^E < 0 for s, M, E > 0 "
       "(the bound decreases in M: the chi-square steps search relies on it)", SRC)
def chi_steps_inverse():
    m_star = _plain(CMP.chi_square_steps_inverse())
    s_, M_, E_ = sp.symbols("s M_ E_", positive=True)
    return all_proved([
        ("(1 + s2/M*)^E = 1 + 4 tau^2", identity((1 + (sp.exp(L.u) - 1) / m_star) ** Ec,
                                                 1 + 4 * tc**2, PTS)),
        ("chi^2 = (1 + s/M)^E - 1 decreases in M",
         sign_proved(sp.diff((1 + s_ / M_) ** E_ - 1, M_), "negative")),
    ])


@check("chisquare.gaussian-tv", "Total variation of a Gaussian trade-off function.",
       "max_a (1 - a - G_mu(a)) = 2 Phi(mu/2) - 1 = erf(mu/(2 sqrt 2)), attained at a = Phi(-mu/2)",
       "mu", ("mu > 0",), "exact algebra: with a = Phi(-z), 1 - a - G_mu(a) = Phi(z) - Phi(z - mu); "
       "its derivative phi(z) - phi(z - mu) = phi(z)(1 - e^{mu(z - mu/2)}) vanishes only at z = "
       "mu/2, positive below and negative above: the maximum", "docs/THEORY.md section 5")
def gaussian_tv():
    z = sp.Symbol("z", real=True)
    mu = CMP.mu_g
    Phi = lambda w: (1 + sp.erf(w / sp.sqrt(2))) / 2  # noqa: E731
    gap = Phi(z) - Phi(z - mu)
    crit = sp.solve(sp.diff(gap, z), z)
    val = gap.subs(z, mu / 2)
    w, t = sp.symbols("w t", positive=True)
    phi = lambda v: sp.exp(-v ** 2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    from .framework import exp_shift
    return all_proved([
        ("unique critical point mu/2", identity(crit[0], mu / 2, []) if len(crit) == 1
         else Outcome(REFUTED, f"critical points {crit}")),
        ("gap' = phi(z) (1 - e^{mu (z - mu/2)})",
         identity(sp.diff(gap, z), phi(z) * (1 - sp.exp(mu * (z - mu / 2))), [{z: 1, mu: 1}])),
        ("gap' > 0 below mu/2 (z = mu/2 - w, t = mu w)",
         sign_proved(exp_shift(1 - sp.exp(-t), t), "positive")),
        ("gap' < 0 above mu/2 (z = mu/2 + w, t = mu w)",
         sign_proved(exp_shift(1 - sp.exp(t), t), "negative")),
        ("value", identity(val, CMP.gaussian_tv(), [{mu: 1}])),
    ])
