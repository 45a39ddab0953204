"""A bounded least-recently-used map, for the caches of staged IRs, lowered text and
compiled executables.

Example:
    >>> from funcarray.base.lru_cache import LRUCache
    >>> cache = LRUCache(2)
    >>> cache.put("a", 1); cache.put("b", 2); cache.put("c", 3)
    >>> cache.get("a") is None, cache.get("c")
    (True, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["LRUCache"]


class LRUCache:
    """A dict bounded to ``maxsize`` entries; the least recently used one is evicted. Safe to
    share between threads: a lookup's move to the end and an eviction cannot interleave."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key):
        with self._lock:
            try:
                value = self._data[key]
            except KeyError:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def pop(self, key, default=None):
        """Remove ``key`` and return its value (``default`` when absent)."""
        with self._lock:
            return self._data.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def __len__(self):
        return len(self._data)
