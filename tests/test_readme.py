"""The README is the entry point: short, every output it shows produced by the
command above it (scripts/examples.py), no reference outside the repository; the full
reference (docs/CLI.md) is checked the same way in the slow suite."""
from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import examples  # noqa: E402


def _read(p):
    with open(os.path.join(ROOT, p), encoding="utf-8") as f:
        return f.read()


def test_readme_is_an_entry_point():
    text = _read("README.md")
    assert len(text.encode()) <= 12 * 1024
    assert "pip install \".[test]\" && verifier audit" in text and "python -m pytest" in text
    assert not re.search(r"issue #\d", text) and "../shared" not in text
    for link in re.findall(r"\]\(([^)#]+)\)", text):
        assert os.path.exists(os.path.join(ROOT, link)), link


def test_readme_outputs_are_what_the_commands_print():
    bad = examples.check(os.path.join(ROOT, "README.md"))
    assert not bad, [(c, s[:2], a[:2]) for c, s, a in bad]


def test_runs_doc_outputs_are_what_the_commands_print():
    bad = examples.check(os.path.join(ROOT, "docs", "RUNS.md"))
    assert not bad, [(c, s[:2], a[:2]) for c, s, a in bad]


def test_example_matching_rules():
    assert examples.matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert not examples.matches(["a", "z"], ["a", "b", "z"])
    assert examples.line_matches("took 0.23 s; x ... y", "took 1.5 s; x and y")
    assert not examples.line_matches("value 1.95", "value 1.96")


@pytest.mark.slow
def test_cli_reference_outputs_are_what_the_commands_print():
    bad = examples.check(os.path.join(ROOT, "docs", "CLI.md"))
    assert not bad, [(c, s[:2], a[:2]) for c, s, a in bad]
