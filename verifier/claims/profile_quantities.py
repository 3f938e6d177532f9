"""The claims quantities of the (epsilon, delta) engines and their views: epsilon, delta_at,
poisson_epsilon, poisson_delta_at (each refinable: a judge may ask for a narrower bracket,
values.requested), renyi and tradeoff.  Registered in quantities.py."""
from __future__ import annotations

from functools import lru_cache

from verifier.claims.values import Evaluation, final, requested_width


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
    r = engine_answer("random-allocation", "epsilon", a["sigma"], (a["steps"], a["epochs"]),
                       a["delta"], requested_width())
    return final(r.epsilon, "ok" if r.epsilon is not None else "inconclusive",
                  "no epsilon <= 60 certified")


def delta_at(a, prec, max_prec=None):
    return Evaluation(engine_answer("random-allocation", "delta", a["sigma"],
                                     (a["steps"], a["epochs"]), a["epsilon"],
                                     requested_width()).delta)


def renyi(a, prec, max_prec=None):
    from verifier.views.renyi import renyi_curve
    al = a["alpha"]
    need_profile = a["direction"] == "add" or al.denominator != 1
    c = renyi_curve(a["sigma"], a["steps"], a["epochs"], orders=[al], with_profile=need_profile)
    return Evaluation(getattr(c.at(al), a["direction"]))


def poisson_epsilon(a, prec, max_prec=None):
    r = engine_answer("poisson", "epsilon", a["sigma"], (a["sample_rate"], a["total_steps"]),
                       a["delta"], requested_width())
    return final(r.epsilon, "ok" if r.epsilon is not None else "inconclusive",
                  "no epsilon <= 60 certified")


def poisson_delta_at(a, prec, max_prec=None):
    return Evaluation(engine_answer("poisson", "delta", a["sigma"],
                                     (a["sample_rate"], a["total_steps"]), a["epsilon"],
                                     requested_width()).delta)


def tradeoff(a, prec, max_prec=None):
    from verifier.views.tradeoff import tradeoff_curve
    c = tradeoff_curve(a["sigma"], a["steps"], a["epochs"], at=[a["a"]])
    p = c.points[0]
    return Evaluation(p.f if a["direction"] == "remove" else p.reverse)
