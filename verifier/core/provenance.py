"""The provenance every report and certificate records: the verifier's and python-flint's
versions, plus named packages.  The one version function (audit, proof checks, certificates)."""
from __future__ import annotations

from verifier import __version__


def versions(*extra: str) -> dict:
    """The verifier and python-flint, plus the named packages (their installed versions;
    'not installed' if absent)."""
    from importlib.metadata import PackageNotFoundError, version

    import flint

    out = {"verifier": __version__, "python-flint": flint.__version__}
    for name in extra:
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover
            out[name] = "not installed"
    return out
