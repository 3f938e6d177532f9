"""What a claims quantity (quantities.py) evaluates to (``Evaluation``), and the argument
parsers: each turns a claims file's string or number into an exact value or refuses in one
line."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from verifier.bounds import theorem31 as T
from verifier.core.arith import (InputError, Interval, Tri, parse_delta, parse_epochs, parse_exact,
                                 parse_rate, parse_sigma, parse_steps)


@dataclass(frozen=True)
class Evaluation:
    value: Interval
    applicable: Tri = Tri.HOLDS
    integer: bool = False      # the value is an integer, known exactly
    precision: int = 0
    details: dict = field(default_factory=dict)
    failed: str = ""          # why not applicable / not computed
    status: str = "ok"        # "ok" | "inconclusive" | "not-applicable"


def coef_arg(v):
    if not isinstance(v, str):
        raise InputError(f"coef must be 'simplified' or 'rho3', got {v!r:.40}")
    return T.check_coef(v)


def term_arg(v):
    if v not in T.TERM_NAMES:
        raise InputError(f"term must be one of {', '.join(T.TERM_NAMES)}, got {v!r:.40}")
    return v


def level_arg(v):
    q = parse_exact(v, "noise_level")
    if q <= 0:
        raise InputError(f"noise_level must be > 0, got {v}")
    return q


def positive(name):
    def parse(v):
        q = parse_exact(v, name)
        if q <= 0:
            raise InputError(f"{name} must be > 0, got {v}")
        return q
    return parse


def alpha_arg(v):
    q = parse_exact(v, "alpha")
    if not 1 < q <= 1024:
        raise InputError(f"alpha must be in (1, 1024], got {v}")
    return q


def eps_arg(v):
    """Any real eps (delta(eps) is defined for every eps; the engines' range is |eps| <= 60)."""
    return parse_exact(v, "epsilon")


def direction_arg(v):
    if v not in ("remove", "add"):
        raise InputError(f"direction must be 'remove' or 'add', got {v!r:.40}")
    return v


def epochs_any(v):
    from verifier.bounds.profile import MAX_EPOCHS
    return parse_epochs(v, MAX_EPOCHS)


ARG_PARSERS: dict[str, Callable] = {
    "sigma": parse_sigma,
    "steps": parse_steps,
    "delta": parse_delta,
    "epochs": parse_epochs,
    "coef": coef_arg,
    "term": term_arg,
    "noise_level": level_arg,
    "bound": lambda v: bound_arg(v),
    "reference": lambda v: bound_arg(v),
    "resolution": positive("resolution"),
    "alpha": alpha_arg,
    "epsilon": eps_arg,
    "direction": direction_arg,
    "pair_steps": lambda v: parse_steps(v, "steps", minimum=1),
    "pair_epochs": epochs_any,
    "exact_epochs": lambda v: parse_epochs(v, 1000),     # core.arith.MAX_EXACT_EPOCHS
}


def bound_arg(v):
    """A registry bound by name (verifier.bounds.REGISTRY)."""
    from verifier.deploy.evaluate import resolve
    if not isinstance(v, str):
        raise InputError(f"bound must be a name, got {v!r:.40}")
    return resolve(v).name


def a_arg(v):
    q = parse_exact(v, "a")
    if not 0 <= q <= 1:
        raise InputError(f"a must be in [0, 1], got {v}")
    return q


ARG_PARSERS["a"] = a_arg


def rate_arg(v):
    return parse_rate(v)


def total_steps_arg(v):
    t = parse_exact(v, "total_steps")
    if t.denominator != 1 or t < 1:
        raise InputError(f"total_steps must be an integer >= 1, got {v}")
    return int(t)


ARG_PARSERS["sample_rate"] = rate_arg
ARG_PARSERS["total_steps"] = total_steps_arg


def method_arg(v):
    if v not in ("classical", "improved"):
        raise InputError(f"method must be 'classical' or 'improved', got {v!r:.40}")
    return v


def pair_direction_arg(v):
    if v not in ("remove", "add", "pair"):
        raise InputError(f"direction must be 'remove', 'add' or 'pair', got {v!r:.40}")
    return v


ARG_PARSERS["method"] = method_arg
ARG_PARSERS["pair_direction"] = pair_direction_arg
ARG_PARSERS["target_epsilon"] = lambda v: parse_exact(v, "target_epsilon")


def final(value: Interval | None, status: str, why: str, integer=False) -> Evaluation:
    """An Evaluation of a search or engine: a certified value, or inconclusive / infeasible."""
    if status == "ok" and value is not None:
        return Evaluation(value, integer=integer)
    if status == "infeasible":
        return Evaluation(Interval(Fraction(0), Fraction(0)), Tri.FAILS, integer=integer,
                          failed=why, status="not-applicable")
    return Evaluation(Interval(Fraction(0), Fraction(0)), Tri.UNDECIDED, integer=integer,
                      failed=why, status="inconclusive")


# The accuracy a judge asks of the (epsilon, delta) engines when their default bracket cannot
# decide a printed value (claims/audit.py); None: the engines' defaults.
_REQUESTED = ContextVar("requested_rel_width", default=None)
_LIMITS = ContextVar("refinement_limits", default=None)
REFINABLE = ("epsilon", "delta_at", "poisson_epsilon", "poisson_delta_at", "noise_multiplier",
             "poisson_noise_multiplier", "renyi", "rdp_epsilon", "run_epsilon", "run_delta_at")


def requested_width():
    """The relative width a judge has asked for (None: the engines' defaults)."""
    return _REQUESTED.get()


@contextmanager
def requested(width):
    """Within the block, the refinable quantities ask their engines for ``width``; yields
    the list of what stopped an engine's refinement short of it (``record_limit``)."""
    token, limits = _REQUESTED.set(width), _LIMITS.set([])
    try:
        yield _LIMITS.get()
    finally:
        _LIMITS.reset(limits)
        _REQUESTED.reset(token)


def record_limit(answer):
    """Under a judge's request: note what stopped the engine answer's refinement short of it
    (its info["refinement_limit"]: memory, a step's points, a bracket that stopped
    narrowing), for the claim's note."""
    limits = _LIMITS.get()
    why = (getattr(answer, "info", None) or {}).get("refinement_limit")
    if limits is not None and why and why not in limits:
        limits.append(why)
    return answer


@dataclass(frozen=True)
class Quantity:
    name: str
    description: str
    args: tuple            # required argument names
    defaults: dict         # optional argument -> default (raw)
    source: str
    reconstructed: bool
    evaluate: Callable     # (parsed args dict, prec, max_prec) -> Evaluation; searches use the cap
    ball: Callable | None = None   # (args, numeric ones possibly balls, prec) -> arb: over a box
    parsers: dict = field(default_factory=dict)   # argument -> ARG_PARSERS key, when not its name
    engine: bool = False   # an engine's certified bracket: the working precision does not
                           # narrow it (ENGINE_QUANTITIES; judged once, not at rising precision)

    def all_args(self) -> tuple:
        return tuple(self.args) + tuple(k for k in self.defaults if k not in self.args)

    def parse_args(self, raw: dict, where: str, partial: bool = False) -> dict:
        """Parse every argument (defaults filled in); ``partial``: missing required
        arguments are left out (they come as balls, over a box)."""
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
            elif partial:
                continue
            else:
                raise InputError(f"{where}: quantity {self.name!r} needs argument {key!r}")
            try:
                out[key] = ARG_PARSERS[self.parsers.get(key, key)](v)
            except InputError as e:
                raise InputError(f"{where}: {e}") from None
        return out
