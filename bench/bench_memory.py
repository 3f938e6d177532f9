"""Benchmark: the engines' memory estimates (verifier.numerics.memory) against the peaks
measured, each configuration in a fresh process (its VmHWM).

Run on demand:
    python bench/bench_memory.py

Prints per configuration the longest DFT, the estimate announced before allocating, the
peak resident memory and their ratio (an estimate must be >= the peak: an upper estimate;
tests/test_memory.py checks three of these rows).
"""
import json
import subprocess
import sys

PROBE = r"""
import json, sys, time
from fractions import Fraction as F
import verifier
from verifier.numerics import memory
def hwm():      # this process's own peak (VmHWM: ru_maxrss would count the parent's
    with open("/proc/self/status") as f:    # memory copied at fork, before exec)
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) * 1024
seen = []
orig = memory.reserve
def spy(points, engine, what, prec=None, **kw):
    need = orig(points, engine, what, prec, **kw)
    seen.append((need, points))
    return need
for mod in ("verifier.bounds.profile.body", "verifier.bounds.exact_tv.one_epoch",
            "verifier.numerics.compose"):
    __import__(mod)
    setattr(sys.modules[mod], "reserve", spy)
kind, args = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
if kind == "tv":
    verifier.exact_tv(F(args[0]), int(args[1]), int(args[2]))
else:
    verifier.epsilon(F(args[0]), int(args[1]), int(args[2]), delta=F(args[3]),
                     **({"rel_width": F(args[4])} if len(args) > 4 else {}))
need, points = max(seen)
print(json.dumps({"estimate": need, "points": points, "seconds": time.perf_counter() - t,
                  "peak": hwm()}))
"""

CONFIGS = [("tv", "1", "1000000000", "1"), ("tv", "1", "100000000", "1"),
           ("tv", "1", "10000", "10"), ("tv", "1", "100000000", "10"),
           ("eps", "2", "10000000", "1", "1e-10"), ("eps", "1", "1000", "10", "1e-5"),
           ("eps", "0.5", "10000", "100", "1e-10", "1e-5"),
           ("eps", "0.8", "1000", "10", "1e-5", "1e-6"),
           ("eps", "1", "500", "10", "1e-8", "1e-5"), ("eps", "0.5", "500", "10", "1e-8", "1e-5"),
           ("eps", "1", "20", "100", "1e-8", "1e-5")]


def main():
    print(f"{'engine':6} {'sigma':>5} {'M':>10} {'E':>4} {'delta':>6} {'rel_width':>9} | "
          f"{'DFT':>8} {'estimate':>9} {'peak':>8} {'ratio':>5} {'time':>6}")
    for c in CONFIGS:
        r = subprocess.run([sys.executable, "-c", PROBE, *c], capture_output=True, text=True)
        g = json.loads(r.stdout)
        kind, s, M, E = c[:4]
        d = c[4] if len(c) > 4 else "-"
        w = c[5] if len(c) > 5 else "-"
        mb = 1024 ** 2
        print(f"{kind:6} {s:>5} {M:>10} {E:>4} {d:>6} {w:>9} | {g['points']:>8} "
              f"{g['estimate'] / mb:>6.0f} MB {g['peak'] / mb:>5.0f} MB {g['estimate'] / g['peak']:>5.2f} "
              f"{g['seconds']:>5.1f}s", flush=True)


if __name__ == "__main__":
    main()
