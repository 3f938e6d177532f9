"""Memory before it is spent: every engine announces its largest allocation (lists of Arb
balls, one per lattice point of a DFT) before making it, through ``reserve``.  A run that
would need more than ``WARN_BYTES`` is announced once on stderr (the CLI) or as a
``MemoryWarning`` (the API); one that would need more than the limit is refused in one
line, before anything is allocated (``MemoryLimitError``, an InputError: exit 2), once the
engine caches (numerics.cache) have let go of what they held and the memory was measured
again.

The limit: ``VERIFIER_MEMORY_LIMIT`` ("3GiB", "2.5GB", "800MB", bytes), else three
quarters of this machine's physical memory; a sweep's workers set it to their own limit.
The estimates come from measurement (docs/BENCHMARKS.md, "Memory"; tests/test_memory.py
checks each engine's peak against them): one acb ball held in a Python list costs
``ball_bytes(prec)`` (139 bytes up to 128 bits), and each engine keeps a known number of
such balls per point of its longest DFT alive at its peak (``PER_POINT``).
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import warnings

from verifier.core.arith import InputError
from verifier.numerics.cache import release_all

WARN_BYTES = 2 * 1024 ** 3       # announce runs above 2 GiB
REFINE_BYTES = 4 * 1024 ** 3     # a refined lattice step's budget where no limit was set
BASELINE = 120 * 1024 ** 2       # the interpreter, flint and numpy (where /proc cannot say)
# balls alive per point of the longest DFT at each engine's peak (measured, rounded up: the
# estimates are upper estimates, 1.2-2.4 times the peaks measured above 100 MB,
# bench/bench_memory.py): the profile engine's body (label and spread transforms, their
# powers), the exact-TV engine (two transforms and their inverse), the exact TV over E > 1
# epochs (three transforms, two powers: 2.9 GB measured at M = 1e9, E = 10), the E-fold
# composition; the profile engine's body read off its sparse spectra (bounds/profile/bandlaw.py:
# two forward transforms, no inverse of full length; 1.7 per point measured at sigma 0.5,
# M 1e4, E 100, level 8, 1310720 points: 312 MB above the start, the composition included;
# level 16 with windows of 6291456 points, 8388608 counted (body.windows): a 1.56 GB peak)
# level 1 on the band path (its edges' coarse DFTs in floats since 2026-12-07): 1 per point
# (sigma 2, M 3e6, E 1, delta 1e-10: 75 MB measured, 192 MB estimated; 2 had put it at 338)
PER_POINT = {"profile": 13, "profile-band": 2, "profile-band-1": 1, "exact-tv": 8,
             "exact-tv-epochs": 11, "compose": 6, "compose-sparse": 3}   # sparse: per point
                                                                          # of its coarse DFT
ENV = "VERIFIER_MEMORY_LIMIT"
_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
_HOOK = {"notify": None, "said": set(), "limit": None, "dry": False}


class MemoryWarning(UserWarning):
    """A run that will need more than WARN_BYTES of memory."""


class MemoryLimitError(InputError):
    """A run that would need more memory than the limit: refused before allocating."""


class DryRun(Exception):
    """Raised by ``reserve`` in a dry run (``dry_run``): the estimate, nothing allocated."""

    def __init__(self, need: int, points: int, what: str):
        super().__init__(need)
        self.need, self.points, self.what = need, points, what


def parse_size(text) -> int:
    """Bytes from "3GiB", "2.5GB", "800MB", "1000000" (one-line InputError otherwise)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS or float(m.group(1)) <= 0:
        raise InputError(f"memory size {str(text)[:40]!r} is not a size (write for example 3GiB, "
                         "2.5GB, 800MB or a number of bytes)")
    from decimal import Decimal
    n = int(Decimal(m.group(1)) * _UNITS[unit])      # exact: a 400-digit size is no float
    if n > MAX_SIZE:
        raise InputError(f"memory size {str(text)[:40]!r} is more than 1 PiB; write the "
                         "memory this machine or worker has (for example 3GiB)")
    if n < 1:
        raise InputError(f"memory size {str(text)[:40]!r} is less than one byte")
    return n


MAX_SIZE = 2 ** 50              # 1 PiB: beyond any machine, and far inside an int64


def physical() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


@contextlib.contextmanager
def limited(nbytes: int | None):
    """The limit for the calls inside (a sweep's cell: its worker's share)."""
    old = _HOOK["limit"]
    _HOOK["limit"] = nbytes
    try:
        yield
    finally:
        _HOOK["limit"] = old


@contextlib.contextmanager
def dry_run():
    """Inside, the first ``reserve`` raises DryRun with its estimate (from a fresh
    process's BASELINE, not this one's memory): what a run would need, at the cost of its
    planning only (a sweep's check before anything runs)."""
    old = _HOOK["dry"]
    _HOOK["dry"] = True
    try:
        yield
    finally:
        _HOOK["dry"] = old


def limit() -> int | None:
    """The memory limit in bytes (None: unknown, nothing refused)."""
    if _HOOK["limit"] is not None:
        return _HOOK["limit"]
    raw = os.environ.get(ENV)
    if raw:
        try:
            return parse_size(raw)
        except InputError as e:
            raise InputError(f"{ENV}: {e}") from None
    ram = physical()
    return None if ram is None else ram * 3 // 4


def refining():
    """The limit for a refined lattice step (the Poisson lattice's and a run's: a narrower
    bracket, the first step's already certified): REFINE_BYTES, or less, where neither
    VERIFIER_MEMORY_LIMIT nor a worker's share was set; the set limit otherwise."""
    explicit = _HOOK["limit"] is not None or os.environ.get(ENV)
    cap = limit()
    return limited(cap if explicit or cap is None else min(cap, REFINE_BYTES))


def ball_bytes(prec: int) -> int:
    """Bytes of one acb ball in a list at ``prec`` bits (measured with python-flint 0.9:
    139 up to 128 bits, where both midpoints are inline; beyond, 16 bytes per 64-bit limb
    of the two midpoints plus the allocator's overhead)."""
    return 139 if prec <= 128 else 171 + 16 * math.ceil(prec / 64)


def resident() -> int:
    """This process's resident memory now (Linux /proc; else BASELINE)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return BASELINE


def estimate(points: int, engine: str, prec: int, now: int | None = None) -> int:
    """Estimated peak bytes of ``engine`` with a longest DFT of ``points`` at ``prec``, on
    top of ``now`` bytes already held (default: this process's resident memory)."""
    return (resident() if now is None else now) + points * PER_POINT[engine] * ball_bytes(prec)


def size_str(n: int) -> str:
    return f"{n / 1024 ** 3:.1f} GiB" if n >= 1024 ** 3 else f"{n / 1024 ** 2:.0f} MiB"


def on_warning(notify):
    """Where announcements go (the CLI: one stderr line); None: warnings.warn."""
    _HOOK["notify"] = notify


def reserve(points: int, engine: str, what: str, prec: int | None = None,
            of: str = "a DFT", less: str = "fewer steps per epoch") -> int:
    """Announce or refuse the allocation of ``engine``'s longest DFT (``points`` long) for
    ``what`` (a few words naming the run; ``of``: what the points are; ``less``: the smaller
    question in the sampler's own words); returns the estimate in bytes."""
    if prec is None:
        from flint import ctx
        prec = ctx.prec
    if _HOOK["dry"]:
        raise DryRun(estimate(points, engine, prec, now=BASELINE), points, what)
    need, cap = estimate(points, engine, prec), limit()
    if cap is not None and need > cap and release_all():
        import gc                        # cached engines of earlier questions let go first
        gc.collect()                     # (a claims audit's narrower requests were refused
        need = estimate(points, engine, prec)     # on the memory its coarser ones held)
    if cap is not None and need > cap:
        raise MemoryLimitError(
            f"{what} would need up to about {size_str(need)} of memory ({of} of {points} points at "
            f"{prec} bits), more than the limit {size_str(cap)}; set {ENV} higher on a larger "
            f"machine, or ask for less (a larger delta, {less}, a wider --rel-width)")
    if need > WARN_BYTES and (what, points) not in _HOOK["said"]:
        _HOOK["said"].add((what, points))
        msg = (f"{what} will need up to about {size_str(need)} of memory ({of} of {points} "
               f"points at {prec} bits)")
        if _HOOK["notify"] is not None:
            _HOOK["notify"](msg)
        else:
            warnings.warn(msg, MemoryWarning, stacklevel=2)
    return need
