"""verifier check-proofs: run the proof-consistency checks; write the reports."""
from __future__ import annotations

from verifier.core.arith import InputError
from verifier.cli.common import print_json


def cmd_check_proofs(args) -> int:
    try:
        from proofs_checks import runner
    except ImportError as e:  # pragma: no cover - packaging problem
        raise InputError(f"the proof checks are not installed ({e})") from None

    def progress(c, o, t):
        if not args.json:
            print(f"  {o.verdict:<13} {t:6.2f} s  {c.id}", flush=True)

    results = runner.run_all(args.only, progress)
    if not results:
        raise InputError(f"no check id starts with {args.only!r}")
    # a subset (--only) is written only where asked: by default it would replace the full
    # reports in reports/ with a part of them
    out = args.out if args.out is not None else (None if args.only else "reports")
    paths = runner.write(results, out, args.timings) if out is not None else None
    if args.json:
        print_json(runner.to_json(results, timings=True))
    else:
        s = runner.summary(results)
        total = sum(t for _, _, t in results)
        print(f"{s['total']} checks: " + ", ".join(f"{s[k]} {k}" for k in runner.VERDICTS)
              + f"  ({total:.1f} s)")
        print(f"  wrote {len(paths)} files: " + ", ".join(paths) if paths else
              "  a subset (--only): no report written (--out DIR writes one)")
    return runner.exit_status(results)
