"""Progress on long work: one line on stderr, rewritten in place, when stderr is
a terminal and the command does not print JSON; nothing otherwise (pipes, files, CI, tests
and --json output stay clean).  A stage is "what, how far": ``report("auditing 2605.06259",
12, 57)``.  ``quiet()`` turns it off for the rest of the process (--json)."""
from __future__ import annotations

import contextlib
import sys
import time

_STATE = {"on": None, "shown": False, "last": 0.0}
_LISTENERS: list = []          # callbacks (stage, done, total) of the API's progress=


def _enabled() -> bool:
    if _STATE["on"] is None:
        try:
            _STATE["on"] = sys.stderr.isatty()
        except (AttributeError, ValueError):
            _STATE["on"] = False
    return _STATE["on"]


def quiet():
    """No progress lines from here on (--json, or a caller that prints its own)."""
    _STATE["on"] = False


@contextlib.contextmanager
def listening(callback):
    """Within the block, ``callback(stage, done, total)`` is called at every stage of the
    work (the API's ``progress=`` argument; None: nothing), whether or not stderr is a
    terminal.  A callback that raises stops the work (its exception propagates)."""
    if callback is None:
        yield
        return
    if not callable(callback):
        from verifier.core.arith import InputError
        raise InputError(f"progress must be a callable (stage, done, total), got "
                         f"{type(callback).__name__}")
    _LISTENERS.append(callback)
    try:
        yield
    finally:
        _LISTENERS.remove(callback)


def report(stage: str, done: int | None = None, total: int | None = None):
    """Show ``stage`` (and done/total) on stderr's last line, at most every 0.1 s; and tell
    every listener (``listening``)."""
    for callback in tuple(_LISTENERS):
        callback(stage, done, total)
    if not _enabled():
        return
    now = time.monotonic()
    if now - _STATE["last"] < 0.1 and not (total and done == total):
        return
    _STATE["last"] = now
    text = stage if done is None else (f"{stage}: {done}/{total}" if total else f"{stage}: {done}")
    sys.stderr.write("\r\x1b[2K" + text[:160])
    sys.stderr.flush()
    _STATE["shown"] = True


def done():
    """Clear the progress line (before the command's own output)."""
    if _STATE["shown"]:
        sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()
        _STATE["shown"] = False


class ClearingStream:
    """stdout that clears the progress line before the command's own output (so the two
    never share a line on the terminal)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        done()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)
