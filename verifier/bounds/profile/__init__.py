"""Certified (epsilon, delta) of the random-allocation pair: both directions of the privacy
profile delta(eps), epsilon(delta), each a rigorous bracket.

- laws.py: one epoch as three discrete laws (remove and add upper ends, the test statistic
  for the lower ends), every approximation one-sided;
- compose.py: E epochs by one DFT per law, and delta(eps) at O(1) per eps;
- results.py: the answers (DeltaResult, EpsilonResult);
- this module: ranges and the searches (epsilon(delta) by certified bisection) with their
  refinement loop (a requested accuracy).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

from verifier.bounds.gaussian import GAUSSIAN_INFO, closed_form_width_digits
from verifier.core.arith import Interval
from verifier.core.ranges import Range
from verifier.numerics.cache import EngineCache
from verifier.numerics.lattice import two_limbs
from verifier.numerics.brackets import (bisection_rel, both_directions, directions,
                                        epsilon_search, larger_direction, mirrored,
                                        next_guess)
from verifier.bounds.profile.results import CERTIFIED, DeltaResult, EpsilonResult  # noqa: F401
from verifier.bounds.profile.plan import (BAND_M, START_LEVEL, START_NARROWEST,  # noqa: F401
                                          START_WIDTH, band_path, start_level)

# the engine's range, stated once (verifier.core.ranges): outside it a one-line refusal
# (exit 2); the messages and the --help text are generated from it
RANGE = Range("(epsilon, delta) engine", sigma=(Fraction(3, 10), Fraction(50)),
              steps=(1, 10 ** 7), epochs=(1, 1000),
              delta=(Fraction(1, 10 ** 12), Fraction(1, 2)), epsilon=(Fraction(0), Fraction(60)))
SIGMA_RANGE = RANGE.sigma
MAX_STEPS = RANGE.steps[1]
MAX_EPOCHS = RANGE.epochs[1]
DELTA_RANGE = RANGE.delta
EPS_MAX = RANGE.epsilon[1]
RANGE_HELP = RANGE.help()
GAUSSIAN_MAX_EPOCHS = 10 ** 7   # M = 1: the Gaussian mechanism, in closed form (as Poisson's T)


def check_range(sigma: Fraction, M: int, E: int, delta: Fraction | None = None,
                eps: Fraction | None = None):
    RANGE.check(sigma, M, E, delta, eps)


def parse_pair(sigma, steps, epochs, gaussian: bool = False) -> tuple:
    """(sigma, M, E) as the user gave them (parse_exact's float policy; epochs None means 1):
    the API's and the CLI's one parser; ``gaussian``: E up to GAUSSIAN_MAX_EPOCHS at M = 1."""
    from verifier.core.arith import parse_epochs, parse_sigma, parse_steps
    s, M = parse_sigma(sigma), parse_steps(steps, minimum=1)
    top = GAUSSIAN_MAX_EPOCHS if gaussian and M == 1 else MAX_EPOCHS
    return s, M, parse_epochs(1 if epochs is None else epochs, top)


def _prec(M: int, floor: float, eps_cap: float = 61) -> int:
    # a free parameter (the radii only widen brackets): x^M multiplies relative radii by M
    # (log2 M bits, and 4 more); the profile multiplies absolute radii by up to e^eps (eps <=
    # eps_cap: 1.45 eps_cap bits) and must resolve delta >= floor; 56 guard bits for the DFT
    # lengths (<= 2^22), the E-fold powers and a margin below floor.  Measured (docs/THEORY.md
    # section 9, "Working precision"): the brackets at M 1000 and 1e4 stay the same to 12
    # digits from 16-30 bits below this; at eps near 55, 24 bits below it lose a direction.
    # At most 128 bits (two limbs) an Arb DFT takes about half the time of 129-192.
    bits = 60 + M.bit_length() + int(1.45 * eps_cap) + int(-math.log2(floor))
    return two_limbs(bits, LIMB_SLACK)


LIMB_SLACK = 8      # a precision this far above two limbs is taken down to them (numerics.
                    # lattice.two_limbs; measured: sigma 0.5, M 1e4, E 100, level 8: 130 -> 120
                    # bits gave the same brackets to 10 digits)


_LAWS = EngineCache(5)          # per-epoch laws (numerics/cache.py)
_PROFILES = EngineCache(9)      # composed profiles


def clear_cache():
    """Forget the cached per-epoch laws and composed profiles (benchmarks time cold runs)."""
    _LAWS.clear()
    _PROFILES.clear()


# eps caps of the composed laws: their windows are sized for eps <= cap (valid beyond, only
# looser: the windows' charge 2 e^eps P_out stays below about 1e-3 floor up to cap + 4); a
# search starts at the smallest and moves up when its answer lies beyond cap + CAP_SLACK.
# The cap 8 (eps 4..12, where DP-SGD's targets lie): 12 bits fewer than the cap 16's laws
# and smaller windows, the same brackets (sigma 0.5, M 1e4, E 100, delta 1e-10: eps 7.92,
# 1.8 -> 1.4 s; a 1e-4 request's level 3 at 127 bits instead of 139)
EPS_CAPS = (4, 8, 16, 61)
CAP_SLACK = 4


def prec_cap(wcap: int) -> int:
    """The eps the laws' precision resolves for windows sized for eps <= wcap: the answers a
    search accepts there (wcap + CAP_SLACK), at most the range's; one precision per cap (a
    search that moves up a cap recomputes the laws)."""
    return min(wcap + CAP_SLACK, EPS_CAPS[-1])


def _epoch_laws(sigma: Fraction, M: int, E: int, floor: float,
                budget_epochs: int | None = None, pcap: int = 61, fine: int = 1):
    """(key, prec, per-epoch laws), cached: the laws are planned for ``budget_epochs`` >= E
    epochs (default E), so a search over E composes one set of laws many times; their
    precision resolves eps <= pcap."""
    from verifier.bounds.profile.laws import epoch_laws
    be = max(E, budget_epochs or E)
    prec = _prec(M, floor, pcap)
    lk = (sigma, M, be, floor, pcap, fine)
    return lk, prec, _LAWS.get(lk, lambda: epoch_laws(sigma, M, be, floor, prec, fine))


def guess_epsilon(sigma: Fraction, M: int, E: int, delta: float) -> float:
    """A float guess of epsilon(delta) from above (a free parameter: it only picks the
    composed windows' eps cap and the laws' precision): the classical Renyi conversion
    min_a [E log E[Ybar^a] / (a - 1) + log(1/delta) / (a - 1)] of the exact integer moments
    of one epoch (remove direction; docs/THEORY.md section 10), a = 2..64."""
    from verifier.bounds.moments import integer_moments
    ms = integer_moments(sigma, M, 64, prec=128)
    best = math.inf
    for a in range(2, 65):
        lm = ms[a].log()
        if not lm.is_finite():
            continue
        best = min(best, (E * float(lm.mid()) + math.log(1 / delta)) / (a - 1))
    return best


def epoch_laws_for_run(sigma, M: int, E: int, floor: float, eps_cap: float, fine: int = 1):
    """(prec, per-epoch laws) as ``engine`` plans them, for a run (bounds/runs.py)."""
    wcap = next((c for c in EPS_CAPS if eps_cap <= c), EPS_CAPS[-1])
    return _epoch_laws(sigma, M, E, floor / fine ** 2, None, prec_cap(wcap), fine)[1:]


def engine(sigma: Fraction, M: int, E: int, floor: float, budget_epochs: int | None = None,
           eps_cap: float = 16, fine: int = 1):
    """The composed laws of (sigma, M, E), valid for every eps; each charge kept below about
    1e-4 floor.  The per-epoch laws are planned for ``budget_epochs`` >= E epochs (default E)
    and cached, so a search over E composes one set of laws many times; ``fine`` > 1 refines
    them (plan.plan) and divides the floor by fine^2."""
    floor = floor / fine ** 2
    from verifier.bounds.profile.compose import add_moment_bound
    from verifier.numerics.compose import ComposedProfile
    wcap = next((c for c in EPS_CAPS if eps_cap <= c), EPS_CAPS[-1])   # the windows' sizes
    lk, prec, laws = _epoch_laws(sigma, M, E, floor, budget_epochs, prec_cap(wcap), fine)
    pk = lk + (E, wcap)
    return _PROFILES.get(pk, lambda: ComposedProfile(
        laws, E, prec, floor, wcap, symmetric=M == 1,
        add_upper=lambda n, eps: add_moment_bound(sigma, M, n, eps)))


def meets(sigma: Fraction, M: int, E: int, eps: Fraction, delta: Fraction,
          budget_epochs: int | None = None):
    """Three-valued, certified: does delta(eps) <= delta hold (equivalently epsilon(delta) <=
    eps)?  HOLDS when both directions' upper ends are <= delta, FAILS when one direction's
    lower end is > delta, else UNDECIDED.  Returns (Tri, (lower, upper) of delta(eps))."""
    from verifier.core.arith import Tri
    P = engine(sigma, M, E, float(delta), budget_epochs, float(eps) + 1)
    rem, add = directions(P, eps)
    iv = Interval(max(rem.lower, add.lower), max(rem.upper, add.upper))
    if iv.upper <= delta:          # both upper ends (outward rational ends of the balls)
        return Tri.HOLDS, iv
    if iv.lower > delta:           # one direction's lower end
        return Tri.FAILS, iv
    return Tri.UNDECIDED, iv


LEVELS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)   # the refinement levels a request may use
MAX_FINE = LEVELS[-1]  # the finest refinement level a requested width may ask for
REFINE_SECONDS = 60    # ... and no level is started that would likely end past this
WIDTH_ORDER = 2        # widths shrink about as fine^-2 (measured: docs/PROFILE.md, "A requested
                       # accuracy"); later levels use the order measured on the last two
TIME_ORDER = 1.75      # a level's time grows about as fine^1.75 (measured 1.3-1.8; order 2 with
                       # TIME_MARGIN took level 6 at sigma 0.5, M 1e4, E 100 where 8 fitted
                       # and met 1e-5) until two levels measure it,
TIME_ORDER_MIN = 1.5   # then the measured order, at least this (TIME_ORDER_MIN_BAND at M >=
TIME_ORDER_MIN_BAND = 1.25   # BAND_M: measured 1.0-1.27 from level 8; sigma 0.5, M 1e4, E 100,
                       # levels 8, 16, 24: 11.3, 26.8, 40.4 s at delta 1e-3; sigma 1, M 1e4:
                       # 8 -> 12 13.7 -> 20.6 s, where 1.5 chose 12 for 16, 1.2e-6 under load)
MARGIN = 1.25          # a level is picked for a width this much below the request (the widths
                       # of nearby levels wobble with the rounded free parameters)
TIME_MARGIN = 1.25     # ... and its predicted time this much above the prediction (sigma 0.5,
                       # M 1000, E 10: level 8 -> 32 predicted 52 s from the order 1.5, took 64)
STALLED = 0.5          # a measured order below this: the bracket stopped narrowing
JUMP = 8               # a level at most this many times the last one (whose time may have
                       # been a cache's: its prediction is checked by a cold level first)


def _order(a: tuple, b: tuple, default: float, lo: float, hi: float) -> float:
    """The order p of y ~ fine^(+-p) from two levels (fine, y), clamped to [lo, hi]."""
    if a is None or b[1] <= 0 or a[1] <= 0 or b[0] == a[0]:
        return default
    return min(hi, max(lo, abs(math.log(a[1] / b[1]) / math.log(b[0] / a[0]))))


def _against(done: list, f: int):
    """The level an order is measured against: the finest at most half of ``f`` (a span of
    a doubling at least: the widths of nearby levels wobble with the rounded free
    parameters), else the last one; None without one."""
    return next((d for d in reversed(done) if 2 * d[0] <= f), done[-1] if done else None)


def stall_span(a: int, b: int) -> bool:
    """Whether levels a < b are far enough apart to say the bracket stopped narrowing: a
    doubling at least.  Over a shorter span the widths wobble with the rounded free
    parameters and the lower ends' tests (sigma 0.5, M 1e4, E 1, delta 1e-10: level 8 -> 12
    measured an order below 1/2 in one run and named that as the limit at 1.9e-6, where the
    time was; another run went 8 -> 16 and met 1e-6 with 6.2e-7); between refined levels only
    (level 1 has no log rooms; sigma 1, M 2, E 1, delta 1e-10: 1 -> 2 order 0.2, 8 met 1e-4)."""
    return 1 < a and 2 * a <= b


def next_level(done: list, max_fine: int, left: float, first_apart: bool = False,
               order_min: float = TIME_ORDER_MIN) -> tuple:
    """(level, None) of the next refinement, or (None, why not): ``done`` lists (fine, width
    over the requested width, seconds) of the levels computed so far.  The level needed is
    predicted from the widths (order WIDTH_ORDER, or the one measured on the last two
    levels), rounded up to LEVELS; a level whose predicted time (order TIME_ORDER, or the one
    measured, at least ``order_min``: time_order_min; with a TIME_MARGIN) would pass
    ``left`` seconds is replaced by the finest that fits.  ``first_apart``: level 1 ran on
    another lattice than the refined levels (level_one_apart), so its width measures no
    order (sigma 0.8, M 1000: level 1 -> 8 measured 2.6, 8 -> 16 then had 2.1 and level 16
    landed 4% short).  Floats only choose the level: every bracket is certified."""
    f, x, t = done[-1]
    prev = _against(done[:-1], f)
    prev_w = _against([d for d in done[:-1] if not (first_apart and d[0] == 1)], f)
    p = _order(prev_w and prev_w[:2], (f, x), WIDTH_ORDER, 0, 4)
    if prev_w is not None and p < STALLED and stall_span(prev_w[0], f):
        return None, (f"the bracket stopped narrowing (level {prev_w[0]} to {f}: the engine's "
                      f"other resolutions limit it)")
    if f >= max_fine:
        return None, f"the finest refinement level ({max_fine}) reached"
    need = f * (x * MARGIN) ** (1 / max(p, STALLED, 1 / 4))
    pick = next((g for g in LEVELS if g > f and g >= need), max_fine)
    pick = min(pick, max_fine, JUMP * f)      # a cached level's time predicts nothing
    q = _order(prev and (prev[0], prev[2]), (f, t), TIME_ORDER, order_min, 3)
    def cost(g):
        return t * (g / f) ** q * TIME_MARGIN
    fits = [g for g in LEVELS if f < g <= pick and cost(g) <= left]
    if not fits:
        return None, (f"time: level {pick} would take about {cost(pick):.0f} s more (the limit "
                      f"is {REFINE_SECONDS:.0f} s)")
    return fits[-1], None


def time_order_min(M: int) -> float:
    """next_level's least time order: TIME_ORDER_MIN_BAND on the band path (M >= BAND_M)."""
    return TIME_ORDER_MIN_BAND if band_path(M) else TIME_ORDER_MIN


def ladder(M: int, rel_width) -> dict:
    """refine's keywords for M steps per epoch: whether level 1 is apart, the first level,
    the least time order."""
    return {"first_apart": level_one_apart(M), "first": start_level(M, rel_width),
            "order_min": time_order_min(M)}


def refine(compute, excess, max_fine: int = MAX_FINE, seconds: float = REFINE_SECONDS,
           first_apart: bool = False, first: int = 1,
           order_min: float = TIME_ORDER_MIN) -> tuple:
    """The one refinement loop of a requested accuracy: ``compute(fine)`` -> (bracket or None,
    result), every level valid and a finer one tighter; ``excess(bracket)`` -> the bracket's
    width over the requested width (<= 1: met).  Level 1 first, then the level predicted to
    meet the request (``next_level``), until a bracket meets it (or is None: inconclusive),
    the finest level, the time limit, a bracket that stopped narrowing, or the engine's limits
    (DFT length, cells, memory) refuse a level (``first_apart``: next_level's; ``first``:
    the first level, start_level's; ``order_min``: next_level's least time order).  Returns
    (result, what stopped short of the request, or None when it was met)."""
    from verifier.core.arith import InputError
    from verifier.core.progress import report
    fine, last, t0, done, refused = first, None, time.perf_counter(), [], None
    while True:
        t = time.perf_counter()
        if fine > 1:
            report(f"refining the bracket: level {fine} of at most {max_fine} "
                   f"({time.perf_counter() - t0:.0f} s)")
        try:
            iv, res = compute(fine)
        except InputError as e:
            if last is None and fine == 1:
                raise
            if last is not None:
                return last, f"refinement level {fine} refused: {e}"
            # a first level above 1 refused: level 1 instead, and no further level
            refused, fine = f"refinement level {fine} refused: {e}", 1
            continue
        last, now = res, time.perf_counter()
        x = None if iv is None else float(excess(iv))
        if x is None or x <= 1:
            return res, None
        if refused is not None:
            return res, refused
        done.append((fine, x, now - t))
        fine, why = next_level(done, max_fine, seconds - (now - t0), first_apart, order_min)
        if fine is None:
            return res, why


def level_one_apart(M: int) -> bool:
    """Whether level 1's lattice is planned apart from the refined levels' (the band path,
    M >= BAND_M: the refined levels' lattice boosted, plan.band_boosts; before 2026-12-07
    level 1 also ran other tests there, randomized labels)."""
    return band_path(M)


def excess(iv: Interval, rel_width: Fraction | None, scale: Fraction) -> float:
    """The width over the requested rel_width * scale (0: none requested; inf: scale 0)."""
    if rel_width is None:
        return 0.0
    w = iv.upper - iv.lower
    return float(w / (rel_width * scale)) if scale > 0 else (math.inf if w > 0 else 0.0)


def closed_form(M: int, rel_width, E: int = 1) -> bool:
    """Whether the closed form answers: M = 1 is the Gaussian mechanism (docs/THEORY.md
    section 13), on request of an accuracy or beyond the lattice's epochs (default 0.1%)."""
    return M == 1 and (rel_width is not None or E > MAX_EPOCHS)


def _gaussian(sigma: Fraction, E: int, rel_width, delta=None, eps=None):
    """The answer at M = 1 in closed form (an EpsilonResult with ``delta``, a DeltaResult
    with ``eps``); the range: the engine's, E up to GAUSSIAN_MAX_EPOCHS."""
    from verifier.bounds import gaussian as G
    from verifier.bounds.poisson import REL_TARGET
    from verifier.core.arith import parse_epochs
    RANGE.check(sigma, 1, None, delta, eps)
    parse_epochs(E, GAUSSIAN_MAX_EPOCHS)
    t, d = time.perf_counter(), closed_form_width_digits(rel_width, REL_TARGET)
    mu2 = G.mu_squared([(sigma, E)])
    iv = G.epsilon_interval(mu2, delta, d)[0] if eps is None else G.delta_interval(mu2, eps, d)
    cls, at = (EpsilonResult, delta) if eps is None else (DeltaResult, eps)
    return cls(sigma, 1, E, at, iv, iv, iv, "undecided", time.perf_counter() - t,
               {"closed_form": GAUSSIAN_INFO, "digits": d})


def _info(P, limit: str | None) -> dict:
    info = dict(P.laws.info)
    if limit is not None:
        info["refinement_limit"] = limit
    return info


def delta_bracket(sigma: Fraction, M: int, E: int, eps: Fraction, floor: float = 1e-13,
                  rel_width: Fraction | None = None) -> DeltaResult:
    """Certified bracket of delta(eps) and of each direction (charges below about 1e-4
    floor: a delta far below floor gets a bracket whose upper end is about 1e-4 floor);
    ``rel_width``: refined (``refine``) until the bracket is at most that wide relative.
    A negative eps = -e is read off the brackets at e (numerics.brackets.mirrored)."""
    if closed_form(M, rel_width, E):        # the Gaussian mechanism: its closed form
        return _gaussian(sigma, E, rel_width, eps=eps)
    if eps < 0 and check_range(sigma, M, E, eps=eps) is None:    # named with its sign
        r = delta_bracket(sigma, M, E, -eps, floor, rel_width)
        rem, add = mirrored(r.remove, r.add, -eps)
        return DeltaResult(sigma, M, E, eps, Interval(max(rem.lower, add.lower),
                                                      max(rem.upper, add.upper)),
                           rem, add, larger_direction(rem, add), r.seconds, r.info)
    check_range(sigma, M, E, eps=eps)
    t = time.perf_counter()
    out = {}

    def compute(fine):
        P = engine(sigma, M, E, floor, eps_cap=float(eps) + 1, fine=fine)
        rem, add = directions(P, eps)
        out.update(rem=rem, add=add)
        return Interval(max(rem.lower, add.lower), max(rem.upper, add.upper)), P
    P, limit = refine(compute, lambda iv: excess(iv, rel_width, iv.lower),
                      **ladder(M, rel_width))
    rem, add = out["rem"], out["add"]
    both = Interval(max(rem.lower, add.lower), max(rem.upper, add.upper))
    return DeltaResult(sigma, M, E, eps, both, rem, add, larger_direction(rem, add),
                       time.perf_counter() - t, _info(P, limit))


def epsilon_bracket(sigma: Fraction, M: int, E: int, delta: Fraction,
                    rel_width: Fraction | None = None) -> EpsilonResult:
    """Certified bracket of epsilon(delta) = the smallest eps >= 0 with delta(eps) <= delta,
    and of each direction's; ``rel_width``: refined (``refine``) until the bracket is at most
    that wide relative (absolute below eps 0.1), the bisection's tolerance 1/BISECTION_SHARE
    of it (a bisection step costs O(1) evaluations of the composed profile: the width is
    left to the engine)."""
    if closed_form(M, rel_width, E):        # the Gaussian mechanism: its closed form
        return _gaussian(sigma, E, rel_width, delta=delta)
    t = time.perf_counter()
    check_range(sigma, M, E, delta=delta)
    guess = guess_epsilon(sigma, M, E, float(delta))
    rel = bisection_rel(rel_width)
    out = {"failed": set()}

    def compute(fine):
        g = next_guess(guess, out.get("ivs"))
        ivs, P = epsilon_search(lambda cap: engine(sigma, M, E, float(delta), eps_cap=cap,
                                fine=fine), delta, g, EPS_CAPS, CAP_SLACK, rel, out["failed"])
        out.update(ivs=ivs)
        return both_directions(ivs)[0], P
    P, limit = refine(compute, lambda iv: excess(iv, rel_width, max(iv.lower, Fraction(1, 10))),
                      **ladder(M, rel_width))
    ivs = out["ivs"]
    both, larger = both_directions(ivs)
    return EpsilonResult(sigma, M, E, delta, both, ivs["remove"], ivs["add"], larger,
                         time.perf_counter() - t, _info(P, limit))
