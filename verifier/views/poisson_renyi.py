"""The Rényi curve of Poisson subsampling, certified (docs/THEORY.md section 12, "Rényi").

One step (section 12's pair; W = dP/dQ = 1 - q + q Y, Y = e^{Z/sigma - u/2}, Z ~ N(0, 1)
under Q):
    remove  D_a(P || Q) = log E_Q[W^a] / (a - 1)
    add     D_a(Q || P) = log E_P[(Q/P)^a] / (a - 1) = log E_Q[W^{1-a}] / (a - 1),
and T steps add up: D_a(P^T || Q^T) = T D_a(P || Q) (exactly, for product measures).

- Integer orders of the remove direction exactly: E_Q[W^a] = sum_k C(a, k) (1 - q)^{a-k} q^k
  e^{k (k-1) u / 2} (binomial expansion and E[Y^k] = e^{k(k-1)u/2}, proof check
  lognormal.raw-moments; Mironov, Talwar & Zhang, arXiv 1908.10530 v1, Section 3.3).
- Every other order and the add direction: E_Q[W^l] = int phi(z) W(z)^l dz by Arb's
  certified integration (acb.integral, the integrand analytic where Re W > 0, checked) on
  [z_lo, z_hi], plus the two tails bounded in closed form (the integrand is positive, so the
  integral over the window is a lower end):
    remove (l = a >= 1): W = ((1 - q)/Y + q) Y <= k Y for z >= z_hi, k = (1 - q)/Y(z_hi) + q
        (Y increasing), and W <= 1 for z <= 1/(2 sigma) (Y <= 1):
        upper tail <= k^a E[Y^a 1{Z >= z_hi}] = k^a e^{a(a-1)u/2} Phi(a/sigma - z_hi),
        lower tail <= Phi(z_lo);
    add (l = 1 - a <= 0): W >= 1 for z >= 1/(2 sigma): upper tail <= Phi(-z_hi); W >= 1 - q and
        W >= q Y: lower tail <= min((1 - q)^l Phi(z_lo), q^l e^{l(l-1)u/2} Phi(z_lo - l/sigma))
  (the partial moments E[Y^n 1{Z < b}] = e^{n(n-1)u/2} Phi(b - n/sigma), proof check
  lognormal.partial-moment).
- zCDP of the remove direction: rho = T u / 2 exactly (D_a(P_q || Q) <= D_a(P_1 || Q) = a u/2
  by joint convexity, and D_a / a -> u/2 as a -> inf from the k = a term of the sum): no
  amplification by subsampling survives the compression (arXiv 2610.02414 v1, Section 4).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.core.arith import InputError, Interval, frac_str, to_arb
from verifier.core.arith import ball_bounds
from verifier.numerics.lattice import normal_sf
from verifier.views.conversions import Converts
from verifier.views.renyi import MAX_ORDER, RenyiOrder

PREC = 128
Z_MARGIN = 14            # the integration window: 14 standard deviations beyond the peak


def _phi_cdf(x: arb) -> arb:
    return normal_sf(-x)


def _integer_remove(sigma: Fraction, q: Fraction, a: int) -> arb:
    """E_Q[W^a] exactly (the binomial expansion), a >= 2 integer."""
    s, qa = to_arb(sigma), to_arb(q)
    u = 1 / (s * s)
    return sum((math.comb(a, k) * (1 - qa) ** (a - k) * qa ** k * (k * (k - 1) * u / 2).exp()
                for k in range(a + 1)), arb(0))


def _moment(sigma: Fraction, q: Fraction, lam: Fraction) -> tuple[arb, arb]:
    """(lower, upper) of E_Q[W^lam] for lam >= 1 (remove) or lam <= 0 (add), by certified
    integration on a window and closed-form tails (module docstring)."""
    s, qa, la = to_arb(sigma), to_arb(q), to_arb(lam)
    u = 1 / (s * s)
    peak = abs(float(lam)) / float(sigma)
    z_hi = math.ceil(peak + Z_MARGIN)
    z_lo = -math.ceil(peak + Z_MARGIN)
    c = 1 / (2 * arb.pi()).sqrt()
    nan = acb(arb("nan"))

    def f(z, analytic):
        w = (1 - qa) + qa * (z / s - u / 2).exp()
        if analytic and not w.real > 0:
            return nan                       # log W is analytic only where Re W > 0
        return c * (-z * z / 2 + la * w.log()).exp()
    inner = acb.integral(f, z_lo, z_hi).real
    zl, zh = arb(z_lo), arb(z_hi)
    if lam >= 1:
        # z >= z_hi: W = ((1 - q)/Y + q) Y <= ((1 - q)/Y_hi + q) Y, Y_hi = Y(z_hi) >= 1
        k = (1 - qa) / (zh / s - u / 2).exp() + qa
        tails = (k ** la * (la * (la - 1) * u / 2).exp() * _phi_cdf(la / s - zh)
                 + _phi_cdf(zl))
    else:
        by_y = qa ** la * (la * (la - 1) * u / 2).exp() * _phi_cdf(zl - la / s)
        lower_tail = by_y if q == 1 else _min_upper((1 - qa) ** la * _phi_cdf(zl), by_y)
        tails = _phi_cdf(-zh) + lower_tail
    lo = arb(inner.lower()) if inner.lower() > 0 else arb(0)
    return lo, arb((inner + tails).upper())


def _dn(x: arb) -> Fraction:
    return ball_bounds(x)[0]


def _up(x: arb) -> Fraction:
    return ball_bounds(x)[1]


def _min_upper(a: arb, b: arb) -> arb:
    return a if a.upper() <= b.upper() else b


def _div(lo: arb, hi: arb, alpha: Fraction, T: int) -> Interval:
    """T log(E) / (alpha - 1) for E in [lo, hi], outward."""
    a = to_arb(alpha)
    d_lo = T * lo.log() / (a - 1) if lo > 0 else arb(0)
    d_hi = T * hi.log() / (a - 1)
    return Interval(max(_dn(d_lo), Fraction(0)), max(_up(d_hi), Fraction(0)))


@dataclass(frozen=True)
class PoissonRenyi(Converts):
    sigma: Fraction
    sample_rate: Fraction
    steps: int                    # T, steps in all
    orders: tuple                 # RenyiOrder, by increasing alpha
    zcdp_remove: Interval
    seconds: float
    info: dict = field(default_factory=dict)

    def to_json(self, delta: Fraction | None = None) -> dict:
        out = {"sampling": "poisson", "sigma": frac_str(self.sigma),
               "sample_rate": frac_str(self.sample_rate), "total_steps": self.steps,
               "orders": [o.to_json() for o in self.orders],
               "zcdp": {"remove": self.zcdp_remove.to_json(),
                        "note": "remove: rho = T u / 2 exactly (no amplification survives); "
                                "add: not computed"},
               "certified": CERTIFIED, "seconds": round(self.seconds, 3)}
        if delta is not None:
            out["conversions"] = self.conversions_json(delta)
        return out


CERTIFIED = ("rigorous brackets: integer orders of the remove direction exact (binomial "
             "expansion in Arb), other orders and the add direction by Arb's certified "
             "integration plus closed-form tails (docs/THEORY.md section 12); T steps by "
             "additivity")


def _order(sigma: Fraction, q: Fraction, T: int, alpha: Fraction) -> RenyiOrder:
    """Both directions at one order (ArithmeticError where a ball is not finite)."""
    if alpha.denominator == 1:
        m = _integer_remove(sigma, q, int(alpha))
        rem, how = _div(m, m, alpha, T), "remove exact (binomial sum)"
    else:
        rem, how = _div(*_moment(sigma, q, alpha), alpha, T), "integration"
    add = _div(*_moment(sigma, q, 1 - alpha), alpha, T)
    return RenyiOrder(alpha, rem, add, how + "; add by integration")


def poisson_renyi(sigma: Fraction, q: Fraction, T: int, orders) -> PoissonRenyi:
    """Both directions' Rényi divergences of T Poisson-subsampled steps at each order."""
    from verifier.bounds.poisson import check_range
    check_range(sigma, q, T)
    t = time.perf_counter()
    from verifier.core.progress import report
    rows, orders = [], sorted(set(orders))
    with ctx.workprec(PREC):
        for i, alpha in enumerate(orders):
            report(f"Rényi divergences of Poisson subsampling: order {frac_str(alpha)}", i,
                   len(orders))
            if not 1 < alpha <= MAX_ORDER:
                raise InputError(f"order {frac_str(alpha)} is outside (1, {MAX_ORDER}]")
            try:
                rows.append(_order(sigma, q, T, alpha))
            except ArithmeticError:          # a ball the integration lost (not finite)
                raise InputError(
                    f"order {frac_str(alpha)}: the Rényi divergence at sigma = "
                    f"{frac_str(sigma)}, q = {frac_str(q)} is beyond the engine's ball "
                    f"arithmetic ({PREC} bits); choose a smaller order or a larger sigma"
                ) from None
        u = 1 / to_arb(sigma) ** 2
        rho = T * u / 2
    return PoissonRenyi(sigma, q, T, tuple(rows), Interval(_dn(rho), _up(rho)),
                        time.perf_counter() - t)
