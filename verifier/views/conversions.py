"""Conversions of Rényi and zCDP guarantees to (epsilon, delta), certified (docs/THEORY.md
section 10): the classical conversion (Mironov 2017, Proposition 3), the improved one (Balle
et al. 2020, Theorem 21; cited), zCDP (Bun & Steinke 2016, Proposition 1.3; cited), each
evaluated in Arb at both ends of a bracket and optimised over the given orders."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from verifier.core.arith import Interval, frac_str, to_arb
from verifier.views.grid import PREC


def ball_up(x: arb) -> Fraction:
    from verifier.core.arith import ball_bounds
    return ball_bounds(x)[1]


def ball_down(x: arb) -> Fraction:
    from verifier.core.arith import ball_bounds
    return ball_bounds(x)[0]


@dataclass(frozen=True)
class Conversion:
    """An (epsilon, delta) upper bound from the Rényi curve: ``epsilon`` is the bracket of
    the conversion's value (its upper end the certified guarantee), ``alpha`` the order."""
    name: str
    epsilon: Interval
    alpha: Fraction
    direction: str

    def to_json(self) -> dict:
        return {"name": self.name, "epsilon": self.epsilon.to_json(),
                "alpha": frac_str(self.alpha), "direction": self.direction}


def _conv(D: Fraction, alpha: Fraction, delta: Fraction, improved: bool, prec=PREC) -> arb:
    with ctx.workprec(prec):
        a, d = to_arb(alpha), to_arb(delta)
        if improved:
            return to_arb(D) + ((a - 1) / a).log() - (d.log() + a.log()) / (a - 1)
        return to_arb(D) - d.log() / (a - 1)


def conversion_at(D: Interval, alpha: Fraction, delta: Fraction, improved: bool) -> tuple:
    """(ball at D's lower end, ball at its upper end) of one order's conversion: an enclosure
    of the conversion of the exact D_alpha (the conversion increases with D)."""
    return _conv(D.lower, alpha, delta, improved), _conv(D.upper, alpha, delta, improved)


def convert(orders, delta: Fraction, improved: bool = True) -> Conversion:
    """min over the orders of each direction's conversion; the larger direction."""
    best = {}
    for which in ("remove", "add"):
        cand = []
        for o in orders:
            iv = getattr(o, which)
            lo, hi = conversion_at(iv, o.alpha, delta, improved)
            cand.append((ball_up(hi), ball_down(lo), o.alpha))
        up, _, alpha = min(cand)
        best[which] = (max(min(c[1] for c in cand), Fraction(0)), up, alpha)
    which = "remove" if best["remove"][1] >= best["add"][1] else "add"
    lo = max(best["remove"][0], best["add"][0])
    up = best[which][1]
    name = "improved (Balle et al. 2020)" if improved else "classical (Mironov 2017)"
    return Conversion(name, Interval(max(lo, Fraction(0)), max(up, Fraction(0))), best[which][2],
                      which)


def zcdp_convert(rho: Interval, delta: Fraction, improved: bool = True) -> Conversion:
    """(epsilon, delta) from rho-zCDP: the same conversion applied to D_a = rho a, at the
    float-optimal real order (any order is valid); classical: rho + 2 sqrt(rho log(1/delta))
    (Bun & Steinke 2016, Proposition 1.3)."""
    r = float(rho.upper)
    ld = -math.log(float(delta))
    if not improved:
        with ctx.workprec(PREC):
            lo = to_arb(rho.lower) + 2 * (to_arb(rho.lower) * -to_arb(delta).log()).sqrt()
            hi = to_arb(rho.upper) + 2 * (to_arb(rho.upper) * -to_arb(delta).log()).sqrt()
        a = Fraction(1 + math.sqrt(ld / r)).limit_denominator(10 ** 6) if r > 0 else Fraction(2)
        return Conversion("classical (Bun & Steinke 2016)", Interval(ball_down(lo), ball_up(hi)), a, "zcdp")

    def f(a):
        return r * a + math.log((a - 1) / a) - (math.log(float(delta)) + math.log(a)) / (a - 1)
    a0 = 1 + math.sqrt(ld / r) if r > 0 else 2.0
    grid = [1 + (a0 - 1) * 2.0 ** (k / 64) for k in range(-256, 257)]
    a = Fraction(min(grid, key=f)).limit_denominator(10 ** 6)
    lo, hi = _conv(rho.lower * a, a, delta, True), _conv(rho.upper * a, a, delta, True)
    return Conversion("improved (Balle et al. 2020)", Interval(max(ball_down(lo), Fraction(0)),
                                                               max(ball_up(hi), Fraction(0))), a, "zcdp")


class Converts:
    """What a Rényi curve of remove and add orders (``orders``, RenyiOrder rows) and a
    remove-direction zCDP parameter (``zcdp_remove``) offers: its conversions to (epsilon,
    delta) and their JSON (PoissonRenyi, RunRenyi)."""

    def to_epsilon(self, delta, improved: bool = True) -> Conversion:
        from verifier.core.arith import parse_delta
        return convert(self.orders, parse_delta(delta), improved)

    def zcdp_epsilon(self, delta, improved: bool = True) -> Conversion:
        from verifier.core.arith import parse_delta
        return zcdp_convert(self.zcdp_remove, parse_delta(delta), improved)

    def conversions_json(self, delta) -> dict:
        from verifier.core.arith import frac_str
        return {"delta": frac_str(delta),
                "renyi_classical": self.to_epsilon(delta, improved=False).to_json(),
                "renyi_improved": self.to_epsilon(delta).to_json()}
