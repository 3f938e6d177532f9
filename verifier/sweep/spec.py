"""A sweep's spec (docs/SWEEPS.md): what each cell computes and the axes of the grid, in the
CLI's names, read from TOML; every mistake one line (unknown axis or quantity, an empty or
malformed range, a cell outside its engine's range named by its coordinates) before
anything runs."""
from __future__ import annotations

import itertools
import math
import tomllib
from dataclasses import dataclass
from fractions import Fraction

from verifier.core.arith import (MAX_FILE_BYTES, InputError, InputErrors, frac_str, parse_exact,
                                 read_bounded)

# what a cell computes -> (the axes it needs, the axes it may take)
COMPUTE = {
    "epsilon": ({"sigma", "steps", "delta"}, {"epochs", "sampling"}),
    "delta": ({"sigma", "steps", "epsilon"}, {"epochs", "sampling"}),
    "calibrated_sigma": ({"steps", "target_epsilon", "delta"}, {"epochs", "sampling"}),
    "exact_tv": ({"sigma", "steps"}, {"epochs"}),
    # Poisson's epsilon minus random allocation's (q = 1/M, T = M E), certified where the two
    # brackets separate
    "sampler_difference": ({"sigma", "steps", "delta"}, {"epochs"}),
}
AXES = {"sigma", "steps", "epochs", "delta", "epsilon", "target_epsilon", "sampling"}
# a sweep of runs ([run]: a run file's phases, any phase value a name of an axis): what a
# cell computes -> the axes it needs besides the run's own
RUN_COMPUTE = {"epsilon": {"delta"}, "delta": {"epsilon"}, "noise_scale": {"target_epsilon", "delta"}}
_PARAM = r"[A-Za-z_][A-Za-z0-9_]{0,40}"
SAMPLINGS = ("random-allocation", "poisson")
MAX_CELLS = 100_000


@dataclass(frozen=True)
class Spec:
    compute: str
    axes: tuple              # ((name, (values...)), ...) in the file's order
    path: str = ""
    run: str = ""            # a sweep of runs: the [run] template (JSON), its names the axes

    @property
    def names(self) -> tuple:
        return tuple(n for n, _ in self.axes)

    def cells(self) -> list:
        """Every cell, a dict axis -> exact value (Fraction, int or str), in grid order."""
        vals = [v for _, v in self.axes]
        cells = [dict(zip(self.names, combo)) for combo in itertools.product(*vals)]
        if self.run:
            for c in cells:
                c["run"] = instantiate(self.run, c)
        return cells


def run_params(template: dict) -> set:
    """The names a [run] template's phases use as values (each an axis of the sweep)."""
    import re
    return {v for ph in template.get("phases", []) if isinstance(ph, dict)
            for k, v in ph.items() if k != "sampler" and isinstance(v, str)
            and re.fullmatch(_PARAM, v)}


def cell_run(template: str, cell: dict):
    """The run of one cell: each name in the template's phases replaced by the cell's value
    of that axis, the run checked as a run file is (core/run_files.py)."""
    import json
    from verifier.core.run_files import run_from_dict
    data = json.loads(template)
    for ph in data["phases"]:
        for k, v in ph.items():
            if k != "sampler" and isinstance(v, str) and v in cell:
                x = cell[v]
                ph[k] = frac_str(x) if isinstance(x, Fraction) else x
    return run_from_dict(data, "[run]")


def instantiate(template: str, cell: dict) -> str:
    """The run of one cell as canonical JSON (what its key and record hold)."""
    import json
    return json.dumps(cell_run(template, cell).to_json(), sort_keys=True, separators=(",", ":"))


def _values(name: str, raw, where: str) -> tuple:
    """An axis: a list of values, or a table {from, to, step} (inclusive, exact)."""
    if isinstance(raw, dict):
        unknown = set(raw) - {"from", "to", "step"}
        if unknown or set(raw) != {"from", "to", "step"}:
            raise InputError(f"{where}: axis {name} as a range needs exactly from, to, step")
        a, b, s = (parse_exact(raw[k], f"{name}.{k}") for k in ("from", "to", "step"))
        if s <= 0 or b < a or (b - a) / s > MAX_CELLS:
            raise InputError(f"{where}: axis {name}: empty or too long range "
                             f"[{frac_str(a)}, {frac_str(b)}] step {frac_str(s)}")
        n = int((b - a) / s)
        raw = [a + k * s for k in range(n + 1)]
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}: axis {name} must be a non-empty list or a range table")
    if name == "sampling":
        bad = [v for v in raw if v not in SAMPLINGS]
        if bad:
            raise InputError(f"{where}: sampling {bad[0]!r:.40} (expected one of "
                             f"{', '.join(SAMPLINGS)})")
        if len(set(raw)) != len(raw):
            raise InputError(f"{where}: axis sampling repeats a value")
        return tuple(raw)
    out = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, (str, int, float, Fraction)) and \
                type(v).__name__ != "Decimal":
            raise InputError(f"{where}: axis {name}: {v!r:.40} is not a number")
        q = v if isinstance(v, Fraction) else parse_exact(v, name)
        if name in ("steps", "epochs"):
            if q.denominator != 1 or q < 1:
                raise InputError(f"{where}: axis {name}: {v} is not an integer >= 1")
            q = int(q)
        out.append(q)
    if len(set(out)) != len(out):
        raise InputError(f"{where}: axis {name} repeats a value")
    return tuple(out)


def _template(data: dict, where: str) -> tuple[str, set]:
    """(canonical JSON, names) of a [run] template: a table with a list 'phases'."""
    import json
    t = data.get("run")
    if t is None:
        return "", set()
    if not isinstance(t, dict) or set(t) != {"phases"} or not isinstance(t["phases"], list) \
            or not t["phases"]:
        raise InputError(f"{where}: [run] must be a table with a non-empty list 'phases' (a "
                         "run file's phases; docs/SWEEPS.md)")
    plain = json.loads(json.dumps(t, default=lambda x: frac_str(x) if isinstance(x, Fraction)
                                  else str(x)))
    return json.dumps(plain, sort_keys=True), run_params(plain)


def parse(data: dict, where: str = "sweep spec") -> Spec:
    errors = []
    unknown = set(data) - {"compute", "axes", "note", "run"}
    if unknown:
        errors.append(f"{where}: unknown key {sorted(unknown)[0]!r}")
    template, params = _template(data, where)
    compute = data.get("compute")
    table = RUN_COMPUTE if template else COMPUTE
    if compute not in table:
        raise InputErrors(errors + [f"{where}: compute must be one of {', '.join(table)}"
                                    + (" for a sweep of runs" if template else "")
                                    + f", got {compute!r:.40}"])
    raw = data.get("axes")
    if not isinstance(raw, dict) or not raw:
        raise InputErrors(errors + [f"{where}: needs an [axes] table"])
    need, may = (RUN_COMPUTE[compute], params) if template else COMPUTE[compute]
    unused = sorted(params - set(raw))
    if unused:
        errors.append(f"{where}: [run] uses the name {unused[0]!r}, not an axis")
    axes, whole = [], True               # whole: every axis read (the cells are defined)
    for name, vals in raw.items():
        if name not in need | may or not template and name not in AXES:
            errors.append(f"{where}: unknown axis {name!r:.40} for compute = {compute!r} "
                          f"(it takes {', '.join(sorted(need | may))})")
            whole = False
            continue
        try:
            axes.append((name, _values(name, vals, where)))
        except InputError as e:
            errors.append(str(e))
            whole = False
    missing = sorted(need - set(raw))
    if missing:
        errors.append(f"{where}: compute = {compute!r} needs the axis {missing[0]!r}")
    if not whole or missing or unused:
        raise InputErrors(errors)
    spec = Spec(compute, tuple(axes), where, template)
    n = math.prod(len(v) for _, v in axes)      # counted before any cell is built
    if n > MAX_CELLS:
        raise InputErrors(errors + [f"{where}: {n} cells (at most {MAX_CELLS})"])
    try:                    # the cells' range mistakes in the same report as the rest
        _check_runs(spec) if template else _check_ranges(spec)
    except InputErrors as e:
        errors += e.messages
    except InputError as e:
        errors.append(str(e))
    if errors:
        raise InputErrors(errors)
    return spec


def _check_runs(spec: Spec):
    """Every cell's run a valid run inside the run engine's range, or one line per bad cell
    naming its coordinates (at most 20)."""
    from verifier.bounds import runs
    from verifier.sweep.preflight import coords
    errors = []
    for cell in itertools.product(*[v for _, v in spec.axes]):
        cell = dict(zip(spec.names, cell))
        try:
            run = cell_run(spec.run, cell)
            eps = cell.get("epsilon", cell.get("target_epsilon"))
            runs.check(run, delta=cell.get("delta"), eps=eps)
        except InputError as e:
            errors.append(f"{spec.path}: cell ({coords(cell)}): {e}")
            if len(errors) >= 20:
                break
    if errors:
        raise InputErrors(errors)


def _check_ranges(spec: Spec):
    """Every cell inside its engine's range, or one line per bad cell naming it."""
    from verifier.bounds import poisson as PO
    from verifier.bounds import profile as PR
    from verifier.bounds.exact_tv.one_epoch import SIGMA_RANGE as TV_SIGMA
    errors = []
    for cell in spec.cells():
        try:
            E = cell.get("epochs", 1)
            sigma = cell.get("sigma")
            if spec.compute == "exact_tv":
                from verifier.core.arith import MAX_EXACT_EPOCHS
                if not TV_SIGMA[0] <= sigma <= TV_SIGMA[1] or cell["steps"] < 2 \
                        or E > MAX_EXACT_EPOCHS:
                    raise InputError("outside the exact-TV bracket's range (sigma in "
                                     f"[0.1, 1000], M >= 2, E <= {MAX_EXACT_EPOCHS})")
                continue
            d = cell.get("delta")
            eps = cell.get("epsilon", cell.get("target_epsilon"))
            s = PR.SIGMA_RANGE[0] if sigma is None else sigma
            if cell.get("sampling") == "poisson":
                PO.check_range(s, Fraction(1, cell["steps"]), cell["steps"] * E, delta=d, eps=eps)
            else:
                PR.check_range(s, cell["steps"], E, delta=d, eps=eps)
        except InputError as e:
            coords = ", ".join(f"{k} = {frac_str(v) if isinstance(v, Fraction) else v}"
                               for k, v in cell.items())
            errors.append(f"{spec.path}: cell ({coords}): {e}")
            if len(errors) >= 20:
                break
    if errors:
        raise InputErrors(errors)


def load(path: str) -> Spec:
    try:
        data = tomllib.loads(read_bounded(path, MAX_FILE_BYTES).decode("utf-8"),
                             parse_float=lambda s: parse_exact(s, "number"))
    except InputError:
        raise
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, ValueError) as e:
        raise InputError(f"{path}: cannot read the sweep spec: {e.__class__.__name__}: {e}") from None
    return parse(data, path)
