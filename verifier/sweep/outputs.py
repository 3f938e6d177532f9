"""A sweep's outputs (docs/SWEEPS.md): the table (CSV, and Parquet with pyarrow), one row per
cell: the axes' values, ``<compute>_lower``, ``<compute>_upper``, status, seconds, reason;
and a heatmap of the certified upper end over the first two axes with more than one value
(one per combination of the other axes' values), cells not certified marked x.  Written
atomically; byte-reproducible except the seconds column."""
from __future__ import annotations

import csv
import io
import itertools
import math
import os

from verifier.sweep.cells import text_of as text
from verifier.sweep.spec import Spec


def columns(spec: Spec) -> list:
    return [*spec.names, f"{spec.compute}_lower", f"{spec.compute}_upper", "status", "seconds",
            "reason"]


def rows(spec: Spec, records) -> list:
    lo, hi = f"{spec.compute}_lower", f"{spec.compute}_upper"
    return [[*(r["inputs"][n] for n in spec.names), r[lo], r[hi], r["status"], r["seconds"],
             r["reason"]] for r in records]


def _csv(spec: Spec, records) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns(spec))
    w.writerows(rows(spec, records))
    return buf.getvalue()


def _parquet(spec: Spec, records, path: str) -> bool:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:                      # the [sweep] extra brings it; CSV stands alone
        return False
    cols = columns(spec)
    data = list(zip(*rows(spec, records))) or [[] for _ in cols]
    table = pa.table({c: [None if v is None else str(v) if c != "seconds" else float(v)
                          for v in col] for c, col in zip(cols, data)})
    tmp = path + ".tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, path)
    return True


def heatmaps(spec: Spec, records) -> dict:
    """file name -> SVG: the certified upper end over two axes (log color scale)."""
    multi = [n for n, v in spec.axes if len(v) > 1]
    if len(multi) < 2:
        return {}
    from verifier.report.figures import pyplot, to_svg
    x, y = multi[0], multi[1]
    xs, ys = dict(spec.axes)[x], dict(spec.axes)[y]
    others = [(n, v) for n, v in spec.axes if n not in (x, y)]
    by = {tuple(sorted(r["inputs"].items())): r for r in records}
    hi = f"{spec.compute}_upper"
    out = {}
    for combo in itertools.product(*[v for _, v in others]):
        fixed = dict(zip([n for n, _ in others], combo))
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(xs), 1.0 + 0.6 * len(ys)))
        grid = []
        for yv in ys:
            row = []
            for xv in xs:
                cell = {**fixed, x: xv, y: yv}
                r = by.get(tuple(sorted((k, text(v)) for k, v in cell.items())))
                ok = r is not None and r["status"] == "certified" and r[hi] is not None
                row.append(float(r[hi]) if ok else None)
                ax.text(len(row) - 1, len(grid), f"{float(r[hi]):.4g}" if ok else "x",
                        ha="center", va="center", fontsize=8)
            grid.append(row)
        vals = [v for row in grid for v in row if v is not None and v > 0]
        import numpy as np
        signed = spec.compute == "sampler_difference"      # a difference: linear, diverging
        arr = np.array([[(v if signed else math.log10(v)) if v is not None and (signed or v > 0)
                         else np.nan for v in row] for row in grid])
        im = ax.imshow(arr, cmap="RdBu" if signed else "viridis", aspect="auto", origin="lower")
        fig.colorbar(im, ax=ax, label=(f"{spec.compute} (certified upper end)" if signed else
                                       f"log10 {spec.compute} (certified upper end)"))
        ax.set_xticks(range(len(xs)), [text(v) for v in xs])
        ax.set_yticks(range(len(ys)), [text(v) for v in ys])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        title = ", ".join(f"{k} = {text(v)}" for k, v in fixed.items())
        ax.set_title(f"{spec.compute}" + (f" at {title}" if title else "")
                     + ("" if vals else " (no certified cell)"), fontsize=9)
        name = "heatmap" + "".join(f"-{k}-{text(v)}" for k, v in fixed.items()) + ".svg"
        out[name.replace("/", "_")] = to_svg(fig)
    return out


def write_outputs(spec: Spec, records, out: str) -> tuple:
    """(the CSV path, the figure paths); the Parquet file beside the CSV when pyarrow is
    installed."""
    from verifier.report.writer import write_atomic
    table = os.path.join(out, "table.csv")
    figs = heatmaps(spec, records)
    write_atomic({table: _csv(spec, records),
                  **{os.path.join(out, n): svg for n, svg in figs.items()}})
    _parquet(spec, records, os.path.join(out, "table.parquet"))
    return table, tuple(os.path.join(out, n) for n in figs)
