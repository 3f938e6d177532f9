"""The command line (entry point ``verifier.cli:main``)."""
from verifier.cli.commands import main

__all__ = ["main"]
