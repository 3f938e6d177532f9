"""The range of an engine, stated once: the one-line refusals and the ``--help`` text are
generated from it (so a message can never name a range the engine does not use)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, decimal_str


def _num(q) -> str:
    """A range end as people write it: 0.3, 50, 1e7, 1e-12."""
    q = Fraction(q)
    if q.denominator == 1 and q >= 10 ** 5:
        n, k = q.numerator, 0
        while n % 10 == 0:
            n, k = n // 10, k + 1
        if n == 1:
            return f"1e{k}"
    return decimal_str(q, 12)


class RangeError(InputError):
    """A value outside an engine's stated range (a one-line refusal; a claims audit reads it
    as the claim's *not applicable* verdict, with the range)."""


@dataclass(frozen=True)
class Range:
    """Closed intervals of sigma, steps per epoch M (or steps in all T: ``steps_symbol``),
    epochs E, delta, epsilon and the sample rate q (None: the engine takes no such
    argument) for the engine called ``engine``."""
    engine: str
    sigma: tuple
    steps: tuple
    epochs: tuple | None
    delta: tuple | None = None
    epsilon: tuple | None = None
    sample_rate: tuple | None = None
    steps_name: str = "steps"
    steps_symbol: str = "M"

    def _fields(self):
        return (("sigma", "sigma", self.sigma), ("sample_rate", "q", self.sample_rate),
                (self.steps_name, self.steps_symbol, self.steps),
                ("epochs", "E", self.epochs), ("delta", "delta", self.delta),
                ("epsilon", "epsilon", self.epsilon))

    def check(self, sigma, M, E, delta=None, eps=None, sample_rate=None):
        """Refuse (InputError, one line) a value outside the range."""
        for (name, _, rng), v in zip(self._fields(), (sigma, sample_rate, M, E, delta, eps)):
            if v is None or rng is None:
                continue
            signed = name == "epsilon" and rng[0] == 0     # delta(eps) at -eps: |eps|
            if not rng[0] <= (abs(v) if signed else v) <= rng[1]:
                shown = v if isinstance(v, int) else decimal_str(Fraction(v), 12)
                low = f"-{_num(rng[1])}" if signed else _num(rng[0])
                raise RangeError(f"{name} = {shown} is outside the {self.engine}'s range "
                                 f"[{low}, {_num(rng[1])}]")

    def help(self) -> str:
        """'<engine>: sigma in [a, b], M in [.., ..], ...' for ``--help``."""
        parts = [f"{sym} in [{_num(r[0])}, {_num(r[1])}]" for _, sym, r in self._fields()
                 if r is not None]
        return f"{self.engine}: " + ", ".join(parts)
