"""Certified (epsilon, delta) of a run (``verifier.core.run.Run``): phases of different
steps composed exactly, not collapsed to the worst phase (docs/THEORY.md section 15).

Which engine answers a run (one dispatch, ``plan``):
- one kind of step (after merging phases of the same kind: composition is commutative):
  that sampler's own engine, so a one-phase run gives bit for bit the brackets of
  ``bounds.poisson`` (Poisson, every_step as q = 1) or ``bounds.profile`` (random allocation);
- every step the Gaussian mechanism on every record (every_step, Poisson at q = 1, random
  allocation at M = 1): the T-fold product of Gaussian pairs N(0, s_i^2) vs N(1, s_i^2) is
  the Gaussian pair at mu^2 = sum_i n_i / s_i^2 (sufficient statistic sum_i x_i / s_i^2),
  in closed form to the requested digits (bounds.gaussian, docs/THEORY.md section 13);
- phases of Poisson steps at different (sigma, q): each phase's step laws on one lattice,
  composed by the product of their transforms, each raised to its own count
  (numerics.compose.ComposedProfile with ``phases``), the charges summed over phases;
- random-allocation epochs with other steps (mixed): on the finest of their lattices;
- a phase its sampler reduces (k of M): the upper and lower runs of the reduction; the rest
  refused in one line before anything is computed.
What the dispatch asks of a sampler it asks its engine (``samplers.py``), never its type.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from verifier.bounds.runs import k_of_m as KM
from verifier.bounds.runs import lattice as _lattice
from verifier.bounds.runs.lattice import (engine, first_tails, guess_epsilon, lattice_step,
                                          mixed_engine, mixed_levels, mixed_step, points,
                                          ra_log_moments, refine)
from verifier.bounds.gaussian import mu_squared
from verifier.bounds.runs.samplers import engine_of
from verifier.core.arith import InputError, Interval, frac_str
from verifier.core.run import Run, check_size
from verifier.numerics.brackets import (DeltaAnswer, EpsilonAnswer, both_directions,
                                        directions, epsilon_search, larger_direction, mirrored,
                                        bisection_rel, next_guess)


# ---- which engine: one dispatch over the samplers

def sample_rate_of(sampler) -> Fraction | None:
    """The per-step sample rate of a sampler the Poisson lattice takes (every_step, and a
    random-allocation epoch of one step, are q = 1), None for the others (samplers.py)."""
    return engine_of(sampler).lattice_rate(sampler)


def _gaussian_step(sampler) -> bool:
    """Whether every record is in every step (or epoch) of this sampler: the step is the
    Gaussian mechanism itself."""
    return engine_of(sampler).gaussian_step(sampler)


def plan(run: Run) -> str:
    """'single' (one kind of step: its own engine), 'gaussian' (closed form), 'poisson'
    (the multi-phase lattice), 'mixed' (random-allocation epochs with other steps)."""
    if not isinstance(run, Run):
        raise InputError(f"expected a verifier Run, got {type(run).__name__}")
    check_size(run.phases, "a run")
    if any(engine_of(p.sampler).reduced(p) is not None for p in run.phases):
        return "k-of-m"
    merged = run.merged()
    if len(merged) == 1:
        return "single"
    if all(_gaussian_step(s) for _, s, _ in merged):
        return "gaussian"
    return "mixed" if _ra_kinds(run) else "poisson"


def k_of_m_runs(run: Run) -> tuple:
    """(upper run, lower run) of a run with k-of-M random allocation (docs/THEORY.md section
    15, "k of M"): each phase its sampler engine reduces (samplers.py, ``reduced``: k of M
    by k blocks of 1-of-m epochs above, by the Gaussian pair of an epoch's sum below) is
    replaced by its upper phases in the upper run and its lower phases in the lower run."""
    up, lo = [], []
    for p in run.phases:
        red = engine_of(p.sampler).reduced(p)
        up += [p] if red is None else red[0]
        lo += [p] if red is None else red[1]
    return Run(tuple(up)), Run(tuple(lo))


def _ra_kinds(run: Run) -> list:
    """[((mechanism, sampler), epochs)] of the run's random-allocation epochs (M >= 2)."""
    return [((m, s), n // s.steps_per_epoch) for m, s, n in run.merged()
            if sample_rate_of(s) is None]


def check(run: Run, delta: Fraction | None = None, eps: Fraction | None = None):
    """Every phase inside its engine's range, before anything is computed; one line naming
    the phase otherwise."""
    from verifier.bounds import profile as PR
    how = plan(run)
    if how == "k-of-m":
        for i, p in enumerate(run.phases, 1):
            if engine_of(p.sampler).reduced(p) is not None:
                try:
                    PR.RANGE.check(p.noise_multiplier, p.sampler.steps_per_epoch, p.epochs,
                                   delta, eps)
                except InputError as e:
                    raise InputError(f"phase {i} ({p.describe()}): {e}") from None
        for r in k_of_m_runs(run):
            check(r, delta, eps)
        return how
    for i, p in enumerate(run.phases, 1):
        sigma = p.noise_multiplier
        try:
            if how == "gaussian":
                PR.RANGE.check(sigma, None, None, delta, eps)
            else:
                engine_of(p.sampler).check(sigma, p.sampler, p.epochs, delta, eps)
        except InputError as e:
            raise InputError(f"phase {i} ({p.describe()}): {e}") from None
    return how


def clear_cache():
    """Drop the run engines' cached laws (the lattice's and the k-of-M tests')."""
    _lattice.clear_cache()
    KM.clear_cache()


# ---- the multi-phase Poisson lattice

def _steps(run: Run) -> tuple:
    """((sigma, q, n), ...) of the merged phases the Poisson lattice takes (every_step as
    q = 1; random-allocation epochs of M >= 2 left out: see _ra_kinds)."""
    return tuple((m.noise_multiplier, sample_rate_of(s), n) for m, s, n in run.merged()
                 if sample_rate_of(s) is not None)


def _ra(run: Run) -> tuple:
    """((sigma, M, E), ...) of the run's kinds of random-allocation epoch."""
    return tuple((m.noise_multiplier, s.steps_per_epoch, E) for (m, s), E in _ra_kinds(run))


# ---- results

CERTIFIED_RUN = ("rigorous bracket of the run's composition: each phase's steps as a "
                 "dominating lattice pair (upper ends) and exact cell laws (lower ends) on one "
                 "lattice, composed by the product of their DFTs, each raised to its own count, "
                 "in ball arithmetic; the charges summed over the phases (docs/THEORY.md "
                 "section 15)")
CERTIFIED_GAUSSIAN = ("the Gaussian mechanism in closed form at mu^2 = sum_i n_i / sigma_i^2 "
                      "(every record in every step; Balle & Wang 2018, Theorem 8; "
                      "docs/THEORY.md sections 13, 15)")


CERTIFIED_K_OF_M = ("k of M random allocation: the upper end by its reduction to 1 of "
                    "floor(M/k) or ceil(M/k) allocations, composed exactly; the lower end by "
                    "explicit tests on the sum of the steps' likelihood-ratio cells (each kind "
                    "of k-of-M epoch) and the Gaussian pair of the steps' sum (docs/THEORY.md "
                    "section 15, 'k of M')")
K_OF_M_INFO = ("upper: k of M reduced to k blocks of 1-of-m allocations (a random partition "
               "revealed: post-processing); lower: tests on the sum of the steps' "
               "likelihood-ratio cells (each kind of k-of-M epoch, the other steps dropped) and "
               "the sum of an epoch's outputs")


def _larger(rem: Interval, add: Interval) -> Interval:
    """delta = max of the two directions: the bracket of the larger one's value."""
    return Interval(max(rem.lower, add.lower), max(rem.upper, add.upper))


def _joined(lo, up):
    """[lower end of the lower run's bracket, upper end of the upper run's] (None where either
    is inconclusive; inverted only by a bug, and then refused by Interval)."""
    if lo is None or up is None:
        return None
    return Interval(lo.lower, up.upper)


class _RunAnswer:
    @property
    def total_steps(self) -> int:
        return self.run.steps

    @property
    def CERTIFIED(self) -> str:
        return self.certified_by

    def run_json(self) -> dict:
        return {"run": self.run.to_json()}


@dataclass(frozen=True)
class RunEpsilon(_RunAnswer, EpsilonAnswer):
    run: Run
    delta: Fraction
    epsilon: Interval | None
    remove: Interval | None
    add: Interval | None
    larger: str
    seconds: float
    info: dict
    certified_by: str

    def to_json(self) -> dict:
        return {**self.run_json(), "delta": frac_str(self.delta), **self.answer_json()}


@dataclass(frozen=True)
class RunDelta(_RunAnswer, DeltaAnswer):
    run: Run
    epsilon: Fraction
    delta: Interval
    remove: Interval
    add: Interval
    larger: str
    seconds: float
    info: dict
    certified_by: str

    def to_json(self) -> dict:
        return {**self.run_json(), "epsilon": frac_str(self.epsilon), **self.answer_json()}


def _single(run: Run):
    """(sigma, sampler, steps) of a run of one kind of step."""
    (m, s, n), = run.merged()
    return m.noise_multiplier, s, n


def _mu2(run: Run) -> Fraction:
    return Fraction(mu_squared([(m.noise_multiplier, n) for m, s, n in run.merged()]))


def profile_source(run: Run, floor: float = 1e-13) -> tuple:
    """What gives the run's privacy profile at every eps (a view's grid, views.run_tradeoff):
    ("gaussian", mu^2) (closed form), ("random_allocation", (sigma, M, E)) (one kind of
    one-of-M epoch: its own engine and moments) or ("engine", make), make(eps_cap) a
    certified profile engine (``upper_remove``, ``lower_remove``, ``upper_add``,
    ``lower_add`` at an eps) at the run's first lattice step; a k-of-M run is answered by
    its two runs (k_of_m_runs)."""
    from verifier.bounds import poisson as PO
    how = plan(run)
    if how == "k-of-m":
        raise ValueError("profile_source: a k-of-M run's profile is its reduction's pair")
    if how == "gaussian" or (how == "single" and _gaussian_step(_single(run)[1])):
        return "gaussian", _mu2(run)
    if how == "single":
        sigma, s, n = _single(run)
        if sample_rate_of(s) is None:
            return "random_allocation", (sigma, s.steps_per_epoch, n // s.steps_per_epoch)
        return "engine", lambda cap: PO.engine(sigma, sample_rate_of(s), n, floor, cap)
    steps = _steps(run)
    if how == "mixed":
        eta_p = mixed_step(steps, guess_epsilon(steps, 1e-5, ra_log_moments(_ra(run))))
        return "engine", lambda cap: mixed_engine(_ra(run), steps, floor, cap, 1, eta_p)
    eta = lattice_step(steps, guess_epsilon(steps, 1e-5))
    return "engine", lambda cap: engine(steps, floor, cap, eta)


def _digits(rel_width) -> int:
    """The closed form's digits for a requested width (the Poisson engine's default 1e-3
    when none), as bounds.poisson at q = 1."""
    from verifier.bounds.gaussian import closed_form_width_digits
    from verifier.bounds.poisson import REL_TARGET
    return closed_form_width_digits(rel_width, REL_TARGET)


def epsilon_bracket(run: Run, delta: Fraction, rel_width: Fraction | None = None) -> RunEpsilon:
    """Certified bracket of epsilon(delta) of the run (both directions), refined to
    ``rel_width`` (default: each engine's, 0.1%)."""
    from verifier.bounds import poisson as PO
    from verifier.bounds import profile as PR
    how = check(run, delta=delta)
    t = time.perf_counter()
    if how == "k-of-m":
        up, lo = (epsilon_bracket(r, delta, rel_width) for r in k_of_m_runs(run))
        lows = KM.epsilon_lower_ends(run, delta, lo, up, bisection_rel(rel_width))
        ends = [_joined(a, b) for a, b in zip(lows, (up.epsilon, up.remove, up.add))]
        both, rem, add = ends
        return RunEpsilon(run, delta, both, rem, add,
                          larger_direction(rem, add) if rem and add else "undecided",
                          time.perf_counter() - t, {"k_of_m": K_OF_M_INFO, "upper": up.info},
                          CERTIFIED_K_OF_M)
    if how == "single":                   # its sampler's own engine (samplers.py)
        sigma, s, n = _single(run)
        r, by = engine_of(s).epsilon(sigma, s, n, delta, rel_width)
        return RunEpsilon(run, delta, r.epsilon, r.remove, r.add, r.larger,
                          time.perf_counter() - t, dict(r.info), by)
    if how == "gaussian":
        from verifier.bounds.gaussian import epsilon_interval
        d, mu2 = _digits(rel_width), _mu2(run)
        iv, _ = epsilon_interval(mu2, delta, d)
        return RunEpsilon(run, delta, iv, iv, iv, "undecided", time.perf_counter() - t,
                          {"closed_form": CERTIFIED_GAUSSIAN, "mu_squared": mu2, "digits": d},
                          CERTIFIED_GAUSSIAN)
    steps, ra = _steps(run), _ra(run)
    rel = PO.check_rel_width(rel_width)
    if PO.single.tv_at_most(steps, ra, delta):
        ivs = PO.single.zero_intervals()
        both, larger = both_directions(ivs)
        return RunEpsilon(run, delta, both, ivs["remove"], ivs["add"], larger,
                          time.perf_counter() - t, {"closed_form": _lattice.TV_INFO},
                          _lattice.TV_INFO)
    if how == "mixed":
        guess = guess_epsilon(steps, float(delta), ra_log_moments(ra))
        outm, floor = {}, PO.charge_floor(delta, rel)
        eta_p = mixed_step(steps, guess)           # the steps' own first lattice step, once

        def compute_mixed(fine):
            ivs, P = epsilon_search(lambda cap: mixed_engine(ra, steps, floor, cap, fine, eta_p),
                                    delta, next_guess(guess, outm.get("ivs")), PR.EPS_CAPS,
                                    PR.CAP_SLACK, bisection_rel(rel),
                                    failed=outm.setdefault("failed", set()))
            outm["ivs"] = ivs
            return both_directions(ivs)[0], P
        _, P = mixed_levels(compute_mixed, PO.eps_target(rel))
        ivs = outm["ivs"]
        both, larger = both_directions(ivs)
        return RunEpsilon(run, delta, both, ivs["remove"], ivs["add"], larger,
                          time.perf_counter() - t, _info(P, run), CERTIFIED_RUN)
    guess = guess_epsilon(steps, float(delta))
    out = {"floor": PO.charge_floor(delta, rel)}
    first, base = lattice_step(steps, guess), out["floor"]

    def compute(eta):
        tails = first_tails(eta, first, out["floor"], base, guess)
        ivs, P = epsilon_search(lambda cap: engine(steps, out["floor"], cap, eta, tails), delta,
                                next_guess(guess, out.get("ivs")), rel=bisection_rel(rel),
                                failed=out.setdefault("failed", set()))
        out["ivs"] = out[P] = ivs      # the last (the next search's guess); per profile
        return both_directions(ivs)[0], P
    note = {}                          # (a stalled refinement again at a lower floor)
    _, P = PO.again_if_stalled(compute, first, PO.eps_target(rel), note, out, points)
    ivs = out[P]                       # those of the profile refine returned
    both, larger = both_directions(ivs)
    return RunEpsilon(run, delta, both, ivs["remove"], ivs["add"], larger,
                      time.perf_counter() - t, {**_info(P, run), **note}, CERTIFIED_RUN)


def _info(P, run: Run) -> dict:
    return {"sampling": "run", "phases": len(P.phases), "eta": P.laws.eta,
            "points": points(P), "steps": run.steps}


def delta_bracket(run: Run, eps: Fraction, floor: float = 1e-13,
                  rel_width: Fraction | None = None) -> RunDelta:
    """Certified bracket of delta(eps) of the run (both directions); a negative eps is read
    off the brackets at -eps (numerics.brackets.mirrored)."""
    from verifier.bounds import poisson as PO
    how = check(run, eps=eps)
    t = time.perf_counter()
    if how == "k-of-m":
        up, lo = (delta_bracket(r, eps, floor, rel_width) for r in k_of_m_runs(run))
        lows = KM.delta_lower_ends(run, eps, lo)
        both, rem, add = (_joined(a, b) for a, b in zip(lows, (up.delta, up.remove, up.add)))
        return RunDelta(run, eps, both, rem, add, larger_direction(rem, add),
                        time.perf_counter() - t, {"k_of_m": K_OF_M_INFO, "upper": up.info},
                        CERTIFIED_K_OF_M)
    if how == "single":                   # its sampler's own engine (samplers.py)
        sigma, s, n = _single(run)
        r, by = engine_of(s).delta(sigma, s, n, eps, floor, rel_width)
        return RunDelta(run, eps, r.delta, r.remove, r.add, r.larger,
                        time.perf_counter() - t, dict(r.info), by)
    if how == "gaussian":
        from verifier.bounds.gaussian import delta_interval
        d, mu2 = _digits(rel_width), _mu2(run)
        iv = delta_interval(mu2, eps, d)
        return RunDelta(run, eps, iv, iv, iv, "undecided", time.perf_counter() - t,
                        {"closed_form": CERTIFIED_GAUSSIAN, "mu_squared": mu2, "digits": d},
                        CERTIFIED_GAUSSIAN)
    if eps < 0:
        r = delta_bracket(run, -eps, floor, rel_width)
        rem, add = mirrored(r.remove, r.add, -eps)
        return RunDelta(run, eps, _larger(rem, add), rem, add, larger_direction(rem, add),
                        r.seconds, r.info, r.certified_by)
    steps = _steps(run)
    rel = PO.check_rel_width(rel_width)
    out = {}
    if how == "mixed":
        ra, eta_p = _ra(run), mixed_step(steps, float(eps))

        def compute_mixed(fine):
            P = mixed_engine(ra, steps, floor, float(eps) + 1, fine, eta_p)
            out["dirs"] = directions(P, eps)
            rem, add = out["dirs"]
            return _larger(rem, add), P
        both, P = mixed_levels(compute_mixed, lambda iv: max(rel * iv.lower, Fraction(floor)))
        rem, add = out["dirs"]
        return RunDelta(run, eps, both, rem, add, larger_direction(rem, add),
                        time.perf_counter() - t, _info(P, run), CERTIFIED_RUN)

    def compute(eta):
        P = engine(steps, floor, float(eps) + 1, eta)
        rem, add = out[P] = directions(P, eps)
        return _larger(rem, add), P
    note = {}
    both, P = refine(compute, lattice_step(steps, float(eps)),
                     lambda iv: max(rel * iv.lower, Fraction(floor)), note)
    rem, add = out[P]                  # the directions of the profile refine returned
    return RunDelta(run, eps, both, rem, add, larger_direction(rem, add),
                    time.perf_counter() - t, {**_info(P, run), **note}, CERTIFIED_RUN)


__all__ = ["RunEpsilon", "RunDelta", "epsilon_bracket", "delta_bracket", "plan", "check",
           "profile_source"]
