"""The numerical kernel, part 4: one step's pair of distributions as lattice laws, from its
privacy profile at lattice points (docs/THEORY.md section 12).

Upper ends: a dominating pair ("connect the dots", Doroshenko, Ghazi, Kamath, Kumar and
Manurangsi, PETS 2022(4), arXiv 2207.04380 v1, Section 3; cited).  For a pair (A, B) with
likelihood ratio L = dA/dB, delta(c) = E_B[(L - c)_+] (c = e^eps >= 0) is convex and
nonincreasing in c, delta(0) = A(L > 0) = 1 when A << B.  Its piecewise-linear interpolation
through (0, 1) and (c_i, delta(c_i)) at increasing points c_0 < ... < c_n, continued by the
constant delta(c_n) beyond c_n, lies above delta everywhere (a chord of a convex function
lies above it; delta is nonincreasing), and it is itself the profile of a pair (A', B'):
B' puts mass b_i = s_i - s_{i-1} at L = c_i (s_i the interpolant's slope right of c_i,
s_n = 0, s_{-1} the slope on [0, c_0]), A' = c_i b_i there, A' has an atom delta(c_n) at
L = +inf and B' an atom 1 + s_{-1} at L = 0.  (A', B') dominates (A, B) (its hockey-stick
divergence is at least as large at every eps), and dominating pairs compose: the T-fold
products of (A', B') dominate those of (A, B) (Zhu, Dong and Wang, AISTATS 2022,
arXiv 2106.08567 v3, Theorem 10; cited).  In the composition the atom at L = 0 adds
nothing to E_B[(L - c)_+]; the atom at +inf is charged by a union bound, T delta(c_n).

Lower ends: the test statistic "the cell of the privacy loss", cells between consecutive
points, its laws under A and B exact (differences of the tails A(L > c_i), B(L > c_i));
any event of the composed statistic gives delta_T(eps) >= A^T(event) - e^eps B^T(event).

Every input is an Arb ball that contains the exact value; the masses returned contain the
exact masses of the dominating pair (and of the test statistic's laws)."""
from __future__ import annotations

from flint import arb


def connect_the_dots(points: list) -> tuple[dict, arb]:
    """``points``: [(k, c_k, delta_k)] with c_k increasing and > 0, delta_k = delta(c_k)
    (balls).  Returns (b, atom): b[k] the B'-mass at L = c_k of the dominating pair above,
    atom = delta(c_n) its A'-mass at L = +inf.  The B'-mass at L = 0 is left out (it adds
    nothing to any delta(c) of a composition).  Plain field arithmetic: balls, or SymPy
    symbols (proof check poisson.connect-the-dots runs it on symbols)."""
    b = {}
    s_left = (points[0][2] - 1) / points[0][1]          # the chord from (0, 1)
    for i, (k, c, d) in enumerate(points):
        if i + 1 < len(points):
            _, c2, d2 = points[i + 1]
            s_right = (d2 - d) / (c2 - c)
        else:
            s_right = 0 * d                              # constant beyond c_n (0 of d's type)
        b[k] = s_right - s_left
        s_left = s_right
    return b, points[-1][2]


def cell_masses(tails: list, below: arb | None = None) -> dict:
    """The law of "the cell of the loss" from upper tails ``tails`` = [(k, G_k)] with
    G_k = the mass of {loss >= k} (k increasing): cell [k_i, k_{i+1}) labelled k_i gets
    G_{k_i} - G_{k_{i+1}}, the last cell [k_n, inf) gets G_{k_n}; ``below`` (if given) is
    labelled k_0 - 1 and gets the mass below k_0, 1 - G_{k_0} (else it must be 0)."""
    out = {}
    if below is not None:
        out[tails[0][0] - 1] = below
    for i, (k, g) in enumerate(tails):
        nxt = tails[i + 1][1] if i + 1 < len(tails) else arb(0)
        out[k] = g - nxt
    return out
