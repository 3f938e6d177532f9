"""The sums a sparse composed law is read by (numerics.spectral.SpectralLaw, docs/THEORY.md
section 16): ``Poly``, a polynomial of the kept coefficients at roots of unity by baby and
giant steps, and ``Sums``, the lazy list of a SpectralLaw's prefix or suffix sums."""
from __future__ import annotations

import math

from flint import acb, acb_mat, ctx

from verifier.numerics.direct import root


class Poly:
    """sum_k c_k z^k at z = e^{2 pi i m / N} (SpectralLaw's sums), by baby and giant steps
    whose powers are exact roots of unity: with k = a B + b (b < B about sqrt(K)),
    sum_a z^{a B} sum_b c_{a B + b} z^b, the inner sums one ball matrix product of the
    A x B coefficients and the B powers z^b, each power formed on its own (e^{2 pi i m b / N},
    m b reduced exactly mod N).  Horner's rule at a ball z multiplies the radius by
    |Re z| + |Im z| (up to sqrt 2) a step (Arb's rectangular complex balls): at sigma 0.8,
    q 1e-4, T 1e4 (K = 560) it returned [+- 0.43] for a sum of about 0.2; here every term
    is one product of a coefficient and a power, at the same cost (95 us against 90)."""

    def __init__(self, coeffs: list, N: int):
        n = max(1, len(coeffs))
        self.N, self.B = N, max(1, math.isqrt(n))
        self.A = -(-n // self.B)
        pad = list(coeffs) + [acb(0)] * (self.A * self.B - len(coeffs))
        self.M = acb_mat([pad[a * self.B:(a + 1) * self.B] for a in range(self.A)])

    def at_root(self, m: int) -> acb:
        """sum_k c_k e^{2 pi i m k / N}."""
        N, B = self.N, self.B
        q = self.M * acb_mat([[root(m * b, N)] for b in range(B)])
        out = acb(0)
        for a in range(self.A):
            out += q[a, 0] * root(m * a * B, N)
        return out


class Sums:
    """A lazy list of N + 1 sums of a SpectralLaw (``kind`` "prefix" or "suffix", weights
    rho^j, times ``factor``), computed where read and kept: the composed profile reads the
    prefix and suffix sums at a few indices per eps (numerics.ends)."""

    def __init__(self, law: SpectralLaw, kind: str, rho: arb | None = None, factor=None):
        self.law, self.kind, self.rho, self.factor = law, kind, rho, factor
        self._done = {}

    def __len__(self):
        return self.law.N + 1

    def floats(self) -> tuple | None:
        """SpectralLaw.float_sums (prefix, suffix, err) where these are its plain prefix
        sums, else None (choices only)."""
        if self.kind != "prefix" or self.rho is not None or self.factor is not None:
            return None
        return self.law.float_sums()

    def __getitem__(self, i: int):
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        if i not in self._done:
            v = getattr(self.law, self.kind)(i, self.rho)
            if self.factor is not None:
                with ctx.workprec(self.law.prec):
                    v = v * self.factor
            self._done[i] = v
        return self._done[i]
