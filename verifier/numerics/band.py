"""Block sums of a lattice law read off its sparse spectrum (docs/THEORY.md section 9,
"Band-limited body laws"; the verifier's construction).

The law of a sum of n i.i.d. lattice items on a DFT window of N points is y = IDFT_N(X^n).
For large n almost every coefficient of X^n is below 2^-(prec + 10) (``lattice.powers``
certifies it); where only a band of |S| << N coefficients remains, every aggregate the engine
reads from y -- the sums S_b = sum_{r < G} y[b G + r] and the moments R_b = sum_{r < G} r
y[b G + r] over blocks of G | N points -- is an inverse DFT of length L = N / G:

    S_b = (1 / G) IDFT_L(W)[b],   W[k'] = sum_{k = k' mod L} Y[k] D_G(k),   D_G(k) = sum_{r < G} w^{r k}
    R_b = (1 / G) IDFT_L(V)[b],   V[k'] = sum_{k = k' mod L} Y[k] E_G(k),   E_G(k) = sum_{r < G} r w^{r k}

(w = e^{2 pi i / N}, IDFT normalized by 1/L as Arb's).  Both are exact identities of the
inverse DFT; the coefficients left out (|Y[k]| <= ``out`` each, at most N of them) move each
S_b by at most out G and each R_b by at most out G (G - 1) / 2 (|D_G| <= G, |E_G| <= G (G - 1) / 2),
added to the balls' radii.  Cost: |S| kernel values and one DFT of L points per block size,
where the full inverse DFT costs N log N in ball arithmetic.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from flint import acb, arb, ctx

from verifier.core.arith import InputError
from verifier.numerics.lattice import MAX_N

KERNEL_BITS = 64    # extra working bits for D_G, E_G near k = 0: (1 - z)^2 ~ (2 pi k / N)^2


def full_length(n: int, what: str):
    """Refuse (InputError: the caller plans a coarser lattice) a transform or sum list of n
    points past lattice.MAX_N: a band law's window may be longer (plan.BAND_MAX_N), since
    only its blocks and coarse transforms are formed."""
    if n > MAX_N:
        raise InputError(f"{what} would need {n} points (more than {MAX_N})")


@dataclass(frozen=True)
class Spectrum:
    """The DFT Y[k], k = 0 .. N/2, of a real sequence of N points, kept on the indices ``vals``
    (k -> ball); every other |Y[k]| (and its mirror N - k) is at most ``out``."""
    N: int
    vals: dict
    out: arb


@dataclass(frozen=True)
class SparseDFT:
    """X[k] of a real law on N points for the k in ``vals`` (0 .. K), every other k <= N/2
    certified |X[k]| <= r (``sparse_spectra``)."""
    N: int
    vals: dict
    r: arb

    def __getitem__(self, k: int):
        return self.vals[k]


def band_power(X, n: int, prec: int) -> Spectrum:
    """X^n kept where |X[k]| > r, r^n <= 2^-(prec + 10) checked in Arb (as ``lattice.powers``):
    the left-out |X[k]^n| <= r^n <= 2^-(prec + 10) (the balls contain the true X[k]).  X is
    the list for k = 0 .. N/2 (r: ``_radius``), or a SparseDFT, whose own certified r is
    checked."""
    eps = arb(2) ** (-(prec + 10))
    if isinstance(X, SparseDFT):
        N, zs, r = X.N, X.vals, X.r
    else:
        N, zs, r = 2 * (len(X) - 1), dict(enumerate(X)), _radius(prec, n)
    if not certified_small(r, n, eps):   # cannot happen with the margin: keep every index
        if isinstance(X, SparseDFT):
            raise ValueError("a sparse spectrum's radius r^n is not certified below "
                             "2^-(prec + 10): take the full DFT")
        return Spectrum(N, {k: z ** n for k, z in zs.items()}, arb(0))
    vals = {k: z ** n for k, z in zs.items() if not z.abs_upper() <= r}
    return Spectrum(N, vals, eps)


def _radius(prec: int, n: int) -> arb:
    """A float choice of r with r^n just below 2^-(prec + 10)."""
    return arb(math.exp(-(prec + 10) * math.log(2) / n) * (1 - 1e-9))


def certified_small(r: arb, n: int, eps: arb) -> bool:
    """Whether r^n <= eps holds (in Arb): the certificate for every left-out coefficient."""
    return bool(r ** n <= eps)


def times(A: Spectrum, X: list, total: arb) -> Spectrum:
    """A times the spectrum X (k = 0 .. N/2) of a sub-probability lattice law (the law of the
    sum with one more independent item) on A's indices: every |X[k]| is at most the law's
    total mass, ``total`` an enclosure of the sum of its (true, nonnegative) masses, so a
    left-out index of the product is at most A.out total."""
    return Spectrum(A.N, {k: v * X[k] for k, v in A.vals.items()}, arb((A.out * total).upper()))


@functools.lru_cache(maxsize=1 << 15)
def _kernels(N: int, G: int, k: int, moments: bool, prec: int):
    """(D_G(k), E_G(k)) for 0 <= k <= N/2 at ``prec`` bits (E_G None unless ``moments``);
    cached: the laws of one epoch share their kept indices and block sizes."""
    if k == 0:
        return acb(G), (acb(G * (G - 1) // 2) if moments else None)
    with ctx.workprec(prec + KERNEL_BITS):
        z, zG = root(k, N), root(k * G, N)
        d = (zG - 1) / (z - 1)
        e = (z - G * zG + (G - 1) * zG * z) / (1 - z) ** 2 if moments else None
    with ctx.workprec(prec):                       # rounded to the working precision
        return +d, (+e if moments else None)


def block_sums(Y: Spectrum, G: int, moments: bool = False):
    """([S_b], [R_b] or None), b = 0 .. N/G - 1: the sums (and first moments r) of the inverse
    DFT of ``Y`` over the blocks [b G, b G + G) of its N points (G must divide N)."""
    N = Y.N
    if N % G:
        raise ValueError(f"block size {G} does not divide the window {N}")
    L = N // G
    full_length(L, "a band law's block sums")
    W = [acb(0)] * L
    V = [acb(0)] * L if moments else None
    for k, y in Y.vals.items():
        d, e = _kernels(N, G, k, moments, ctx.prec)
        fold(W, k, N, y * d)
        if moments:
            fold(V, k, N, y * e)
    rS, rR = left_out_charge(Y.out, G)
    S = [z.real / G + rS for z in acb.dft(W, inverse=True)]
    if not moments:
        return S, None
    return S, [z.real / G + rR for z in acb.dft(V, inverse=True)]


def fold(W: list, k: int, N: int, a: acb):
    """Add the coefficient k (0 <= k <= N/2) of a real sequence's spectrum times its kernel,
    ``a``, to W[k mod L], and its mirror N - k (conj a: both the spectrum and the kernels are
    Hermitian) to W[(N - k) mod L]; k = 0 and k = N/2 are their own mirrors."""
    L = len(W)
    W[k % L] += a
    if 0 < k < N - k:
        W[(N - k) % L] += a.conjugate()


def left_out_charge(out: arb, G: int) -> tuple:
    """(radius of each S_b, of each R_b) for the left-out coefficients (at most N of them,
    each |Y[k]| <= out, and |D_G| <= G, |E_G| <= G (G - 1) / 2; the IDFT's 1/N)."""
    return arb(0, (out * G).upper()), arb(0, (out * G * (G - 1) / 2).upper())


def values(Y: Spectrum) -> list:
    """Every point of the inverse DFT (the full-length fallback: N log N), each ball widened
    by ``out`` (the left-out coefficients move a point by at most out)."""
    N = Y.N
    full_length(N, "a band law's points")
    Z = [acb(0)] * N
    for k, y in Y.vals.items():
        fold(Z, k, N, y)
    r = arb(0, Y.out.upper())
    return [z.real + r for z in acb.dft(Z, inverse=True)]


SPARSE_BLOCK = 32        # the direct sums' baby steps: z^b for b < this multiplied up
CHUNK_BALLS = 1 << 18    # the sparse sums' matrices in blocks of points of at most this many balls
WRAP_BITS = 16           # a chain of ball products by a root restarts from an exact root
                         # before its radius may have grown 2^WRAP_BITS times (``chain``)
BLOCKED_FILL = 4         # direct sums by blocks where the span is at most this x the points
DENSE_GAP = 2            # ... over the points' longest run with gaps at most this
SPARSE_COST = 0.5        # the direct sums are used while points x (K + 1) <= this x N log2 N


def sparse_spectra(pts: list, others: list, N: int, n: int, prec: int):
    """(X, [X_o]): the DFTs X[k] = sum_p x_p e^{-2 pi i p k / N} of the real lattice laws
    ``pts`` and ``others`` (lists of (point, ball)) for k = 0 .. K: X a SparseDFT, every k in
    (K, N/2] certified |X[k]| <= r = _radius(prec, n) (band_power checks r^n), the others
    dicts k -> ball: the verifier's construction (docs/THEORY.md section 9, "Sparse spectra
    of the item laws").  None where the direct sums would cost more than the full DFT (the
    caller falls back to it).

    Certificate: with L = sum_p |p - j0| x_p (x_p >= 0), |X(t) - e^{i(t - t') j0} X(t')| <=
    |t - t'| L, so at k within c/2 of a multiple c m, |X[k]| <= |X[c m]| + pi c L / N; the
    X[c m] are one DFT of N/c points (x folded mod N/c); K covers every m where that bound
    is not certified <= r.  The values at k <= K: direct sums over the points (direct_sums:
    one ball matrix product)."""
    r = _radius(prec, n)
    K = band_edge(pts, N, r)
    if len(pts) * (K + 1) > SPARSE_COST * N * math.log2(N):
        return None
    X, *rest = direct_sums([pts] + list(others), N, K)
    return (SparseDFT(N, X, r), *rest)


def band_edge(pts: list, N: int, r: arb, stride: int | None = None) -> int:
    """K <= N/2 with |X[k]| <= r certified for every k in (K, N/2] (sparse_spectra's
    certificate; ``stride``: the coarse stride c, else _coarse_stride's)."""
    tot = sum((v for _, v in pts), arb(0))
    j0 = round(sum(p * float(v) for p, v in pts) / max(float(tot.mid()), 1e-300))
    L = arb(sum((abs(p - j0) * arb(v.upper()) for p, v in pts), arb(0)).upper())
    c = stride or _coarse_stride(N, float(L.mid()), float(r.mid()))
    Lc = N // c
    full_length(Lc, "a band edge's coarse DFT")
    y = [acb(0)] * Lc
    for p, v in pts:
        y[p % Lc] += v
    Y = acb.dft(y)
    slack = lipschitz_slack(c, L, N)
    bad = [m for m in range(N // (2 * c) + 1) if not Y[m].abs_upper() + slack <= r]
    return min(N // 2, max((c * m + c // 2 for m in bad), default=0))


def lipschitz_slack(c: int, L: arb, N: int) -> arb:
    """pi c L / N: how much |X[k]| may exceed |X[c m]| for |k - c m| <= c/2 (|X'| <= L in
    t = 2 pi k / N)."""
    return arb.pi() * c * L / N


def _coarse_stride(N: int, L: float, rf: float) -> int:
    """The largest power of 2 c dividing N/2 with pi c L / N <= (1 - r) / 4 (a float choice:
    any c gives a valid certificate; a smaller one a longer coarse DFT, a larger one a wider
    band of direct sums)."""
    c = 1
    while (N // 2) % (2 * c) == 0 and math.pi * 2 * c * L / N <= (1 - rf) / 4:
        c *= 2
    return c


def direct_sums(seqs: list, N: int, K: int) -> list:
    """[{k: sum_p x_p e^{-2 pi i p k / N}}] for k = 0 .. K, each sequence a list of
    (p, ball): the points' longest run with gaps of at most DENSE_GAP by ``blocked_sums``
    where it holds at least half the points, the others (a law's sparse tails, where its
    lattice points double their steps) by ``sparse_sums``, the two sums added; else all
    points by ``blocked_sums`` where they fill their span (BLOCKED_FILL), by
    ``sparse_sums`` where not."""
    pts = sorted({p for seq in seqs for p, _ in seq})
    lo, hi = dense_run(pts)
    if 2 * sum(1 for p in pts if lo <= p <= hi) < len(pts):
        if pts[-1] - pts[0] + 1 <= BLOCKED_FILL * len(pts):
            return blocked_sums(seqs, N, K, pts[0], pts[-1])
        return sparse_sums(seqs, N, K)
    inside = [[(p, v) for p, v in seq if lo <= p <= hi] for seq in seqs]
    outside = [[(p, v) for p, v in seq if not lo <= p <= hi] for seq in seqs]
    out = blocked_sums(inside, N, K, lo, hi)
    if any(outside):
        for mine, more in zip(out, sparse_sums(outside, N, K)):
            for k in mine:
                mine[k] += more[k]
    return out


def dense_run(pts: list) -> tuple:
    """(lo, hi): the sorted points' longest stretch (by count) whose gaps are at most
    DENSE_GAP (a free choice: any split of the points gives the same sums)."""
    best, start = (pts[0], pts[0], 1), 0
    for i in range(1, len(pts) + 1):
        if i == len(pts) or pts[i] - pts[i - 1] > DENSE_GAP:
            if i - start > best[2]:
                best = (pts[start], pts[i - 1], i - start)
            start = i
    return best[0], best[1]


def sparse_sums(seqs: list, N: int, K: int) -> list:
    """``direct_sums`` by baby and giant steps over any points: with k = a B + b
    (b < B = SPARSE_BLOCK), X[a B + b] = sum_p z_p^b (x_p z_p^{a B}) (z_p =
    e^{-2 pi i p / N}), ball matrix products of the B x P matrix z_p^b and the
    P x (A S) matrix x_p z_p^{a B} (both powers multiplied up from z_p, the giant steps
    restarted from exact roots: ``chain``), summed over blocks of points of at most
    CHUNK_BALLS entries (one product of the whole matrices held 3.2 GB at 356029 points a
    step, above the memory the composition had announced)."""
    from flint import acb_mat
    pts = sorted({p for seq in seqs for p, _ in seq})
    S, B = len(seqs), SPARSE_BLOCK
    A = K // B + 1
    at = {p: i for i, p in enumerate(pts)}
    cols = [[arb(0)] * len(pts) for _ in seqs]
    for col, seq in zip(cols, seqs):
        for p, v in seq:
            col[at[p]] += v
    total, size, R = None, max(1, CHUNK_BALLS // (B + A * S)), chain(None, N)
    for c0 in range(0, len(pts), size):
        chunk = range(c0, min(len(pts), c0 + size))
        z = [root(pts[i], N).conjugate() for i in chunk]
        rows = [[acb(1)] * len(z)]
        for _ in range(1, B):
            rows.append([w * u for w, u in zip(rows[-1], z)])
        zB = [w * u for w, u in zip(rows[-1], z)]      # z_p^B
        U = []
        for i, zb in zip(chunk, zB):
            g, power = [], acb(1)
            for a in range(A):                            # z_p^{a B}, multiplied up
                g.append(power)                           # (from an exact root every R)
                power = power * zb if (a + 1) % R else root(-pts[i] * (a + 1) * B, N)
            U.append([e * col[i] for e in g for col in cols])
        part = acb_mat(rows) * acb_mat(U)
        total = part if total is None else total + part
    out = [dict() for _ in seqs]
    for a in range(A):
        for b in range(B):
            k = a * B + b
            if k <= K:
                for s_ in range(S):
                    out[s_][k] = acb(0) if total is None else total[b, a * S + s_]
    return out


def blocked_sums(seqs: list, N: int, K: int, lo: int, hi: int) -> list:
    """direct_sums for points filling most of [lo, hi]: with p = lo + u G + v (v < G about
    the square root of the span), X[k] = sum_u w^{(lo + u G) k} C[u, k],
    C[u, k] = sum_v x_{lo + u G + v} w^{v k} (w = e^{-2 pi i / N}): one ball matrix product
    of the laws' masses laid out in blocks of G and the G x (K + 1) powers w^{v k}
    (multiplied up from the exact roots w^k, m reduced mod N), then Horner's rule in
    w^{G k} over the U blocks per k and law; both chains restarted from exact roots
    (``chain``).  O((U + G) K) Python ball operations where direct_sums' baby and giant
    steps take O(P (B + A))."""
    from flint import acb_mat
    span = hi - lo + 1
    G = max(1, math.isqrt(span))
    U = -(-span // G)
    S = len(seqs)
    X = [[acb(0)] * G for _ in range(S * U)]
    for s_, seq in enumerate(seqs):
        for p, v in seq:
            u, v_ = divmod(p - lo, G)
            X[s_ * U + u][v_] += v
    V = [[acb(1)] * (K + 1)]
    w = [root(-k, N) for k in range(K + 1)]
    R = chain(K, N)
    for v in range(1, G):             # w^{v k}, multiplied up in v (from exact roots every R)
        V.append([a * b for a, b in zip(V[-1], w)] if v % R else
                 [root(-v * k, N) for k in range(K + 1)])
    C = acb_mat(X) * acb_mat(V)
    out = [dict() for _ in seqs]
    for k in range(K + 1):
        t, R = root(-G * k, N), chain(G * k, N, exact=True)
        firsts = [root(-(lo + G * u0) * k, N) for u0 in range(0, U, R)]
        for s_ in range(S):           # Horner in t = w^{G k}, in chunks of R blocks
            total = acb(0)
            for first, u0 in zip(firsts, range(0, U, R)):
                acc = acb(0)
                for u in range(min(U, u0 + R) - 1, u0 - 1, -1):
                    acc = acc * t + C[s_ * U + u, k]
                total += first * acc
            out[s_][k] = total
    return out


def chain(m: int | None, N: int, exact: bool = False) -> int:
    """How many ball products by e^{2 pi i m' / N} a chain may take before its radius may
    have grown 2^WRAP_BITS times (a free parameter: every chain is certified, a longer one
    only wider): a product by z multiplies a rectangular ball's radius by up to |Re z| +
    |Im z| <= 1 + d (d: z's angle to the nearest axis), and at most sqrt 2; m: for every
    |m'| <= m when not ``exact``, for m' = m when ``exact``, any root when None.  Horner's rule
    over a window's blocks (angles up to 2 pi span k / N) had lost every digit: span 4e5,
    N 2^20, K 50, radii [+- 1.7e5] (docs/THEORY.md section 16)."""
    if m is None:
        d = math.pi / 4
    elif exact:
        a = 2 * math.pi * (m % N) / N
        d = min(a % (math.pi / 2), math.pi / 2 - a % (math.pi / 2))
    else:
        d = min(2 * math.pi * abs(m) / N, math.pi / 4)
    f = min(1 + d, math.sqrt(2))
    return max(1, min(1 << 30, int(WRAP_BITS * math.log(2) / math.log(f)) if d > 0 else 1 << 30))


def root(m: int, N: int) -> acb:
    """e^{2 pi i m / N} (m reduced exactly mod N)."""
    return acb(arb(2 * (m % N)) / N).exp_pi_i()
