"""Command line: ``verifier audit | bound | steps | certify | calibrate | exact | compare |
epsilon | delta | compare-samplers | rdp | tradeoff | check-proofs | sweep``, one thin module per command (parse, call the API, print).  The entry point
is ``verifier.cli:main``.

Exit status: 0 success; 1 a certified negative answer; 2 bad input or unusable files
(one-line message, nothing written); 3 inconclusive at the precision cap, or beyond the
supported range; 4 internal error (VERIFIER_DEBUG=1 shows the traceback).
"""
from __future__ import annotations

import os
import re
import sys

from verifier.cli import (audit, bound, calibrate, certify, check_proofs, exact, profile, steps,
                          sweep, views)
from verifier.cli.common import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK
from verifier.cli.parser import build_parser, resolve_total_steps
from verifier.core.arith import InputError

COMMANDS = {"audit": audit.cmd_audit, "bound": bound.cmd_bound, "steps": steps.cmd_steps,
            "certify": certify.cmd_certify, "calibrate": calibrate.cmd_calibrate,
            "exact": exact.cmd_exact, "compare": exact.cmd_compare,
            "epsilon": profile.cmd_epsilon, "delta": profile.cmd_delta,
            "compare-samplers": profile.cmd_compare_samplers,
            "rdp": views.cmd_rdp, "tradeoff": views.cmd_tradeoff,
            "check-proofs": check_proofs.cmd_check_proofs, "sweep": sweep.cmd_sweep}


def main(argv=None) -> int:
    """Run one command; former spellings (DeprecationWarning) are noted on stderr."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        status = _main(argv)
    if status == EXIT_INPUT:           # a usage error: its one line is the whole message
        return status
    for msg in dict.fromkeys(str(w.message) for w in caught
                             if issubclass(w.category, DeprecationWarning)
                             and "is deprecated; use" in str(w.message)):
        print(f"verifier: note: {msg}", file=sys.stderr)
    return status


def _clearing():
    from verifier.core.progress import ClearingStream
    return ClearingStream


def _memory_warning(msg: str):
    """A run that will need several GB: said on stderr before it starts allocating."""
    from verifier.core import progress
    progress.done()
    print(f"verifier: warning: {msg}", file=sys.stderr, flush=True)


_SIGNED = re.compile(r"-(inf(inity)?|nan|[0-9.].*)", re.IGNORECASE)


def signed_values(argv: list) -> list:
    """``--sigma -inf`` as ``--sigma=-inf``: a value after an option that starts with a minus
    sign (-inf, -nan, -1e-5, -.5) is the option's value, so the one-line check of the value
    says what is wrong with it (argparse reads -inf as an unknown option)."""
    out = list(argv)
    for i in range(len(out) - 1, 0, -1):
        prev, tok = out[i - 1], out[i]
        if (isinstance(prev, str) and isinstance(tok, str) and prev.startswith("--")
                and "=" not in prev and _SIGNED.fullmatch(tok)):
            out[i - 1:i + 1] = [f"{prev}={tok}"]
    return out


def check_out(args):
    """An output folder (--out DIR) that can hold the files, checked before computing: not
    empty, not a file, and creatable where it does not exist yet (one line otherwise)."""
    out = getattr(args, "out", None)
    if out is None:
        return
    if not str(out).strip():
        raise InputError("--out needs a folder name (got an empty one)")
    if len(os.path.basename(os.path.abspath(out))) > 200:
        raise InputError(f"--out {out[:40]}...: a folder name of more than 200 characters")
    p = os.path.abspath(out)
    while not os.path.exists(p):
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    if not os.path.isdir(p):
        raise InputError(f"--out {out}: {p} is a file, not a folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: {p} is not writable")


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if sys.stderr.isatty() and not isinstance(sys.stdout, _clearing()):
        sys.stdout = _clearing()(sys.stdout)
    try:
        parser = build_parser()
        args = parser.parse_args(signed_values(argv))
        if args.command is None:
            parser.print_help()
            return EXIT_INPUT
        resolve_total_steps(args)
        check_out(args)
        from verifier.core import progress
        from verifier.numerics import memory
        memory.on_warning(_memory_warning)
        if getattr(args, "json", False):
            progress.quiet()                 # nothing but the one JSON object
        try:
            return COMMANDS[args.command](args)
        finally:
            progress.done()
    except InputError as e:
        for msg in getattr(e, "messages", None) or [str(e).replace("\n", " ")]:
            print(f"verifier: error: {msg}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("verifier: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # never a traceback for users; VERIFIER_DEBUG=1 shows it
        if os.environ.get("VERIFIER_DEBUG"):
            raise
        print(f"verifier: internal error: {e.__class__.__name__}: {str(e)[:200]} "
              "(set VERIFIER_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
