"""The bounded cache behind the IR, lowered-text and executable caches: least recently used
entries go first, and threads can share it."""

import threading

from funcarray.base.lru_cache import LRUCache


def test_the_least_recently_used_entry_is_evicted():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    assert len(cache) == 2 and (cache.hits, cache.misses) == (3, 1)
    cache.clear()
    assert len(cache) == 0 and (cache.hits, cache.misses) == (0, 0)


def test_threads_share_a_cache_that_keeps_evicting():
    cache, errors, gets = LRUCache(4), [], 2000

    def work(seed):
        try:
            for i in range(gets):
                key = (seed * 7 + i) % 9
                if cache.get(key) is None:
                    cache.put(key, key * 10)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(cache) <= 4 and cache.hits + cache.misses == 8 * gets
    assert all(cache.get(k) in (None, k * 10) for k in range(9))


def test_pop_removes_and_returns_an_entry():
    cache = LRUCache(2)
    cache.put("a", 1)
    assert cache.pop("a") == 1 and cache.pop("a") is None and len(cache) == 0
