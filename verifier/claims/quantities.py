"""Named verifier quantities: what a claims file may refer to.

A quantity is data, never code: a claims file names one of the entries of
``QUANTITIES`` and gives its arguments as strings or numbers, which are
parsed to exact values by the argument parsers below.

Each quantity evaluates at a given working precision to an ``Evaluation``:
an enclosure (``Interval``, exact when the quantity is an integer), whether
the theorem it rests on applies (``Tri``), and JSON-able details.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from flint import ctx

from verifier.symbolic import derived as D
from verifier.bounds import theorem31 as T
from verifier.bounds import theorem31_steps as TS
from verifier.claims import profile_quantities as PQ
from verifier.claims.rdp_quantities import RDP_QUANTITIES
from verifier.claims.run_quantities import RUN_QUANTITIES
from verifier.claims.values import Evaluation, Quantity, final
from verifier.core.arith import DEFAULT_MAX_PREC, InputError, Interval, Tri, to_arb


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


def _ball_sigma(a):
    s = a["sigma"]
    return s if not isinstance(s, Fraction) else to_arb(s)


def _coef_ball(a, prec):
    with ctx.workprec(prec):
        return T.COEFS[a["coef"]](_ball_sigma(a))


def _coef_ratio_ball(a, prec):
    with ctx.workprec(prec):
        s = _ball_sigma(a)
        return D.coef_simplified(s) / D.coef_rho3(s)


def _rho3_ball(a, prec):
    with ctx.workprec(prec):
        return D.rho3(_ball_sigma(a))


def _chi_ball(a, prec):
    from flint import arb
    with ctx.workprec(prec):
        return D.chi_square_tv(arb(a["steps"]), _ball_sigma(a), arb(a.get("epochs", 1)))


def _chi_square(a, prec, max_prec=None):
    return Evaluation(Interval.of(_chi_ball(a, prec)), precision=prec)


@lru_cache(maxsize=64)
def _exact_tv_cached(sigma, M, E):
    from verifier.bounds.exact_tv.bracket import exact_tv
    return exact_tv(sigma, M, E)


def _exact_tv(a, prec, max_prec=None):
    r = _exact_tv_cached(a["sigma"], a["steps"], a["epochs"])
    return Evaluation(r.tv, precision=prec)


@lru_cache(maxsize=64)
def _sigma_cal(bound, M, E, delta, res, max_prec):
    from verifier.deploy.evaluate import Target
    from verifier.deploy.sigma import calibrate_sigma
    return calibrate_sigma(M, E, Target("delta", delta), bound, res, max_prec)


def _calibrated_sigma(a, prec, max_prec=DEFAULT_MAX_PREC):
    r = _sigma_cal(a["bound"], a["steps"], a["epochs"], a["delta"], a["resolution"], max_prec)
    st = "ok" if r.status == "certified" else r.status
    return final(Interval.of(r.sigma) if r.sigma is not None else None, st, r.message)


def _noise_saved(a, prec, max_prec=DEFAULT_MAX_PREC):
    """1 - sigma(bound) / sigma(reference): both calibrated on the same grid."""
    r1 = _sigma_cal(a["bound"], a["steps"], a["epochs"], a["delta"], a["resolution"], max_prec)
    r2 = _sigma_cal(a["reference"], a["steps"], a["epochs"], a["delta"], a["resolution"], max_prec)
    for r in (r1, r2):
        if r.status != "certified":
            return final(None, r.status, f"{r.bound}: {r.message}")
    return Evaluation(Interval.of(1 - r1.sigma / r2.sigma))


@lru_cache(maxsize=64)
def _steps_cal(bound, sigma, E, delta, max_prec):
    from verifier.deploy.evaluate import Target
    from verifier.deploy.steps import calibrate_steps
    return calibrate_steps(sigma, E, Target("delta", delta), bound, max_prec)


def _calibrated_steps(a, prec, max_prec=DEFAULT_MAX_PREC):
    r = _steps_cal(a["bound"], a["sigma"], a["epochs"], a["delta"], max_prec)
    st = "ok" if r.status == "certified" else r.status
    return final(Interval.of(r.steps) if r.steps is not None else None, st, r.message, True)


def _calibrated_samples(a, prec, max_prec=DEFAULT_MAX_PREC):
    from verifier.deploy.steps import min_samples
    r = _steps_cal(a["bound"], a["sigma"], a["epochs"], a["delta"], max_prec)
    if r.status != "certified":
        return final(None, r.status, r.message, True)
    return Evaluation(Interval.of(min_samples(a["sigma"], r.steps, Fraction(1), a["noise_level"])),
                      integer=True)


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
             "simplification (22) / Section 3.1 of arXiv 2605.06259 v1", False, _coef,
             ball=_coef_ball),
    Quantity("coef_ratio", "coef_S / coef_X", ("sigma",), {},
             "Section 3.1 of arXiv 2605.06259 v1", False, _coef_ratio, ball=_coef_ratio_ball),
    Quantity("rho3", "rho3 = E|Y - 1|^3 (exact third absolute central moment)",
             ("sigma",), {}, "Proposition D.2 of arXiv 2605.06259 v1", False, _rho3,
             ball=_rho3_ball),
    Quantity("chi_square", "the chi-square bound of the TV over E epochs, "
             "sqrt((1 + s2/M)^E - 1)/2", ("sigma", "steps"), {"epochs": "1"},
             "arXiv 2610.09651 (docs/THEORY.md section 7)", False, _chi_square, ball=_chi_ball,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("exact_tv", "the exact TV of E epochs, a certified bracket (verifier exact)",
             ("sigma", "steps"), {"epochs": "1"},
             "the verifier's exact-TV engine (docs/THEORY.md section 5)", False, _exact_tv,
             parsers={"steps": "pair_steps", "epochs": "exact_epochs"}),
    Quantity("calibrated_sigma", "the smallest grid sigma at which a bound meets delta_E <= delta "
             "(verifier calibrate sigma)", ("bound", "steps", "delta"),
             {"epochs": "1", "resolution": "0.01"}, "the bound's source (verifier.bounds)", True,
             _calibrated_sigma),
    Quantity("noise_saved", "1 - sigma(bound) / sigma(reference), both calibrated to delta_E <= "
             "delta on the same grid", ("bound", "reference", "steps", "delta"),
             {"epochs": "1", "resolution": "0.01"}, "the bounds' sources (verifier.bounds)", True,
             _noise_saved),
    Quantity("calibrated_steps", "the smallest M at which a bound meets delta_E <= delta "
             "(verifier calibrate steps)", ("bound", "sigma", "delta"), {"epochs": "1"},
             "the bound's source (verifier.bounds)", True, _calibrated_steps),
    Quantity("calibrated_samples", "ceil(sigma M / noise_level) at the calibrated M (C = 1)",
             ("bound", "sigma", "delta"), {"epochs": "1", "noise_level": "0.1"},
             "the bound's source (verifier.bounds)", True, _calibrated_samples),
    Quantity("epsilon", "epsilon(delta) of the random-allocation pair, a certified bracket "
             "(verifier epsilon)", ("sigma", "steps", "delta"), {"epochs": "1"},
             "the verifier's privacy profile (docs/THEORY.md section 9)", False, PQ.epsilon,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("delta_at", "delta(epsilon) of the random-allocation pair, a certified bracket "
             "(verifier delta)", ("sigma", "steps", "epsilon"), {"epochs": "1"},
             "the verifier's privacy profile (docs/THEORY.md section 9)", False, PQ.delta_at,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("poisson_epsilon", "epsilon(delta) of T = total_steps steps of DP-SGD with Poisson "
             "subsampling at rate sample_rate, a certified bracket (verifier epsilon "
             "--sampling poisson)", ("sigma", "sample_rate", "total_steps", "delta"), {},
             "the verifier's Poisson engine (docs/THEORY.md section 12)", False,
             PQ.poisson_epsilon),
    Quantity("poisson_delta_at", "delta(epsilon) of T = total_steps Poisson-subsampled steps, "
             "a certified bracket (verifier delta --sampling poisson)",
             ("sigma", "sample_rate", "total_steps", "epsilon"), {},
             "the verifier's Poisson engine (docs/THEORY.md section 12)", False,
             PQ.poisson_delta_at),
    Quantity("tradeoff", "the trade-off function T(P0^E, P1^E)(a) (direction remove) or "
             "T(P1^E, P0^E)(a) (add), a certified band (verifier tradeoff)",
             ("sigma", "steps", "a"), {"epochs": "1", "direction": "remove"},
             "docs/THEORY.md section 10 (Dong, Roth & Su, Proposition 2.12)", False, PQ.tradeoff,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("renyi", "the Rényi divergence D_alpha of E epochs, direction remove (P1 || P0) "
             "or add (P0 || P1) (verifier rdp)", ("sigma", "steps", "alpha"),
             {"epochs": "1", "direction": "remove"},
             "docs/THEORY.md section 10 (integer orders of remove exact)", False, PQ.renyi,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("noise_multiplier", "sigma* = inf {sigma : epsilon(delta) <= target_epsilon} of "
             "random allocation, the noise multiplier meeting the target exactly, a certified "
             "bracket (a sigma certified to miss, one certified to meet; epsilon(delta) does not "
             "increase with sigma)", ("target_epsilon", "delta", "steps"), {"epochs": "1"},
             "the verifier's privacy profile (docs/THEORY.md sections 9 and 11)", False,
             PQ.noise_multiplier, parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("poisson_noise_multiplier", "sigma* of T = total_steps Poisson-subsampled steps at "
             "rate sample_rate, a certified bracket (as noise_multiplier)",
             ("target_epsilon", "delta", "sample_rate", "total_steps"), {},
             "the verifier's Poisson engine (docs/THEORY.md section 12)", False,
             PQ.poisson_noise_multiplier),
    Quantity("rdp_epsilon", "the Rényi-to-(epsilon, delta) conversion at order alpha of the "
             "pair's D_alpha over E epochs, the larger direction; method classical (Mironov "
             "2017, Proposition 3) or improved (Balle et al. 2020, Theorem 21)",
             ("sigma", "steps", "alpha", "delta"), {"epochs": "1", "method": "improved"},
             "docs/THEORY.md section 10 (conversions)", False, PQ.rdp_epsilon,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    Quantity("zcdp_rho", "rho = sup_a D_a / a of E epochs (zCDP), direction remove (exactly "
             "E / (2 sigma^2)), add, or the pair (the larger)", ("sigma", "steps"),
             {"epochs": "1", "direction": "pair"},
             "docs/THEORY.md section 10 (Bun & Steinke 2016)", False, PQ.zcdp_rho,
             parsers={"steps": "pair_steps", "epochs": "pair_epochs",
                      "direction": "pair_direction"}),
    Quantity("zcdp_epsilon", "the classical zCDP conversion rho + 2 sqrt(rho log(1/delta)) of "
             "the pair's rho (Bun & Steinke 2016, Proposition 1.3)", ("sigma", "steps", "delta"),
             {"epochs": "1"}, "docs/THEORY.md section 10 (Bun & Steinke 2016)", False,
             PQ.zcdp_epsilon, parsers={"steps": "pair_steps", "epochs": "pair_epochs"}),
    *RUN_QUANTITIES,
    *RDP_QUANTITIES,
]}


# the quantities computed by an engine at its own precision (lattices, grids, searches): their
# brackets are narrowed by a requested accuracy (values.REFINABLE), never by raising the
# claims' working precision
ENGINE_QUANTITIES = ("exact_tv", "epsilon", "delta_at", "poisson_epsilon", "poisson_delta_at",
                     "tradeoff", "renyi", "noise_multiplier", "poisson_noise_multiplier",
                     "rdp_epsilon", "zcdp_rho", "zcdp_epsilon", "run_epsilon", "run_delta_at",
                     "run_noise_scale", "run_tv", "run_tradeoff", "poisson_renyi",
                     "rdp_epsilon_min", "poisson_rdp_epsilon_min")
for _name in ENGINE_QUANTITIES:
    QUANTITIES[_name] = replace(QUANTITIES[_name], engine=True)


def get(name) -> Quantity:
    if not isinstance(name, str) or name not in QUANTITIES:
        raise InputError(f"unknown quantity {name!r:.60} (known: {', '.join(QUANTITIES)})")
    return QUANTITIES[name]
