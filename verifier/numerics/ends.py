"""The composed profile's ends as formulas of a window's sums (docs/THEORY.md sections 9 and
15): where the hockey-stick sum is cut, which weighted and plain sums enter each end, with
which signs and charges.  Pure functions of their arguments: the engine
(``numerics.compose.ComposedProfile``) calls them on Arb balls, the proof checks
``compose.upper-ends`` and ``compose.lower-ends`` on SymPy symbols (the checks bind these
functions, so a change here that breaks an identity fails check-proofs).

A window holds the composed law's masses law[j] at the lattice index s = start + j,
j = 0 .. n - 1; prefix sums P[i] = sum_{j < i} (numerics.lattice.prefix_sums), suffix sums
S[i] = sum_{j >= i} (suffix_sums); eta the lattice step, c = e^eps.
"""
from __future__ import annotations

import math
from fractions import Fraction


def tilted(law: list, first, step) -> list:
    """[law[j] first step^j]: the window's masses times e^{s eta} (first = e^{start eta},
    step = e^eta; remove) or e^{-s eta} (first = e^{-start eta}, step = e^-eta; add)."""
    out, z = [], first
    for v in law:
        out.append(v * z)
        z = z * step
    return out


def remove_cut(eps: Fraction, eta: Fraction, start: int, n: int) -> int:
    """The window position i of the first index s = start + i with s eta >= eps (where
    e^{s eta} - c >= 0), clamped to [0, n]: s0 = ceil(eps / eta)."""
    return min(max(math.ceil(eps / eta) - start, 0), n)


def add_cut(eps: Fraction, eta: Fraction, start: int, n: int) -> int:
    """The window position i of the first index s = start + i with -s eta < eps (the terms
    e^{-s eta} - c >= 0 are those at positions j < i, s <= s1 = floor(-eps / eta)), clamped
    to [0, n]."""
    return min(max(math.floor(-eps / eta) + 1 - start, 0), n)


def upper_remove_end(total, weighted_below, mass, mass_below, c, outside, charge):
    """sum_s law[s] (e^{s eta} - c)_+ + 2 c P_out + union charge, with the cut at i:
    total = sum_s law[s] e^{s eta} (over the whole composed law), weighted_below the prefix
    sum of the tilted masses at i, mass the window's mass, mass_below its prefix sum at i:
    total - weighted_below - c (mass - mass_below) + 2 c outside + charge."""
    return total - weighted_below - c * (mass - mass_below) + 2 * c * outside + charge


def upper_add_end(total, weighted_above, mass_below, c, outside, charge):
    """sum_s law[s] (e^{-s eta} - c)_+ + 2 c P_out + union charge, with the cut at i (the
    positive terms at j < i): total = sum_s law[s] e^{-s eta}, weighted_above the suffix
    sum of the tilted masses at i (kept as a suffix sum: the weights are largest at the
    window's left end), mass_below the prefix sum at i:
    total - weighted_above - c mass_below + 2 c outside + charge."""
    return total - weighted_above - c * mass_below + 2 * c * outside + charge


def mass_at_least(P: list, start: int, t: int):
    """The window's mass at indices >= t, from its prefix sums P."""
    n = len(P) - 1
    return P[n] - P[min(max(t - start, 0), n)]


def mass_at_most(P: list, start: int, t: int):
    """The window's mass at indices <= t, from its prefix sums P."""
    n = len(P) - 1
    return P[min(max(t + 1 - start, 0), n)]


def lower_test_end(p_event, q_event, excess, q_outside, c):
    """A test's lower end of delta: P(A) - c Q(A) with P(A) lowered by the aliasing excess
    and Q(A) raised by the mass outside Q's window: p_event - excess - c (q_event +
    q_outside).  Remove: P = P1, Q = P0, A = {S >= t}; add: P = P0, Q = P1, A = {S <= t}."""
    return p_event - excess - c * (q_event + q_outside)
