"""Inputs of ``certify`` / ``calibrate`` (flags and config files) and the
certificate files (JSON and Markdown, written atomically, byte-reproducible)."""
from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .arith import (InputError, Interval, parse_epochs, parse_exact, parse_sigma, parse_steps,
                    read_bounded)
from .deploy import BOUND_SOURCES, Certificate, Target, check_bounds

CONFIG_KEYS = {"sigma", "steps", "samples", "batch_size", "epochs", "clip", "delta",
               "target_accuracy", "bound", "noise_level", "resolution"}
MAX_CONFIG_BYTES = 1 << 16


def load_config(path: str) -> dict:
    """A TOML or JSON file with keys from CONFIG_KEYS; numbers read exactly."""
    try:
        raw = read_bounded(path, MAX_CONFIG_BYTES)     # never more (a device, a pipe)
        if path.endswith(".json"):
            data = json.loads(raw.decode("utf-8"), parse_float=Decimal, parse_constant=_no_constant)
        else:
            data = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)
    except InputError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: cannot read config: {e.__class__.__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: config must be a table/object")
    for k, v in data.items():
        if k not in CONFIG_KEYS:
            raise InputError(f"{path}: unknown config key {k!r:.40} (known: {', '.join(sorted(CONFIG_KEYS))})")
        if isinstance(v, bool) or not isinstance(v, (str, int, Decimal)):
            raise InputError(f"{path}: {k} must be a number or a string, got {type(v).__name__}")
    return {k: str(v) for k, v in data.items()}


def _no_constant(name):
    raise ValueError(f"{name} is not a number")


def merge(flags: dict, config: dict) -> dict:
    """Flags and config together; the same key given twice with different values is an error."""
    out = dict(config)
    for k, v in flags.items():
        if v is None:
            continue
        if k in config and _norm(config[k]) != _norm(v):
            raise InputError(f"{k} given twice with different values: {config[k]} (config) and {v} (flag)")
        out[k] = v
    return out


def _norm(v):
    try:
        return parse_exact(v, "value")
    except InputError:
        return str(v)


@dataclass(frozen=True)
class Inputs:
    sigma: Fraction | None
    steps: int | None
    samples: int | None
    batch_size: int | None
    epochs: int
    clip: Fraction
    target: Target
    bound: str
    noise_level: Fraction
    resolution: Fraction


def _positive_int(v, name):
    q = parse_exact(v, name)
    if q.denominator != 1 or q < 1:
        raise InputError(f"{name} must be a positive integer, got {v}")
    return int(q)


def _positive(v, name):
    q = parse_exact(v, name)
    if q <= 0:
        raise InputError(f"{name} must be > 0, got {v}")
    return q


def parse_inputs(d: dict, need_sigma=True, need_steps=True) -> Inputs:
    sigma = parse_sigma(d["sigma"]) if d.get("sigma") is not None else None
    if need_sigma and sigma is None:
        raise InputError("sigma is required (--sigma S)")
    samples = _positive_int(d["samples"], "samples") if d.get("samples") is not None else None
    batch = _positive_int(d["batch_size"], "batch-size") if d.get("batch_size") is not None else None
    steps = parse_steps(d["steps"]) if d.get("steps") is not None else None
    if batch is not None and samples is None:
        raise InputError("batch-size needs samples (--samples N) to give M = N / batch-size")
    if samples is not None and batch is not None:
        if samples % batch:
            raise InputError(f"batch-size {batch} does not divide samples {samples}: "
                             "M = N / batch-size must be an integer")
        m = samples // batch
        if m < 3:
            raise InputError(f"M = samples / batch-size = {m} must be >= 3")
        if steps is not None and steps != m:
            raise InputError(f"steps given twice and different: {steps} and samples / batch-size = {m}")
        steps = m
    if need_steps and steps is None:
        raise InputError("steps per epoch required: --steps M, or --samples N --batch-size b")
    epochs = parse_epochs(d.get("epochs", "1"))
    delta = parse_exact(d["delta"], "delta") if d.get("delta") is not None else None
    acc = (parse_exact(d["target_accuracy"], "target-accuracy")
           if d.get("target_accuracy") is not None else None)
    target = Target.make(delta, acc)
    bound = d.get("bound") or "all"
    if bound != "exact":          # "exact": only for calibrate sigma (the exact-TV bracket)
        check_bounds(bound)
    return Inputs(sigma, steps, samples, batch, epochs,
                  _positive(d.get("clip", "1"), "clip"), target, bound,
                  _positive(d.get("noise_level", "0.1"), "noise-level"),
                  _positive(d.get("resolution", "0.01"), "resolution"))


# ---------------------------------------------------------------------------
def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    import flint

    from . import __version__

    out = {"verifier": __version__, "python-flint": flint.__version__}
    for name in ("sympy", "mpmath"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover
            out[name] = "not installed"
    return out


def _fs(q) -> str:
    from .report import frac_str

    return frac_str(q)


def certificate_json(c: Certificate) -> dict:
    inputs = {"sigma": _fs(c.sigma), "steps": c.steps, "epochs": c.epochs, "clip": _fs(c.clip)}
    if c.samples:
        inputs["samples"] = c.samples
    out = {
        "certificate": "DP-SGD with random allocation: privacy certificate",
        "inputs": inputs,
        "target": {"kind": c.target.kind, "value": _fs(c.target.value),
                   "delta_epochs_at_most": _fs(c.target.delta)},
        "certified": c.certified,
        "status": c.status,
        "bounds": {name: ev.to_json() for name, ev in c.bounds.items()},
        "comparisons": {
            "note": "asymptotic / comparative (docs/THEORY.md section 5): NOT certified bounds for "
                    "random allocation, though evaluated in ball arithmetic",
            **{k: v.to_json() for k, v in c.comparisons.items()},
        },
        "generated_by": versions(),
        "sources": {**BOUND_SOURCES,
                    "mu_poisson": "Bu et al. 2019; Theorem 4.2 of arXiv 2605.06259 v1",
                    "mu_uniform": "Dong, Roth & Su 2019, Corollary 5.4"},
    }
    if c.noise_per_round is not None:
        out["noise_per_round"] = _fs(c.noise_per_round)
    return out


def _iv(x: Interval) -> str:
    return x.short(10)


def certificate_markdown(c: Certificate) -> str:
    v = versions()
    lines = ["# Privacy certificate: DP-SGD with random allocation", "",
             f"**Status: {c.status.upper()}**" + (" (at least one valid bound meets the target)"
                                                 if c.certified else ""), "",
             "## Inputs", "",
             f"- noise multiplier sigma = {_fs(c.sigma)}, clipping norm C = {_fs(c.clip)}",
             f"- steps per epoch M = {c.steps}, epochs E = {c.epochs}"
             + (f", dataset size N = {c.samples}" if c.samples else ""),
             f"- target: {c.target.kind} {_fs(c.target.value)} (delta_E <= {_fs(c.target.delta)})", ""]
    if c.noise_per_round is not None:
        lines += [f"- per-round noise C sigma M / N = {_fs(c.noise_per_round)}", ""]
    lines += ["## Bounds (certified intervals, rounded outward)", "",
              "| bound | delta_E | attack accuracy <= | hypotheses | meets target | verdict |",
              "|---|---|---|---|---|---|"]
    for name, ev in c.bounds.items():
        hyps = ", ".join(f"{h.name}: {h.verdict.value}" for h in ev.hypotheses) or "none needed"
        lines.append(f"| {name} | {_iv(ev.delta_epochs)} | {_iv(ev.accuracy)} | {hyps} | "
                     f"{ev.meets.value} | **{ev.verdict.value}** |")
    lines += ["", "## Gaussian-DP comparison (asymptotic, not a certified bound)", "",
              f"- Poisson subsampling at rate 1/M: mu_P = {_iv(c.comparisons['mu_poisson'])}, "
              f"TV = {_iv(c.comparisons['tv_poisson'])}",
              f"- uniform subsampling (Dong et al. Cor. 5.4): mu_U = {_iv(c.comparisons['mu_uniform'])}, "
              f"TV = {_iv(c.comparisons['tv_uniform'])}", "",
              "## Sources", ""]
    lines += [f"- {k}: {s}" for k, s in BOUND_SOURCES.items()]
    lines += ["- Theorem 3.1 is used as reconstructed (docs/THEORY.md section 3); condition (2) is "
              "reconstructed from Lemma E.1.", "",
              f"Generated by verifier {v['verifier']} (python-flint {v['python-flint']}, "
              f"SymPy {v['sympy']}, mpmath {v['mpmath']}).", ""]
    return "\n".join(lines)


def certificate_figures(c: Certificate) -> dict:
    from . import figures as F

    return {
        "certificate-tradeoff.svg": (F.figure_tradeoff(
            c.sigma, c.steps, c.epochs, {n: ev.delta_epochs for n, ev in c.bounds.items()},
            c.comparisons), "Trade-off curves implied by each bound (f(a) >= 1 - a - delta_E) "
                            "against 1 - a; Gaussian trade-offs G_mu dotted (asymptotic comparison, "
                            "not a certified bound)."),
        "certificate-feasibility.svg": (F.figure_feasibility(
            c.sigma, c.steps, c.epochs, c.target, list(c.bounds)),
            "Feasibility map: the certified smallest M meeting the target for each bound across "
            "sigma; the target is met above a curve. The star is your (sigma, M)."),
    }


def certificate_html(c: Certificate, figs: dict) -> str:
    from . import html as H

    v = versions()
    rows = []
    for name, ev in c.bounds.items():
        hyps = ", ".join(f"{h.name}: {h.verdict.value}" for h in ev.hypotheses) or "none needed"
        rows.append((H.esc(name), H.esc(_iv(ev.delta_epochs)), H.esc(_iv(ev.accuracy)), H.esc(hyps),
                     H.verdict(ev.meets.value), H.verdict(ev.verdict.value)))
    body = ['<h2>Verdicts</h2><div id="verdicts">',
            H.table(["bound", "delta_E (certified)", "attack accuracy <=", "hypotheses",
                     "meets target", "verdict"], rows, raw_cols=(0, 1, 2, 3, 4, 5)), "</div>",
            "<h2>Inputs</h2>", H.table(["input", "value"], [
                ("noise multiplier sigma", _fs(c.sigma)), ("clipping norm C", _fs(c.clip)),
                ("steps per epoch M", c.steps), ("epochs E", c.epochs),
                ("dataset size N", c.samples if c.samples else "not given"),
                ("per-round noise C sigma M / N",
                 _fs(c.noise_per_round) if c.noise_per_round is not None else "-"),
                ("target", f"{c.target.kind} {_fs(c.target.value)} (delta_E <= {_fs(c.target.delta)})")]),
            "<h2>Figures</h2>"]
    body += [H.figure(svg, cap) for svg, cap in figs.values()]
    cm = c.comparisons
    body += ["<h2>Gaussian-DP comparison (asymptotic, not a certified bound)</h2>",
             H.table(["", "mu", "TV"], [
                 ("Poisson subsampling at rate 1/M", _iv(cm["mu_poisson"]), _iv(cm["tv_poisson"])),
                 ("uniform subsampling (Dong et al. Cor. 5.4)", _iv(cm["mu_uniform"]),
                  _iv(cm["tv_uniform"]))]),
             "<h2>Sources</h2><ul>"]
    body += [f"<li>{H.esc(k)}: {H.esc(s)}</li>" for k, s in BOUND_SOURCES.items()]
    body += ["<li>Theorem 3.1 is used as reconstructed (docs/THEORY.md section 3); condition (2) is "
             "reconstructed from Lemma E.1.</li></ul>",
             f'<p class="note">Generated by verifier {v["verifier"]} (python-flint '
             f'{v["python-flint"]}, SymPy {v["sympy"]}, mpmath {v["mpmath"]}).</p>']
    summ = f"Status: {c.status.upper()}" + (" (at least one valid bound meets the target)"
                                            if c.certified else "")
    return H.page("Privacy certificate: DP-SGD with random allocation", H.esc(summ), body)


def write_certificate(c: Certificate, out_dir: str):
    from . import html as H
    from .report import dumps, write_atomic

    j, m = os.path.join(out_dir, "certificate.json"), os.path.join(out_dir, "certificate.md")
    figs = certificate_figures(c)
    files = {j: dumps(certificate_json(c)), m: certificate_markdown(c),
             os.path.join(out_dir, "certificate.html"): certificate_html(c, figs)}
    for name, (svg, _) in figs.items():
        files[os.path.join(out_dir, name)] = svg
    if os.path.exists(os.path.join(out_dir, "index.html")):   # a reports directory: keep its index
        files[os.path.join(out_dir, "index.html")] = H.index_page(
            out_dir, [os.path.basename(f) for f in files])
    write_atomic(files)
    return j, m
