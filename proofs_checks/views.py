"""The identities and inequalities behind the views of the pair: the Rényi curve, zCDP, the
conversions and the trade-off curves (verifier/views; docs/THEORY.md section 10)."""
from __future__ import annotations

import sympy as sp

from verifier.symbolic import lognormal as L
from verifier.symbolic import renyi as R
from .framework import PROVED, REFUTED, Outcome, all_proved, check, cite, identity, sign_proved

SRC = "docs/THEORY.md section 10 (the verifier's construction; arXiv 2610.02414 v1)"
A_SYMBOLIC = range(2, 9)          # orders checked for symbolic M
A_BRUTE, M_BRUTE = range(2, 6), range(1, 5)


@check("renyi.moment-sum", "The integer moments of the likelihood ratio: partition sum and "
       "coefficient form agree, and the engine evaluates the coefficient form.",
       "E[(sum_j Y_j)^a] = sum over partitions of a into at most M parts (multinomial counts) "
       "= a! [z^a] (sum_k m_k z^k / k!)^M, m_k = E[Y^k] = e^{k(k-1)u/2}; the engine's "
       "integer_moments = moment_from_coefficient([z^a] truncated_power(moment_egf(u), M))",
       "a, M, m_k, u",
       ("every integer a >= 0 and M >= 1 (the engine: a <= MAX_MOMENT_ORDER, M <= 1e7)",
        "Y_j i.i.d."),
       "the multinomial theorem and independence give the coefficient form for every a and M "
       "(cited); exact algebra (SymPy) confirms it against the partition sum for a = 2..8 and "
       "symbolic M and against the brute-force expansion at small a, M; the engine's parts: "
       "moment_egf called with a SymPy u and sympy.exp equals the derived m_k/k! for every "
       "k the engine uses (k <= MAX_MOMENT_ORDER + 1); moment_from_coefficient(c, a, M) = "
       "a! c / M^a for every such a (SymPy symbols); truncated_power equals FLINT's exact "
       "rational power, truncated, at M = 1..64 and M = 10^7 (exact balls)", SRC,
       binds=("verifier.bounds.moments:moment_egf", "verifier.bounds.moments:truncated_power",
              "verifier.bounds.moments:moment_from_coefficient",
              "verifier.views.renyi:MAX_MOMENT_ORDER"))
def moment_sum():
    from .framework import bound
    parts = []
    for a in A_SYMBOLIC:
        parts.append((f"a = {a}, symbolic M", identity(R.partition_sum(a), R.coefficient_form(a), [])))
    for a in A_BRUTE:
        for Mv in M_BRUTE:
            parts.append((f"a = {a}, M = {Mv}",
                          identity(R.partition_sum(a).subs(R.M, Mv), R.brute_force(a, Mv), [])))
    parts.append(("every a, M", cite("the multinomial theorem; the expectation of a product of "
                                     "independent factors is the product of the expectations",
                                     "e.g. Graham, Knuth & Patashnik, Concrete Mathematics, "
                                     "(5.13) and (7.80); Billingsley, Theorem 21.4")))
    parts += _engine_moment_parts(bound)
    return all_proved(parts)


def _engine_moment_parts(bound):
    from flint import arb, arb_poly, ctx, fmpq, fmpq_poly
    nmax = bound("verifier.views.renyi:MAX_MOMENT_ORDER") + 1
    egf = bound("verifier.bounds.moments:moment_egf")(L.u, nmax, sp.exp)
    bad = [kk for kk in range(nmax)
           if sp.simplify(egf[kk] - L.raw_moment(kk) / sp.factorial(kk)) != 0] \
        if len(egf) == nmax else ["length"]
    out = [(f"engine: moment_egf = m_k/k! for k = 0..{nmax - 1}",
            Outcome(PROVED, "every coefficient equals the derived moment over k!") if not bad
            else Outcome(REFUTED, f"coefficient {bad[0]} differs"))]
    c, Ms = sp.symbols("c M", positive=True)
    g = bound("verifier.bounds.moments:moment_from_coefficient")
    badg = [a for a in range(nmax) if sp.simplify(g(c, a, Ms) - c * sp.factorial(a) / Ms ** a) != 0]
    out.append((f"engine: moment_from_coefficient = a! c / M^a for a = 0..{nmax - 1}",
                Outcome(PROVED, "every order") if not badg
                else Outcome(REFUTED, f"order {badg[0]} differs")))
    tp = bound("verifier.bounds.moments:truncated_power")
    n, coeffs = 9, [fmpq(1), fmpq(1, 2), fmpq(3, 8), fmpq(1, 4), fmpq(5, 32), fmpq(3, 64),
                    fmpq(1, 16), fmpq(7, 128), fmpq(1, 256)]
    exact = fmpq_poly(coeffs)
    badp = None
    for Mv in [*range(1, 65), 10 ** 7]:
        want = (exact ** Mv).coeffs()[:n] if Mv <= 64 else None
        with ctx.workprec(64 * n * max(1, Mv.bit_length()) + 512):
            got = tp(arb_poly([arb(q.p) / q.q for q in coeffs]), Mv, n).coeffs()
            if want is None:          # M = 10^7: the exact coefficients by the binomial-free
                want = _power_low(coeffs, Mv, n)        # recurrence (J. C. P. Miller)
            if len(got) != n or any(not (gg.rad() == 0 and gg == arb(w.p) / w.q)
                                    for gg, w in zip(got, want)):
                badp = Mv
                break
    out.append(("engine: truncated_power exact at M = 1..64 and 10^7",
                Outcome(PROVED, "every coefficient exact") if badp is None
                else Outcome(REFUTED, f"differs from the exact power at M = {badp}")))
    return out


def _power_low(coeffs, Mv: int, n: int):
    """The first n coefficients of p^M for p(0) = 1, exactly, by J. C. P. Miller's
    recurrence b_k = (1/k) sum_{j=1..k} (j (M + 1) - k) p_j b_{k-j} (Knuth, TAOCP 2, 4.7)."""
    from flint import fmpq
    b = [fmpq(1)]
    for k in range(1, n):
        s_ = fmpq(0)
        for j in range(1, k + 1):
            s_ += (j * (Mv + 1) - k) * coeffs[j] * b[k - j]
        b.append(s_ / k)
    return b


@check("renyi.chi-square", "Order 2 of the remove direction is the chi-square divergence.",
       "E_P0[Ybar^2] = 1 + s2/M, so D_2(P1 || P0) = log(1 + s2/M) (arXiv 2610.09651)", "M, sigma",
       ("M >= 1", "sigma > 0"), "exact algebra: the partition sum at a = 2 with m_1 = E[Y] = 1 "
       "and m_2 = e^u (lognormal.raw-moments), divided by M^2", SRC)
def chi_square():
    m1, m2 = R.moment_symbols(2)
    ps = R.partition_sum(2).subs({m1: L.raw_moment(1), m2: L.raw_moment(2)})
    Mv = sp.Symbol("M", positive=True, integer=True)
    ps = ps.subs(R.M, Mv)
    return identity(ps / Mv ** 2, 1 + L.s2 / Mv, [])


@check("renyi.profile-moment", "The moments of the likelihood ratio from the two privacy "
       "profiles.",
       "E_P0[L^a] = 1 + a(a-1) [int_0^inf e^{(a-1)e} delta_R(e) de + int_0^inf e^{-a e} delta_A(e) de]",
       "a, x, c, e", ("a > 1", "L >= 0 with E_P0 L = 1"),
       "exact algebra: x^a = a(a-1) int_0^inf c^{a-2} (x - c)_+ dc for x > 0 (SymPy integral); "
       "int_0^1 c^{a-2}(1 - c) dc = 1/(a(a-1)); (x - c)_+ = x - c + (c - x)_+ with "
       "E_P0[(c - L)_+] = c delta_A(log 1/c); the substitutions c = e^e and c = e^-e; the "
       "exchange of E and the integral is Tonelli's (nonnegative integrand, cited)", SRC)
def profile_moment():
    x, c, e = sp.symbols("x c e", positive=True)
    # for a > 1 put a = 1 + t, t > 0 (a bijection of the domain)
    t = sp.Symbol("t", positive=True)
    lhs = (1 + t) * t * sp.integrate(c ** (t - 1) * (x - c), (c, 0, x))
    parts = [("Taylor form of x^a", identity(sp.simplify(lhs), x ** (1 + t), []))]
    low = sp.integrate(c ** (t - 1) * (1 - c), (c, 0, 1))
    parts.append(("int_0^1 c^{a-2}(1-c) dc", identity(sp.simplify(low * (1 + t) * t), sp.Integer(1), [])))
    # (x - c)_+ = x - c + (c - x)_+ on both sides of c = x
    d = sp.Symbol("d", positive=True)               # x = c + d, resp. c = x + d
    parts.append(("(x-c)_+ split, x > c", identity(d, ((c + d) - c) + 0, [])))
    parts.append(("(x-c)_+ split, x < c", identity(sp.Integer(0), (x - (x + d)) + ((x + d) - x), [])))
    # substitutions: c = e^e: c^{a-2} dc = e^{(a-1) e} de;  c = e^-e: c^{a-1} |dc| = e^{-a e} de
    ce = sp.exp(e)
    parts.append(("c = e^e", identity(ce ** (t - 1) * sp.diff(ce, e), sp.exp(t * e), [])))
    cm = sp.exp(-e)
    parts.append(("c = e^-e", identity(cm ** t * (-sp.diff(cm, e)), sp.exp(-(1 + t) * e), [])))
    parts.append(("exchange", cite("Tonelli's theorem for a nonnegative integrand",
                                   "e.g. Folland, Real Analysis, Theorem 2.37")))
    return all_proved(parts)


@check("renyi.hockey-stick-chernoff", "The Chernoff bound of a hockey stick (Lemma B.1 of "
       "arXiv 2610.02414), with the engine's constants k_n.",
       "(1 - e^x)_+ <= c_t e^{-t x}, c_t = t^t/(1+t)^{1+t}; so (w - c)_+ <= k_n w^n c^{1-n} for "
       "w >= 0, c > 0 whenever k_n >= c_{n-1} = (n-1)^{n-1}/n^n; the engine's chernoff_k(n) "
       "is checked for every order n it passes", "x, t, y, n",
       ("t > 0", "n = 2 .. MAX_MOMENT_ORDER (the engine's integer orders: "
                 "verifier.views.renyi.MAX_MOMENT_ORDER; the profile grid uses n <= 64)"),
       "exact algebra: with y = c/w in (0, 1) (w > c; for w <= c the left side is 0), "
       "(w - c)_+ <= k_n w^n c^{1-n} iff g(y) = y^t (1 - y) <= k_n, t = n - 1; g'(y) = "
       "y^{t-1} h(y) with h(y) = t - (1+t) y (SymPy), h affine with slope -(1+t) < 0 and its "
       "root y* = t/(1+t) in (0, 1) (SymPy solve), so g increases then decreases and max g = "
       "g(y*) = c_t; then chernoff_k(n) >= c_{n-1} exactly (Fractions) for every engine order",
       "arXiv 2610.02414 v1, Lemma B.1; Balle et al. 2020, Theorem 21",
       binds=("verifier.bounds.moments:chernoff_k", "verifier.views.renyi:MAX_MOMENT_ORDER"))
def hockey_stick_chernoff():
    from fractions import Fraction
    from .framework import bound
    y, t, w, c = sp.symbols("y t w c", positive=True)
    g = y ** t * (1 - y)
    h = t - (1 + t) * y
    parts = [("reduction: (w - c) w^-n c^{n-1} = g(c/w) w^0 with t = n - 1",
              identity(((w - c) * w ** -(t + 1) * c ** t), g.subs(y, c / w), [])),
             ("g' = y^{t-1} h", identity(sp.diff(g, y), y ** (t - 1) * h, []))]
    roots = sp.solve(h, y)
    ys = t / (1 + t)
    parts.append(("h's only root is y* = t/(1+t)",
                  identity(roots[0], ys, []) if len(roots) == 1
                  else Outcome(REFUTED, f"roots {roots}")))
    parts.append(("h decreasing: slope -(1+t) < 0", sign_proved(sp.diff(h, y), "negative")))
    parts.append(("y* in (0, 1): 1 - y* = 1/(1+t) > 0", sign_proved(1 - ys, "positive")))
    parts.append(("y^{t-1} > 0 on (0, 1)", sign_proved(y ** (t - 1), "positive")))
    parts.append(("g(y*)", identity(sp.simplify(g.subs(y, ys)), t ** t / (1 + t) ** (1 + t), [])))
    k, nmax = bound("verifier.bounds.moments:chernoff_k"), bound(
        "verifier.views.renyi:MAX_MOMENT_ORDER")
    bad = [n for n in range(2, nmax + 1)
           if not Fraction(k(n)) >= Fraction((n - 1) ** (n - 1), n ** n)]
    parts.append((f"engine: chernoff_k(n) >= (n-1)^(n-1)/n^n for n = 2..{nmax}",
                  Outcome(PROVED, f"exact for all {nmax - 1} orders") if not bad else
                  Outcome(REFUTED, f"chernoff_k({bad[0]}) = {k(bad[0])} < c_(n-1)")))
    return all_proved(parts)


@check("renyi.add-moment", "The negative moments of the likelihood ratio (the add direction).",
       "E_P0[Ybar^{-s}] <= E[G^{-s}] = exp(s u/2 + s^2 u/(2M)), G = (prod_j Y_j)^{1/M}", "s, M, sigma",
       ("s > 0", "M >= 1", "sigma > 0"),
       "exact algebra: G = exp(Xbar/sigma - u/2) with Xbar ~ N(0, 1/M), its moment generating "
       "function by SymPy integration; Ybar >= G is the arithmetic-geometric mean inequality "
       "(cited) and x -> x^{-s} is decreasing", SRC)
def add_moment():
    s = sp.Symbol("s", positive=True)
    Mv = sp.Symbol("M", positive=True)
    xb = sp.Symbol("xb", real=True)
    dens = sp.sqrt(Mv / (2 * sp.pi)) * sp.exp(-Mv * xb ** 2 / 2)
    val = sp.integrate(sp.exp(-s * (xb / L.sigma - L.u / 2)) * dens, (xb, -sp.oo, sp.oo))
    parts = [("Gaussian integral", identity(sp.simplify(val),
                                            sp.exp(s * L.u / 2 + s ** 2 * L.u / (2 * Mv)), []))]
    parts.append(("AM-GM", cite("the arithmetic-geometric mean inequality",
                                "e.g. Hardy, Littlewood & Polya, Inequalities, 2.5")))
    return all_proved(parts)


@check("renyi.zcdp-remove", "The zCDP parameter of the remove direction is u/2 for every M.",
       "sup_{a > 1} D_a(P1 || P0) / a = u/2 = 1/(2 sigma^2): D_a <= a u/2 (Jensen) and "
       "D_a / a >= u/2 - log(M)/(a - 1)", "a, M, sigma", ("M >= 1", "sigma > 0"),
       "exact algebra: the one-term lower bound E[Ybar^a] >= M^-a E[Y^a] (every term of the "
       "partition sum is positive) gives (a(a-1)u/2 - a log M)/((a-1) a) = u/2 - log M/(a-1), "
       "whose limit a -> inf is u/2 (SymPy); the upper bound is Jensen's (cited)", SRC)
def zcdp_remove():
    a = sp.Symbol("a", positive=True)
    Mv = sp.Symbol("M", positive=True)
    lower = (a * (a - 1) * L.u / 2 - a * sp.log(Mv)) / ((a - 1) * a)
    parts = [("one-term form", identity(lower, L.u / 2 - sp.log(Mv) / (a - 1), [])),
             ("limit", identity(sp.limit(lower, a, sp.oo), L.u / 2, [])),
             ("Jensen", cite("Jensen's inequality: (mean Y_j)^a <= mean Y_j^a for a >= 1",
                             "Jensen 1906; e.g. Hardy, Littlewood & Polya, Inequalities, 3.5"))]
    return all_proved(parts)


@check("renyi.log-convexity", "Real orders of the remove direction between integer moments.",
       "phi(s) = log E[Ybar^s] is convex: chords bound it above, extended chords below",
       "s", ("s >= 0",), "Hölder's inequality makes phi convex (cited); the chord and the "
       "extended-chord inequalities of a convex function are exact algebra on the weights "
       "(the chord weight and the extension coefficient are in [0, 1], checked)", SRC)
def log_convexity():
    f, n = sp.symbols("f n", positive=True)        # a = n + f, 0 < f < 1
    a = n + f
    p0, p1, p2, pm = sp.symbols("phi_n phi_n1 phi_n2 phi_nm1", real=True)
    lam = f / (1 + f)                                # n = lam (n - 1) + (1 - lam) a
    mu = 1 / (2 - f)                                 # n + 1 = mu a + (1 - mu)(n + 2)
    parts = [
        ("chord: a = (1 - f) n + f (n + 1)", identity((1 - f) * n + f * (n + 1), a, [])),
        ("n between n - 1 and a", identity(lam * (n - 1) + (1 - lam) * a, n, [])),
        ("extension below: (phi_n - lam phi_{n-1})/(1 - lam)",
         identity((p0 - lam * pm) / (1 - lam), p0 + f * (p0 - pm), [])),
        ("n + 1 between a and n + 2", identity(mu * a + (1 - mu) * (n + 2), n + 1, [])),
        ("extension above: (phi_{n+1} - (1 - mu) phi_{n+2})/mu",
         identity((p1 - (1 - mu) * p2) / mu, p1 - (1 - f) * (p2 - p1), [])),
        *weights_in_unit_interval(f, lam, mu),
        ("Hölder", cite("Lyapunov's inequality (log-convexity of absolute moments)",
                        "e.g. Hardy, Littlewood & Polya, Inequalities, 2.9"))]
    return all_proved(parts)


def weights_in_unit_interval(f, lam, mu):
    """lam(f), mu(f) in (0, 1) for every 0 < f < 1: with f = 1/(1 + r), r > 0 (a bijection
    of (0, 1)), lam, 1 - lam, mu, 1 - mu are positive (SymPy)."""
    r = sp.Symbol("r", positive=True)
    out = []
    for name, w in (("lam", lam), ("mu", mu)):
        wr = sp.simplify(w.subs(f, 1 / (1 + r)))
        out.append((f"{name} > 0 for 0 < f < 1", sign_proved(wr, "positive")))
        out.append((f"1 - {name} > 0 for 0 < f < 1", sign_proved(sp.simplify(1 - wr), "positive")))
    return out


@check("tradeoff.negative-eps", "Each direction's profile at negative eps from the other's, "
       "as the engine computes it; the second family of the trade-off conversion is the first "
       "at negative eps.",
       "delta_R(-e) = 1 - e^-e + e^-e delta_A(e), delta_A(-e) = 1 - e^-e + e^-e delta_R(e) "
       "(delta_R(eps) = E_P0[(L - e^eps)_+], delta_A(eps) = E_P0[(1 - e^eps L)_+]); hence "
       "1 - delta_R(-e) - e^-e a = e^-e (1 - delta_A(e) - a)", "e, a, L, c, x",
       ("e >= 0", "L >= 0 with E_P0 L = 1"),
       "exact algebra, pointwise in x = L (then E_P0, linear, with E_P0 L = 1): with c = e^-e, "
       "(x - c)_+ = x - c + (c - x)_+ and (c - x)_+ = c (1 - x/c)_+ = c (1 - e^e x)_+ (by cases "
       "x > c and x < c, SymPy; at x = c every term is 0), so delta_R(-e) = 1 - c + c delta_A(e); likewise (1 - c x)_+ = "
       "1 - c x + (c x - 1)_+ = 1 - c x + c (x - e^e)_+, so delta_A(-e) = 1 - c + c delta_R(e); "
       "the engine's negative_eps_delta(c, d), called with SymPy symbols, is 1 - c + c d; then "
       "the family's line", SRC, binds=("verifier.numerics.brackets:negative_eps_delta",))
def tradeoff_negative_eps():
    from .framework import bound
    e, a, dA, dd, x = sp.symbols("e a delta_A d x", positive=True)
    c = sp.exp(-e)
    parts = []
    # remove at -e, pointwise: x > c (x = c + dd) and x < c (x = c/(1 + dd), so c - x > 0)
    for name, xv, pos in (("x > c", c + dd, True), ("x < c", c / (1 + dd), False)):
        lhs = (xv - c) if pos else sp.Integer(0)                       # (x - c)_+
        cminus = sp.Integer(0) if pos else (c - xv)                      # (c - x)_+
        one_minus = sp.Integer(0) if pos else (1 - sp.exp(e) * xv)       # (1 - e^e x)_+
        parts.append((f"(x - c)_+ = x - c + (c - x)_+, {name}", identity(lhs, xv - c + cminus, [])))
        parts.append((f"(c - x)_+ = c (1 - e^e x)_+, {name}", identity(cminus, c * one_minus, [])))
    # add at -e, pointwise: c x > 1 (x = e^e (1 + dd)) and c x < 1 (x = e^e/(1 + dd))
    for name, xv, pos in (("c x > 1", sp.exp(e) * (1 + dd), True),
                          ("c x < 1", sp.exp(e) / (1 + dd), False)):
        lhs = sp.Integer(0) if pos else (1 - c * xv)                      # (1 - c x)_+
        plus = (c * xv - 1) if pos else sp.Integer(0)                     # (c x - 1)_+
        xe = (xv - sp.exp(e)) if pos else sp.Integer(0)                   # (x - e^e)_+
        parts.append((f"(1 - c x)_+ = 1 - c x + (c x - 1)_+, {name}",
                      identity(lhs, 1 - c * xv + plus, [])))
        parts.append((f"(c x - 1)_+ = c (x - e^e)_+, {name}", identity(plus, c * xe, [])))
    # E_P0 of the pointwise identities: E[x - c] = E[1 - c x] = 1 - c (E L = 1)
    f = bound("verifier.numerics.brackets:negative_eps_delta")
    parts.append(("engine: negative_eps_delta(c, d) = 1 - c + c d",
                  identity(f(c, dd), 1 - c + c * dd, [{e: 1, dd: sp.Rational(1, 3)}])))
    dR = f(c, dA)
    parts.append(("the family's line", identity(1 - dR - c * a, c * (1 - dA - a), [])))
    return all_proved(parts)


@check("tradeoff.primal-dual", "A trade-off function from the two one-sided privacy profiles.",
       "T(P, Q)(a) = sup_{eps in R} (1 - delta_{Q||P}(eps) - e^eps a)", "a, eps",
       ("P, Q probability measures",),
       "cited: the primal-dual conversion; the restriction to eps >= 0 with the second family "
       "is tradeoff.negative-eps", "Dong, Roth & Su, arXiv 1905.02383 v3, Proposition 2.12; "
       "Su, Yang, Su & Wang, arXiv 2610.02414 v1, Theorem 2.1")
def tradeoff_primal_dual():
    return all_proved([("conversion", cite("the primal-dual conversion between trade-off "
                                           "functions and privacy profiles",
                                           "Dong, Roth & Su, arXiv 1905.02383 v3, Proposition "
                                           "2.12; arXiv 2610.02414 v1, Theorem 2.1"))])


@check("views.profile-convex-in-c", "Each direction of the privacy profile is convex and "
       "nonincreasing in c = e^eps.",
       "delta_R(c) = E_P0[(L - c)_+] and delta_A(c) = E_P0[(1 - c L)_+] are convex, "
       "nonincreasing functions of c > 0", "c, x", ("c > 0", "L >= 0"),
       "pointwise in x = L: (x - c)_+ = max(0, x - c) and (1 - c x)_+ = max(0, 1 - c x) (by "
       "cases, SymPy), each the maximum of two affine functions of c with slopes 0 and -1, "
       "resp. 0 and -x <= 0 (SymPy); a pointwise maximum of affine functions is convex, and "
       "nonincreasing when every slope is <= 0, and an expectation of convex functions is "
       "convex (cited)", SRC)
def profile_convex_in_c():
    x, c, d = sp.symbols("x c d", positive=True)
    parts = []
    for name, xv, pos in (("x > c", c + d, True), ("x < c", c / (1 + d), False)):
        parts.append((f"(x - c)_+ = max(0, x - c), {name}",
                      identity(sp.Max(0, xv - c), (xv - c) if pos else sp.Integer(0), [])))
    for name, xv, pos in (("c x < 1", 1 / (c * (1 + d)), True), ("c x > 1", (1 + d) / c, False)):
        parts.append((f"(1 - c x)_+ = max(0, 1 - c x), {name}",
                      identity(sp.Max(0, 1 - c * xv), (1 - c * xv) if pos else sp.Integer(0), [])))
    parts += [("remove: pieces affine in c", identity(sp.diff(x - c, c, 2), sp.Integer(0), [])),
              ("add: pieces affine in c", identity(sp.diff(1 - c * x, c, 2), sp.Integer(0), [])),
              ("remove: slope -1 <= 0", sign_proved(sp.diff(x - c, c), "negative")),
              ("add: slope -x <= 0", sign_proved(sp.diff(1 - c * x, c), "negative")),
              ("convexity", cite("a pointwise maximum of affine functions is convex (and "
                                 "nonincreasing when every slope is <= 0); an expectation of "
                                 "convex functions is convex",
                                 "Boyd & Vandenberghe, Convex Optimization (2004), 3.2.1 and "
                                 "3.2.3"))]
    return all_proved(parts)