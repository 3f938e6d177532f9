"""The claims quantities of a run (docs/RUNS.md, docs/CLAIMS.md): run_epsilon, run_delta_at
(refinable: a judge may ask for a narrower bracket), run_noise_scale, run_tv and
run_tradeoff.  A claims file
names its runs in ``[runs.NAME]`` tables of phases (format.py binds NAME to the run's
canonical JSON); ``run = NAME`` passes one to a quantity.  Registered in quantities.py."""
from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache

from verifier.claims.values import (ARG_PARSERS, Evaluation, Quantity, final, record_limit,
                                    requested_width)
from verifier.core.arith import InputError, Interval


def run_arg(v):
    """A run: a name of the claims file's ``[runs]`` (bound to its JSON), or a Run."""
    from verifier.core.run import Run
    from verifier.core.run_files import run_from_dict
    if isinstance(v, Run):
        return v
    if isinstance(v, str) and v.startswith("{"):
        try:
            data = json.loads(v)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return run_from_dict(data, "run")
    raise InputError(f"run must name a run of the claims file's [runs] tables, got "
                     f"{str(v)[:40]!r}")


def phase_arg(v):
    """``all`` (a common scale of every phase's noise) or a phase number >= 1."""
    if v == "all":
        return None
    if isinstance(v, bool) or not isinstance(v, (int, str)) or not str(v).isdigit() \
            or int(v) < 1:
        raise InputError(f"phase must be 'all' or a phase number >= 1, got {str(v)[:40]!r}")
    return int(v)


@lru_cache(maxsize=128)
def _answer(what: str, run, at, width):
    """One certified answer of the run engine (bounds/runs), once per audit for its exact
    arguments and requested width."""
    from verifier.bounds import runs
    from verifier.numerics.brackets import check_rel_width
    w = check_rel_width(width)
    return (runs.epsilon_bracket(run, at, w) if what == "epsilon"
            else runs.delta_bracket(run, at, rel_width=w))


def run_epsilon(a, prec, max_prec=None):
    r = record_limit(_answer("epsilon", a["run"], a["delta"], requested_width()))
    return final(r.epsilon, "ok" if r.epsilon is not None else "inconclusive",
                 "no epsilon <= 60 certified")


def run_delta_at(a, prec, max_prec=None):
    return Evaluation(record_limit(_answer("delta", a["run"], a["epsilon"],
                                           requested_width())).delta)


@lru_cache(maxsize=64)
def _scale(run, eps, delta, resolution, phase):
    from verifier.deploy.run_sigma import calibrate_run_scale
    return calibrate_run_scale(run, eps, delta, resolution, phase=phase)


def run_noise_scale(a, prec, max_prec=None):
    """The smallest grid scale of every phase's noise (or phase i's smallest grid noise
    multiplier) meeting (target_epsilon, delta): exact, a grid point (deploy/run_sigma.py)."""
    if a["target_epsilon"] <= 0:
        raise InputError(f"target_epsilon must be > 0, got {a['target_epsilon']}")
    r = _scale(a["run"], a["target_epsilon"], a["delta"], a["resolution"], a["phase"])
    value = Interval(r.scale, r.scale) if r.scale is not None else None
    return final(value, "ok" if r.status == "certified" else r.status, r.message)


def run_tv(a, prec, max_prec=None):
    """The exact TV of the run's pair: delta(0), both directions (the paper's delta)."""
    return Evaluation(record_limit(_answer("delta", a["run"], Fraction(0),
                                           requested_width())).delta)


@lru_cache(maxsize=16)
def _grids(run):
    from verifier.views.run_tradeoff import grids
    return grids(run)


def run_tradeoff(a, prec, max_prec=None):
    """The run's trade-off band at a (views/run_tradeoff.py): T(P, Q)(a) (remove) or the
    reversed pair's (add)."""
    from verifier.views.tradeoff import bands, type_one_errors
    above, below = _grids(a["run"])
    p = bands(above, type_one_errors([a["a"]]), below)[0][0]
    return Evaluation(p.f if a["direction"] == "remove" else p.reverse)


_SRC = "the verifier's run engine (docs/THEORY.md section 15)"
RUN_QUANTITIES = [
    Quantity("run_epsilon", "epsilon(delta) of a run of phases (a [runs] table), a certified "
             "bracket (verifier epsilon --run)", ("run", "delta"), {}, _SRC, False,
             run_epsilon),
    Quantity("run_delta_at", "delta(epsilon) of a run of phases, a certified bracket "
             "(verifier delta --run)", ("run", "epsilon"), {}, _SRC, False, run_delta_at),
    Quantity("run_noise_scale", "the smallest grid scale c of every phase's noise multiplier "
             "(phase = all) or phase i's smallest grid noise multiplier at which the run meets "
             "(target_epsilon, delta), certified; one grid step less certified to fail "
             "(verifier calibrate sigma --run)", ("run", "target_epsilon", "delta"),
             {"resolution": "0.01", "phase": "all"},
             _SRC + "; monotone in each noise multiplier (docs/RUNS.md)", False,
             run_noise_scale),
    Quantity("run_tv", "the exact total variation of a run's pair, delta(0), a certified "
             "bracket (the attack accuracy at equal priors is 1/2 + TV/2)", ("run",), {},
             _SRC, False, run_tv),
    Quantity("run_tradeoff", "the trade-off function of a run at a, T(P, Q)(a) (direction "
             "remove) or the reversed pair's (add), a certified band (verifier tradeoff --run)",
             ("run", "a"), {"direction": "remove"},
             _SRC + " and section 10 (Dong, Roth & Su, Proposition 2.12)", False, run_tradeoff),
]

ARG_PARSERS["run"] = run_arg
ARG_PARSERS["phase"] = phase_arg
