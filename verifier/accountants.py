"""A certified accountant for random allocation with Opacus's conventions (issue #16),
importable without torch or Opacus.

``RandomAllocationAccountant(steps_per_epoch=M)``: ``step(noise_multiplier=, sample_rate=)``
once per optimizer step, ``get_epsilon(delta)`` the certified upper end of epsilon(delta) of
the steps taken (verifier.epsilon: docs/THEORY.md section 9), ``get_epsilon_bracket(delta)``
the whole bracket, ``history`` as Opacus keeps it ([(noise_multiplier, sample_rate, steps)]),
``len()``, ``mechanism()``, ``state_dict()`` / ``load_state_dict()``.  With Opacus installed
the class also subclasses ``opacus.accountants.IAccountant``.

What it accounts: random allocation sends every record to one of the M steps of an epoch;
``sample_rate`` must be 1/M (Opacus passes the expected batch fraction).  A partial last
epoch is counted as a whole one: the steps not taken are outputs dropped, a post-processing,
so the whole epoch's guarantee covers them.  The noise multiplier must stay constant within
an epoch (the dominating pair is per epoch); across epochs it may change, and then the
accountant uses the smallest one for every epoch (a valid upper bound: the pair at a larger
sigma is a post-processing of the pair at a smaller one, docs/THEORY.md section 9).
"""
from __future__ import annotations

import math
from fractions import Fraction

from verifier.core.arith import InputError

try:                                              # Opacus's interface, when it is installed
    from opacus.accountants import IAccountant as _Base   # type: ignore
except Exception:                                 # noqa: BLE001 (no Opacus, or no torch)
    _Base = object


def _exact(x, name: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction, str)):
        raise InputError(f"{name} must be a number, got {type(x).__name__}")
    if isinstance(x, float) and not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {x}")
    try:
        return Fraction(x)        # a float is its exact binary value: certified for that value
    except (ValueError, ZeroDivisionError):
        raise InputError(f"{name} is not a number: {x!r:.40}") from None


def _up_float(q: Fraction) -> float:
    """The smallest float >= q (the certified upper end stays an upper end)."""
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


class RandomAllocationAccountant(_Base):
    """Certified (epsilon, delta) of DP-SGD with random allocation over the steps taken."""

    def __init__(self, steps_per_epoch: int):
        if isinstance(steps_per_epoch, bool) or not isinstance(steps_per_epoch, int) \
                or not 1 <= steps_per_epoch <= 10 ** 7:
            raise InputError(f"steps_per_epoch must be an integer in [1, 1e7], got "
                             f"{steps_per_epoch!r:.40}")
        self.steps_per_epoch = steps_per_epoch
        self.history: list = []                   # [(noise_multiplier, sample_rate, steps)]

    # ---- Opacus's interface
    @classmethod
    def mechanism(cls) -> str:
        return "random_allocation"

    def step(self, *, noise_multiplier, sample_rate):
        sigma = _exact(noise_multiplier, "noise_multiplier")
        if sigma <= 0:
            raise InputError(f"noise_multiplier must be > 0, got {noise_multiplier}")
        rate = _exact(sample_rate, "sample_rate")
        M = self.steps_per_epoch
        if abs(rate * M - 1) > Fraction(1, 10 ** 9):
            raise InputError(f"sample_rate = {sample_rate} does not agree with random allocation "
                             f"over {M} steps per epoch (expected 1/{M})")
        taken = len(self)
        if self.history and self.history[-1][0] == noise_multiplier:
            nm, sr, n = self.history[-1]
            self.history[-1] = (nm, sr, n + 1)
        else:
            if taken % M != 0:
                raise InputError(f"the noise multiplier changed to {noise_multiplier} inside an "
                                 f"epoch (after step {taken}, epochs have {M} steps): keep it "
                                 "constant within an epoch")
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    def epochs(self) -> int:
        """Epochs begun (a partial last epoch counts as a whole one)."""
        return -(-len(self) // self.steps_per_epoch)

    def sigma(self) -> Fraction:
        """The noise multiplier the guarantee is computed for: the smallest one used."""
        if not self.history:
            raise InputError("no step taken yet")
        return min(_exact(nm, "noise_multiplier") for nm, _, _ in self.history)

    def get_epsilon_bracket(self, delta):
        """The certified bracket [lower, upper] of epsilon(delta) (an ``EpsilonResult``)."""
        from verifier.api_profile import epsilon
        d = _exact(delta, "delta")
        if not self.history:
            raise InputError("no step taken yet")
        return epsilon(self.sigma(), self.steps_per_epoch, self.epochs(), d)

    def get_epsilon(self, delta, **kwargs) -> float:
        """The certified upper end of epsilon(delta) as a float rounded up (Opacus's
        ``get_epsilon``); ``inf`` when no epsilon <= 60 is certified."""
        r = self.get_epsilon_bracket(delta)
        return math.inf if r.epsilon is None else _up_float(r.epsilon.upper)

    def state_dict(self, destination=None) -> dict:
        out = destination if destination is not None else {}
        out["history"] = list(self.history)
        out["steps_per_epoch"] = self.steps_per_epoch
        out["mechanism"] = self.mechanism()
        return out

    def load_state_dict(self, state_dict: dict):
        if state_dict.get("mechanism", self.mechanism()) != self.mechanism():
            raise InputError(f"state of a {state_dict.get('mechanism')!r} accountant, not "
                             "random_allocation")
        self.steps_per_epoch = int(state_dict["steps_per_epoch"])
        self.history = [tuple(h) for h in state_dict["history"]]


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
    return _exact(ev.noise_multiplier, "noise_multiplier"), num_steps // num_selected, \
        num_selected * count
