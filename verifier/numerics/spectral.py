"""The composed law of many steps read off its few surviving frequencies (docs/THEORY.md
section 16, "Sparse composition"; the verifier's construction).

The sum of T independent lattice steps on a DFT window of N points has the spectrum
Y[k] = prod_i X_i[k]^{n_i}; for large T almost every |Y[k]| is below 2^-(prec + 10)
(sigma 1, q 1e-3, T 1e5: 38 of 32769 indices survive).  Here no transform of length N is
formed:

* **Where Y survives** (``edge``): a second-order certificate.  With j0 the rounded mean and
  phi(t) = sum_p x_p e^{-i t (p - j0)} (|phi| = |X|), Taylor's theorem with
  |e^{-ia} - 1 + ia| <= a^2 / 2 gives, for |t - t_m| <= h,
  |phi(t)| <= max(|phi(t_m) - i h phi1(t_m)|, |phi(t_m) + i h phi1(t_m)|) + h^2 V / 2,
  phi1(t) = sum_p (p - j0) x_p e^{-i t (p - j0)}, V = sum_p (p - j0)^2 x_p (x_p >= 0; the
  first-order part is affine in t - t_m, so its modulus is largest at an end).  At the
  points t_m = 2 pi m / L (L the power of 2 at least N / c, c a power of 2 dividing N / 2)
  phi and phi1 are one DFT of L points (x and (p - j0) x folded mod L, packed as
  x + i (p - j0) x), taken in floats with a certified error bound (numerics.float_dft,
  docs/THEORY.md section 17); every t within h = pi / L of some t_m.  K: the last index
  whose bound is not certified <= r_i for some phase i, with
  prod_i r_i^{n_i} <= out = 2^-b (checked in Arb, ``checked_radii``; b at most prec + 10,
  less where the caller's budget allows: ``out_bits``): every |Y[k]|,
  K < k <= N/2, is at most that product (every phase's |X_i[k]| <= r_i there).
* **The kept values** (numerics.direct.direct_sums, its blocked sums where the points fill
  their span): X_i[k], k = 0 .. K, for both laws of a phase by one ball matrix product
  (Horner over all points at a ball root of unity lost up to 30 digits at 1890 points).
* **Every sum the profile reads** (``SpectralLaw``): with a_k = Y[k] w^{-r0 k} / N (the
  window's first point r0 of the composed index, w = e^{-2 pi i / N}) and t_k = rho w^{-k},
  the window's masses law[j] = sum_k a_k w^{-j k} and
      sum_{j < i} law[j] rho^j      = sum_k a_k (1 - t_k^i) / (1 - t_k),
      sum_{i <= j < N} law[j] rho^j = sum_k a_k (t_k^i - t_k^N) / (1 - t_k)
  (the k = 0 term a_0 i, a_0 (N - i) where rho = 1); the kept k pair with their mirrors
  N - k (a real law: 2 Re), so a sum at i is one polynomial of degree K evaluated at
  w^{-i} (``Poly``: baby and giant steps, every power an exact root of unity).  A
  left-out |Y[k]| <= out moves the prefix sum by at most out sum_{j < i} rho^j
  (the suffix sum by out sum_{j >= i} rho^j; at most N of them, each times the 1/N).

Cost: a float coarse DFT of about N / c points per law and one ball matrix product per phase, where the
full path takes a DFT of N points per phase, an inverse and N-point sums.
"""
from __future__ import annotations

import math

import numpy as np
from flint import acb, arb, ctx

from verifier.numerics.direct import direct_sums, root
from verifier.numerics.spectral_sums import Poly

COST = 2.5         # kept while points x (K + 1) <= this x N log2 N per law and phase (else
                   # the full DFT path; measured: the sparse path wins to a ratio of 2.04 and
                   # loses from 3.86; 0.5 while the sums' polynomials were evaluated by
                   # Horner's rule, whose radii grew with K: docs/THEORY.md section 16)
MIN_N = 4096       # shorter windows: the full path (its transforms cost little)
MIN_STRIDE = 4     # coarse DFTs of more than N / 4 points: the full path
KEPT_SHARE = 4     # more than N / 4 kept indices: the full path (few steps, e.g. T = 2 at
                   # sigma 4.65, q 1.6e-4: K = N / 2, the direct sums' powers multiplied up
                   # hundreds of times lost every digit; the kept values' radii are checked
                   # too, at 2^-(prec/2): compose)
FLOAT_SUMS_N = 1 << 18   # threshold scans in floats from one FFT up to this window (Sums.floats)


def out_bits(prec: int, level: float | None = None) -> int:
    """b with the left-out level out = 2^-b: ``level`` (from the caller's budget:
    numerics.compose.left_out_level) rounded down to a power of 2, at most 2^-16 and never
    below 2^-(prec + 10), the working precision's level (a free parameter: every level is
    certified by ``checked_radii`` and charged by SpectralLaw.left_out; the edge's K grows
    as the square root of b: sigma 1, q 1e-3, T 1000 kept 161 at 2^-128, 96 at 2^-74)."""
    b = prec + 10
    if level is not None and 0 < level < 1:
        b = min(b, max(16, math.ceil(-math.log2(level))))
    return b


def radius(bits: int, T: float) -> arb:
    """A float choice of r with r^T just below 2^-bits (T may be an effective count, inf: r
    just below 1; checked by the caller)."""
    return arb(math.exp(-bits * math.log(2) / T) * (1 - 1e-9))


def radii(bits: int, ns: list, Vs: list) -> list | None:
    """A float choice of a radius r_i for each phase (of n_i steps, its law's second moment
    V_i; checked by ``checked_radii``; any radii whose product is certified are valid):
    each phase's Gaussian decay e^{-V_i t^2 / 2} at the t where their product reaches
    2^-bits, i.e. r_i^{S / V_i} just below it (S = sum_i n_i V_i), so that every
    phase's edge lies near the composed law's and a phase of narrow steps does not set it
    alone (one radius for all, r^T, put it where the narrowest phase alone reaches r: 500
    steps at sigma 2 before 5000 at sigma 1, q 0.01, took the full path).  One phase:
    r^T just below it.  None where no phase spreads (S = 0)."""
    S = sum(n * V for n, V in zip(ns, Vs))
    if not S > 0:
        return None
    return [radius(bits, S / V if V > 0 else math.inf) for V in Vs]


def checked_radii(bits: int, ns: list, Vs: list, free: dict | None = None):
    """(rs, out): ``radii`` with prod_i r_i^{n_i} <= out = 2^-bits certified in Arb (every
    |Y[k]| past the phases' edges is then at most out: |X_i[k]| <= r_i there), or None.
    ``free``: {i: m_i}, phases whose radius is m_i >= sum_p |x_p| (``l1_bound``: |X_i[k]|
    <= m_i at every k, no edge needed); the others' radii carry the decay without them."""
    free = free or {}
    if free:
        bits_f = bits + 1 + math.ceil(sum(ns[i] * math.log2(max(float(m.upper()), 1.0))
                                          for i, m in free.items()))
        rs = radii(bits_f, ns, [0.0 if i in free else V for i, V in enumerate(Vs)])
        rs = rs and [free.get(i, r) for i, r in enumerate(rs)]
    else:
        rs = radii(bits, ns, Vs)
    if rs is None:
        return None
    out, prod = arb(2) ** (-bits), arb(1)
    for r, n in zip(rs, ns):
        prod *= r ** n
    return (rs, out) if prod <= out else None


def l1_bound(law: tuple) -> arb:
    """An upper bound of sum_p |x_p| for every law x in the balls of ``law`` (``float_law``):
    the floats' absolute sum bounded by float_dft.l1_upper, plus dx, exact as a ball."""
    from verifier.numerics import float_dft as FD
    return arb((FD.l1_upper(law[1]) + law[2]) * (1 + 2.0 ** -40))


def stride(N: int, V: float, r: float) -> int:
    """The largest power of 2 c dividing N/2 with (pi c / N)^2 V / 2 <= (1 - r) / 4 and at
    least 16 coarse points (a float choice: any c gives a valid certificate)."""
    c = 1
    while ((N // 2) % (2 * c) == 0 and N // (2 * c) >= 16
           and (math.pi * 2 * c / N) ** 2 * V / 2 <= (1 - r) / 4):
        c *= 2
    return c


def float_law(pts: list) -> tuple:
    """(points, masses, dx): the law ``pts`` [(point, ball)] as an int64 array of points, a
    float64 array of masses (each ball's midpoint, rounded) and a float dx at least
    sum_p |x_p - mass_p| for every law x in the balls: the radius of the balls' Arb sum (at
    least the sum of their radii) plus 2^-51 of the masses' sum (each midpoint within 2^-52
    of its float relatively, 2^-1074 absolutely)."""
    ps = np.fromiter((p for p, _ in pts), dtype=np.int64, count=len(pts))
    xs = np.fromiter((float(v) for _, v in pts), dtype=np.float64, count=len(pts))
    tot = sum((v for _, v in pts), arb(0))
    n = len(pts)
    dx = (float(tot.rad()) * (1 + 2.0 ** -50) + float(np.abs(xs).sum()) * 2.0 ** -51
          * (1 + (n + 4) * 2.0 ** -51) + n * 2.0 ** -1070) * (1 + 2.0 ** -40)
    return ps, xs, dx


def moments(law: tuple) -> tuple:
    """(j0, V): the rounded mean of the float law ``law`` (``float_law``; a free choice) and
    an upper bound of its second moment about j0 for every law in its balls (x_p >= 0):
    sum (p - j0)^2 |mass_p| in floats (squares of integers below 2^26 exact; products and
    sum within (n + 1) u relatively), plus D^2 dx (D the farthest point from j0)."""
    ps, xs, dx = law
    tot = float(xs.sum())
    j0 = round(float((ps * xs).sum()) / max(tot, 1e-300)) if len(ps) else 0
    d = (ps - j0).astype(np.float64)
    D = float(np.abs(d).max()) if len(ps) else 0.0
    n = len(ps)
    V = float((d * d * np.abs(xs)).sum()) * (1 + (n + 4) * 2.0 ** -51) + D * D * dx
    return j0, arb(V * (1 + 2.0 ** -40))


def edge(pts: list, N: int, r: arb, c: int | None = None, law: tuple | None = None) -> int:
    """K <= N/2 with |X[k]| <= r certified for every k in (K, N/2] (the module docstring's
    second-order certificate), for the law ``pts`` [(point, ball)] on a window of N (c:
    the coarse stride, else ``stride``'s; law: ``float_law(pts)`` if known).  The coarse
    DFT: L points (the power of 2 at least N / c; h = pi / L), in floats with a certified
    error bound (numerics.float_dft: its butterflies' rounding, the masses' radii and
    roundings, the fold's sums).  With phi +- i h phi1 = ((1 +- h) a + (1 -+ h) b) / 2
    (a = Z[m], b = conj Z[-m]), each bound is at most (1 + h)(|a| + |b|) / 2: tried first,
    the exact form where that fails."""
    from verifier.numerics import float_dft as FD
    ps, xs, dx = law = law or float_law(pts)
    j0, V = moments(law)
    c = c or stride(N, float(V.upper()), float(r.mid()))
    L = 1 << max(4, (-(-N // c) - 1).bit_length())
    d = ps - j0
    D = float(np.abs(d).max())
    idx = d % L
    y = (np.bincount(idx, weights=xs, minlength=L)
         + 1j * np.bincount(idx, weights=d.astype(np.float64) * xs, minlength=L))
    n = len(ps)        # the input's error: the masses' (dx), products and fold sums (n u)
    x1 = float(np.abs(xs).sum()) * (1 + (n + 4) * 2.0 ** -51)
    err = (((1 + D) * dx + (n + 4) * 2.0 ** -51 * (1 + D) * x1) * (1 + 2.0 ** -40)
           + FD.error_bound(L, FD.l1_upper(y)))
    Z = FD.fft(y)
    ups = FD.abs_upper(Z) + err
    hf = math.pi / L * (1 + 2.0 ** -50)      # at least pi / L (math.pi within 2^-53)
    h = arb(hf)
    rest = curvature(h, V)
    m = np.arange(L // 2 + 1)
    mirror = (L - m) % L
    cand = m[ups[m] + ups[mirror] > quick_cap(r, rest, h)]
    bad = 0
    if len(cand):
        cap1 = float((r - rest).lower()) * (1 - 2.0 ** -40)
        a, b = Z[cand], np.conj(Z[mirror[cand]])
        v = np.maximum(FD.abs_upper(((1 + hf) * a + (1 - hf) * b) / 2),
                       FD.abs_upper(((1 - hf) * a + (1 + hf) * b) / 2))
        slack = 2.0 ** -45 * (FD.abs_upper(a) + FD.abs_upper(b) + 1)
        failed = cand[~(v + err + slack <= cap1)]
        bad = int(failed.max()) + 1 if len(failed) else 0
    if bad == 0:
        return 0
    return min(N // 2, (2 * bad - 1) * N // (2 * L))


def quick_cap(r: arb, rest: arb, h: arb) -> float:
    """A float c with u_a + u_b <= c (in floats, u the floats of |a|, |b|'s upper ends)
    certifying (|a| + |b|)(1 + h) / 2 + rest <= r: the lower end of (r - rest) / ((1 + h)/2)
    less a relative 2^-40 (more than every rounding of the floats and their sum: each at
    most a relative 2^-52, or 2^-1074 absolutely, far below the cap); -1 where that is
    not positive or below 1e-250 (every m then takes the exact form)."""
    lo = float(((r - rest) * 2 / (1 + h)).lower())
    return lo * (1 - 2.0 ** -40) if lo > 1e-250 else -1.0


def curvature(h: arb, V: arb) -> arb:
    """h^2 V / 2: how far |phi(t)| may exceed its first-order Taylor polynomial at t_m for
    |t - t_m| <= h (|e^{-ia} - 1 + ia| <= a^2 / 2, V the law's second moment about j0)."""
    return h * h * V / 2


def compose(phases: list, N: int, prec: int, hold=None, level: float | None = None):
    """The kept spectra of the sums over ``phases`` [(subs, n)] (subs: one or two laws,
    index -> ball; shifted to the phase's least index, as the full path):
    ([{k: Y_j[k]} for each variable j], out) with every left-out |Y_j[k]| <= out, or None
    where the coarse DFTs would be long (a stride below MIN_STRIDE) or the direct values
    would cost more than the full DFTs.  ``hold(points)``: announces (or refuses) the
    longest coarse DFT before it is formed (numerics.memory.reserve); ``level``: the
    left-out level the caller's budget allows (``out_bits``)."""
    nvar = len(phases[0][0])
    shifted = []                   # each phase's laws from the phase's least index
    for subs, _ in phases:
        kmin = min(min(sub) for sub in subs)
        shifted.append([[(k - kmin, v) for k, v in sub.items()] for sub in subs])
    fls = [[float_law(law) for law in pts] for pts in shifted]
    moms = [[moments(fl) for fl in laws] for laws in fls]
    ns, bits = [n for _, n in phases], out_bits(prec, level)
    got = _edges(shifted, fls, moms, ns, N, bits, hold, set())
    if got is not None and _costly(got[0], shifted, N):
        # a phase whose own transform stays high far out (a law near a sublattice: a
        # random-allocation epoch regridded onto a finer lattice) sets the edge alone; such
        # phases go free (radius: their mass), the others carry the decay (a mixed run of
        # five phases: N 20480, K 9215 -> 45)
        wide = [i for i, Ki in enumerate(got[1]) if max(Ki) > N // KEPT_SHARE]
        if wide and len(wide) < len(phases):
            got = _edges(shifted, fls, moms, ns, N, bits, hold, set(wide))
    if got is None or _costly(got[0], shifted, N):
        return None
    Ks, _, out = got
    Ys = [None] * nvar
    for pts, (_, n) in zip(shifted, phases):     # one matrix product for the phase's laws
        sums = direct_sums(pts, N, max(Ks))
        for j in range(nvar):
            X = [sums[j][k] ** n for k in range(Ks[j] + 1)]
            Ys[j] = X if Ys[j] is None else [a * b for a, b in zip(Ys[j], X)]
    tight = arb(2) ** -(prec // 2)
    if not all(y.real.rad() <= tight and y.imag.rad() <= tight for Y in Ys for y in Y):
        return None                # the direct sums' radii grew (a free parameter: the full path)
    return [dict(enumerate(Y)) for Y in Ys], out


def _costly(Ks: list, shifted: list, N: int) -> bool:
    """Whether the direct sums up to the edges Ks cost more than the full path's DFTs."""
    nvar = len(Ks)
    cost = sum(len(pts[j]) * (Ks[j] + 1) for pts in shifted for j in range(nvar))
    return cost > COST * N * math.log2(N) * nvar * len(shifted) or max(Ks) > N // KEPT_SHARE


def _edges(shifted: list, fls: list, moms: list, ns: list, N: int, bits: int, hold,
           free: set):
    """(Ks, K_ij, out): each variable's edge (the largest of its phases'), every phase's own
    edges and the certified level out past them, the phases in ``free`` bounded by their
    mass at every k (``checked_radii``); None where the radii are not certified or a coarse
    DFT would be long."""
    nvar = len(shifted[0])
    rs = []                        # rs[j][i]: phase i's radius for variable j
    for j in range(nvar):
        got = checked_radii(bits, ns, [float(mo[j][1].upper()) for mo in moms],
                            {i: l1_bound(fls[i][j]) for i in free})
        if got is None:            # cannot happen with the radii's margin: the full path
            return None
        rs.append(got[0])
    out = got[1]
    cs = {i: [stride(N, float(mo[j][1].upper()), float(rs[j][i].mid())) for j in range(nvar)]
          for i, mo in enumerate(moms) if i not in free}
    if min(min(c) for c in cs.values()) < MIN_STRIDE:
        return None
    if hold is not None:
        hold(N // min(min(c) for c in cs.values()))
    Kij = [[0] * nvar if i in free else
           [edge(shifted[i][j], N, rs[j][i], cs[i][j], fls[i][j]) for j in range(nvar)]
           for i in range(len(shifted))]
    return [max(K[j] for K in Kij) for j in range(nvar)], Kij, out


class SpectralLaw:
    """The window [start, start + N) of a composed law given by its kept spectrum (module
    docstring): prefix and suffix sums of law[j] rho^j at any i in O(K)."""

    def __init__(self, N: int, Y: dict, out: arb, r0: int, prec: int):
        self.N, self.out, self.prec = N, out, prec
        self.K = max(Y)
        with ctx.workprec(prec):
            self.a = {k: y * root(r0 * k, N) / N for k, y in Y.items()}
        self._coef, self._floats = {}, None

    def __len__(self):             # the window's points (as the list of masses)
        return self.N

    def _coefs(self, rho: arb | None):
        """(B_0, Poly of B_k for 0 < k < N/2, B_{N/2} or 0, Sigma) for rho (None: 1)."""
        key = None if rho is None else (rho.mid(), rho.rad())
        if key not in self._coef:
            N, a = self.N, self.a
            one = acb(1) if rho is None else acb(rho)
            B = {k: v / (1 - one * root(k, N)) for k, v in a.items()
                 if k > 0 or rho is not None}
            inner = [B.get(k, acb(0)) if 0 < k < N - k else acb(0)
                     for k in range(min(self.K, (N - 1) // 2) + 1)]
            Bn = B.get(N // 2, acb(0)) if N % 2 == 0 else acb(0)
            B0 = B.get(0, acb(0))
            sigma = (2 * sum(inner, acb(0))).real + Bn.real + B0.real
            self._coef[key] = (B0, Poly(inner, N), Bn, sigma)
        return self._coef[key]

    def _omega(self, i: int, rho: arb | None):
        B0, P, Bn, _ = self._coefs(rho)
        return (2 * P.at_root(i)).real + (Bn.real if i % 2 == 0 else -Bn.real) + B0.real

    def prefix(self, i: int, rho: arb | None = None) -> arb:
        """sum_{j < i} law[j] rho^j (rho None: 1), 0 <= i <= N."""
        with ctx.workprec(self.prec):
            sigma = self._coefs(rho)[3]
            if rho is None:
                v = self.a[0].real * i + sigma - self._omega(i, rho)
                g = arb(i)
            else:
                v = sigma - rho ** i * self._omega(i, rho)
                g = (rho ** i - 1) / (rho - 1)
            return v + self.left_out(g)

    def suffix(self, i: int, rho: arb | None = None) -> arb:
        """sum_{i <= j < N} law[j] rho^j (rho None: 1), 0 <= i <= N."""
        with ctx.workprec(self.prec):
            N = self.N
            sigma = self._coefs(rho)[3]
            if rho is None:
                v = self.a[0].real * (N - i) + self._omega(i, rho) - sigma
                h = arb(N - i)
            else:
                v = rho ** i * self._omega(i, rho) - rho ** N * sigma
                h = (rho ** i - rho ** N) / (1 - rho)
            return v + self.left_out(h)

    def float_sums(self) -> tuple | None:
        """(prefix, suffix, err): float arrays of the window's sums sum_{j < i} law[j] and
        sum_{j >= i} law[j], i = 0 .. N, from one inverse FFT of the kept spectrum (numpy),
        and a float scale of their rounding error (u times the FFT's and the running sums'
        terms, with a margin); for choices only (numerics.compose's threshold scans), never
        a bound.  None where N > FLOAT_SUMS_N (the ball sums where read cost less there)."""
        if self._floats is None:
            N = self.N
            if N > FLOAT_SUMS_N:
                return None
            X = np.zeros(N, dtype=np.complex128)
            for k, v in self.a.items():
                X[k] = N * complex(float(v.real.mid()), float(v.imag.mid()))
                if 0 < k < N - k:
                    X[N - k] = X[k].conjugate()
            law = np.fft.ifft(X).real
            pre = np.concatenate(([0.0], np.cumsum(law)))
            suf = np.concatenate((np.cumsum(law[::-1])[::-1], [0.0]))
            err = 1e-15 * N * (2 * math.log2(N) * float(np.abs(X).sum()) / N + 1)
            self._floats = (pre, suf, err)
        return self._floats

    def left_out(self, weight: arb) -> arb:
        """0 +- out x weight: what the left-out coefficients (at most N, each |Y[k]| <= out,
        times the inverse DFT's 1/N) add to a sum whose weights rho^j total ``weight``."""
        return arb(0, (self.out * abs(weight)).upper())
