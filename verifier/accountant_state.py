"""Accountant states checked, not trusted (issue 46): a checkpoint's state dict is validated
when it is loaded, and one that contradicts itself is refused in one line, so that a
certified number can only come from a state the accountant could have produced."""
from __future__ import annotations

from verifier.core.arith import InputError


def random_allocation_state(state) -> tuple:
    """(steps_per_epoch, history, epochs) of a random-allocation accountant's state dict:
    the history a valid run of positive integer counts, steps_per_epoch an integer >= 1 (or
    None with no steps), and epochs at least the epochs the steps begin (a partial epoch
    counts whole: epochs >= ceil(steps / M)); an older state without epochs gets those."""
    from verifier.core.run_files import run_from_history
    if not isinstance(state, dict):
        raise InputError(f"the state must be a dict, got {type(state).__name__}")
    hist = state.get("history", [])
    if not isinstance(hist, (list, tuple)) or not all(isinstance(h, (list, tuple)) for h in hist):
        raise InputError("state_dict['history'] must be a list of (noise_multiplier, "
                         "sample_rate, steps) triples")
    hist = [tuple(h) for h in hist]
    if not hist:
        return state.get("steps_per_epoch"), [], 0
    run_from_history(hist, "the state's history")
    M = state.get("steps_per_epoch")
    if isinstance(M, bool) or not isinstance(M, int) or M < 1:
        raise InputError(f"state_dict['steps_per_epoch'] must be an integer >= 1, got {M!r:.40}")
    steps = sum(n for _, _, n in hist)
    begun = -(-steps // M)
    E = state.get("epochs", begun)
    if isinstance(E, bool) or not isinstance(E, int) or E < begun:
        raise InputError(f"state_dict['epochs'] = {E!r:.40} contradicts its {steps} steps of "
                         f"{M} per epoch (at least {begun} epochs)")
    return M, hist, E


def steps_per_record_state(state: dict, M: int | None) -> int:
    """k of a random-allocation accountant's state (each record in k of the M steps of an
    epoch): an integer in [1, M]; 1 in a state written before k was kept."""
    k = state.get("steps_per_record", 1)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1 or (M is not None and k > M):
        raise InputError(f"state_dict['steps_per_record'] must be an integer in [1, "
                         f"steps_per_epoch = {M}], got {k!r:.40}")
    return k
