"""The composed profile's ends (docs/THEORY.md sections 9, 12 and 15): the identities by
which the engine reads delta's upper ends off a window's prefix and suffix sums and its
lower ends off tests, checked on the engine's own functions (verifier/numerics/ends.py and
the prefix/suffix sums of numerics/lattice.py) evaluated on SymPy symbols."""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from .framework import (PROVED, REFUTED, Outcome, all_proved, bound, check, cite,
                        identity)

SRC = "docs/THEORY.md sections 9 and 15 (the verifier's construction)"
STARTS = (-6, -3, 0, 2)        # the windows' first lattice index
N = 5                          # masses per window
ETA = Fraction(1, 4)           # the lattice step of the cut checks (exact)
ENDS = ("verifier.numerics.ends:tilted", "verifier.numerics.ends:remove_cut",
        "verifier.numerics.ends:add_cut", "verifier.numerics.ends:upper_remove_end",
        "verifier.numerics.ends:upper_add_end", "verifier.numerics.lattice:prefix_sums",
        "verifier.numerics.lattice:suffix_sums")
TESTS = ("verifier.numerics.ends:mass_at_least", "verifier.numerics.ends:mass_at_most",
         "verifier.numerics.ends:lower_test_end", "verifier.numerics.lattice:prefix_sums")


def _together(what: str, parts: list) -> Outcome:
    """One outcome for many identities of one kind: proved when each is."""
    for name, o in parts:
        if o.verdict != PROVED:
            return Outcome(o.verdict, f"{what}, {name}: {o.evidence}")
    return Outcome(PROVED, f"{len(parts)} identities ({what}), each reduced to 0 by SymPy")


def _eps_samples():
    """eps / eta at 0, every half-integer and integer up to 12, and just above each
    integer: both ends and the middle of every cut's region (eps >= 0)."""
    out = {Fraction(0)}
    for k in range(0, 13):
        out |= {Fraction(k), Fraction(2 * k + 1, 2), k + Fraction(1, 1000)}
    return sorted(x * ETA for x in out)


def _cuts(f, first, name) -> Outcome:
    """The engine's cut f(eps, eta, start, n) against the brute-force first position
    ``first(s, eps)`` at every sample and window start (exact rationals)."""
    for start in STARTS:
        for eps in _eps_samples():
            want = next((j for j in range(N) if first(start + j, eps)), N)
            got = f(eps, ETA, start, N)
            if got != want:
                return Outcome(REFUTED, f"{name} at eps = {eps}, eta = {ETA}, start = {start}: "
                                        f"{got}, the first position is {want}")
    return cite(f"{name} gives the first position at both ends and the middle of every region "
                f"(exact, {len(STARTS)} windows, eps/eta in [0, 12]); between samples the cut "
                "is constant by the definition of ceiling and floor (ceil(x) = k on (k - 1, k], "
                "floor(x) = k on [k, k + 1))",
                "Graham, Knuth & Patashnik, Concrete Mathematics, 2nd ed., Section 3.1")


@check("compose.upper-ends",
       "The composed profile's upper ends are the hockey-stick sums of the window's law.",
       "for a window law[j] at s = start + j, c = e^eps, the cut i = remove_cut(eps, ...) and "
       "i' = add_cut(eps, ...): upper_remove_end(T, W[i], P[n], P[i], c, 0, 0) = "
       "sum_j law[j] (e^{s eta} - c)_+ and upper_add_end(T', S'[i'], P[i'], c, 0, 0) = "
       "sum_j law[j] (e^{-s eta} - c)_+, with T = sum law e^{s eta}, T' = sum law e^{-s eta}, W "
       "the prefix sums of the tilted masses, S' the suffix sums of the add side's; the "
       "window's outside mass enters as 2 c P_out and the union charge once",
       "law[j] >= 0, E = e^eta > 1, c > 0, eps >= 0",
       ("law[j] >= 0", "eta > 0", "c = e^eps"),
       "exact algebra on the engine's own functions (tilted, the prefix and suffix sums, the "
       "two ends) with symbolic masses, E = e^eta and c: for every cut position i of windows "
       f"of {N} masses at starts {STARTS} the end equals the sum of law[j] (E^s - c) over "
       "the positions j >= i (remove; j < i for add), which is the sum of the positive parts "
       "on the cut's region (E^s is increasing in s); the cut functions against the first "
       "position by brute force (exact rationals); the charges' coefficients by algebra", SRC,
       binds=ENDS)
def upper_ends():
    tilted, rcut, acut, rend, aend, pre, suf = (bound(b) for b in ENDS)
    E = sp.Symbol("E", positive=True)
    c, out, ch = sp.symbols("c P_out charge", positive=True)
    law = sp.symbols(f"l0:{N}", nonnegative=True)
    zero = sp.Integer(0)
    rem, add, charges = [], [], []
    for start in STARTS:
        s = [start + j for j in range(N)]
        W = pre(tilted(list(law), E ** start, E), zero)
        P = pre(list(law), zero)
        Sa = suf(tilted(list(law), E ** (-start), 1 / E), zero)
        T = sum(v * E ** k for v, k in zip(law, s))
        Ta = sum(v * E ** (-k) for v, k in zip(law, s))
        for i in range(N + 1):
            want = sum(law[j] * (E ** s[j] - c) for j in range(i, N))
            rem.append((f"start {start}, cut {i}",
                        identity(rend(T, W[i], P[N], P[i], c, 0, 0), want, [])))
            want = sum(law[j] * (E ** (-s[j]) - c) for j in range(i))
            add.append((f"start {start}, cut {i}",
                        identity(aend(Ta, Sa[i], P[i], c, 0, 0), want, [])))
        charges.append((f"start {start}", identity(
            rend(T, W[2], P[N], P[2], c, out, ch) - rend(T, W[2], P[N], P[2], c, 0, 0)
            + aend(Ta, Sa[2], P[2], c, out, ch) - aend(Ta, Sa[2], P[2], c, 0, 0),
            2 * (2 * c * out + ch), [])))
    parts = [("remove end", _together("the remove end at every cut", rem)),
             ("add end", _together("the add end at every cut", add)),
             ("charges", _together("2 c P_out + charge in each end", charges))]
    parts.append(("remove cut", _cuts(rcut, lambda s, eps: s * ETA >= eps, "remove_cut")))
    parts.append(("add cut", _cuts(acut, lambda s, eps: -s * ETA < eps, "add_cut")))
    return all_proved(parts)


@check("compose.lower-ends",
       "The composed profile's lower ends are tests, each probability moved the safe way.",
       "mass_at_least(P, start, t) = sum_{s >= t} law[s] and mass_at_most(P, start, t) = "
       "sum_{s <= t} law[s] from the window's prefix sums P, for t below, inside and above the "
       "window; lower_test_end(p, q, excess, q_out, c) = p - excess - c (q + q_out): P(A) "
       "lowered by the aliasing excess, Q(A) raised by Q's outside mass; for any event A, "
       "P(A) - e^eps Q(A) <= delta(eps)",
       "law[s] >= 0, c > 0", ("law[s] >= 0", "c = e^eps"),
       "exact algebra on the engine's own functions with symbolic masses, every threshold t "
       f"from start - 2 to start + {N} + 2 at starts {STARTS}; the test's bound on delta cited",
       SRC, binds=TESTS)
def lower_ends():
    at_least, at_most, test_end, pre = (bound(b) for b in TESTS)
    law = sp.symbols(f"l0:{N}", nonnegative=True)
    p, q, ex, qo = sp.symbols("p q excess q_out", nonnegative=True)
    c = sp.Symbol("c", positive=True)
    ge, le = [], []
    for start in STARTS:
        P = pre(list(law), sp.Integer(0))
        for t in range(start - 2, start + N + 3):
            ge.append((f"t {t}, start {start}", identity(
                at_least(P, start, t), sum(law[j] for j in range(N) if start + j >= t), [])))
            le.append((f"t {t}, start {start}", identity(
                at_most(P, start, t), sum(law[j] for j in range(N) if start + j <= t), [])))
    parts = [("mass >= t", _together("the mass at indices >= t", ge)),
             ("mass <= t", _together("the mass at indices <= t", le))]
    parts.append(("the test's end", identity(test_end(p, q, ex, qo, c),
                                             p - ex - c * (q + qo), [])))
    parts.append(("a test bounds delta", cite(
        "delta(eps) = sup_A P(A) - e^eps Q(A) (the hockey-stick divergence; the definition of "
        "(eps, delta)-indistinguishability)",
        "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014, "
        "Definition 2.4; Balle, Barthe & Gaboardi, arXiv 1807.01647 v2, Section 2")))
    return all_proved(parts)
