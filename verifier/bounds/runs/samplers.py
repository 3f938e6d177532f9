"""One registry of samplers for the run engine (issue 44): what the engine needs of each
sampler, behind one protocol, so that ``bounds.runs`` dispatches on ``ENGINES[sampler.kind]``
instead of asking which sampler it holds.

A sampler engine answers, for a sampler value of ``core.run`` (Poisson, RandomAllocation,
EveryStep):
- ``lattice_rate(s)``: the per-step sample rate at which the Poisson lattice
  (bounds/poisson/pair.py) takes its steps, or None when its steps are not Poisson steps
  (a random-allocation epoch of M >= 2 steps: the epochs' own lattice, bounds/profile);
- ``gaussian_step(s)``: whether each step (or epoch) is the Gaussian mechanism on every
  record (then a run of such steps is the Gaussian pair in closed form, docs/THEORY.md
  section 13);
- ``reduced(phase)``: None, or (upper phases, lower phases) a phase is replaced by (k of M
  random allocation: docs/THEORY.md section 15, "k of M");
- ``check(sigma, s, epochs, delta, eps)``: the engine's range, one line when outside;
- ``epsilon(sigma, s, steps, delta, rel_width)`` / ``delta(sigma, s, steps, eps, floor,
  rel_width)``: a run of one kind of step by the sampler's own engine (bit for bit the
  single-phase brackets), as (result, the certificate's words).

Adding a sampler: its value in core/run.py (with ``kind``), its step laws (a pair module as
bounds/poisson/pair.py, or its own engine), and its entry here (one class, one line in
ENGINES); docs/ARCHITECTURE.md lists the steps.
"""
from __future__ import annotations

from fractions import Fraction


class PoissonSampling:
    """Poisson subsampling at rate q (bounds/poisson)."""
    kind = "poisson"

    def lattice_rate(self, s) -> Fraction | None:
        return s.sample_rate

    def gaussian_step(self, s) -> bool:
        return s.sample_rate == 1

    def reduced(self, phase):
        return None

    def check(self, sigma, s, epochs, delta, eps):
        from verifier.bounds import poisson as PO
        PO.RANGE.check(sigma, None, None, delta, eps, sample_rate=self.lattice_rate(s))

    def epsilon(self, sigma, s, steps, delta, rel_width):
        from verifier.bounds import poisson as PO
        r = PO.epsilon_bracket(sigma, self.lattice_rate(s), steps, delta,
                               rel_width=PO.check_rel_width(rel_width))
        return r, r.CERTIFIED

    def delta(self, sigma, s, steps, eps, floor, rel_width):
        from verifier.bounds import poisson as PO
        r = PO.delta_bracket(sigma, self.lattice_rate(s), steps, eps, floor,
                             rel_width=PO.check_rel_width(rel_width))
        return r, r.CERTIFIED


class EveryStepSampling(PoissonSampling):
    """No sampling: the Poisson engine at q = 1 (the Gaussian mechanism)."""
    kind = "every_step"

    def lattice_rate(self, s) -> Fraction:
        return Fraction(1)

    def gaussian_step(self, s) -> bool:
        return True


class RandomAllocationSampling:
    """Random allocation: k of M steps per record per epoch (bounds/profile for k = 1; k > 1
    by its reduction).  An epoch of one step (M = 1) is a Poisson step at q = 1."""
    kind = "random_allocation"

    def lattice_rate(self, s) -> Fraction | None:
        return Fraction(1) if s.steps_per_epoch == 1 else None

    def gaussian_step(self, s) -> bool:
        return s.steps_per_epoch == 1

    def reduced(self, phase):
        """k of M (k > 1): (upper phases, lower phases) -- each epoch dominated by one epoch
        of 1 of m_j for k blocks of sizes m_j in {floor(M/k), ceil(M/k)} (M mod k of the
        larger); it dominates the Gaussian pair of its steps' sum (mean k, variance
        M sigma^2: noise multiplier sqrt(M) sigma / k, taken at a rational above it)."""
        from verifier.core.run import EveryStep, Gaussian, Phase, RandomAllocation
        s = phase.sampler
        if s.steps_per_record == 1:
            return None
        M, k, E = s.steps_per_epoch, s.steps_per_record, phase.epochs
        small, r = divmod(M, k)
        up = [Phase(phase.mechanism, RandomAllocation(m), blocks * E * m)
              for m, blocks in ((small + 1, r), (small, k - r)) if blocks]
        sig = phase.noise_multiplier * sqrt_up(M) / k
        return up, [Phase(Gaussian(sig), EveryStep(), E)]

    def check(self, sigma, s, epochs, delta, eps):
        if s.steps_per_epoch == 1:            # a Poisson step at q = 1 in a run's lattice
            from verifier.bounds import poisson as PO
            return PO.RANGE.check(sigma, None, None, delta, eps, sample_rate=Fraction(1))
        from verifier.bounds import profile as PR
        PR.RANGE.check(sigma, s.steps_per_epoch, epochs, delta, eps)

    def epsilon(self, sigma, s, steps, delta, rel_width):
        from verifier.bounds import profile as PR
        M = s.steps_per_epoch
        return PR.epsilon_bracket(sigma, M, steps // M, delta, rel_width=rel_width), PR.CERTIFIED

    def delta(self, sigma, s, steps, eps, floor, rel_width):
        from verifier.bounds import profile as PR
        M = s.steps_per_epoch
        return (PR.delta_bracket(sigma, M, steps // M, eps, floor, rel_width=rel_width),
                PR.CERTIFIED)


def sqrt_up(n: int, digits: int = 12) -> Fraction:
    """A rational >= sqrt(n), within 10^-digits relative."""
    from math import isqrt
    scale = 10 ** digits
    r = isqrt(n * scale * scale)
    return Fraction(r + (r * r < n * scale * scale), scale)


ENGINES = {e.kind: e for e in (PoissonSampling(), RandomAllocationSampling(),
                               EveryStepSampling())}


def engine_of(sampler):
    """The sampler engine of a sampler value (core.run), by its ``kind``."""
    return ENGINES[sampler.kind]
