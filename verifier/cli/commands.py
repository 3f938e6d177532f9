"""Command line: ``verifier audit | bound | steps``.

Exit status: 0 success (audit: nothing refuted or inconclusive; bound: the
theorem applies; steps: M_exact certified); 1 a certified negative answer
(audit: a claim refuted or inconclusive; bound: a hypothesis fails; steps: no
M is feasible); 2 bad input or unusable files (one-line message, nothing
written); 3 inconclusive at the precision cap (bound, steps); 4 internal error.
"""
from __future__ import annotations

import argparse
import os
import sys
from fractions import Fraction

from verifier import __version__
from verifier.core.arith import (DEFAULT_MAX_PREC, LIMITS_HELP, MAX_EXACT_EPOCHS, InputError, Interval, Tri,
                    decimal_str, parse_delta, parse_epochs, parse_exact, parse_sigma, parse_steps, pct)

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    """argparse, but every usage error is one line and exit status 2."""

    def error(self, message):
        raise InputError(f"{self.prog}: {message}")


def _max_prec(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 64 <= v <= 1 << 20:
        raise argparse.ArgumentTypeError(f"must be between 64 and 1048576 bits, got {v}")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="verifier",
        description="Certified (Arb interval arithmetic) checks of Theorem 3.1 of "
                    "van Dijk & Ertan, arXiv 2605.06259 v1 (as reconstructed in docs/THEORY.md): "
                    "DP-SGD with random-allocation sampling.",
        epilog="Exit status: 0 ok; 1 refuted / hypothesis fails / infeasible; 2 bad input; "
               "3 inconclusive at the precision cap; 4 internal error.")
    p.add_argument("--version", action="version", version=f"verifier {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def common(sp):
        sp.add_argument("--json", action="store_true", help="print one JSON object")
        sp.add_argument("--max-prec", type=_max_prec, default=DEFAULT_MAX_PREC, metavar="BITS",
                        help=f"precision cap in bits (default {DEFAULT_MAX_PREC}); past it an "
                             "undecided comparison is reported as inconclusive")

    a = sub.add_parser("audit", help="judge every claim of claims files; write reports",
                       description="Recompute every claim of each claims file with certified "
                                   "error bounds; write OUT/<name>.json and OUT/<name>.md. "
                                   "Default: the claims shipped with the verifier "
                                   "(Table 1 of arXiv 2605.06259).")
    a.add_argument("files", nargs="*", metavar="CLAIMS_FILE", help="TOML claims files")
    a.add_argument("--out", default="reports", metavar="DIR", help="report directory (default: reports)")
    common(a)

    b = sub.add_parser("bound", help="enclose delta_rhs(M, sigma) and check the hypotheses",
                       description="Certified delta_rhs of Theorem 3.1 with every term, "
                                   "delta_E over E epochs and each hypothesis verdict.")
    b.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    b.add_argument("--steps", required=True, metavar="M", help="steps per epoch, integer >= 3")
    b.add_argument("--epochs", default="1", metavar="E", help="epochs (default 1)")
    b.add_argument("--coef", default="simplified", metavar="simplified|exact",
                   help="Berry-Esseen factor: coef_S (simplified, default) or coef_X (exact)")
    b.add_argument("--delta", default=None, metavar="D",
                   help="target over all epochs: also check delta_E <= D (delta_rhs <= D when "
                        "E = 1); condition (2) is always checked at delta = delta_rhs, the "
                        "reading the theorem supports (docs/THEORY.md section 3)")
    common(b)

    s = sub.add_parser("steps", help="M_BE, certified M_exact and min N for a target delta",
                       description="Closed form M_BE, the certified smallest M (M_exact) with "
                                   "its certificate, and the minimum dataset size N.")
    s.add_argument("--sigma", required=True, metavar="S", help="noise multiplier (exact decimal)")
    s.add_argument("--delta", required=True, metavar="D", help="target delta in (0, 1)")
    s.add_argument("--coef", default="simplified", metavar="simplified|exact",
                   help="Berry-Esseen factor (default simplified)")
    s.add_argument("--noise-level", default="0.1", metavar="L",
                   help="per-round noise level sigma M / N for min N (default 0.1)")
    common(s)

    def deploy_inputs(sp, what):
        sp.add_argument("--sigma", metavar="S", help="noise multiplier (exact decimal)")
        sp.add_argument("--steps", metavar="M", help="steps per epoch (integer >= 3)")
        sp.add_argument("--samples", metavar="N", help="dataset size N")
        sp.add_argument("--batch-size", metavar="b", dest="batch_size",
                        help="expected batch size; M = N / b (must divide N)")
        sp.add_argument("--epochs", metavar="E", help="epochs (default 1)")
        sp.add_argument("--clip", metavar="C", help="clipping norm C (default 1)")
        sp.add_argument("--delta", metavar="D", help="target: f >= 1 - a - D over all epochs")
        sp.add_argument("--target-accuracy", metavar="A", dest="target_accuracy",
                        help="target: membership-inference accuracy <= A (equal priors)")
        sp.add_argument("--bound", metavar="NAME",
                        help="all (default), theorem31-simplified, theorem31-exact, chi-square")
        sp.add_argument("--config", metavar="FILE", help="TOML or JSON file with the same keys")
        sp.add_argument("--json", action="store_true", help="print one JSON object")
        sp.add_argument("--max-prec", type=_max_prec, default=DEFAULT_MAX_PREC, metavar="BITS",
                        help=f"precision cap in bits (default {DEFAULT_MAX_PREC})")

    ce = sub.add_parser("certify", help="certify deployed parameters against a target",
                        description="Every applicable bound (Theorem 3.1 with both factors, the "
                                    "chi-square bound) over E epochs, certified; the target is "
                                    "met when at least one valid bound meets it. Writes "
                                    "OUT/certificate.json and OUT/certificate.md.",
                        epilog="Exit status: 0 certified; 1 not certified; 2 bad input; "
                               "3 inconclusive.")
    deploy_inputs(ce, "certify")
    ce.add_argument("--out", default=None, metavar="DIR",
                    help="write the certificate files (JSON, Markdown, HTML, figures) into DIR; "
                         "without it nothing is written")

    ca = sub.add_parser("calibrate", help="smallest sigma, steps M or samples N for a target",
                        description="The inverse questions, certified: the smallest M (certified "
                                    "minimal), the smallest sigma on a grid (feasible there, "
                                    "infeasible one step below), the smallest N for a per-round "
                                    "noise level.",
                        epilog="Exit status: 0 found; 1 infeasible; 2 bad input; 3 inconclusive.")
    ca.add_argument("what", choices=["sigma", "steps", "samples"], help="what to calibrate")
    deploy_inputs(ca, "calibrate")
    ca.add_argument("--resolution", metavar="R", help="sigma grid step (default 0.01)")
    ca.add_argument("--noise-level", metavar="L", dest="noise_level",
                    help="per-round noise level C sigma M / N for samples (default 0.1)")

    ex = sub.add_parser("exact", help="rigorous bracket of the exact total variation (attack accuracy)",
                        description="Two-sided rigorous bracket lower <= TV <= upper of the "
                                    "random-allocation pair (E = 1: E|Ybar_M - 1|/2) by lattice "
                                    "discretisation in convex order and ball-arithmetic DFTs; "
                                    "attack accuracy = 1/2 + TV/2; E epochs by a log-grid "
                                    "discretisation of the product, also rigorous.")
    ex.add_argument("--sigma", required=True, metavar="S")
    ex.add_argument("--steps", required=True, metavar="M")
    ex.add_argument("--epochs", default="1", metavar="E")
    ex.add_argument("--json", action="store_true", help="print one JSON object")

    co = sub.add_parser("compare", help="Theorem 3.1, chi-square and the exact bracket side by side",
                        description="One table for the same inputs: each bound on delta_E (TV) "
                                    "and its ratio to the upper end of the exact bracket.")
    co.add_argument("--sigma", required=True, metavar="S")
    co.add_argument("--steps", required=True, metavar="M")
    co.add_argument("--epochs", default="1", metavar="E")
    co.add_argument("--json", action="store_true", help="print one JSON object")

    c = sub.add_parser("check-proofs", help="re-derive / re-check every identity, constant and "
                                            "monotonicity step behind Theorem 3.1",
                       description="Run the proof-consistency checks (proofs_checks/): each "
                                   "check is proved (exact algebra or a covering certified "
                                   "argument), refuted (certified counterexample) or unknown. "
                                   "Writes OUT/proofs.json and OUT/proofs.md; exits 1 if any "
                                   "check is refuted or unknown.")
    c.add_argument("--out", default="reports", metavar="DIR", help="report directory (default: reports)")
    c.add_argument("--only", default=None, metavar="PREFIX", help="run only checks whose id starts so")
    c.add_argument("--timings", action="store_true",
                   help="also write wall times into the reports (then not byte-reproducible)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    p.epilog = f"{p.epilog} {LIMITS_HELP}"
    for sp_ in sub.choices.values():
        sp_.epilog = f"{sp_.epilog} {LIMITS_HELP}" if sp_.epilog else LIMITS_HELP
    return p


def _iv(x: Interval) -> dict:
    return x.to_json()


def _print_json(obj):
    from verifier.report.writer import dumps
    sys.stdout.write(dumps(obj))


# ---------------------------------------------------------------------------
def cmd_audit(args) -> int:
    from verifier.claims import audit as A
    from verifier.claims import format as C
    from verifier.report.writer import write_audit
    files = args.files or C.shipped_claims_files()
    loaded = [C.load(f) for f in files]          # validate everything before writing
    names = [cf.name for cf in loaded]
    if len(set(names)) != len(names):
        raise InputError("two claims files have the same name; their reports would collide")
    status = EXIT_OK
    # every claim of every file judged before anything is written: a run that fails
    # (exit 4) or is interrupted leaves the report folder as it was
    judged = [(cf, A.audit(cf, args.max_prec)) for cf in loaded]
    out = []
    for cf, results in judged:
        paths = write_audit(cf, results, args.out, args.max_prec)
        status = max(status, A.exit_status(results))
        out.append((cf, results, paths))
    if args.json:
        from verifier.report.writer import audit_json
        _print_json({"reports": [audit_json(cf, r, args.max_prec) for cf, r, _ in out]})
        return status
    for cf, results, paths in out:
        s = A.summary(results)
        print(f"{cf.name}: {s['total']} claims: " + ", ".join(f"{s[k]} {k}" for k in A.VERDICTS))
        for r in results:
            vals = "; ".join(A.value_text(c) for c in r.cases[:1])
            more = f" (+{len(r.cases) - 1} cases)" if len(r.cases) > 1 else ""
            print(f"  {r.verdict:<15} {r.claim.id:<48} printed {r.claim.printed:<8} certified {vals}{more}")
        print(f"  wrote {paths[0]} and {paths[1]}")
    return status


def cmd_bound(args) -> int:
    from verifier.bounds import theorem31 as T
    from verifier.report.writer import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps)
    epochs, coef = parse_epochs(args.epochs), T.check_coef(args.coef)
    delta = parse_delta(args.delta) if args.delta is not None else None
    r = T.bound(sigma, steps, coef, epochs, delta, args.max_prec)
    meets = None
    if delta is not None:   # the target is over all epochs: delta_E (= delta_rhs when E = 1)
        meets = r.meets(delta)
    app = r.applicable
    status = {Tri.HOLDS: EXIT_OK, Tri.FAILS: EXIT_NEGATIVE, Tri.UNDECIDED: EXIT_INCONCLUSIVE}[app]
    if meets is Tri.FAILS:
        status = max(status, EXIT_NEGATIVE)
    elif meets is Tri.UNDECIDED and status == EXIT_OK:
        status = EXIT_INCONCLUSIVE
    if args.json:
        obj = {
            "sigma": frac_str(sigma), "steps": steps, "epochs": epochs, "coef": coef,
            "delta": _iv(r.delta), "delta_epochs": _iv(r.delta_epochs),
            "terms": {n: _iv(t) for n, t in zip(T.TERM_NAMES, r.terms)},
            "coef_value": _iv(r.coef_value),
            "hypotheses": {h.name: h.verdict.value for h in r.hypotheses},
            "hypothesis_margins": {h.name: _iv(h.value) for h in r.hypotheses},
            "applicable": app.value, "precision_bits": r.precision,
            "source": T.SOURCE, "reconstructed": T.RECONSTRUCTED_NOTE,
        }
        if delta is not None:
            obj["target_delta"] = frac_str(delta)
            obj["meets_target"] = meets.value
        _print_json(obj)
        return status
    print(f"{T.SOURCE} (reconstructed), coef = {coef}")
    print(f"sigma = {frac_str(sigma)}, M = {steps}, epochs = {epochs}   "
          f"[{r.precision}-bit Arb balls; intervals rounded outward]")
    print(f"  coef      = {r.coef_value.short(16)}")
    for n, t in zip(T.TERM_NAMES, r.terms):
        print(f"  {n}        = {t.short(16)}")
    print(f"  delta_rhs = {r.delta.short(16)}")
    if epochs > 1:
        print(f"  delta_E   = {r.delta_epochs.short(16)}   (E = {epochs}: 1 - (1 - delta)^E)")
    print("hypotheses (margin >= 0 means holds):")
    for h in r.hypotheses:
        print(f"  {h.name:<34} {h.verdict.value:<9} margin {h.value.short(10)}")
    if delta is not None:
        print(f"target delta = {frac_str(delta)} over {epochs} epoch{'s' if epochs > 1 else ''}: "
              f"{'delta_E' if epochs > 1 else 'delta_rhs'} <= target {meets.value}")
    verdict = {Tri.HOLDS: "the theorem applies: one epoch is f_{0,delta}-DP (f(a) >= 1 - a - delta) "
                          "with delta = the upper end of delta_rhs"
                          + ("" if epochs == 1 else f"; {epochs} epochs with delta_E"),
               Tri.FAILS: "NOT applicable: a hypothesis fails",
               Tri.UNDECIDED: "INCONCLUSIVE: a hypothesis is undecided at the precision cap"}[app]
    print(f"verdict: {verdict}")
    print(f"note: {T.RECONSTRUCTED_NOTE}")
    return status


def _steps_block(r, n) -> dict:
    return {"status": r.status, "value": r.m_exact, "reading": r.reading, "min_n": n,
            "certificate": {"at_m": r.at_m.to_json() if r.at_m else None,
                            "at_m_minus_1": r.below.to_json() if r.below else None,
                            "evaluations": r.evaluations},
            "message": r.message}


def _print_steps_certificate(r, label):
    print(f"certificate of {label} at M = {r.m_exact} (every condition holds):")
    for c in r.at_m.checks:
        print(f"  {c.name:<34} {c.verdict.value:<9} margin {c.value.short(10)}")
    if r.below is None:
        print("  M = 3 is the smallest admissible M")
    else:
        print(f"certificate of {label} at M = {r.m_exact - 1} (a condition certifiably fails):")
        for c in r.below.checks:
            print(f"  {c.name:<34} {c.verdict.value:<9} margin {c.value.short(10)}")


def cmd_steps(args) -> int:
    """Two answers, named: M_exact as Table 1 defines it (condition (2) at the target delta)
    and M_certified, the smallest M the theorem certifies (condition (2) at delta_rhs(M),
    the reading the theorem supports; docs/THEORY.md section 3).  M_certified <= M_exact;
    the exit status and min N follow M_certified, the answer to "which M gives
    f >= 1 - a - delta"."""
    from verifier.bounds import theorem31 as T
    from verifier.bounds import theorem31_steps as TS
    from verifier.report.writer import frac_str
    sigma, delta = parse_sigma(args.sigma), parse_delta(args.delta)
    coef = T.check_coef(args.coef)
    level = parse_exact(args.noise_level, "noise-level")
    if level <= 0:
        raise InputError(f"noise-level must be > 0, got {str(args.noise_level)[:40]}")
    r = TS.steps_exact(sigma, delta, coef, args.max_prec, "table1")
    c = TS.steps_exact(sigma, delta, coef, args.max_prec, "theorem")
    n = TS.min_samples(r.m_exact, sigma, level) if r.m_exact is not None else None
    nc = TS.min_samples(c.m_exact, sigma, level) if c.m_exact is not None else None
    status = {"certified": EXIT_OK, "infeasible": EXIT_NEGATIVE, "inconclusive": EXIT_INCONCLUSIVE,
              "beyond-range": EXIT_INCONCLUSIVE}[c.status]
    if args.json:
        _print_json({
            "sigma": frac_str(sigma), "delta": frac_str(delta), "coef": coef,
            "status": r.status, "m_exact": r.m_exact, "m_closed_form": _iv(r.closed_form),
            "min_n": n, "noise_level": frac_str(level),
            "certificate": {
                "at_m_exact": r.at_m.to_json() if r.at_m else None,
                "at_m_exact_minus_1": r.below.to_json() if r.below else None,
                "evaluations": r.evaluations,
                "monotonicity": "each term decreases in M and each hypothesis persists: "
                                "proof checks monotonicity.* (proofs_checks/)",
            },
            "m_exact_reading": TS.READINGS["table1"],
            "m_certified": {**_steps_block(c, nc), "reading": TS.READINGS["theorem"]},
            "message": r.message, "source": T.SOURCE, "reconstructed": T.RECONSTRUCTED_NOTE,
        })
        return status
    print(f"{T.SOURCE} (reconstructed), coef = {coef}: sigma = {frac_str(sigma)}, "
          f"delta = {frac_str(delta)}")
    print(f"  M_BE (closed form (4)) = {r.closed_form.short(16)}")
    for res, name, what in ((r, "M_exact", "Table 1's definition: condition (2) at the target "
                                           "delta"),
                            (c, "M_certified", "the smallest M the theorem certifies: "
                                               "condition (2) at delta_rhs(M)")):
        if res.status == "certified":
            print(f"  {name:<22} = {res.m_exact}   ({what}; {res.evaluations} certified "
                  "evaluations)")
        else:
            print(f"  {name:<22}: {res.status.upper()} ({what}): {res.message}")
    if c.status == "certified":
        print(f"  min N                  = {nc}   (sigma M_certified / N <= {frac_str(level)})")
        _print_steps_certificate(c, "M_certified")
    elif r.status == "certified":
        _print_steps_certificate(r, "M_exact")
    print(f"note: {T.RECONSTRUCTED_NOTE}")
    return status


def _deploy_inputs(args, need_sigma, need_steps):
    from verifier.deploy.inputs import load_config, merge, parse_inputs
    keys = ("sigma", "steps", "samples", "batch_size", "epochs", "clip", "delta",
            "target_accuracy", "bound", "noise_level", "resolution")
    flags = {k: getattr(args, k, None) for k in keys}
    config = load_config(args.config) if args.config else {}
    return parse_inputs(merge(flags, config), need_sigma, need_steps)


def cmd_certify(args) -> int:
    from verifier import deploy as Dp
    from verifier.report.certificate import certificate_json, write_certificate
    from verifier.report.writer import frac_str
    inp = _deploy_inputs(args, True, True)
    c = Dp.certify(inp.sigma, inp.steps, inp.epochs, inp.target, inp.bound, inp.samples,
                   inp.clip, args.max_prec)
    paths = write_certificate(c, args.out) if args.out is not None else None
    status = {"certified": EXIT_OK, "not-certified": EXIT_NEGATIVE,
              "inconclusive": EXIT_INCONCLUSIVE}[c.status]
    if args.json:
        _print_json(certificate_json(c))
        return status
    print(f"sigma = {frac_str(c.sigma)}, M = {c.steps}, E = {c.epochs}; target: {c.target.kind} "
          f"{frac_str(c.target.value)} (delta_E <= {frac_str(c.target.delta)})")
    for name, ev in c.bounds.items():
        hyp = "" if not ev.hypotheses else "  hypotheses " + ", ".join(
            h.verdict.value for h in ev.hypotheses)
        print(f"  {name:<22} delta_E {ev.delta_epochs.short(8):<34} accuracy <= "
              f"{ev.accuracy.short(8):<34} {ev.verdict.value}{hyp}")
    if c.noise_per_round is not None:
        print(f"  per-round noise C sigma M / N = {frac_str(c.noise_per_round)}")
    cm = c.comparisons
    print(f"  comparison (asymptotic, not certified): mu_P = {cm['mu_poisson'].short(6)}, "
          f"mu_U = {cm['mu_uniform'].short(6)}")
    print(f"status: {c.status.upper()}")
    if paths:
        print(f"  wrote {paths[0]} and {paths[1]}")
    return status


def cmd_calibrate(args) -> int:
    from verifier import deploy as Dp
    from verifier.report.writer import frac_str
    inp = _deploy_inputs(args, args.what in ("steps", "samples"), args.what == "sigma")
    with_exact = args.what == "sigma" and inp.bound == "exact"
    # --bound exact: the three bounds' answers too, and the noise saved against each
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
            out["bounds"]["exact"] = e
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


def _exact_json(r) -> dict:
    from verifier.report.writer import frac_str
    return {"sigma": frac_str(r.sigma), "steps": r.steps, "epochs": r.epochs,
            "tv": r.tv.to_json(), "accuracy": r.accuracy.to_json(),
            "relative_width": ("inf" if r.relative_width is None
                               else decimal_str(r.relative_width, 6, "up")),
            "certified": "rigorous bracket: every approximation step is one-sided and every "
                         "number an Arb ball (DFTs included)",
            "lattice_step": frac_str(r.lattice_step),
            "cells": r.cells, "dft_length": r.dft_length, "seconds": round(r.seconds, 3)}


def cmd_exact(args) -> int:
    from verifier.bounds.exact_tv.bracket import exact_tv
    from verifier.report.writer import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps, minimum=2)
    epochs = parse_epochs(args.epochs, MAX_EXACT_EPOCHS)
    r = exact_tv(sigma, steps, epochs)
    if args.json:
        _print_json(_exact_json(r))
        return EXIT_OK
    print(f"exact total variation, sigma = {frac_str(sigma)}, M = {steps}, E = {epochs}")
    rw = r.relative_width
    print(f"  TV        in {r.tv.short(10)}   (relative width "
          f"{'unbounded' if rw is None else '<= ' + pct(rw, 'up', 3)})")
    print(f"  accuracy  in {r.accuracy.short(10)}   (membership inference, equal priors)")
    if rw is None or rw > Fraction(1, 100):
        print("  note: wider than 1%: still a rigorous bracket, but this (sigma, M, E) is outside "
              "the range the lattice is tuned for (sigma in [0.15, 4])")
    print(f"  lattice step h = {frac_str(r.lattice_step)}, {r.cells} cells, DFT length "
          f"{r.dft_length}, {r.seconds:.2f} s; rigorous (one-sided steps, Arb balls)")
    return EXIT_OK


def _ratio_json(r):
    if r is None:
        return None
    if r.upper is None:
        return {"lower": decimal_str(r.lower, 6, "down"), "upper": "inf"}
    return r.to_json(6)


def _ratio_text(r) -> str:
    if r is None:
        return "-"
    if r.upper is None:   # the exact bracket's lower end is 0
        return f">= {decimal_str(r.lower, 4, 'down')}"
    return r.short(4)


def cmd_compare(args) -> int:
    from verifier import deploy as Dp
    from verifier.bounds.exact_tv.bracket import exact_tv
    from verifier.report.writer import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps, minimum=2)
    epochs = parse_epochs(args.epochs, MAX_EXACT_EPOCHS)
    ex = exact_tv(sigma, steps, epochs)
    tgt = Dp.Target.make(delta=Fraction(1, 2))
    rows = {}
    for b in Dp.BOUNDS:
        ev = Dp.evaluate(b, sigma, steps, epochs, tgt)
        ratio = None    # bound / TV, outward: [bound lower / TV upper, bound upper / TV lower]
        if ex.tv.upper > 0 and ev.delta_epochs.finite:
            ratio = Interval(ev.delta_epochs.lower / ex.tv.upper,
                             ev.delta_epochs.upper / ex.tv.lower if ex.tv.lower > 0 else None)
        rows[b] = (ev, ratio)
    if args.json:
        _print_json({"sigma": frac_str(sigma), "steps": steps, "epochs": epochs,
                     "exact": _exact_json(ex),
                     "bounds": {b: {"delta_epochs": ev.delta_epochs.to_json(),
                                    "applicable": ev.applicable.value,
                                    "ratio_to_exact": _ratio_json(r)}
                                for b, (ev, r) in rows.items()}})
        return EXIT_OK
    print(f"sigma = {frac_str(sigma)}, M = {steps}, E = {epochs}")
    print(f"  {'bound':<22} {'delta_E (TV bound)':<36} {'valid':<10} ratio to exact")
    for b, (ev, r) in rows.items():
        print(f"  {b:<22} {ev.delta_epochs.short(8):<36} {ev.applicable.value:<10} "
              f"{_ratio_text(r)}")
    print(f"  {'exact TV (bracket)':<22} {ex.tv.short(8):<36} {'rigorous':<10} 1")
    return EXIT_OK


def cmd_check_proofs(args) -> int:
    try:
        from proofs_checks import runner
    except ImportError as e:  # pragma: no cover - packaging problem
        raise InputError(f"the proof checks are not installed ({e})") from None

    def progress(c, o, t):
        if not args.json:
            print(f"  {o.verdict:<13} {t:6.2f} s  {c.id}", flush=True)

    results = runner.run_all(args.only, progress)
    if not results:
        raise InputError(f"no check id starts with {args.only!r}")
    paths = runner.write(results, args.out, args.timings)
    if args.json:
        _print_json(runner.to_json(results, timings=True))
    else:
        s = runner.summary(results)
        total = sum(t for _, _, t in results)
        print(f"{s['total']} checks: " + ", ".join(f"{s[k]} {k}" for k in runner.VERDICTS)
              + f"  ({total:.1f} s)")
        print(f"  wrote {paths[0]} and {paths[1]}")
    return runner.exit_status(results)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_INPUT
        return {"audit": cmd_audit, "bound": cmd_bound, "steps": cmd_steps,
                "certify": cmd_certify, "calibrate": cmd_calibrate,
                "exact": cmd_exact, "compare": cmd_compare,
                "check-proofs": cmd_check_proofs}[args.command](args)
    except InputError as e:
        msg = str(e).replace("\n", " ")
        print(f"verifier: error: {msg}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("verifier: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # never a traceback for users; VERIFIER_DEBUG=1 shows it
        if os.environ.get("VERIFIER_DEBUG"):
            raise
        print(f"verifier: internal error: {e.__class__.__name__}: {str(e)[:200]} "
              "(set VERIFIER_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
