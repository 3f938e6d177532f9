"""The privacy-profile engine's identities and inequalities (verifier/bounds/profile;
docs/THEORY.md section 9, the verifier's construction, not a statement of the papers)."""
from __future__ import annotations

import itertools

import sympy as sp

from .framework import PROVED, Outcome, all_proved, check, cite, identity, sign_proved

SRC = "docs/THEORY.md section 9 (the verifier's construction)"
KMAX = 12          # the engine refuses plans with more tail items (laws.plan)


@check("profile.jensen-over-pairs", "The sum of k tail items is a mean over pairs.",
       "S_k = mean over the C(k,2) pairs {a, b} of (k/2)(Y_a + Y_b), so by convexity "
       "f(B + S_k) <= mean over pairs of f(B + (k/2)(Y_a + Y_b))", "Y_1..Y_k",
       ("2 <= k <= 12",), "exact algebra for each k = 2..12 (each item lies in k - 1 pairs); "
       "the inequality is Jensen's for the convex f (cited)", SRC)
def jensen_over_pairs():
    parts = []
    for k in range(2, KMAX + 1):
        Y = sp.symbols(f"y1:{k + 1}", positive=True)
        pairs = list(itertools.combinations(Y, 2))
        mean = sum(sp.Rational(k, 2) * (a + b) for a, b in pairs) / len(pairs)
        parts.append((f"k = {k}", identity(mean, sum(Y), [])))
    parts.append(("Jensen", cite("Jensen's inequality for a convex function of a finite mean",
                                 "Jensen 1906; e.g. Hardy, Littlewood & Polya, Inequalities, 3.5")))
    return all_proved(parts)


@check("profile.binomial-tail", "The union-bound tail of the number of tail items.",
       "P(Bin(n, p) >= k) <= C(n, k) p^k <= (n p)^k / k!", "n, p, k",
       ("n >= k >= 1 integers", "0 <= p <= 1"),
       "C(n,k) k! / n^k = prod_{i<k} (1 - i/n) <= 1: each factor in (0, 1] (exact algebra for "
       "k = 1..12); the first inequality is Boole's (a union over the k-subsets, cited)", SRC)
def binomial_tail():
    n = sp.Symbol("n", positive=True)
    parts = []
    for k in range(1, KMAX + 1):
        ratio = sp.Mul(*[(n - i) for i in range(k)]) / n ** k
        expanded = sp.Mul(*[(1 - sp.Integer(i) / n) for i in range(k)])
        parts.append((f"k = {k}: C(n,k) k!/n^k as a product", identity(ratio, expanded, [])))
    i, r = sp.symbols("i r", nonnegative=True)          # n = i + 1 + r > i >= 0
    f = (1 - i / n).subs(n, i + 1 + r)
    parts.append(("factors: 1 - i/n > 0 for n > i >= 0", sign_proved(sp.simplify(f), "positive")))
    parts.append(("factors: 1 - i/n <= 1", sign_proved((i / n).subs(n, i + 1 + r), "nonnegative")))
    parts.append(("union bound", cite("Boole's inequality over the C(n, k) k-subsets of items",
                                      "Boole 1854; e.g. Feller, Vol. 1, IV.1")))
    return all_proved(parts)


@check("profile.log-domain-convexity", "The composed profile integrands are convex and "
       "monotone in each epoch's log-likelihood ratio.",
       "x -> (e^{x + a} - c)_+ is convex nondecreasing and x -> (e^{-x - a} - c)_+ convex "
       "nonincreasing, for every a and c > 0", "x, a, c", ("c > 0",),
       "the inner functions have second derivatives e^{+-(x+a)} > 0 and first derivatives of "
       "fixed sign (SymPy); the positive part of a convex function is convex (max of two "
       "convex functions) and keeps the monotonicity", SRC)
def log_convexity():
    x, a = sp.symbols("x a", real=True)
    up, down = sp.exp(x + a), sp.exp(-x - a)
    return all_proved([
        ("(e^{x+a})'' > 0", sign_proved(sp.diff(up, x, 2), "positive")),
        ("(e^{x+a})' > 0", sign_proved(sp.diff(up, x), "positive")),
        ("(e^{-x-a})'' > 0", sign_proved(sp.diff(down, x, 2), "positive")),
        ("(e^{-x-a})' < 0", sign_proved(sp.diff(down, x), "negative")),
    ])


@check("profile.add-direction-tilt", "The add profile under the tilted measure.",
       "E_mu[(1 - c W)_+] = mu(W = 0) + E_nu[(1/W - c)_+] with W = prod w >= 0 and nu = W mu "
       "(dnu/dmu = W)", "w, c", ("w >= 0", "c > 0"),
       "exact algebra pointwise: for W > 0, (1 - c W)_+ = W (1/W - c)_+ (by cases c W < 1, "
       "c W > 1, SymPy; at c W = 1 both are 0); for W = 0, (1 - c W)_+ = 1; so E_mu[(1 - cW)_+] "
       "= mu(W = 0) + E_mu[W (1/W - c)_+ 1{W > 0}], and E_mu[W g 1{W > 0}] = E_nu[g] is the "
       "definition of nu (nu has no mass at W = 0)", SRC)
def add_tilt():
    w, c, d = sp.symbols("w c d", positive=True)
    parts = [("w (1/w - c) = 1 - c w", identity(w * (1 / w - c), 1 - c * w, []))]
    for name, wv in (("c W < 1", 1 / (c * (1 + d))), ("c W > 1", (1 + d) / c)):
        parts.append((f"(1 - c W)_+ = W (1/W - c)_+, {name}",
                      identity(sp.Max(0, 1 - c * wv), wv * sp.Max(0, 1 / wv - c), [])))
    parts.append(("W = 0: (1 - c 0)_+ = 1", identity(sp.Max(0, 1 - c * 0), sp.Integer(1), [])))
    return all_proved(parts)


@check("profile.gaussian-symmetry", "At M = 1 the two directions coincide.",
       "with a = 1/sigma and R x = a - x: p0(R x) = p1(x) and p1(R x) = p0(x), so R maps P0 to P1, "
       "P1 to P0 and L = p1/p0 to 1/L; hence delta_A(eps) = E_P1[(1/L - c)_+] = E_P0[(L - c)_+] "
       "= delta_R(eps)", "x, a", ("a > 0",),
       "exact algebra for the two densities (Gaussian kernels); the change of variables under "
       "the measure-preserving reflection", SRC)
def gaussian_symmetry():
    x, a = sp.symbols("x a", real=True)
    p0 = sp.exp(-x ** 2 / 2)
    p1 = sp.exp(-(x - a) ** 2 / 2)
    return all_proved([
        ("p0(a - x) = p1(x)", identity(p0.subs(x, a - x), p1, [])),
        ("p1(a - x) = p0(x)", identity(p1.subs(x, a - x), p0, [])),
        ("L(a - x) = 1/L(x)", identity((p1 / p0).subs(x, a - x), p0 / p1, [])),
    ])


@check("profile.add-moment-bound", "A moment bound of the add direction.",
       "for theta > 0: (1 - x)_+ <= C x^{-theta} with C = theta^theta / (1 + theta)^{1 + theta} "
       "(the maximum of (1 - x) x^theta over 0 < x < 1, at x = theta / (1 + theta)); "
       "E[Y^{-s}] = e^{s (s + 1) u / 2} for Y = e^{X/sigma - u/2}, u = 1/sigma^2; W >= the geometric "
       "mean of its M items, so E[W^{-theta}] <= e^{theta (theta/M + 1) u / 2} and "
       "delta_A(eps) <= C e^{-theta eps + E theta (theta/M + 1) u / 2}", "x, theta, s, sigma, M, E",
       ("theta > 0", "s > 0", "sigma > 0", "M, E >= 1"),
       "SymPy: the stationary point and second derivative of log((1 - x) x^theta), the value there; "
       "the Gaussian moment generating function in closed form; the AM-GM step and the "
       "independence of items and epochs (cited)", SRC)
def add_moment_bound():
    x, th, s, sig, M = sp.symbols("x theta s sigma M", positive=True)
    g = sp.log(1 - x) + th * sp.log(x)
    x0 = th / (1 + th)
    u = 1 / sig ** 2
    X = sp.Symbol("X", real=True)
    mgf = sp.integrate(sp.exp(-s * (X / sig - u / 2)) * sp.exp(-X ** 2 / 2) / sp.sqrt(2 * sp.pi),
                       (X, -sp.oo, sp.oo))
    return all_proved([
        ("stationary point x = theta/(1+theta)", identity(sp.diff(g, x).subs(x, x0), 0, [])),
        ("g'' = -1/(1-x)^2 - theta/x^2 (< 0 on (0, 1): a maximum)",
         identity(sp.diff(g, x, 2), -1 / (1 - x) ** 2 - th / x ** 2, [])),
        ("C = theta^theta / (1+theta)^(1+theta)",
         identity(sp.expand_log(sp.log((1 - x0) * x0 ** th), force=True),
                  sp.expand_log(sp.log(th ** th / (1 + th) ** (1 + th)), force=True), [])),
        ("E[Y^-s] = e^{s(s+1)u/2}", identity(sp.simplify(mgf), sp.exp(s * (s + 1) * u / 2), [])),
        ("the product over M items at s = theta/M", identity(
            (sp.exp((th / M) * (th / M + 1) * u / 2)) ** M, sp.exp(th * (th / M + 1) * u / 2), [])),
        ("AM-GM and independence", cite("the inequality of arithmetic and geometric means; "
                                        "E of a product of independent factors",
                                        "e.g. Hardy, Littlewood & Polya, Inequalities, 2.5")),
    ])


FIRST_CELL_BOUND_M = 64      # the engine's all_in_first_cell checked exactly for M = 1..64


@check("profile.first-cell-split", "The add law's split on the first cell, and the engine's "
       "all-in-the-first-cell piece.",
       "with s(z) = wa z^0 + wb z^c + r(z) the generating polynomial of one spread item (wa, wb "
       "the first cell's end masses, r(z) the other cells', no constant term), the law of the "
       "sum of M items is s(z)^M; its all-in-the-first-cell piece is (wa + wb z^c)^M = "
       "sum_k C(M, k) wa^{M-k} wb^k z^{k c}, and s^M - (wa + wb z^c)^M has no constant term "
       "(no mass at W = 0 once the piece is taken out)", "wa, wb, z, r, M",
       ("M >= 1 (every M)", "r(0) = 0"),
       "for symbolic M: at z = 0, s(0) = a(0) since r(0) = 0, so s^M - a^M vanishes there "
       "(SymPy); the piece is the binomial theorem (cited), checked by expansion for M = 1..10; "
       "the engine's all_in_first_cell(wa, wb, M), evaluated in exact ball arithmetic at "
       "dyadic wa, wb, returns exactly the M + 1 binomial terms for M = 1..64 (its code is one "
       "expression in M)", SRC, binds=("verifier.bounds.profile.first_cell:all_in_first_cell",))
def first_cell_split():
    from fractions import Fraction
    from math import comb
    from flint import arb, ctx
    from .framework import REFUTED, bound
    wa, wb, z, R = sp.symbols("wa wb z R")
    Ms = sp.Symbol("M", positive=True, integer=True)
    a = wa + wb * z
    parts = [("every M: s^M - a^M = 0 at z = 0 (r(0) = 0)",
              identity(((a + R) ** Ms - a ** Ms).subs({R: 0, z: 0}), sp.Integer(0), []))]
    for M in range(1, 11):
        piece = sum(sp.binomial(M, k) * wa ** (M - k) * wb ** k * z ** k for k in range(M + 1))
        parts.append((f"M = {M}: binomial piece", identity(sp.expand(a ** M), piece, [])))
    parts.append(("every M: binomial piece", cite("the binomial theorem",
                                                   "e.g. Graham, Knuth & Patashnik, Concrete "
                                                   "Mathematics, (5.12)")))
    f = bound("verifier.bounds.profile.first_cell:all_in_first_cell")
    qa, qb = Fraction(3, 8), Fraction(5, 16)
    bad = None
    with ctx.workprec(8 * FIRST_CELL_BOUND_M + 64):      # every term exact at this precision
        for M in range(1, FIRST_CELL_BOUND_M + 1):
            got = f(arb(3) / 8, arb(5) / 16, M)
            want = [comb(M, k) * qa ** (M - k) * qb ** k for k in range(M + 1)]
            if len(got) != len(want) or any(
                    not (g.rad() == 0 and g == arb(w.numerator) / w.denominator)
                    for g, w in zip(got, want)):
                bad = M
                break
    parts.append((f"engine: all_in_first_cell exact for M = 1..{FIRST_CELL_BOUND_M}",
                  Outcome(PROVED, "every term equals C(M, k) wa^(M-k) wb^k exactly") if bad is None
                  else Outcome(REFUTED, f"differs from the binomial piece at M = {bad}")))
    return all_proved(parts)