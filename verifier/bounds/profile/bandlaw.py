"""Body laws read off their sparse spectra (docs/THEORY.md section 9, "Band-limited body
laws"; the verifier's construction).  At refined levels with many items the spectrum of a
sum of M body items keeps a few hundred coefficients of N (sigma 0.5, M 1e4, level 8: 270 of
327681 above 2^-138); the stages read the laws only through block sums (the coarse
lattices' spreads, the tests' buckets), which numerics/band.py computes by DFTs of N / G
points.  The window's start is a multiple of ``align`` (a power of 2 dividing N), so every
block of G | align points lies inside it; the fine points themselves are computed only if a
stage asks for them (the full inverse DFT).
"""
from __future__ import annotations

import math

from verifier.numerics.band import Spectrum, block_sums, values
from verifier.bounds.profile.spreads import RetryLaw


def pow2_at_most(x: float) -> int:
    """The largest power of 2 at most x (1 below 2, and for a NaN)."""
    return 1 << int(math.floor(math.log2(x))) if x >= 2 else 1


def alignment(sd: float, *Ns: int) -> int:
    """The windows' alignment: a power of 2 at most sd / 2 (the window moves by at most half of
    it: its Chernoff masses, computed for the window used, change little) dividing every N."""
    a = pow2_at_most(sd / 2)
    for N in Ns:
        a = min(a, N & -N)
    return a


def window_order(start: int, G: int, L: int) -> list:
    """The transform's block indices in window order: the window's i-th block of G points
    (start + i G, start a multiple of G) is the transform's block (start / G + i) mod L."""
    return [(start // G + i) % L for i in range(L)]


class BandLaw(RetryLaw):
    """A RetryLaw (window aligned to ``align``, Chernoff masses) whose values are read off the
    spectrum ``Y``."""
    band = True

    def __init__(self, Y: Spectrum, n, N, pts, mu, span, extra=None, left=None, target=None,
                 align: int = 1):
        super().__init__(None, None, n, N, pts, mu, span, extra, left, target, align)
        self.Y, self.align, self._blocks, self._c = Y, align, {}, None

    @property
    def c(self) -> list:
        """The window's points (the full inverse DFT: only where a stage needs fine points)."""
        if self._c is None:
            y = values(self.Y)
            r0 = self.start % self.N
            self._c = y[r0:] + y[:r0]
        return self._c

    def fits(self, G: int) -> bool:
        return G >= 1 and self.align % G == 0 and self.start % G == 0

    def fit(self, G: float) -> int:
        """The largest power of 2 at most G (at least 1) that fits the window's alignment."""
        return min(pow2_at_most(G), self.align)

    def blocks(self, G: int, moments: bool = False):
        """([S_i], [R_i] or None): the window's blocks of G points in order (block i holds
        the points start + i G .. start + i G + G - 1), their masses and first moments r
        (sums asked for after the moments are the moments' own)."""
        if (G, True) in self._blocks:
            S, R = self._blocks[(G, True)]
            return S, (R if moments else None)
        if (G, moments) not in self._blocks:
            if not self.fits(G):
                raise ValueError(f"block size {G} does not fit the window's alignment {self.align}")
            S, R = block_sums(self.Y, G, moments)
            order = window_order(self.start, G, len(S))
            self._blocks[(G, moments)] = ([S[b] for b in order],
                                          None if R is None else [R[b] for b in order])
        return self._blocks[(G, moments)]
