"""Direct sums X[k] = sum_p x_p e^{-2 pi i p k / N} of lattice laws at the few k <= K a
sparse spectrum keeps (docs/THEORY.md sections 9 and 16; the verifier's construction):
blocked sums over runs of points a constant stride apart (one ball matrix product and
Horner's rule over the blocks), baby and giant steps over the scattered rest, every chain of
ball products by roots restarted from exact roots (``chain``)."""
from __future__ import annotations

import bisect
import math

from flint import acb, acb_mat, arb, ctx

from verifier.numerics.cache import EngineCache

SPARSE_BLOCK = 32        # the sparse sums' baby steps: z^b for b < B multiplied up, B at most
                         # this (``baby_steps``)
CHUNK_BALLS = 1 << 18    # the sparse sums' matrices in blocks of points of at most this many balls
WRAP_BITS = 16           # a chain of ball products by a root restarts from an exact root
                         # before its radius may have grown 2^WRAP_BITS times (``chain``)
BLOCKED_FILL = 4         # direct sums by blocks where the span is at most this x the points
DENSE_GAP = 2            # ... over the points' longest run with gaps at most this
STRIDED_MIN = 128        # ... and with a stride over the tails' runs of this many points

_POWERS = EngineCache(24)  # block_powers' roots by (N, K, lo, stride, G, U, precision): a
POWERS_KEPT = 1 << 15      # run's phases take their pair laws, then their test laws; only
                           # matrices of at most this many powers are kept (24 of them at
                           # most about 80 MB; a digits request's K 2100 x G 1265 would be
                           # 260 MB each)


def direct_sums(seqs: list, N: int, K: int) -> list:
    """[{k: sum_p x_p e^{-2 pi i p k / N}}] for k = 0 .. K, each sequence a list of
    (p, ball): the points' longest run with gaps of at most DENSE_GAP by ``blocked_sums``
    where it holds at least half the points, the others (a law's tails, where its lattice
    points double their steps) by ``blocked_sums`` with a stride over each run of at least
    STRIDED_MIN points a constant gap apart (``gap_runs``) and by ``sparse_sums`` over the
    rest, the sums added; else all points by ``blocked_sums`` where they fill their span
    (BLOCKED_FILL), by ``sparse_sums`` where not."""
    pts = sorted({p for seq in seqs for p, _ in seq})
    lo, hi = dense_run(pts)
    if 2 * sum(1 for p in pts if lo <= p <= hi) < len(pts):
        if pts[-1] - pts[0] + 1 <= BLOCKED_FILL * len(pts):
            return blocked_sums(seqs, N, K, pts[0], pts[-1])
        return sparse_sums(seqs, N, K)
    parts = (gap_runs([p for p in pts if p < lo]) + [(lo, hi, 1)] +
             gap_runs([p for p in pts if p > hi]))          # in increasing order
    firsts = [a for a, _, _ in parts]
    split = [[[] for _ in seqs] for _ in range(len(parts) + 1)]     # the last: the rest
    for s_, seq in enumerate(seqs):
        for p, v in seq:
            i = bisect.bisect_right(firsts, p) - 1
            split[i if i >= 0 and p <= parts[i][1] else -1][s_].append((p, v))
    out = None
    for (a, b, g), mine in zip(parts, split):
        got = blocked_sums(mine, N, K, a, b, g)
        out = got if out is None else [_added(x, y) for x, y in zip(out, got)]
    if any(split[-1]):
        out = [_added(x, y) for x, y in zip(out, sparse_sums(split[-1], N, K))]
    return out


def _added(x: dict, y: dict) -> dict:
    for k in x:
        x[k] += y[k]
    return x


def gap_runs(pts: list) -> list:
    """[(lo, hi, g)]: the sorted points' maximal runs of at least STRIDED_MIN points g apart
    (a free choice: the sums are the same however the points are split; sigma 0.7, q 1e-4,
    T 1e5 at --rel-width 1e-6: about 18% of a step's points lie outside the dense run, and
    their baby and giant steps took 5.2 of 12.8 s)."""
    out, i = [], 0
    while i + 1 < len(pts):
        g, j = pts[i + 1] - pts[i], i + 1
        while j + 1 < len(pts) and pts[j + 1] - pts[j] == g:
            j += 1
        if j - i + 1 >= STRIDED_MIN:
            out.append((pts[i], pts[j], g))
            i = j + 1
        else:
            i += 1
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
    (b < B = ``baby_steps``), X[a B + b] = sum_p z_p^b (x_p z_p^{a B}) (z_p =
    e^{-2 pi i p / N}), ball matrix products of the B x P matrix z_p^b and the
    P x (A S) matrix x_p z_p^{a B} (both powers multiplied up from z_p, the giant steps
    restarted from exact roots: ``chain``), summed over blocks of points of at most
    CHUNK_BALLS entries (one product of the whole matrices held 3.2 GB at 356029 points a
    step, above the memory the composition had announced)."""
    pts = sorted({p for seq in seqs for p, _ in seq})
    S = len(seqs)
    B = baby_steps(K, S)
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


def baby_steps(K: int, S: int) -> int:
    """B for the sparse sums of S laws at K + 1 indices (a free choice: the sums are the same
    for every B): per point B - 1 baby products, A = K // B + 1 giant ones and A S products
    by the masses, least near B = sqrt((K + 1)(1 + S)); at most SPARSE_BLOCK (ten phases
    of 1e4 steps, K 35: B 32 took 38 ball products a point, B 10 takes 22)."""
    return max(1, min(SPARSE_BLOCK, round(math.sqrt((K + 1) * (1 + S)))))


def block_length(span: int, S: int) -> int:
    """G for the blocked sums of S laws over ``span`` points (a free choice): the powers
    w^{g v k} cost G (K + 1) ball products, Horner's rule over the U = span / G blocks
    S U (K + 1) products and sums (each about twice a power's cost, as measured), least
    near G = sqrt(2 S span) (sqrt(span) before: 8 against 7 ms at span 460, K 96)."""
    return max(1, min(span, math.isqrt(2 * S * span)))


def blocked_sums(seqs: list, N: int, K: int, lo: int, hi: int, stride: int = 1) -> list:
    """direct_sums for points filling most of the points lo + stride j up to hi: with
    j = u G + v (v < G about the square root of the span), X[k] = sum_u
    w^{(lo + g u G) k} C[u, k], C[u, k] = sum_v x_{lo + g (u G + v)} w^{g v k}
    (g = stride, w = e^{-2 pi i / N}): one ball matrix product of the laws' masses laid out
    in blocks of G and the G x (K + 1) powers w^{g v k} (multiplied up from the exact roots
    w^{g k}, m reduced mod N), then Horner's rule in w^{g G k} over the U blocks per k and
    law; both chains restarted from exact roots (``chain``).  O((U + G) K) Python ball
    operations where direct_sums' baby and giant steps take O(P (B + A))."""
    g = stride
    span = (hi - lo) // g + 1
    S = len(seqs)
    G = block_length(span, S)
    U = -(-span // G)
    X = [[acb(0)] * G for _ in range(S * U)]
    for s_, seq in enumerate(seqs):
        for p, v in seq:
            j, off = divmod(p - lo, g)
            if off or not 0 <= j < span:
                raise ValueError(f"blocked_sums: point {p} is not lo + {g} j in [{lo}, {hi}]")
            u, v_ = divmod(j, G)
            X[s_ * U + u][v_] += v
    V, steps = block_powers(N, K, lo, g, G, U)
    C = acb_mat(X) * V
    out = [dict() for _ in seqs]
    for k, (t, R, firsts) in enumerate(steps):
        for s_ in range(S):           # Horner in t = w^{g G k}, in chunks of R blocks
            total = acb(0)
            for first, u0 in zip(firsts, range(0, U, R)):
                acc = acb(0)
                for u in range(min(U, u0 + R) - 1, u0 - 1, -1):
                    acc = acc * t + C[s_ * U + u, k]
                total += first * acc
            out[s_][k] = total
    return out


def block_powers(N: int, K: int, lo: int, g: int, G: int, U: int) -> tuple:
    """(V, steps) for ``blocked_sums``: the G x (K + 1) ball matrix of the powers w^{g v k}
    (multiplied up in v from the exact roots w^{g k}, restarted from exact roots every R:
    ``chain``) and, for each k, (t, R, firsts): t = w^{g G k}, Horner's chunk length R and
    the exact roots w^{(lo + g G u0) k} that start its chunks.  Kept for the working precision
    where small (``_POWERS``, POWERS_KEPT): a phase's pair laws and its test laws take the same
    points, so the second composition reuses the first's (cleared by numerics.cache.release_all,
    which the memory limit calls)."""
    if G * (K + 1) > POWERS_KEPT:
        return _block_powers(N, K, lo, g, G, U)
    key = (N, K, lo, g, G, U, ctx.prec)
    return _POWERS.get(key, lambda: _block_powers(N, K, lo, g, G, U))


def _block_powers(N: int, K: int, lo: int, g: int, G: int, U: int) -> tuple:
    V = [[acb(1)] * (K + 1)]
    w = [root(-g * k, N) for k in range(K + 1)]
    R = chain(g * K, N)
    for v in range(1, G):             # w^{g v k}, multiplied up in v (exact roots every R)
        V.append([a * b for a, b in zip(V[-1], w)] if v % R else
                 [root(-g * v * k, N) for k in range(K + 1)])
    steps = []
    for k in range(K + 1):
        t, R = root(-g * G * k, N), chain(g * G * k, N, exact=True)
        steps.append((t, R, [root(-(lo + g * G * u0) * k, N) for u0 in range(0, U, R)]))
    return acb_mat(V), steps


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
