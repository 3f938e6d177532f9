"""Certified sweeps over parameter grids (docs/SWEEPS.md): spec.py reads what each cell
computes and the axes, cells.py computes one cell through the public API, run.py runs the
cells on Dask distributed (resumable, lossless), outputs.py writes the table and heatmaps."""
