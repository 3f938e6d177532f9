"""The exact total variation of the random-allocation pair, bracketed rigorously.

One epoch (E = 1) is computed by the tail-split engine of exact_one.py; this module
holds the engine for several epochs, which truncates the tail instead:

TV_1(sigma, M) = E_P0[(Ybar_M - 1)_+] = E|Ybar_M - 1| / 2 (THEORY.md section 1),
Ybar_M the mean of M i.i.d. lognormals Y = exp(X/sigma - u/2), E[Y] = 1.

Both ends are rigorous; every step moves the answer in a known direction and
every number is an Arb ball (the DFTs too: ``acb.dft`` in ball arithmetic):

Upper end (convex order).  Truncate: Y = Y^T + Y 1{Y > T} with Y^T = Y 1{Y <= T};
since (s + t - 1)_+ <= (s - 1)_+ + t for t >= 0,
    TV <= E[(sum Y^T_i / M - 1)_+] + E[Y 1{Y > T}].
Spread the mass of Y^T in each lattice cell [jh, (j+1)h) onto the cell's end
points, keeping its mean: this Y^up is larger in convex order than Y^T, and
convex order is kept under independent sums, so E[(sum Y^T/M - 1)_+] <=
E[(sum Y^up/M - 1)_+], a sum of M i.i.d. lattice variables: its law is
computed exactly (up to the balls) by a DFT, raised to the M-th power.

Lower end (a test).  TV = sup_A P1(A) - P0(A) = sup_A E_P0[(Ybar - 1) 1_A].  For
A = {sum_i L_i >= K}, L_i = min(floor(Y_i / h), J) the cell labels,
    E[(Ybar - 1) 1_A] = E[(Y_1 - 1) 1_A] = sum_j a_j P(R >= K - j),
a_j = E[(Y - 1) 1{L = j}] (closed-form partial moments, THEORY section 2) and R
the sum of M - 1 labels (a DFT again).  Any K gives a lower bound; we take the
best of a few around the natural threshold.

Aliasing.  The DFT of length N gives the law of the sum modulo N.  The window
[c - N/2, c + N/2) around the mean holds all but a Bernstein-bounded mass eps;
the lower end uses P(R >= k) in [C_k - eps, C_k + eps]; the upper end adds
sqrt(E[(S/M - 1)^2]) sqrt(eps) (Cauchy-Schwarz) for the mass outside.

Several epochs (TV_E = E_P0[(prod_e Ybar_e - 1)_+]):
- upper end: each epoch's spread lattice mean Z is larger in convex order than the
  truncated Ybar; (e^{sum w} - 1)_+ is convex and nondecreasing in each w = log z,
  so log Z is spread (mean-preservingly, after a certified upward shift) onto a grid
  of step eta; the E-fold sum on the grid is a ball-arithmetic DFT; values outside a
  kept band cost at most E E[Z 1{outside}] (f(prod z) <= prod z, union bound);
  truncation adds 1 - (1 - tau)^E;
- lower end: the test {sum_e lambda(R_e) >= 0} on the epochs' label sums R_e
  (lambda a rounded log-likelihood ratio of the label-sum laws under P1 and P0; any
  lambda gives a valid test), its two probabilities by DFT, each moved by at most E
  times the out-of-window mass;
- both are intersected with the composition bracket [TV_1, 1 - (1 - TV_1)^E].
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

from flint import acb, arb, ctx

from . import _derived as D
from .arith import InputError, Interval, to_arb
from .exact_one import MAX_N, tv_one


@dataclass(frozen=True)
class ExactResult:
    sigma: Fraction
    steps: int
    epochs: int
    tv: Interval                 # [lower end of the lower bound, upper end of the upper bound]
    accuracy: Interval           # 1/2 + tv/2
    tv_one_epoch: Interval
    lattice_step: Fraction
    cells: int
    dft_length: int
    seconds: float
    exact_epochs: bool           # False: E > 1 uses the loose composition bracket

    @property
    def relative_width(self) -> float:
        lo, hi = self.tv.lower, self.tv.upper
        return float((hi - lo) / lo) if lo > 0 else float("inf")


def _Phi(x: arb) -> arb:
    return (-x / arb(2).sqrt()).erfc() / 2


def _Phi_c(x: arb) -> arb:  # 1 - Phi(x), accurate in the upper tail
    return (x / arb(2).sqrt()).erfc() / 2


def _cells(sigma: Fraction, h: Fraction, J: int):
    """For cells [jh, (j+1)h), j < J, and the last [Jh, inf): probabilities q_j and
    first partial moments m_j = E[Y 1{cell}] (closed form: THEORY section 2,
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
                 rel_tail: Fraction = Fraction(1, 10**4), epochs: int = 1):
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
        state = {"q": q, "m": m, "w": w, "tau": tail_mean, "start2": start2, "pu": pu,
                 "tv1_lower": lower,
                 "mu_u": mu_u, "var_u": var_u, "mu_l": mu_l, "var_l": var_l, "N": N, "N2": N2,
                 "M": M, "J": J, "h": h, "prec": prec,
                 "eps_u": (arb(0) if M * J < N2 else
                           _chernoff(w, mu_u, var_u, M, N2 // 2 - 2)[0])}
        return lower, upper, h, J, max(N, N2), state


def _grid_law_power(sub, E: int):
    """E-fold sum of independent integer variables with sub-probabilities ``sub``
    (dict index -> ball): (kmin, list) with list[s] = P(sum = s + E kmin, all defined),
    by a ball-arithmetic DFT long enough that nothing aliases."""
    kmin, kmax = min(sub), max(sub)
    width = kmax - kmin
    N = 1 << max(4, math.ceil(math.log2(E * width + 1)))
    x = [acb(0)] * N
    for k, v in sub.items():
        x[k - kmin] = x[k - kmin] + v
    X = acb.dft(x)
    Y = [z ** E for z in X]
    y = acb.dft(Y, inverse=True)
    return kmin, [z.real for z in y[:E * width + 1]]


def _epochs_lower(st, E: int) -> arb:
    """TV_E >= P1(A) - P0(A) for the test A = {sum_e lambda(R_e) >= 0, every R_e in G}, R_e
    the label sum of epoch e (under P1 one coordinate has the tilted label law
    m_j = E[Y 1{L = j}]), lambda a rounded log-likelihood ratio (any function gives a
    valid test).  Each epoch's computed law differs from the true one by at most its
    out-of-window mass eps, so each probability moves by at most E eps."""
    q, m, M, J = st["q"], st["m"], st["M"], st["J"]
    mu_l, var_l, N = st["mu_l"], st["var_l"], st["N"]
    n = M - 1
    start, (q0, q1) = _sum_law(q, n, N, (n + 1) * mu_l, extras=(q, m))
    if (n + 1) * J < N:
        eps0 = eps1 = arb(0)
    else:
        eps0 = _chernoff(q, mu_l, var_l, M, N // 2 - 2)[0]
        mu_m = _moments(m)[0]
        shift = int(math.ceil(float(Interval.of(abs(mu_m - mu_l)).upper)))
        eps1 = _chernoff(q, mu_l, var_l, n, max(1, N // 2 - 2 - shift), extra=(m, mu_m))[0]
    f0 = [float((x.lower() + x.upper()) / 2) for x in q0]
    f1 = [float((x.lower() + x.upper()) / 2) for x in q1]
    top = max(f0)
    lam = {}
    for i, (a, b) in enumerate(zip(f0, f1)):
        if a > 1e-25 * top and b > 1e-25 * top:
            lam[i] = math.log(b / a)
    vals = sorted(lam.values())
    sd = max(1e-12, (vals[int(0.84 * len(vals))] - vals[int(0.16 * len(vals))]) / 2)
    eta = sd / 64
    sub0, sub1 = {}, {}
    for i, l in lam.items():
        k = round(l / eta)
        sub0[k] = sub0.get(k, arb(0)) + q0[i]
        sub1[k] = sub1.get(k, arb(0)) + q1[i]
    k0, law0 = _grid_law_power(sub0, E)
    k1, law1 = _grid_law_power(sub1, E)
    s0 = max(0, -E * k0)
    s1 = max(0, -E * k1)
    P0 = sum(law0[s0:], arb(0))
    P1 = sum(law1[s1:], arb(0))
    return arb((P1 - P0 - E * (eps0 + eps1)).lower())


def _epochs_upper(st, E: int) -> arb:
    """TV_E <= E[(prod_e Z_e - 1)_+ ; every Z_e kept] + E E[Z 1{Z not kept}] + 1 - (1 - tau)^E,
    Z the spread lattice mean (larger in convex order than the truncated Ybar), kept: its
    law within a Chernoff-controlled band of the DFT window, tau = E[Y 1{Y > T}].  log Z is spread onto a grid
    of step eta (a mean-preserving spread of log Z + delta, delta >= 0, in a variable in
    which (e^{sum} - 1)_+ is convex and nondecreasing), then the E-fold sum by DFT."""
    from fractions import Fraction as Fr

    M, h, pu, start2 = st["M"], st["h"], st["pu"], st["start2"]
    ha, Ma = to_arb(h), arb(M)
    sdz = float(Interval.of((st["var_u"] * M).sqrt() * ha / Ma).upper)
    eta = Fr(sdz / 64).limit_denominator(10**12)
    eta_a = to_arb(eta)
    # keep the values within 12 standard deviations; the rest (and the mass outside the
    # DFT window) is charged by Cauchy-Schwarz below, with a Chernoff bound of its mass
    sd_v = float(Interval.of((st["var_u"] * M).sqrt()).upper)
    centre = int(round(float(Interval.of(st["mu_u"] * M).lower)))
    budget = 1e-3 * float(Interval.of(st["tv1_lower"]).lower)
    # f(prod Z) <= prod Z, so the configurations with some Z_e outside the kept band
    # cost at most E E[Z 1{Z outside}] (union bound, independence, E Z <= 1).  Inside the
    # DFT window that first moment is summed from the computed law (which dominates the
    # true one pointwise); beyond the window it is bounded by Chernoff, integrated.
    b_edge = start2 + len(pu)
    two_b, up_b, th_b = _chernoff(st["w"], st["mu_u"], st["var_u"], M, b_edge - centre)
    beyond = (ha / Ma * (b_edge + 1 / th_b) * up_b) if th_b > 0 else arb(1)
    if start2 > 0:
        beyond = beyond + ha / Ma * start2 * (two_b - up_b)
    zs = [(start2 + i) * ha / Ma for i in range(len(pu))]
    k_sd = 8
    while True:
        t_cut = max(1, int(k_sd * sd_v))
        lo_i, hi_i = max(0, centre - t_cut - start2), min(len(pu), centre + t_cut - start2 + 1)
        outside = sum((pu[i] * zs[i] for i in range(0, lo_i)), arb(0)) + \
            sum((pu[i] * zs[i] for i in range(hi_i, len(pu))), arb(0))
        charge = E * (outside + beyond)
        if charge < budget or (lo_i == 0 and hi_i == len(pu)):
            break
        k_sd *= 2
    lo_v, hi_v = centre - t_cut, centre + t_cut
    sub = {}
    kmin_seen = None
    for i, p in enumerate(pu):
        v = start2 + i
        if v == 0 or v < lo_v or v > hi_v:
            continue
        w = (v * ha / Ma).log()
        wu = w.upper().fmpq()
        wu = Fr(int(wu.p), int(wu.q))
        k = math.floor(wu / eta)
        theta = (wu - k * eta) / eta               # exact, >= the true fraction
        kmin_seen = k if kmin_seen is None else min(kmin_seen, k)
        sub[k] = sub.get(k, arb(0)) + p * to_arb(1 - theta)
        sub[k + 1] = sub.get(k + 1, arb(0)) + p * to_arb(theta)
    if start2 == 0 and pu and lo_v <= 0:   # Z = 0: moved up to the lowest grid point
        sub[kmin_seen] = sub[kmin_seen] + pu[0]
    # the radii of the law are multiplied by up to e^{x_max}: carry that many more bits
    x_max = float(E * max(sub) * eta)
    st["x_max"] = x_max
    with ctx.extraprec(max(0, int(1.5 * x_max)) + 20):
        kmin, law = _grid_law_power(sub, E)
    U = arb(0)
    for sidx, p in enumerate(law):
        x = (sidx + E * kmin) * eta_a
        if x > 0:
            U = U + p * x.expm1()
        elif not x <= 0:
            U = U + p * arb(0).union(arb(x.expm1().upper()))
    U = U + charge
    U = U + 1 - (1 - st["tau"]) ** E
    return arb(U.upper())


def exact_tv(sigma: Fraction, M: int, epochs: int = 1, prec: int | None = None) -> ExactResult:
    t = time.perf_counter()
    if prec is None:   # x^M multiplies relative radii by M: keep 2 log2(M) guard bits
        prec = max(64, 53 + 2 * M.bit_length())
    if epochs == 1:      # the tail-split engine (exact_one.py): window set by the body only
        r = tv_one(sigma, M, prec)
        lo, hi, h, J, N = r.lower, r.upper, r.h, r.cells, r.N
    else:
        lo, hi, h, J, N, st = tv_one_epoch(sigma, M, prec=prec, epochs=epochs)
    one = Interval.of(arb(lo.lower()).union(arb(hi.upper())))
    exact_epochs = True
    if epochs == 1:
        tv = one
    else:
        with ctx.workprec(prec):
            loose_up = 1 - (1 - arb(hi.upper())) ** epochs     # composition (Lemma C.2)
            try:
                lo_e = _epochs_lower(st, epochs)
                up_e = _epochs_upper(st, epochs)
                if 100 * up_e > 101 * lo_e and st.get("x_max", 0) > 5:
                    # the input radii were amplified by e^{x_max}: redo at more precision
                    p2 = prec + int(1.5 * st["x_max"]) + 20
                    with ctx.workprec(p2):
                        st2 = tv_one_epoch(sigma, M, prec=p2, epochs=epochs)[5]
                        up2 = _epochs_upper(st2, epochs)
                    up_e = up2 if up2 < up_e else up_e
            except (InputError, ValueError, ZeroDivisionError):
                lo_e, up_e, exact_epochs = lo, loose_up, False
            lo_e = lo_e if lo_e > lo else arb(lo.lower())       # TV_E >= TV_1 too
            up_e = up_e if up_e < loose_up else loose_up
        tv = Interval(Interval.of(lo_e).lower, Interval.of(up_e).upper)
    with ctx.workprec(prec):
        acc = Interval.of(arb(1) / 2 + (to_arb(tv.lower).union(to_arb(tv.upper))) / 2)
    return ExactResult(sigma, M, epochs, tv, acc, one, h, J, N, time.perf_counter() - t,
                       exact_epochs)
