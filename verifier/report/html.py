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


def index_page(out_dir: str, new_files=()) -> str:
    """reports/index.html: links to every HTML report and SVG figure in out_dir
    (including ``new_files`` about to be written)."""
    names = set(new_files)
    if os.path.isdir(out_dir):
        names |= set(os.listdir(out_dir))
    files = sorted(f for f in names if f.endswith(".html") and f != "index.html")
    rows = [(f'<a href="{esc(f)}">{esc(f)}</a>',) for f in files]
    svgs = sorted(f for f in names if f.endswith(".svg"))
    body = ["<h2>Reports</h2>", table(["report"], rows, raw_cols=(0,))]
    if svgs:
        body += ["<h2>Figures</h2>",
                 table(["figure"], [(f'<a href="{esc(f)}">{esc(f)}</a>',) for f in svgs], raw_cols=(0,))]
    return page("verifier reports", f"{len(files)} reports", body)
