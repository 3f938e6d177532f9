"""The claims quantities of the (epsilon, delta) engines and their views: epsilon, delta_at,
poisson_epsilon, poisson_delta_at, noise_multiplier, poisson_noise_multiplier (each
refinable: a judge may ask for a narrower bracket, values.requested), renyi, tradeoff,
rdp_epsilon, zcdp_rho and zcdp_epsilon.  Registered in quantities.py."""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from verifier.claims.values import Evaluation, final, record_limit, requested_width
from verifier.core.arith import Interval


@lru_cache(maxsize=256)
def engine_answer(engine: str, what: str, sigma, shape, at, rel_width):
    """One certified answer of an (epsilon, delta) engine, computed once per audit run for
    its exact arguments and requested width (the precision loop asks again at each
    precision; the engines' answers do not depend on it)."""
    if engine == "poisson":
        from verifier.bounds import poisson as E
        w = E.check_rel_width(rel_width)
        return (E.epsilon_bracket(sigma, *shape, at, w) if what == "epsilon"
                else E.delta_bracket(sigma, *shape, at, rel_width=w))
    from verifier.bounds import profile as E
    return (E.epsilon_bracket(sigma, *shape, at, rel_width) if what == "epsilon"
            else E.delta_bracket(sigma, *shape, at, rel_width=rel_width))


def epsilon(a, prec, max_prec=None):
    r = record_limit(engine_answer("random-allocation", "epsilon", a["sigma"],
                                   (a["steps"], a["epochs"]), a["delta"], requested_width()))
    return final(r.epsilon, "ok" if r.epsilon is not None else "inconclusive",
                  "no epsilon <= 60 certified")


def delta_at(a, prec, max_prec=None):
    return Evaluation(record_limit(engine_answer("random-allocation", "delta", a["sigma"],
                                                  (a["steps"], a["epochs"]), a["epsilon"],
                                                  requested_width())).delta)


def per_arguments(f):
    """An engine quantity evaluated once per audit for its arguments and requested width
    (the working precision does not change an engine's bracket: the precision loop and
    repeated claims reuse it)."""
    @lru_cache(maxsize=256)
    def once(key, width):
        return f(dict(key), 0)

    def evaluate(a, prec, max_prec=None):
        return once(tuple(sorted(a.items())), requested_width())
    evaluate.__name__, evaluate.__doc__ = f.__name__, f.__doc__
    return evaluate


@per_arguments
def renyi(a, prec, max_prec=None):
    from verifier.views.renyi import renyi_curve
    al = a["alpha"]
    need_profile = a["direction"] == "add" or al.denominator != 1
    c = renyi_curve(a["sigma"], a["steps"], a["epochs"], orders=[al], with_profile=need_profile,
                    laplace=_laplace_width())
    return Evaluation(getattr(c.at(al), a["direction"]))


def _laplace_width():
    """A judge's requested width as the Laplace engine's (laplace.applies: views/renyi.py):
    at most 1e-12, whatever was asked (its cost hardly depends on the width, and a judge
    asks once, from the default bracket's midpoint, which may be far from the value)."""
    w = requested_width()
    return None if w is None else min(float(w) / 2, 1e-12)


def poisson_epsilon(a, prec, max_prec=None):
    r = record_limit(engine_answer("poisson", "epsilon", a["sigma"],
                                   (a["sample_rate"], a["total_steps"]), a["delta"],
                                   requested_width()))
    return final(r.epsilon, "ok" if r.epsilon is not None else "inconclusive",
                  "no epsilon <= 60 certified")


def poisson_delta_at(a, prec, max_prec=None):
    return Evaluation(record_limit(engine_answer("poisson", "delta", a["sigma"],
                                                  (a["sample_rate"], a["total_steps"]),
                                                  a["epsilon"], requested_width())).delta)


@per_arguments
def tradeoff(a, prec, max_prec=None):
    from verifier.views.tradeoff import tradeoff_curve
    c = tradeoff_curve(a["sigma"], a["steps"], a["epochs"], at=[a["a"]])
    p = c.points[0]
    return Evaluation(p.f if a["direction"] == "remove" else p.reverse)


def _target(a) -> tuple:
    from verifier.core.arith import InputError
    if a["target_epsilon"] <= 0:
        raise InputError(f"target_epsilon must be > 0, got {a['target_epsilon']}")
    return a["target_epsilon"], a["delta"]


def _sigma_star(eps, delta, M, E, poisson, width):
    """sigma*; a judge's request (a width below the default) also refines the engine where
    it cannot decide a sigma at its default accuracy."""
    from verifier.deploy.sigma_star import sigma_star
    return sigma_star(eps, delta, M, E, width, poisson=poisson,
                      refine=width < DEFAULT_SIGMA_WIDTH)


def _star_value(r) -> Evaluation:
    return final(r.value, r.status if r.status == "ok" else "inconclusive", r.note)


DEFAULT_SIGMA_WIDTH = Fraction(1, 1000)


@per_arguments
def noise_multiplier(a, prec, max_prec=None):
    """sigma* of random allocation (deploy.sigma_star): the noise multiplier at which
    the certified epsilon(delta) meets target_epsilon exactly, enclosed."""
    eps, d = _target(a)
    return _star_value(_sigma_star(eps, d, a["steps"], a["epochs"], None,
                                   requested_width() or DEFAULT_SIGMA_WIDTH))


@per_arguments
def poisson_noise_multiplier(a, prec, max_prec=None):
    eps, d = _target(a)
    return _star_value(_sigma_star(eps, d, 0, 0, (a["sample_rate"], a["total_steps"]),
                                   requested_width() or DEFAULT_SIGMA_WIDTH))


@per_arguments
def rdp_epsilon(a, prec, max_prec=None):
    """The RDP-to-(epsilon, delta) conversion at one order alpha (classical: Mironov 2017,
    Proposition 3; improved: Balle et al. 2020, Theorem 21) of the pair's D_alpha, the larger
    of the two directions (views.conversions._conv at both ends of each bracket)."""
    from verifier.views.conversions import ball_down, ball_up, conversion_at
    from verifier.views.renyi import renyi_curve
    al = a["alpha"]
    c = renyi_curve(a["sigma"], a["steps"], a["epochs"], orders=[al],
                    with_profile=True, laplace=_laplace_width())
    o, improved = c.at(al), a["method"] == "improved"
    ends = [conversion_at(getattr(o, w), al, a["delta"], improved) for w in ("remove", "add")]
    return Evaluation(Interval(max(ball_down(e[0]) for e in ends),
                               max(ball_up(e[1]) for e in ends)))


@per_arguments
def zcdp_rho(a, prec, max_prec=None):
    """rho = sup_a D_a / a of E epochs, one direction or the pair (views.renyi)."""
    from verifier.views.renyi import renyi_curve
    c = renyi_curve(a["sigma"], a["steps"], a["epochs"], orders=[Fraction(2)],
                    with_profile=a["direction"] != "remove")
    return Evaluation(c.zcdp_remove if a["direction"] == "remove" else
                      c.zcdp_add if a["direction"] == "add" else c.rho)


@per_arguments
def zcdp_epsilon(a, prec, max_prec=None):
    """The classical zCDP conversion rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016,
    Proposition 1.3) of the pair's rho."""
    from verifier.views.conversions import zcdp_convert
    rho = zcdp_rho({**a, "direction": "pair"}, prec).value
    return Evaluation(zcdp_convert(rho, a["delta"], improved=False).epsilon)
