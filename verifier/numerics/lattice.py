"""The numerical kernel, part 1: lattice variables and their sums, bracketed.  The Chernoff
bounds of the mass outside a DFT window (with the constant kept in every integrated tail),
the window choice, the law of a sum on a window (suffix sums, tail probabilities, stop-loss
transforms), the packed ball-arithmetic DFTs and their powers.  Used by every engine: the
exact TV (bounds/exact_tv), the random-allocation profile (bounds/profile) and the Poisson
profile (bounds/poisson); docs/ARCHITECTURE.md "The numerical kernel".

Floats only choose free parameters (theta, window length); every bound is an Arb ball."""
from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb

from verifier.core.arith import Interval, to_arb
from verifier.numerics.float_mgf import pairs_upper

MAX_N = 1 << 22          # largest DFT (memory: about 2.5 GB of balls at 2^22)
TWO_LIMBS = 128          # an Arb DFT at <= 128 bits takes 0.45 the time of one at 129-136 (262144
                         # points: 0.7 s vs 1.2-1.6 s): the engines take a precision a few bits
                         # above it down to it (two_limbs)


def two_limbs(bits: int, slack: int) -> int:
    """``bits``, or TWO_LIMBS where bits lies at most ``slack`` above it (a free parameter:
    the balls stay rigorous at any precision, only their radii change)."""
    return TWO_LIMBS if TWO_LIMBS < bits <= TWO_LIMBS + slack else bits


def normal_sf_float(x: float) -> float:
    """1 - Phi(x) in floats: for choices of free parameters only."""
    return math.erfc(x / math.sqrt(2)) / 2


def normal_sf(z: arb) -> arb:
    """1 - Phi(z) = P(N(0, 1) >= z), a ball."""
    return (z / arb(2).sqrt()).erfc() / 2


# DFT lengths 2^k, 5 2^(k-2), 3 2^(k-1): Arb's DFT handles these smooth lengths as fast per
# element, and the finer ladder saves up to a third of the work over powers of two
LADDER = sorted({c << k for k in range(2, 24) for c in (4, 5, 6)})


def smooth_length(n: int) -> int:
    """The shortest DFT length on LADDER (at least 16) holding n points."""
    return next(N for N in LADDER if N >= max(16, n))


def suffix_sums(vals, zero=None) -> list:
    """S[i] = sum_{j >= i} vals[j] (len + 1 entries, S[len] = 0), in ball arithmetic (on
    other numbers with ``zero`` their 0: the proof check compose.upper-ends)."""
    zero = arb(0) if zero is None else zero
    out = [zero] * (len(vals) + 1)
    acc = zero
    for j in range(len(vals) - 1, -1, -1):
        acc = acc + vals[j]
        out[j] = acc
    return out


def prefix_sums(vals, zero=None) -> list:
    """P[i] = sum_{j < i} vals[j] (len + 1 entries, P[0] = 0), in ball arithmetic (on other
    numbers with ``zero`` their 0)."""
    zero = arb(0) if zero is None else zero
    out = [zero]
    acc = zero
    for v in vals:
        acc = acc + v
        out.append(acc)
    return out


def chernoff_choose(pts, n: int, t_lo: float, t_up: float, extra=None):
    """Float choice of theta for the two tails of the sum of n i.i.d. copies of the lattice
    variable with (position, probability) pairs ``pts`` [plus one copy of ``extra``]:
    returns (theta_lo, theta_up, log bound lo, log bound up).  Any theta > 0 is valid; the
    bound is recomputed in Arb."""
    import numpy as np

    def arrays(pp):             # the support only (entries of mass 0 would not count)
        pos = np.array([float(p) for p, _ in pp])
        pr = np.array([float(v) for _, v in pp])
        keep = pr > 0
        pos, pr = pos[keep], pr[keep]
        return pos, pr, float(np.dot(pos, pr) / pr.sum())

    pos, pr, mu = arrays(pts)
    ex = arrays(extra) if extra else None
    var = max(float(np.dot((pos - mu) ** 2, pr) / pr.sum()), 1e-30)
    sd = math.sqrt(max(var * n, 1.0))      # n = 0 (one extra item only): any theta scale

    def lmgf(pos, pr, mu, ths):        # log E e^{th (L - mu)} at every th of the ladder
        z = ths[:, None] * (pos - mu)[None, :]
        zm = z.max(axis=1)
        with np.errstate(divide="ignore"):
            return zm + np.log(np.exp(z - zm[:, None]) @ pr)

    ladder = 2.0 ** np.linspace(-14, 6, 81) / sd    # one array op per sign, not 81 (M 10:
    res = []                                        # 2106 small numpy calls, 22 ms)

    def log_bounds(sign, t, idx):                   # the log bound at the rungs idx
        th = ladder[idx]
        vals = n * lmgf(pos, pr, mu, sign * th) - th * t
        if ex is not None:
            vals = vals + lmgf(ex[0], ex[1], ex[2], sign * th)
        return np.where(np.isnan(vals), np.inf, vals)
    for sign, t in ((-1.0, t_lo), (1.0, t_up)):
        # the bound is convex in theta: every 4th rung, then the rungs beside the best of
        # those (27 of the 81 rungs' exps, M 1000: 11 of 125 ms on all 81)
        coarse = np.arange(0, 81, 4)
        j = int(coarse[int(np.argmin(log_bounds(sign, t, coarse)))])
        idx = np.arange(max(0, j - 3), min(81, j + 4))
        vals = log_bounds(sign, t, idx)
        i = int(np.argmin(vals))
        res.append((float(vals[i]), float(ladder[idx[i]])) if vals[i] < math.inf
                   else (math.inf, 0.0))
    return res[0][1], res[1][1], res[0][0], res[1][0]


def chernoff_c0(pts, mu: arb, n: int, theta: float, sign: int, t, extra=None) -> arb:
    """An upper bound of the uncapped Chernoff constant C0 = e^{-theta t} (E e^{sign theta
    (L - mu)})^n [E e^{sign theta (L' - mu')}] for S the sum of n copies of L [plus one
    independent L' = ``extra`` = (pts', mu')], as a ball at that bound (every caller reads
    its upper end): P(sign (S - ES) >= t + x) <= C0 e^{-theta x} for every x >= 0.  It may
    exceed 1 (then the bound at x = 0 is only the trivial 1)."""
    thf = Fraction(theta).limit_denominator(10**12)
    th = to_arb(thf)

    def log_mgf(pts_, mu_):           # an upper bound of log E e^{sign theta (L - mu)}: the
        up = pairs_upper(pts_, sign * thf)   # certified float bound on whole arrays
        return up.log() - sign * th * mu_    # (numerics.float_mgf; an Arb exp a point before)
    lg = n * log_mgf(pts, mu)
    if extra is not None:
        lg = lg + log_mgf(*extra)
    return arb((lg - th * t).exp().upper())


def cap1(c0: arb) -> arb:
    """min(1, C0), upper end: a probability is never above 1."""
    return c0 if (c0.is_finite() and c0 < 1) else arb(1)


def chernoff_bound(pts, mu: arb, n: int, theta: float, sign: int, t, extra=None) -> arb:
    """P(sign (S - ES) >= t) <= min(1, C0) (Chernoff; ``chernoff_c0``)."""
    if theta <= 0:
        return arb(1)
    return cap1(chernoff_c0(pts, mu, n, theta, sign, t, extra))


def chernoff_tail_integral(c0: arb, theta: float) -> arb:
    """An upper bound of int_0^inf min(1, C0 e^{-theta x}) dx = (min(1, C0) + max(0, ln C0))/theta:
    the integrated tail beyond the window edge (``min(1, C0)/theta`` alone under-counts by
    ln(C0)/theta when the cap fires)."""
    th = to_arb(Fraction(theta).limit_denominator(10**12))
    if not c0.is_finite():
        return arb("inf")
    excess = arb(0) if c0 <= 1 else c0.log() if c0 >= 1 else arb(0).union(c0.log())
    return (cap1(c0) + arb(excess.upper())) / th


def centred_window(pts, n: int, eps_target: float, span: int):
    """Smallest N on a ladder of smooth lengths whose window of half-width N/2 around the mean
    of the sum of n copies leaves a (float-estimated) Chernoff mass below eps_target on each
    side; or one covering the whole support n * span (no aliasing)."""
    import numpy as np

    pos = np.array([float(p) for p, _ in pts])
    pr = np.array([float(v) for _, v in pts])
    mu = float(np.dot(pos, pr))
    sd = math.sqrt(max(float(np.dot((pos - mu) ** 2, pr)) * n, 1.0))
    log_eps = math.log(eps_target)
    for N in LADDER:
        if N < 16 or N < 4 * sd:
            continue
        if N > n * span or N > MAX_N:
            return N
        _, _, llo, lup = chernoff_choose(pts, n, N / 2 - 2, N / 2 - 2)
        if max(llo, lup) < log_eps:
            return N
    return LADDER[-1]


def window(pts, n: int, eps_target: float, span: int,
           extra=None, limit: int = MAX_N) -> tuple[int, int | None]:
    """(N, left): the smallest N on the ladder of smooth lengths (as ``centred_window``) for a window
    [floor(mean) - left, floor(mean) - left + N) of the sum of n copies whose float-estimated
    Chernoff mass is below eps_target on each side, the window placed off-centre where the
    two tails differ (a skewed sum needs less room on its short side); left = None: the
    whole support (no aliasing).  A float choice: any window is valid, the masses outside it
    are bounded in Arb by the law that reads it.  With ``extra`` = (pts', span'): the sum
    plus one independent copy of another lattice variable (mean and tails included);
    ``limit``: the longest window (beyond it the whole support, which its caller refuses)."""
    import numpy as np

    def arrays(pp):
        pos = np.array([float(p) for p, _ in pp])
        pr = np.array([float(v) for _, v in pp])
        keep = pr > 0
        pos, pr = pos[keep], pr[keep] / pr[keep].sum()
        mu = float(np.dot(pos, pr))
        return pos, pr, mu, float(np.dot((pos - mu) ** 2, pr))
    parts = [(arrays(pts), n)] + ([(arrays(extra[0]), 1)] if extra else [])
    sd = math.sqrt(max(sum(k * a[3] for a, k in parts), 1.0))
    thetas = 2.0 ** np.linspace(-14, 6, 81) / sd
    L = {1: 0.0, -1: 0.0}
    for (pos, pr, mu, _), k in parts:          # log E e^{sign theta (S - E S)}, summed
        z = np.outer(thetas, pos - mu)
        for sign in (1, -1):
            zz = sign * z
            zm = zz.max(axis=1)
            L[sign] = L[sign] + k * (zm + np.log(np.exp(zz - zm[:, None]) @ pr))
    log_eps = math.log(eps_target)
    full = n * span + (extra[1] if extra else 0)

    def need(sign):                 # smallest distance t with min_theta bound < log_eps
        lo, hi = 0.0, max(sd, 1.0)
        while float(np.min(L[sign] - thetas * hi)) >= log_eps:
            lo, hi = hi, 2 * hi
            if hi > 1e12:
                return math.inf
        for _ in range(40):
            mid = (lo + hi) / 2
            if float(np.min(L[sign] - thetas * mid)) < log_eps:
                hi = mid
            else:
                lo = mid
        return hi
    t_lo, t_up = need(-1), need(1)
    want = t_lo + t_up + 6
    for N in LADDER:
        if N < 16 or N < 4 * sd:
            continue
        if N > full or N > limit:
            return N, None
        if N >= want:
            return N, int(math.ceil(t_lo)) + 3 + int(N - want) // 2
    return LADDER[-1], None


class LatticeLaw:
    """The law of the sum B of n i.i.d. copies of a lattice variable, on a window
    [start, start + N): masses c_i >= P(B = start + i) (aliasing only adds mass), plus
    certified Chernoff bounds on the mass below and above the window."""

    def __init__(self, y, part: str, n: int, N: int, pts, mu: arb, span: int, extra=None,
                 left: int | None = None, align: int = 1):
        """``y``: the inverse DFT (values mod N) holding this law in its ``part`` ("real" or
        "imag"); the sum of n copies of ``pts`` (mean mu, support [0, span]) plus, with
        ``extra`` = (pts', mu', span'), one independent copy of another lattice variable.
        The window starts ``left`` points below the mean (default N/2: centred), rounded to
        the nearest multiple of ``align`` (a window's placement is a free choice: the Chernoff
        masses below are computed for the window used)."""
        self.n, self.N = n, N
        self.mean = n * mu + (extra[1] if extra else 0)
        full = n * span + (extra[2] if extra else 0)
        self.alias = full >= N
        s0 = int(math.floor(Interval.of(self.mean).lower)) - (N // 2 if left is None else left)
        self.start = 0 if not self.alias else max(0, (s0 + align // 2) // align * align)
        if y is not None:           # None: a subclass reads its values otherwise (BandLaw)
            r0 = self.start % N
            self.c = [getattr(z, part) for z in y[r0:] + y[:r0]]
        self.b = self.start + N
        if self.alias:
            ex = (extra[0], extra[1]) if extra else None
            t_lo = float(Interval.of(self.mean).lower) - self.start
            t_up = self.b - float(Interval.of(self.mean).upper)
            th_lo, th_up, _, _ = chernoff_choose(pts, n, t_lo, t_up, extra and extra[0])
            self.theta_up = th_up
            self.eps_lo = (arb(0) if self.start == 0 else
                           chernoff_bound(pts, mu, n, th_lo, -1, self.mean - self.start, ex))
            if th_up > 0:
                c0 = chernoff_c0(pts, mu, n, th_up, 1, self.b - self.mean, ex)
                self.eps_up = cap1(c0)
                # int_b^inf P(B >= v) dv, the C0 of the Chernoff bound kept in the integral
                self.tail_up = chernoff_tail_integral(c0, th_up)
            else:
                self.eps_up, self.tail_up = arb(1), arb("inf")
        else:
            self.theta_up, self.eps_lo, self.eps_up, self.tail_up = 0.0, arb(0), arb(0), arb(0)
        self._A = self._B = None

    def prepare_tails(self):
        self._A = suffix_sums(self.c)          # A_i = sum_{j >= i} c_j

    def suffix(self) -> list:
        """The suffix sums A_i = sum_{j >= i} c_j of the window (computed once)."""
        if self._A is None:
            self.prepare_tails()
        return self._A

    def _suffix_B(self):
        # B_i = sum_{j >= i} (j - o) c_j with o the window's centre (centred, so that
        # B_i - (k - start - o) A_i does not cancel large numbers); stop-loss values only
        o = len(self.c) // 2
        B = [arb(0)] * (len(self.c) + 1)
        b = arb(0)
        for i in range(len(self.c) - 1, -1, -1):
            b = b + (i - o) * self.c[i]
            B[i] = b
        self._B, self._o = B, o

    def tail_ge(self, k: int) -> arb:
        """An enclosure of P(B >= k)."""
        if self._A is None:
            self.prepare_tails()
        eps = self.eps_lo + self.eps_up
        if k <= self.start:
            base = arb(1) if self.start == 0 else self._A[0]
        elif k >= self.b:
            return arb(0).union(self.eps_up)
        else:
            base = self._A[k - self.start]
        return base + arb(0, arb(eps.upper()))

    def stop_loss(self, k: Fraction) -> arb:
        """An upper bound of pi(k) = E[(B - k)_+] for real k (the ball's upper end counts)."""
        if k < 0:
            return self.mean - to_arb(k)
        if k < self.start:
            ka = to_arb(k)
            return self.mean - ka + ka * self.eps_lo
        if self._A is None:
            self.prepare_tails()
        if self._B is None:
            self._suffix_B()
        i = math.floor(k) + 1                      # values v > k are v >= floor(k) + 1
        ka = to_arb(k)
        j = i - self.start
        inside = (arb(0) if i >= self.b else
                  self._B[j] - (ka - (self.start + self._o)) * self._A[j])
        if self.alias:   # beyond the window: (b - k) P(B >= b) + int_b^inf P(B >= v) dv
            gap = max(self.b - k, 0)
            inside = inside + to_arb(gap) * self.eps_up + self.tail_up
        return inside


def two_dfts(pts1, pts2, N: int):
    """DFTs (k = 0 .. N/2) of two real lattice pmfs by one complex DFT of x1 + i x2:
    X1[k] = (X[k] + conj X[N-k]) / 2, X2[k] = (X[k] - conj X[N-k]) / 2i."""
    x = [acb(0)] * N
    for p, v in pts1:
        x[p % N] = x[p % N] + v
    for p, v in pts2:
        x[p % N] = x[p % N] + acb(0, v)
    X = acb.dft(x)
    del x
    X1, X2 = [], []
    half_i = acb(0, -0.5)
    for k in range(N // 2 + 1):
        a, b = X[k], X[(N - k) % N].conjugate()
        X1.append((a + b) / 2)
        X2.append((a - b) * half_i)
    return X1, X2


def powers(X, n: int, prec: int):
    """[z ** n for z in X], with the terms below 2^-(prec + 10) replaced by the ball
    0 +- 2^-(prec + 10) (certified: |z| <= r and r^n <= 2^-(prec + 10), r checked in Arb)."""
    eps = arb(2) ** (-(prec + 10))
    r = arb(math.exp(-(prec + 10) * math.log(2) / n) * (1 - 1e-9))
    if not r ** n <= eps:          # cannot happen with the margin above; be safe
        return [z ** n for z in X]
    tiny = acb(arb(0, eps), arb(0, eps))
    return [tiny if z.abs_upper() <= r else z ** n for z in X]


def two_inverse(Y1, Y2, N: int):
    """Inverse DFTs of two Hermitian spectra (given for k = 0 .. N/2) by one complex
    inverse DFT of Y1 + i Y2: the real part is the first sequence, the imaginary the second."""
    Z = [a + b * acb(0, 1) for a, b in zip(Y1, Y2)]
    Z += [(Y1[N - k].conjugate() + Y2[N - k].conjugate() * acb(0, 1)) for k in range(N // 2 + 1, N)]
    return acb.dft(Z, inverse=True)
