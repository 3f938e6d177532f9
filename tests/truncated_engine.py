"""An independent construction of the one-epoch exact-TV bracket, kept as a test reference:
the tail is truncated at T (E[Y 1{Y > T}] below 1e-4 of TV) instead of split off, every
lattice cell has width h, and the DFT window spans the truncated support.  It is what
verifier/bounds/exact_tv/bracket.py computed before the tail-split engine (verifier/bounds/exact_tv/one_epoch.py); both are
rigorous, so their brackets must intersect (tests/test_exact_one.py).

TV_1(sigma, M) = E_P0[(Ybar_M - 1)_+] (docs/THEORY.md section 1).  Upper end: truncate,
(s + t - 1)_+ <= (s - 1)_+ + t, spread each cell's mass onto its end points (convex order),
M-fold sum by an Arb DFT, Chernoff-integrated bound beyond the window.  Lower end: the test
{sum of M labels >= K}, a_j = E[(Y - 1) 1{L = j}], P(R >= k) enclosed within the window's
out-of-window mass.
"""
from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.symbolic import derived as D
from verifier.core.arith import InputError, Interval, to_arb
MAX_N = 1 << 22


def _Phi(x: arb) -> arb:
    return (-x / arb(2).sqrt()).erfc() / 2


def _Phi_c(x: arb) -> arb:  # 1 - Phi(x), accurate in the upper tail
    return (x / arb(2).sqrt()).erfc() / 2


def _cells(sigma: Fraction, h: Fraction, J: int):
    """For cells [jh, (j+1)h), j < J, and the last [Jh, inf): probabilities q_j and
    first partial moments m_j = E[Y 1{cell}] (closed form: docs/THEORY.md section 2,
    partial moments with Y = e^{x/sigma - u/2}: P(Y < y) = Phi(x(y)),
    E[Y 1{Y < y}] = Phi(x(y) - 1/sigma), x(y) = sigma (ln y + u/2))."""
    s = to_arb(sigma)
    u = 1 / (s * s)
    inv = 1 / s
    ha = to_arb(h)
    q, m = [], []
    prev_P, prev_Q, prev_m, prev_mc = arb(0), arb(1), arb(0), arb(1)
    for j in range(1, J + 1):
        x = s * ((j * ha).log() + u / 2)
        if x < 0:
            P, Mlow = _Phi(x), _Phi(x - inv)
            q.append(P - prev_P)
            m.append(Mlow - prev_m)
            prev_P, prev_m = P, Mlow
            prev_Q, prev_mc = 1 - P, 1 - Mlow
        else:   # upper tail: differences of complements, no cancellation
            Q, Mc = _Phi_c(x), _Phi_c(x - inv)
            q.append(prev_Q - Q)
            m.append(prev_mc - Mc)
            prev_Q, prev_mc = Q, Mc
            prev_P, prev_m = 1 - Q, 1 - Mc
    q.append(prev_Q)          # the tail cell [Jh, inf)
    m.append(prev_mc)
    return q, m


def _sum_law(pmf, n: int, N: int, mean: arb, extras=()):
    """Law of the sum of n i.i.d. copies of a lattice variable with the given pmf
    on {0, ..., len-1}: returns (start, probs) with probs[i] enclosing
    P(sum = start + i) plus aliased mass, for the window [start, start + N).
    With ``extras`` (pmfs), returns (start, [probs for each extra]): the laws of the
    n-fold sum plus one independent copy of each extra variable."""
    if n * (len(pmf) - 1) < N and not extras:      # the whole support fits: no aliasing
        start = 0
    elif extras and (n + 1) * (len(pmf) - 1) < N:
        start = 0
    else:
        start = max(0, int(math.floor(Interval.of(mean).lower)) - N // 2)

    def dft_of(p):
        x = [acb(0)] * N
        for j, v in enumerate(p):
            x[j % N] = x[j % N] + v
        return acb.dft(x)

    X = dft_of(pmf)
    # the pmf is real, so X[N - k] = conj(X[k]): raise half of them to the n-th power
    half = [X[k] ** n for k in range(N // 2 + 1)]
    del X
    r0 = start % N

    def back(h):
        Y = h + [h[N - k].conjugate() for k in range(N // 2 + 1, N)]
        y = acb.dft(Y, inverse=True)
        # residue r holds the value v = r (mod N) in [start, start + N): a rotation
        return [z.real for z in y[r0:] + y[:r0]]

    if not extras:
        return start, back(half)
    out = []
    for e in extras:
        Xe = dft_of(e)
        out.append(back([a * b for a, b in zip(half, Xe[:N // 2 + 1])]))
    return start, out


def _chernoff(pmf, mu: arb, var: arb, n: int, t: int, extra=None):
    """(two-sided tail bound, upper-tail bound, theta) for the sum R of n i.i.d. lattice
    variables with the given pmf: P(|R - n mu| >= t) <= e^{-theta t} (m+^n + m-^n) with
    m+- = E e^{+-theta (L - mu)} (Chernoff).  theta is chosen with a float scan (any
    theta > 0 is valid); the bound itself is computed in ball arithmetic."""
    import numpy as np

    if t <= 0:
        return arb(1), arb(1), arb(0)
    p = np.array([float((x.lower() + x.upper()) / 2) for x in pmf])
    p = np.clip(p, 0, None)
    j = np.arange(len(p), dtype=float)
    m = float((mu.lower() + mu.upper()) / 2)
    sd = math.sqrt(max(float(Interval.of(var).upper) * n, 1.0))
    best_theta, best_val = None, math.inf
    for k in np.linspace(-14, 4, 73):
        th = 2.0 ** k / sd
        with np.errstate(over="ignore", invalid="ignore"):
            lp = np.log(np.sum(p * np.exp(th * (j - m))))
            lm = np.log(np.sum(p * np.exp(-th * (j - m))))
        val = np.logaddexp(n * lp, n * lm) - th * t
        if np.isfinite(val) and val < best_val:
            best_theta, best_val = th, val
    if best_theta is None:
        return arb(1), arb(1), arb(0)
    theta = to_arb(Fraction(best_theta).limit_denominator(10**12))
    mp = sum(((theta * (i - mu)).exp() * q for i, q in enumerate(pmf)), arb(0))
    mm = sum(((-theta * (i - mu)).exp() * q for i, q in enumerate(pmf)), arb(0))
    ep = em = arb(0)
    if extra is not None:     # one more independent variable with pmf ``extra``, mean mu_e
        extra_pmf, mu_e = extra
        ep = sum(((theta * (i - mu_e)).exp() * q for i, q in enumerate(extra_pmf)), arb(0)).log()
        em = sum(((-theta * (i - mu_e)).exp() * q for i, q in enumerate(extra_pmf)), arb(0)).log()
    up = (n * mp.log() + ep - theta * t).exp()
    two = up + (n * mm.log() + em - theta * t).exp()
    if not two.is_finite():
        return arb(1), arb(1), arb(0)
    return two, up, theta


def _moments(pmf):
    mu = sum((j * p for j, p in enumerate(pmf)), arb(0))
    m2 = sum((j * j * p for j, p in enumerate(pmf)), arb(0))
    return mu, m2 - mu * mu


def _dft_length(pmf, mu: arb, var: arb, n: int, J: int, eps_target: float) -> int:
    """The smallest power of two N that covers the whole support n J + 1 (no
    aliasing), or whose window N/2 around the mean leaves a Chernoff-bounded mass
    below eps_target outside."""
    N = 16
    sd = math.sqrt(max(float(Interval.of(var).upper) * n, 1.0))
    while N < 4 * sd and N <= n * J:
        N *= 2
    while N <= n * J and N <= MAX_N:
        two, _, _ = _chernoff(pmf, mu, var, n, N // 2 - 2)
        if two < eps_target:
            break
        N *= 2
    return N


def tv_one_epoch(sigma: Fraction, M: int, h: Fraction | None = None, prec: int = 64,
                 rel_tail: Fraction = Fraction(1, 10**4)):
    """(lower ball, upper ball, h, J, N) for TV_1(sigma, M)."""
    if M < 2:
        raise InputError(f"steps must be >= 2 for the exact TV, got {M}")
    with ctx.workprec(prec):
        s = to_arb(sigma)
        s2 = D.lognormal_variance(s)
        sd = float(Interval.of(s2.sqrt()).lower)
        if h is None:
            # relative error ~ h^2 / (12 s2) per end: h = sd/5 keeps each end near 0.3%
            h = Fraction(2) ** math.floor(math.log2(sd / 5))
        # truncation point: E[Y 1{X > x0}] = Phi(1/sigma - x0) below rel_tail * TV scale
        scale = min(0.5, math.sqrt(float(Interval.of(s2).lower) / (2 * math.pi * M)))
        inv_s = float(1 / sigma)
        x0 = inv_s + 1.0
        while math.erfc((x0 - inv_s) / math.sqrt(2)) / 2 > float(rel_tail) * scale:
            x0 += 0.25
        u = float(1 / sigma**2)
        T = math.exp(x0 / float(sigma) - u / 2)
        J = max(2, math.ceil(T / h))
        if J > MAX_N // 2:
            raise InputError(f"sigma = {sigma} needs {J} lattice cells (more than {MAX_N // 2}); "
                             "not supported yet")
        q, m = _cells(sigma, h, J)
        ha = to_arb(h)
        # ---- lower end: labels L = min(floor(Y/h), J); R = sum of M - 1 labels
        mu_l, var_l = _moments(q)
        n = M - 1
        eps_target = 1e-3 * scale      # out-of-window mass: moves each end by <= ~0.1% of TV
        N = _dft_length(q, mu_l, var_l, n, J, eps_target)
        if N > MAX_N:
            raise InputError(f"M = {M} at sigma = {sigma} needs a DFT of length {N} "
                             f"(more than {MAX_N})")
        start, pr = _sum_law(q, n, N, n * mu_l)
        eps_l = arb(0) if n * J < N else _chernoff(q, mu_l, var_l, n, N // 2 - 2)[0]
        tailsum = [arb(0)] * (N + 1)
        acc = arb(0)
        for i in range(N - 1, -1, -1):
            acc = acc + pr[i]
            tailsum[i] = acc
        eps_ball = arb(0, arb(eps_l.upper())) if n * J >= N else arb(0)   # [-eps, eps]

        def P_ge(k):   # P(R >= k), enclosed
            if k <= start:
                base = tailsum[0]
            elif k >= start + N:
                base = arb(0)
            else:
                base = tailsum[k - start]
            return base + eps_ball

        a = [mj - qj for mj, qj in zip(m, q)]
        K0 = int(round(float(Interval.of(M * mu_l).lower)))
        best = None
        for K in range(K0 - 3, K0 + 4):
            L = sum((aj * P_ge(K - j) for j, aj in enumerate(a)), arb(0))
            lo = arb(L.lower())
            if best is None or lo > best:
                best = lo
        lower = best
        # ---- upper end: spread Y^T onto the lattice points, tail Y > Jh mapped to 0
        w = [arb(0)] * (J + 1)
        for j in range(J):
            lo_pt = (q[j] * ((j + 1) * ha) - m[j]) / ha
            hi_pt = (m[j] - q[j] * (j * ha)) / ha
            w[j] = w[j] + lo_pt
            w[j + 1] = w[j + 1] + hi_pt
        w[0] = w[0] + q[J]                      # Y > Jh: Y^T = 0
        tail_mean = m[J]                        # E[Y 1{Y >= Jh}]
        mu_u, var_u = _moments(w)
        N2 = _dft_length(w, mu_u, var_u, M, J, eps_target)
        if N2 > MAX_N:
            raise InputError(f"M = {M} needs a DFT of length {N2} (more than {MAX_N})")
        start2, pu = _sum_law(w, M, N2, M * mu_u)
        U = arb(0)
        Ma = arb(M)
        first = max(0, (M * h.denominator) // h.numerator - start2 - 1)   # (g)_+ = 0 below
        for i in range(first, len(pu)):
            p = pu[i]
            v = start2 + i
            g = v * ha / Ma - 1
            if g > 0:
                U = U + p * g
            elif not g <= 0:          # straddles the kink: (g)_+ in [0, upper(g)]
                U = U + p * arb(0).union(arb(g.upper()))
        if M * J >= N2:
            # mass above the window: (h/M) E[(S - M/h) 1{S >= b}] <= (h/M)((b - M/h) + 1/theta)
            # * P-bound e^{-theta (b - M mu)} m+^M (Chernoff, integrated tail)
            b = start2 + N2
            t = b - int(math.ceil(Interval.of(M * mu_u).upper))
            _, up, theta = _chernoff(w, mu_u, var_u, M, t)
            if theta > 0:
                U = U + ha / Ma * ((b - Ma / ha) + 1 / theta) * up
            else:
                U = U + arb(1)
        upper = arb((U + tail_mean).upper())
        return lower, upper, h, J, max(N, N2)
