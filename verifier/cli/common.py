"""What every command shares: exit codes, JSON output, the deploy inputs (flags + config)."""
from __future__ import annotations

import sys

from verifier.core.arith import Interval

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


def run_shape(M: int, E: int) -> str:
    """Every header says what M and E mean (in Opacus "steps" is T, the total)."""
    return (f"M = {M} steps per epoch, E = {E} epoch{'s' if E != 1 else ''}, T = M E = "
            f"{M * E} steps in all")


def iv_json(x: Interval) -> dict:
    return x.to_json()


def print_json(obj):
    from verifier.report.writer import dumps
    sys.stdout.write(dumps(obj))


# ---------------------------------------------------------------------------
def deploy_inputs(args, need_sigma, need_steps):
    from verifier.deploy.inputs import load_config, merge, parse_inputs
    keys = ("sigma", "steps", "samples", "batch_size", "epochs", "clip", "delta",
            "target_accuracy", "target_epsilon", "bound", "noise_level", "resolution")
    flags = {k: getattr(args, k, None) for k in keys}
    config = load_config(args.config) if args.config else {}
    return parse_inputs(merge(flags, config), need_sigma, need_steps)


def opacus_epochs(args) -> bool:
    """Poisson given as Opacus gives it: --sample-rate q and --epochs E, with neither
    --steps-per-epoch nor --total-steps (T = floor(E / q), Opacus's int(epochs / sample_rate))."""
    return (getattr(args, "sampling", "") == "poisson" and args.sample_rate is not None
            and args.steps is None and getattr(args, "total_steps", None) is None)
