"""Certified (epsilon, delta) of DP-SGD with Poisson subsampling: both directions of delta(eps)
and epsilon(delta) of T steps at sample rate q, rigorous brackets (docs/THEORY.md section 12).
pair.py: one step as four lattice laws (dominating pairs: upper ends; the privacy loss's cells:
lower ends); verifier/numerics: the T-fold composition and the brackets; this module: the
range, the lattice step, the searches."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, Interval, frac_str
from verifier.bounds.gaussian import mu_squared
from verifier.bounds.poisson import single
from verifier.bounds.poisson.choices import (EPS_GRID, START_POINTS, STEP_GRID,  # noqa: F401
                                            following_floor, guess_epsilon, lattice_step,
                                            log_moments)
from verifier.core.ranges import Range
from verifier.numerics.cache import EngineCache
from verifier.numerics.lattice import two_limbs
from verifier.numerics.brackets import (DeltaAnswer, EpsilonAnswer, both_directions, directions,
                                        epsilon_search, larger_direction, mirrored,
                                        bisection_rel, next_guess)

RANGE = Range("Poisson (epsilon, delta) engine", sigma=(Fraction(3, 10), Fraction(50)),
              steps=(1, 10 ** 7), epochs=None,
              delta=(Fraction(1, 10 ** 12), Fraction(1, 2)), epsilon=(Fraction(0), Fraction(60)),
              sample_rate=(Fraction(1, 10 ** 6), Fraction(1)), steps_name="total_steps T",
              steps_symbol="T")
RANGE_HELP = RANGE.help()
REL_TARGET = Fraction(1, 1000)    # epsilon(delta): eta is halved while the bracket is wider
ABS_TARGET = Fraction(1, 10 ** 4)  # (relative width, or absolute where eps < 0.1) ...
REFINE_POINTS = 1 << 19  # ... and one step's laws have fewer points than this (60,000 before:
                         # sigma 0.8, q 1e-4, T 1e6, delta 1e-10 stopped at 0.171%; 131072 held
                         # TF Privacy's sigma 0.7, q 0.01, T 120 at 5.4e-8 when 1e-8 was asked)
STALL = Fraction(9, 10)  # ... and while a finer step narrows the bracket to at most this much (the
                         # width falls about as eta^2; sigma 0.3, q 1e-6, T 1e7, delta 1e-12: 22%
                         # wide at 27247 and 104937 points, its scan blind; THEORY 12)
STALL_FLOOR = 1e-3       # a stalled refinement again, the floor this much lower (tail cells
STALL_RETRIES = 3        # follow it: epsilon 1e-3 stalled 0.75% wide; choices.small_eps_floor),
                         # at most this many times, while each retry narrows the bracket
MARGIN = 64              # precision: the radii this many bits below the charge floor
LIMB_SLACK = 20          # precision: this far above two limbs taken down to them (lattice.
                         # two_limbs; sigma 1, q 1e-3, T 1e6: 138 bits -> 128, 1.39 -> 1.09 s;
                         # 20, not 16: ten phases of 1e4 steps, q 0.01: 148 -> 128, 0.84 -> 0.56 s)
_CACHE = EngineCache(5)         # composed profiles (numerics/cache.py)


def check_range(sigma: Fraction, q: Fraction, T: int, delta: Fraction | None = None,
                eps: Fraction | None = None):
    RANGE.check(sigma, T, None, delta, eps, sample_rate=q)


def clear_cache():
    _CACHE.clear()


def charge_floor(delta: Fraction, rel_width: Fraction | None) -> float:
    """The floor the engine's charges are relative to (pair.points: the cut-off below
    CHARGE floor, the doubling tail steps below TAIL_TOL floor) for epsilon(delta) at a
    requested relative width: delta at the default REL_TARGET, delta times the request over
    REL_TARGET below it (any floor is valid, a smaller one tighter: at the default floor
    sigma 2, q 1e-4, T 1e5, delta 1e-10 stalled 2.6e-6 wide; scaled, 1e-6 in 7 s)."""
    scale = 1 if rel_width is None else min(Fraction(1), Fraction(rel_width) / REL_TARGET)
    return float(Fraction(delta) * scale)


def precision(T: int, floor: float, eta: Fraction, eps_cap: float) -> int:
    # z^T multiplies relative radii by T; the profile absolute ones by up to e^eps; the
    # dominating pair's slopes divide by about eta; delta >= floor, the radii MARGIN bits
    # below it; at most LIMB_SLACK bits above two limbs taken down to them
    return two_limbs(MARGIN + 2 * T.bit_length() + int(1.45 * eps_cap)
                     + int(-math.log2(floor)) + int(-math.log2(float(eta))), LIMB_SLACK)


def engine(sigma: Fraction, q: Fraction, T: int, floor: float, eps_cap: float,
           eta: Fraction | None = None):
    """The composed laws of T steps (a numerics.compose.ComposedProfile), cached."""
    from verifier.bounds.poisson.pair import step_laws
    from verifier.numerics.compose import ComposedProfile
    if eta is None:
        eta = lattice_step(sigma, q, T, guess_epsilon(sigma, q, T, max(floor, 1e-300)))
    key = (sigma, q, T, floor, eps_cap, eta)

    def make():
        from verifier.core.progress import report
        prec = precision(T, floor, eta, eps_cap)
        report(f"Poisson, T = {T} steps: one step's laws at lattice step {float(eta):.3g}")
        laws = step_laws(sigma, q, T, floor, eta, prec)
        report(f"Poisson, T = {T} steps: composing {laws.info['points']} points per step")
        return ComposedProfile(laws, T, prec, floor, eps_cap, symmetric=q == 1, scan_tests=True,
                               unit="steps")
    return _CACHE.get(key, make)


CERTIFIED = ("rigorous bracket: upper ends by a dominating lattice pair of each step "
             "(connect the dots, arXiv 2207.04380) composed by DFT powers in ball arithmetic, "
             "the cut-off tail charged; lower ends by explicit tests on the cell of the privacy "
             "loss; epsilon by certified bisection (docs/THEORY.md section 12)")


def _common(self) -> dict:
    return {"sampling": "poisson", "sigma": frac_str(self.sigma),
            "sample_rate": frac_str(self.sample_rate), "total_steps": self.steps}


class _PoissonRun:
    """The run's attributes behind the JSON keys of both Poisson answers."""
    sampling = "poisson"

    @property
    def total_steps(self) -> int:
        return self.steps

    @property
    def CERTIFIED(self) -> str:
        return single.CERTIFIED if "closed_form" in self.info else CERTIFIED


@dataclass(frozen=True)
class PoissonDelta(_PoissonRun, DeltaAnswer):
    sigma: Fraction
    sample_rate: Fraction
    steps: int                   # T, steps in all
    epsilon: Fraction
    delta: Interval
    remove: Interval
    add: Interval
    larger: str
    seconds: float
    info: dict

    def to_json(self) -> dict:
        return {**_common(self), "epsilon": frac_str(self.epsilon), **self.answer_json()}


@dataclass(frozen=True)
class PoissonEpsilon(_PoissonRun, EpsilonAnswer):
    sigma: Fraction
    sample_rate: Fraction
    steps: int
    delta: Fraction
    epsilon: Interval | None
    remove: Interval | None
    add: Interval | None
    larger: str
    seconds: float
    info: dict

    def to_json(self) -> dict:
        return {**_common(self), "delta": frac_str(self.delta), **self.answer_json()}


def finer(compute, eta: Fraction, last: tuple, note: dict | None) -> tuple | None:
    """compute(eta) at a refined lattice step, or None (``last`` stands, the reason in
    ``note["refinement_limit"]``) where it would need more memory than the limit (at most
    memory.REFINE_BYTES where none was set: memory.refining) or an engine refuses it (one
    step's laws past pair.MAX_POINTS: sigma 1, q 1e-3, T 1e5, delta 1e-5 asked for 1e-8
    ended in that refusal, exit 2, its bracket lost): any lattice step gives a certified
    bracket, the finer one only a narrower one."""
    from verifier.numerics.memory import MemoryLimitError, refining
    if last is None:
        return compute(eta)
    try:
        with refining():
            return compute(eta)
    except (MemoryLimitError, InputError) as e:     # memory; a step's points (pair.points)
        if note is not None:
            note["refinement_limit"] = f"the next lattice step (eta = {float(eta):.3g}): {e}"
        return None


def finer_or_half(compute, eta: Fraction, prev: Fraction | None, last: tuple,
                  note: dict | None) -> tuple:
    """(``finer``'s answer, the step it used): a step more than twice finer than ``prev``
    (the last one computed) that a limit refuses is tried again at prev / 2 (a jump of 8
    from 63329 points passed a step's points where a doubling would have fitted)."""
    got = finer(compute, eta, last, note)
    if got is None and prev is not None and eta < prev / 2:
        got = finer(compute, prev / 2, last, note)
        if got is not None:
            eta = prev / 2
            if note is not None:
                note.pop("refinement_limit", None)
    return got, eta


def stopped(note: dict | None, n: int, width, before, grow) -> bool:
    """Whether the refinement stops short of its target, the reason in ``note``: the next
    step's laws at more than REFINE_POINTS points (``grow``: the next lattice step's
    fineness over this one's, the points taken to grow as much), or a finer step that
    narrowed the bracket to more than STALL of its last width ``before`` (None at the first
    step)."""
    if before is not None and width > STALL * before:
        why = (f"the bracket stopped narrowing ({float(before):.3g} -> {float(width):.3g} wide "
               f"with {n} lattice points a step: the lattice step is not what limits it)")
    elif grow * n > REFINE_POINTS:
        why = (f"one step's laws have {n} lattice points and the next step would pass the "
               f"engine's limit ({REFINE_POINTS}); ask for a wider --rel-width or fewer steps")
    else:
        return False
    if note is not None:
        note["refinement_limit"] = why
    return True


def next_step(eta: Fraction, width, want, n: int) -> Fraction:
    """The next lattice step of a refinement (a free parameter: every step is valid, a finer
    one tighter; the width falls about as eta^2): a bracket just too wide (1.2 sqrt(width /
    want) <= 8/5) takes eta times 7/8, 6/8 or 5/8, the largest within 1 / (1.1 sqrt(width /
    want)) (a halving would double the window), a wider one eta divided by 2 to 8,
    1.2 sqrt(width / want) rounded up to a power of 2, at most as far as REFINE_POINTS
    allows from n points (sigma 1, q 1e-3, T 1e5 asked for 1e-8 stopped 1.37e-8 wide at
    321105 points, where 5/8 of the step gave 5.4e-9 in 62 s)."""
    r = math.sqrt(float(width / want))
    if 1.2 * r <= 8 / 5:                  # the factor f with f^2 width <= want, 10% to spare
        return eta * Fraction(min(7, math.floor(8 / (1.1 * r))), 8)
    k = min(3, max(1, math.ceil(math.log2(1.2 * r))))
    return eta / 2 ** min(k, max(1, int(math.log2(REFINE_POINTS / n))))


def narrowest(best: tuple | None, got: tuple) -> tuple:
    """The narrower of two (bracket, profile) answers of one quantity at two lattice steps
    (``best`` None: ``got``): each bracket is certified, so a finer step that widened it
    (a run's add direction lost its upper end at floor 1e-8) does not replace the narrower;
    the caller reads the directions of the profile returned."""
    if best is None or got[0].upper - got[0].lower < best[0].upper - best[0].lower:
        return got
    return best


def refine(compute, eta: Fraction, target, note: dict | None = None,
           points=lambda P: P.laws.info["points"]) -> tuple:
    """compute(eta) -> (bracket or None, profile): refined while the bracket is wider than
    target(bracket), the next step's laws would have at most REFINE_POINTS points (``points``:
    a profile's points per step; a run's, runs.lattice.points) and the last finer step
    narrowed it (``stopped``), and while the finer step fits the memory limit (``finer``);
    the next step by ``next_step``.  Returns the narrowest (bracket, profile) computed
    (``narrowest``).  One loop for the Poisson engine and for runs (runs.lattice.refine)."""
    last, before, prev, best = None, None, None, None
    while True:
        got, eta = finer_or_half(compute, eta, prev, last, note)
        if got is None:
            return best
        iv, P = last = got
        prev = eta
        if iv is None:                 # no certified end at this step: a coarser one stands
            if best is not None and note is not None:
                note["refinement_limit"] = (f"the next lattice step (eta = {float(eta):.3g}) "
                                            f"certified no end; the last bracket stands")
            return best if best is not None else (iv, P)
        best = narrowest(best, got)
        width, want = iv.upper - iv.lower, target(iv)
        n = points(P)
        if width <= want:
            return best
        nxt = next_step(eta, width, want, n)
        if stopped(note, n, width, before, eta / nxt):
            return best
        before, eta = width, nxt


def again_if_stalled(compute, eta: Fraction, target, note: dict, state: dict,
                     points=lambda P: P.laws.info["points"]) -> tuple:
    """refine; where it stalled short of target, again from its last step at state["floor"]
    x STALL_FLOOR, up to STALL_RETRIES times while each retry narrows (sigma 4.94, q 2.4e-6,
    T 2, delta 3e-10, epsilon 2.6e-6: 15% wide, then 0.27%, then 0.003%); after every step
    the floor follows a tiny epsilon (choices.following_floor)."""
    compute = following_floor(compute, state)
    best = refine(compute, eta, target, note, points)
    for _ in range(STALL_RETRIES):
        iv, P = best
        if iv is None or iv.upper - iv.lower <= target(iv) or \
                "stopped narrowing" not in note.get("refinement_limit", ""):
            return best
        state["floor"] *= STALL_FLOOR
        again = {}
        got = refine(compute, P.laws.eta, target, again, points)
        if got[0] is None or narrowest(best, got) is best:
            return best
        note.clear()
        note.update(again)
        best = got
    return best


def eps_target(rel: Fraction):
    def target(iv: Interval) -> Fraction:
        return max(rel * iv.lower, ABS_TARGET * min(1, 10 * iv.upper) * rel / REL_TARGET)
    return target


def check_rel_width(rel) -> Fraction:
    """A requested relative width (numerics.brackets.check_rel_width), REL_TARGET by default."""
    from verifier.numerics.brackets import check_rel_width as check
    return check(rel, REL_TARGET)


def gaussian_info(digits: int) -> dict:
    """q = 1: T steps of the Gaussian mechanism on every record are the Gaussian pair at
    mu^2 = T / sigma^2 (the sum of the steps' outputs is sufficient), in closed form (Balle &
    Wang 2018, Theorem 8; docs/THEORY.md sections 12, 13)."""
    from verifier.bounds.gaussian import GAUSSIAN_INFO
    return {"sampling": "poisson", "closed_form": GAUSSIAN_INFO + ", mu^2 = T / sigma^2",
            "digits": digits}


def delta_bracket(sigma: Fraction, q: Fraction, T: int, eps: Fraction,
                  floor: float = 1e-13, rel_width: Fraction = REL_TARGET) -> PoissonDelta:
    """Certified bracket of delta(eps) of T steps at sample rate q, and of each direction
    (refined to a relative width of REL_TARGET where the lattice allows; one step, T = 1, by
    its closed form to single.WIDTH or the requested width)."""
    if eps < 0:                     # read off the brackets at -eps (brackets.mirrored)
        check_range(sigma, q, T, eps=eps)          # named with its sign
        r = delta_bracket(sigma, q, T, -eps, floor, rel_width)
        rem, add = mirrored(r.remove, r.add, -eps)
        return PoissonDelta(sigma, q, T, eps, Interval(max(rem.lower, add.lower),
                                                       max(rem.upper, add.upper)),
                            rem, add, larger_direction(rem, add), r.seconds, r.info)
    check_range(sigma, q, T, eps=eps)
    t = time.perf_counter()
    if q == 1:                         # every record in every step: the Gaussian mechanism
        from verifier.bounds.gaussian import delta_interval
        from verifier.bounds.gaussian import closed_form_digits
        d = closed_form_digits(rel_width)
        iv = delta_interval(mu_squared([(sigma, T)]), eps, d)
        return PoissonDelta(sigma, q, T, eps, iv, iv, iv, "undecided", time.perf_counter() - t,
                            gaussian_info(d))
    if single.closed_form(T):          # one step: its closed form (single.py)
        rem, add = single.delta_intervals(sigma, q, eps, min(rel_width, single.WIDTH))
        return PoissonDelta(sigma, q, T, eps, Interval(max(rem.lower, add.lower),
                                                       max(rem.upper, add.upper)),
                            rem, add, larger_direction(rem, add), time.perf_counter() - t,
                            {"closed_form": single.INFO})
    dirs = {}                          # profile -> its two directions

    def compute(eta):
        P = engine(sigma, q, T, floor, float(eps) + 1, eta)
        rem, add = dirs[P] = directions(P, eps)
        return Interval(max(rem.lower, add.lower), max(rem.upper, add.upper)), P
    note = {}
    both, P = refine(compute, lattice_step(sigma, q, T, float(eps)),
                     lambda iv: max(rel_width * iv.lower, Fraction(floor)), note)
    rem, add = dirs[P]                 # those of the profile refine returned
    return PoissonDelta(sigma, q, T, eps, both, rem, add, larger_direction(rem, add),
                        time.perf_counter() - t, {**P.laws.info, **note})


def epsilon_bracket(sigma: Fraction, q: Fraction, T: int, delta: Fraction,
                    rel_width: Fraction = REL_TARGET) -> PoissonEpsilon:
    """Certified bracket of epsilon(delta) = the smallest eps >= 0 with delta(eps) <= delta,
    and of each direction's (refined to REL_TARGET, or ABS_TARGET where eps < 0.1; one step,
    T = 1, by certified bisection on its closed form to single.EPS_WIDTH or the request)."""
    check_range(sigma, q, T, delta=delta)
    t = time.perf_counter()
    if q == 1:                         # every record in every step: the Gaussian mechanism
        from verifier.bounds.gaussian import epsilon_interval
        from verifier.bounds.gaussian import closed_form_digits
        d = closed_form_digits(rel_width)
        iv, _ = epsilon_interval(mu_squared([(sigma, T)]), delta, d)
        return PoissonEpsilon(sigma, q, T, delta, iv, iv, iv, "undecided",
                              time.perf_counter() - t, gaussian_info(d))
    if single.closed_form(T) or single.zero_by_tv(sigma, q, T, delta):   # one step: certified
        ivs = single.zero_intervals() if T > 1 else single.epsilon_intervals(  # bisection
            sigma, q, delta, min(rel_width, single.EPS_WIDTH), RANGE.epsilon[1])
        both, larger = both_directions(ivs)
        return PoissonEpsilon(sigma, q, T, delta, both, ivs["remove"], ivs["add"], larger,
                              time.perf_counter() - t,
                              {"closed_form": single.INFO if T == 1 else single.TV_INFO})
    guess = guess_epsilon(sigma, q, T, float(delta))
    out = {"floor": charge_floor(delta, rel_width)}

    def compute(eta):
        ivs, P = epsilon_search(lambda cap: engine(sigma, q, T, out["floor"], cap, eta), delta,
                                next_guess(guess, out.get("ivs")), rel=bisection_rel(rel_width),
                                failed=out.setdefault("failed", set()))
        out["ivs"] = out[P] = ivs      # the last (the next search's guess); per profile
        return both_directions(ivs)[0], P
    note = {}
    _, P = again_if_stalled(compute, lattice_step(sigma, q, T, guess), eps_target(rel_width),
                            note, out)
    ivs = out[P]                       # those of the profile refine returned
    both, larger = both_directions(ivs)
    return PoissonEpsilon(sigma, q, T, delta, both, ivs["remove"], ivs["add"], larger,
                          time.perf_counter() - t, {**P.laws.info, **note})


def meets(sigma: Fraction, q: Fraction, T: int, eps: Fraction, delta: Fraction):
    """Three-valued, certified: delta(eps) <= delta?  (Tri, bracket of delta(eps))."""
    from verifier.core.arith import Tri
    P = engine(sigma, q, T, float(delta), float(eps) + 1,
               lattice_step(sigma, q, T, float(eps)))
    rem, add = directions(P, eps)
    iv = Interval(max(rem.lower, add.lower), max(rem.upper, add.upper))
    if iv.upper <= delta:
        return Tri.HOLDS, iv
    if iv.lower > delta:
        return Tri.FAILS, iv
    return Tri.UNDECIDED, iv
