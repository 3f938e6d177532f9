"""A sweep's outputs (docs/SWEEPS.md): the table (CSV, and Parquet with pyarrow), one row per
cell: the axes' values, ``<compute>_lower``, ``<compute>_upper``, status, seconds, reason;
a heatmap of the certified upper end over the first two axes with more than one value
(one per combination of the other axes' values), cells not certified marked x; for
calibrated_sigma also the contour lines of the certified noise multiplier.  Written
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


def _parquet(spec: Spec, records) -> bytes | None:
    """The table as Parquet bytes (None without pyarrow: the [sweep] extra brings it)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    cols = columns(spec)
    data = list(zip(*rows(spec, records))) or [[] for _ in cols]
    table = pa.table({c: [None if v is None else str(v) if c != "seconds" else float(v)
                          for v in col] for c, col in zip(cols, data)})
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf)
    return buf.getvalue().to_pybytes()


def _planes(spec: Spec, records):
    """(x, y, xs, ys, fixed, grid) per combination of the other axes' values: grid[j][i] the
    certified upper end at (xs[i], ys[j]) or None (not certified)."""
    multi = [n for n, v in spec.axes if len(v) > 1]
    if len(multi) < 2:
        return
    x, y = multi[0], multi[1]
    xs, ys = dict(spec.axes)[x], dict(spec.axes)[y]
    others = [(n, v) for n, v in spec.axes if n not in (x, y)]
    by = {tuple(sorted((k, v) for k, v in r["inputs"].items() if k != "run")): r
          for r in records}
    hi = f"{spec.compute}_upper"
    for combo in itertools.product(*[v for _, v in others]):
        fixed = dict(zip([n for n, _ in others], combo))
        grid = []
        for yv in ys:
            row = []
            for xv in xs:
                cell = {**fixed, x: xv, y: yv}
                r = by.get(tuple(sorted((k, text(v)) for k, v in cell.items())))
                ok = r is not None and r["status"] == "certified" and r[hi] is not None
                row.append(float(r[hi]) if ok else None)
            grid.append(row)
        yield x, y, xs, ys, fixed, grid


def _name(kind: str, fixed: dict) -> str:
    """The figure's file name from its fixed axes' values; a name beyond 120 characters
    (long values) is cut and ends in a hash of the whole (file names stay under the 255 bytes
    file systems allow, and distinct)."""
    import hashlib
    name = (kind + "".join(f"-{k}-{text(v)}" for k, v in fixed.items())).replace("/", "_")
    if len(name.encode()) > 120:
        h = hashlib.sha256(name.encode()).hexdigest()[:16]
        name = name.encode()[:100].decode("utf-8", "ignore") + "-" + h
    return name + ".svg"


def _title(spec: Spec, fixed: dict, vals) -> str:
    title = ", ".join(f"{k} = {text(v)}" for k, v in fixed.items())
    return (f"{spec.compute}" + (f" at {title}" if title else "")
            + ("" if vals else " (no certified cell)"))


def heatmaps(spec: Spec, records) -> dict:
    """file name -> SVG: the certified upper end over two axes (log color scale)."""
    from verifier.report.figures import pyplot, to_svg
    import numpy as np
    out = {}
    for x, y, xs, ys, fixed, grid in _planes(spec, records):
        plt = pyplot()
        w, h = 2.4 + 0.9 * len(xs), 1.6 + 0.6 * len(ys)
        fig, ax = plt.subplots(figsize=(w, h))
        # margins in inches (labels, title, colour bar): laid out by hand, drawn once
        fig.subplots_adjust(left=0.9 / w, right=1 - 0.3 / w, bottom=0.65 / h, top=1 - 0.4 / h)
        vals = [v for row in grid for v in row if v is not None and v > 0]
        signed = spec.compute == "sampler_difference"      # a difference: linear, diverging
        arr = np.array([[(v if signed else math.log10(v)) if v is not None and (signed or v > 0)
                         else np.nan for v in row] for row in grid])
        im = ax.imshow(arr, cmap="RdBu" if signed else "viridis", aspect="auto", origin="lower")
        for j, row in enumerate(grid):
            for i, v in enumerate(row):
                dark = (not signed and not np.isnan(arr[j][i]) and im.norm(arr[j][i]) < 0.35)
                ax.text(i, j, "x" if v is None else f"{v:.4g}", ha="center", va="center",
                        fontsize=8, color="white" if dark else "black")
        fig.colorbar(im, ax=ax, label=(f"{spec.compute} (certified upper end)" if signed else
                                       f"log10 {spec.compute} (certified upper end)"))
        ax.set_xticks(range(len(xs)), [text(v) for v in xs])
        ax.set_yticks(range(len(ys)), [text(v) for v in ys])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(_title(spec, fixed, vals), fontsize=9)
        out[_name("heatmap", fixed)] = to_svg(fig, tight=False)
    return out


def contours(spec: Spec, records) -> dict:
    """file name -> SVG: for calibrated_sigma, the contour lines of the certified noise
    multiplier over the first two axes with more than one value (each at least two values),
    the cells' own values printed at their points, cells not certified marked x.  The lines
    interpolate between certified cells: drawn, not certified (the caption says so)."""
    if spec.compute != "calibrated_sigma":
        return {}
    from verifier.report.figures import pyplot, to_svg
    import numpy as np
    out = {}
    for x, y, xs, ys, fixed, grid in _planes(spec, records):
        vals = [v for row in grid for v in row if v is not None]
        fx, fy = [float(v) for v in xs], [float(v) for v in ys]
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5.6, 4.2))
        arr = np.array([[np.nan if v is None else v for v in row] for row in grid])
        if len(vals) >= 4 and max(vals) > min(vals) > 0:
            X, Y = np.meshgrid(fx, fy)
            levels = sorted({float(f"{v:.2g}") for v in np.geomspace(min(vals), max(vals), 9)[1:-1]})
            cs = ax.contour(X, Y, np.ma.masked_invalid(arr), levels=levels, cmap="viridis")
            ax.clabel(cs, fontsize=7, fmt="%.3g")
        for j, row in enumerate(grid):
            for i, v in enumerate(row):
                ax.plot(fx[i], fy[j], "k." if v is not None else "rx", ms=4)
                if v is not None:
                    ax.annotate(f"{v:.4g}", (fx[i], fy[j]), fontsize=6, xytext=(2, 2),
                                textcoords="offset points")
        for v, raw, setter, ticks, lim in ((fx, xs, ax.set_xscale, ax.set_xticks, ax.set_xlim),
                                           (fy, ys, ax.set_yscale, ax.set_yticks, ax.set_ylim)):
            lo, hi = min(v), max(v)
            if lo > 0 and hi / lo >= 10:
                setter("log")
                lim(lo / (hi / lo) ** 0.06, hi * (hi / lo) ** 0.06)
            else:
                lim(lo - 0.06 * (hi - lo), hi + 0.06 * (hi - lo))
            ticks(v, [text(t) for t in raw], minor=False)
            ticks([], minor=True)
        fig.subplots_adjust(bottom=0.18)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(_title(spec, fixed, vals).replace("calibrated_sigma",
                                                       "certified noise multiplier"), fontsize=9)
        fig.text(0.01, 0.01, "points: certified cells (x: not certified); lines interpolate "
                 "between them (drawn, not certified)", fontsize=6)
        out[_name("contour", fixed)] = to_svg(fig)
    return out


def write_outputs(spec: Spec, records, out: str) -> tuple:
    """(the CSV path, the figure paths); the Parquet file beside the CSV when pyarrow is
    installed."""
    from verifier.report.folder import write_together
    table = os.path.join(out, "table.csv")
    figs = {**heatmaps(spec, records), **contours(spec, records)}
    files = {table: _csv(spec, records), **{os.path.join(out, n): svg for n, svg in figs.items()}}
    pq = _parquet(spec, records)
    if pq is not None:
        files[os.path.join(out, "table.parquet")] = pq
    write_together(out, files)                     # visible together (report/folder.py)
    return table, tuple(os.path.join(out, n) for n in figs)
