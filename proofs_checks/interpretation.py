"""Section 3.1 interpretation claims and the separation of Section 5 / Lemma H.6
(arXiv 2605.06259 v1; docs/THEORY.md sections 3 and 5)."""
from __future__ import annotations

import sympy as sp

from verifier.symbolic import lognormal as L
from verifier.symbolic import terms as T31
from .framework import (PROVED, REFUTED, UNKNOWN, Outcome, all_proved, check, identity, reparametrise,
                        sign_proved)
from .tail import denominator_positive

SRC = "Section 3.1 of arXiv 2605.06259 v1 (docs/THEORY.md section 3)"
m = sp.Symbol("m", positive=True)
v = sp.Symbol("v", positive=True)


def closed_form_outcome() -> Outcome:
    try:
        T31.closed_form_steps()
    except L.DerivationError as e:
        return Outcome(REFUTED, str(e)[:200])
    return Outcome(PROVED, "SymPy solves T1 + T2 = delta for M; the unique root is M_BE")


@check("interpretation.closed-form-4", "Closed form (4) is Theorem 3.1's bound without T3..T6, "
       "solved for M.",
       "T1 + T2 = delta  <=>  M = M_BE = 1 + ((2 B coef + 1/sqrt(2 pi)) sqrt(s2)/delta)^2",
       "M, sigma, coef, delta", ("M > 1", "sigma > 0", "coef > 0", "delta > 0"),
       "exact algebra: SymPy solve, compared with the stated closed form", SRC,
       binds=("verifier.symbolic.terms:closed_form_steps",))
def closed_form_4():
    return closed_form_outcome()


@check("interpretation.closed-form-lower-bound", "M_BE is a lower bound of M_exact.",
       "delta_rhs(M) > T1 + T2, and T1 + T2 <= delta iff M >= M_BE; so delta_rhs(M) <= delta "
       "implies M >= M_BE", "M, sigma, coef, delta", ("M >= 3", "sigma > 0", "coef > 0"),
       "exact algebra: T3..T6 > 0 (signs after positive reparametrisation; T6 via "
       "tail.denominator-positive); T1 + T2 decreasing in M", SRC)
def closed_form_lower_bound():
    terms = T31.terms()
    parts = [(f"T{i + 1} > 0", sign_proved(reparametrise(terms[i]), "positive")) for i in (2, 3, 4)]
    parts.append(("T6 > 0 (denominator positive for M >= 3)", denominator_positive()))
    parts.append(("T1 + T2 decreasing", sign_proved(sp.diff(reparametrise(terms[0] + terms[1]), m),
                                                    "negative")))
    parts.append(("closed form (4)", closed_form_outcome()))
    return all_proved(parts)


@check("interpretation.bound-to-leading-ratio",
       "Ratio of the first two terms to the exact leading separation mu/sqrt(2 pi).",
       "(T1 + T2) / T2 = 1 + 2 B coef sqrt(2 pi)", "M, sigma, coef",
       ("M > 1", "sigma > 0"), "exact algebra", SRC)
def bound_ratio():
    t = T31.terms()
    return identity((t[0] + t[1]) / t[1], 1 + 2 * T31.B * T31.coef * sp.sqrt(2 * sp.pi), [])


@check("interpretation.condition-2-forces-sigma",
       "Under the hypotheses (coef_S), validity condition (2) forces sigma >= sqrt(3/ln M).",
       "delta >= delta_rhs and Phi(-kappa) <= 1/2 - eps - delta imply "
       "3B e^{3u/2}/sqrt(M-1) <= eps + delta <= 1/2 - Phi(-kappa) <= 1/2, hence "
       "u <= ln(M-1)/3 - (2/3) ln(6B) < ln(M)/3, i.e. sigma > sqrt(3/ln M); also "
       "3B e^{3u/2}/sqrt(M-1) >= e^{3u/2}/sqrt(M)",
       "M, sigma, delta", ("M >= 3", "sigma > 0", "delta >= delta_rhs(M, sigma)", "coef = coef_S"),
       "chain of inequalities, each checked: (i) delta >= T1 = 2 eps because T2..T6 >= 0; "
       "(ii) coef_S sqrt(s2) >= e^{3u/2} (squared, a polynomial in v = e^u - 1 with positive "
       "coefficients); (iii) Phi(-kappa) >= 0; (iv) 6B = 2.8488 > 1; (v) ln(M-1) < ln M; "
       "(vi) 3B > 1. The exact-factor variant is not covered by (ii): there sigma >= "
       "sqrt(3/ln M) is stated as a hypothesis", SRC)
def condition_2_forces_sigma():
    terms = T31.terms()
    eps = T31.berry_esseen_eps()
    coefS = L.coef_simplified()
    # (ii) squared: coef_S^2 s2 - e^{3u} >= 0 after e^u = 1 + v
    sq = reparametrise((coefS**2 * L.s2 - sp.exp(3 * L.u)))
    six_b = 6 * T31.B
    return all_proved([
        ("T1 = 2 eps", identity(terms[0], 2 * eps, [])),
        ("T2..T5 >= 0", all_proved([(f"T{i + 1}", sign_proved(reparametrise(terms[i]), "positive"))
                                     for i in (1, 2, 3, 4)])),
        ("T6 >= 0", denominator_positive()),
        ("coef_S^2 s2 >= e^{3u}", sign_proved(sq, "positive")),
        ("Phi(-kappa) >= 0", phi_nonnegative()),
        ("3B e^{3u/2}/sqrt(M-1) = 1/2 at u = ln(M-1)/3 - (2/3) ln(6B), increasing in u",
         _threshold_outcome()),
        ("6B > 1", Outcome(PROVED, f"6B = {six_b}") if six_b > 1 else Outcome(REFUTED, str(six_b))),
        ("3B > 1", Outcome(PROVED, f"3B = {3 * T31.B}") if 3 * T31.B > 1
         else Outcome(REFUTED, str(3 * T31.B))),
        ("ln M - ln(M-1) = ln(M/(M-1)) > 0", sign_proved(sp.log((2 + m) / (1 + m)), "positive")),
    ])


def phi_nonnegative() -> Outcome:
    """Phi(-kappa) = (1 - erf(kappa/sqrt 2))/2 >= 0: g(z) = 1 - erf(z) has g' = -2 e^{-z^2}/sqrt(pi)
    < 0 and g -> 0 as z -> inf, so g(z) = -int_z^inf g' > 0 (the derivative sign and the
    limit by SymPy)."""
    z = sp.Symbol("z", real=True)
    w = sp.Symbol("w", positive=True)
    g = 1 - sp.erf(z)
    lim = sp.limit(g, z, sp.oo)
    return all_proved([
        ("Phi(-kappa) = (1 - erf(kappa/sqrt 2))/2",
         identity((1 + sp.erf(-w / sp.sqrt(2))) / 2, (1 - sp.erf(w / sp.sqrt(2))) / 2, [])),
        ("g' = -2 e^{-z^2}/sqrt(pi)", identity(sp.diff(g, z), -2 * sp.exp(-z**2) / sp.sqrt(sp.pi), [])),
        ("g' < 0", sign_proved(-2 * sp.exp(-z**2) / sp.sqrt(sp.pi), "negative")),
        ("g -> 0 as z -> inf", Outcome(PROVED, "SymPy: limit 0") if lim == 0
         else Outcome(UNKNOWN, f"limit {lim}")),
    ])


def _threshold_outcome() -> Outcome:
    uu = sp.Symbol("u", positive=True)
    lhs = 3 * T31.B * sp.exp(3 * uu / 2) / sp.sqrt(1 + m)
    roots = sp.solve(sp.Eq(lhs, sp.Rational(1, 2)), uu)
    want = sp.log(1 + m) / 3 - sp.Rational(2, 3) * sp.log(6 * T31.B)
    if len(roots) != 1:
        return Outcome(UNKNOWN, f"expected one root, got {roots}")
    return all_proved([("root", identity(sp.expand_log(roots[0], force=True),
                                         sp.expand_log(want, force=True), [{m: 5}])),
                       ("increasing", sign_proved(sp.diff(lhs, uu), "positive"))])


a_, f_, g_ = sp.symbols("a f gamma", real=True)


@check("interpretation.separation-distance",
       "Separation from the diagonal (Lemma H.6): the Euclidean distance has a sqrt 2.",
       "min_gamma |(a, f) - (gamma, 1 - gamma)|_2 = (1 - a - f)/sqrt(2) at gamma = (1 + a - f)/2 "
       "(for f <= 1 - a); the extracted text's (1 - a - f)/2 is wrong by a factor sqrt 2, and "
       "sep(f_{0,d}) = d/sqrt 2, sep(f (x) h) = sep f + sep h - sqrt(2) sep f sep h",
       "a, f, gamma", ("0 <= a <= 1", "0 <= f <= 1 - a"),
       "exact algebra: minimise the squared distance (a convex quadratic in gamma)",
       "Lemma H.6 of arXiv 2605.06259 v1 (docs/THEORY.md section 5)")
def separation_distance():
    d2 = (a_ - g_) ** 2 + (f_ - (1 - g_)) ** 2
    crit = sp.solve(sp.diff(d2, g_), g_)
    gstar = crit[0] if len(crit) == 1 else None
    d1, d2_ = sp.symbols("d1 d2", positive=True)
    s1, s2 = d1 / sp.sqrt(2), d2_ / sp.sqrt(2)
    composed = (1 - (1 - d1) * (1 - d2_)) / sp.sqrt(2)
    differs = _separation_counterexample()
    return all_proved([
        ("unique critical point (1 + a - f)/2", identity(gstar, (1 + a_ - f_) / 2, [])
         if gstar is not None else Outcome(REFUTED, f"critical points {crit}")),
        ("convex in gamma", sign_proved(sp.diff(d2, g_, 2), "positive")),
        ("min squared distance = (1 - a - f)^2 / 2",
         identity(d2.subs(g_, gstar), (1 - a_ - f_) ** 2 / 2, [])),
        ("the extracted /2 differs", differs),
        ("composition with sqrt 2", identity(composed, s1 + s2 - sp.sqrt(2) * s1 * s2, [])),
    ])


def _separation_counterexample() -> Outcome:
    """The extracted text's (1 - a - f)/2 is not the distance: a certified counterexample
    (SymPy's failure to simplify a difference to 0 proves nothing).  At a = f = 0 the
    distance sqrt(min squared distance) = 1/sqrt 2 and the /2 form is 1/2: their difference,
    in Arb, excludes 0."""
    from .framework import to_arb_code
    pt = {a_: 0, f_: 0}
    d = to_arb_code(sp.sqrt((1 - a_ - f_) ** 2 / 2) - (1 - a_ - f_) / 2, pt)
    if d.is_finite() and d > 0:
        return Outcome(PROVED, f"at a = f = 0: (1-a-f)/sqrt 2 - (1-a-f)/2 = {d.str(6)} > 0 "
                               "(certified counterexample to the /2 form)")
    return Outcome(UNKNOWN, f"difference {d.str(6)} not certified nonzero")


@check("interpretation.condition-2-at-delta-rhs",
       "Theorem 3.1 certifies f_{0,delta} for every delta >= delta_rhs when condition (2) holds "
       "at delta = delta_rhs: the reading of (2) every command uses.",
       "f_{0,d}(a) = max(0, 1 - a - d) decreases in d; the margin g(delta) = 1/2 - eps - delta - "
       "Phi(-kappa) of (2) has dg/ddelta = -1 < 0, so (2) is weakest at the smallest delta the "
       "theorem allows, delta = delta_rhs; and f_{0,delta_rhs} >= f_{0,delta}",
       "a, delta, delta_rhs", ("0 <= a <= 1", "0 < delta_rhs <= delta"),
       "exact algebra: derivatives in delta of the margin and of 1 - a - d", SRC)
def condition_2_at_delta_rhs():
    H = T31.hypotheses()
    dd = sp.Symbol("d", positive=True)
    return all_proved([
        ("dg/ddelta = -1", identity(sp.diff(H["validity_condition_2"], T31.delta), sp.Integer(-1), [])),
        ("d/dd (1 - a - d) = -1 < 0", sign_proved(sp.diff(1 - a_ - dd, dd), "negative")),
    ])


@check("interpretation.large-sigma-infeasible",
       "For large sigma, validity condition (2) fails: the sigma range of Theorem 3.1 is bounded "
       "(the engine's condition (2) and its cut-off).",
       "if s2 <= c/(M-1) (sigma >= 1/sqrt(log(1 + c/(M-1))), c = LARGE_SIGMA_S2_NUM) and delta "
       ">= T2, then the engine's condition (2), 1/2 - eps - delta - Phi(-kappa), is < 0",
       "sigma, M, delta", ("M >= 3", "sigma > 0", "delta >= T2 = mu/sqrt(2 pi)"),
       "chain on the engine's own objects: hypotheses()['validity_condition_2'] is 1/2 - eps - "
       "delta - erfc(kappa/sqrt 2)/2 with eps = berry_esseen_eps() > 0 and kappa = s2/2, "
       "T2 = terms()[1] with T2^2 = s2/((M-1) 2 pi); Phi(kappa) - 1/2 <= kappa/sqrt(2 pi) (g = "
       "kappa/sqrt(2 pi) - Phi(kappa) + 1/2 has g(0) = 0, g' = (1 - e^{-kappa^2/2})/sqrt(2 pi) "
       ">= 0); so the margin is < (s2/2 - mu)/sqrt(2 pi) <= 0 when s2 <= 4/(M-1); the engine's "
       "cut-off sigma_range uses c = LARGE_SIGMA_S2_NUM: sigma >= its U iff s2 <= c/(M-1) (s2 "
       "decreases in sigma), and s2/2 <= mu there iff c <= 4 (checked for the engine's c). "
       "Used by the sigma calibration (verifier.deploy.sigma) to bound its search", SRC,
       binds=("verifier.symbolic.terms:hypotheses", "verifier.symbolic.terms:terms",
              "verifier.symbolic.terms:berry_esseen_eps", "verifier.symbolic.terms:kappa",
              "verifier.bounds.theorem31:LARGE_SIGMA_S2_NUM"))
def large_sigma_infeasible():
    from .framework import bound, exp_shift
    k = sp.Symbol("kappa", positive=True)
    w = sp.Symbol("w", positive=True)
    Phi = lambda z: (1 + sp.erf(z / sp.sqrt(2))) / 2  # noqa: E731
    g = k / sp.sqrt(2 * sp.pi) - (Phi(k) - sp.Rational(1, 2))
    gp = (1 - sp.exp(-k**2 / 2)) / sp.sqrt(2 * sp.pi)
    s = sp.Symbol("s", positive=True)   # s2
    mm = sp.Symbol("m", positive=True)  # M - 1
    crossing = sp.solve(sp.Eq(s / 2, sp.sqrt(s / mm)), s)
    cond2 = bound("verifier.symbolic.terms:hypotheses")()["validity_condition_2"]
    eps = bound("verifier.symbolic.terms:berry_esseen_eps")()
    kappa = bound("verifier.symbolic.terms:kappa")
    T2 = bound("verifier.symbolic.terms:terms")()[1]
    c = sp.Integer(bound("verifier.bounds.theorem31:LARGE_SIGMA_S2_NUM"))
    cut = 1 / sp.sqrt(sp.log(1 + c / mm))
    pt = {L.sigma: 1, T31.M: 10, T31.delta: sp.Rational(1, 10), T31.coef: 3}
    return all_proved([
        ("engine: condition (2) = 1/2 - eps - delta - Phi(-kappa)",
         identity(cond2, sp.Rational(1, 2) - eps - T31.delta - (1 - Phi(kappa)), [pt])),
        ("engine: eps > 0 (e^u = 1 + v, M = 1 + m)", sign_proved(reparametrise(eps), "positive")),
        ("engine: kappa = s2/2", identity(kappa, L.s2 / 2, [pt])),
        ("engine: T2^2 = s2/((M-1) 2 pi)", identity(T2 ** 2, L.s2 / ((T31.M - 1) * 2 * sp.pi), [pt])),
        ("g(0) = 0", identity(g.subs(k, 0), sp.Integer(0), [])),
        ("g' = (1 - e^{-kappa^2/2})/sqrt(2 pi)", identity(sp.diff(g, k), gp, [{k: 1}])),
        ("g' >= 0", sign_proved(exp_shift(1 - sp.exp(-w), w), "positive")),
        ("s2/2 = mu at s2 = 4/(M-1)", identity(crossing[0], 4 / mm, [])
         if len(crossing) == 1 else Outcome(UNKNOWN, f"crossings {crossing}")),
        ("s2 = e^{1/sigma^2} - 1", identity(L.s2, sp.exp(1 / L.sigma ** 2) - 1, [pt])),
        ("s2 decreases in sigma", sign_proved(sp.diff(sp.exp(1 / L.sigma ** 2) - 1, L.sigma),
                                              "negative")),
        (f"engine cut-off: s2 at sigma = 1/sqrt(log(1 + {c}/(M-1))) is {c}/(M-1)",
         identity(L.s2.subs(L.sigma, cut), c / mm, [{mm: 2}])),
        (f"mu^2 - (s2/2)^2 >= 0 for s2 = {c}/((M-1)(1+w)) <= {c}/(M-1)", sign_proved(
            (s / mm - s**2 / 4).subs(s, c / (mm * (1 + w))), "positive")),
    ])



@check("interpretation.terms-increase-with-coef",
       "Every term of delta_rhs and eps are nondecreasing in coef; condition (2)'s margin "
       "decreases in coef and in delta.",
       "dT_i/dcoef >= 0 (i = 1..6), deps/dcoef > 0, dg/dcoef < 0 and dg/ddelta = -1 for the "
       "margin g of (2); so for c_low <= coef: delta_rhs(c_low) <= delta_rhs(coef) and "
       "g(coef, delta_rhs(coef)) <= g(c_low, delta_rhs(c_low))", "coef, sigma, M, delta",
       ("coef > 0", "sigma > 0", "M >= 3"),
       "exact algebra on the engine's expressions (terms(), berry_esseen_eps(), hypotheses()): "
       "the derivatives in coef and delta and their signs after the positive reparametrisation "
       "e^u = 1 + v, M = 1 + m. Used by the sigma calibration's box test (theorem31._box_fails) "
       "with the lower bound coef >= s2^{-1/2} (lognormal.coef-lyapunov-lower-bound)", SRC,
       binds=("verifier.symbolic.terms:terms", "verifier.symbolic.terms:berry_esseen_eps",
              "verifier.symbolic.terms:hypotheses"))
def terms_increase_with_coef():
    from .framework import bound
    terms = bound("verifier.symbolic.terms:terms")()
    eps = bound("verifier.symbolic.terms:berry_esseen_eps")()
    g = bound("verifier.symbolic.terms:hypotheses")()["validity_condition_2"]
    parts = []
    for i, t in enumerate(terms, 1):
        d = sp.diff(t, T31.coef)
        parts.append((f"dT{i}/dcoef >= 0",
                      identity(d, sp.Integer(0), []) if d == 0
                      else sign_proved(reparametrise(d), "positive")))
    parts.append(("deps/dcoef > 0", sign_proved(reparametrise(sp.diff(eps, T31.coef)), "positive")))
    parts.append(("dg/dcoef < 0", sign_proved(reparametrise(sp.diff(g, T31.coef)), "negative")))
    parts.append(("dg/ddelta = -1", identity(sp.diff(g, T31.delta), sp.Integer(-1), [])))
    return all_proved(parts)
