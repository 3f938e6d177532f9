"""Inputs of ``certify`` / ``calibrate``: flags and config files (TOML or JSON) merged and
parsed into exact values, each checked by the input layer (verifier.core.arith)."""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from verifier.core.arith import (InputError, deprecated, parse_epochs, parse_exact, parse_sigma, parse_steps,
                                 read_bounded)
from verifier.bounds import BRACKETS
from verifier.deploy.evaluate import Target, check_bounds

CONFIG_KEYS = {"sigma", "steps", "steps_per_epoch", "samples", "batch_size", "epochs", "clip", "delta",
               "target_accuracy", "target_epsilon", "bound", "noise_level", "resolution"}
MAX_CONFIG_BYTES = 1 << 16


def load_config(path: str) -> dict:
    """A TOML or JSON file with keys from CONFIG_KEYS; numbers read exactly."""
    try:
        raw = read_bounded(path, MAX_CONFIG_BYTES)     # never more (a device, a pipe)
        if path.endswith(".json"):
            data = json.loads(raw.decode("utf-8"), parse_float=Decimal, parse_constant=_no_constant)
        else:
            data = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)
    except InputError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: cannot read config: {e.__class__.__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: config must be a table/object")
    for k, v in data.items():
        if k not in CONFIG_KEYS:
            raise InputError(f"{path}: unknown config key {k!r:.40} (known: {', '.join(sorted(CONFIG_KEYS))})")
        if isinstance(v, bool) or not isinstance(v, (str, int, Decimal)):
            raise InputError(f"{path}: {k} must be a number or a string, got {type(v).__name__}")
    out = {k: str(v) for k, v in data.items()}
    if "steps_per_epoch" in out:        # the CLI flag's name; "steps" is its former spelling
        sp = out.pop("steps_per_epoch")
        if "steps" in out and _norm(out["steps"]) != _norm(sp):
            raise InputError(f"{path}: steps = {out['steps']} and steps_per_epoch = {sp} differ "
                             "(both mean steps per epoch M)")
        out["steps"] = sp
    return out


def _no_constant(name):
    raise ValueError(f"{name} is not a number")


def merge(flags: dict, config: dict) -> dict:
    """Flags and config together; the same key given twice with different values is an error."""
    out = dict(config)
    for k, v in flags.items():
        if v is None:
            continue
        if k in config and _norm(config[k]) != _norm(v):
            raise InputError(f"{k} given twice with different values: {config[k]} (config) and {v} (flag)")
        out[k] = v
    return out


def _norm(v):
    try:
        return parse_exact(v, "value")
    except InputError:
        return str(v)


@dataclass(frozen=True)
class Inputs:
    sigma: Fraction | None
    steps: int | None
    samples: int | None
    batch_size: int | None
    epochs: int
    clip: Fraction
    target: Target
    bound: str
    noise_level: Fraction
    resolution: Fraction
    target_epsilon: Fraction | None = None   # with delta: the (epsilon, delta) target


def _positive_int(v, name):
    q = parse_exact(v, name)
    if q.denominator != 1 or q < 1:
        raise InputError(f"{name} must be a positive integer, got {v}")
    return int(q)


def _positive(v, name):
    q = parse_exact(v, name)
    if q <= 0:
        raise InputError(f"{name} must be > 0, got {v}")
    return q


def parse_inputs(d: dict, need_sigma=True, need_steps=True) -> Inputs:
    sigma = parse_sigma(d["sigma"]) if d.get("sigma") is not None else None
    if need_sigma and sigma is None:
        raise InputError("sigma is required (--sigma S)")
    samples = _positive_int(d["samples"], "samples") if d.get("samples") is not None else None
    batch = _positive_int(d["batch_size"], "batch-size") if d.get("batch_size") is not None else None
    steps = (parse_steps(d["steps"], minimum=1 if d.get("target_epsilon") is not None else 3)
             if d.get("steps") is not None else None)
    if batch is not None and samples is None:
        raise InputError("batch-size needs samples (--samples N) to give M = N / batch-size")
    if samples is not None and batch is not None:
        if samples % batch:
            raise InputError(f"batch-size {batch} does not divide samples {samples}: "
                             "M = N / batch-size must be an integer")
        m = samples // batch
        if m < 3:
            raise InputError(f"M = samples / batch-size = {m} must be >= 3")
        if steps is not None and steps != m:
            raise InputError(f"steps given twice and different: {steps} and samples / batch-size = {m}")
        steps = m
    if need_steps and steps is None:
        raise InputError("steps per epoch required: --steps M, or --samples N --batch-size b")
    epochs = parse_epochs(d.get("epochs", "1"))
    delta = parse_exact(d["delta"], "delta") if d.get("delta") is not None else None
    acc = (parse_exact(d["target_accuracy"], "target-accuracy")
           if d.get("target_accuracy") is not None else None)
    eps = None
    if d.get("target_epsilon") is not None:
        from verifier.bounds.profile import check_range
        eps = parse_exact(d["target_epsilon"], "target-epsilon")
        if delta is None or acc is not None:
            raise InputError("--target-epsilon needs --delta D (the (epsilon, delta) target) and "
                             "no --target-accuracy")
        if eps < 0:
            raise InputError(f"target-epsilon must be >= 0, got {d['target_epsilon']}")
        from verifier.bounds.profile import DELTA_RANGE, EPS_MAX
        if not (0 <= eps <= EPS_MAX and DELTA_RANGE[0] <= delta <= DELTA_RANGE[1]):
            check_range(Fraction(1), 1, 1, delta=delta, eps=eps)
    target = Target.make(delta, acc)
    bound = d.get("bound") or "all"
    brackets = {n: b.name for b in BRACKETS.values() for n in b.names()}
    if bound in brackets:         # the exact-TV bracket: only for calibrate sigma
        if bound != brackets[bound]:
            deprecated(f"bound {bound}", f"bound {brackets[bound]}")
        bound = brackets[bound]
    else:
        check_bounds(bound)
    return Inputs(sigma, steps, samples, batch, epochs,
                  _positive(d.get("clip", "1"), "clip"), target, bound,
                  _positive(d.get("noise_level", "0.1"), "noise-level"),
                  _positive(d.get("resolution", "0.01"), "resolution"), eps)


# ---------------------------------------------------------------------------
