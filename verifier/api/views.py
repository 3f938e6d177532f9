"""The Rényi and trade-off faces of the API: ``rdp`` and ``tradeoff``, each a
certified curve object; exact inputs (decimal strings, ints, Fractions), never binary floats."""
from __future__ import annotations

from fractions import Fraction

from verifier.api.keywords import (keywords_after, progress_keyword,
                                   steps_per_epoch_keyword)
from verifier.core.arith import InputError, parse_exact


def _parse(sigma, steps, epochs):
    from verifier.bounds.profile import parse_pair
    return parse_pair(sigma, steps, epochs)


def parse_orders(orders=None, alpha_max=None):
    """A list of exact orders > 1 (strings, ints or Fractions; a comma-separated string), or
    the integers 2..alpha_max; None for the default orders."""
    from verifier.views.renyi import MAX_ORDER
    if orders is not None and alpha_max is not None:
        raise InputError("give either orders or alpha_max, not both")
    if alpha_max is not None:
        k = parse_exact(alpha_max, "alpha-max")
        if k.denominator != 1 or not 2 <= k <= MAX_ORDER:
            raise InputError(f"alpha-max must be an integer in [2, {MAX_ORDER}], got {alpha_max}")
        return [Fraction(a) for a in range(2, int(k) + 1)]
    if orders is None:
        return None
    if isinstance(orders, str):
        orders = [x for x in orders.split(",") if x.strip()]
    out = []
    for x in orders:
        q = x if isinstance(x, Fraction) else parse_exact(x, "order")
        if not 1 < q <= MAX_ORDER:
            raise InputError(f"Rényi order {x} is outside (1, {MAX_ORDER}]")
        out.append(q)
    if not out:
        raise InputError("no Rényi order given")
    return out


@progress_keyword
@steps_per_epoch_keyword
@keywords_after(3, "orders", "alpha_max", "delta", "rel_width")
def rdp(sigma, steps=None, epochs=1, *, orders=None, alpha_max=None, delta=None,
        rel_width=None):
    """The certified Rényi curve of E epochs of M steps (a ``RenyiCurve``; ``rdp(run, ...)``
    with a ``verifier.Run``: a ``RunRenyi``, the phases' brackets summed): per order the
    remove D_a(P1 || P0) and add D_a(P0 || P1) brackets, the zCDP parameter of each direction,
    and with ``delta`` the orders refined near the best (epsilon, delta) conversion
    (``curve.to_epsilon(delta)``, ``curve.zcdp_epsilon(delta)``).

    >>> import verifier
    >>> c = verifier.rdp("1", 1, orders="2,3")
    >>> c.at(2).remove.lower == c.at(2).remove.upper == 1      # D_2 = 2/(2 sigma^2), exactly
    False
    >>> c.at(2).remove.contains(Fraction(1))
    True
    """
    from verifier.views.renyi import renyi_curve
    from verifier.core.run import Run
    if isinstance(sigma, Run):
        from verifier.views.run_renyi import run_renyi
        if steps is not None or epochs != 1 or rel_width is not None or delta is not None:
            raise InputError("rdp(run, orders=..., alpha_max=...): a Run carries its steps; "
                             "convert with .to_epsilon(delta)")
        return run_renyi(sigma, parse_orders(orders, alpha_max))
    if steps is None:
        raise InputError("rdp(sigma, steps, epochs, ...): steps (per epoch) is required")
    s, m, e = _parse(sigma, steps, epochs)
    d = None
    if delta is not None:
        from verifier.core.arith import parse_delta
        d = parse_delta(delta)
    os_ = parse_orders(orders, alpha_max)
    if os_ is None and d is not None:            # a conversion: every order a float accountant
        from verifier.views.renyi import CONVERSION_ORDERS       # uses, and those near the best
        os_ = list(CONVERSION_ORDERS)
    if rel_width is None:
        return renyi_curve(s, m, e, os_, refine_delta=d)
    # laplace.applies: the Laplace engine at w/2; the profile grid refines the rest level by level
    return _refined(lambda fine, w: renyi_curve(s, m, e, os_, refine_delta=d, fine=fine,
                                                laplace=float(w) / 2),
                    rel_width, lambda c: [(iv, iv.lower) for o in c.orders
                                          for iv in (o.remove, o.add)])


def _refined(build, rel_width, brackets):
    """A view at a requested relative width: ``build(fine, w)`` at the levels ``profile.refine``
    chooses until every (bracket, scale) of ``brackets(view)`` is at most w * scale wide; what
    stopped short goes to ``info["refinement_limit"]``."""
    from verifier.bounds.profile import excess, refine
    from verifier.numerics.brackets import check_rel_width
    w = check_rel_width(rel_width)

    def compute(fine):
        c = build(fine, w)
        return c, c
    curve, limit = refine(compute, lambda c: max(excess(iv, w, sc) for iv, sc in brackets(c)))
    if limit is not None:
        curve.info["refinement_limit"] = limit
    return curve


def _type_one(at):
    """The type I errors asked for (a comma-separated string or a list), exact; or None."""
    if at is None:
        return None
    if isinstance(at, str):
        at = [x for x in at.split(",") if x.strip()]
    at = [x if isinstance(x, Fraction) else parse_exact(x, "a") for x in at]
    if not at:
        raise InputError("no type I error a given")
    return at


def _points(points) -> int:
    try:
        return int(points)
    except (TypeError, ValueError):
        raise InputError(f"points must be an integer, got {points!r}") from None


@progress_keyword
@steps_per_epoch_keyword
@keywords_after(3, "points", "at", "rel_width")
def tradeoff(sigma, steps=None, epochs=1, *, points=21, at=None, rel_width=None):
    """The certified trade-off band of E epochs of M steps (a ``TradeoffCurve``): at each a,
    f = T(P0^E, P1^E)(a) and the reversed pair's, each an Interval; ``tv`` the exact TV from
    the same profile.  ``rel_width``: every band at most that wide relative to its upper end
    (the profile grid and its engine refined by ``profile.refine``; ``info`` names what
    stopped short).  ``tradeoff(run, points=..., at=...)`` with a ``verifier.Run``: a
    ``RunTradeoff``, the bands of the run's composed profile."""
    from verifier.core.run import Run
    from verifier.views.tradeoff import tradeoff_curve
    if isinstance(sigma, Run):
        from verifier.views.run_tradeoff import run_tradeoff
        if steps is not None or epochs != 1 or rel_width is not None:
            raise InputError("tradeoff(run, points=..., at=...): a Run carries its steps; "
                             "rel_width is for one random-allocation phase")
        return run_tradeoff(sigma, at=_type_one(at), points=_points(points))
    if steps is None:
        raise InputError("tradeoff(sigma, steps, epochs, ...): steps (per epoch) is required")
    s, m, e = _parse(sigma, steps, epochs)
    at = _type_one(at)
    if at is None:
        points = _points(points)
    if rel_width is None:
        return tradeoff_curve(s, m, e, at=at, points=points)
    return _refined(lambda fine, w: tradeoff_curve(s, m, e, at=at, points=points, fine=fine),
                    rel_width, lambda c: [(iv, iv.upper) for p in c.points
                                          for iv in (p.f, p.reverse)])


@progress_keyword
@keywords_after(3, "orders", "alpha_max")
def poisson_rdp(sigma, sample_rate, steps, *, orders=None, alpha_max=None):
    """Certified Rényi divergences of both directions of T = ``steps`` Poisson-subsampled
    steps at rate ``sample_rate`` (a ``PoissonRenyi``; its ``to_epsilon(delta)`` converts)."""
    from verifier.api.profile import parse_poisson
    from verifier.views.poisson_renyi import poisson_renyi
    from verifier.views.renyi import CONVERSION_ORDERS
    s, q, t = parse_poisson(sigma, sample_rate, steps)
    os_ = parse_orders(orders, alpha_max)        # default: every order a float accountant uses
    return poisson_renyi(s, q, t, os_ if os_ is not None else list(CONVERSION_ORDERS))
