"""The certificate files of ``certify`` (JSON, Markdown, HTML and figures; written
atomically, byte-reproducible): rendering only."""
from __future__ import annotations

import os
from fractions import Fraction

from verifier.core.arith import Interval
from verifier.bounds import REGISTRY
from verifier.deploy import Certificate
from verifier.deploy.certify import TV_ROWS_NOTE
from verifier.report.writer import versions
def _fs(q) -> str:
    from verifier.core.arith import frac_str
    return frac_str(q)


def certificate_json(c: Certificate) -> dict:
    """The certificate's JSON file: the result's own JSON (Certificate.to_json)."""
    return c.to_json()


def _iv(x: Interval) -> str:
    return x.short(10)


def _loss(x) -> str:
    if x is None:
        return "-"
    if x.lower == x.upper == 0:
        return "0 (the reference)"
    return x.short(6)


def certificate_markdown(c: Certificate) -> str:
    v = versions("sympy", "mpmath")
    lines = ["# Privacy certificate: DP-SGD with random allocation", "",
             f"**Status: {c.status_line}**", "",
             "## Inputs", "",
             f"- noise multiplier sigma = {_fs(c.sigma)}, clipping norm C = {_fs(c.clip)}",
             f"- steps per epoch M = {c.steps}, epochs E = {c.epochs}"
             + (f", dataset size N = {c.samples}" if c.samples else ""),
             (f"- target: (epsilon, delta) = ({_fs(c.privacy.epsilon)}, {_fs(c.privacy.delta)}); "
              f"a TV bound meets it when delta_E <= {_fs(c.target.delta)}" if c.privacy is not None
              else f"- target: {c.target.kind} {_fs(c.target.value)} (delta_E <= "
                   f"{_fs(c.target.delta)})"), ""]
    if c.epsilon_at_delta is not None and c.epsilon_at_delta.epsilon is not None:
        lines += [f"- the run's epsilon({_fs(c.epsilon_at_delta.delta)}) in "
                  f"{_iv(c.epsilon_at_delta.epsilon)} (certified, the exact privacy profile; "
                  "with --target-epsilon it becomes the target)", ""]
    if c.noise_per_round is not None:
        lines += [f"- per-round noise C sigma M / N = {_fs(c.noise_per_round)}", ""]
    if c.privacy is not None:
        pv = c.privacy
        lines += ["## (epsilon, delta): the privacy profile (certified)", "",
                  f"- delta({_fs(pv.epsilon)}) in {_iv(pv.delta_at_eps)}: "
                  f"**{pv.verdict.value}** against delta = {_fs(pv.delta)}",
                  f"- epsilon({_fs(pv.delta)}) in "
                  f"{_iv(pv.epsilon_bracket) if pv.epsilon_bracket else 'inconclusive'}"
                  f" (larger direction: {pv.larger})",
                  f"- TV = delta(0) in {_iv(pv.tv)}, attack accuracy in {_iv(pv.accuracy)}", ""]
        if pv.poisson is not None:
            verdict, d = pv.sampler_comparison()
            pe = pv.poisson.epsilon
            lines += ["## Random allocation against Poisson subsampling (certified)", "",
                      f"- Poisson subsampling at q = 1/M = {_fs(pv.poisson.sample_rate)}, "
                      f"T = M E = {pv.poisson.steps} steps: epsilon({_fs(pv.delta)}) in "
                      f"{_iv(pe) if pe is not None else 'inconclusive'}",
                      f"- {verdict}" + (f": Poisson's epsilon minus random allocation's in "
                                        f"{_iv(d)}" if d is not None else ""), ""]
        if pv.views is not None:
            lines += [f"## Every view of the pair, at delta = {_fs(pv.delta)} (certified)", "",
                      "| view | certified value | loss against the exact epsilon | how |",
                      "|---|---|---|---|"]
            for r in pv.views.rows:
                lines.append(f"| {r.name} | {_iv(r.value)} | {_loss(r.loss)} | {r.note} |")
            lines += ["", f"zCDP parameter rho = {_iv(pv.views.rho)} = E/(2 sigma^2) whatever M: "
                          "compressing the Rényi curve to zCDP keeps none of the amplification "
                          "by random allocation.", ""]
    lines += ["## Bounds (certified intervals, rounded outward)", "",
              "| bound | delta_E | attack accuracy <= | hypotheses | meets target | verdict |",
              "|---|---|---|---|---|---|"]
    for name, ev in c.bounds.items():
        hyps = ", ".join(f"{h.name}: {h.verdict.value}" for h in ev.hypotheses) or "none needed"
        lines.append(f"| {name} | {_iv(ev.delta_epochs)} | {_iv(ev.accuracy)} | {hyps} | "
                     f"{ev.meets.value} | **{ev.verdict.value}** |")
    if c.privacy is not None:      # the (epsilon, delta) target's own row
        pv = c.privacy
        lines.append(f"| the exact privacy profile | delta({_fs(pv.epsilon)}) in "
                     f"{_iv(pv.delta_at_eps)} | {_iv(pv.accuracy)} | none needed | "
                     f"{pv.verdict.value} | **{pv.verdict.value}** |")
    if c.privacy is not None:
        lines += ["", TV_ROWS_NOTE]
    if c.comparisons:
        lines += ["", "## Gaussian-DP comparison (asymptotic, not a certified bound)", "",
                  f"- Poisson subsampling at rate 1/M: mu_P = {_iv(c.comparisons['mu_poisson'])}, "
                  f"TV = {_iv(c.comparisons['tv_poisson'])}",
                  f"- uniform subsampling (Dong et al. Cor. 5.4): mu_U = "
                  f"{_iv(c.comparisons['mu_uniform'])}, TV = {_iv(c.comparisons['tv_uniform'])}"]
    lines += ["", "## Sources", ""]
    lines += [f"- {k}: {s}" for k, s in ((n, b.source) for n, b in REGISTRY.items())]
    lines += ["- Theorem 3.1 is used as reconstructed (docs/THEORY.md section 3); condition (2) is "
              "reconstructed from Lemma E.1.", "",
              f"Generated by verifier {v['verifier']} (python-flint {v['python-flint']}, "
              f"SymPy {v['sympy']}, mpmath {v['mpmath']}).", ""]
    return "\n".join(lines)


def certificate_figures(c: Certificate, feasibility: dict) -> dict:
    """name -> (svg, caption); ``feasibility``: verifier.deploy.series.feasibility for c."""
    from verifier.report import figures as F
    out = {}
    if c.privacy is not None:
        out["certificate-profile.svg"] = (F.figure_profile(c.privacy), (
            "Privacy profile delta(eps) of the random-allocation pair, both directions, each a "
            "certified band (lower and upper ends of its bracket); the target (eps, delta) marked."))
    band = (c.privacy.views.tradeoff if c.privacy is not None and c.privacy.views is not None
            else None)
    # drawn only where it carries information: the exact band, or a TV bound visibly off the
    # diagonal (at delta_E of 1e-2 or below every line is the diagonal to the eye)
    visible = any(ev.delta_epochs.upper >= Fraction(1, 50) and ev.delta_epochs.upper < 1
                  for ev in c.bounds.values())
    if band is not None or visible:
        out["certificate-tradeoff.svg"] = (F.figure_tradeoff(
            c.sigma, c.steps, c.epochs, {n: ev.delta_epochs for n, ev in c.bounds.items()},
            c.comparisons, band), "Trade-off curves implied by each bound (f(a) >= 1 - a - "
            "delta_E) against 1 - a" + ("; the certified band of the exact trade-off curve "
                                        "T(P0^E, P1^E) from the privacy profile" if band else "")
            + "; Gaussian trade-offs G_mu dotted (asymptotic comparison, not a certified bound).")
    if not c.bounds or c.privacy is not None:
        # the map shows the TV bounds' feasible M; it says nothing about an (epsilon, delta)
        # target, which the privacy profile decides (its own figure above)
        return out
    return {**out,
        "certificate-feasibility.svg": (F.figure_feasibility(c.sigma, c.steps, feasibility),
            "Feasibility map: the certified smallest M meeting the target for each bound across "
            "sigma; the target is met above a curve. The star is your (sigma, M)."),
    }


def certificate_html(c: Certificate, figs: dict) -> str:
    from verifier.report import html as H
    v = versions("sympy", "mpmath")
    rows = []
    for name, ev in c.bounds.items():
        hyps = ", ".join(f"{h.name}: {h.verdict.value}" for h in ev.hypotheses) or "none needed"
        rows.append((H.esc(name), H.esc(_iv(ev.delta_epochs)), H.esc(_iv(ev.accuracy)), H.esc(hyps),
                     H.verdict(ev.meets.value), H.verdict(ev.verdict.value)))
    if c.privacy is not None:      # the (epsilon, delta) target's own row
        pv = c.privacy
        rows.append(("the exact privacy profile",
                     H.esc(f"delta({_fs(pv.epsilon)}) in {_iv(pv.delta_at_eps)}"),
                     H.esc(_iv(pv.accuracy)), "none needed", H.verdict(pv.verdict.value),
                     H.verdict(pv.verdict.value)))
    priv = []
    if c.privacy is not None:
        pv = c.privacy
        priv = ["<h2>(epsilon, delta): the privacy profile (certified)</h2>", H.table(
            ["statement", "certified value", "verdict"],
            [(f"delta({_fs(pv.epsilon)}) &lt;= {_fs(pv.delta)}", H.esc(_iv(pv.delta_at_eps)),
              H.verdict(pv.verdict.value)),
             (f"epsilon({_fs(pv.delta)})", H.esc(_iv(pv.epsilon_bracket) if pv.epsilon_bracket
                                                else "inconclusive"), H.esc(pv.larger)),
             ("TV = delta(0)", H.esc(_iv(pv.tv)), "-"),
             ("attack accuracy 1/2 + TV/2", H.esc(_iv(pv.accuracy)), "-")], raw_cols=(0, 1, 2))]
        if pv.poisson is not None:
            verdict, d = pv.sampler_comparison()
            pe = pv.poisson.epsilon
            priv += ["<h2>Random allocation against Poisson subsampling (certified)</h2>",
                     H.table(["sampler", f"epsilon({_fs(pv.delta)})", "note"], [
                         ("random allocation", _iv(pv.epsilon_bracket) if pv.epsilon_bracket
                          else "inconclusive", f"M = {c.steps}, E = {c.epochs}"),
                         ("Poisson subsampling", _iv(pe) if pe is not None else "inconclusive",
                          f"q = 1/M, T = {pv.poisson.steps}"),
                         ("difference (Poisson - random allocation)",
                          _iv(d) if d is not None else "-", verdict)])]
        if pv.views is not None:
            priv += [f"<h2>Every view of the pair, at delta = {H.esc(_fs(pv.delta))} "
                     "(certified)</h2>", H.table(
                         ["view", "certified value", "loss against the exact epsilon", "how"],
                         [(H.esc(r.name), H.esc(_iv(r.value)), H.esc(_loss(r.loss)),
                           H.esc(r.note)) for r in pv.views.rows], raw_cols=(0, 1, 2, 3)),
                     f'<p class="note">zCDP parameter rho = {H.esc(_iv(pv.views.rho))} = '
                     "E/(2 sigma^2) whatever M: compressing the Rényi curve to zCDP keeps none "
                     "of the amplification by random allocation.</p>"]
    body = priv + ['<h2>Verdicts</h2><div id="verdicts">',
            H.table(["bound", "delta_E (certified)", "attack accuracy <=", "hypotheses",
                     "meets target", "verdict"], rows, raw_cols=(0, 1, 2, 3, 4, 5)),
            f'<p class="note">{H.esc(TV_ROWS_NOTE)}</p>' if c.privacy is not None else "",
            "</div>",
            "<h2>Inputs</h2>", H.table(["input", "value"], [
                ("noise multiplier sigma", _fs(c.sigma)), ("clipping norm C", _fs(c.clip)),
                ("steps per epoch M", c.steps), ("epochs E", c.epochs),
                ("dataset size N", c.samples if c.samples else "not given"),
                ("per-round noise C sigma M / N",
                 _fs(c.noise_per_round) if c.noise_per_round is not None else "-"),
                ("target", f"(epsilon, delta) = ({_fs(c.privacy.epsilon)}, {_fs(c.privacy.delta)}); "
                           f"a TV bound meets it when delta_E <= {_fs(c.target.delta)}"
                 if c.privacy is not None else
                 f"{c.target.kind} {_fs(c.target.value)} (delta_E <= {_fs(c.target.delta)})")]),
            "<h2>Figures</h2>"]
    body += [H.figure(svg, cap) for svg, cap in figs.values()]
    cm = c.comparisons
    if cm:
        body += ["<h2>Gaussian-DP comparison (asymptotic, not a certified bound)</h2>",
                 H.table(["", "mu", "TV"], [
                     ("Poisson subsampling at rate 1/M", _iv(cm["mu_poisson"]),
                      _iv(cm["tv_poisson"])),
                     ("uniform subsampling (Dong et al. Cor. 5.4)", _iv(cm["mu_uniform"]),
                      _iv(cm["tv_uniform"]))])]
    body += ["<h2>Sources</h2><ul>"]
    body += [f"<li>{H.esc(k)}: {H.esc(s)}</li>" for k, s in ((n, b.source) for n, b in REGISTRY.items())]
    body += ["<li>Theorem 3.1 is used as reconstructed (docs/THEORY.md section 3); condition (2) is "
             "reconstructed from Lemma E.1.</li></ul>",
             f'<p class="note">Generated by verifier {v["verifier"]} (python-flint '
             f'{v["python-flint"]}, SymPy {v["sympy"]}, mpmath {v["mpmath"]}).</p>']
    summ = f"Status: {c.status_line}"
    return H.page("Privacy certificate: DP-SGD with random allocation", H.esc(summ), body)


def write_certificate(c: Certificate, out_dir: str, feasibility: dict) -> tuple:
    """Write the certificate's files into ``out_dir`` together; the paths of all of them."""
    from verifier.report import html as H
    from verifier.report.folder import write_together
    from verifier.report.writer import dumps
    j, m = os.path.join(out_dir, "certificate.json"), os.path.join(out_dir, "certificate.md")
    figs = certificate_figures(c, feasibility)
    files = {j: dumps(certificate_json(c)), m: certificate_markdown(c),
             os.path.join(out_dir, "certificate.html"): certificate_html(c, figs)}
    for name, (svg, _) in figs.items():
        files[os.path.join(out_dir, name)] = svg
    if os.path.exists(os.path.join(out_dir, "index.html")):   # a reports directory: keep its index
        files[os.path.join(out_dir, "index.html")] = H.index_page(
            out_dir, {os.path.basename(f): t for f, t in files.items()})
    write_together(out_dir, files)                 # all visible together (report/folder.py)
    return tuple(files)                            # every file written: json, md, html, ...
