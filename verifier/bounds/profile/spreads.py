"""Spreads and moves of lattice laws used by the profile engine's stages (docs/THEORY.md
section 9, steps (a) mean-preserving spreads and (b) monotone moves), each exact in ball
arithmetic up to the balls' radii.  The composition kernel itself is verifier/numerics/.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq

from verifier.core.arith import Interval
from verifier.numerics.lattice import LatticeLaw, chernoff_bound

def spread_log(x: arb, eta_inv: arb, up: bool):
    """(k, th): the exact end (upper if ``up``, else lower) of x / eta, spread onto grid points
    k and k + 1 with masses 1 - th, th (mean preserved: a mean-preserving spread of that end,
    which is itself x moved up, resp. down)."""
    t = x * eta_inv
    t = t.upper() if up else t.lower()
    k = int(t.floor().unique_fmpz())
    return k, t - k


def is_band(law) -> bool:
    """Whether a stage reads ``law`` by blocks (a bandlaw.BandLaw) rather than by its points."""
    return getattr(law, "band", False)


class RetryLaw(LatticeLaw):
    """exact_tv's window law, with its two Chernoff bounds re-tried in Arb over a ladder of
    theta when the float choice failed (a mass that underflows in floats, e.g. the lattice
    cell at 0 for a large sigma, can make the chosen theta useless; every theta is valid,
    the smallest bound is kept)."""
    band = False                  # read by its points (a BandLaw: by blocks)

    def __init__(self, y, part, n, N, pts, mu, span, extra=None, left=None, target=None,
                 align=1):
        super().__init__(y, part, n, N, pts, mu, span, extra, left, align)
        if not self.alias:
            return
        # the ladder only where the float choice missed the window's target by far
        floor_ok = 1e-30 if target is None else max(1e-30, 100 * target)
        ex = (extra[0], extra[1]) if extra else None
        sd = math.sqrt(max(n, 1)) * max(1.0, float(Interval.of(spread_sd(pts, mu)).upper))
        for side in ("lo", "up"):
            cur = self.eps_lo if side == "lo" else self.eps_up
            if side == "lo" and self.start == 0:
                continue
            if cur.upper() < floor_ok:
                continue
            t = self.mean - self.start if side == "lo" else self.b - self.mean
            best = cur
            for k in range(-8, 4):
                c = chernoff_bound(pts, mu, n, 2.0 ** k / sd, -1 if side == "lo" else 1, t, ex)
                if c.upper() < best.upper():
                    best = c
            if side == "lo":
                self.eps_lo = best
            elif best.upper() < cur.upper():
                self.eps_up = best
                # the integrated upper tail is kept as computed (valid for its own theta)


def spread_sd(pts, mu):
    tot = sum((v for _, v in pts), arb(0))
    return (sum(((k - mu) ** 2 * v for k, v in pts), arb(0)) / tot).sqrt()


def sub_mean(pts):
    """Conditional mean of a sub-probability lattice law (a centring for the Chernoff bounds)."""
    tot = sum((v for _, v in pts), arb(0))
    return sum((k * v for k, v in pts), arb(0)) / tot


def coarse(law: RetryLaw, *gs: int):
    """The window's masses of ``law`` spread onto the multiples of each g in ``gs`` (each a
    multiple of the first; mean-preserving, step (a)): one dict multiple -> mass per g.  A
    point v = j g + r goes to j g and (j + 1) g with weights 1 - r/g and r/g; per block of g
    points these are the block's sums S = sum c and R = sum r c, each block summed on its own
    (differences of global prefix sums would carry the radii of everything before the
    block), the coarser blocks from the finer ones exactly (R_J = sum (R_j + (j g - J G) S_j)).
    A BandLaw's blocks come from its spectrum (bandlaw.py) where g fits its alignment."""
    g = gs[0]
    if is_band(law) and law.fits(g):            # a BandLaw: its block sums
        S_, R_ = law.blocks(g, moments=True)
        j0 = law.start // g
        blocks = {j0 + i: (S, R) for i, (S, R) in enumerate(zip(S_, R_))}
        return _coarser(blocks, g, gs)
    c = law.c
    n = len(c)
    s0 = law.start
    blocks: dict[int, tuple] = {}                 # j -> (S, R) for the finest g
    for j in range(s0 // g, (s0 + n - 1) // g + 1):
        lo, hi = max(j * g - s0, 0), min((j + 1) * g - s0, n)
        if lo >= hi:
            continue
        S = R = arb(0)
        base = s0 - j * g
        for t in range(lo, hi):
            S += c[t]
            R += (base + t) * c[t]                # r c, r = v - j g
        blocks[j] = (S, R)
    return _coarser(blocks, g, gs)


def _coarser(blocks: dict, g: int, gs: tuple):
    """coarse's spreads onto the multiples of each G in ``gs`` from the blocks of g points."""
    outs = []
    for G in gs:
        if G % g:
            raise ValueError("each lattice of coarse must be a multiple of the first")
        f = G // g
        if f == 1:
            coarse = blocks
        else:
            coarse = {}
            for j, (S, R) in blocks.items():
                J = j // f
                S2, R2 = coarse.get(J, (arb(0), arb(0)))
                coarse[J] = (S2 + S, R2 + R + (j * g - J * G) * S)
        out: dict[int, arb] = {}
        for J, (S, R) in coarse.items():
            add_mass(out, J, S - R / G)
            add_mass(out, J + 1, R / G)
        outs.append(out)
    return outs if len(outs) > 1 else outs[0]


def keep_range(law: dict, lim: float) -> tuple[int, int]:
    """(lo, hi): the indices of ``law`` outside [lo, hi] hold at most ``lim`` on each side
    (float upper ends: a choice; collapse is valid for any range)."""
    ks = sorted(law)
    acc, lo = 0.0, ks[0]
    for k in ks:
        acc += max(float(law[k].upper()), 0.0)
        if acc > lim:
            break
        lo = k
    acc, hi = 0.0, ks[-1]
    for k in reversed(ks):
        acc += max(float(law[k].upper()), 0.0)
        if acc > lim:
            break
        hi = k
    return min(lo, hi), max(lo, hi)


def collapse(law: dict, lo: int, hi: int, up: bool) -> dict:
    """Masses at indices outside [lo, hi] moved to one end (step (b)): for ``up`` (remove),
    those below lo onto lo and those above hi onto the largest index; else (add) those
    below lo onto the smallest index and those above hi onto hi."""
    out: dict[int, arb] = {}
    top, bot = max(law), min(law)
    for j, v in law.items():
        t = j if lo <= j <= hi else ((lo if j < lo else top) if up else (bot if j < lo else hi))
        out[t] = out.get(t, arb(0)) + v
    return out


def geometric(points: dict, base: int, ratio: float) -> dict:
    """Each point v >= base (lattice units) spread onto its neighbours in the geometric set
    base, ceil(base r), ... (mean-preserving, exact rational weights: step (a))."""
    grid = [base]
    top = max(points)
    while grid[-1] < top:
        grid.append(max(grid[-1] + 1, math.ceil(grid[-1] * ratio)))
    out: dict[int, arb] = {}
    for v, c in points.items():
        i = bisect.bisect_right(grid, v) - 1
        a = grid[i]
        if a == v:
            out[a] = out.get(a, arb(0)) + c
            continue
        b = grid[i + 1]
        w = arb(v - a) / (b - a)
        out[a] = out.get(a, arb(0)) + c * (1 - w)
        out[b] = out.get(b, arb(0)) + c * w
    return out


def onto_lattice(values: dict, g: int) -> dict:
    """Each value v >= 0 (lattice units, an int or an exact Fraction) spread onto the
    multiples j g of g (mean-preserving, exact weights: step (a)): index j -> mass."""
    out: dict[int, arb] = {}
    for v, c in values.items():
        p, q = v.numerator, v.denominator        # v = p / q: j = floor(v / g), w = v / g - j
        j, r = divmod(p, q * g)
        if r == 0:
            add_mass(out, j, c)
            continue
        w = arb(fmpq(r, q * g))
        add_mass(out, j, c * (1 - w))
        add_mass(out, j + 1, c * w)
    return out


def convolve(a: dict, ratio: int, b: dict) -> dict:
    """The law of A ratio + B for independent lattice variables with masses ``a`` (index ->
    ball) and ``b``: index -> ball, by one ball polynomial product (Arb's arb_poly)."""
    from flint import arb_poly
    amin, bmin = min(a), min(b)
    pa = [arb(0)] * ((max(a) - amin) * ratio + 1)
    for j, v in a.items():
        pa[(j - amin) * ratio] = v
    pb = [arb(0)] * (max(b) - bmin + 1)
    for j, v in b.items():
        pb[j - bmin] = v
    off = amin * ratio + bmin
    return {off + i: v for i, v in enumerate((arb_poly(pa) * arb_poly(pb)).coeffs())
            if not v.is_zero()}


@dataclass
class Window:
    """A window's masses (c[i] at start + i), the shape coarse reads."""
    c: list
    start: int


def thin(law: dict, room: Fraction) -> dict:
    """Each index n > 0 of a lattice law spread onto the multiples of c(n), the largest power
    of 2 with c <= room n (mean-preserving, exact weights: step (a)): the step in the log of
    the value stays below room.  Indices with room n < 2 (and 0) kept."""
    p, q = room.numerator, room.denominator
    if p == 0:
        return law
    out: dict[int, arb] = {}
    for n, v in law.items():
        k = p * n // q if n > 0 else 0
        if k < 2:
            add_mass(out, n, v)
            continue
        c = 1 << (k.bit_length() - 1)
        j, r = divmod(n, c)
        if r == 0:
            add_mass(out, n, v)
            continue
        w = arb(r) / c
        add_mass(out, j * c, v * (1 - w))
        add_mass(out, (j + 1) * c, v * w)
    return out


def coarse_keep_low(c: list, g: int) -> dict:
    """Masses c[v] at v = 0, 1, ... (lattice units): those at v < g kept where they are, the
    others spread onto the multiples of g (coarse, step (a)): value -> mass.  Unlike a plain
    spread onto the multiples of g, no mass moves onto 0 (where the add integrand is 1)."""
    out = {v: c[v] for v in range(min(g, len(c)))}
    if len(c) > g:
        high = [arb(0)] * g + list(c[g:])
        for j, v in (coarse(Window(high, 0), g) if g > 1 else dict(enumerate(high))).items():
            if j > 0:
                add_mass(out, j * g, v)
    return out


def ipow(x: arb, n: int) -> arb:
    """x^n for an integer n >= 0 by repeated squaring (python-flint's ``x ** n`` is nan for a
    ball that contains 0, e.g. the mass of a far cell)."""
    out, base = arb(1), x
    while n:
        if n & 1:
            out = out * base
        base = base * base
        n >>= 1
    return out


def float_moments_arrays(x, w):
    """Float mean and standard deviation of the values ``x`` with weights ``w`` (numpy
    arrays): for float choices only."""
    import numpy as np
    tw = float(np.sum(w))
    mu = float(np.dot(x, w)) / tw
    var = float(np.dot((x - mu) ** 2, w)) / tw
    return mu, math.sqrt(max(var, 1e-30))


def add_mass(d: dict, k: int, v: arb):
    d[k] = d[k] + v if k in d else v


