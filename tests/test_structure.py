"""The package's shape, checked on every commit: functions and modules of a
readable size, no module reaching into another's private names, one calibration driver,
one kernel implementation of each lattice operation, a complete public face."""
from __future__ import annotations

import ast
import importlib
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "verifier"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400


def _modules():
    return sorted(p for p in PKG.rglob("*.py"))


def _tree(p):
    return ast.parse(p.read_text(encoding="utf-8"), filename=str(p))


def test_functions_and_modules_are_of_a_readable_size():
    long_functions, long_modules = [], []
    for p in _modules():
        text = p.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            long_modules.append(f"{p.relative_to(ROOT)}: {text.count(chr(10))} lines")
        for node in ast.walk(_tree(p)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long_functions.append(f"{p.relative_to(ROOT)}:{node.name}: {n} lines")
    assert not long_modules, long_modules
    assert not long_functions, long_functions


def _module_name(p) -> str:
    rel = p.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def test_no_module_imports_a_private_name_of_another():
    """``from verifier.x import _name`` and ``M._name`` on an imported verifier module are
    both reaching into another module's internals."""
    bad = []
    for p in _modules():
        me = _module_name(p)
        tree = _tree(p)
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("verifier"):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"{me}: from {node.module} import {a.name}")
                    full = f"{node.module}.{a.name}"
                    if full != me:
                        aliases[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("verifier") and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                target = aliases[node.value.id]
                try:
                    is_module = hasattr(importlib.import_module(target), "__file__")
                except ImportError:
                    is_module = False
                if is_module and target != me:
                    bad.append(f"{me}: {node.value.id}.{node.attr} ({target})")
    assert not bad, sorted(set(bad))


def _names_used(p) -> set:
    return {n.id for n in ast.walk(_tree(p)) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(_tree(p)) if isinstance(n, ast.Attribute)}


def test_one_calibration_driver():
    """Every integer calibration goes through core.search.calibrate: nothing outside
    core/search.py calls smallest_int or catches its Undecided / SearchLimit itself."""
    users = [p.relative_to(ROOT).as_posix() for p in _modules()
             if p.name != "search.py" and {"smallest_int", "SearchLimit"} & _names_used(p)]
    assert not users, users
    callers = {p.relative_to(ROOT).as_posix() for p in _modules()
               if "calibrate" in _names_used(p) and "core/search.py" not in p.as_posix()}
    for must in ("verifier/bounds/theorem31_steps.py", "verifier/deploy/steps.py",
                 "verifier/deploy/sigma.py", "verifier/deploy/sigma_exact_tv.py",
                 "verifier/deploy/epsilon.py"):
        assert must in callers, must


@pytest.mark.parametrize("name", ["two_dfts", "two_inverse", "powers", "chernoff_bound",
                                  "suffix_sums", "spread_cell", "window", "compose_laws"])
def test_each_kernel_operation_is_defined_once(name):
    defs = [f"{p.relative_to(ROOT)}" for p in _modules() for node in ast.walk(_tree(p))
            if isinstance(node, ast.FunctionDef) and node.name == name]
    assert len(defs) == 1, defs


def test_public_face_is_complete():
    """verifier.__all__ names every public entry point, each importable from ``verifier``."""
    import verifier
    for name in verifier.__all__:
        assert getattr(verifier, name) is not None, name
    for must in ("bound", "certify", "epsilon", "delta", "rdp", "tradeoff", "poisson_epsilon",
                 "poisson_delta", "compare_samplers", "get_noise_multiplier", "privacy_profile",
                 "exact_tv", "calibrate_sigma", "calibrate_steps", "InputError"):
        assert must in verifier.__all__, must


def test_one_precision_loop():
    """Raising the working precision is core.decide's job alone: no other module doubles a
    precision in a loop of its own."""
    import re
    pat = re.compile(r"\bprec\w*\s*(\*=\s*2|<<=\s*1|=\s*\w*prec\w*\s*\*\s*2)")
    users = [p.relative_to(ROOT).as_posix() for p in _modules()
             if pat.search(p.read_text(encoding="utf-8"))]
    assert not users, users
    callers = [p.relative_to(ROOT).as_posix() for p in _modules() if "precisions" in _names_used(p)]
    assert set(callers) <= {"verifier/core/decide.py", "verifier/core/arith.py"}, callers


def _module_name(p) -> str:
    parts = list(p.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict:
    """module -> the verifier modules it imports (at the top or inside a function; a name
    imported from a package that is a submodule counts as that submodule).  Package faces
    (__init__.py) are left out as targets: importing any submodule runs them."""
    mods = {_module_name(p): p for p in _modules()}
    packages = {_module_name(p) for p in _modules() if p.name == "__init__.py"}
    graph = {}
    for name, p in mods.items():
        out = set()
        for node in ast.walk(_tree(p)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                    and node.module.startswith("verifier"):
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    out.add(sub if sub in mods else node.module)
            elif isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name.startswith("verifier")}
        graph[name] = {m for m in out if m in mods and m not in packages and m != name}
    return graph


def test_the_import_graph_has_no_circles():
    """No two modules import each other, directly or through others (docs/ARCHITECTURE.md:
    each stage imports only the stages below it)."""
    graph = _import_graph()
    state, stack, circles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not circles, [" -> ".join(c) for c in circles]


CLOCKS = re.compile(r"\btime\.(process_time|perf_counter|time|monotonic)\(")


def test_no_test_asserts_the_clock():
    """Times belong in bench/ (issue 47: a 2.31 s against 2.0 s failure on a busy laptop):
    a test asserts behaviour -- the work a call did is counted (conftest.Work), never timed.
    The mutation harness and the slow hunt (not the default suite's assertions) may read a
    clock to report."""
    here = os.path.dirname(os.path.abspath(__file__))
    offenders = []
    for name in sorted(os.listdir(here)):
        if name.startswith("test_") and name.endswith(".py") and name not in (
                "test_mutations.py", "test_structure.py"):
            with open(os.path.join(here, name), encoding="utf-8") as fh:
                offenders += [f"{name}:{i}" for i, ln in enumerate(fh, 1) if CLOCKS.search(ln)]
    assert not offenders, offenders
