"""The add direction's moment bound of the random-allocation pair (docs/THEORY.md section 9):
another valid upper end of delta_A(eps), tight far in the tail where the lattice laws'
spread is not.  The composition itself is the kernel's (verifier/numerics/compose.py)."""
from __future__ import annotations

from fractions import Fraction

from flint import arb

from verifier.core.arith import to_arb


def add_moment_bound(sigma: Fraction, M: int, E: int, eps: Fraction) -> arb:
    """An upper end of delta_A(eps) = E_P0[(1 - c L)_+] from moments (the verifier's
    construction; docs/THEORY.md section 9): for theta > 0, (1 - x)_+ <= C_theta x^{-theta}
    with C_theta = theta^theta / (1 + theta)^{1 + theta} (the maximum of (1 - x) x^theta), and
    E_P0[L^{-theta}] = (E_P0[W^{-theta}])^E <= e^{E theta (theta/M + 1) u / 2} (W >= the
    geometric mean of its M lognormals, AM-GM; E[Y^{-s}] = e^{s (s + 1) u / 2}, proof check
    profile.add-moment-bound), so delta_A(eps) <= C_theta e^{-theta eps + E theta (theta/M + 1) u / 2}.
    The best of a ladder of dyadic theta around the float optimum (a free parameter).  Tight
    only far in the tail, where the lattice's spread is not (small sigma, small M)."""
    uf = float(sigma) ** -2
    k = E * uf / M                              # exponent: -theta (eps - E u / 2) + k theta^2 / 2
    t0 = (float(eps) - E * uf / 2) / k
    if not t0 > 0:
        return arb(1)
    u = 1 / to_arb(sigma) ** 2
    e = to_arb(eps)
    best = arb(1)
    for f in (0.5, 0.7, 0.85, 1.0, 1.2, 1.5, 2.0):
        th = to_arb(Fraction(t0 * f).limit_denominator(2 ** 20))
        C = (th * th.log() - (1 + th) * (1 + th).log()).exp()
        b = C * (-th * e + E * th * (th / M + 1) * u / 2).exp()
        if b.upper() < best.upper():
            best = arb(b.upper())
    return best
