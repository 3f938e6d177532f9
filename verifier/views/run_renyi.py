"""The Rényi curve of a run (docs/THEORY.md section 15): Rényi divergences of independent
steps add, D_a(prod_t P_t || prod_t Q_t) = sum_t D_a(P_t || Q_t) (for product measures, in
both directions), so a run's bracket at each order is the sum of its merged phases'
brackets: Poisson and every_step phases by views/poisson_renyi.py, random-allocation epochs
by views/renyi.py (each exact at integer orders of the remove direction, certified at the
others).  zCDP of the remove direction adds likewise (rho = sum of the phases' rho)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from verifier.core.arith import Interval
from verifier.views.conversions import Converts
from verifier.views.renyi import RenyiOrder


def _add(a: Interval, b: Interval) -> Interval:
    if not (a.finite and b.finite):
        return Interval(None, None)
    return Interval(a.lower + b.lower, a.upper + b.upper)


@dataclass(frozen=True)
class RunRenyi(Converts):
    run: object                   # verifier.Run
    orders: tuple                 # RenyiOrder, by increasing alpha
    zcdp_remove: Interval
    seconds: float
    info: dict = field(default_factory=dict)

    def to_json(self, delta: Fraction | None = None) -> dict:
        out = {"run": self.run.to_json(), "orders": [o.to_json() for o in self.orders],
               "zcdp": {"remove": self.zcdp_remove.to_json()},
               "certified": CERTIFIED, "seconds": round(self.seconds, 3)}
        if delta is not None:
            out["conversions"] = self.conversions_json(delta)
        return out


CERTIFIED = ("the sum over the run's phases of each phase's certified Rényi brackets (Rényi "
             "divergences of independent steps add; docs/THEORY.md section 15)")


def run_renyi(run, orders=None) -> RunRenyi:
    """Both directions' Rényi divergences of a run at each order (default: Poisson's and
    random allocation's default orders), certified."""
    from verifier.bounds.runs import check, sample_rate_of
    from verifier.views.poisson_renyi import poisson_renyi
    from verifier.views.renyi import CONVERSION_ORDERS, renyi_curve
    check(run)
    t = time.perf_counter()
    os_ = sorted({Fraction(a) for a in (orders or CONVERSION_ORDERS)})
    total: dict = {}
    rho = Interval(Fraction(0), Fraction(0))
    for m, s, n in run.merged():
        sigma, q = m.noise_multiplier, sample_rate_of(s)
        reduced = k_of_m_reduction(m, s, n)
        if reduced is not None:
            c = between(*(run_renyi(r, os_) for r in reduced))
        elif q is not None:
            c = poisson_renyi(sigma, q, n, os_)
        else:
            c = renyi_curve(sigma, s.steps_per_epoch, n // s.steps_per_epoch, os_)
        rho = _add(rho, c.zcdp_remove)
        for o in c.orders:
            if o.alpha in total:
                r, a = total[o.alpha]
                total[o.alpha] = (_add(r, o.remove), _add(a, o.add))
            else:
                total[o.alpha] = (o.remove, o.add)
    rows = tuple(RenyiOrder(a, r, ad, "sum over the run's phases")
                 for a, (r, ad) in sorted(total.items()) if a in os_)
    return RunRenyi(run, rows, rho, time.perf_counter() - t)


def k_of_m_reduction(mech, sampler, steps):
    """k of M (k > 1): (lower run, upper run) of bounds/runs/samplers.py's reduction, or
    None: the k blocks of one of m are a run whose output the k-of-M epoch's is a
    post-processing of (upper), and the Gaussian pair of an epoch's summed outputs is a
    post-processing of the k-of-M epoch's (lower); Rényi divergences do not increase under
    post-processing (data processing; van Erven and Harremoës, arXiv 1206.2459, Theorem 9),
    in both directions."""
    from verifier.bounds.runs import k_of_m_runs
    from verifier.core.run import Phase, Run
    one = Run((Phase(mech, sampler, steps),))
    up, lo = k_of_m_runs(one)
    return None if up == one else (lo, up)


@dataclass(frozen=True)
class _Between:
    orders: tuple
    zcdp_remove: Interval


def between(lo: RunRenyi, up: RunRenyi) -> _Between:
    """Per order and direction [lo's lower end, up's upper end]: a bracket of a pair whose
    divergences lie between those of ``lo``'s pair and ``up``'s (k_of_m_reduction); an
    inverted one, a bug, is refused by Interval."""
    def iv(a: Interval, b: Interval) -> Interval:
        return Interval(a.lower, b.upper) if a.finite and b.finite else Interval(None, None)
    how = "k of M: between its reduction's pairs (lower: the steps' sum; upper: the blocks)"
    orders = tuple(RenyiOrder(x.alpha, iv(x.remove, y.remove), iv(x.add, y.add), how)
                   for x, y in zip(lo.orders, up.orders))
    return _Between(orders, iv(lo.zcdp_remove, up.zcdp_remove))
