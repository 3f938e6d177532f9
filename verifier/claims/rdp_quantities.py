"""Claims quantities of the Rényi views that the float RDP accountants report (issue 47):
poisson_renyi (both directions of T Poisson-subsampled steps at any real order) and the
(epsilon, delta) conversion minimised over a named order list, its value or its order
(rdp_epsilon_min for random allocation, poisson_rdp_epsilon_min for Poisson).  Registered in
quantities.py."""
from __future__ import annotations

from fractions import Fraction

from verifier.claims.profile_quantities import per_arguments
from verifier.claims.values import ARG_PARSERS, Evaluation, Quantity
from verifier.core.arith import InputError, Interval


def _orders(name: str) -> tuple:
    from verifier.views import renyi as R
    return {"opacus": R.OPACUS_ORDERS, "dp_accounting": R.DP_ACCOUNTING_ORDERS,
            "float_accountants": R.FLOAT_ACCOUNTANT_ORDERS,
            "verifier": R.CONVERSION_ORDERS}[name]


def orders_arg(v):
    """A named order list: opacus (Opacus's RDPAccountant.DEFAULT_ALPHAS), dp_accounting
    (its DEFAULT_RDP_ORDERS), float_accountants (both), verifier (both and the verifier's
    23 default orders)."""
    if v not in ("opacus", "dp_accounting", "float_accountants", "verifier"):
        raise InputError(f"orders must be opacus, dp_accounting, float_accountants or verifier, "
                         f"got {str(v)[:40]!r}")
    return v


def value_arg(v):
    if v not in ("epsilon", "order"):
        raise InputError(f"value must be 'epsilon' or 'order', got {str(v)[:40]!r}")
    return v


ARG_PARSERS["orders"] = orders_arg
ARG_PARSERS["value"] = value_arg


@per_arguments
def poisson_renyi(a, prec, max_prec=None):
    """D_alpha of T Poisson-subsampled steps, one direction (views/poisson_renyi.py)."""
    from verifier.views.poisson_renyi import poisson_renyi as curve
    c = curve(a["sigma"], a["sample_rate"], a["total_steps"], [a["alpha"]])
    o, = c.orders
    return Evaluation(getattr(o, a["direction"]))


def _minimised(c, a) -> Evaluation:
    """The conversion minimised over the curve's orders (views.conversions.convert: each
    direction at its own best order, the larger direction's), its epsilon bracket or its
    order (exact: the order whose certified upper end is smallest)."""
    cv = c.to_epsilon(a["delta"], improved=a["method"] == "improved")
    if a["value"] == "order":
        return Evaluation(Interval(Fraction(cv.alpha), Fraction(cv.alpha)))
    return Evaluation(cv.epsilon)


@per_arguments
def rdp_epsilon_min(a, prec, max_prec=None):
    from verifier.views.renyi import renyi_curve
    return _minimised(renyi_curve(a["sigma"], a["steps"], a["epochs"],
                                  orders=list(_orders(a["orders"]))), a)


@per_arguments
def poisson_rdp_epsilon_min(a, prec, max_prec=None):
    from verifier.views.poisson_renyi import poisson_renyi as curve
    return _minimised(curve(a["sigma"], a["sample_rate"], a["total_steps"],
                            list(_orders(a["orders"]))), a)


_CONV = ("the conversion (improved: Balle et al. 2020, Theorem 21, Opacus's and dp_accounting's; "
         "classical: Mironov 2017, Proposition 3) minimised over a named order list "
         "(orders = opacus, dp_accounting, float_accountants or verifier), the larger "
         "direction; value = epsilon (a certified bracket) or order (the minimising order)")
RDP_QUANTITIES = [
    Quantity("poisson_renyi", "the Rényi divergence D_alpha of T = total_steps Poisson-"
             "subsampled steps, direction remove (P || Q) or add (Q || P), any real order "
             "(verifier rdp --sampling poisson)", ("sigma", "sample_rate", "total_steps", "alpha"),
             {"direction": "remove"}, "docs/THEORY.md section 12 ('Rényi')", False,
             poisson_renyi),
    Quantity("rdp_epsilon_min", "epsilon(delta) of random allocation by " + _CONV,
             ("sigma", "steps", "delta"),
             {"epochs": "1", "method": "improved", "orders": "float_accountants",
              "value": "epsilon"},
             "docs/THEORY.md section 10 (conversions), docs/VIEWS.md", False, rdp_epsilon_min,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("poisson_rdp_epsilon_min", "epsilon(delta) of T = total_steps Poisson-subsampled "
             "steps by " + _CONV, ("sigma", "sample_rate", "total_steps", "delta"),
             {"method": "improved", "orders": "float_accountants", "value": "epsilon"},
             "docs/THEORY.md section 12 ('Rényi'), docs/VIEWS.md", False,
             poisson_rdp_epsilon_min),
]
