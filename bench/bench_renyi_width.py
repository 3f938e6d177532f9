"""Benchmark: real-order Rényi divergences of random allocation on request, how the time grows
with the requested relative width (both directions, every order asked).

    python bench/bench_renyi_width.py        # five configurations x five requests (about 3 min)

Each row: sigma, M steps per epoch, the orders, the requested relative width ("default": the
profile-integral route alone), the widest relative width reached over the orders and both
directions, the seconds (cold), and the route: orders up to 64 go through the Laplace
transform of one lognormal (verifier/bounds/laplace.py) when a width is requested, beside the
privacy-profile integral (its grid refined only where the Laplace brackets do not suffice).
"""
import time

import verifier

CONFIGS = [("1", 10, "2.5,3.14159"), ("0.5", 2, "1.5,2.5"), ("2", 100, "3.5,7.25"),
           ("0.8", 1000, "2.5,5.5"), ("4", 10000, "5.5,20.5")]
REQUESTS = [None, "1e-4", "1e-6", "1e-8", "1e-9"]


def main():
    print(f"{'sigma':>6} {'M':>6} {'orders':>14} | {'requested':>9} {'reached':>9} {'seconds':>8}")
    for s, M, orders in CONFIGS:
        for w in REQUESTS:
            t = time.perf_counter()
            c = verifier.rdp(s, M, 1, orders=orders, rel_width=w)
            dt = time.perf_counter() - t
            got = max(float((iv.upper - iv.lower) / iv.lower) for o in c.orders
                      for iv in (o.remove, o.add))
            print(f"{s:>6} {M:>6} {orders:>14} | {w or 'default':>9} {got:>9.2e} {dt:>8.1f}"
                  + (f"  ({c.info['refinement_limit']})" if "refinement_limit" in c.info else ""),
                  flush=True)


if __name__ == "__main__":
    main()
