"""verifier epsilon and verifier delta: the certified privacy profile of the random-allocation
pair (docs/THEORY.md section 9; issue #13)."""
from __future__ import annotations

from verifier.core.arith import decimal_str, frac_str
from verifier.cli.common import EXIT_INCONCLUSIVE, EXIT_OK, _print_json, run_shape


def _inputs(args):
    from verifier.bounds.profile import parse_pair
    return parse_pair(args.sigma, args.steps, args.epochs)


def _engine_line(info: dict, seconds: float) -> str:
    return (f"  lattice step h = {frac_str(info['h'])}, {info['cells']} cells, DFT length "
            f"{info['N']}, {seconds:.2f} s; rigorous (one-sided steps, explicit tests, Arb balls)")


def _width(iv) -> str:
    if iv.lower > 0:
        return "relative width <= " + decimal_str((iv.upper - iv.lower) / iv.lower * 100, 3, "up") + "%"
    return "absolute width <= " + decimal_str(iv.upper - iv.lower, 3, "up")


def cmd_epsilon(args) -> int:
    from verifier.api_profile import epsilon
    sigma, steps, epochs = _inputs(args)
    r = epsilon(sigma, steps, epochs, args.delta)
    if args.json:
        _print_json(r.to_json())
        return EXIT_OK if r.bracketed else EXIT_INCONCLUSIVE
    print(f"epsilon(delta) of random allocation, sigma = {frac_str(sigma)}, "
          f"{run_shape(steps, epochs)}, delta = {frac_str(r.delta)}")
    if not r.bracketed:
        print("  inconclusive: no epsilon <= 60 is certified to meet delta (epsilon may be larger "
              "than 60, the engine's range)")
        return EXIT_INCONCLUSIVE
    print(f"  epsilon   in {r.epsilon.short(8)}   ({_width(r.epsilon)})")
    for w in ("remove", "add"):
        iv = getattr(r, w)
        print(f"  {w:<9} in {iv.short(8)}")
    print(f"  larger direction: {r.larger}" + (" (certified)" if r.larger != "undecided" else ""))
    print(_engine_line(r.info, r.seconds))
    return EXIT_OK


def cmd_delta(args) -> int:
    from verifier.api_profile import delta
    sigma, steps, epochs = _inputs(args)
    r = delta(sigma, steps, epochs, args.epsilon)
    if args.json:
        _print_json(r.to_json())
        return EXIT_OK
    print(f"delta(epsilon) of random allocation, sigma = {frac_str(sigma)}, "
          f"{run_shape(steps, epochs)}, epsilon = {frac_str(r.epsilon)}")
    print(f"  delta     in {r.delta.short(8)}   ({_width(r.delta)})")
    for w in ("remove", "add"):
        print(f"  {w:<9} in {getattr(r, w).short(8)}")
    print(f"  larger direction: {r.larger}" + (" (certified)" if r.larger != "undecided" else ""))
    print(_engine_line(r.info, r.seconds))
    return EXIT_OK
