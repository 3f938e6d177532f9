"""k of M random allocation: a certified lower end by an explicit test on the sum of the
steps' likelihood-ratio cells (docs/THEORY.md section 15, "k of M", lower end; the test is
the verifier's own, reconstructed there).

One epoch: M Gaussian outputs, in units of the noise Z_i = X_i / sigma; without the record
(Q) every Z_i ~ N(0, 1), with it (P) a uniformly random k-set S of the steps has
Z_i ~ N(1/sigma, 1), independent of the noise.  Each step's cell c(Z_i) of
g(Y_i) = ln(1 - r + r Y_i), Y_i = e^{Z_i / sigma - u/2} its likelihood ratio (u =
1/sigma^2, r = rate(M, k)): cell j >= 1 is z_j <= Z_i < z_{j+1} with z_j = sigma (ln Y_j +
u/2), Y_j = (1 - r)(e^{j eta} - 1)/r (z_0 = -inf, z_{J+1} = +inf), of mass
q_j = Phi(z_j, z_{j+1}) under N(0, 1) and m_j = Phi(z_j - 1/sigma, z_{j+1} - 1/sigma)
under N(1/sigma, 1).  The epoch's statistic T = sum_i c(Z_i) is symmetric in the steps, so
given S it has the law m^{*k} * q^{*(M-k)} whatever S is: T ~ q^{*M} under Q and
m^{*k} * q^{*(M-k)} under P, exactly.  Each epoch's T is mapped to a lattice label
lambda(T) (a rounded float log-ratio of T's two laws: any function of the outcome is valid)
and the run's statistic is the sum of the E epochs' labels, its laws the E-fold
convolutions.  For every threshold s (the hockey-stick divergence is a supremum over events):
    delta_R(eps) >= P(sum >= s) - e^eps Q(sum >= s),
    delta_A(eps) >= Q(sum < s) - e^eps P(sum < s).
g is the log-likelihood ratio of a Poisson step at rate r (at k = 1 about r (Y - 1) in the
bulk: the sum of the Y_i, the epoch's likelihood ratio itself), so the test is near-optimal
for k small against M; it lifts the Gaussian pair of the steps' sum, whose lower end lay far
below (sigma 1, M 100, k 5, E 5, delta 1e-5: 4.98 against PLD_accounting's 6.89; this test
6.77).

Floats choose free parameters only (r, eta, J, the labels, the thresholds); every law is Arb
balls (the convolutions by DFT powers in ball arithmetic, numerics.lattice, with the whole
support inside the DFT's length: nothing aliased, nothing charged)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from verifier.core.arith import Interval, ball_bounds, to_arb
from verifier.numerics.brackets import EPS_MAX, bisect, log_ratio
from verifier.numerics.cache import EngineCache
from verifier.numerics.lattice import (normal_sf, powers, smooth_length, suffix_sums, two_dfts,
                                       two_inverse)

PREC = 128               # working precision (the tests' masses are needed to far below 1e-12)
SUM_CELLS = 1 << 17      # at most about this many values of an epoch's T (M J) ...
MIN_CELLS = 8            # ... with at least this many cells a step (beyond M = 16384 the
                         # Gaussian pair of the steps' sum alone gives the lower end)
LABELS = 1 << 15         # at most about this many label values of the E epochs' sum
BULK_CELLS = 8           # at least this many cells per standard deviation of one Y_i ...
MAX_H = Fraction(1, 2)   # ... and at most this cell width in Y (the bulk of Y sits near 1)
RATE_SHARE = Fraction(1, 2)     # the cells' rate r = RATE_SHARE k / M (free; M 100, delta
                         # 1e-5, the lower ends at 1/2 and at 1: sigma 0.7, k 2, E 1 3.1865
                         # and 2.9852; sigma 1, k 2, E 2 1.6070 and 1.5857; sigma 1, k 5,
                         # E 5 6.7655 and 6.7604; sigma 1.5, k 10, E 1 3.0989 and 3.0994)
TAIL_SHARE = Fraction(1, 100)   # the top cell starts where P's shifted steps pass it
                         # with probability below this times delta / (k E) (free; M 100,
                         # delta 1e-5, at the rate k/M: sigma 0.7, k 2, E 1 2.9852 at 1/100,
                         # 2.9566 at 10; sigma 1, k 2, E 2 1.5857 and 1.5809; 1.5 to 1.7
                         # times the time)


def rate(M: int, k: int) -> Fraction:
    """The statistic's rate r = RATE_SHARE k / M (< 1: a free choice, any r in (0, 1) gives
    valid tests)."""
    return RATE_SHARE * Fraction(k, M)


def cells(sigma: Fraction, M: int, k: int, E: int, delta: float) -> tuple[Fraction, int]:
    """(eta, J): the cells' step in g = ln(1 - r + r Y) (r = rate(M, k)) and the top cell (a
    float choice: any eta > 0, J >= 1 valid): at least BULK_CELLS cells per standard
    deviation of Y in its bulk, the top cell where a shifted step passes it with probability
    below TAIL_SHARE delta / (k E), and at most SUM_CELLS values of T."""
    sf, r = float(sigma), float(rate(M, k))
    u = 1 / sf ** 2
    sd = math.sqrt(math.expm1(min(u, 700.0)))
    tail = min(0.1, max(delta, 1e-300) * float(TAIL_SHARE) / (k * E))
    z = 1 / sf + min(9.0, max(3.0, math.sqrt(2 * math.log(1 / tail))))
    y_top = math.exp(min(z / sf - u / 2, 700.0))
    g_top = math.log1p(r * y_top / (1 - r))
    eta = r * min(float(MAX_H), sd / BULK_CELLS) / (1 - r)
    eta = max(eta, g_top * M / SUM_CELLS)
    J = max(1, min(math.ceil(g_top / eta), SUM_CELLS // M))
    e = math.floor(math.log2(eta)) - 8
    return Fraction(math.ceil(eta / 2.0 ** e)) * Fraction(2) ** e, J


def coordinate_laws(sigma: Fraction, r: Fraction, eta: Fraction, J: int) -> tuple[list, list]:
    """(q, m): the masses of cells 0 .. J of one step under N(0, 1) and N(1/sigma, 1); cell
    j >= 1 starts at Y_j = (1 - r) (e^{j eta} - 1) / r (g = ln(1 - r + r Y) = ln(1 - r) +
    j eta), i.e. at z_j = sigma (ln Y_j + u/2); 0 < r < 1."""
    s, ea = to_arb(sigma), to_arb(eta)
    u, sh = 1 / (s * s), 1 / s
    ra = to_arb(r)

    def y(j):
        return (1 - ra) * (j * ea).expm1() / ra
    ups = [(arb(1), arb(1))] + [(normal_sf(z), normal_sf(z - sh)) for z in
                                (s * (y(j).log() + u / 2) for j in range(1, J + 1))]
    ups.append((arb(0), arb(0)))
    q = [ups[j][0] - ups[j + 1][0] for j in range(J + 1)]
    m = [ups[j][1] - ups[j + 1][1] for j in range(J + 1)]
    return q, m


def convolved(a: list, b: list, na: int, nb: int) -> tuple[list, list]:
    """(a^{*(na + nb)}, a^{*na} * b^{*nb}) on their whole support (a and b of one length), by
    DFT powers in ball arithmetic (the DFT at least as long as the support: nothing wraps
    around; numerics.lattice.powers' tiny terms are balls holding them)."""
    L = (len(a) - 1) * (na + nb) + 1
    N = smooth_length(L)
    A, B = two_dfts(list(enumerate(a)), list(enumerate(b)), N)
    P1 = powers(B, nb, ctx.prec)
    if na:
        P1 = [x * y for x, y in zip(powers(A, na, ctx.prec), P1)]
    Y = two_inverse(powers(A, na + nb, ctx.prec), P1, N)
    return [y.real for y in Y[:L]], [y.imag for y in Y[:L]]


def epoch_laws(q: list, m: list, M: int, k: int) -> tuple[list, list]:
    """T's laws: q^{*M} under Q, m^{*k} * q^{*(M-k)} under P (k of the M steps shifted)."""
    return convolved(q, m, M - k, k)


def weight(eps: Fraction) -> arb:
    """e^eps, the weight of Q's (remove) or P's (add) mass in the tests."""
    return to_arb(eps).exp()


def labels(p0: list, p1: list, E: int) -> tuple[list, list]:
    """The laws of lambda(T) under Q and P: T's values grouped by their rounded float
    log-ratio (a free choice), on at most about LABELS / E values."""
    f0 = np.array([float(x.mid()) for x in p0])
    f1 = np.array([float(x.mid()) for x in p1])
    ok = (f0 > 0) & (f1 > 0)
    ll = np.zeros(len(f0))
    ll[ok] = np.log(f1[ok]) - np.log(f0[ok])
    lo, hi = (float(ll[ok].min()), float(ll[ok].max())) if ok.any() else (0.0, 0.0)
    n = max(2, LABELS // E)
    step = max(hi - lo, 1e-12) / (n - 1)
    lab = np.rint((ll - lo) / step).astype(np.int64)
    lab[~ok & (f1 > 0)] = n - 1                    # only P reaches it: the top label
    lab[~ok & ~(f1 > 0)] = 0
    q, m = [arb(0)] * n, [arb(0)] * n
    for t, j in enumerate(lab.tolist()):
        q[j] += p0[t]
        m[j] += p1[t]
    return q, m


class KofMTests:
    """The run's statistic laws (sum of E epochs' labels) and the tests' lower ends."""

    def __init__(self, sigma: Fraction, M: int, k: int, E: int, delta: float):
        with ctx.workprec(PREC):
            h, J = cells(sigma, M, k, E, delta)
            q, m = coordinate_laws(sigma, rate(M, k), h, J)
            p0, p1 = epoch_laws(q, m, M, k)
            l0, l1 = labels(p0, p1, E)
            c0, c1 = convolved(l0, l1, 0, E) if E > 1 else (l0, l1)
            self.S0, self.S1 = suffix_sums(c0), suffix_sums(c1)   # S[s]: mass of sum >= s
        self.f0 = np.array([float(x.mid()) for x in self.S0])
        self.f1 = np.array([float(x.mid()) for x in self.S1])

    def lower(self, which: str, eps: Fraction) -> arb:
        """A certified lower bound of delta_which(eps): the best threshold by floats, its test
        in Arb (0 where no test is positive)."""
        ef = math.exp(min(float(eps), 700.0))
        if which == "remove":
            vals = self.f1 - ef * self.f0
        else:
            vals = (self.f0[0] - self.f0) - ef * (self.f1[0] - self.f1)
        s = int(np.argmax(vals))
        with ctx.workprec(PREC):
            e = weight(eps)
            if which == "remove":
                v = self.S1[s] - e * self.S0[s]
            else:
                v = (self.S0[0] - self.S0[s]) - e * (self.S1[0] - self.S1[s])
        return v if v > 0 else arb(0)


def epsilon_lower(tests: KofMTests, which: str, delta: Fraction, upper: Fraction,
                  rel: Fraction) -> Fraction:
    """The largest eps found with delta_which(eps) > delta certified (0 when not even
    eps = 0 is): epsilon_which(delta) >= it (delta_which is nonincreasing).  Searched below
    the certified ``upper`` end; were the tests above delta there (a bug on one side), the
    search goes on past it, so that the bracket inverts and is refused (never a silent
    point at the upper end)."""
    d = to_arb(delta)
    f_low = {}                 # the evaluations' floats, to guide the bisection

    def above(e):
        L = tests.lower(which, e)
        f_low[e] = log_ratio(L.lower(), delta)
        return bool(L > d)
    if not above(Fraction(0)):
        return Fraction(0)
    lo, hi = Fraction(0), upper
    while above(hi):
        if hi >= EPS_MAX:
            return hi
        lo, hi = hi, min(2 * hi + 1, EPS_MAX)
    return bisect(lambda e: not above(e), lo, hi, rel, Fraction(1, 10 ** 8),
                  guide=f_low.get)[0]


def k_of_m_kinds(run) -> list:
    """[(sigma, M, k, E)] of the run's kinds of k-of-M epoch (k > 1, M J within SUM_CELLS at
    MIN_CELLS cells a step).  Each kind's tests bound the run's profile from below: the other
    steps' outputs dropped are a post-processing of the run's (data processing, both
    directions), so delta_run(eps) >= delta_kind(eps) >= the kind's tests."""
    from verifier.core.run import RandomAllocation
    out = []
    for mech, s, n in run.merged():
        if isinstance(s, RandomAllocation) and s.steps_per_record > 1 and \
                s.steps_per_epoch * MIN_CELLS <= SUM_CELLS:
            out.append((mech.noise_multiplier, s.steps_per_epoch, s.steps_per_record,
                        n // s.steps_per_epoch))
    return out


_CACHE = EngineCache(4)            # KofMTests by (sigma, M, k, E, delta float)


def clear_cache():
    _CACHE.clear()


def tests_for(run, delta: float) -> list:
    """The tests of each of the run's k-of-M kinds (cached)."""
    return [_CACHE.get(key + (delta,), lambda key=key: KofMTests(*key, delta))
            for key in k_of_m_kinds(run)]


def _point(x: Fraction) -> Interval:
    return Interval(x, x)


def epsilon_lower_ends(run, delta: Fraction, lo, up, rel: Fraction) -> tuple:
    """(epsilon, remove, add): the lower run's brackets (the Gaussian pair of the steps'
    sum, runs.k_of_m_runs), their lower ends raised to the best of the k-of-M kinds' tests,
    as point intervals for runs._joined (which takes their lower ends)."""
    ivs = (lo.epsilon, lo.remove, lo.add)
    Ts = [] if None in ivs + (up.remove, up.add) else tests_for(run, float(delta))
    if not Ts:
        return ivs
    rem = max([lo.remove.lower] + [epsilon_lower(T, "remove", delta, up.remove.upper, rel)
                                   for T in Ts])
    add = max([lo.add.lower] + [epsilon_lower(T, "add", delta, up.add.upper, rel)
                                for T in Ts])
    return _point(max(lo.epsilon.lower, rem, add)), _point(rem), _point(add)


def delta_lower_ends(run, eps: Fraction, lo) -> tuple:
    """(delta, remove, add) as epsilon_lower_ends, for delta(eps)."""
    ivs = (lo.delta, lo.remove, lo.add)
    Ts = tests_for(run, 1e-12)
    if not Ts:
        return ivs
    rem = max([lo.remove.lower] + [ball_bounds(T.lower("remove", eps))[0] for T in Ts])
    add = max([lo.add.lower] + [ball_bounds(T.lower("add", eps))[0] for T in Ts])
    return _point(max(lo.delta.lower, rem, add)), _point(rem), _point(add)
