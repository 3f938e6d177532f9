"""Runs from what users hold (docs/RUNS.md): a run file (TOML or JSON), a parsed table
of phases, an Opacus accountant's ``history``.  The values themselves are in
``verifier.core.run``; mistakes are refused in one line naming the phase and the value."""
from __future__ import annotations

from verifier.core.arith import InputError
from verifier.core.run import (MAX_EPOCH_STEPS, MAX_PHASES, Gaussian, Phase, Poisson, Run,
                               check_size, integer_arg, phase)

PHASE_KEYS = ("noise_multiplier", "sampler", "sample_rate", "steps", "epochs",
              "steps_per_epoch", "steps_per_record")


def run_from_dict(data, source: str = "the run") -> Run:
    """A run from a parsed run file: {"phases": [{key: value, ...}, ...]} (module
    docstring); unknown keys and bad values refused in one line naming the phase."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: a run file is a table with a list 'phases'")
    extra = sorted(set(data) - {"phases", "steps"})
    if extra:
        raise InputError(f"{source}: unknown key {str(extra[0])[:40]!r} (a run file has "
                         "'phases', and optionally 'steps', the steps in all)")
    phases = data.get("phases")
    if not isinstance(phases, list) or not phases:
        raise InputError(f"{source}: 'phases' must be a non-empty list of tables")
    if len(phases) > MAX_PHASES:
        raise InputError(f"{source}: {len(phases)} phases; at most {MAX_PHASES}")
    out = []
    for i, ph in enumerate(phases, 1):
        if not isinstance(ph, dict):
            raise InputError(f"{source}, phase {i}: a phase is a table of "
                             f"{', '.join(PHASE_KEYS)}")
        bad = [k for k in ph if k not in PHASE_KEYS]
        if bad:
            raise InputError(f"{source}, phase {i}: unknown key {str(bad[0])[:40]!r} (known: "
                             f"{', '.join(PHASE_KEYS)})")
        if "noise_multiplier" not in ph:
            raise InputError(f"{source}, phase {i}: noise_multiplier is missing")
        try:
            kw = {k: v for k, v in ph.items() if k != "noise_multiplier"}
            out.append(phase(ph["noise_multiplier"], **kw))
        except InputError as e:
            raise InputError(f"{source}, phase {i}: {e}") from None
    run = Run(tuple(out))
    check_size(run.phases, source)
    if "steps" in data and integer_arg(data["steps"], "steps", 1, MAX_EPOCH_STEPS) != run.steps:
        raise InputError(f"{source}: steps = {data['steps']} but the phases have {run.steps}")
    return run


def run_from_file(path: str) -> Run:
    """A run from a TOML or JSON run file (by its suffix; anything else is tried as TOML)."""
    import json
    import tomllib
    from verifier.core.arith import read_bounded
    try:
        raw = read_bounded(path)
    except OSError as e:
        raise InputError(f"run file {path}: cannot be read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"run file {path}: not UTF-8 text") from None
    try:
        data = json.loads(text) if str(path).endswith(".json") else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"run file {path}: {str(e).splitlines()[0][:120]}") from None
    return run_from_dict(data, f"run file {path}")


def run_from_history(history, source: str = "the accountant's history") -> Run:
    """A Poisson run from an Opacus accountant's ``history`` [(noise_multiplier,
    sample_rate, steps), ...] (the steps at each (sigma, q) in the order taken)."""
    if not isinstance(history, (list, tuple)) or not history:
        raise InputError(f"{source} is empty: no step taken yet")
    if len(history) > MAX_PHASES:
        raise InputError(f"{source} has {len(history)} phases; at most {MAX_PHASES}")
    out = []
    for i, h in enumerate(history, 1):
        if not isinstance(h, (list, tuple)) or len(h) != 3:
            raise InputError(f"{source}, entry {i}: not a (noise_multiplier, sample_rate, "
                             f"steps) triple: {str(h)[:60]}")
        nm, sr, n = h
        try:
            out.append(Phase(Gaussian(nm), Poisson(sr), integer_arg(n, "steps", 1)))
        except InputError as e:
            raise InputError(f"{source}, entry {i}: {e}") from None
    run = Run(tuple(out))
    check_size(run.phases, source)
    return run

