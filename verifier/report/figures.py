"""Figures (vector SVG, reproducible byte for byte) for the human-facing reports.

matplotlib (a well-kept plotting library; we would not write our own SVG
plotting) renders with the Agg-free SVG backend, text kept as text
(``svg.fonttype = none``), a fixed hash salt and no date metadata, so the
same inputs give the same bytes.  Every plotted M_exact is certified; curves
of closed forms and bounds are evaluated in ball arithmetic at their midpoints
(a drawing, not a verdict).
"""
from __future__ import annotations

import io
from fractions import Fraction

from verifier.core.arith import decimal_str
RC = {
    "svg.hashsalt": "verifier",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
}

TABLE1 = {  # Table 1 of arXiv 2605.06259 v1 (delta = 0.01): M_exact as printed
    "simplified": {"0.50": "1.57e9", "0.75": "3.72e6", "1.00": "1.14e6", "1.50": "3.23e6",
                   "2.00": "1.49e7"},
    "rho3": {"0.50": "1.57e9", "0.75": "3.10e6", "1.00": "4.30e5", "1.50": "1.03e5",
              "2.00": "5.91e4"},
}


def _plt():
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(RC)
    return plt


def _svg(fig, tight: bool = True) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "verifier"},
                **({"bbox_inches": "tight"} if tight else {}))
    import matplotlib.pyplot as plt

    plt.close(fig)
    text = buf.getvalue()
    # drop the XML prolog so the SVG can be inlined in HTML
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    import re

    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)


def _mid(iv) -> float:
    return float((iv.lower + iv.upper) / 2)


def figure_steps_vs_sigma(data: dict, delta: Fraction = Fraction(1, 100)) -> str:
    """Figure 1 of the paper from ``verifier.deploy.series.steps_vs_sigma``: required rounds
    M vs sigma, both factors; M_exact certified at every plotted sigma, closed form (4)
    dashed, Table 1 as markers."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for coef, colour in (("simplified", "#1f77b4"), ("rho3", "#d62728")):
        ms, cf = data[coef]
        xs = [float(s) for s, _ in ms.points]
        label = "coef_S (simplified)" if coef == "simplified" else "coef_X (rho3)"
        ax.plot(xs, [m for _, m in ms.points], color=colour, label=f"M_exact, {label} (certified)")
        ax.plot(xs, [_mid(v) for _, v in cf.points], color=colour, linestyle="--", linewidth=1,
                label=f"closed form (4), {label}")
        pts = TABLE1[coef]
        ax.scatter([float(k) for k in pts], [float(v) for v in pts.values()], color=colour,
                   marker="o", facecolors="none", s=60, zorder=5,
                   label=f"Table 1 (published), {label}")
    ax.set_yscale("log")
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel("steps per epoch M")
    ax.set_title(f"Required rounds M vs sigma, delta = {float(delta)} (cf. Figure 1)")
    ax.legend(fontsize=7)
    return _svg(fig)


COLOURS = {"theorem31-simplified": "#1f77b4", "theorem31-rho3": "#d62728",
           "chi-square": "#2ca02c"}


def figure_delta_vs_steps(data: dict) -> str:
    """delta vs M at fixed sigma from ``verifier.deploy.series.delta_vs_steps``: every bound
    (curves through ball midpoints) and the exact TV's rigorous bracket."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for curve in data["bounds"]:
        ax.plot([M for M, _ in curve.points], [_mid(v) for _, v in curve.points],
                color=COLOURS.get(curve.name, "gray"), label=curve.name)
    pts = data["exact"].points
    if pts:   # the exact TV bracket as a curve (rigorous band; its width is about 0.5%)
        ms = [M for M, _ in pts]
        ax.fill_between(ms, [float(tv.lower) for _, tv in pts], [float(tv.upper) for _, tv in pts],
                        color="black", alpha=0.4)
        ax.plot(ms, [float(tv.upper) for _, tv in pts], color="black", linewidth=1.2,
                marker=".", label="exact TV (rigorous bracket, M = 10 to 1e7)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("steps per epoch M")
    ax.set_ylabel(f"delta (TV bound), E = {data['epochs']}")
    ax.set_title(f"Bounds on delta vs M at sigma = {float(data['sigma'])}")
    ax.legend(fontsize=8)
    return _svg(fig)


def figure_tradeoff(sigma: Fraction, steps: int, epochs: int, bounds: dict, comparisons=None,
                    band=None) -> str:
    """Trade-off curves f(a) >= max(0, 1 - a - delta_E) implied by each bound, against 1 - a;
    with ``band`` (verifier.views.tradeoff.TradeoffCurve) the certified band of the exact
    T(P0^E, P1^E); Gaussian trade-offs G_mu for comparison (asymptotic, dotted)."""
    plt = _plt()
    a = [k / 200 for k in range(201)]
    fig, ax = plt.subplots(figsize=(4.8, 4.6))
    ax.plot(a, [1 - x for x in a], color="black", linewidth=1, label="1 - a (perfect privacy)")
    if band is not None:
        xs = [float(p.a) for p in band.points]
        ax.fill_between(xs, [float(p.f.lower) for p in band.points],
                        [float(p.f.upper) for p in band.points], color="tab:purple", alpha=0.5,
                        label="exact T(P0^E, P1^E): certified band")
        ax.plot(xs, [float(p.f.upper) for p in band.points], color="tab:purple", linewidth=0.8)
    for name, dE in bounds.items():
        up = decimal_str(dE.upper, 3, "up")     # after '<=': rounded up
        d = float(up)
        ax.plot(a, [max(0.0, 1 - x - d) for x in a], color=COLOURS.get(name, "gray"),
                label=f"{name}: delta_E <= {up}")
    if comparisons:
        from statistics import NormalDist

        N = NormalDist()
        for key, style in (("mu_poisson", ":"), ("mu_uniform", "-.")):
            mu = _mid(comparisons[key])
            ys = [N.cdf(N.inv_cdf(1 - x) - mu) if 0 < x < 1 else (1.0 if x == 0 else 0.0) for x in a]
            ax.plot(a, ys, color="gray", linestyle=style, linewidth=1,
                    label=f"G_mu, {key} = {mu:.3g} (asymptotic)")
    ax.set_xlabel("type I error a")
    ax.set_ylabel("type II error f(a)")
    ax.set_title(f"Trade-off curves, sigma = {float(sigma)}, M = {steps}, E = {epochs}", fontsize=9)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return _svg(fig)


def figure_feasibility(sigma: Fraction, steps: int, data: dict) -> str:
    """Where (sigma, M) sits, from ``verifier.deploy.series.feasibility``: the certified
    smallest M meeting the target, per bound, across sigma (feasible above each curve)."""
    plt = _plt()
    s0 = float(sigma)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, curve in data.items():
        ax.plot([float(s) for s, _ in curve.points], [m for _, m in curve.points],
                color=COLOURS.get(name, "gray"), marker=".", label=f"{name}: smallest M")
    ax.scatter([s0], [steps], color="black", marker="*", s=150, zorder=6, label="your (sigma, M)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel("steps per epoch M")
    ax.set_title("Feasibility map: the target is met above a bound's curve", fontsize=9)
    ax.legend(fontsize=7)
    return _svg(fig)


def figure_profile(pv) -> str:
    """The privacy profile delta(eps) of both directions as certified bands (the lower and
    upper ends of each bracket, log scale), the target (eps, delta) marked."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    es = [float(e) for e, _, _ in pv.curve]
    for k, (name, colour) in enumerate((("remove", "tab:red"), ("add", "tab:blue"))):
        lo = [max(float(c[1 + k].lower), 1e-300) for c in pv.curve]
        hi = [max(float(c[1 + k].upper), 1e-300) for c in pv.curve]
        ax.fill_between(es, lo, hi, color=colour, alpha=0.35, label=f"{name}: certified band")
        ax.plot(es, hi, color=colour, linewidth=0.8)
    ax.scatter([float(pv.epsilon)], [float(pv.delta)], color="black", marker="*", s=120,
               zorder=5, label=f"target (eps, delta) = ({float(pv.epsilon):g}, {float(pv.delta):g})")
    ax.set_yscale("log")
    floor = max(min(float(pv.delta) / 1e3, 1e-3), 1e-300)
    ax.set_ylim(floor, 1.0)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    ax.set_title("Privacy profile of the random-allocation pair (both directions)", fontsize=9)
    ax.legend(fontsize=7)
    return _svg(fig)


def pyplot():
    """matplotlib's pyplot with the reports' reproducible settings (RC)."""
    return _plt()


def to_svg(fig, tight: bool = True) -> str:
    """A figure as reproducible, inlinable SVG text (closes the figure); ``tight=False``
    keeps the figure's own margins (one drawing pass instead of two: for figures laid out
    by hand, such as a sweep's heatmaps)."""
    return _svg(fig, tight)
