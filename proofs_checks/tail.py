"""The tail term T6 of Theorem 3.1 (arXiv 2605.06259 v1; docs/THEORY.md section 3).

T6 bounds the Gaussian tail Phi(-t) at the worst admissible sigma = sqrt(3/ln M),
t = sigma ln(M/2) - 1/(2 sigma).  The printed constants 4.52, 2.88, 2.41 enter
as exact decimals (the ones of ``verifier.symbolic.terms``).
"""
from __future__ import annotations

import sympy as sp
from flint import arb, ctx

from verifier.symbolic import terms as T31
from .framework import (PROVED, REFUTED, UNKNOWN, Outcome, all_proved, check, identity,
                        sign_proved)

SRC = "Theorem 3.1 / Appendix E of arXiv 2605.06259 v1 (docs/THEORY.md section 3, reconstructed)"
ell = sp.Symbol("ell", positive=True)        # ell = ln M > 0
sig = sp.Symbol("sigma", positive=True)
tt = sp.Symbol("t", positive=True)
LN2 = sp.log(2)

A_EXACT = 5 / (2 * sp.sqrt(3))               # t = A sqrt(ell) - Bc / sqrt(ell)
B_EXACT = sp.sqrt(3) * LN2


def t_of_sigma(s, L=ell):
    """t = sigma ln(M/2) - 1/(2 sigma), with ln M = L."""
    return s * (L - LN2) - 1 / (2 * s)


def t_worst():
    return t_of_sigma(sp.sqrt(3 / ell))


def exact_constants():
    """(numerator, a, b) of the exact form c / (a sqrt(ell) - b / sqrt(ell)) M^{-25/24}:
    Phi(-t) <= phi(t)/t <= 2^{5/2} M^{-25/24} / (sqrt(2 pi) t), written with 2t."""
    num = 2 * 2 ** sp.Rational(5, 2) / sp.sqrt(2 * sp.pi)
    return num, 2 * A_EXACT, 2 * B_EXACT


@check("tail.t-at-worst-sigma", "t at the worst admissible sigma.",
       "t(sqrt(3/ln M)) = (5/(2 sqrt 3)) sqrt(ln M) - sqrt(3) ln 2 / sqrt(ln M)", "M",
       ("M >= 3",), "exact algebra: substitute sigma = sqrt(3/ln M) into t = sigma ln(M/2) - 1/(2 sigma)",
       SRC)
def t_at_worst_sigma():
    return identity(t_worst(), A_EXACT * sp.sqrt(ell) - B_EXACT / sp.sqrt(ell), [{ell: 3}])


EXPONENT = sp.Rational(25, 24)    # derived below (exponent_25_24): t^2/2 = (25/24) ln M - ...


@check("tail.exponent-25-24", "Where the exponent 25/24 comes from.",
       "t^2/2 = (25/24) ln M - (5/2) ln 2 + (3/2) ln(2)^2 / ln M >= (25/24) ln M - (5/2) ln 2, "
       "so e^{-t^2/2} <= 2^{5/2} M^{-25/24}", "M", ("M >= 3",),
       "exact algebra: expansion of t^2/2 and the sign of the dropped term", SRC)
def exponent_25_24():
    half_sq = sp.expand(t_worst() ** 2 / 2)
    main = EXPONENT * ell - sp.Rational(5, 2) * LN2
    rest = sp.Rational(3, 2) * LN2**2 / ell
    return all_proved([
        ("expansion", identity(half_sq, main + rest, [{ell: 2}])),
        ("dropped term >= 0", sign_proved(rest, "nonnegative")),
        ("e^{-main} = 2^{5/2} M^{-25/24}", identity(sp.exp(-main),
                                                   2 ** sp.Rational(5, 2) * sp.exp(-EXPONENT * ell),
                                                   [{ell: 2}])),
    ])


@check("tail.exact-constants", "The exact constants behind 4.52, 2.88, 2.41.",
       "Phi(-t) <= (2 * 2^{5/2}/sqrt(2 pi)) / (2t) * M^{-25/24}, 2t = (5/sqrt 3) sqrt(ln M) "
       "- 2 sqrt(3) ln 2 / sqrt(ln M); constants 4.5135..., 2.8867..., 2.4011...", "M", ("M >= 3",),
       "exact algebra for the form; certified ball enclosures of the constants", SRC)
def exact_constants_check():
    num, a, b = exact_constants()
    with ctx.workprec(128):
        nb = arb(2) ** arb("3.5") / (2 * arb.pi()).sqrt()
        ab = 5 / arb(3).sqrt()
        bb = 2 * arb(3).sqrt() * arb(2).log()
    ok = (nb > arb("4.5135") and nb < arb("4.5136") and ab > arb("2.8867") and ab < arb("2.8868")
          and bb > arb("2.4011") and bb < arb("2.4012"))
    form = identity(num / (a * sp.sqrt(ell) - b / sp.sqrt(ell)),
                    (2 ** sp.Rational(5, 2) / sp.sqrt(2 * sp.pi)) / t_worst(), [{ell: 2}])
    return all_proved([("form", form),
                       ("enclosures", Outcome(PROVED if ok else REFUTED,
                                              f"{nb.str(8)}, {ab.str(8)}, {bb.str(8)}"))])


def printed_constants_outcome(num=T31.T6_NUM, a=T31.T6_A, b=T31.T6_B) -> Outcome:
    """Certified: printed numerator >= exact, printed a <= exact, printed b >= exact."""
    en, ea, eb = exact_constants()
    with ctx.workprec(128):
        ball = {"num": arb(2) ** arb("3.5") / (2 * arb.pi()).sqrt(), "a": 5 / arb(3).sqrt(),
                "b": 2 * arb(3).sqrt() * arb(2).log()}
        pn, pa, pb = (arb(sp.Rational(c).p) / sp.Rational(c).q for c in (num, a, b))
    steps = [
        ("numerator", pn >= ball["num"], pn < ball["num"], f"{num} vs {ball['num'].str(8)}"),
        ("sqrt(ln M) coefficient", pa <= ball["a"], pa > ball["a"], f"{a} vs {ball['a'].str(8)}"),
        ("1/sqrt(ln M) coefficient", pb >= ball["b"], pb < ball["b"], f"{b} vs {ball['b'].str(8)}"),
    ]
    parts = []
    for name, safe, unsafe, text in steps:
        verdict = PROVED if safe else REFUTED if unsafe else UNKNOWN
        parts.append((name, Outcome(verdict, ("safe: " if safe else "UNSAFE: ") + text)))
    return all_proved(parts)


@check("tail.printed-constants-safe", "The printed 4.52, 2.88, 2.41 are on the safe side.",
       "4.52 >= 2^{7/2}/sqrt(2 pi),  2.88 <= 5/sqrt 3,  2.41 >= 2 sqrt(3) ln 2", "-", (),
       "certified ball comparison of exact decimals with the exact constants", SRC)
def printed_constants_safe():
    return printed_constants_outcome()


def mills_outcome() -> Outcome:
    phi_t = sp.exp(-tt**2 / 2) / sp.sqrt(2 * sp.pi)
    Phi_neg = (1 - sp.erf(tt / sp.sqrt(2))) / 2
    g = phi_t / tt - Phi_neg
    return all_proved([
        ("g' = -phi(t)/t^2", identity(sp.diff(g, tt), -phi_t / tt**2, [{tt: 2}])),
        ("g' < 0", sign_proved(-phi_t / tt**2, "negative")),
        ("g -> 0 at infinity", Outcome(PROVED, "limit 0") if sp.limit(g, tt, sp.oo) == 0
         else Outcome(UNKNOWN, "limit not 0")),
    ])


@check("tail.mills-ratio", "Mills-ratio bound of the Gaussian tail.",
       "Phi(-t) <= phi(t)/t for all t > 0", "t", ("t > 0",),
       "exact algebra: g = phi(t)/t - Phi(-t) has g' = -phi/t^2 < 0 and g -> 0 at infinity, so g > 0",
       "standard (Gordon 1941)")
def mills_ratio():
    return mills_outcome()


def ln3_above(q) -> Outcome:
    with ctx.workprec(128):
        ok = arb(3).log() > arb(sp.Rational(q).p) / sp.Rational(q).q
    return Outcome(PROVED if ok else UNKNOWN, f"ln 3 > {q} (certified)")


@check("tail.T6-bounds-tail", "T6 as printed bounds the Gaussian tail for every M >= 3, and "
       "the engine's T6 is that printed form.",
       "Phi(-t(sqrt(3/ln M))) <= 4.52 / (2.88 sqrt(ln M) - 2.41/sqrt(ln M)) M^{-25/24} for all "
       "M >= 3; terms()[5] (the expression the T6 evaluator is generated from) equals it",
       "M", ("M >= 3 (real)",),
       "chain: t > 0 for ln M > (6/5) ln 2 (ln 3 > 6/5 ln 2 certified); Mills ratio; "
       "exponent 25/24 (derived from t^2/2); 2t >= printed denominator > 0 for ln M >= ln 3 "
       "(coefficients' signs certified); printed numerator >= exact; the engine's T6, read "
       "from verifier.symbolic.terms, is the printed form with the derived exponent (SymPy)",
       SRC, binds=("verifier.symbolic.terms:terms", "verifier.symbolic.terms:T6_NUM",
                   "verifier.symbolic.terms:T6_A", "verifier.symbolic.terms:T6_B"))
def t6_bounds_tail():
    num, a, b = exact_constants()
    da = a - T31.T6_A                    # 2t - printed denominator = da sqrt(l) + db / sqrt(l)
    db = T31.T6_B - b
    with ctx.workprec(128):
        da_b = 5 / arb(3).sqrt() - arb(288) / 100
        db_b = arb(241) / 100 - 2 * arb(3).sqrt() * arb(2).log()
    t_pos_threshold = sp.Rational(6, 5) * LN2
    return all_proved([
        ("t > 0 iff ln M > (6/5) ln 2", identity(sp.solve(t_worst(), ell)[0], t_pos_threshold,
                                                  [])),
        ("t increasing in ln M", sign_proved(sp.diff(t_worst(), ell), "positive")),
        ("ln 3 > (6/5) ln 2", Outcome(PROVED, "certified") if arb(3).log() > arb("1.2") * arb(2).log()
         else Outcome(UNKNOWN, "undecided")),
        ("Mills ratio", mills_outcome()),
        ("exponent", exponent_25_24()),
        ("2t - printed denominator = da sqrt(l) + db/sqrt(l)",
         identity(2 * t_worst() - (T31.T6_A * sp.sqrt(ell) - T31.T6_B / sp.sqrt(ell)),
                  da * sp.sqrt(ell) + db / sp.sqrt(ell), [{ell: 2}])),
        ("da > 0 and db > 0", Outcome(PROVED, f"{da_b.str(5)}, {db_b.str(5)}")
         if da_b > 0 and db_b > 0 else Outcome(REFUTED, "a coefficient is negative")),
        ("printed denominator > 0 for ln M >= ln 3", ln3_above(T31.T6_B / T31.T6_A)),
        ("printed constants safe", printed_constants_outcome()),
        ("the engine's T6 is the printed form", engine_t6_outcome()),
    ])


def engine_t6_outcome() -> Outcome:
    """terms()[5], read from the engine, equals T6_NUM / (T6_A sqrt(ln M) - T6_B/sqrt(ln M))
    M^{-e} with e the exponent derived by exponent_25_24 (EXPONENT)."""
    from .framework import bound
    t6 = bound("verifier.symbolic.terms:terms")()[5]
    num, a, b = (bound(f"verifier.symbolic.terms:{n}") for n in ("T6_NUM", "T6_A", "T6_B"))
    L = sp.log(T31.M)
    proved_form = num / (a * sp.sqrt(L) - b / sp.sqrt(L)) * T31.M ** -EXPONENT
    return identity(t6, proved_form, [{T31.M: 10}, {T31.M: 1000}])


@check("tail.t-increasing-in-sigma", "The worst case covers every admissible sigma.",
       "dt/dsigma = ln(M/2) + 1/(2 sigma^2) > 0 for M >= 3, so t(sigma) >= t(sqrt(3/ln M)) "
       "for sigma >= sqrt(3/ln M)", "sigma, M", ("sigma > 0", "M >= 3"),
       "exact algebra: derivative; ln(M/2) > 0 for M > 2", SRC)
def t_increasing():
    w = sp.Symbol("w", positive=True)   # M = 2 (1 + w) covers M > 2
    d = sp.diff(t_of_sigma(sig, sp.log(2 * (1 + w))), sig)
    return all_proved([
        ("derivative", identity(d, sp.log(1 + w) + 1 / (2 * sig**2), [{w: 1, sig: 2}])),
        ("positive", sign_proved(sp.log(1 + w) + 1 / (2 * sig**2), "positive")),
    ])


@check("tail.denominator-positive", "The denominator of T6 is positive exactly for M >= 3.",
       "2.88 sqrt(ln M) - 2.41/sqrt(ln M) > 0 iff M > e^{241/288} = 2.309...; for integers M >= 2 "
       "exactly M >= 3", "M", ("M >= 2 integer (M = 1: ln M = 0, undefined)",),
       "exact algebra (multiply by sqrt(ln M) > 0) and certified enclosure of e^{241/288}", SRC)
def denominator_positive():
    thr = T31.T6_B / T31.T6_A
    with ctx.workprec(128):
        e = (arb(thr.p) / thr.q).exp()
        ok = e > 2 and e < 3
        d2 = arb(288) / 100 * arb(2).log().sqrt() - arb(241) / 100 / arb(2).log().sqrt()
    return all_proved([
        ("den * sqrt(ln M) = 2.88 (ln M - 241/288)",
         identity(sp.expand((T31.T6_A * sp.sqrt(ell) - T31.T6_B / sp.sqrt(ell)) * sp.sqrt(ell)),
                  T31.T6_A * (ell - thr), [{ell: 2}])),
        ("2 < e^{241/288} < 3", Outcome(PROVED if ok else UNKNOWN, e.str(8))),
        ("negative at M = 2", Outcome(PROVED if d2 < 0 else UNKNOWN, d2.str(8))),
    ])
