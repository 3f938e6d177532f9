"""One cell of a sweep: its key (exact inputs, compute, the verifier's version), its certified
answer through the public API (verifier.api), and its record (one JSON file per cell)."""
from __future__ import annotations

import hashlib
import json
import time
from fractions import Fraction

from verifier import __version__
from verifier.core.arith import frac_str


def text_of(v) -> str:
    """An input as the table writes it: exact decimal or the value itself."""
    return frac_str(v) if isinstance(v, Fraction) else str(v)


def key(compute: str, cell: dict) -> str:
    """The cell's identity: what it computes, its exact inputs and the verifier's version."""
    canon = json.dumps({"compute": compute, "inputs": {k: text_of(v) for k, v in sorted(cell.items())},
                        "verifier": __version__}, sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:32]


def answer(compute: str, cell: dict):
    """(lower, upper, status, reason) of the cell's certified answer."""
    import verifier
    if "run" in cell:
        return _run_answer(compute, cell)
    E = cell.get("epochs", 1)
    poisson = cell.get("sampling") == "poisson"
    M = cell["steps"]
    if compute == "exact_tv":
        r = verifier.exact_tv(cell["sigma"], M, E)
        return r.tv.lower, r.tv.upper, "certified", ""
    if compute == "calibrated_sigma":
        from verifier.api.profile import NoCertifiedSigma
        try:
            s = (verifier.get_noise_multiplier(
                     target_epsilon=cell["target_epsilon"], target_delta=cell["delta"],
                     sample_rate=Fraction(1, M), steps=M * E, accountant="certified_poisson")
                 if poisson else
                 verifier.get_noise_multiplier(target_epsilon=cell["target_epsilon"],
                                               target_delta=cell["delta"], steps_per_epoch=M,
                                               epochs=E))
        except NoCertifiedSigma as e:
            return None, None, e.calibration.status, e.calibration.message
        return s.sigma, s.sigma, "certified", ""
    if compute == "sampler_difference":
        c = verifier.compare_samplers(cell["sigma"], M, E, delta=cell["delta"])
        if c.difference is None:
            return None, None, "inconclusive", c.verdict
        return c.difference.lower, c.difference.upper, "certified", ""
    if compute == "epsilon":
        r = (verifier.poisson_epsilon(cell["sigma"], Fraction(1, M), M * E, delta=cell["delta"])
             if poisson else verifier.epsilon(cell["sigma"], M, E, delta=cell["delta"]))
        if r.epsilon is None:
            return None, None, "inconclusive", "no epsilon <= 60 certified"
        return r.epsilon.lower, r.epsilon.upper, "certified", ""
    r = (verifier.poisson_delta(cell["sigma"], Fraction(1, M), M * E, epsilon=cell["epsilon"])
         if poisson else verifier.delta(cell["sigma"], M, E, epsilon=cell["epsilon"]))
    return r.delta.lower, r.delta.upper, "certified", ""


def _run_answer(compute: str, cell: dict):
    """A sweep of runs' cell (spec.py, [run]): the run engine's epsilon or delta bracket, or
    the smallest common noise scale (exact, a grid point of 0.01)."""
    import json
    import verifier
    from verifier.core.run_files import run_from_dict
    run = run_from_dict(json.loads(cell["run"]), "the cell's run")
    if compute == "noise_scale":
        r = verifier.calibrate_run(run, target_epsilon=cell["target_epsilon"],
                                   target_delta=cell["delta"])
        if r.status != "certified":
            return None, None, r.status, r.message
        return r.scale, r.scale, "certified", ""
    if compute == "epsilon":
        r = verifier.epsilon(run, delta=cell["delta"])
        if r.epsilon is None:
            return None, None, "inconclusive", "no epsilon <= 60 certified"
        return r.epsilon.lower, r.epsilon.upper, "certified", ""
    r = verifier.delta(run, epsilon=cell["epsilon"])
    return r.delta.lower, r.delta.upper, "certified", ""


def digest(rec: dict) -> str:
    """sha256 of a record's content (every field but ``digest`` itself, canonical JSON): a
    torn, garbled or edited cell file no longer matches it.  A checksum, not a signature:
    whoever rewrites the digest too can forge a record (keep sweep folders where only you
    write)."""
    body = {k: v for k, v in rec.items() if k != "digest"}
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode()).hexdigest()


def validate(rec, compute: str, cell: dict) -> str:
    """'' when ``rec`` is a record of this spec cell (its key, inputs and digest), else why
    not (one line)."""
    if not isinstance(rec, dict):
        return "not a record"
    if rec.get("digest") != digest(rec):
        return "its digest does not match its content (edited, torn or not written by this version)"
    if rec.get("key") != key(compute, cell) or rec.get("compute") != compute:
        return "it answers another cell"
    if rec.get("inputs") != {k: text_of(v) for k, v in cell.items()}:
        return "its inputs are not the cell's"
    return ""


RETRIED = ("error",)        # a cell that failed (not a refusal: that is the answer) is retried


def compute_cell(compute: str, cell: dict, memory_limit: int | None = None) -> dict:
    """The cell's record: its inputs, the bracket's ends (decimal strings, outward), status,
    seconds; a refused or failed cell is recorded with its one-line reason (the sweep goes
    on).  Runs on a Dask worker, its engines held to ``memory_limit`` bytes (refused beyond
    it, before allocating); the driver writes the record."""
    from verifier.core.arith import InputError, decimal_str
    from verifier.numerics.memory import limited
    t = time.perf_counter()
    try:
        with limited(memory_limit):
            lo, hi, status, reason = answer(compute, cell)
    except InputError as e:
        lo, hi, status, reason = None, None, "refused", str(e)
    except Exception as e:                      # recorded, never a lost sweep
        lo, hi, status, reason = None, None, "error", f"{e.__class__.__name__}: {str(e)[:200]}"
    return record(compute, cell, None if lo is None else decimal_str(lo, 12, "down"),
                  None if hi is None else decimal_str(hi, 12, "up"), status, reason,
                  time.perf_counter() - t)


def record(compute: str, cell: dict, lo, hi, status: str, reason: str, seconds: float) -> dict:
    """A cell's record (its ends as decimal strings already rounded outward), digested."""
    rec = {"key": key(compute, cell), "compute": compute,
           "inputs": {k: text_of(v) for k, v in cell.items()},
           f"{compute}_lower": lo, f"{compute}_upper": hi,
           "status": status, "reason": reason,
           "seconds": round(seconds, 3), "verifier": __version__}
    rec["digest"] = digest(rec)
    return rec
