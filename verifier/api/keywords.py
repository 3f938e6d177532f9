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
