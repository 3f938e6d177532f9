"""verifier exact and verifier compare: the exact-TV bracket, alone and beside every bound."""
from __future__ import annotations

from fractions import Fraction

from verifier.core.arith import (MAX_EXACT_EPOCHS, decimal_str, parse_epochs, parse_sigma,
                                 parse_steps, pct)
from verifier.cli.common import EXIT_OK, print_json, run_shape


def cmd_exact(args) -> int:
    from verifier.bounds.exact_tv.bracket import exact_tv
    from verifier.core.arith import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps, minimum=2)
    epochs = parse_epochs(args.epochs, MAX_EXACT_EPOCHS)
    r = exact_tv(sigma, steps, epochs)
    if args.json:
        print_json(r.to_json())
        return EXIT_OK
    print(f"exact total variation, sigma = {frac_str(sigma)}, {run_shape(steps, epochs)}")
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
    from verifier.core.arith import frac_str
    sigma, steps = parse_sigma(args.sigma), parse_steps(args.steps, minimum=2)
    epochs = parse_epochs(args.epochs, MAX_EXACT_EPOCHS)
    ex = exact_tv(sigma, steps, epochs)
    tgt = Dp.Target.make(delta=Fraction(1, 2))
    rows = {}
    for b in Dp.BOUNDS:
        ev = Dp.evaluate(b, sigma, steps, epochs, tgt)
        rows[b] = (ev, ex.ratio(ev.delta_epochs))
    if args.json:
        print_json({"sigma": frac_str(sigma), "steps": steps, "epochs": epochs,
                     "exact": ex.to_json(),
                     "bounds": {b: {"delta_epochs": ev.delta_epochs.to_json(),
                                    "applicable": ev.applicable.value,
                                    "ratio_to_exact": _ratio_json(r)}
                                for b, (ev, r) in rows.items()}})
        return EXIT_OK
    print(f"sigma = {frac_str(sigma)}, {run_shape(steps, epochs)}")
    print(f"  {'bound':<22} {'delta_E (TV bound)':<36} {'valid':<10} ratio to exact")
    for b, (ev, r) in rows.items():
        print(f"  {b:<22} {ev.delta_epochs.short(8):<36} {ev.applicable.value:<10} "
              f"{_ratio_text(r)}")
    print(f"  {'exact TV (bracket)':<22} {ex.tv.short(8):<36} {'rigorous':<10} 1")
    return EXIT_OK
