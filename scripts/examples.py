"""The shown outputs of the docs, generated and checked: every ```console block
of a Markdown file is a list of commands (lines starting with "$ ") each followed by its
output.  ``check`` runs every command (in a scratch directory) and compares its stdout with
the output shown; ``refresh`` rewrites the shown outputs from the runs.

Matching: times (a number before " s") are masked; a line "..." stands for any number of
lines; "..." inside a line for any text.  A trailing "   # comment" after a command is not
part of it.

    python scripts/examples.py check README.md docs/CLI.md
    python scripts/examples.py refresh docs/CLI.md
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

TIME = re.compile(r"\b\d+(\.\d+)? s\b")


def blocks(text: str):
    """[(start line, end line, [(command, [output lines])])] of the console blocks."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            cmds = []
            for ln in lines[i + 1:j]:
                if ln.startswith("$ "):
                    cmds.append((ln[2:], []))
                elif cmds:
                    cmds[-1][1].append(ln)
            out.append((i, j, cmds))
            i = j
        i += 1
    return out


def command_of(shown: str) -> str:
    return re.split(r"\s{2,}#\s", shown, maxsplit=1)[0].strip()


def run(cmd: str, cwd: str) -> str:
    cmd = re.sub(r"(^|\|\s*)verifier\b", lambda m: m.group(1) + f"{sys.executable} -m verifier", cmd)
    env = dict(os.environ, COLUMNS="100")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=cwd, env=env,
                       timeout=900)
    return p.stdout.rstrip("\n")


def _norm(s: str) -> str:
    return TIME.sub("<t> s", s.rstrip())


def line_matches(shown: str, actual: str) -> bool:
    shown, actual = _norm(shown), _norm(actual)
    if "..." not in shown:
        return shown == actual
    pat = ".*".join(re.escape(p) for p in shown.split("..."))
    return re.fullmatch(pat, actual, re.S) is not None


def matches(shown: list, actual: list) -> bool:
    if not shown:
        return not actual
    if shown[0].strip() == "...":
        return any(matches(shown[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and line_matches(shown[0], actual[0]) and matches(shown[1:], actual[1:])


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _scratch(cwd: str):
    """The scratch directory sees the repository's examples/ (run files, claims files)."""
    os.symlink(os.path.join(ROOT, "examples"), os.path.join(cwd, "examples"))


def check(path: str) -> list:
    """[(command, shown, actual)] of every command whose output differs."""
    bad = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as cwd:
        _scratch(cwd)
        for _, _, cmds in blocks(text):
            for shown_cmd, shown in cmds:
                while shown and not shown[-1].strip():
                    shown = shown[:-1]
                if not shown:
                    continue                      # a command shown without output
                actual = run(command_of(shown_cmd), cwd).split("\n")
                if not matches(shown, actual):
                    bad.append((shown_cmd, shown, actual))
    return bad


def _refreshed(shown: list, actual: list) -> list:
    if matches(shown, actual):
        return shown
    if any(s.strip() == "..." for s in shown):      # keep the elision: same head and tail
        k = next(i for i, s in enumerate(shown) if s.strip() == "...")
        head, tail = k, len(shown) - k - 1
        return actual[:head] + ["..."] + (actual[len(actual) - tail:] if tail else [])
    return actual


def refresh(path: str):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    with tempfile.TemporaryDirectory() as cwd:
        _scratch(cwd)
        for start, end, cmds in reversed(blocks("\n".join(lines))):
            new = []
            for shown_cmd, shown in cmds:
                blank = []
                while shown and not shown[-1].strip():
                    blank.append(shown.pop())
                actual = run(command_of(shown_cmd), cwd).split("\n") if shown else []
                new += ["$ " + shown_cmd] + (_refreshed(shown, actual) if shown else []) + blank
            lines[start + 1:end] = new
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    what, *paths = sys.argv[1:]
    if what == "refresh":
        for p in paths:
            refresh(p)
    else:
        failed = [(p, b) for p in paths for b in check(p)]
        for p, (cmd, shown, actual) in failed:
            print(f"{p}: $ {cmd}\n  shown:  {shown[:3]}\n  actual: {actual[:3]}")
        sys.exit(1 if failed else 0)
