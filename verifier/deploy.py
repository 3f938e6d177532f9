"""Certify and calibrate deployed DP-SGD parameters (random allocation).

Bounds (each a certified upper bound on the E-epoch total variation delta_E,
so f >= 1 - a - delta_E and attack accuracy <= 1/2 + delta_E/2):

- ``theorem31-simplified`` / ``theorem31-exact``: Theorem 3.1 of arXiv
  2605.06259 v1 (reconstructed, docs/THEORY.md section 3) applied per epoch at
  delta = delta_rhs(M, sigma) itself (its hypotheses checked there: condition
  (2) is weakest at the smallest delta), composed over E epochs as
  delta_E = 1 - (1 - delta_rhs)^E (Dong, Roth & Su 2019, Lemma C.2);
- ``chi-square``: sqrt((1 + s2/M)^E - 1)/2 (arXiv 2610.09651; docs/THEORY.md section 7),
  valid for every M >= 1 and sigma > 0.

Targets: ``delta`` (delta_E <= delta) or ``accuracy`` A (1/2 + delta_E/2 <= A,
i.e. delta_E <= 2A - 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from . import _derived as D
from . import theorem31 as T
from .arith import (DEFAULT_MAX_PREC, MAX_SEARCH_STEPS, InputError, Interval, Tri,
                    decimal_str, parse_delta, parse_exact, pct, precisions, sign_ge0, to_arb)
from . import search
from .search import Cover, SearchLimit, Undecided, cover, smallest_int

BOUNDS = ("theorem31-simplified", "theorem31-exact", "chi-square")
BOUND_SOURCES = {
    "theorem31-simplified": "Theorem 3.1 of arXiv 2605.06259 v1, coef_S (reconstructed, docs/THEORY.md "
                            "section 3); E epochs: Dong, Roth & Su 2019, Lemma C.2",
    "theorem31-exact": "Theorem 3.1 with the exact factor coef_X, Section 3.1 of arXiv 2605.06259 v1 "
                       "(reconstructed); E epochs: Dong, Roth & Su 2019, Lemma C.2",
    "chi-square": "chi-square bound, arXiv 2610.09651 (docs/THEORY.md section 7): "
                  "TV <= sqrt((1 + s2/M)^E - 1)/2",
}
MAX_BOXES = 20000


@dataclass(frozen=True)
class Target:
    kind: str          # "delta" | "accuracy"
    value: Fraction

    @property
    def delta(self) -> Fraction:
        """The delta_E (TV) bound the target amounts to."""
        return self.value if self.kind == "delta" else 2 * self.value - 1

    @staticmethod
    def make(delta=None, accuracy=None) -> "Target":
        if (delta is None) == (accuracy is None):
            raise InputError("give exactly one target: --delta D or --target-accuracy A")
        if delta is not None:
            return Target("delta", parse_delta(delta))
        acc = parse_exact(accuracy, "target accuracy")
        if not Fraction(1, 2) < acc < 1:
            raise InputError(f"target accuracy must be in (1/2, 1), got {str(accuracy)[:40]}")
        parse_delta(2 * acc - 1, "target accuracy's delta 2A - 1")   # the same range
        return Target("accuracy", acc)


def check_bounds(bound: str) -> tuple:
    if bound == "all":
        return BOUNDS
    if bound not in BOUNDS:
        raise InputError(f"unknown bound {bound!r} (expected all, {', '.join(BOUNDS)})")
    return (bound,)


# ---------------------------------------------------------------------------
# one bound at one point (sigma may be a ball: used by the sigma search)
# ---------------------------------------------------------------------------
def _core(bound: str, s: arb, M: int, E: int):
    """(delta_E ball, ((hypothesis name, margin ball), ...)) at the current precision."""
    Ma = arb(M)
    if bound == "chi-square":
        return D.chi_square_tv(Ma, s, arb(E)), ()
    c = T.COEFS["simplified" if bound == "theorem31-simplified" else "exact"](s)
    ts = D.terms(Ma, s, c)
    d = sum(ts[1:], ts[0])
    # condition (2) at delta = delta_rhs itself (an enclosure of the pointwise margin)
    hyps = ((T.HYPOTHESES[0], arb(T.steps_margin(M))), (T.HYPOTHESES[1], D.hyp_sigma(Ma, s)),
            (T.HYPOTHESES[2], D.hyp_validity(Ma, s, c, d)))
    return T.delta_epochs_ball(d, E), hyps


@dataclass(frozen=True)
class BoundEval:
    bound: str
    delta_epochs: Interval
    accuracy: Interval
    hypotheses: tuple          # Check per hypothesis (empty for chi-square)
    applicable: Tri
    meets: Tri
    precision: int

    @property
    def verdict(self) -> Tri:
        """HOLDS: valid and meets the target; FAILS: invalid or certainly misses it."""
        if self.applicable is Tri.FAILS or self.meets is Tri.FAILS:
            return Tri.FAILS
        if self.applicable is Tri.HOLDS and self.meets is Tri.HOLDS:
            return Tri.HOLDS
        return Tri.UNDECIDED

    def to_json(self) -> dict:
        out = {"delta_epochs": self.delta_epochs.to_json(), "accuracy": self.accuracy.to_json(),
               "applicable": self.applicable.value, "meets_target": self.meets.value,
               "verdict": self.verdict.value, "precision_bits": self.precision,
               "source": BOUND_SOURCES[self.bound]}
        if self.hypotheses:
            out["hypotheses"] = {h.name: h.verdict.value for h in self.hypotheses}
            out["hypothesis_margins"] = {h.name: h.value.to_json() for h in self.hypotheses}
            out["reconstructed"] = True
        return out


def clamp_tv(x: arb) -> arb:
    """An enclosure of min(x, 1): a total-variation bound above 1 says only TV <= 1."""
    if not x.is_finite():
        return arb(0).union(arb(1))
    if x <= 1:
        return x
    if x >= 1:
        return arb(1)
    return arb(x.lower()).union(arb(1))


def _eval_at(bound, sigma: Fraction, M: int, E: int, target: Target, p: int) -> BoundEval:
    with ctx.workprec(p):
        dE, hyps = _core(bound, to_arb(sigma), M, E)
        dE = clamp_tv(dE)
        checks = tuple(T.Check(n, sign_ge0(g), Interval.of(g)) for n, g in hyps)
        vs = [c.verdict for c in checks]
        app = Tri.FAILS if Tri.FAILS in vs else Tri.UNDECIDED if Tri.UNDECIDED in vs else Tri.HOLDS
        meets = sign_ge0(to_arb(target.delta) - dE)
        acc = arb(1) / 2 + dE / 2
        return BoundEval(bound, Interval.of(dE), Interval.of(acc), checks, app, meets, p)


def evaluate(bound, sigma, M, E, target: Target, max_prec=DEFAULT_MAX_PREC) -> BoundEval:
    """Certified figures of one bound, precision raised until every verdict is decided."""
    ev = None
    for p in precisions(max_prec):
        ev = _eval_at(bound, sigma, M, E, target, p)
        if ev.meets is not Tri.UNDECIDED and ev.applicable is not Tri.UNDECIDED and all(
                h.verdict is not Tri.UNDECIDED for h in ev.hypotheses):
            break
        if ev.verdict is Tri.FAILS and p >= 256:   # a certain failure: enough for searches
            break
    return ev


# ---------------------------------------------------------------------------
# certify
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Certificate:
    """Result of ``certify``: every figure an Interval, every verdict three-valued."""

    sigma: Fraction
    steps: int
    epochs: int
    samples: int | None
    clip: Fraction
    target: Target
    bounds: dict            # bound name -> BoundEval
    comparisons: dict       # name -> Interval (asymptotic, not certified bounds)
    noise_per_round: Fraction | None

    @property
    def status(self) -> str:
        vs = [b.verdict for b in self.bounds.values()]
        if Tri.HOLDS in vs:
            return "certified"
        if Tri.UNDECIDED in vs:
            return "inconclusive"
        return "not-certified"

    @property
    def certified(self) -> bool:
        return self.status == "certified"


def comparisons(sigma: Fraction, M: int, E: int, prec: int = 128) -> dict:
    """Gaussian-DP comparisons of docs/THEORY.md section 5 (asymptotic; NOT certified bounds
    for random allocation, though evaluated in ball arithmetic)."""
    with ctx.workprec(prec):
        s, Ma, Ea = to_arb(sigma), arb(M), arb(E)
        mp_, mu_ = D.mu_poisson(Ma, s, Ea), D.mu_uniform(Ma, s, Ea)
        tp, tu = D.gaussian_tv(mp_), D.gaussian_tv(mu_)
        return {"mu_poisson": Interval.of(mp_), "tv_poisson": Interval.of(tp),
                "accuracy_poisson": Interval.of(arb(1) / 2 + tp / 2),
                "mu_uniform": Interval.of(mu_), "tv_uniform": Interval.of(tu),
                "accuracy_uniform": Interval.of(arb(1) / 2 + tu / 2)}


def certify(sigma: Fraction, steps: int, epochs: int, target: Target, bound: str = "all",
            samples: int | None = None, clip: Fraction = Fraction(1),
            max_prec: int = DEFAULT_MAX_PREC) -> Certificate:
    names = check_bounds(bound)
    evs = {b: evaluate(b, sigma, steps, epochs, target, max_prec) for b in names}
    noise = clip * sigma * steps / samples if samples else None
    return Certificate(sigma, steps, epochs, samples, clip, target, evs,
                       comparisons(sigma, steps, epochs), noise)


# ---------------------------------------------------------------------------
# calibrate steps
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class StepsCalibration:
    bound: str
    status: str                 # certified | inconclusive
    steps: int | None
    at: BoundEval | None        # target certified here
    below: BoundEval | None     # certifiably not at steps - 1 (None if steps == 3)
    evaluations: int
    closed_form: Interval | None = None   # chi-square: the real M* of the inversion
    message: str = ""


def _steps_start(bound, sigma, E, target):
    """A certified lower bound of every feasible M (None: not finite at 64 bits): the
    chi-square inversion M* (the bound decreases in M, chisquare.steps-inverse); for
    Theorem 3.1, M_BE at the per-epoch delta and e^{3/sigma^2} (hypothesis 2)."""
    with ctx.workprec(64):
        s, tau = to_arb(sigma), to_arb(target.delta)
        if bound == "chi-square":
            x = Interval.of(D.chi_square_steps_inverse(s, arb(E), tau))
            return x.lower if x.finite else None
        d1 = -((-tau).log1p() / E).expm1()          # per-epoch delta
        c = T.COEFS["simplified" if bound == "theorem31-simplified" else "exact"](s)
        return T._needed_steps(sigma, Interval.of(D.closed_form_steps(s, c, d1)))


def calibrate_steps(sigma: Fraction, epochs: int, target: Target, bound: str,
                    max_prec: int = DEFAULT_MAX_PREC) -> StepsCalibration:
    """Smallest M >= 3 at which ``bound`` is valid and meets the target.

    Monotone in M (proof checks monotonicity.* for Theorem 3.1; the chi-square
    bound decreases in M, chisquare.steps-inverse), so the certified search applies."""
    def pred(M):
        ev = evaluate(bound, sigma, M, epochs, target, max_prec)
        return ev.verdict, ev

    cf = None
    if bound == "chi-square":
        with ctx.workprec(128):
            cf = Interval.of(D.chi_square_steps_inverse(to_arb(sigma), arb(epochs),
                                                         to_arb(target.delta)))
    need = _steps_start(bound, sigma, epochs, target)
    if need is None or need > MAX_SEARCH_STEPS:
        return StepsCalibration(bound, "inconclusive", None, None, None, 0, cf, (
            "every feasible M exceeds the supported range M <= 1e40 (certified lower bound "
            + ("not finite" if need is None else f">= {decimal_str(need, 4, 'down')}") + ")"))
    try:
        m, at, below, n = smallest_int(pred, max(3, math.floor(need)), 3, ceiling=MAX_SEARCH_STEPS)
    except Undecided as u:
        return StepsCalibration(bound, "inconclusive", None, u.ev, None, 0, cf,
                                f"undecided at M = {u.n} at the precision cap")
    except SearchLimit as e:
        return StepsCalibration(bound, "inconclusive", None, None, None, 0, cf,
                                ("no M <= 1e40 is feasible: " if e.beyond else "") + str(e))
    return StepsCalibration(bound, "certified", m, at, below, n, cf)


# ---------------------------------------------------------------------------
# calibrate sigma
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SigmaCalibration:
    bound: str
    status: str                  # certified | infeasible | inconclusive
    sigma: Fraction | None       # smallest feasible sigma on the grid
    resolution: Fraction
    at: BoundEval | None         # certified feasible at sigma
    below: BoundEval | None      # certified infeasible at sigma - resolution (None if sigma = resolution)
    sigma_max: Fraction | None = None    # largest feasible grid sigma (Theorem 3.1: U-shape)
    above: BoundEval | None = None       # certified infeasible at sigma_max + resolution
    branch: str = ""
    closed_form: Interval | None = None  # chi-square: sigma* of the inversion
    message: str = ""


def _grid_pred(bound, M, E, target, res, max_prec):
    def pred(k):
        ev = evaluate(bound, Fraction(k) * res, M, E, target, max_prec)
        return ev.verdict, ev
    return pred


def _chi_sigma(M, E, target, res, max_prec) -> SigmaCalibration:
    with ctx.workprec(128):
        star = D.chi_square_sigma_inverse(arb(M), arb(E), to_arb(target.delta))
    cf = Interval.of(star)
    pred = _grid_pred("chi-square", M, E, target, res, max_prec)
    start = max(1, math.ceil(cf.lower / res))
    try:
        k, at, below, _ = smallest_int(pred, start, 1)  # decreasing in sigma: chisquare.sigma-inverse
    except (Undecided, SearchLimit) as e:
        return SigmaCalibration("chi-square", "inconclusive", None, res, None, None,
                                closed_form=cf, message=str(e))
    sigma = k * res
    msg = ""
    # the closed-form inversion agrees: sigma* in (sigma - res, sigma]
    if not (sigma - res < cf.lower and cf.upper <= sigma):
        msg = "closed form sigma* not strictly inside (sigma - res, sigma]: on a grid point"
    below_txt = ("" if below is None else
                 f"; sigma = {_exact(sigma - res)} certified infeasible, hence every sigma <= "
                 f"{_exact(sigma - res)}")
    return SigmaCalibration("chi-square", "certified", sigma, res, at, below, branch=(
        "the chi-square bound decreases in sigma (proof check chisquare.sigma-inverse): every "
        "sigma >= the reported one meets the target" + below_txt),
        closed_form=cf, message=msg)


def _box_ball(lo: Fraction, hi: Fraction) -> arb:
    return to_arb(lo).union(to_arb(hi))


def _mean_value(bound, Ma: arb, s: arb, lo: Fraction, hi: Fraction):
    """Mean-value form on the box s = [lo, hi]: enclosures of the condition-(2) margin
    (at delta = delta_rhs) and of delta_rhs, as g(mid) + g'(box) [-r, r] with g' the
    SymPy derivatives (generated *_dsigma_* evaluators): second order in the width."""
    tag = "simplified" if bound == "theorem31-simplified" else "exact"
    mid, r = (lo + hi) / 2, (hi - lo) / 2
    sm, rad = to_arb(mid), arb(0, arb(r.numerator) / r.denominator)
    cm = T.COEFS[tag](sm)
    tm = D.terms(Ma, sm, cm)
    d_mid = sum(tm[1:], tm[0])
    g3 = D.hyp_validity(Ma, sm, cm, d_mid) + getattr(D, f"validity_dsigma_{tag}")(Ma, s) * rad
    d_box = d_mid + getattr(D, f"delta_rhs_dsigma_{tag}")(Ma, s) * rad
    return g3, d_box


def _box_fails(bound, M, E, target, lo: Fraction, hi: Fraction) -> bool:
    """Certified: no sigma in [lo, hi] is feasible.  Besides the full evaluation on
    the box, uses sufficient conditions that avoid the dependency problem of coef_X
    on wide boxes: every term and eps increase with coef, so a lower bound of coef
    gives a lower bound of delta_rhs and an upper bound of the margin of (2)."""
    with ctx.workprec(128):
        s, Ma, tau = _box_ball(lo, hi), arb(M), to_arb(target.delta)
        dE, hyps = _core(bound, s, M, E)
        if tau - dE < 0 or any(g < 0 for _, g in hyps):
            return True
        if bound == "chi-square":
            return False
        # coef >= s2^{-1/2} (Lyapunov: rho3 >= s2^{3/2}; coef_S >= coef_X by (22)):
        # proof check lognormal.coef-lyapunov-lower-bound
        c_low = arb(D.lognormal_variance(s).rsqrt().lower())
        ts = D.terms(Ma, s, c_low)
        d_low = sum(ts[1:], ts[0])
        if (tau - T.delta_epochs_ball(d_low, E) < 0
                or D.hyp_validity(Ma, s, c_low, d_low) < 0):
            return True
        g3, d_box = _mean_value(bound, Ma, s, lo, hi)
        if g3 < 0:
            return True
        return bool(d_box.is_finite() and tau - T.delta_epochs_ball(d_box, E) < 0)


def _box_holds(bound, M, E, target, lo: Fraction, hi: Fraction) -> bool:
    """Certified: every sigma in [lo, hi] is feasible."""
    with ctx.workprec(128):
        s, Ma, tau = _box_ball(lo, hi), arb(M), to_arb(target.delta)
        dE, hyps = _core(bound, s, M, E)
        if tau - dE >= 0 and all(g >= 0 for _, g in hyps):
            return True
        if bound == "chi-square" or not D.hyp_sigma(Ma, s) >= 0:
            return False
        g3, d_box = _mean_value(bound, Ma, s, lo, hi)
        return bool(g3 >= 0 and d_box < 1 and tau - T.delta_epochs_ball(d_box, E) >= 0)


def _sigma_range(M: int):
    """(L, U): every sigma < L fails hypothesis 2 (L <= sqrt(3/ln M)), every sigma >= U fails
    condition (2) at delta = delta_rhs >= T2 (U >= 1/sqrt(log(1 + 4/(M-1))), proof check
    interpretation.large-sigma-infeasible).  Exact rationals from the balls' outer ends."""
    with ctx.workprec(128):
        lo_b = (3 / arb(M).log()).sqrt()
        hi_b = (4 / arb(M - 1)).log1p().rsqrt()
    return Interval.of(lo_b).lower, Interval.of(hi_b).upper


@dataclass(frozen=True)
class Infeasibility:
    """What is proved about [lo, hi]: the branch and bound's cover (a continuum statement
    iff complete), the grid points inside its uncovered boxes, each evaluated, and a
    feasible witness found in an uncovered box, if any."""

    cover: Cover
    grid_failed: bool           # every grid point in [lo, hi] certified infeasible
    grid_feasible: tuple        # grid indices found feasible in uncovered boxes
    witness: Fraction | None    # an off-grid sigma certified feasible

    @property
    def continuum(self) -> bool:
        return self.cover.complete


def _prove_infeasible(bound, M, E, target, lo: Fraction, hi: Fraction, res: Fraction, P,
                      min_width: Fraction) -> Infeasibility:
    """Branch and bound of 'no sigma in [lo, hi] is feasible'; where it stops short, each
    grid point k res of an uncovered box is evaluated (P(k): True feasible, False infeasible,
    both certified; Undecided propagates), and the boxes' midpoints are tried as witnesses."""
    cv = cover(lambda a, b: _box_fails(bound, M, E, target, a, b), lo, hi, min_width, MAX_BOXES)
    grid_ok, feasible, witness = True, [], None
    ks = sorted({k for a, b in cv.uncovered for k in range(math.ceil(a / res), math.floor(b / res) + 1)
                 if k >= 1})
    if len(ks) > 4000:
        return Infeasibility(cv, False, (), None)
    for k in ks:
        if P(k):
            feasible.append(k)
            grid_ok = False
    for a, b in cv.uncovered[:200]:
        mid = _short_in(a, b)
        if witness is None and evaluate(bound, mid, M, E, target).verdict is Tri.HOLDS:
            witness = mid
    return Infeasibility(cv, grid_ok, tuple(feasible), witness)


def _theorem_sigma(bound, M, E, target, res, max_prec) -> SigmaCalibration:
    """Theorem 3.1 is U-shaped in sigma.  The line (0, inf) is covered by three proofs:
    sigma < L fails hypothesis 2, sigma >= U fails condition (2) (``_sigma_range``), and
    [L, U] by branch and bound where needed.  A geometric scan of the grid in [L, U] finds
    a feasible grid point, certified bisections find the grid ends of its feasible range.

    Statements are worded by what proves them: *grid* statements ("grid sigma k res ...")
    rest on certified evaluations at grid points (and on the covers, which contain them);
    *continuum* statements ("every sigma in ...") only on complete covers."""
    L, U = _sigma_range(M)
    k_min = max(1, math.ceil(L / res))           # grid points below k_min fail hypothesis 2
    k_max = max(k_min, math.floor(U / res))      # grid points above k_max fail condition (2)
    pred = _grid_pred(bound, M, E, target, res, max_prec)
    memo = {}
    gname = f"multiples of {_exact(res)}"
    hyp_note = (f"every sigma < {_dn(L)} fails hypothesis 2 (sigma >= sqrt(3/ln M)); every sigma "
                f">= {_up(U)} fails condition (2) (proof check interpretation.large-sigma-infeasible)")

    def P(k):
        if k not in memo:
            memo[k] = pred(k)
        v, ev = memo[k]
        return search.decided(v, k, ev)

    def fail(message, status="inconclusive"):
        return SigmaCalibration(bound, status, None, res, None, None, message=message)

    def infeasible_between(a: Fraction, b: Fraction, width):
        if a >= b:
            return None
        return _prove_infeasible(bound, M, E, target, a, b, res, P, width)

    try:
        scan, k = [], k_min
        while k <= k_max:
            scan.append(k)
            k = max(k + 1, math.ceil(k * Fraction(103, 100)))
        scan.append(k_max + 1)
        feas = [k for k in scan if P(k)]
        if not feas:
            inf = infeasible_between(L, U, res / 64)
            if inf is not None and inf.grid_feasible:
                feas = [inf.grid_feasible[0]]
                scan = sorted(set(scan) | {feas[0]})
            else:
                grid_ok = inf is None or inf.grid_failed
                if inf is None or inf.continuum:
                    return fail(f"no sigma meets the target: every sigma > 0 certified infeasible "
                                f"({hyp_note}; branch and bound on the rest: "
                                f"{inf.cover.boxes if inf else 0} boxes)", "infeasible")
                if not grid_ok:
                    return fail("no grid sigma found feasible, but not every grid sigma in "
                                f"[{_dn(L)}, {_up(U)}] is certified infeasible")
                wit = (f"; sigma = {_exact(inf.witness)} (off the grid) is certified feasible: use a finer "
                       "--resolution" if inf.witness is not None else
                       "; infeasibility between grid points not proved")
                return fail(f"no grid sigma ({gname}) meets the target (each certified: the "
                            f"branch and bound covers {pct(inf.cover.fraction, 'down')} of "
                            f"[{_dn(L)}, {_up(U)}], the grid points it leaves evaluated one by "
                            f"one){wit}", "infeasible")
        first, last = feas[0], feas[-1]
        i, j = scan.index(first), scan.index(last)
        k_lo = search.crossing(P, scan[i - 1], first) if i > 0 else first
        k_hi = search.crossing(P, scan[j + 1], last)
        below = None
        if k_lo > 1:
            P(k_lo - 1)
            below = memo[k_lo - 1][1]
        P(k_hi + 1)
        above = memo[k_hi + 1][1]
        if (k_lo > 1 and below.verdict is not Tri.FAILS) or above.verdict is not Tri.FAILS:
            return fail("grid neighbours not certified infeasible")
        # below (k_lo - 1) res and above (k_hi + 1) res: grid and continuum
        low = infeasible_between(L, (k_lo - 1) * res, res / 65536) if k_lo > 1 else None
        gap = infeasible_between(L, k_lo * res, res / 64) if k_lo == 1 else None
        high = infeasible_between((k_hi + 1) * res, U, res / 65536)
    except Undecided as u:
        return fail(f"undecided at sigma = {u.n * res} at the precision cap")
    grid_ok = all(x is None or x.grid_failed for x in (low, high))
    at = memo[k_lo][1]
    if not grid_ok:
        return SigmaCalibration(bound, "inconclusive", k_lo * res, res, at, below, k_hi * res, above,
                                message="a grid sigma outside the reported range was not "
                                        "certified infeasible")
    icv = cover(lambda a, b: _box_holds(bound, M, E, target, a, b), k_lo * res, k_hi * res,
                res / 8, 2000)
    parts = [f"grid ({gname}): sigma = {_exact(k_lo * res)} .. {_exact(k_hi * res)} certified feasible at both "
             f"ends, the grid neighbours "
             + (f"{_exact((k_lo - 1) * res)} and " if k_lo > 1 else "") + f"{_exact((k_hi + 1) * res)} certified "
             "infeasible, and so is every grid sigma beyond them",
             f"between the ends, the branch and bound certifies >= {pct(icv.fraction, 'down')} "
             f"of [{_exact(k_lo * res)}, {_exact(k_hi * res)}] feasible box by box ({icv.boxes} boxes)"]
    cont_lo = k_lo == 1 or (low is not None and low.continuum) or low is None
    cont_hi = high is None or high.continuum
    lo_end = (k_lo - 1) * res
    if k_lo == 1:
        cont = (f"below the first grid point: every sigma < {_dn(L)} infeasible (hypothesis 2)"
                + ("" if gap is None else
                   f"; [{_dn(L)}, {_exact(res)}) " + ("certified infeasible" if gap.continuum else
                                             "not proved infeasible"
                                             + (f" (sigma = {_exact(gap.witness)} certified feasible)"
                                                if gap.witness is not None else ""))))
        parts.append(cont)
    elif cont_lo:
        parts.append(f"every sigma in (0, {_exact(lo_end)}] certified infeasible")
    else:
        parts.append(f"sigma in (0, {_exact(lo_end)}]: not every sigma proved infeasible (continuum "
                     f"covered {pct(low.cover.fraction, 'down')})")
    if cont_hi:
        parts.append(f"every sigma >= {_exact((k_hi + 1) * res)} certified infeasible")
    else:
        parts.append(f"sigma >= {_exact((k_hi + 1) * res)}: not every sigma proved infeasible")
    notes = [hyp_note] + [f"{n}: {x.cover.boxes} boxes" for n, x in (("below", low), ("above", high))
                          if x is not None]
    branch = ("U-shaped bound: the reported sigma is the lower end of the feasible grid range; "
              + "; ".join(parts) + " (" + "; ".join(notes) + ")")
    return SigmaCalibration(bound, "certified", k_lo * res, res, at, below, k_hi * res, above,
                            branch)


def _short_in(a: Fraction, b: Fraction) -> Fraction:
    """A decimal with few digits in [a, b] (near its midpoint)."""
    mid = (a + b) / 2
    for digits in range(1, 40):
        q = Fraction(decimal_str(mid, digits, "down"))
        if a <= q <= b:
            return q
    return mid


def _exact(q: Fraction) -> str:
    """A short decimal exactly (the witnesses are chosen short)."""
    from .report import frac_str
    return frac_str(q)


def _dn(q: Fraction) -> str:
    return decimal_str(q, 6, "down")


def _up(q: Fraction) -> str:
    return decimal_str(q, 6, "up")


def calibrate_sigma(steps: int, epochs: int, target: Target, bound: str,
                    resolution: Fraction = Fraction(1, 100),
                    max_prec: int = DEFAULT_MAX_PREC) -> SigmaCalibration:
    """Smallest sigma on the grid resolution * k (k >= 1) at which ``bound`` is valid and
    meets the target: certified feasible there and certifiably infeasible one step below."""
    if resolution <= 0:
        raise InputError(f"resolution must be > 0, got {resolution}")
    if bound == "chi-square":
        return _chi_sigma(steps, epochs, target, resolution, max_prec)
    return _theorem_sigma(bound, steps, epochs, target, resolution, max_prec)


def min_samples(sigma: Fraction, steps: int, clip: Fraction = Fraction(1),
                level: Fraction = Fraction(1, 10)) -> int:
    """Smallest N with per-round noise C sigma M / N <= level: ceil(C sigma M / level)."""
    return T.min_samples(steps, clip * sigma, level)


@dataclass(frozen=True)
class Calibration:
    """Result of ``calibrate_sigma`` / ``calibrate_steps`` over the chosen bounds:
    ``value`` is the smallest certified answer over the valid bounds (None if none),
    ``per_bound`` holds each bound's SigmaCalibration / StepsCalibration."""

    what: str
    value: object
    status: str               # certified | infeasible | inconclusive
    per_bound: dict


def combine(what: str, results: dict) -> Calibration:
    vals = [getattr(r, what) for r in results.values() if r.status == "certified"]
    if vals:
        return Calibration(what, min(vals), "certified", results)
    if any(r.status == "inconclusive" for r in results.values()):
        return Calibration(what, None, "inconclusive", results)
    return Calibration(what, None, "infeasible", results)


def exact_verdict(tv: Interval | None, tau: Fraction) -> Tri:
    """Certified: HOLDS if the bracket's upper end meets tau, FAILS if its lower end exceeds
    it; otherwise, or when the engine refused (tv None: sigma outside its range), UNDECIDED."""
    if tv is None:
        return Tri.UNDECIDED
    return Tri.HOLDS if tv.upper <= tau else Tri.FAILS if tv.lower > tau else Tri.UNDECIDED


def calibrate_sigma_exact(steps: int, epochs: int, target: Target,
                          resolution: Fraction = Fraction(1, 100),
                          chi: SigmaCalibration | None = None) -> SigmaCalibration:
    """Smallest grid sigma whose *upper* end of the exact-TV bracket meets the target
    (verifier.exact), certified infeasible one grid step below by the *lower* end.

    The exact TV decreases in sigma (the pair at a larger sigma is a post-processing of
    the pair at a smaller one: rescale and add independent Gaussian noise), and it is
    below the chi-square bound, so the chi-square answer is feasible and the search
    bisects below it."""
    from .exact import exact_tv

    if chi is None:      # the chi-square answer at this resolution (callers may pass theirs)
        chi = calibrate_sigma(steps, epochs, target, "chi-square", resolution)
    if chi.status != "certified":
        return SigmaCalibration("exact", "inconclusive", None, resolution, None, None,
                                message="the chi-square calibration did not succeed")
    tau = target.delta

    def pred(k):
        try:
            r = exact_tv(k * resolution, steps, epochs)
        except InputError:
            return exact_verdict(None, tau), None
        return exact_verdict(r.tv, tau), r

    k_chi = int(chi.sigma / resolution)
    try:   # TV decreases in sigma: the predicate is false, then true
        k, _, _, n = smallest_int(pred, max(1, (k_chi * 19) // 20), 1, 200)
    except Undecided as u:
        why = ("the engine's range (sigma >= 0.1) ends there" if u.ev is None else
               "the exact bracket straddles the target there; a finer lattice would decide it")
        return SigmaCalibration("exact", "inconclusive", None, resolution, None, None,
                                message=f"undecided at sigma = {u.n * resolution}: {why}")
    except SearchLimit as e:
        return SigmaCalibration("exact", "inconclusive", None, resolution, None, None,
                                message=str(e))
    saved = 1 - Fraction(k) * resolution / chi.sigma
    below = ("" if k == 1 else f"; sigma = {_exact((k - 1) * resolution)} certified infeasible (the "
             "bracket's lower end exceeds the target), hence every sigma below it")
    return SigmaCalibration("exact", "certified", k * resolution, resolution, None, None,
                            branch=(f"exact TV decreases in sigma{below}; "
                                    f"{pct(saved, 'down')} less noise than the chi-square "
                                    f"calibration ({_exact(chi.sigma)}); {n} bracket evaluations"),
                            message="")
