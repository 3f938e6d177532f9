"""What the accountants hand the engines: a delta checked against the engine's range, the
sigma (or a run's sigmas) the answers are computed at, and the certified upper end as a
float rounded up (Opacus's get_epsilon returns a float).  Re-exported by
``verifier.accountants``."""
from __future__ import annotations

import math
from fractions import Fraction

from verifier.core.arith import parse_exact


def engine_delta(delta, name: str = "delta") -> Fraction:
    """delta read by the float policy and checked against the (epsilon, delta) engine's
    range [1e-12, 0.5] (before any shortcut answer, so a bad delta is never answered)."""
    from verifier.bounds.profile import RANGE
    d = parse_exact(delta, name)
    RANGE.check(None, None, None, delta=d)
    return d


def engine_sigma(sigma: Fraction) -> Fraction | None:
    """The sigma the float accountants' answers are computed at: None below the engine's
    range (no guarantee: they answer inf, or delta 1), the engine's largest sigma above it
    (a valid upper bound: epsilon and delta(eps) do not increase with sigma, the pair at a
    larger sigma being a post-processing of the pair at a smaller one, docs/THEORY.md
    section 9)."""
    from verifier.bounds.profile import SIGMA_RANGE
    return None if sigma < SIGMA_RANGE[0] else min(sigma, SIGMA_RANGE[1])


def engine_run(run):
    """``engine_sigma`` for every phase of a run (a ``verifier.Run``): None when a phase's
    sigma is below the engine's range, the run with each sigma above it read at the largest
    (an upper bound, as for one phase)."""
    from verifier.core.run import Gaussian, Phase, Run
    sig = [engine_sigma(p.noise_multiplier) for p in run.phases]
    if any(s is None for s in sig):
        return None
    return Run(tuple(Phase(Gaussian(s), p.sampler, p.steps) for s, p in zip(sig, run.phases)))


def epsilon_upper_float(sigma: Fraction, M: int, E: int, delta: Fraction) -> float:
    """The certified upper end of epsilon(delta) as a float rounded up, at engine_sigma;
    inf without a guarantee (sigma below the range, or no epsilon <= 60 certified)."""
    from verifier.api.profile import epsilon
    s = engine_sigma(sigma)
    if s is None:
        return math.inf
    r = epsilon(s, M, E, delta=delta)
    return math.inf if r.epsilon is None else up_float(r.epsilon.upper)


def up_float(q: Fraction) -> float:
    """The smallest float >= q (the certified upper end stays an upper end)."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)
