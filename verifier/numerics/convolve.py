"""The numerical kernel, part 2a: the laws of sums of independent steps on DFT windows, for
one kind of step (``compose_laws``: the E-fold sum) or several (``compose_phases``: a run of
phases, docs/THEORY.md section 15), the windows' outside mass by Chernoff bounds in Arb, and
the charges a composition sums over its steps (``union_charge``, ``alias_excess``).  Used by
``numerics.compose.ComposedProfile``."""
from __future__ import annotations

import heapq
import math
from fractions import Fraction

from flint import acb, arb, arb_poly, ctx

from verifier.core.arith import InputError, to_arb
from verifier.numerics.lattice import powers, two_dfts, two_inverse
from verifier.numerics.memory import reserve
from verifier.numerics import spectral
from verifier.numerics.float_mgf import law_arrays, mgf_upper

MAX_GRID = 1 << 22   # longest composed grid (a DFT of this length)


def window_plan(sub, E: int, what: str, target: float):
    """The window of the E-fold sum of the grid variable with sub-probabilities ``sub``
    (index -> ball), or of a sum over phases: ``sub`` a list of (sub_i, E_i), the sum of
    E_i independent copies of each (a run of different steps, docs/THEORY.md section 15;
    ``E`` is then ignored).  Returns (N, start, best, centre) with start None when the
    window holds the whole support, best(sign, a) the float Chernoff choice (log bound,
    theta), centre the float mean of the sum.  The window is the shortest smooth length
    whose float-estimated mass outside is below target."""
    import numpy as np
    parts = sub if isinstance(sub, list) else [(sub, E)]
    full = sum(n * (max(s) - min(s)) for s, n in parts) + 1
    stats = []
    for s, n in parts:
        keys, ws, _ = law_arrays(s)     # upper ends (a ball's radius times e^{theta k}
        ks = keys.astype(float)         # counts in the Arb bound too), as the mgf reads them
        tot = ws.sum()
        mu = float(np.dot(ks, ws) / tot)
        var = max(float(np.dot((ks - mu) ** 2, ws) / tot), 1e-12)
        stats.append((ks, ws, mu, var, n))
    if len(parts) == 1:
        ks, ws, mu, var, n = stats[0]
        scale, centre = math.sqrt(var) * math.sqrt(n), n * mu
    else:
        scale = math.sqrt(sum(n * var for _, _, _, var, n in stats))
        centre = sum(n * mu for _, _, mu, _, n in stats)
    thetas = 2.0 ** np.linspace(-10, 8, 73) / scale
    lmgf = {1: 0.0, -1: 0.0}
    for ks, ws, mu, var, n in stats:
        with np.errstate(divide="ignore"):
            logw = np.log(ws)
        for sign in (1, -1):           # n log E[e^{theta (k - mu)}] on the theta ladder
            z = sign * thetas[:, None] * (ks - mu)[None, :] + logw[None, :]
            zm = z.max(axis=1)
            lmgf[sign] = lmgf[sign] + n * (zm + np.log(np.exp(z - zm[:, None]).sum(axis=1)))

    def best(sign, a):                 # float: (log bound of P(sign (S - centre) >= a), theta)
        vals = lmgf[sign] - thetas * a
        i = int(np.argmin(vals))
        return float(vals[i]), sign * float(thetas[i])
    ladder = sorted({c << k for k in range(2, 26) for c in (4, 5, 6)})
    for n in ladder:
        if n < 16:
            continue
        if n >= full:
            break
        half = n / 2 - 2
        if max(best(1, half)[0], best(-1, half)[0]) < math.log(target):
            return n, int(math.floor(centre)) - n // 2, best, centre
    N = min(n for n in ladder if n >= max(16, full))
    if N > MAX_GRID:
        count = (f"E = {E} epochs" if len(parts) == 1
                 else f"{sum(n for _, n in parts)} steps of {len(parts)} kinds")
        raise InputError(f"the {what} grid of {count} needs {full} points "
                         f"(more than {MAX_GRID}); not supported")
    return N, None, best, centre


def compose_laws(subs: list, E: int, what: str, target: float, unit: str = "epochs",
                 left_out=None):
    """The E-fold sums of one or two grid variables (sub-probabilities ``subs``, index ->
    ball), both by one complex DFT of x1 + i x2 and one inverse: for each, (start, masses on
    [start, start + N), P_out) where the masses are those of the sum reduced mod N (aliasing
    only adds: each is >= the true mass at its index, and the excess in all is at most the
    true mass outside the window) and P_out >= the mass outside the window, a Chernoff bound
    of each side in Arb (0 when the window holds the whole support)."""
    return compose_phases([(subs, E)], what, target, unit, left_out)


def compose_phases(phases: list, what: str, target: float, unit: str = "steps",
                   left_out=None):
    """compose_laws for a run of different steps (docs/THEORY.md section 15): ``phases`` a
    list of (subs, n), subs one or two grid variables of one step (index -> ball), n the
    count of such steps; for each variable the law of the sum over all n_1 + n_2 + ... steps
    (independent), as (start, masses, P_out) like compose_laws.  The transform of the sum is
    the product of the phases' transforms, each raised to its own count: one forward DFT per
    phase (its two variables packed), one inverse in all.  ``unit``: what one count is
    ("epochs" of random allocation, "steps" of Poisson), for the memory messages.
    ``left_out(N)``: the level of the sparse path's left-out frequencies the caller's budget
    allows on a window of N (numerics.spectral.out_bits; None: the working precision's)."""
    nvar = len(phases[0][0])
    if any(len(subs) != nvar for subs, _ in phases):
        raise ValueError("compose_phases: every phase needs the same variables")
    per_var = [[(subs[j], n) for subs, n in phases] for j in range(nvar)]
    plans = [window_plan(parts if len(parts) > 1 else parts[0][0], parts[0][1], what, target)
             for parts in per_var]
    N = max(p[0] for p in plans)
    total = sum(n for _, n in phases)
    count = (f"{'E' if unit == 'epochs' else 'T'} = {total} {unit}" if len(phases) == 1
             else f"{total} steps of {len(phases)} kinds")
    less = "fewer steps per epoch" if unit == "epochs" else "fewer steps"
    sparse = None
    if N >= spectral.MIN_N:
        sparse = spectral.compose(phases, N, ctx.prec, lambda n: reserve(
            n, "compose-sparse", f"the {what} composition of {count}", less=less),
            None if left_out is None else left_out(N))
    if sparse is None:
        reserve(N, "compose", f"the {what} composition of {count}", less=less)
        y, off = _dense(phases, N)
    else:
        off = sum(n * min(min(sub) for sub in subs) for subs, n in phases)
    out = []
    for i, (parts, (n, start, best, centre)) in enumerate(zip(per_var, plans)):
        if start is None:                      # the whole support fits (full <= n <= N)
            start, p_out = sum(m * min(sub) for sub, m in parts), arb(0)
        else:
            start -= (N - n) // 2              # centred in the longer window
            p_out = _outside(parts, start, N, best, centre)
        r0 = (start - off) % N
        if sparse is None:
            part = [z.real if i == 0 else z.imag for z in y[r0:] + y[:r0]]
        else:
            part = spectral.SpectralLaw(N, sparse[0][i], sparse[1], r0, ctx.prec)
        out.append((start, part, p_out))
    return out


def _outside(parts: list, start: int, N: int, best, centre) -> arb:
    """The Chernoff bound of the sum's mass outside the window [start, start + N)."""
    b_hi, b_lo = start + N, start - 1
    _, th_up = best(1, b_hi - centre)
    _, th_lo = best(-1, centre - b_lo)
    if len(parts) == 1:
        sub, m = parts[0]
        return chernoff_mass(sub, m, th_up, b_hi) + chernoff_mass(sub, m, th_lo, b_lo)
    return chernoff_mass_phases(parts, th_up, b_hi) + chernoff_mass_phases(parts, th_lo, b_lo)


def _dense(phases: list, N: int):
    """(y, off): the inverse DFT of the product of the phases' transforms (x1 + i x2 packed)
    and the composed index off of its first point."""
    off = 0                            # y[i] holds the sums' index off + i (mod N)
    Y = None
    for subs, n in grouped(phases, N) if len(phases) > 1 else phases:
        kmin = min(min(sub) for sub in subs)
        off += n * kmin
        pts = [[(k - kmin, v) for k, v in sub.items()] for sub in subs]
        X = two_dfts(pts[0], pts[1] if len(pts) > 1 else [], N)
        # the negligible terms as tiny balls (lattice.powers: a third of a Poisson run's time
        # went to powers that underflow; T 1e5, 1e6: 1.01 -> 0.65 s, 3.41 -> 2.13 s, the same
        # brackets bit for bit)
        Xn = [powers(Xi, n, ctx.prec) for Xi in X[:len(subs)]]
        Y = Xn if Y is None else [[a * b for a, b in zip(Ya, Xa)] for Ya, Xa in zip(Y, Xn)]
        del X
    y = two_inverse(Y[0], Y[1] if len(Y) > 1 else [acb(0)] * len(Y[0]), N)
    return y, off


def convolved(subs: list, counts: list | None = None) -> dict:
    """The law of the sum of independent grid variables ``subs`` (index -> ball), each taken
    ``counts[i]`` times (default once), every mass enclosed: their polynomials raised to
    their counts and multiplied in Arb's ball arithmetic (arb_poly), the two shortest first
    (a Huffman order: 30% faster than a balanced tree on a run's step laws), index -> ball
    over the sum's whole span."""
    counts = [1] * len(subs) if counts is None else counts
    heap, start = [], 0
    for i, (sub, a) in enumerate(zip(subs, counts)):
        k0, k1 = min(sub), max(sub)
        start += a * k0
        p = arb_poly([sub.get(k, arb(0)) for k in range(k0, k1 + 1)])
        heap.append((a * (k1 - k0), i, p ** a if a > 1 else p))
    heapq.heapify(heap)
    made = len(heap)
    while len(heap) > 1:
        (da, _, a), (db, _, b) = heapq.heappop(heap), heapq.heappop(heap)
        heapq.heappush(heap, (da + db, made, a * b))
        made += 1
    span, _, p = heap[0]
    span += 1
    return {start + i: p[i] if i <= p.degree() else arb(0) for i in range(span)}


def grouped(phases: list, N: int) -> list:
    """``phases`` [(subs, n)] as fewer kinds of step with the same product of transforms
    (each kind one DFT of length N where each phase would take its own): where the counts'
    common factor g (n_i = g a_i; all equal: g = n, a_i = 1) leaves laws raised to a_i that
    fit in half the window, all in one kind raised to g, prod_i X_i^{n_i} = (prod_i
    X_i^{a_i})^g; else the phases of equal count in kinds of their count, prod_i X_i^n =
    (prod_i X_i)^n, each kind's span at most N (beyond it a new kind starts: a span over N
    is still exact mod N, only slower), in the order of first appearance."""
    nvar = len(phases[0][0])
    width = [max(max(sub) - min(sub) for sub in subs) + 1 for subs, _ in phases]
    g = math.gcd(*(n for _, n in phases))
    if sum(n // g * w for (_, n), w in zip(phases, width)) <= N // 2:
        return [([convolved([subs[j] for subs, _ in phases], [n // g for _, n in phases])
                  for j in range(nvar)], g)]
    out, last = [], {}                 # last[n]: the open kind of count n
    for (subs, n), w in zip(phases, width):
        k = last.get(n)
        if k is not None and k[2] + w <= N:
            k[0].append(subs)
            k[2] += w
            continue
        last[n] = [[subs], n, w]
        out.append(last[n])
    return [(subs[0] if len(subs) == 1 else
             [convolved([s[j] for s in subs]) for j in range(nvar)], n) for subs, n, _ in out]


def chernoff_mass(sub: dict, E: int, theta: float, b: int) -> arb:
    """e^{-theta b} (sum_k sub_k e^{theta k})^E: for theta > 0 a bound of the mass of
    {S >= b}, for theta < 0 of {S <= b} (Markov on e^{theta S}); capped at the total mass."""
    return chernoff_mass_phases([(sub, E)], theta, b)


def chernoff_mass_phases(parts: list, theta: float, b: int) -> arb:
    """e^{-theta b} prod_i (sum_k sub_ik e^{theta k})^{E_i} over ``parts`` [(sub_i, E_i)]:
    Markov's inequality on e^{theta S} for the sum S of independent steps (the mgf of S is
    the product of the steps' mgfs); capped at the total mass prod_i (sum_k sub_ik)^{E_i}."""
    tf = Fraction(theta).limit_denominator(10 ** 12)
    th = to_arb(tf)
    expo, total, zero = None, None, False
    for sub, E in parts:
        mg = mgf_upper(sub, tf)  # the true (nonnegative) sum is at most its upper end
        if mg > 0:
            expo = E * mg.log() if expo is None else expo + E * mg.log()
        else:
            zero = True
        tot = sum(sub.values(), arb(0)) ** E
        total = tot if total is None else total * tot
    c = arb(0) if zero else (expo - th * b).exp()
    if not c.is_finite():
        return arb(total.upper())
    return arb(c.upper()) if c < total else arb(total.upper())


def alias_excess(parts: list) -> arb:
    """The excess of a composed law whose steps' computed masses exceed the true ones by at
    most a_i in all (``parts`` [(a_i, n_i)], n_i steps of each): the computed composed law
    has total mass at most prod (1 + a_i)^{n_i} times the true one's (at most 1), so the
    excess is at most prod_i (1 + a_i)^{n_i} - 1 = sum_j a_j prod_{l < j} (1 + a_l) (the
    steps in any order), at most E a (1 + a)^{E - 1} for one kind of step and at most
    (sum_i n_i a_i) prod_i (1 + a_i)^{n_i} for several (docs/THEORY.md section 15)."""
    if len(parts) == 1:
        a, E = parts[0]
        return E * a * (1 + a) ** (E - 1)
    s = sum((n * a for a, n in parts), 0)      # balls, or symbols (proof check runs.alias-excess)
    p = 1
    for a, n in parts:
        p = p * (1 + a) ** n
    return s * p


def union_charge(parts: list) -> arb:
    """What the steps' upper laws leave out, by a union bound over the steps: sum_i n_i c_i
    for n_i steps each charged c_i (``parts`` [(c_i, n_i)]; docs/THEORY.md sections 12, 15)."""
    if len(parts) == 1:
        c, E = parts[0]
        return E * c
    return sum((n * c for c, n in parts), 0)
