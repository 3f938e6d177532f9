"""A certified accountant for random allocation with Opacus's conventions, importable
without torch or Opacus; with Opacus installed, importing it registers the accountant as
``PrivacyEngine(accountant="random_allocation")``.

It certifies only the sampler that ran: ``make_private`` binds it to the data loader Opacus
prepared; any other batch sampler than verifier's ``RandomAllocationBatchSampler`` is refused
in one line (``UncertifiedSampler``, a ValueError), as are steps from a loader unseen.  A
sampler with ``steps_per_record = k > 1`` (each record in k of the M steps of an epoch) makes
the epochs k of M, certified as a run (docs/RUNS.md, "k of M").

``RandomAllocationAccountant(steps_per_epoch=M)``: ``step(noise_multiplier=, sample_rate=)``
once per optimizer step, ``get_epsilon(delta)`` the certified upper end of epsilon(delta) of
the steps taken (verifier.epsilon: docs/THEORY.md section 9), ``get_epsilon_bracket(delta)``
the whole bracket, ``history`` as Opacus keeps it ([(noise_multiplier, sample_rate, steps)]),
``len()``, ``mechanism()``, ``state_dict()`` / ``load_state_dict()`` (an IAccountant too).

What it accounts: random allocation sends every record to one of the M steps of an epoch;
``sample_rate`` must be 1/M (Opacus passes the expected batch fraction).  A partial last
epoch is counted as a whole one: the steps not taken are outputs dropped, a post-processing,
so the whole epoch's guarantee covers them.  The noise multiplier must stay constant within
an epoch (a change inside one is refused at ``get_epsilon``); across epochs it may change:
the epochs are then a run (``run()``) composed exactly (docs/THEORY.md section 15).
"""
from __future__ import annotations

from fractions import Fraction

from verifier.core.arith import InputError, parse_exact, parse_rate
from verifier.core.run import steps_per_epoch_of  # noqa: F401 (the API and the tests read it here too)
from verifier.accountant_inputs import (engine_delta, engine_run,  # noqa: F401 (re-exported)
                                        engine_sigma, epsilon_upper_float, up_float)

try:                                              # Opacus's interface, when it is installed
    from opacus.accountants import IAccountant as _Base   # type: ignore
except Exception:                                 # noqa: BLE001 (no Opacus, or no torch)
    _Base = object


class UncertifiedSampler(InputError):
    """The batches did not come from a sampler this accountant certifies (a ValueError, as
    Opacus raises): one line that says what ran and what to do."""


def engine_frame(names: tuple, accountant=None, mechanism: str = "random_allocation"):
    """The locals of the innermost ``PrivacyEngine.<name>`` call on the stack (name in
    ``names``) whose engine holds ``accountant`` (any accountant of ``mechanism`` when
    None), or None.  This is how the accountant sees the data loader Opacus's
    ``make_private`` prepared: Opacus hands an accountant only the sample rate, and the
    sampler that ran is a local of ``make_private`` (Opacus 1.5-1.6; tests/test_opacus.py
    checks it against the installed Opacus)."""
    import sys
    try:
        from opacus import PrivacyEngine
    except Exception:                             # noqa: BLE001 (no Opacus, or no torch)
        return None
    f = sys._getframe(1)
    for _ in range(16):
        if f is None:
            return None
        if f.f_code.co_name in names:
            eng = f.f_locals.get("self")
            acc = getattr(eng, "accountant", None)
            if isinstance(eng, PrivacyEngine) and (
                    acc is accountant if accountant is not None else
                    getattr(acc, "mechanism", lambda: None)() == mechanism):
                return f.f_code.co_name, dict(f.f_locals)
        f = f.f_back
    return None


def describe_sampler(data_loader) -> tuple:
    """(kind, detail) of the batch sampler a data loader draws from: kind is
    "random_allocation", "poisson", "shuffle", "sequential" or "unknown"."""
    from verifier.sampling import RandomAllocationBatchSampler
    bs = getattr(data_loader, "batch_sampler", None)
    if isinstance(bs, RandomAllocationBatchSampler):
        return "random_allocation", bs
    name = type(bs).__name__
    if name in ("UniformWithReplacementSampler", "DistributedUniformWithReplacementSampler"):
        return "poisson", getattr(bs, "sample_rate", None)
    inner = getattr(bs, "sampler", None)
    inner_name = type(inner).__name__
    if name == "BatchSampler" and inner_name == "RandomSampler":
        return "shuffle", getattr(bs, "batch_size", None)
    if name == "BatchSampler" and inner_name == "SequentialSampler":
        return "sequential", getattr(bs, "batch_size", None)
    return "unknown", f"{name}({inner_name})" if inner is not None else name


_TO_TRAIN = ("build the loader with verifier.training.random_allocation_loader(dataset, "
             "steps_per_epoch=M) and call make_private(..., poisson_sampling=False)")


def refusal(kind: str, detail) -> str:
    """The one-line refusal for a sampler other than random allocation."""
    if kind == "poisson":
        return (f"Poisson sampling ran (Opacus's poisson_sampling=True replaced the batch "
                f"sampler; sample_rate = {detail}), not random allocation: for a certified "
                "Poisson epsilon use PrivacyEngine(accountant='certified_poisson') (import "
                f"verifier.poisson_accountant); to certify random allocation, {_TO_TRAIN}")
    if kind == "shuffle":
        return (f"the data loader shuffles into fixed-size batches (DataLoader(batch_size="
                f"{detail}, shuffle=True)); no known accountant bounds that sampler tightly, so "
                f"no certified epsilon: {_TO_TRAIN}")
    if kind == "sequential":
        return (f"the data loader takes batches in a fixed order (batch_size={detail}, no "
                f"shuffling): no sampling to account for; {_TO_TRAIN}")
    return f"the data loader's batch sampler is {detail}, not random allocation: {_TO_TRAIN}"


class RandomAllocationAccountant(_Base):
    """Certified (epsilon, delta) of DP-SGD with random allocation over the steps taken.

    ``steps_per_epoch`` may be left out (Opacus's ``create_accountant`` passes nothing):
    it is then the bound sampler's, or 1/sample_rate at the first step."""

    def __init__(self, steps_per_epoch: int | None = None, steps_per_record: int | None = None):
        for name, v in (("steps_per_epoch", steps_per_epoch), ("steps_per_record", steps_per_record)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                  or not 1 <= v <= 10 ** 7):
                raise InputError(f"{name} must be an integer in [1, 1e7], got {v!r:.40}")
        if steps_per_record and steps_per_epoch:             # k <= M, as the sampler's
            from verifier.core.run import RandomAllocation
            RandomAllocation(steps_per_epoch, steps_per_record)
        self.steps_per_epoch = steps_per_epoch
        self.steps_per_record = steps_per_record or 1    # k: each record in k of M steps
        self._k_given = steps_per_record is not None
        self.history: list = []                   # [(noise_multiplier, sample_rate, steps)]
        self.sampler = None                       # the bound RandomAllocationBatchSampler
        self._refused: str | None = None          # why the bound loader cannot be certified
        self._stepped = 0                         # steps recorded by step(): a run
        self._prior = (0, 0)                      # (steps, epochs) of a run resumed from a state
        self._within: str | None = None           # a noise change inside an epoch (refused)

    # ---- what ran
    def bind(self, data_loader):
        """Bind the accountant to the data loader training iterates (Opacus's
        ``make_private`` does this itself); raises ``UncertifiedSampler`` unless its batch
        sampler is verifier's ``RandomAllocationBatchSampler``."""
        kind, detail = describe_sampler(data_loader)
        if kind != "random_allocation":
            self._refused = refusal(kind, detail)
            raise UncertifiedSampler(self._refused)
        if self.steps_per_epoch is not None and detail.steps_per_epoch != self.steps_per_epoch:
            raise InputError(f"the accountant has steps_per_epoch = {self.steps_per_epoch}, the "
                             f"loader's sampler {detail.steps_per_epoch}")
        k = detail.steps_per_record                          # k of M: what the sampler draws
        if k != self.steps_per_record and (self._k_given or self.history):
            raise InputError(f"the accountant has steps_per_record = {self.steps_per_record}, "
                             f"the loader's sampler {k}")
        self.steps_per_epoch, self.steps_per_record = detail.steps_per_epoch, k
        self.sampler, self._refused = detail, None
        workers = getattr(data_loader, "num_workers", 0) or 0     # batches a loader prefetches
        self._ahead = workers * (getattr(data_loader, "prefetch_factor", None) or 2)
        return self

    # ---- Opacus's interface
    @classmethod
    def mechanism(cls) -> str:
        return "random_allocation"

    def get_optimizer_hook_fn(self, sample_rate):
        """Opacus's hook, called by ``make_private``: binds the data loader it prepared
        (refusing a sampler other than random allocation there, before any training)."""
        seen = engine_frame(("make_private",), self)
        if seen is not None and "data_loader" in seen[1]:
            self.bind(seen[1]["data_loader"])

        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)
        return hook_fn

    def _M_from_rate(self, sample_rate) -> int:
        """M of a step's sample rate: 1/M (Opacus's), or k/M for k of M (the bound k-of-M
        sampler's ``sample_rate``)."""
        return steps_per_epoch_of(sample_rate, self.steps_per_epoch, self.steps_per_record)

    def step(self, *, noise_multiplier, sample_rate):
        sigma = parse_exact(noise_multiplier, "noise_multiplier")
        if sigma <= 0:
            raise InputError(f"noise_multiplier must be > 0, got {noise_multiplier}")
        parse_rate(sample_rate)                   # a number in (0, 1], or one line
        taken = len(self) - self._prior[0]        # steps of this run (epochs start afresh)
        try:
            M = self.steps_per_epoch = self._M_from_rate(sample_rate)
        except InputError as e:                   # not 1/M, or another M: refused at
            M = self.steps_per_epoch or 1         # get_epsilon as every uncertified run is
            self._within = self._within or f"step {taken + 1}: {e}"
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            nm, sr, n = self.history[-1]
            self.history[-1] = (nm, sr, n + 1)
        else:
            if taken % M != 0 and self._within is None:
                # refused at get_epsilon (docs/TRAINING.md), never from inside optimizer.step()
                self._within = (f"the noise multiplier changed to {noise_multiplier} inside an "
                                f"epoch (after step {taken}, epochs have {M} steps): not "
                                "certified; keep it constant within an epoch")
            self.history.append((noise_multiplier, sample_rate, 1))
        self._stepped += 1

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    def epochs(self) -> int:
        """Epochs of the guarantee: those begun by the steps (a partial last epoch counts as
        a whole one), or the allocations the bound sampler drew if more (an epoch left early
        and begun again is a new allocation); plus a resumed run's epochs (its state's)."""
        M = self.steps_per_epoch or 1
        if self.steps_per_epoch is None and self.history and not self._within:
            M = self._M_from_rate(self.history[0][1])
        begun = -(-(len(self) - self._prior[0]) // M)
        now = max(begun, self.sampler.epochs_drawn) if self.sampler is not None else begun
        return self._prior[1] + now

    def sigma(self) -> Fraction:            # the smallest noise multiplier used
        if not self.history:
            raise InputError("no step taken yet")
        return min(parse_exact(nm, "noise_multiplier") for nm, _, _ in self.history)

    def _check_run(self):
        """Refuse what cannot be certified (``run_refusal``); fix M for a planned run."""
        if not self.history:
            raise InputError("no step taken yet")
        why = run_refusal(self)
        if why:
            raise UncertifiedSampler(why)
        if self.steps_per_epoch is None:
            self.steps_per_epoch = self._M_from_rate(self.history[0][1])
        if not self._stepped and self.sampler is None and not self._k_given:
            self.steps_per_record = planned_steps_per_record(self.steps_per_record)

    def run(self):
        """The epochs as a ``verifier.Run``: each history entry's (its steps begun, as whole
        epochs) at its sigma; epochs drawn beyond them (or resumed) at the smallest."""
        from verifier.core.run import Gaussian, Phase, RandomAllocation, Run
        from verifier.core.run_files import run_from_history
        self._check_run()
        run_from_history(self.history, "the accountant's history")    # validated
        s = RandomAllocation(self.steps_per_epoch, self.steps_per_record)
        M = s.steps_per_epoch
        phases = [Phase(Gaussian(nm), s, -(-n // M) * M) for nm, _, n in self.history]
        extra = self.epochs() - sum(p.epochs for p in phases)
        if extra > 0:
            phases.append(Phase(Gaussian(self.sigma()), s, extra * M))
        return Run(tuple(phases))

    def _as_run(self) -> bool:
        """Answered as a run: epochs at several noise multipliers, or k of M (k > 1)."""
        return self.steps_per_record > 1 or \
            len({parse_exact(nm, "sigma") for nm, _, _ in self.history}) > 1

    def get_epsilon_bracket(self, delta):
        """The certified bracket [lower, upper] of epsilon(delta) (an ``EpsilonResult``; a
        ``RunEpsilon`` for epochs at several noise multipliers, composed exactly)."""
        from verifier.api.profile import epsilon
        d = parse_exact(delta, "delta")
        self._check_run()
        if self._as_run():
            return epsilon(self.run(), delta=d)
        return epsilon(self.sigma(), self.steps_per_epoch, self.epochs(), delta=d)

    def get_epsilon(self, delta, **kwargs) -> float:
        """The certified upper end of epsilon(delta) as a float rounded up (Opacus's
        ``get_epsilon``); ``inf`` when no epsilon <= 60 is certified or sigma is below the
        engine's range (0.3); above its range (50) the answer at 50, a valid upper bound
        (epsilon does not increase with sigma: docs/THEORY.md section 9)."""
        d = engine_delta(delta)
        self._check_run()
        if self._as_run():
            import math
            from verifier.bounds.runs import epsilon_bracket
            run = engine_run(self.run())
            r = None if run is None else epsilon_bracket(run, d).epsilon
            return math.inf if r is None else up_float(r.upper)
        return epsilon_upper_float(self.sigma(), self.steps_per_epoch, self.epochs(), d)

    def state_dict(self, destination=None) -> dict:
        out = destination if destination is not None else {}
        out["history"] = list(self.history)
        out["steps_per_epoch"] = self.steps_per_epoch
        out["steps_per_record"] = self.steps_per_record
        out["mechanism"] = self.mechanism()
        # the run so far: resuming adds to it; a run that cannot be certified stays refused
        out["stepped"] = self._prior[0] + self._stepped
        out["epochs"] = self.epochs() if self.history else 0
        out["refused"] = run_refusal(self) if self._stepped else self._refused
        return out

    def load_state_dict(self, state_dict: dict):
        if state_dict.get("mechanism", self.mechanism()) != self.mechanism():
            raise InputError(f"state of a {state_dict.get('mechanism')!r} accountant, not "
                             "random_allocation")
        from verifier.accountant_state import (random_allocation_state,  # checked, not trusted
                                               steps_per_record_state)
        self.steps_per_epoch, self.history, epochs = random_allocation_state(state_dict)
        self.steps_per_record = steps_per_record_state(state_dict, self.steps_per_epoch)
        self._k_given = True                      # the run so far was k of M: it stays so
        self._prior = (sum(n for _, _, n in self.history), epochs)
        self._stepped = 0
        self._refused = state_dict.get("refused") or self._refused


def skipped_step(drawn: int, stepped: int, kind: str = "") -> str:
    """The refusal of a run whose sampler drew more batches than optimizer steps were taken
    (both accountants): DP-SGD's guarantee assumes a noisy step on every batch."""
    return (f"{drawn} {kind}batches drawn, {stepped} optimizer steps: a batch without its "
            "noisy step (an empty one skipped?) is not certified; take a step on every batch, "
            "an empty one too")


def planned_steps_per_record(k: int) -> int:
    """k of the loader ``make_private_with_epsilon`` was given: Opacus calibrates sigma on a
    fresh accountant (``get_noise_multiplier``) that never sees the loader, so a k-of-M
    loader's k is read there (else sigma would be calibrated for one of M); else ``k``."""
    seen = engine_frame(("make_private_with_epsilon",))
    kind, detail = describe_sampler(seen[1].get("data_loader")) if seen else (None, None)
    return detail.steps_per_record if kind == "random_allocation" else k


def run_refusal(acc: RandomAllocationAccountant) -> str | None:
    """Why the steps cannot be certified as random allocation, or None (docs/TRAINING.md)."""
    if acc._refused or getattr(acc, "_within", None):
        return acc._refused or acc._within
    if acc._stepped and acc.sampler is None:
        return (f"the accountant did not see the data loader its {acc._stepped} steps came "
                "from, so it cannot tell which sampler ran: call accountant.bind(data_loader) "
                "with the loader training iterates (Opacus's make_private binds it)")
    if acc.sampler is not None and (acc.sampler.batches_yielded > acc._stepped + getattr(
            acc.sampler, "in_flight", 1) + getattr(acc, "_ahead", 0)):
        return skipped_step(acc.sampler.batches_yielded, acc._stepped)
    if acc.sampler is not None and acc._stepped > acc.sampler.batches_yielded:
        return (f"{acc._stepped} optimizer steps but the bound sampler produced "
                f"{acc.sampler.batches_yielded} batches: the steps did not all come from it")
    if not acc._stepped:         # a planned run (Opacus's get_noise_multiplier sets history)
        seen = engine_frame(("make_private_with_epsilon",))
        if seen is not None and seen[1].get("poisson_sampling", False):
            return ("make_private_with_epsilon(..., poisson_sampling=True) would train with "
                    "Poisson sampling, not random allocation: use accountant='certified_poisson' "
                    "for a certified Poisson epsilon, or pass poisson_sampling=False with a "
                    "verifier.training.random_allocation_loader")
    return None


def register_with_opacus() -> bool:
    """Register the accountant in Opacus's registry as ``"random_allocation"`` (so that
    ``PrivacyEngine(accountant="random_allocation")`` and ``make_private_with_epsilon`` find
    it); done on import of this module when Opacus is installed.  False without Opacus."""
    try:
        from opacus.accountants import create_accountant, register_accountant
    except Exception:                             # noqa: BLE001 (no Opacus, or no torch)
        return False
    try:
        register_accountant("random_allocation", RandomAllocationAccountant)
    except ValueError:                            # registered before: ours (a reload) or not
        have = type(create_accountant("random_allocation"))
        if have is not RandomAllocationAccountant and have.__module__ == __name__:
            register_accountant("random_allocation", RandomAllocationAccountant, force=True)
    return True


register_with_opacus()


def from_dp_event(event, num_selected: int = 1, num_steps: int | None = None):
    """(sigma, M, E) from a ``dp_accounting`` description of random allocation: a
    ``GaussianDpEvent`` (optionally inside ``SelfComposedDpEvent(event, count)``: count
    rounds) with ``num_selected`` selections of each record among ``num_steps`` steps per
    round, the shape of Google's port's ``RandomAllocationDpEvent(event, num_selected,
    num_steps)``.  Decomposition: num_selected selections among num_steps steps are
    num_selected epochs of num_steps / num_selected steps each (each epoch allocates every
    record once); refused unless num_selected divides num_steps."""
    import dp_accounting
    count = 1
    ev = event
    if isinstance(ev, dp_accounting.SelfComposedDpEvent):
        count, ev = ev.count, ev.event
    if not isinstance(ev, dp_accounting.GaussianDpEvent):
        raise InputError(f"cannot map {type(ev).__name__} to random allocation (expected a "
                         "GaussianDpEvent, optionally self-composed)")
    if num_steps is None or not isinstance(num_steps, int) or num_steps < 1:
        raise InputError(f"num_steps must be a positive integer, got {num_steps!r}")
    if not isinstance(num_selected, int) or not 1 <= num_selected <= num_steps:
        raise InputError(f"num_selected must be an integer in [1, num_steps], got {num_selected!r}")
    if num_steps % num_selected:
        raise InputError(f"num_selected = {num_selected} does not divide num_steps = {num_steps}: "
                         "no decomposition into whole epochs")
    # the float policy: noise_multiplier=1.1 is 11/10 (the decimal it prints as)
    return parse_exact(ev.noise_multiplier, "noise_multiplier"), num_steps // num_selected, \
        num_selected * count
