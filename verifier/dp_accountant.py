"""A certified accountant in Google dp_accounting's shape (needs ``dp-accounting``: the
``reference`` extra).

    import dp_accounting
    from verifier.dp_accountant import CertifiedRandomAllocationAccountant, RandomAllocationDpEvent

    epoch = RandomAllocationDpEvent(dp_accounting.GaussianDpEvent(1.1), num_selected=1,
                                    num_steps=20)          # one epoch: M = 20 steps
    acc = CertifiedRandomAllocationAccountant()
    acc.compose(epoch, 3)                                   # E = 3 epochs
    acc.get_epsilon(1e-5)            # certified upper end of epsilon(1e-5), a float rounded up
    acc.get_delta(1.0)               # certified upper end of delta(1)
    acc.get_epsilon_bracket(1e-5)    # the whole bracket (an EpsilonResult)

``CertifiedRunAccountant`` takes any tree of random-allocation epochs (``num_selected`` = k
of M steps, k >= 1), Poisson-sampled and plain Gaussian steps and composes it as a run
(docs/RUNS.md);
``CertifiedPoissonAccountant`` the Poisson and Gaussian leaves only.

What ``CertifiedRandomAllocationAccountant`` certifies: ``RandomAllocationDpEvent(event, num_selected=1, num_steps=M)`` with a
``GaussianDpEvent`` inside (every record in exactly one of M steps, the Gaussian mechanism
at each step; the shape of the random-allocation port's event), composed E times by
``compose(event, count)``, ``SelfComposedDpEvent`` or ``ComposedDpEvent``; ``NoOpDpEvent``
changes nothing and ``NonPrivateDpEvent`` makes epsilon and delta infinite (dp_accounting's
convention).  Add/remove adjacency only (the engine bounds both directions).  Every other
event is unsupported (``supports`` is False, ``compose`` raises dp_accounting's
``UnsupportedEventError``): Poisson-sampled events are ``CertifiedPoissonAccountant``'s
(below); epochs with different M or ``num_selected`` > 1 are ``CertifiedRunAccountant``'s.
Epochs with different noise multipliers are accounted at the smallest one (a valid
upper bound: the pair at a larger sigma is a post-processing of the pair at a smaller one,
docs/THEORY.md section 9).  Floats are read as the decimals they print as.
"""
from __future__ import annotations

import math
from fractions import Fraction

import attr
import dp_accounting
from dp_accounting import dp_event as _ev

from verifier.accountants import engine_delta, engine_sigma, epsilon_upper_float, up_float
from verifier.core.arith import InputError, parse_exact

__all__ = ["RandomAllocationDpEvent", "CertifiedRandomAllocationAccountant",
           "CertifiedPoissonAccountant", "CertifiedRunAccountant"]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RandomAllocationDpEvent(_ev.DpEvent):
    """Random allocation: each record in ``num_selected`` of ``num_steps`` steps chosen
    uniformly, ``event`` applied at every step (one epoch when num_selected = 1)."""
    event: _ev.DpEvent
    num_selected: int
    num_steps: int


def _walk(event, count: int, leaf):
    """The leaves of a composed event as a list (``leaf(event, count)`` -> list or error str),
    "nonprivate", or the first error message: NoOp adds nothing, SelfComposed multiplies the
    count, Composed concatenates (dp_accounting's conventions)."""
    if isinstance(event, _ev.NoOpDpEvent):
        return []
    if isinstance(event, _ev.NonPrivateDpEvent):
        return "nonprivate"
    if isinstance(event, _ev.SelfComposedDpEvent):
        return _walk(event.event, count * event.count, leaf)
    if isinstance(event, _ev.ComposedDpEvent):
        out = []
        for e in event.events:
            r = _walk(e, count, leaf)
            if isinstance(r, str):
                return r
            out += r
        return out
    return leaf(event, count)


def _epochs_of(event, count: int):
    """[(sigma, M, epochs)] of an event composed ``count`` times, "nonprivate", or an error
    message (str) naming what cannot be certified."""
    return _walk(event, count, _epoch_leaf)


def _epoch_leaf(event, count: int):
    """[(sigma, M, epochs)] of one epoch leaf (num_selected = 1), or an error message."""
    r = _allocation_leaf(event, count)
    if isinstance(r, str):
        return r
    (sigma, M, k, n), = r
    if k != 1:
        return (f"num_selected = {k}: CertifiedRandomAllocationAccountant certifies one "
                "selection per record per epoch; k of M is CertifiedRunAccountant's")
    return [(sigma, M, n)]


def _allocation_leaf(event, count: int):
    """[(sigma, M, k, epochs)] of a ``RandomAllocationDpEvent(GaussianDpEvent(sigma),
    num_selected=k, num_steps=M)`` leaf composed ``count`` times (1 <= k <= M), or an error
    message (str) naming what cannot be certified."""
    if type(event).__name__ == "RandomAllocationDpEvent":     # ours, or the port's
        inner = getattr(event, "event", None)
        if not isinstance(inner, _ev.GaussianDpEvent):
            return f"random allocation of a {type(inner).__name__}: only the Gaussian mechanism"
        M = getattr(event, "num_steps", None)
        if isinstance(M, bool) or not isinstance(M, int) or not 1 <= M <= 10 ** 7:
            return f"num_steps = {M!r}: an integer in [1, 1e7]"
        k = getattr(event, "num_selected", None)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= M:
            return f"num_selected = {k!r}: an integer in [1, num_steps = {M}]"
        try:
            sigma = parse_exact(inner.noise_multiplier, "noise_multiplier")
        except InputError as e:
            return str(e)
        if sigma <= 0:
            return f"noise_multiplier must be > 0, got {inner.noise_multiplier}"
        return [(sigma, M, k, count)]
    if isinstance(event, _ev.PoissonSampledDpEvent):
        return ("Poisson subsampling: use verifier.dp_accountant.CertifiedPoissonAccountant "
                "(not random allocation)")
    return f"{type(event).__name__}: not random allocation of the Gaussian mechanism"


class CertifiedRandomAllocationAccountant(dp_accounting.PrivacyAccountant):
    """dp_accounting's ``PrivacyAccountant`` for random allocation, certified."""

    def __init__(self, neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE):
        if neighboring_relation is not dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise InputError(f"neighboring_relation = {neighboring_relation}: the engine "
                             "certifies add/remove adjacency (ADD_OR_REMOVE_ONE) only")
        super().__init__(neighboring_relation)
        self.sigma: Fraction | None = None      # the smallest noise multiplier composed
        self.steps_per_epoch: int | None = None
        self.epochs = 0
        self.nonprivate = False

    def _maybe_compose(self, event, count, do_compose):
        r = _epochs_of(event, count)
        if isinstance(r, str) and r != "nonprivate":
            return self.CompositionErrorDetails(invalid_event=event, error_message=r)
        if r == "nonprivate":
            if do_compose:
                self.nonprivate = True
            return None
        Ms = {M for _, M, _n in r} | ({self.steps_per_epoch} if self.epochs else set())
        if len(Ms) > 1:
            return self.CompositionErrorDetails(
                invalid_event=event, error_message=f"epochs with different steps per epoch "
                f"{sorted(Ms)}: the engine composes epochs of one M")
        if do_compose:
            for sigma, M, n in r:
                if n:
                    self.sigma = sigma if self.sigma is None else min(self.sigma, sigma)
                    self.steps_per_epoch, self.epochs = M, self.epochs + n
        return None

    def get_epsilon_bracket(self, target_delta):
        """The certified bracket of epsilon(target_delta) (an ``EpsilonResult``)."""
        from verifier.api.profile import epsilon
        if self.nonprivate or not self.epochs:
            raise InputError("no random-allocation epoch composed" if not self.epochs else
                             "a NonPrivateDpEvent was composed: no guarantee")
        return epsilon(self.sigma, self.steps_per_epoch, self.epochs, delta=target_delta)

    def get_epsilon(self, target_delta) -> float:
        """Certified upper end of epsilon(target_delta), a float rounded up; 0 before any
        event, inf for a NonPrivateDpEvent or when no epsilon <= 60 is certified."""
        d = engine_delta(target_delta, "target_delta")
        if self.nonprivate:
            return math.inf
        if not self.epochs:
            return 0.0
        return epsilon_upper_float(self.sigma, self.steps_per_epoch, self.epochs, d)

    def get_delta(self, target_epsilon) -> float:
        """Certified upper end of delta(target_epsilon), a float rounded up."""
        from verifier.api.profile import delta
        from verifier.bounds.profile import RANGE
        eps = parse_exact(target_epsilon, "target_epsilon")
        RANGE.check(None, None, None, eps=eps)
        if self.nonprivate:
            return 1.0
        if not self.epochs:
            return 0.0
        s = engine_sigma(self.sigma)
        if s is None:
            return 1.0
        return min(1.0, up_float(delta(s, self.steps_per_epoch, self.epochs, epsilon=eps).delta.upper))


# ---- Poisson subsampling ---------------------------------------------------------------
def _poisson_leaf(event, count: int):
    q, inner = Fraction(1), event
    if isinstance(event, _ev.PoissonSampledDpEvent):
        inner = event.event
        try:
            q = parse_exact(event.sampling_probability, "sampling_probability")
        except InputError as e:
            return str(e)
        if not 0 <= q <= 1:
            return f"sampling_probability = {event.sampling_probability}: not in [0, 1]"
        if q == 0:
            return []                               # never sampled: nothing released
    if not isinstance(inner, _ev.GaussianDpEvent):
        return (f"{type(inner).__name__}: the engine certifies the (Poisson-subsampled) "
                "Gaussian mechanism")
    try:
        sigma = parse_exact(inner.noise_multiplier, "noise_multiplier")
    except InputError as e:
        return str(e)
    if sigma <= 0:
        return f"noise_multiplier must be > 0, got {inner.noise_multiplier}"
    return [(sigma, q, count)]


def _run_leaf(event, count: int):
    """[Phase] of one leaf composed ``count`` times: random-allocation epochs, Poisson-sampled
    or plain Gaussian steps; an error message (str) for anything else."""
    from verifier.core.run import Gaussian, Phase, Poisson, RandomAllocation
    if type(event).__name__ == "RandomAllocationDpEvent":
        r = _allocation_leaf(event, count)
        if isinstance(r, str):
            return r
        return [Phase(Gaussian(s), RandomAllocation(M, k), n * M) for s, M, k, n in r if n]
    r = _poisson_leaf(event, count)
    if isinstance(r, str):
        return r
    return [Phase(Gaussian(s), Poisson(q), n) for s, q, n in r if n]


def _poisson_only_leaf(event, count: int):
    if type(event).__name__ == "RandomAllocationDpEvent":
        return ("random allocation: use verifier.dp_accountant.CertifiedRunAccountant (any "
                "tree of random-allocation epochs and Poisson steps)")
    return _run_leaf(event, count)


class CertifiedRunAccountant(dp_accounting.PrivacyAccountant):
    """dp_accounting's ``PrivacyAccountant`` for any tree (``compose``, ``SelfComposedDpEvent``,
    ``ComposedDpEvent``) of ``RandomAllocationDpEvent(GaussianDpEvent(sigma), num_selected=k,
    num_steps=M)`` epochs (each record in k of the M steps; k = 1 the paper's setting, k > 1
    the run engine's k of M), ``PoissonSampledDpEvent(q, GaussianDpEvent(sigma))`` steps and
    ``GaussianDpEvent`` steps (q = 1): a run of phases (``run()``), composed exactly
    (bounds/runs.py; docs/THEORY.md section 15); any other event refused in one line naming
    it.  Add/remove adjacency only."""
    _leaf = staticmethod(_run_leaf)
    _none = "no step composed"

    def __init__(self, neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE):
        if neighboring_relation is not dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise InputError(f"neighboring_relation = {neighboring_relation}: the engine "
                             "certifies add/remove adjacency (ADD_OR_REMOVE_ONE) only")
        super().__init__(neighboring_relation)
        self.phases: list = []                  # verifier Phases, in the order composed
        self.nonprivate = False

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self.phases)

    def run(self):
        """The composed events as a ``verifier.Run`` (one phase per leaf composed)."""
        from verifier.core.run import Run
        if not self.phases:
            raise InputError(self._none)
        return Run(tuple(self.phases))

    def _maybe_compose(self, event, count, do_compose):
        from verifier.core.run import check_size
        r = _walk(event, count, self._leaf)
        if isinstance(r, str) and r != "nonprivate":
            return self.CompositionErrorDetails(invalid_event=event, error_message=r)
        if r != "nonprivate":
            try:
                check_size([*self.phases, *r], "the composed events")
            except InputError as e:
                return self.CompositionErrorDetails(invalid_event=event, error_message=str(e))
        if do_compose:
            if r == "nonprivate":
                self.nonprivate = True
                return None
            self.phases.extend(r)
        return None

    def get_epsilon_bracket(self, target_delta):
        """The certified bracket of epsilon(target_delta) (a ``RunEpsilon``; one kind of
        step gives bit for bit the ``PoissonEpsilon`` bracket)."""
        from verifier.bounds.runs import epsilon_bracket
        from verifier.core.arith import parse_delta
        if self.nonprivate:
            raise InputError("a NonPrivateDpEvent was composed: no guarantee")
        return epsilon_bracket(self.run(), parse_delta(target_delta, "target_delta"))

    def get_epsilon(self, target_delta) -> float:
        """Certified upper end of epsilon(target_delta), a float rounded up; 0 before any
        step, inf for a NonPrivateDpEvent, a sigma below the engine's range, or no epsilon
        <= 60 certified; a sigma above its range (50) read at 50 (an upper bound)."""
        from verifier.accountants import engine_run
        from verifier.bounds.poisson import RANGE
        from verifier.bounds.runs import epsilon_bracket
        d = parse_exact(target_delta, "target_delta")
        RANGE.check(None, None, None, delta=d)
        if self.nonprivate:
            return math.inf
        if not self.phases:
            return 0.0
        run = engine_run(self.run())
        if run is None:
            return math.inf
        e = epsilon_bracket(run, d).epsilon
        return math.inf if e is None else up_float(e.upper)

    def get_delta(self, target_epsilon) -> float:
        """Certified upper end of delta(target_epsilon), a float rounded up."""
        from verifier.accountants import engine_run
        from verifier.bounds.poisson import RANGE
        from verifier.bounds.runs import delta_bracket
        eps = parse_exact(target_epsilon, "target_epsilon")
        RANGE.check(None, None, None, eps=eps)
        if self.nonprivate:
            return 1.0
        if not self.phases:
            return 0.0
        run = engine_run(self.run())
        if run is None:
            return 1.0
        return min(1.0, up_float(delta_bracket(run, eps).delta.upper))


class CertifiedPoissonAccountant(CertifiedRunAccountant):
    """dp_accounting's ``PrivacyAccountant`` for the (Poisson-subsampled) Gaussian mechanism
    (``PoissonSampledDpEvent(q, GaussianDpEvent(sigma))`` and ``GaussianDpEvent`` (q = 1) in
    any tree), certified; different sigma or q are phases of a run composed exactly.  A
    random-allocation epoch is ``CertifiedRunAccountant``'s."""
    _leaf = staticmethod(_poisson_only_leaf)
    _none = "no Poisson-subsampled step composed"
