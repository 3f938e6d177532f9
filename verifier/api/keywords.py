"""One rule for the API's signatures: the first arguments (sigma, steps, epochs, or the
sampler's own triple) are positional; every other argument is keyword-only.  Calls written
before the rule (a delta passed fourth) still work for one release, with a
DeprecationWarning that names the keyword."""
from __future__ import annotations

import functools
import warnings


def keywords_after(n: int, *names: str):
    """Positional arguments after the first ``n`` are read as the keywords ``names`` in
    order (deprecated: a DeprecationWarning); more than that is a one-line InputError."""
    def wrap(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            if len(args) > n:
                from verifier.core.arith import InputError
                extra = args[n:]
                if len(extra) > len(names):
                    raise InputError(f"{f.__name__}() takes at most {n} positional arguments "
                                     f"(then {', '.join(names)} by keyword)")
                given = names[:len(extra)]
                for k in given:
                    if k in kwargs:
                        raise InputError(f"{f.__name__}() got {k} both by position and by keyword")
                warnings.warn(f"{f.__name__}(): pass {', '.join(given)} by keyword "
                              f"({', '.join(f'{k}=...' for k in given)}); positional use is "
                              "deprecated", DeprecationWarning, stacklevel=2)
                kwargs.update(zip(given, extra))
                args = args[:n]
            return f(*args, **kwargs)
        return call
    return wrap


def steps_per_epoch_keyword(f):
    """Random allocation's functions, whose ``steps`` is M, steps per epoch (in a
    ``verifier.Run`` and in the Poisson functions, ``steps`` is the steps in all): the
    keyword ``steps_per_epoch=`` says M in its own name; ``steps=`` by keyword still works
    for one release, with a DeprecationWarning (positional use is unchanged)."""
    @functools.wraps(f)
    def call(*args, **kwargs):
        from verifier.core.arith import InputError
        if "steps_per_epoch" in kwargs:
            if "steps" in kwargs or len(args) > 1:
                raise InputError(f"{f.__name__}() got steps per epoch twice (steps_per_epoch= "
                                 "and steps)")
            kwargs["steps"] = kwargs.pop("steps_per_epoch")
        elif "steps" in kwargs:
            warnings.warn(f"{f.__name__}(): steps= here is M, the steps per epoch; pass "
                          "steps_per_epoch= (in a verifier.Run, steps is a phase's steps in "
                          "all); steps= is deprecated", DeprecationWarning, stacklevel=2)
        return f(*args, **kwargs)
    return call


def progress_keyword(f):
    """``progress=callback`` on a long call: ``callback(stage, done, total)`` at every stage
    of the work (which sigma a search tries, which order, which lattice), whether or not
    stderr is a terminal (core.progress.listening); None or absent: nothing."""
    @functools.wraps(f)
    def call(*args, progress=None, **kwargs):
        from verifier.core.progress import listening
        with listening(progress):
            return f(*args, **kwargs)
    return call
