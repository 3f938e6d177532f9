"""verifier sweep SPEC.toml --out DIR: a grid of certified answers on Dask (docs/SWEEPS.md)."""
from __future__ import annotations

from verifier.cli.common import EXIT_INCONCLUSIVE, EXIT_OK, print_json


def cmd_sweep(args) -> int:
    from verifier.core.arith import InputError
    from verifier.sweep import spec as S
    sp = S.load(args.spec)
    import importlib.util
    if importlib.util.find_spec("distributed") is None:
        raise InputError("verifier sweep runs on Dask: pip install \".[sweep]\"")
    if args.workers is not None and not 1 <= args.workers <= 256:
        raise InputError(f"--workers must be in [1, 256], got {args.workers}")
    from verifier.sweep.run import run
    r = run(sp, args.out, args.workers, args.scheduler,
            memory_per_worker=args.memory_per_worker, retry=not args.no_retry)
    statuses = {}
    for rec in r.records:
        statuses[rec["status"]] = statuses.get(rec["status"], 0) + 1
    if args.json:
        print_json({"cells": r.cells, "computed": r.computed, "reused": r.reused,
                    "statuses": statuses, "table": r.table, "figures": list(r.figures),
                    "set_aside": list(r.set_aside),
                    "seconds": round(r.seconds, 3)})
    else:
        print(f"sweep {sp.compute} over {', '.join(sp.names)}: {r.cells} cells, {r.computed} "
              f"computed, {r.reused} already done ({r.seconds:.1f} s)")
        print("  " + ", ".join(f"{n} {k}" for k, n in sorted(statuses.items())))
        print(f"  wrote {r.table}" + (f" and {len(r.figures)} figure(s)" if r.figures else ""))
    return EXIT_OK if statuses.get("certified", 0) == r.cells else EXIT_INCONCLUSIVE


def add_sweep_parser(sub):
    """verifier sweep."""
    w = sub.add_parser(
        "sweep", help="a grid of certified answers, run on Dask (resumable)",
        description="Compute every cell of SPEC (what each cell computes and the axes, in the "
                    "CLI's names; docs/SWEEPS.md) on Dask distributed: a local cluster on this "
                    "machine's cores, or --scheduler ADDRESS. Each finished cell is written at "
                    "once (DIR/cells/); a rerun skips finished cells. Writes DIR/table.csv, "
                    "DIR/table.parquet and heatmaps.",
        epilog="Exit status: 0 every cell certified; 2 bad spec; 3 some cell inconclusive, "
               "refused or failed (each recorded with its reason).")
    w.add_argument("spec", metavar="SPEC", help="TOML sweep spec")
    w.add_argument("--out", required=True, metavar="DIR", help="output directory")
    w.add_argument("--workers", type=int, default=None, metavar="N",
                   help="local Dask workers (default: the machine's cores)")
    w.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="an existing Dask scheduler (tcp://host:port) instead of a local cluster")
    from verifier.sweep.run import MEMORY_PER_WORKER
    w.add_argument("--memory-per-worker", default=MEMORY_PER_WORKER, metavar="SIZE",
                   help=f"each worker's memory (default {MEMORY_PER_WORKER}); a cell whose engine would need "
                        "more than 85%% of it refuses the spec before anything runs")
    w.add_argument("--no-retry", action="store_true", dest="no_retry",
                   help="keep the cells that failed (status error) as they are: by default a "
                        "rerun computes them again")
    w.add_argument("--json", action="store_true", help="print one JSON object")
