"""Running a sweep on Dask distributed (docs/SWEEPS.md): a local cluster on this machine's
cores by default, or an existing scheduler; every finished cell written at once, atomically,
as DIR/cells/<key>.json (the key: exact inputs, what is computed, the verifier's version),
so a rerun skips it and an interrupted sweep or a killed worker loses no finished cell
(Dask reschedules a lost worker's cells); then the table and the figures."""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from verifier.core.arith import InputError
from verifier.sweep.cells import compute_cell, key
from verifier.sweep.spec import Spec

MEMORY_PER_WORKER = "3GiB"      # default; the engines stay below about 1.3 GB at default
                                # accuracy in the supported range (docs/BENCHMARKS.md, "Memory")


@dataclass(frozen=True)
class SweepResult:
    cells: int               # in the spec
    computed: int            # in this run
    reused: int              # finished before (skipped)
    records: tuple           # every cell's record, in grid order
    seconds: float
    table: str               # the CSV file
    figures: tuple
    set_aside: tuple = ()    # cell files not trusted (named, recomputed) or retried


def _cells_dir(out: str) -> str:
    return os.path.join(out, "cells")


def finished(out: str, spec: Spec | None = None, retry: bool = True) -> tuple[dict, list]:
    """(key -> record, [one line per cell file set aside]) of the cells already written.
    With ``spec``, each file is checked against the cell of its key (sweep.cells.validate:
    its digest, key and inputs); one that fails -- torn, empty, garbage, edited, or of
    another cell -- is named and recomputed, never trusted; with ``retry`` a cell that
    failed (status error) is computed again."""
    from verifier.sweep.cells import RETRIED, validate
    d, got, bad = _cells_dir(out), {}, []
    if not os.path.isdir(d):
        return got, bad
    cells = {key(spec.compute, c): c for c in spec.cells()} if spec is not None else None
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(d, name)
        k = name[:-len(".json")]
        try:
            with open(path, encoding="utf-8") as f:
                rec = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            bad.append(f"{path}: unreadable ({e.__class__.__name__}); recomputed")
            continue
        if cells is None:
            got[k] = rec
            continue
        if k not in cells:
            continue                       # a cell of another spec: left alone
        why = validate(rec, spec.compute, cells[k])
        if why:
            bad.append(f"{path}: {why}; recomputed")
        elif retry and rec["status"] in RETRIED:
            bad.append(f"{path}: failed before ({str(rec.get('reason'))[:80]}); retried")
        else:
            got[k] = rec
    return got, bad


def _write(out: str, rec: dict):
    from verifier.report.writer import dumps, write_atomic
    write_atomic({os.path.join(_cells_dir(out), rec["key"] + ".json"): dumps(rec)})


def _result(fut, compute: str, cell: dict) -> dict:
    """The cell's record, or -- where its worker died (KilledWorker: Dask gave up after its
    retries) or the task failed outside the engine -- a record of the failure with its reason
    (status error: retried on the next run); the sweep goes on."""
    from verifier.sweep.cells import record
    try:
        return fut.result()
    except Exception as e:                 # noqa: BLE001 (recorded, never a lost sweep)
        return record(compute, cell, None, None, "error",
                      f"{e.__class__.__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
                      " (the worker running it died or the task failed; retried on the next "
                      "run)", 0.0)


def _client(workers: int | None, scheduler: str | None, memory: int):
    import logging
    from dask.distributed import Client, LocalCluster
    # Dask's own INFO lines stay out of the sweep's output even where another library
    # (Opacus, on import) turned the root logger to INFO
    logging.getLogger("distributed").setLevel(logging.WARNING)
    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            raise InputError(f"--scheduler {scheduler[:80]}: cannot connect within "
                             f"{CONNECT_TIMEOUT} ({e.__class__.__name__}: "
                             f"{str(e).splitlines()[0][:80] if str(e) else 'no answer'})"
                             ) from None
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None,
                           memory_limit=memory)
    return Client(cluster), cluster


CONNECT_TIMEOUT = "5s"


def check_scheduler(address: str | None):
    """A scheduler address Dask can dial without more configuration: tcp://HOST:PORT or
    HOST:PORT (one line otherwise, before anything runs)."""
    import re
    if address is None:
        return
    if address.startswith(("tls://", "wss://", "ws://", "ucx://", "inproc://")):
        raise InputError(f"--scheduler {address[:80]}: only tcp:// schedulers are taken (a "
                         "TLS or other transport needs a security configuration the verifier "
                         "does not pass; use tcp://HOST:PORT, or the local cluster)")
    if not re.fullmatch(r"(tcp://)?[A-Za-z0-9._\-\[\]:]+:[0-9]{1,5}", address):
        raise InputError(f"--scheduler {address[:80]!r} is not an address (write "
                         "tcp://HOST:PORT)")


def expected_cost(cell: dict) -> float:
    """A float proxy of a cell's time (only orders the work): the engines' time grows with
    the steps per epoch and the epochs (log-like), and with smaller sigma and delta."""
    import math
    sigma = float(cell.get("sigma", 1))
    delta = float(cell.get("delta", 1e-6))
    return (math.log10(1 + cell.get("steps", 1)) + math.log10(1 + cell.get("epochs", 1))
            + 0.5 * math.log10(1 / delta) + 1 / max(sigma, 0.1))


def run(spec: Spec, out: str, workers: int | None = None, scheduler: str | None = None,
        on_record=None, memory_per_worker: str | int = MEMORY_PER_WORKER,
        retry: bool = True) -> SweepResult:
    """Every cell of ``spec`` not yet in ``out``, on Dask; ``on_record(record, client)`` is
    called on the driver after each record is written (progress; tests).  A cell whose
    engine would need more than 85% of ``memory_per_worker`` refuses the spec before
    anything runs (sweep.preflight)."""
    from verifier.core.progress import report
    from verifier.numerics.memory import parse_size
    from verifier.sweep.preflight import cell_limit, check
    t0 = time.perf_counter()
    check_scheduler(scheduler)
    try:
        per_worker = parse_size(memory_per_worker)
    except InputError as e:
        raise InputError(f"--memory-per-worker: {e}") from None
    cells = spec.cells()
    done, set_aside = finished(out, spec, retry)
    for line in set_aside:
        import sys
        print(f"verifier: note: {line}", file=sys.stderr)
    todo = [c for c in cells if key(spec.compute, c) not in done]
    check(spec, todo, per_worker, spec.path)
    computed = 0
    if todo:
        from dask.distributed import as_completed
        client, cluster = _client(workers, scheduler, per_worker)
        try:
            # the costliest cells first (longest processing time first: the last cells to
            # finish are short ones, so the workers finish close together)
            order = sorted(todo, key=expected_cost, reverse=True)
            futures = {client.submit(compute_cell, spec.compute, c, cell_limit(per_worker),
                                     pure=False, retries=2, priority=len(order) - i): c
                       for i, c in enumerate(order)}
            for fut in as_completed(list(futures)):
                rec = _result(fut, spec.compute, futures[fut])
                _write(out, rec)
                done[rec["key"]] = rec
                computed += 1
                left = len(todo) - computed        # ETA from this run's pace
                eta = (time.perf_counter() - t0) / computed * left
                report(f"sweep (about {eta:.0f} s left)", len(done), len(cells))
                if on_record is not None:
                    on_record(rec, client)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    records = tuple(done[key(spec.compute, c)] for c in cells)
    from verifier.sweep.outputs import write_outputs
    table, figs = write_outputs(spec, records, out)
    return SweepResult(len(cells), computed, len(cells) - len(todo), records,
                       time.perf_counter() - t0, table, figs, tuple(set_aside))
