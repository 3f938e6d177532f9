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
    with_exact = args.what == "sigma" and inp.bound == EXACT_TV.name
    # --bound exact-tv: the registry bounds' answers too, and the noise saved against each
    names = Dp.BOUNDS if with_exact else Dp.check_bounds(inp.bound)
    out = {"what": args.what, "target": {"kind": inp.target.kind,
                                         "value": frac_str(inp.target.value)},
           "epochs": inp.epochs, "bounds": {}}
    lines = []
    found, inconclusive = [], False
    if args.what == "sigma":
        out["steps"] = inp.steps
        out["resolution"] = frac_str(inp.resolution)
        cal = {}
        for b in names:
            r = cal[b] = Dp.calibrate_sigma(inp.steps, inp.epochs, inp.target, b, inp.resolution,
                                            args.max_prec)
            e = {"status": r.status, "sigma": frac_str(r.sigma) if r.sigma else None,
                 "message": r.message, "branch": r.branch}
            if r.at:
                e["at_sigma"] = r.at.to_json()
            if r.below:
                e["at_sigma_minus_resolution"] = r.below.to_json()
            if r.sigma_max is not None:
                e["sigma_max"] = frac_str(r.sigma_max)
                e["at_sigma_max_plus_resolution"] = r.above.to_json() if r.above else None
            if r.closed_form:
                e["closed_form_sigma"] = r.closed_form.to_json()
            out["bounds"][b] = e
            if r.status == "certified":
                found.append(r.sigma)
            inconclusive |= r.status == "inconclusive"
            rng = f" .. {frac_str(r.sigma_max)}" if r.sigma_max is not None else " and above"
            lines.append(f"  {b:<22} {r.status:<13} "
                         + (f"sigma = {frac_str(r.sigma)}{rng}" if r.sigma else "")
                         + (f"  ({r.message})" if r.message else ""))
            if r.branch and r.status == "certified":
                lines.append(f"      {r.branch}")
        if with_exact:
            r = Dp.calibrate_sigma_exact(inp.steps, inp.epochs, inp.target, inp.resolution,
                                         chi=cal["chi-square"])
            e = {"status": r.status, "sigma": frac_str(r.sigma) if r.sigma else None,
                 "message": r.message, "branch": r.branch}
            lines.append(f"  {'exact TV (bracket)':<22} {r.status:<13} "
                         + (f"sigma = {frac_str(r.sigma)}" if r.sigma else "")
                         + (f"  ({r.message})" if r.message else ""))
            if r.sigma:
                # the exact answer is the smallest certified one (TV <= every bound)
                found, inconclusive = [r.sigma], False
                saved = {}
                for b, rb in cal.items():
                    if rb.status == "certified":
                        # exact rationals of grid values, printed rounded down
                        saved[b] = pct(1 - r.sigma / rb.sigma, "down")
                        lines.append(f"  noise saved against {b}: {saved[b]} "
                                     f"(sigma {frac_str(r.sigma)} instead of {frac_str(rb.sigma)})")
                e["noise_saved"] = saved
            else:   # the exact calibration did not decide: the bounds' certified answers stand
                lines.append("  (the exact-TV calibration is inconclusive: the result is the "
                             "smallest answer the bounds certify)")
            out["bounds"][EXACT_TV.name] = e
        if found:
            out["sigma"] = frac_str(min(found))
    else:
        steps = inp.steps
        if args.what == "steps" or steps is None:
            for b in names:
                r = Dp.calibrate_steps(inp.sigma, inp.epochs, inp.target, b, args.max_prec)
                e = {"status": r.status, "steps": r.steps, "evaluations": r.evaluations,
                     "message": r.message}
                if r.at:
                    e["at_steps"] = r.at.to_json()
                if r.below:
                    e["at_steps_minus_1"] = r.below.to_json()
                if r.closed_form:
                    e["closed_form_steps"] = r.closed_form.to_json()
                out["bounds"][b] = e
                if r.status == "certified":
                    found.append(r.steps)
                inconclusive |= r.status == "inconclusive"
                lines.append(f"  {b:<22} {r.status:<13} "
                             + (f"M = {r.steps}" if r.steps else "")
                             + (f"  ({r.message})" if r.message else ""))
            steps = min(found) if found else None
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
