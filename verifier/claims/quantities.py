"""Named verifier quantities: what a claims file may refer to.

A quantity is data, never code: a claims file names one of the entries of
``QUANTITIES`` and gives its arguments as strings or numbers, which are
parsed to exact values by the argument parsers below.

Each quantity evaluates at a given working precision to an ``Evaluation``:
an enclosure (``Interval``, exact when the quantity is an integer), whether
the theorem it rests on applies (``Tri``), and JSON-able details.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from flint import ctx

from verifier.symbolic import derived as D
from verifier.bounds import theorem31 as T
from verifier.bounds import theorem31_steps as TS
from verifier.core.arith import (DEFAULT_MAX_PREC, InputError, Interval, Tri, parse_delta, parse_epochs,
                    parse_exact, parse_sigma, parse_steps, to_arb)


@dataclass(frozen=True)
class Evaluation:
    value: Interval
    applicable: Tri = Tri.HOLDS
    integer: bool = False      # the value is an integer, known exactly
    precision: int = 0
    details: dict = field(default_factory=dict)
    failed: str = ""          # why not applicable / not computed
    status: str = "ok"        # "ok" | "inconclusive" | "not-applicable"


def _coef_arg(v):
    if not isinstance(v, str):
        raise InputError(f"coef must be 'simplified' or 'rho3', got {v!r:.40}")
    return T.check_coef(v)


def _term_arg(v):
    if v not in T.TERM_NAMES:
        raise InputError(f"term must be one of {', '.join(T.TERM_NAMES)}, got {v!r:.40}")
    return v


def _level_arg(v):
    q = parse_exact(v, "noise_level")
    if q <= 0:
        raise InputError(f"noise_level must be > 0, got {v}")
    return q


ARG_PARSERS: dict[str, Callable] = {
    "sigma": parse_sigma,
    "steps": parse_steps,
    "delta": parse_delta,
    "epochs": parse_epochs,
    "coef": _coef_arg,
    "term": _term_arg,
    "noise_level": _level_arg,
    "bound": lambda v: _bound_arg(v),
}


def _bound_arg(v):
    """A registry bound by name (verifier.bounds.REGISTRY)."""
    from verifier.deploy.evaluate import resolve
    if not isinstance(v, str):
        raise InputError(f"bound must be a name, got {v!r:.40}")
    return resolve(v).name


@dataclass(frozen=True)
class Quantity:
    name: str
    description: str
    args: tuple            # required argument names
    defaults: dict         # optional argument -> default (raw)
    source: str
    reconstructed: bool
    evaluate: Callable     # (parsed args dict, prec, max_prec) -> Evaluation; searches use the cap

    def parse_args(self, raw: dict, where: str) -> dict:
        out = {}
        allowed = set(self.args) | set(self.defaults)
        for key in raw:
            if key not in allowed:
                raise InputError(f"{where}: quantity {self.name!r} takes no argument {key!r} "
                                 f"(it takes {', '.join(sorted(allowed))})")
        for key in sorted(allowed):
            if key in raw:
                v = raw[key]
            elif key in self.defaults:
                v = self.defaults[key]
            else:
                raise InputError(f"{where}: quantity {self.name!r} needs argument {key!r}")
            try:
                out[key] = ARG_PARSERS[key](v)
            except InputError as e:
                raise InputError(f"{where}: {e}") from None
        return out


# ---------------------------------------------------------------------------
def _bound_eval(a, prec, pick):
    r = T.bound_at(a["sigma"], a["steps"], a["coef"], a.get("epochs", 1), None, prec)
    failed = [h.name for h in r.hypotheses if h.verdict is Tri.FAILS]
    return Evaluation(pick(r), r.applicable, precision=prec,
                      details={"hypotheses": {h.name: h.verdict.value for h in r.hypotheses}},
                      failed=("hypothesis fails: " + ", ".join(failed)) if failed else "")


def _delta_rhs(a, prec, max_prec=None):
    return _bound_eval(a, prec, lambda r: r.delta)


def _delta_epochs(a, prec, max_prec=None):
    return _bound_eval(a, prec, lambda r: r.delta_epochs)


def _bound_delta(a, prec, max_prec=None):
    """delta_E of any registry bound at one precision, with its hypotheses (verifier.bounds)."""
    from flint import ctx

    from verifier.bounds import REGISTRY
    b = REGISTRY[a["bound"]]
    with ctx.workprec(prec):
        v, hyps = b.ball(to_arb(a["sigma"]), a["steps"], a.get("epochs", 1))
        verdicts = {n: ("holds" if g >= 0 else "fails" if g < 0 else "undecided") for n, g in hyps}
        value = Interval.of(v)
    vs = set(verdicts.values())
    app = Tri.FAILS if "fails" in vs else Tri.UNDECIDED if "undecided" in vs else Tri.HOLDS
    failed = [n for n, x in verdicts.items() if x == "fails"]
    return Evaluation(value, app, precision=prec, details={"hypotheses": verdicts},
                      failed=("hypothesis fails: " + ", ".join(failed)) if failed else "")


def _term(a, prec, max_prec=None):
    i = T.TERM_NAMES.index(a["term"])
    return _bound_eval(a, prec, lambda r: r.terms[i])


def _closed_form(a, prec, max_prec=None):
    with ctx.workprec(prec):
        x = T.closed_form_ball(a["sigma"], a["delta"], a["coef"])
    return Evaluation(Interval.of(x), precision=prec)


@lru_cache(maxsize=256)
def _steps_cached(sigma, delta, coef, max_prec, reading="table1"):
    return TS.steps_exact(sigma, delta, coef, max_prec, reading)


def steps_result(a, max_prec=DEFAULT_MAX_PREC, reading="table1"):
    return _steps_cached(a["sigma"], a["delta"], a["coef"], max_prec, reading)


def _steps_eval(a, value_of, max_prec, reading="table1"):
    r = steps_result(a, max_prec, reading)
    details = {"status": r.status, "evaluations": r.evaluations}
    if r.status == "certified":
        return Evaluation(Interval.of(value_of(r)), integer=True, details=details)
    status = "not-applicable" if r.status == "infeasible" else "inconclusive"
    applicable = Tri.FAILS if r.status == "infeasible" else Tri.UNDECIDED
    return Evaluation(Interval(Fraction(0), Fraction(0)), applicable, integer=True,
                      details=details, failed=r.message, status=status)


def _m_exact(a, prec, max_prec=DEFAULT_MAX_PREC):
    return _steps_eval(a, lambda r: r.m_exact, max_prec)


def _m_certified(a, prec, max_prec=DEFAULT_MAX_PREC):
    return _steps_eval(a, lambda r: r.m_exact, max_prec, "theorem")


def _min_n(a, prec, max_prec=DEFAULT_MAX_PREC):
    return _steps_eval(a, lambda r: TS.min_samples(r.m_exact, a["sigma"], a["noise_level"]),
                       max_prec)


def _coef(a, prec, max_prec=None):
    with ctx.workprec(prec):
        x = T.coef_value(a["sigma"], a["coef"])
    return Evaluation(Interval.of(x), precision=prec)


def _coef_ratio(a, prec, max_prec=None):
    with ctx.workprec(prec):
        s = to_arb(a["sigma"])
        x = D.coef_simplified(s) / D.coef_rho3(s)
    return Evaluation(Interval.of(x), precision=prec)


def _rho3(a, prec, max_prec=None):
    with ctx.workprec(prec):
        x = D.rho3(to_arb(a["sigma"]))
    return Evaluation(Interval.of(x), precision=prec)


_TH = T.SOURCE + " (reconstructed, docs/THEORY.md section 3)"
QUANTITIES: dict[str, Quantity] = {q.name: q for q in [
    Quantity("delta_rhs", "delta_rhs(M, sigma) = T1 + ... + T6, one epoch",
             ("sigma", "steps"), {"coef": "simplified"}, _TH, True, _delta_rhs),
    Quantity("delta_epochs", "1 - (1 - delta_rhs)^E over E epochs",
             ("sigma", "steps", "epochs"), {"coef": "simplified"},
             _TH + "; composition: Dong, Roth & Su 2019, Lemma C.2", True, _delta_epochs),
    Quantity("bound_delta", "delta_E of any bound of the registry (its hypotheses checked)",
             ("bound", "sigma", "steps"), {"epochs": "1"},
             "the bound's own source (verifier.bounds.REGISTRY)", True, _bound_delta),
    Quantity("term", "one of the six terms T1..T6 of delta_rhs",
             ("sigma", "steps", "term"), {"coef": "simplified"}, _TH, True, _term),
    Quantity("m_closed_form", "M_BE, the closed form (4) for the number of steps",
             ("sigma", "delta"), {"coef": "simplified"},
             "closed form (4) of arXiv 2605.06259 v1 (reconstructed, docs/THEORY.md section 3)",
             True, _closed_form),
    Quantity("m_exact", "M_exact, the smallest M >= 3 meeting Theorem 3.1 (certified bisection)",
             ("sigma", "delta"), {"coef": "simplified"}, _TH, True, _m_exact),
    Quantity("m_certified", "M_certified, the smallest M the theorem certifies (condition (2) at "
             "delta_rhs(M); <= M_exact)", ("sigma", "delta"), {"coef": "simplified"}, _TH, True,
             _m_certified),
    Quantity("min_n", "min N = ceil(sigma M_exact / noise_level) (noise_level 0.1, C = 1)",
             ("sigma", "delta"), {"coef": "simplified", "noise_level": "0.1"},
             "Table 1 of arXiv 2605.06259 v1 (Min N = 10 sigma M_exact)", True, _min_n),
    Quantity("coef", "the Berry-Esseen factor coef_S or coef_X",
             ("sigma",), {"coef": "simplified"},
             "simplification (22) / Section 3.1 of arXiv 2605.06259 v1", False, _coef),
    Quantity("coef_ratio", "coef_S / coef_X", ("sigma",), {},
             "Section 3.1 of arXiv 2605.06259 v1", False, _coef_ratio),
    Quantity("rho3", "rho3 = E|Y - 1|^3 (exact third absolute central moment)",
             ("sigma",), {}, "Proposition D.2 of arXiv 2605.06259 v1", False, _rho3),
]}


def get(name) -> Quantity:
    if not isinstance(name, str) or name not in QUANTITIES:
        raise InputError(f"unknown quantity {name!r:.60} (known: {', '.join(QUANTITIES)})")
    return QUANTITIES[name]
