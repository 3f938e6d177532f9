"""A bounded, thread-safe cache of engine objects (composed laws, profiles), keyed on the
exact inputs (Fractions and ints; the float floor is a free parameter of the engine and part
of the key).  Least recently used entries are dropped beyond ``size``; computing a missing
entry happens outside the lock (two threads may both compute it; both results are valid
and equal)."""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

_CACHES: "weakref.WeakSet[EngineCache]" = weakref.WeakSet()


class EngineCache:
    def __init__(self, size: int):
        self.size = size
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        _CACHES.add(self)

    def get(self, key, make):
        """The entry for ``key``, made by ``make()`` when missing."""
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        value = make()
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._d.clear()

    def __len__(self) -> int:
        return len(self._d)


def release_all() -> int:
    """Empty every engine cache (numerics.memory.reserve, at the memory limit: engines
    cached for earlier questions hold memory the next allocation counts; an engine in use
    stays alive through its caller's references); returns the entries dropped."""
    dropped = 0
    for cache in list(_CACHES):
        dropped += len(cache)
        cache.clear()
    return dropped
