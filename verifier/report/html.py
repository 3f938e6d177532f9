"""Self-contained HTML reports: inline CSS and SVG, no scripts, nothing fetched.

The verdict table comes first; every verdict has a colour *and* a text label
(readable without colour).  Output is deterministic (byte-reproducible).
"""
from __future__ import annotations

import html
import os

CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;width:100%;font-size:0.85em;margin:0.6em 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
.v{font-weight:bold;white-space:nowrap;padding:1px 6px;border-radius:3px}
.good{background:#d4edda;color:#155724}.bad{background:#f8d7da;color:#721c24}
.unsure{background:#fff3cd;color:#6b4f00}.na{background:#e2e3e5;color:#383d41}
.summary{font-size:1.05em;margin:0.8em 0}
code{font-size:0.95em}.note{color:#555;font-size:0.9em}
figure{margin:1em 0}figcaption{font-size:0.85em;color:#444}
svg{max-width:100%;height:auto}
"""

CLASS = {"confirmed": "good", "proved": "good", "holds": "good", "certified": "good",
         "refuted": "bad", "fails": "bad", "not-certified": "bad", "infeasible": "bad",
         "inconclusive": "unsure", "unknown": "unsure", "undecided": "unsure",
         "not-applicable": "na", "demonstration": "na", "cited": "good"}
MARK = {"good": "\u2713", "bad": "\u2717", "unsure": "?", "na": "\u2013"}


def esc(s) -> str:
    return html.escape(str(s), quote=True)


def verdict(v: str) -> str:
    c = CLASS.get(v, "na")
    return f'<span class="v {c}" data-verdict="{esc(v)}">{MARK[c]} {esc(v)}</span>'


def table(headers, rows, raw_cols=()) -> str:
    out = ["<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            cells.append(f"<td>{c if i in raw_cols else esc(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def page(title: str, summary: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n"
            f"<h1>{esc(title)}</h1>\n<p class=\"summary\" id=\"summary\">{summary}</p>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _described(out_dir: str, html_name: str, new_files: dict) -> tuple[str, str]:
    """(what, verdicts) of a report from its JSON twin (about to be written, or on disk):
    an audit's source and verdict counts, the proof checks' counts, a certificate's status."""
    import json
    name = html_name[:-len(".html")] + ".json"
    text = new_files.get(name)
    if text is None and os.path.exists(os.path.join(out_dir, name)):
        with open(os.path.join(out_dir, name), encoding="utf-8") as f:
            text = f.read()
    try:
        j = json.loads(text) if text else {}
    except ValueError:
        j = {}
    summ = j.get("summary") or {}
    counts = ", ".join(f"{v} {k}" for k, v in summ.items() if k != "total" and v)
    if j.get("report") == "audit":
        from verifier.report.sources import source_citation
        own = (j.get("own_claims") or {}).get("summary") or {}
        extra = (f"; {own['total']} of the verifier's own, counted apart" if own.get("total")
                 else "")
        return (source_citation(j.get("source") or {}) or html_name,
                f"{summ.get('total', 0)} claims: {counts}{extra}")
    if j.get("report") == "proofs" or "checks" in j:
        return "proof-consistency checks", f"{summ.get('total', 0)} checks: {counts}"
    if "status_line" in j:
        return "privacy certificate", j["status_line"]
    return "", ""


def index_page(out_dir: str, new_files=()) -> str:
    """reports/index.html: links to every HTML report (with what it is about and its
    verdict counts, from its JSON twin) and SVG figure in out_dir (including ``new_files``
    about to be written: names, or a dict name -> content)."""
    contents = dict(new_files) if isinstance(new_files, dict) else {}
    names = set(new_files)
    if os.path.isdir(out_dir):
        names |= set(os.listdir(out_dir))
    files = sorted(f for f in names if f.endswith(".html") and f != "index.html")
    rows = [(f'<a href="{esc(f)}">{esc(f)}</a>', *map(esc, _described(out_dir, f, contents)))
            for f in files]
    svgs = sorted(f for f in names if f.endswith(".svg"))
    body = ["<h2>Reports</h2>", table(["report", "about", "verdicts"], rows, raw_cols=(0, 1, 2))]
    if svgs:
        body += ["<h2>Figures</h2>",
                 table(["figure"], [(f'<a href="{esc(f)}">{esc(f)}</a>',) for f in svgs], raw_cols=(0,))]
    return page("verifier reports", f"{len(files)} reports", body)
