"""The flags several commands share (verifier/cli/parser.py builds the commands): the
precision cap, steps per epoch and total steps, the pair's parameters, the sampler's."""
from __future__ import annotations

import argparse

from verifier.core.arith import DEFAULT_MAX_PREC

SAMPLINGS = ("random-allocation", "poisson")


def max_prec(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 64 <= v <= 1 << 20:
        raise argparse.ArgumentTypeError(f"must be between 64 and 1048576 bits, got {v}")
    return v


class StepsPerEpoch(argparse.Action):
    """--steps-per-epoch M; --steps is its former spelling (a note on stderr: in Opacus
    "steps" means total steps, T = M E)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string == "--steps":
            import warnings
            warnings.warn("--steps is deprecated; use --steps-per-epoch (M, steps per epoch; "
                          "--total-steps T for T = M E steps in all)", DeprecationWarning)
        setattr(namespace, self.dest, values)


def steps_flag(sp, minimum: int, required: bool = False, total: bool = False):
    """--steps-per-epoch M (alias --steps), and --total-steps T (``resolve_total_steps``)."""
    sp.add_argument("--steps-per-epoch", "--steps", dest="steps", action=StepsPerEpoch,
                    required=required and not total, metavar="M", help=f"steps per epoch M, "
                    f"integer >= {minimum} (--steps: the former spelling, also steps per epoch)")
    if total:
        sp.add_argument("--total-steps", dest="total_steps", metavar="T", help="total optimizer "
                        "steps T = M E (Opacus's steps): M = T / E, or E = T / M")


def pair_args(sp, run: bool = False):
    """The pair's parameters (epsilon, delta, rdp, tradeoff; ``run``: or --run FILE)."""
    sp.add_argument("--sigma", required=not run, metavar="S",
                    help="noise multiplier (exact decimal)" + (" (or --run FILE)" if run else ""))
    if run:
        sp.add_argument("--run", metavar="FILE", help="a run file of phases (docs/RUNS.md)")
        sp.add_argument("--steps-per-record", metavar="K", help="random allocation: each "
                        "record in K of the M steps of an epoch (k of M, a run; default 1)")
    steps_flag(sp, 1, required=True, total=True)
    sp.add_argument("--epochs", default=None, metavar="E", help="epochs (default 1)")


def sampling_args(sp, total: bool = False):
    """--sampling and --sample-rate (Poisson subsampling)."""
    sp.add_argument("--sampling", choices=SAMPLINGS, default="random-allocation",
                    help="the sampler that ran: random-allocation (default; M steps per epoch, "
                         "E epochs) or poisson (each record in each step with probability q, "
                         "T steps in all)")
    sp.add_argument("--sample-rate", dest="sample_rate", metavar="q", help="with --sampling "
                    "poisson: q in (0, 1] (default 1/M); T = M E, --total-steps T, or with "
                    "--epochs E alone T = floor(E/q) (Opacus's rule)")
    if total:
        sp.add_argument("--total-steps", dest="poisson_total_steps", metavar="T",
                        help="with --sampling poisson: steps in all T (Opacus's steps)")


def common(sp):
    """--json and --max-prec."""
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--max-prec", type=max_prec, default=DEFAULT_MAX_PREC, metavar="BITS",
                    help=f"precision cap in bits (default {DEFAULT_MAX_PREC}); past it an "
                         "undecided comparison is reported as inconclusive")
