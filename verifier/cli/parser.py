"""The argument parser of every command (one line and exit 2 on a usage error); the
input limits of verifier.core.arith in every --help."""
from __future__ import annotations

import argparse
import re
from verifier import __version__
from verifier.core.arith import DEFAULT_MAX_PREC, LIMITS_HELP, NUMBER_LIMITS_HELP, InputError
from verifier.cli.common import opacus_epochs
from verifier.cli.flags import common, max_prec, pair_args, sampling_args, steps_flag
from verifier.cli.parser_views import add_rdp, add_tradeoff
from verifier.cli.sweep import add_sweep_parser


class _Parser(argparse.ArgumentParser):
    """argparse, but every usage error is one line and exit status 2 (main prefixes
    'verifier: error:'), and negative numbers in any notation (-1e-5) are values, not
    options, so that their range check can name them."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self._negative_number_matcher = re.compile(
            r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")

    def error(self, message):
        sub = self.prog[len("verifier"):].strip()
        raise InputError(f"{sub}: {message}" if sub else message)


def resolve_total_steps(args):
    """Fill args.steps / args.epochs from --total-steps (T = M E exactly) or refuse."""
    from verifier.core.arith import parse_exact
    if getattr(args, "run", None) is not None or (args.command in (
            "epsilon", "delta", "rdp", "tradeoff") and args.sigma is None) or opacus_epochs(args):
        return args            # --run FILE; neither (the command says which); q and E alone
    T = getattr(args, "total_steps", None)
    if T is None:
        if getattr(args, "steps", None) is None and hasattr(args, "total_steps"):
            raise InputError(f"verifier {args.command}: give --steps-per-epoch M (or "
                             "--total-steps T with --epochs E)")
        if hasattr(args, "total_steps") and args.epochs is None:
            args.epochs = "1"
        return args
    t = parse_exact(T, "total steps")
    if t.denominator != 1 or t < 1:
        raise InputError(f"--total-steps must be an integer >= 1, got {T}")
    t = int(t)
    if args.steps is not None:
        m = parse_exact(args.steps, "steps per epoch")
        if m.denominator != 1 or m < 1 or t % int(m):
            raise InputError(f"--total-steps {T} is not a whole number of epochs of "
                             f"--steps-per-epoch {args.steps}")
        e = t // int(m)
        if args.epochs is not None and parse_exact(args.epochs, "epochs") != e:
            raise InputError(f"--total-steps {T} != --steps-per-epoch {args.steps} x --epochs "
                             f"{args.epochs}")
        args.epochs = str(e)
    else:
        e = parse_exact(args.epochs if args.epochs is not None else "1", "epochs")
        if e.denominator != 1 or e < 1 or t % int(e):
            raise InputError(f"--total-steps {T} is not a multiple of --epochs "
                             f"{args.epochs if args.epochs is not None else 1}")
        args.steps = str(t // int(e))
        args.epochs = str(int(e))
    return args


def _deploy_inputs(sp):
    """The deployed parameters and targets of certify and calibrate."""
    sp.add_argument("--sigma", metavar="S", help="noise multiplier (exact decimal)")
    steps_flag(sp, 3)
    sp.add_argument("--samples", metavar="N", help="dataset size N")
    sp.add_argument("--batch-size", metavar="b", dest="batch_size",
                    help="expected batch size; M = N / b (must divide N)")
    sp.add_argument("--epochs", metavar="E", help="epochs (default 1)")
    sp.add_argument("--clip", metavar="C", help="clipping norm C (default 1)")
    sp.add_argument("--delta", metavar="D", help="target: f >= 1 - a - D over all epochs")
    sp.add_argument("--target-accuracy", metavar="A", dest="target_accuracy",
                    help="target: membership-inference accuracy <= A (equal priors)")
    sp.add_argument("--target-epsilon", metavar="EPS", dest="target_epsilon",
                    help="with --delta D: the (epsilon, delta) target, certified by the "
                         "privacy profile (verifier epsilon); the TV bounds meet it when "
                         "delta_E <= D")
    sp.add_argument("--bound", metavar="NAME",
                    help="all (default), theorem31-simplified, theorem31-rho3, chi-square; calibrate sigma also takes exact-tv")
    sp.add_argument("--config", metavar="FILE", help="TOML or JSON file with the same keys")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--max-prec", type=max_prec, default=DEFAULT_MAX_PREC, metavar="BITS",
                    help=f"precision cap in bits (default {DEFAULT_MAX_PREC})")


def _add_audit(sub):
    """verifier audit."""
    a = sub.add_parser("audit", help="judge every claim of claims files; write reports",
                       description="Recompute every claim of each claims file with certified "
                                   "error bounds; write OUT/<name>.json, .md and .html, the "
                                   "figures (.svg) and OUT/index.html. Default: the claims "
                                   "shipped with the verifier (70 claims of three papers: arXiv "
                                   "2605.06259, 2610.09651, 2610.02414).")
    a.add_argument("files", nargs="*", metavar="CLAIMS_FILE", help="TOML claims files")
    a.add_argument("--out", default="reports", metavar="DIR", help="report directory (default: reports)")
    common(a)


def _add_bound(sub):
    """verifier bound."""
    b = sub.add_parser("bound", help="enclose delta_rhs(M, sigma) and check the hypotheses",
                       description="Certified delta_rhs of Theorem 3.1 with every term, "
                                   "delta_E over E epochs and each hypothesis verdict.")
    b.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    steps_flag(b, 3, required=True)
    b.add_argument("--epochs", default="1", metavar="E", help="epochs (default 1)")
    b.add_argument("--coef", default="simplified", metavar="simplified|rho3",
                   help="Berry-Esseen factor: coef_S (simplified, default) or coef_X = rho3/s2^2 (rho3; former spelling: exact)")
    b.add_argument("--delta", default=None, metavar="D",
                   help="target over all epochs: also check delta_E <= D (delta_rhs <= D when "
                        "E = 1); condition (2) is always checked at delta = delta_rhs, the "
                        "reading the theorem supports (docs/THEORY.md section 3)")
    common(b)


def _add_steps(sub):
    """verifier steps."""
    s = sub.add_parser("steps", help="M_BE, certified M_exact and min N for a target delta",
                       description="Closed form M_BE, the certified smallest M (M_exact) with "
                                   "its certificate, and the minimum dataset size N.")
    s.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    s.add_argument("--delta", required=True, metavar="D", help="target delta in (0, 1)")
    s.add_argument("--coef", default="simplified", metavar="simplified|rho3",
                   help="Berry-Esseen factor (default simplified)")
    s.add_argument("--noise-level", default="0.1", metavar="L",
                   help="per-round noise level sigma M / N for min N (default 0.1)")
    common(s)


def _add_certify(sub):
    """verifier certify."""
    ce = sub.add_parser("certify", help="certify deployed parameters against a target",
                        description="Every applicable bound (Theorem 3.1 with both factors, the "
                                    "chi-square bound) over E epochs, certified; the target is "
                                    "met when at least one valid bound meets it. Writes "
                                    "OUT/certificate.json and OUT/certificate.md.",
                        epilog="Exit status: 0 certified; 1 not certified; 2 bad input; "
                               "3 inconclusive.")
    _deploy_inputs(ce)
    ce.add_argument("--run", metavar="FILE", help="a run file of phases (docs/RUNS.md): the "
                    "run against --delta D and --target-epsilon or --target-accuracy")
    ce.add_argument("--out", default=None, metavar="DIR",
                    help="write the certificate files (JSON, Markdown, HTML, figures) into DIR; "
                         "without it nothing is written")


def _add_calibrate(sub):
    """verifier calibrate."""
    ca = sub.add_parser("calibrate", help="smallest sigma, steps M or samples N for a target",
                        description="The inverse questions, certified: the smallest M (certified "
                                    "minimal), the smallest sigma on a grid (feasible there, "
                                    "infeasible one step below), the smallest N for a per-round "
                                    "noise level.",
                        epilog="Exit status: 0 found; 1 infeasible; 2 bad input; 3 inconclusive.")
    ca.add_argument("what", choices=["sigma", "steps", "samples", "epochs"],
                    help="what to calibrate (epochs: the largest E, with --target-epsilon)")
    _deploy_inputs(ca)
    sampling_args(ca, total=True)
    ca.add_argument("--run", metavar="FILE", help="sigma: the smallest common scale of a run "
                    "file's noise multipliers (docs/RUNS.md)")
    ca.add_argument("--phase", metavar="I", type=int, help="with --run: phase I's smallest "
                    "noise multiplier, the other phases as they are")
    ca.add_argument("--resolution", metavar="R", help="sigma grid step (default 0.01)")
    ca.add_argument("--noise-level", metavar="L", dest="noise_level",
                    help="per-round noise level C sigma M / N for samples (default 0.1)")


def _add_exact(sub):
    """verifier exact."""
    ex = sub.add_parser("exact", help="rigorous bracket of the exact total variation (attack accuracy)",
                        description="Two-sided rigorous bracket lower <= TV <= upper of the "
                                    "random-allocation pair (E = 1: E|Ybar_M - 1|/2) by lattice "
                                    "discretisation in convex order and ball-arithmetic DFTs; "
                                    "attack accuracy = 1/2 + TV/2; E epochs by a log-grid "
                                    "discretisation of the product, also rigorous.")
    ex.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    steps_flag(ex, 2, required=True)
    ex.add_argument("--epochs", default="1", metavar="E", help="epochs (default 1)")
    ex.add_argument("--json", action="store_true", help="print one JSON object")


def _add_compare(sub):
    """verifier compare."""
    co = sub.add_parser("compare", help="Theorem 3.1, chi-square and the exact bracket side by side",
                        description="One table for the same inputs: each bound on delta_E (TV) "
                                    "and its ratio to the upper end of the exact bracket.")
    co.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    steps_flag(co, 3, required=True)
    co.add_argument("--epochs", default="1", metavar="E", help="epochs (default 1)")
    co.add_argument("--json", action="store_true", help="print one JSON object")


def _add_profile(sub):
    """verifier epsilon and verifier delta."""
    from verifier.bounds.poisson import RANGE_HELP as POISSON_HELP
    from verifier.bounds.profile import RANGE_HELP
    for name, key, hlp, mv in (("epsilon", "delta", "target delta D", "D"),
                               ("delta", "epsilon", "epsilon EPS (any real; a negative one is read "
                                                    "off the other direction)", "EPS")):
        pp = sub.add_parser(
            name, help=("certified epsilon(delta), both directions (random allocation; "
                        "--sampling poisson)" if name == "epsilon" else
                        "certified delta(epsilon), the privacy profile, both directions"),
            description=("Rigorous bracket of epsilon(delta) = the smallest eps >= 0 with "
                         "delta(eps) <= D, where delta(eps) is the larger of the remove profile "
                         "E_P0[(L - e^eps)_+] and the add profile E_P0[(1 - e^eps L)_+] of E "
                         "epochs; each direction's bracket too." if name == "epsilon" else
                         "Rigorous bracket of delta(eps) = max(remove, add) of E epochs, and of "
                         "each direction."),
            epilog=f"Exit status: 0 bracketed; 2 bad input; 3 inconclusive. {RANGE_HELP}; "
                   f"{POISSON_HELP}.")
        pair_args(pp, run=True)
        sampling_args(pp)
        pp.add_argument("--rel-width", dest="rel_width", metavar="W", help="refine until the "
                        "bracket is at most W wide relative (in [1e-9, 0.1]), or say what stopped it")
        pp.add_argument("--digits", metavar="D",
                        help="the Gaussian mechanism (--steps-per-epoch 1, or --sampling poisson "
                             "--sample-rate 1) to D significant digits from its closed form")
        pp.add_argument(f"--{key}", required=True, metavar=mv, help=hlp)
        pp.add_argument("--json", action="store_true", help="print one JSON object")


def _add_compare_samplers(sub):
    """verifier compare-samplers."""
    from verifier.bounds.poisson import RANGE_HELP as POISSON_HELP
    from verifier.bounds.profile import RANGE_HELP
    cs = sub.add_parser(
        "compare-samplers", help="random allocation and Poisson subsampling side by side, "
                                 "both certified",
        description="Certified epsilon(delta) of random allocation (M steps per epoch, E "
                    "epochs) and of Poisson subsampling at q = 1/M for T = M E steps, at the "
                    "same sigma; their certified difference where the brackets separate; "
                    "with --target-epsilon the noise multiplier each needs.",
        epilog=f"Exit status: 0 ok; 2 bad input; 3 inconclusive. {RANGE_HELP}; {POISSON_HELP}.")
    pair_args(cs)
    cs.add_argument("--delta", required=True, metavar="D", help="target delta D")
    cs.add_argument("--target-epsilon", dest="target_epsilon", metavar="EPS",
                    help="also the noise multiplier each sampler needs for (EPS, D)")
    cs.add_argument("--json", action="store_true", help="print one JSON object")


def _add_check_proofs(sub):
    """verifier check-proofs."""
    c = sub.add_parser("check-proofs", help="re-derive / re-check every identity, constant and "
                                            "monotonicity step behind Theorem 3.1",
                       description="Run the proof-consistency checks (proofs_checks/): each "
                                   "check is proved (exact algebra or a covering certified "
                                   "argument), refuted (certified counterexample) or unknown. "
                                   "Writes OUT/proofs.json and OUT/proofs.md; exits 1 if any "
                                   "check is refuted or unknown.")
    c.add_argument("--out", default=None, metavar="DIR",
                   help="report directory (default: reports; with --only, none unless given)")
    c.add_argument("--only", default=None, metavar="PREFIX", help="run only checks whose id starts so")
    c.add_argument("--timings", action="store_true",
                   help="also write wall times into the reports (then not byte-reproducible)")
    c.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="verifier",
        description="Certified (Arb interval arithmetic) checks of Theorem 3.1 of "
                    "van Dijk & Ertan, arXiv 2605.06259 v1 (as reconstructed in docs/THEORY.md): "
                    "DP-SGD with random-allocation sampling; the certified (epsilon, delta) of "
                    "random allocation and of Poisson subsampling (--sampling poisson).",
        epilog="Exit status: 0 ok; 1 refuted / hypothesis fails / infeasible; 2 bad input; "
               "3 inconclusive at the precision cap; 4 internal error.")
    p.add_argument("--version", action="version", version=f"verifier {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    for add in (_add_audit, _add_bound, _add_steps, _add_certify, _add_calibrate, _add_exact,
                _add_compare, _add_profile, _add_compare_samplers, add_rdp, add_tradeoff,
                _add_check_proofs, add_sweep_parser):
        add(sub)
    p.epilog = f"{p.epilog} {LIMITS_HELP}"
    for name, sp_ in sub.choices.items():
        # the (epsilon, delta) engine's commands state its own range (RANGE_HELP) in place of
        # the Theorem 3.1 / TV commands' ranges; the limits on numbers and files are shared
        lim = (f"Input limits: {NUMBER_LIMITS_HELP}" if name in (
            "epsilon", "delta", "rdp", "tradeoff", "compare-samplers") else LIMITS_HELP)
        sp_.epilog = f"{sp_.epilog} {lim}" if sp_.epilog else lim
    return p
