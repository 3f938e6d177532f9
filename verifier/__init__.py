"""verifier: certified checks of the privacy guarantees of DP-SGD with random allocation
(van Dijk & Ertan, arXiv 2605.06259) and Poisson subsampling.

The public face is ``verifier.api`` (one module, re-exported here, loaded on first use:
``import verifier`` loads neither python-flint nor the engines)::

    import verifier
    verifier.epsilon("1.1", 20, 3, delta="1e-5")        # certified epsilon(delta), both directions
    verifier.bound("1", 10**6).delta                    # Interval enclosing delta_rhs
    verifier.steps_exact("1", "0.01").m_exact           # 1140369, with its certificate

Inputs are decimal strings, ints, Fractions, or floats read as the decimals they print as
(``1.1`` is 11/10, never its binary expansion); the run's parameters (sigma, steps per
epoch, epochs) are positional, every other argument keyword-only.
"""
__version__ = "0.1.0"

from verifier.api import WHERE as _API

__all__ = [*sorted(_API), "__version__"]


def __getattr__(name):
    if name in _API:
        import importlib
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'verifier' has no attribute {name!r}")
