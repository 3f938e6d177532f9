"""Stage 1 of one epoch of random allocation: the body laws (docs/THEORY.md section 9,
"Upper ends" steps (a) and "Lower ends (tests)").  The body cells [0, T1) of Y spread onto
their end points (step (a)), the tests' labels and their tilted law, the tail cells' masses,
the DFT windows and one set of ball DFT powers, read as the window laws of the sums of
M, M - 1, M - 2, M - 3 items that the remove law, the add law and the tests use.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import acb, arb, ctx

from verifier.core.arith import InputError, Interval, decimal_str, to_arb
from verifier.numerics.band import band_power, full_length, sparse_spectra, times
from verifier.numerics.memory import reserve
from verifier.numerics.lattice import MAX_N, powers, two_dfts, two_inverse, window
from verifier.bounds.exact_tv.one_epoch import cell_moments, spread_cell, upper_tails
from verifier.bounds.profile.bandlaw import BandLaw, alignment
from verifier.bounds.profile.plan import BAND_MAX_N, K2_TEST_M, LIGHT_TAILS, Plan
from verifier.bounds.profile.spreads import RetryLaw, add_mass, spread_sd, sub_mean


@dataclass(frozen=True)
class Cells:
    """One item's lattice laws: the body spread (upper ends), the tests' labels and their
    tilted law (under P1), the first cell's spread weights, the tail cells' masses."""
    q: list
    m: list
    p: arb                  # P(Y >= T1)
    tau: arb                # E[Y; Y >= T1]
    wa0: arb                # the first cell's spread weights (the add law's split)
    wb0: arb
    spread: list            # [(lattice point, mass)], sub-probability of mass 1 - p
    labels: list
    tilted: list
    Gt: list                # P(Y >= t_i), E[Y; Y >= t_i] at the tail cells' ends
    Ht: list


def cells(sigma: Fraction, M: int, P: Plan) -> Cells:
    """The body cells (``_cells``) at 2 bitlen(J1) bits above the working precision: a cell's
    mass is a difference of upper tails (about log2 of the cell count lost to cancellation)
    and its spread weights (q b h - m) / ((b - a) h) lose about log2 b more (docs/THEORY.md section
    9, "Working precision": at sigma 0.8, M 1000 these radii decided the upper ends')."""
    with ctx.workprec(ctx.prec + 2 * P.J1.bit_length()):
        return _cells(sigma, M, P)


def _cells(sigma: Fraction, M: int, P: Plan) -> Cells:
    """The body cells spread onto their end points (step (a)).  The tests' labels: the
    cells' left ends (a deterministic label), under P0 the cells' masses q, under P1 their
    tilted masses m."""
    h, bounds = P.h, P.bounds
    ha = to_arb(h)
    q, m, p, tau = cell_moments(sigma, h, bounds)
    w: dict[int, arb] = {}
    for i in range(len(bounds) - 1):
        wa, wb = spread_cell(q[i], m[i], bounds[i], bounds[i + 1], ha)
        if i == 0:
            wa0, wb0 = wa, wb
        add_mass(w, bounds[i], wa)
        add_mass(w, bounds[i + 1], wb)
    spread = sorted(w.items())
    L = len(bounds) - 1
    labels, tilted = [(bounds[i], q[i]) for i in range(L)], [(bounds[i], m[i]) for i in range(L)]
    Gt, Ht = upper_tails(sigma, h, P.tail)
    return Cells(q, m, p, tau, wa0, wb0, spread, labels, tilted, Gt, Ht)


@dataclass(frozen=True)
class Windows:
    """DFT lengths and placements (floats choose them; any window is valid, the mass outside
    is bounded by Chernoff in Arb)."""
    N: int                  # the spread's sums (upper ends)
    NT: int                 # the labels' sums (tests)
    lS: int | None          # left offsets of the windows below the mean (None: centred)
    lB: int | None
    lX: int | None
    eps_t: float            # each window's target outside mass


def windows(C: Cells, sigma: Fraction, M: int, P: Plan) -> Windows:
    """One length per DFT, each law its own placement (the sums with one tilted item have
    the heavier right tail)."""
    J1 = P.J1
    eps_t = max(P.budget * 1e-2, 1e-300)
    lim = BAND_MAX_N if P.band else MAX_N     # the band path's windows are virtual
    N, lS = window(C.spread, M, eps_t, J1, limit=lim)
    NB, lB = window(C.labels, M, eps_t, J1, limit=lim)
    NX, lX = window(C.labels, max(M - 1, 0), eps_t, J1, extra=(C.tilted, J1), limit=lim)
    NT = max(NB, NX)

    def placed(n, left, length):       # a window found for n, centred in one of length
        return None if left is None else left + (length - n) // 2
    lX = placed(NX, lX, NT)
    lB = placed(NB, lB, NT)
    if max(N, NT) > lim:
        raise InputError(f"M = {M} at sigma = {decimal_str(sigma, 12)} needs a DFT of length "
                         f"{max(N, NT)} (more than {lim})")
    # the label transforms (length NT) and the spread's (N); the band path forms none longer
    # than MAX_N (numerics/band.py refuses one)
    reserve(min(NT, MAX_N) + min(N, MAX_N),
            ("profile-band" if P.fine > 1 else "profile-band-1") if P.band else "profile",
            f"the privacy profile at sigma = {decimal_str(sigma, 12)}, "
            f"M = {M}", of="band windows" if P.band else "a DFT")
    return Windows(N, NT, lS, lB, lX, eps_t)


def k2_tests(sigma: Fraction, M: int) -> bool:
    """Whether the tests use K = 2 outcomes: only where tail items move the likelihood ratio
    (M < K2_TEST_M, or heavy tails at every M).  Leaving outcomes out of a test is always
    valid; for large M it loses about P(K = 2) relative."""
    return 2 <= M and (M < K2_TEST_M or sigma < LIGHT_TAILS)


def _power(X, n, prec):
    return [acb(1)] * len(X) if n == 0 else powers(X, n, prec)


def _times(a, b):
    return [x * y for x, y in zip(a, b)]


def label_transforms(C: Cells, M: int, W: Windows, k2: bool, prec: int):
    """(yB, yT, y2): inverse DFTs holding b^M and b^{M-1}; t b^{M-1} and t b^{M-2}; b^{M-2}
    and t b^{M-3} (None without K = 2 tests), with b the labels' law and t the tilted one,
    from one power b^{*(M-3)} multiplied up."""
    XB, XT = two_dfts(C.labels, C.tilted, W.NT)
    ones = [acb(1)] * len(XB)
    zeros = [acb(0)] * len(XB)
    PB3 = _power(XB, max(M - 3, 0), prec)
    PB2 = _times(PB3, XB) if M >= 3 else (ones if M == 2 else None)
    PB1 = _times(PB2, XB) if M >= 2 else ones
    yB = two_inverse(_times(PB1, XB), PB1, W.NT)
    yT = two_inverse(_times(PB1, XT), _times(PB2, XT) if M >= 2 else zeros, W.NT)
    y2 = two_inverse(PB2, _times(PB3, XT) if M >= 3 else zeros, W.NT) if k2 else None
    return yB, yT, y2


def spread_transforms(C: Cells, M: int, W: Windows, kmax: int, prec: int):
    """(yS, yS2): inverse DFTs holding s^M and s^{M-1}; s^{M-2} and s^{M-3} (for M >= 4
    with K >= 2 parts, else None), s the spread body item."""
    XS = two_dfts(C.spread, [], W.N)[0]
    yS2 = None
    if M >= 4 and kmax >= 2:
        PS3 = _power(XS, M - 3, prec)
        PS2 = _times(PS3, XS)
        yS2 = two_inverse(PS2, PS3, W.N)
        PS = _times(PS2, XS)
        del PS2, PS3
    else:
        PS = _power(XS, M - 1, prec)
    return two_inverse(_times(PS, XS), PS, W.N), yS2


def band_spectra(C: Cells, M: int, W: Windows, k2: bool, prec: int) -> dict:
    """The band path's spectra (Plan.band: deterministic labels, M >= BAND_M): name ->
    numerics.band.Spectrum of b^M, b^{M-1}, t b^{M-1}, t b^{M-2} (and b^{M-2}, t b^{M-3} with
    K = 2 tests) of the labels (length NT), s^M and s^{M-1} of the spread (length N), each
    kept where b^{M-3} (resp. s^{M-1}) is not certified below 2^-(prec + 10)."""
    def total(pts):
        return arb(sum((v for _, v in pts), arb(0)).upper())
    XB, XT = spectra(C.labels, C.tilted, W.NT, M - 3, prec)
    tb, tt = total(C.labels), total(C.tilted)
    P3 = band_power(XB, M - 3, prec)
    P2 = times(P3, XB, tb)
    P1 = times(P2, XB, tb)
    out = {"BM": times(P1, XB, tb), "B1": P1, "T1": times(P1, XT, tt), "T2": times(P2, XT, tt)}
    if k2:
        out.update(B2=P2, T3=times(P3, XT, tt))
    del XB, XT
    XS = spectra(C.spread, [], W.N, M - 1, prec)[0]
    S1 = band_power(XS, M - 1, prec)
    out.update(SM=times(S1, XS, total(C.spread)), S1=S1)
    return out


def spectra(pts1: list, pts2: list, N: int, n: int, prec: int) -> tuple:
    """The DFTs of two item laws for band_power(., n): the direct sums over their few points
    (numerics.band.sparse_spectra: a SparseDFT and a dict) where cheaper, else the full DFT
    (lists)."""
    X = sparse_spectra(pts1, [pts2] if pts2 else [], N, n, prec)
    if X is None:
        full_length(N, "the item laws' full DFT")
        return two_dfts(pts1, pts2, N)
    return X[0], (X[1] if pts2 else None)


@dataclass(frozen=True)
class Body:
    """The window laws of sums of body items (docs/THEORY.md section 9): S* of the spread
    (upper ends), B* of the labels and T* with one tilted label (tests)."""
    cells: Cells
    win: Windows
    SM: RetryLaw            # s^M
    S1: RetryLaw            # s^{M-1}
    S2: RetryLaw | None     # s^{M-2}, s^{M-3} (deterministic labels, M >= 4, kmax >= 2)
    S3: RetryLaw | None
    BM: RetryLaw            # b^M, b^{M-1}, b^{M-2}
    B1: RetryLaw
    B2: RetryLaw | None
    T1l: RetryLaw           # t b^{M-1}, t b^{M-2}, t b^{M-3}
    T2l: RetryLaw | None
    T3l: RetryLaw | None


def body_laws(sigma: Fraction, M: int, P: Plan, prec: int) -> Body:
    C = cells(sigma, M, P)
    W = windows(C, sigma, M, P)
    k2 = k2_tests(sigma, M)
    J1, t = P.J1, W.eps_t
    mu_s, mu_b, mu_t = sub_mean(C.spread), sub_mean(C.labels), sub_mean(C.tilted)
    if P.band:                        # the laws read off their sparse spectra (bandlaw.py)
        Y = band_spectra(C, M, W, k2, prec)
        A = alignment(math.sqrt(M) * float(Interval.of(spread_sd(C.spread, mu_s)).lower),
                      W.N, W.NT)

        def law(name, n, NN, pts, mu, left, extra=None):
            return BandLaw(Y[name], n, NN, pts, mu, J1, extra=extra, left=left, target=t,
                           align=A)
    else:
        yB, yT, y2 = label_transforms(C, M, W, k2, prec)
        # the K >= 2 parts' own body laws (s^{M-2}, s^{M-3}: one more inverse DFT), as
        # upper.coarse_body plans below BAND_M (off the band path); on it B_{M-1} serves
        # (B_{M-k} <= B_n in the coupling; sigma 1, M 1e4, E 100, level 16: the same brackets
        # to 12 digits)
        yS, yS2 = spread_transforms(C, M, W, P.kmax, prec)
        Y = {"SM": (yS, "real"), "S1": (yS, "imag"), "BM": (yB, "real"), "B1": (yB, "imag"),
             "T1": (yT, "real"), "T2": (yT, "imag"), "B2": (y2, "real"), "T3": (y2, "imag")}
        if yS2 is not None:
            Y.update(S2=(yS2, "real"), S3=(yS2, "imag"))

        def law(name, n, NN, pts, mu, left, extra=None):
            y, part = Y[name]
            return RetryLaw(y, part, n, NN, pts, mu, J1, extra=extra, left=left, target=t)
    SM = law("SM", M, W.N, C.spread, mu_s, W.lS)
    S1 = law("S1", M - 1, W.N, C.spread, mu_s, W.lS)
    BM = law("BM", M, W.NT, C.labels, mu_b, W.lB)
    B1 = law("B1", M - 1, W.NT, C.labels, mu_b, W.lB)
    ex = (C.tilted, mu_t, J1)
    T1l = law("T1", M - 1, W.NT, C.labels, mu_b, W.lX, ex)
    T2l = law("T2", M - 2, W.NT, C.labels, mu_b, W.lX, ex) if M >= 2 else None
    B2 = law("B2", M - 2, W.NT, C.labels, mu_b, W.lB) if k2 else None
    T3l = law("T3", M - 3, W.NT, C.labels, mu_b, W.lX, ex) if k2 and M >= 3 else None
    S2 = S3 = None
    if "S2" in Y and M > 3:
        S2 = law("S2", M - 2, W.N, C.spread, mu_s, W.lS)
        S3 = law("S3", M - 3, W.N, C.spread, mu_s, W.lS)
    return Body(C, W, SM, S1, S2, S3, BM, B1, B2, T1l, T2l, T3l)
