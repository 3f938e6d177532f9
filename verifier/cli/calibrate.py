"""verifier calibrate sigma | steps | samples."""
from __future__ import annotations

from verifier.bounds.exact_tv import EXACT_TV
from verifier.core.arith import pct
from verifier.cli.common import (EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK, _deploy_inputs,
                                 _print_json)


def cmd_calibrate(args) -> int:
    from verifier import deploy as Dp
    from verifier.core.arith import frac_str
    inp = _deploy_inputs(args, args.what in ("steps", "samples"), args.what == "sigma")
    with_exact_tv = args.what == "sigma" and inp.bound == EXACT_TV.name
    # --bound exact-tv: the registry bounds' answers too, and the noise saved against each
    names = Dp.BOUNDS if with_exact_tv else Dp.check_bounds(inp.bound)
    out = {"what": args.what, "target": {"kind": inp.target.kind,
                                         "value": frac_str(inp.target.value)},
           "epochs": inp.epochs, "bounds": {}}
    lines = []
    found, inconclusive = [], False
    if args.what == "sigma":
        out["steps"] = inp.steps
        out["resolution"] = frac_str(inp.resolution)
        res = Dp.calibrate_sigma_over(inp.steps, inp.epochs, inp.target, names, inp.resolution,
                                      args.max_prec, with_exact_tv)
        out.update(res.to_json())
        for b, r in res.per_bound.items():
            rng = f" .. {frac_str(r.sigma_max)}" if r.sigma_max is not None else " and above"
            lines.append(f"  {b:<22} {r.status:<13} "
                         + (f"sigma = {frac_str(r.sigma)}{rng}" if r.sigma else "")
                         + (f"  ({r.message})" if r.message else ""))
            if r.branch and r.status == "certified":
                lines.append(f"      {r.branch}")
        r = res.exact
        if r is not None:
            lines.append(f"  {EXACT_TV.title:<22} {r.status:<13} "
                         + (f"sigma = {frac_str(r.sigma)}" if r.sigma else "")
                         + (f"  ({r.message})" if r.message else ""))
            for b, q in (r.noise_saved or {}).items():
                lines.append(f"  noise saved against {b}: {pct(q, 'down')} "
                             f"(sigma {frac_str(r.sigma)} instead of "
                             f"{frac_str(res.per_bound[b].sigma)})")
            if r.sigma is None:   # the exact calibration did not decide: the bounds' answers stand
                lines.append("  (the exact-TV calibration is inconclusive: the result is the "
                             "smallest answer the bounds certify)")
        found = [res.value] if res.value is not None else []
        inconclusive = res.status == "inconclusive"
    else:
        steps = inp.steps
        if args.what == "steps" or steps is None:
            cal = {b: Dp.calibrate_steps(inp.sigma, inp.epochs, inp.target, b, args.max_prec)
                   for b in names}
            c = Dp.combine("steps", cal)
            out["bounds"] = {b: r.to_json() for b, r in cal.items()}
            for b, r in cal.items():
                lines.append(f"  {b:<22} {r.status:<13} "
                             + (f"M = {r.steps}" if r.steps else "")
                             + (f"  ({r.message})" if r.message else ""))
            steps = c.value
            found = [steps] if steps is not None else []
            inconclusive = c.status == "inconclusive"
            if steps is not None:
                out["steps"] = steps
        else:
            found.append(steps)
            out["steps"] = steps
        out["sigma"] = frac_str(inp.sigma)
        if args.what == "samples" and steps is not None:
            n = Dp.min_samples(inp.sigma, steps, inp.clip, inp.noise_level)
            out["samples"] = n
            out["noise_level"] = frac_str(inp.noise_level)
            lines.append(f"  min N = {n}  (C sigma M / N <= {frac_str(inp.noise_level)}, "
                         f"C = {frac_str(inp.clip)}, M = {steps})")
    status = EXIT_OK if found else EXIT_INCONCLUSIVE if inconclusive else EXIT_NEGATIVE
    if args.json:
        _print_json(out)
        return status
    print(f"calibrate {args.what}: target {inp.target.kind} {frac_str(inp.target.value)}, "
          f"E = {inp.epochs}")
    for line in lines:
        print(line)
    key = {"sigma": "sigma", "steps": "steps", "samples": "samples"}[args.what]
    print(f"result: {key} = {out.get(key, 'none certified')}")
    return status
