"""Checkpoints of arrays split across the processes of a job: one file per process with the
blocks its devices hold, and an index, written by process 0, saying where each block of
each array is.

``save`` gathers an array whose shards this process can all read; in a job of several
processes an array split across them cannot be gathered in one process, so every process
writes ``<stem>.process<k>-of-<n><suffix>`` (its own blocks, one replica of each, under
the keys ``<name>/<block>``) and process 0 writes ``<path>.index.json`` once every process
is done (the processes meet through the coordination service's key-value store). ``load``
of ``path`` reads the index when ``path`` itself does not exist; loaded onto a sharding,
each process reads only the blocks that meet its own devices' parts (``BlockReader``).
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from typing import Any

import numpy as np

from funcarray.base.sharding import NamedSharding
from funcarray.lowering import runtime
from funcarray.lowering.devices import local_devices, process_count, process_index

__all__ = ["needs_per_process", "save_per_process", "index_path", "read_index",
           "BlockReader"]

_FORMAT = "funcarray.per-process"
# The key-value store refuses to set a key twice, so each save's keys carry its number among
# this process's per-process saves (every process of a job saves in the same order).
_saves = itertools.count()
_saves_lock = threading.Lock()
# How long process 0 waits for the others to finish their files (milliseconds).
_WAIT_MS = 600_000


def index_path(path: str) -> str:
    return path + ".index.json"


def _is_split_across_processes(leaf: Any) -> bool:
    entry = getattr(leaf, "_buf", None)
    if entry is None or type(entry[0]) is not NamedSharding:
        return False
    mine = set(local_devices(backend=entry[0].mesh.flat_devices[0].platform))
    return not set(entry[0].device_set) <= mine


def needs_per_process(leaves: list) -> bool:
    """Whether some leaf is split over devices of other processes (not gatherable here)."""
    return process_count() > 1 and any(_is_split_across_processes(x) for x in leaves)


def _file_name(path: str, k: int, n: int) -> str:
    stem, suffix = os.path.splitext(path)
    return f"{stem}.process{k}-of-{n}{suffix}"


def _box(index: tuple, shape: tuple) -> list:
    index = tuple(index) + (slice(None),) * (len(shape) - len(index))
    return [list(s.indices(n)[:2]) for s, n in zip(index, shape, strict=True)]


def _owner(device, platform: str, count: int) -> int:
    for k in range(count):
        if device in set(local_devices(k, backend=platform)):
            return k
    raise ValueError(f"no process has {device}")


def save_per_process(op: str, path: str, names: list, leaves: list, to_numpy, write,
                     metadata: dict | None) -> None:
    """Write this process's file (``write(file_name, {key: array}, metadata)``) and, on
    process 0, the index. ``to_numpy`` converts a leaf that is not split across processes
    (process 0 stores it whole)."""
    here, count = process_index(), process_count()
    blocks: dict = {}
    entries: dict = {}
    for name, leaf in zip(names, leaves, strict=True):
        if not _is_split_across_processes(leaf):
            array = to_numpy(op, name, leaf)
            key = f"{name}/0"
            if here == 0:
                blocks[key] = array
            entries[name] = {"shape": list(array.shape), "dtype": array.dtype.name,
                             "blocks": [{"file": os.path.basename(_file_name(path, 0, count)),
                                         "key": key, "box": _box((), array.shape)}]}
            continue
        sharding = leaf._buf[0]
        platform = sharding.mesh.flat_devices[0].platform
        shape = tuple(leaf.shape)
        local = {s.device: s for s in leaf.addressable_shards}
        listed = []
        for j, (device, index, replica) in enumerate(sharding.shard_layout(shape)):
            if replica != 0:  # one copy of each block
                continue
            owner = _owner(device, platform, count)
            key = f"{name}/{j}"
            listed.append({"file": os.path.basename(_file_name(path, owner, count)),
                           "key": key, "box": _box(index, shape)})
            if owner == here:
                blocks[key] = np.ascontiguousarray(np.asarray(local[device].data))
        entries[name] = {"shape": list(shape), "dtype": np.dtype(leaf.dtype).name,
                         "blocks": listed}
    write(_file_name(path, here, count), blocks, metadata)
    with _saves_lock:
        number = next(_saves)
    done = f"funcarray.io/save{number}/{os.path.abspath(path)}/{{}}"
    runtime.key_value_set(done.format(here), "written")
    if here == 0:
        for k in range(1, count):
            runtime.key_value_get(done.format(k), _WAIT_MS)
        text = json.dumps({"format": _FORMAT, "processes": count, "metadata": metadata or {},
                           "arrays": entries}, indent=1)
        with open(index_path(path), "w") as file:
            file.write(text)
    # every process returns once the index exists, so a load right after save finds it
    runtime.key_value_set(done.format(here) + "/seen", "1")
    if here != 0:
        runtime.key_value_get(done.format(0) + "/seen", _WAIT_MS)


def read_index(op: str, path: str) -> dict:
    with open(index_path(path)) as file:
        index = json.load(file)
    if index.get("format") != _FORMAT:
        raise ValueError(f"{op}: {index_path(path)!r} is not a funcarray per-process index")
    return index


class BlockReader:
    """The arrays of a per-process checkpoint, read from its files lazily: a whole array
    (``whole``), or only the part of one that a box of its index covers (``part``), reading
    just the blocks that meet it. ``read_key(file_path, key)`` reads one block; each block is
    read at most once."""

    def __init__(self, index: dict, folder: str, read_key):
        self._arrays, self._folder, self._read_key = index["arrays"], folder, read_key
        self._blocks: dict = {}
        self._lock = threading.Lock()
        self.specs = {name: (tuple(entry["shape"]), _dtype(entry["dtype"]))
                      for name, entry in self._arrays.items()}

    def _block(self, block: dict) -> np.ndarray:
        where = (block["file"], block["key"])
        with self._lock:
            if where not in self._blocks:
                self._blocks[where] = self._read_key(os.path.join(self._folder, block["file"]),
                                                     block["key"])
            return self._blocks[where]

    def part(self, name: str, index: tuple) -> np.ndarray:
        """The part of array ``name`` at ``index`` (a tuple of slices, as a sharding's
        ``devices_indices_map`` gives: one per leading dimension)."""
        shape, dtype = self.specs[name]
        want = _box(index, shape)
        out = np.empty(tuple(b - a for a, b in want), dtype=dtype)
        for block in self._arrays[name]["blocks"]:
            meet = [(max(a, c), min(b, d)) for (a, b), (c, d) in zip(want, block["box"])]
            if any(lo >= hi for lo, hi in meet):
                continue
            source = tuple(slice(lo - c, hi - c) for (lo, hi), (c, _) in zip(meet, block["box"]))
            target = tuple(slice(lo - a, hi - a) for (lo, hi), (a, _) in zip(meet, want))
            out[target] = self._block(block)[source]
        return out

    def whole(self, name: str) -> np.ndarray:
        return self.part(name, ())


def _dtype(name: str) -> np.dtype:
    from funcarray.base import dtypes

    return np.dtype(getattr(dtypes, name, name))
