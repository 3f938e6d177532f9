"""A training run as a value: what every surface (API, CLI run files, the Opacus and
dp_accounting accountants) hands to the engines (docs/THEORY.md section 15).

    Gaussian(noise_multiplier)                 the mechanism of one step (sensitivity 1)
    Poisson(sample_rate)                       each record in each step with probability q
    RandomAllocation(steps_per_epoch, k)       each record in k of the M steps of an epoch
    EveryStep()                                every record in every step (no sampling)
    Phase(mechanism, sampler, steps)           ``steps`` steps in all of one kind
    Run(phases)                                a sequence of phases

All immutable and hashable; every number exact (a float is read as the decimal it prints
as: ``core.arith.parse_exact``).  ``steps`` always means the steps of a phase in all (T),
never steps per epoch: a random-allocation phase of E epochs of M steps has steps = E M
(``Phase.epochs`` gives E back).  The names are Opacus's and dp_accounting's:
``noise_multiplier``, ``sample_rate``, ``steps``, ``epochs``, ``steps_per_epoch``.

A run file (TOML or JSON) lists its phases:

    [[phases]]
    noise_multiplier = "1.2"
    sampler = "poisson"          # poisson | random_allocation | every_step
    sample_rate = "0.05"
    steps = 40                   # or epochs = E (Poisson: T = floor(E / q), Opacus's rule)

    [[phases]]
    noise_multiplier = "0.9"
    sampler = "random_allocation"
    steps_per_epoch = 100
    epochs = 2                   # steps_per_record = k (default 1)

Mistakes are refused in one line naming the phase and the value (``InputError``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import InputError, decimal_str, parse_exact, parse_rate

MAX_PHASES = 1000          # phases of one run (a run file, a history, an event tree)
MAX_RUN_STEPS = 10 ** 7    # compositions of one run in all (``Run.compositions``: Poisson and
                           # every-step steps, random-allocation epochs; the lattice's range)
MAX_EPOCH_STEPS = 10 ** 11  # steps of a random-allocation phase (M up to 1e7 per epoch)


def _num(q: Fraction) -> str:
    return decimal_str(q, 17)


@dataclass(frozen=True)
class Gaussian:
    """The Gaussian mechanism with noise multiplier sigma (noise sigma times the clipping
    norm, sensitivity one clipping norm)."""
    noise_multiplier: Fraction
    kind = "gaussian"

    def __post_init__(self):
        s = parse_exact(self.noise_multiplier, "noise_multiplier")
        if s <= 0:
            raise InputError(f"noise_multiplier must be > 0, got {self.noise_multiplier}")
        object.__setattr__(self, "noise_multiplier", s)

    def describe(self) -> str:
        return f"sigma = {_num(self.noise_multiplier)}"

    def to_json(self) -> dict:
        return {"mechanism": self.kind, "noise_multiplier": _exact(self.noise_multiplier)}


def _exact(q: Fraction) -> str:
    from verifier.core.arith import frac_str
    return frac_str(q)


@dataclass(frozen=True)
class Poisson:
    """Poisson subsampling: each record in each step independently with probability q."""
    sample_rate: Fraction
    kind = "poisson"

    def __post_init__(self):
        object.__setattr__(self, "sample_rate", parse_rate(self.sample_rate))

    def describe(self) -> str:
        return f"Poisson q = {_num(self.sample_rate)}"

    def to_json(self) -> dict:
        return {"sampler": self.kind, "sample_rate": _exact(self.sample_rate)}


@dataclass(frozen=True)
class RandomAllocation:
    """Random allocation: each record in k (steps_per_record) of the M (steps_per_epoch)
    steps of every epoch, chosen uniformly (arXiv 2605.06259; k = 1 its setting)."""
    steps_per_epoch: int
    steps_per_record: int = 1
    kind = "random_allocation"

    def __post_init__(self):
        M = integer_arg(self.steps_per_epoch, "steps_per_epoch", 1)
        k = integer_arg(self.steps_per_record, "steps_per_record", 1)
        if k > M:
            raise InputError(f"steps_per_record = {k} is more than steps_per_epoch = {M}")
        object.__setattr__(self, "steps_per_epoch", M)
        object.__setattr__(self, "steps_per_record", k)

    def describe(self) -> str:
        k = "" if self.steps_per_record == 1 else f", k = {self.steps_per_record} per record"
        return f"random allocation, M = {self.steps_per_epoch} steps per epoch{k}"

    def to_json(self) -> dict:
        return {"sampler": self.kind, "steps_per_epoch": self.steps_per_epoch,
                "steps_per_record": self.steps_per_record}


@dataclass(frozen=True)
class EveryStep:
    """No sampling: every record in every step (full-batch DP-GD)."""
    kind = "every_step"

    def describe(self) -> str:
        return "every record in every step"

    def to_json(self) -> dict:
        return {"sampler": self.kind}


SAMPLERS = {"poisson": Poisson, "random_allocation": RandomAllocation, "every_step": EveryStep}


def check_size(phases, source: str) -> None:
    """At most MAX_RUN_STEPS compositions (``Phase.compositions``: Poisson steps,
    random-allocation epochs) in all, else one line naming ``source``."""
    n = sum(p.compositions for p in phases)
    if n > MAX_RUN_STEPS:
        what = ("steps in all" if n == sum(p.steps for p in phases) else
                "compositions in all (Poisson steps and random-allocation epochs)")
        raise InputError(f"{source}: {n} {what}; at most {MAX_RUN_STEPS}")


def integer_arg(value, name: str, minimum: int, maximum: int = MAX_RUN_STEPS * 10) -> int:
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, got {value!r}")
    v = parse_exact(value, name)
    if v.denominator != 1:
        raise InputError(f"{name} must be an integer, got {str(value)[:40]}")
    if v < minimum:
        raise InputError(f"{name} must be >= {minimum}, got {str(value)[:40]}")
    if v > maximum:
        raise InputError(f"{name} = {str(value)[:40]} is above the supported "
                         f"{min(maximum, MAX_RUN_STEPS)}")
    return int(v)


@dataclass(frozen=True)
class Phase:
    """``steps`` steps (in all) of one mechanism under one sampler.  For random allocation
    ``steps`` is a whole number of epochs times M."""
    mechanism: Gaussian
    sampler: object
    steps: int

    def __post_init__(self):
        if not isinstance(self.mechanism, Gaussian):
            raise InputError(f"mechanism must be Gaussian(noise_multiplier), got "
                             f"{type(self.mechanism).__name__}")
        if not isinstance(self.sampler, tuple(SAMPLERS.values())):
            raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}, got "
                             f"{type(self.sampler).__name__}")
        ra = isinstance(self.sampler, RandomAllocation)
        T = integer_arg(self.steps, "steps", 1, MAX_EPOCH_STEPS if ra else MAX_RUN_STEPS * 10)
        if ra and T % self.sampler.steps_per_epoch:
            raise InputError(f"steps = {T} is not a whole number of epochs of "
                             f"steps_per_epoch = {self.sampler.steps_per_epoch}")
        object.__setattr__(self, "steps", T)

    @property
    def epochs(self) -> int | None:
        """E for random allocation (steps / M), None for the other samplers."""
        if isinstance(self.sampler, RandomAllocation):
            return self.steps // self.sampler.steps_per_epoch
        return None

    @property
    def noise_multiplier(self) -> Fraction:
        return self.mechanism.noise_multiplier

    @property
    def compositions(self) -> int:
        """How many laws the engines compose for this phase: its steps (Poisson, every
        step), its epochs times k (random allocation: one law per epoch, k blocks of one
        per record for k of M)."""
        if self.epochs is not None:
            return self.epochs * self.sampler.steps_per_record
        return self.steps

    @property
    def step_kind(self) -> tuple:
        """What one step (or epoch) is, without the count: phases of the same kind compose
        into one phase (the composition is commutative).  Poisson at q = 1 is every_step."""
        s = self.sampler
        if isinstance(s, Poisson) and s.sample_rate == 1:
            s = EveryStep()
        return (self.mechanism, s)

    def describe(self) -> str:
        if self.epochs is not None:
            return (f"{self.epochs} epoch{'s' if self.epochs != 1 else ''} of "
                    f"{self.sampler.describe()} at {self.mechanism.describe()} "
                    f"(T = {self.steps} steps)")
        return (f"{self.steps} step{'s' if self.steps != 1 else ''} of "
                f"{self.sampler.describe()} at {self.mechanism.describe()}")

    def to_json(self) -> dict:
        out = {"noise_multiplier": _exact(self.noise_multiplier), **self.sampler.to_json(),
               "steps": self.steps}
        if self.epochs is not None:
            out["epochs"] = self.epochs
        return out


@dataclass(frozen=True)
class Run:
    """A sequence of phases (the order is kept for reports; the guarantee does not depend on
    it: the composition of independent steps is a product measure)."""
    phases: tuple

    def __post_init__(self):
        ph = tuple(self.phases)
        if not ph:
            raise InputError("a run needs at least one phase")
        if len(ph) > MAX_PHASES:
            raise InputError(f"a run of {len(ph)} phases; at most {MAX_PHASES}")
        for i, p in enumerate(ph):
            if not isinstance(p, Phase):
                raise InputError(f"phase {i + 1} is a {type(p).__name__}, not a Phase")
        object.__setattr__(self, "phases", ph)

    @property
    def steps(self) -> int:
        """Steps in all (T)."""
        return sum(p.steps for p in self.phases)

    @property
    def compositions(self) -> int:
        """The laws the engines compose for the whole run (Phase.compositions summed): at
        most MAX_RUN_STEPS."""
        return sum(p.compositions for p in self.phases)

    def merged(self) -> tuple:
        """((mechanism, sampler, steps), ...): the phases of the same kind of step merged
        (their counts added), in order of first appearance."""
        out: dict = {}
        for p in self.phases:
            out[p.step_kind] = out.get(p.step_kind, 0) + p.steps
        return tuple((m, s, n) for (m, s), n in out.items())

    def __add__(self, other):
        """The run followed by ``other`` (a Run or a Phase): a run trained in parts (two
        accountants' runs, a pre-training and a fine-tuning run) composed as one."""
        if isinstance(other, Phase):
            other = Run((other,))
        if not isinstance(other, Run):
            return NotImplemented
        return Run(self.phases + other.phases)

    def describe(self) -> str:
        if len(self.phases) == 1:
            return self.phases[0].describe()
        return (f"a run of {len(self.phases)} phases, T = {self.steps} steps in all: "
                + "; ".join(p.describe() for p in self.phases))

    def to_json(self) -> dict:
        return {"steps": self.steps, "phases": [p.to_json() for p in self.phases]}


# ---- constructors from what users hold

def phase(noise_multiplier, *, sample_rate=None, steps=None, epochs=None,
          steps_per_epoch=None, steps_per_record=1, sampler=None) -> Phase:
    """One phase from keywords (the run file's keys): Poisson with ``sample_rate`` (and
    ``steps``, or ``epochs`` as Opacus counts them: T = floor(E / q)); random allocation with
    ``steps_per_epoch`` (and ``epochs``, or ``steps`` a multiple of M; ``steps_per_record``
    k); ``sampler="every_step"`` for no sampling.  The sampler is inferred when not named."""
    if sampler is None:
        sampler = ("random_allocation" if steps_per_epoch is not None
                   else "poisson" if sample_rate is not None else None)
        if sampler is None:
            raise InputError("a phase needs a sampler: sample_rate (Poisson), steps_per_epoch "
                             "(random allocation) or sampler = \"every_step\"")
    if sampler not in SAMPLERS:
        raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}, got {str(sampler)[:40]!r}")
    mech = Gaussian(noise_multiplier)
    if steps is not None and epochs is not None:     # both (a run's own JSON): consistent
        p = phase(noise_multiplier, sample_rate=sample_rate, epochs=epochs,
                  steps_per_epoch=steps_per_epoch, steps_per_record=steps_per_record,
                  sampler=sampler)
        if p.steps != integer_arg(steps, "steps", 1, MAX_EPOCH_STEPS):
            raise InputError(f"steps = {steps} but epochs = {epochs} make {p.steps} steps")
        return p
    if steps is None and epochs is None:
        raise InputError("a phase needs steps (or epochs)")
    if sampler == "poisson":
        if steps_per_epoch is not None:
            raise InputError("steps_per_epoch is random allocation's; a Poisson phase has "
                             "sample_rate and steps")
        if sample_rate is None:
            raise InputError("a Poisson phase needs sample_rate")
        s = Poisson(sample_rate)
        if epochs is not None:
            E = integer_arg(epochs, "epochs", 1)
            steps = math.floor(E / s.sample_rate)        # Opacus: int(epochs / sample_rate)
            if steps < 1:
                raise InputError(f"epochs = {E} at sample_rate = {_num(s.sample_rate)} is "
                                 "less than one step")
        return Phase(mech, s, steps)
    if sampler == "random_allocation":
        if sample_rate is not None:
            raise InputError("sample_rate is Poisson's; a random-allocation phase has "
                             "steps_per_epoch and epochs")
        if steps_per_epoch is None:
            raise InputError("a random-allocation phase needs steps_per_epoch")
        s = RandomAllocation(steps_per_epoch, steps_per_record)
        if epochs is not None:
            steps = integer_arg(epochs, "epochs", 1) * s.steps_per_epoch
        return Phase(mech, s, steps)
    if sample_rate is not None or steps_per_epoch is not None:
        raise InputError("an every_step phase takes no sample_rate or steps_per_epoch")
    if epochs is not None:
        steps = epochs                                   # one step is one epoch
    return Phase(mech, EveryStep(), steps)


def steps_per_epoch_of(sample_rate, steps_per_epoch: int | None = None,
                       steps_per_record: int = 1) -> int:
    """M for a sample rate 1/M read by the float policy (Opacus passes the float 1/M, so
    1/M to within 1e-9 is accepted), checked against ``steps_per_epoch`` when given (then
    k/M too, each record's chance per step for k = ``steps_per_record`` of M: the k-of-M
    sampler's ``sample_rate``); one line otherwise."""
    rate = parse_rate(sample_rate)
    M = steps_per_epoch or round(1 / rate)
    tol = Fraction(1, 10 ** 9)
    if abs(rate * M - 1) > tol and not (steps_per_epoch and
                                        abs(rate * M - steps_per_record) <= tol):
        raise InputError(f"sample_rate = {sample_rate} is not 1/M for M = {M} steps per epoch "
                         "(random allocation sends each record to one of M steps; gradient "
                         "accumulation merges the batches of several steps: not certified)"
                         if steps_per_epoch else
                         f"sample_rate = {sample_rate} is not 1/M for an integer M (random "
                         "allocation sends each record to one of M steps per epoch)")
    return M
