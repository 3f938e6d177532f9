"""Audit reports (JSON for machines, Markdown for people), written atomically.

Reports are byte-reproducible: no timestamps, no absolute paths, stable
ordering; the only environment facts recorded are the versions of the
verifier and of python-flint (the arithmetic engine).
"""
from __future__ import annotations

import json
from fractions import Fraction
import re
import os
import tempfile  # noqa: F401 (the fault tests patch the writer's modules)

from verifier.core.provenance import versions
from verifier.report.folder import write_atomic  # noqa: F401 (re-exported)
from verifier.core.arith import frac_str
from verifier.claims.audit import ClaimResult, describe_args, summary, summary_line, value_text
from verifier.claims.format import ClaimsFile
from verifier.bounds.theorem31 import RECONSTRUCTED_NOTE
from verifier.report.sources import audit_title, source_citation, uses_reconstruction
def dumps(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------
def audit_json(cf: ClaimsFile, results: list[ClaimResult], max_prec: int) -> dict:
    claims = []
    for r in results:
        c = r.claim
        entry = {"id": c.id, "where": c.where}
        if c.expr is not None:
            entry["expr"] = c.expr_text
            if c.over:
                entry["over"] = {k: [frac_str(lo), frac_str(hi)] for k, (lo, hi) in c.over}
                entry["extremum"] = c.extremum
        else:
            entry["quantity"] = c.quantity
        entry.update({"printed": c.printed, "judge": c.judge, "verdict": r.verdict,
                      "source": r.source})
        if c.statement:
            entry["statement"] = c.statement
        if c.reading:
            entry["reading"] = c.reading
        if c.judge in ("relative-difference", "equals") and c.expr is not None:
            entry["reference"] = c.reference_text
        elif c.judge == "relative-difference":
            entry["reference"] = c.reference
        if c.tolerance is not None:
            entry["tolerance"] = frac_str(c.tolerance)
        if c.judge == "between":
            entry["low"], entry["high"] = frac_str(c.low), frac_str(c.high)
        if r.reconstructed:
            entry["reconstructed"] = True
        if c.note:
            entry["note"] = c.note
        if len(r.cases) == 1:
            entry.update(r.cases[0].to_json())
        else:
            entry["cases"] = [x.to_json() for x in r.cases]
        claims.append(entry)
    return {
        "report": "audit",
        "claims_file": cf.name + ".toml",
        "source": cf.source,
        "generated_by": versions(),
        "precision_cap_bits": max_prec,
        "summary": summary(results),
        **({"own_claims": {"summary": summary(results, own=True),
                           "ids": [r.claim.id for r in results if r.claim.own]}}
           if any(r.claim.own for r in results) else {}),
        "reconstruction_note": RECONSTRUCTED_NOTE if uses_reconstruction(results) else None,
        "format": cf.format,
        "verdict_meaning": {
            "confirmed": "the certified enclosure rounds to the printed digits, or the relation certifiably holds",
            "refuted": "certifiably not",
            "inconclusive": "undecided at the precision cap",
            "not-applicable": "a hypothesis of the theorem fails",
        },
        "claims": claims,
    }


_T1 = re.compile(r"table1\.([SX])\.sigma-([0-9.]+)\.(M_BE|M_exact|MinN)$")
T1_COLS = ("M_BE", "M_exact", "MinN")


def table1_layout(results):
    """Table 1 of arXiv 2605.06259 in the paper's own layout, cell by cell: [(factor, sigma,
    {column: (printed, certified, verdict)})], or None when the results have no such cells."""
    cells = {}
    for r in results:
        m = _T1.match(r.claim.id)
        if m and len(r.cases) == 1:
            f, sg, col = m.groups()
            cells.setdefault((f, sg), {})[col] = (r.claim.printed, value_text(r.cases[0]),
                                                  r.verdict)
    if not cells:
        return None
    order = sorted(cells, key=lambda k: (k[0] != "S", Fraction(k[1])))
    return [(("coef_S (simplified)" if f == "S" else "coef_X (exact factor)"), sg, cells[(f, sg)])
            for f, sg in order]


def rel_text(x) -> str:
    """The relative difference |value - reference| / |reference| of a case, rounded up."""
    from verifier.core.arith import decimal_str
    if x.value is None or x.reference is None or not x.reference.finite:
        return ""
    rlo = min(abs(x.reference.lower), abs(x.reference.upper))
    if x.reference.lower <= 0 <= x.reference.upper or rlo == 0:
        return ""
    d = max(abs(x.value.upper - x.reference.lower), abs(x.reference.upper - x.value.lower))
    return "rel. diff. <= " + decimal_str(d / rlo, 3, "up")


def _shown(r) -> str:
    if len(r.cases) != 1:
        return ""
    t = rel_text(r.cases[0])
    return f" ({t})" if t else ""


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def audit_markdown(cf: ClaimsFile, results: list[ClaimResult], max_prec: int) -> str:
    v = versions()
    src = cf.source
    lines = [f"# {audit_title(cf)}", ""]
    if src:
        lines += [f"Source: {source_citation(src)}.", ""]
    lines += [
        f"Generated by verifier {v['verifier']} (python-flint {v['python-flint']}); "
        f"precision cap {max_prec} bits; claims file `{cf.name}.toml`.", "",
        f"**{summary_line(results)}.**", "",
    ]
    t1 = table1_layout(results)
    if t1:
        lines += ["## Table 1, in the paper's layout (printed / certified / verdict)", "",
                  "| factor | sigma | " + " | ".join(T1_COLS) + " |",
                  "|---|---|" + "---|" * len(T1_COLS)]
        for f, sg, row in t1:
            cells = [f"{row[c][0]} / {row[c][1]} / **{row[c][2]}**" if c in row else "-"
                     for c in T1_COLS]
            lines.append(f"| {f} | {sg} | " + " | ".join(cells) + " |")
        lines += ["", "## Every claim", ""]
    lines += [
        "| id | where | printed | certified value | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        c = r.claim
        val = (value_text(r.cases[0]) + _shown(r) if len(r.cases) == 1
               else f"{len(r.cases)} cases, see below")
        mark = (" (R)" if r.reconstructed else "") + (" (V)" if c.own else "")
        lines.append(f"| `{c.id}` | {_md_escape(c.where)} | "
                     f"{_md_escape(c.printed or ('per case' if c.case_printed else ''))} | {val} | "
                     f"**{r.verdict}**{mark} |")
    lines += ["", "(R): rests on a reconstructed statement, see below."
              + (" (V): the verifier's own claim, not the paper's (counted apart)."
                 if any(r.claim.own for r in results) else ""), "",
              "## Claims with several cases", ""]
    lines += _several_cases(results)
    lines += ["## Notes", "",
              *([f"- Reconstructed statements: {RECONSTRUCTED_NOTE}"]
                if uses_reconstruction(results) else []),
              "- Certified values are enclosures computed in Arb ball arithmetic (python-flint); "
              "a verdict is given only when the enclosure decides it, after raising the working "
              "precision up to the cap.",
              "- A printed value v with last digit at 10^e is confirmed when the certified value "
              "lies in [v - 10^e/2, v + 10^e/2].", ""]
    notes = [(r.claim.id, x.note) for r in results for x in r.cases if x.note]
    for cid, note in notes:
        lines.append(f"- `{cid}`: {note}")
    if notes:
        lines.append("")
    lines += _as_stated(results)
    return "\n".join(lines)


def _several_cases(results) -> list:
    """The Markdown of the claims with several cases, one table each."""
    lines = []
    for r in results:
        if len(r.cases) == 1:
            continue
        c = r.claim
        lines += [f"### `{c.id}`: {r.verdict}", "", _md_escape(c.statement or c.where), ""]
        if c.judge == "relative-difference" and c.expr is not None:
            lines += [f"Relation: |{_md_escape(c.expr_text)} - ({_md_escape(c.reference_text)})| "
                      f"<= {frac_str(c.tolerance)} |{_md_escape(c.reference_text)}|.", ""]
        elif c.judge == "relative-difference":
            lines += [f"Relation: |{c.quantity} - {c.reference}| <= {frac_str(c.tolerance)} "
                      f"|{c.reference}|.", ""]
        pc = bool(c.case_printed)            # per-case printed values: their own column
        lines += ["| arguments |" + (" printed |" if pc else "")
                  + " value | reference | relative difference | verdict |",
                  "|---|" + ("---|" if pc else "") + "---|---|---|---|"]
        for x in r.cases:
            ref = "-" if x.reference is None else (
                str(x.reference.lower.numerator) if x.reference.lower == x.reference.upper
                and x.reference.lower.denominator == 1 else x.reference.short(8))
            lines.append(f"| {describe_args(x.args)} |" + (f" {x.printed} |" if pc else "")
                         + f" {value_text(x)} | {ref} | "
                         f"{rel_text(x).replace('rel. diff. ', '') or '-'} | {x.verdict} |")
        lines.append("")
    return lines


def _as_stated(results) -> list:
    """The Markdown section "Claims, as stated" (statements, expressions, readings, notes)."""
    lines = []
    detail = [r for r in results if r.claim.statement or r.claim.note or r.claim.reading
              or r.claim.expr is not None]
    if detail:
        lines += ["## Claims, as stated", ""]
        for r in detail:
            c = r.claim
            lines.append(f"- `{c.id}` ({r.verdict}): " + _md_escape(c.statement or c.where))
            if c.expr is not None:
                rel = _relation(c)
                lines.append(f"  - checks `{_md_escape(c.expr_text)}`" + (f" {rel}" if rel else ""))
            if c.reading:
                lines.append(f"  - reading: {_md_escape(c.reading)}")
            if c.note:
                lines.append(f"  - note: {_md_escape(c.note)}")
        lines.append("")
    return lines


def _relation(c) -> str:
    box = ""
    if c.over:
        box = f" ({c.extremum} over " + ", ".join(
            f"{k} in [{frac_str(lo)}, {frac_str(hi)}]" for k, (lo, hi) in c.over) + ")"
    j = c.judge
    rel = {"rounded": f"rounds to {c.printed}", "truncated": f"begins {c.printed}",
           "approx": f"= {c.printed} within {frac_str(c.tolerance or 0)} relative",
           "between": f"in [{frac_str(c.low) if c.low is not None else ''}, "
                      f"{frac_str(c.high) if c.high is not None else ''}]",
           "at-most": f"<= {c.printed}", "at-least": f">= {c.printed}",
           "relative-difference": f"within {frac_str(c.tolerance or 0)} relative of "
                                  f"`{_md_escape(c.reference_text)}`",
           "equals": f"= `{_md_escape(c.reference_text)}`"}.get(j, j)
    return box + " " + rel if box else rel


def audit_figures(data: dict | None) -> dict:
    """Figures of an audit (data: verifier.claims.audit.figure_data): name -> (svg, caption)."""
    if not data:
        return {}
    from verifier.report import figures as F
    return {
        "figure-steps-vs-sigma.svg": (F.figure_steps_vs_sigma(data["steps_vs_sigma"]), (
            "Required rounds M vs sigma at delta = 0.01 (the paper's Figure 1): M_exact certified "
            "at every plotted sigma (solid), closed form (4) dashed, Table 1's published M_exact "
            "as circles.")),
        "figure-delta-vs-steps.svg": (F.figure_delta_vs_steps(data["delta_vs_steps"]), (
            "delta vs M at sigma = 1 for Theorem 3.1 (both factors) and the chi-square bound "
            "(curves through ball midpoints), and the exact TV's rigorous bracket as a curve "
            "from M = 10 to 1e7 (ten points).")),
    }


def audit_html(cf: ClaimsFile, results, max_prec: int, figs: dict) -> str:
    from verifier.report import html as H
    v = versions()
    src = cf.source
    cite = source_citation(src) or cf.name
    rows = []
    for r in results:
        c = r.claim
        val = (value_text(r.cases[0]) + _shown(r) if len(r.cases) == 1
               else f"{len(r.cases)} cases (below)")
        rows.append((f"<code>{H.esc(c.id)}</code>", H.esc(c.where),
                     H.esc(c.printed or ("per case" if c.case_printed else "")), H.esc(val),
                     H.verdict(r.verdict) + (" (R)" if r.reconstructed else "")
                     + (" (V)" if r.claim.own else "")))
    body = []
    t1 = table1_layout(results)
    if t1:
        body += ["<h2>Table 1, in the paper's layout</h2>", H.table(
            ["factor", "sigma"] + [f"{c}: printed / certified" for c in T1_COLS],
            [(H.esc(f), H.esc(sg)) + tuple(
                (H.esc(f"{row[c][0]} / {row[c][1]} ") + H.verdict(row[c][2])) if c in row else "-"
                for c in T1_COLS) for f, sg, row in t1], raw_cols=tuple(range(2 + len(T1_COLS))))]
    body += ['<h2>Verdicts</h2><div id="verdicts">',
            H.table(["id", "where", "printed", "certified value", "verdict"], rows,
                    raw_cols=(0, 1, 2, 3, 4)),
            '</div><p class="note">(R): rests on a reconstructed statement (see Notes); (V): the '
            "verifier's own claim, not the paper's (counted apart). Colours "
            'repeat the text label.</p>']
    multi = [r for r in results if len(r.cases) > 1]
    if multi:
        body.append("<h2>Claims with several cases</h2>")
        for r in multi:
            c = r.claim
            body.append(f"<h3><code>{H.esc(c.id)}</code> {H.verdict(r.verdict)}</h3>"
                        f"<p>{H.esc(c.statement or c.where)}</p>")
            crow = []
            for x in r.cases:
                ref = "-" if x.reference is None else x.reference.short(10)
                pc = (H.esc(x.printed),) if c.case_printed else ()
                crow.append((H.esc(describe_args(x.args)), *pc, H.esc(value_text(x)), H.esc(ref),
                             H.esc(rel_text(x).replace("rel. diff. ", "") or "-"),
                             H.verdict(x.verdict)))
            head = ["arguments", *(["printed"] if c.case_printed else []), "value", "reference",
                    "relative difference", "verdict"]
            body.append(H.table(head, crow, raw_cols=tuple(range(len(head)))))
    detail = [r for r in results if r.claim.statement or r.claim.note or r.claim.reading
              or r.claim.expr is not None]
    if detail:
        body.append("<h2>Claims, as stated</h2><ul>")
        for r in detail:
            c = r.claim
            items = [f"<li><code>{H.esc(c.id)}</code> {H.verdict(r.verdict)}: "
                     f"{H.esc(c.statement or c.where)}"]
            if c.expr is not None:
                items.append(f"<br>checks <code>{H.esc(c.expr_text)}</code> {H.esc(_relation(c))}")
            if c.reading:
                items.append(f"<br>reading: {H.esc(c.reading)}")
            if c.note:
                items.append(f"<br>note: {H.esc(c.note)}")
            body.append("".join(items) + "</li>")
        body.append("</ul>")
    if figs:
        body.append("<h2>Figures</h2>")
        body += [H.figure(svg, cap) for svg, cap in figs.values()]
    body += ["<h2>Notes</h2><ul>",
             *([f"<li>Reconstructed statements: {H.esc(RECONSTRUCTED_NOTE)}</li>"]
               if uses_reconstruction(results) else []),
             "<li>Certified values are enclosures in Arb ball arithmetic (python-flint); a verdict "
             "is given only when the enclosure decides it, after raising the working precision up "
             f"to the cap ({max_prec} bits); otherwise the claim is inconclusive.</li>",
             "<li>A printed value v with last digit at 10^e is confirmed when the certified value "
             "lies in [v - 10^e/2, v + 10^e/2].</li></ul>",
             f'<p class="note">Source: {H.esc(cite)}. Generated by verifier {v["verifier"]} '
             f'(python-flint {v["python-flint"]}).</p>']
    summ = summary_line(results)
    return H.page(audit_title(cf), H.esc(summ), body)


def audit_files(cf: ClaimsFile, results, out_dir: str, max_prec: int,
                figure_data: dict | None = None) -> dict:
    """{path: text} of one claims file's reports (JSON, Markdown, HTML, figures)."""
    jpath = os.path.join(out_dir, cf.name + ".json")
    mpath = os.path.join(out_dir, cf.name + ".md")
    hpath = os.path.join(out_dir, cf.name + ".html")
    figs = audit_figures(figure_data)
    files = {jpath: dumps(audit_json(cf, results, max_prec)),
             mpath: audit_markdown(cf, results, max_prec),
             hpath: audit_html(cf, results, max_prec, figs)}
    for name, (svg, _) in figs.items():
        files[os.path.join(out_dir, name)] = svg
    return files


def write_reports(out_dir: str, files: dict):
    """Reports and the folder's index (every HTML report and figure in it) written to become
    visible together (report/folder.py)."""
    from verifier.report import html as H
    from verifier.report.folder import write_together
    files = dict(files)
    files[os.path.join(out_dir, "index.html")] = H.index_page(
        out_dir, {os.path.basename(f): t for f, t in files.items()})
    write_together(out_dir, files)


def write_audit(cf: ClaimsFile, results, out_dir: str, max_prec: int,
                figure_data: dict | None = None) -> tuple[str, str]:
    files = audit_files(cf, results, out_dir, max_prec, figure_data)
    write_reports(out_dir, files)
    return (os.path.join(out_dir, cf.name + ".json"), os.path.join(out_dir, cf.name + ".md"))
