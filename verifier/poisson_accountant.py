"""A certified accountant for DP-SGD with Poisson subsampling (Opacus's default sampler), in
Opacus's shape; importable without torch or Opacus; with Opacus installed, importing it
registers ``PrivacyEngine(accountant="certified_poisson")`` (docs/TRAINING.md).

It certifies only the sampler that ran: ``make_private`` binds it to the data loader Opacus
prepared, and a loader whose batch sampler is not Opacus's Poisson sampler
(``UniformWithReplacementSampler``, what ``poisson_sampling=True`` puts in place) is refused
in one line (``UncertifiedSampler``), as are steps whose loader it never saw and gradient
accumulation (an accumulated step sums several Poisson batches: a record can be in more
than one, so the sensitivity is not 1).

``CertifiedPoissonAccountant()``: ``step(noise_multiplier=, sample_rate=)`` once per
optimizer step, ``get_epsilon(delta)`` the certified upper end of epsilon(delta) of the
steps taken (bounds/poisson; docs/THEORY.md section 12), ``get_epsilon_bracket(delta)`` the
bracket, ``history`` as Opacus keeps it ([(noise_multiplier, sample_rate, steps)]),
``len()``, ``mechanism()``, ``state_dict()`` / ``load_state_dict()``.

Steps with different noise multipliers (a noise schedule) are composed exactly: the history
is a run of phases (``run()``, a ``verifier.Run``), each phase's steps on one lattice and
the phases composed by the product of their transforms (bounds/runs.py; docs/THEORY.md
section 15), not accounted at the worst phase.  ``get_epsilon`` reads a phase whose noise
multiplier is above the engine's range (50) at 50 (a valid upper bound: the pair at a
larger sigma is a post-processing of the pair at a smaller one) and returns ``inf`` for one
below it (0.3); ``get_epsilon_bracket`` refuses both in one line.
"""
from __future__ import annotations

from verifier.accountants import (UncertifiedSampler, describe_sampler, engine_frame,
                                  skipped_step, up_float)
from verifier.core.arith import InputError, parse_exact, parse_rate

try:                                              # Opacus's interface, when it is installed
    from opacus.accountants import IAccountant as _Base   # type: ignore
except Exception:                                 # noqa: BLE001 (no Opacus, or no torch)
    _Base = object

MECHANISM = "certified_poisson"


def refusal(kind: str, detail) -> str:
    """The one-line refusal for a sampler other than Poisson subsampling."""
    if kind == "random_allocation":
        return ("the loader samples by random allocation (verifier's "
                "RandomAllocationBatchSampler), not Poisson subsampling: use "
                "PrivacyEngine(accountant='random_allocation')")
    if kind == "shuffle":
        return (f"the data loader shuffles into fixed-size batches (DataLoader(batch_size="
                f"{detail}, shuffle=True)), not Poisson subsampling: pass "
                "make_private(..., poisson_sampling=True) (Opacus's default)")
    if kind == "sequential":
        return (f"the data loader takes batches in a fixed order (batch_size={detail}): no "
                "sampling to account for; pass make_private(..., poisson_sampling=True)")
    return (f"the data loader's batch sampler is {detail}, not Opacus's Poisson sampler: pass "
            "make_private(..., poisson_sampling=True)")


class CertifiedPoissonAccountant(_Base):
    """Certified (epsilon, delta) of DP-SGD with Poisson subsampling over the steps taken."""

    def __init__(self):
        self.history: list = []                   # [(noise_multiplier, sample_rate, steps)]
        self.sample_rate = None                   # the bound sampler's rate
        self._refused: str | None = None
        self._bound = False
        self._stepped = 0
        self._prior = 0                           # steps of a run resumed from a state
        self._drawn = None                        # the bound sampler's count_batches

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    # ---- what ran
    def bind(self, data_loader):
        """Bind the accountant to the data loader training iterates (Opacus's
        ``make_private`` does this itself); raises ``UncertifiedSampler`` unless its batch
        sampler is Opacus's Poisson sampler."""
        kind, detail = describe_sampler(data_loader)
        if kind != "poisson":
            self._refused = refusal(kind, detail)
            raise UncertifiedSampler(self._refused)
        if getattr(data_loader.batch_sampler, "num_replicas", 1) not in (1, None):
            self._refused = ("distributed Poisson sampling (several replicas) is not certified "
                             "by this accountant")
            raise UncertifiedSampler(self._refused)
        self.sample_rate, self._bound, self._refused = detail, True, None
        self._drawn = count_batches(data_loader.batch_sampler)
        return self

    def get_optimizer_hook_fn(self, sample_rate):
        """Opacus's hook, called by ``make_private``: binds the data loader it prepared."""
        seen = engine_frame(("make_private",), self, MECHANISM)
        if seen is not None and "data_loader" in seen[1]:
            self.bind(seen[1]["data_loader"])

        def hook_fn(optim):
            if optim.accumulated_iterations != 1:
                self._refused = (f"gradient accumulation over {optim.accumulated_iterations} "
                                 "Poisson batches: a record can be in several of them, so the "
                                 "step's sensitivity is not one clipping norm; not certified")
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=sample_rate)
        return hook_fn

    def step(self, *, noise_multiplier, sample_rate):
        sigma = parse_exact(noise_multiplier, "noise_multiplier")
        if sigma <= 0:
            raise InputError(f"noise_multiplier must be > 0, got {noise_multiplier}")
        parse_rate(sample_rate)                   # a number in (0, 1], or one line
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            nm, sr, n = self.history[-1]
            self.history[-1] = (nm, sr, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))
        self._stepped += 1

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    def parameters(self) -> tuple:
        """(sigma, q, T) of a history of one kind of step; a history of several noise
        multipliers or rates is a run of phases (``run()``), refused here in one line."""
        run = self.run()
        if len(run.merged()) != 1:
            raise InputError(f"the history has {len(run.merged())} kinds of step (a schedule): "
                             "use accountant.run(), composed exactly by get_epsilon")
        (m, s, n), = run.merged()
        return m.noise_multiplier, s.sample_rate, n

    def run(self):
        """The steps taken as a ``verifier.Run`` of Poisson phases, one per entry of the
        history (validated: positive integer counts, sigma > 0, q in (0, 1])."""
        from verifier.core.run_files import run_from_history
        return run_from_history(self.history, "the accountant's history")

    def _check_run(self):
        why = run_refusal(self)
        if why:
            raise UncertifiedSampler(why)

    def get_epsilon_bracket(self, delta):
        """The certified bracket of epsilon(delta) of the steps taken (a ``RunEpsilon``;
        one kind of step gives bit for bit the ``PoissonEpsilon`` bracket)."""
        from verifier.bounds.poisson import RANGE
        from verifier.bounds.runs import epsilon_bracket
        d = parse_exact(delta, "delta")
        RANGE.check(None, None, None, delta=d)
        self._check_run()
        return epsilon_bracket(self.run(), d)

    def get_epsilon(self, delta, **kwargs) -> float:
        """The certified upper end of epsilon(delta) as a float rounded up; ``inf`` when
        no epsilon <= 60 is certified or sigma is below the engine's range (0.3); above its
        range (50) the answer at 50 (a valid upper bound: epsilon does not increase with
        sigma)."""
        import math
        from verifier.bounds.poisson import RANGE
        from verifier.accountants import engine_run
        from verifier.bounds.runs import epsilon_bracket
        d = parse_exact(delta, "delta")
        RANGE.check(None, None, None, delta=d)
        self._check_run()
        run = engine_run(self.run())
        if run is None:
            return math.inf
        r = epsilon_bracket(run, d)
        return math.inf if r.epsilon is None else up_float(r.epsilon.upper)

    def state_dict(self, destination=None) -> dict:
        out = destination if destination is not None else {}
        out["history"] = list(self.history)
        out["mechanism"] = self.mechanism()
        out["bound"] = self._bound
        out["refused"] = run_refusal(self) if self._stepped else self._refused
        return out

    def load_state_dict(self, state_dict: dict):
        if state_dict.get("mechanism", self.mechanism()) != self.mechanism():
            raise InputError(f"state of a {state_dict.get('mechanism')!r} accountant, not "
                             f"{MECHANISM}")
        from verifier.core.run_files import run_from_history
        hist = state_dict.get("history")
        if not isinstance(hist, (list, tuple)) or not all(isinstance(h, (list, tuple))
                                                          for h in hist):
            raise InputError("state_dict['history'] must be a list of (noise_multiplier, "
                             "sample_rate, steps) triples")
        hist = [tuple(h) for h in hist]
        if hist:                         # checked, not trusted: positive integer counts, ...
            run_from_history(hist, "the state's history")
        self.history = hist
        self._prior = sum(n for _, _, n in self.history)
        self._stepped = 0
        self._refused = state_dict.get("refused") or self._refused


def count_batches(batch_sampler) -> list:
    """A counter [batches yielded, 1 while an epoch's iteration is under way (its last batch
    may await its step)] of ``batch_sampler`` from now on: its class is replaced by a
    subclass of the same name whose ``__iter__`` counts (Opacus's Poisson sampler draws in
    the main process; a DataLoader's workers receive index lists)."""
    counter = getattr(batch_sampler, "_verifier_drawn", None)
    if counter is None:
        cls = type(batch_sampler)

        def __iter__(self):
            self._verifier_drawn[1] = 1
            for batch in cls.__iter__(self):
                self._verifier_drawn[0] += 1
                yield batch
            self._verifier_drawn[1] = 0
        batch_sampler.__class__ = type(cls.__name__, (cls,), {"__iter__": __iter__,
                                                               "__module__": cls.__module__})
        counter = batch_sampler._verifier_drawn = [0, 0]
    return counter


def run_refusal(acc: CertifiedPoissonAccountant) -> str | None:
    """Why the steps cannot be certified as Poisson subsampling, or None: a bound loader
    with another sampler, gradient accumulation, steps without a bound loader, a sample
    rate other than the bound sampler's, a run planned with poisson_sampling=False."""
    if acc._refused:
        return acc._refused
    if acc._stepped and not acc._bound:
        return (f"the accountant did not see the data loader its {acc._stepped} steps came "
                "from, so it cannot tell which sampler ran: call accountant.bind(data_loader) "
                "with the loader training iterates (Opacus's make_private binds it)")
    drawn, in_flight = acc._drawn if acc._drawn is not None else (0, 0)
    if drawn > acc._stepped + in_flight:          # an epoch under way: its last batch may wait
        return skipped_step(drawn, acc._stepped, "Poisson ")
    if acc._bound and acc._stepped:
        rate = parse_exact(acc.sample_rate, "sample_rate")
        for _, sr, _ in acc.history:
            if parse_exact(sr, "sample_rate") != rate:
                return (f"steps at sample_rate = {sr} but the bound Poisson sampler's rate is "
                        f"{acc.sample_rate}")
    if not acc._stepped:
        seen = engine_frame(("make_private_with_epsilon",), None, MECHANISM)
        if seen is not None and not seen[1].get("poisson_sampling", True):
            return ("make_private_with_epsilon(..., poisson_sampling=False) would train with the "
                    "loader's own sampler, not Poisson subsampling: keep poisson_sampling=True")
    return None


def register_with_opacus() -> bool:
    """Register the accountant in Opacus's registry as ``"certified_poisson"``; done on
    import of this module when Opacus is installed.  False without Opacus."""
    try:
        from opacus.accountants import create_accountant, register_accountant
    except Exception:                             # noqa: BLE001 (no Opacus, or no torch)
        return False
    try:
        register_accountant(MECHANISM, CertifiedPoissonAccountant)
    except ValueError:
        have = type(create_accountant(MECHANISM))
        if have is not CertifiedPoissonAccountant and have.__module__ == __name__:
            register_accountant(MECHANISM, CertifiedPoissonAccountant, force=True)
    return True


register_with_opacus()
