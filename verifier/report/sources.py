"""How a report names what it audits: the source's citation, the report's title, and
whether its claims rest on a reconstructed statement (then, and only then, the
reconstruction note)."""
from __future__ import annotations


def source_citation(src: dict) -> str:
    """The source of a claims file in one line: its paper (or title), authors, arXiv id and
    version, url, as the file gives them."""
    parts = [src.get("paper") or src.get("title", "")]
    if src.get("title") and src.get("paper"):
        parts.append(f"\u201c{src['title']}\u201d")
    if src.get("authors"):
        parts.append(src["authors"])
    if src.get("arxiv"):
        parts.append(f"arXiv {src['arxiv']}" + (f" {src['version']}" if src.get("version") else ""))
    if src.get("url"):
        parts.append(src["url"])
    return ", ".join(p for p in parts if p)


def audit_title(cf) -> str:
    """'Audit of <the source's title or paper>', the file's name without one."""
    return "Audit of " + (cf.source.get("title") or cf.source.get("paper") or cf.name)


def uses_reconstruction(results) -> bool:
    return any(r.reconstructed for r in results)
