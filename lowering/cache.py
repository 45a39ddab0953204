"""In-memory caches of lowered text and compiled executables.

``compile_ir(closed_ir)`` lowers an IR once (keyed by the IR's identity) and compiles each
StableHLO text once per (text, input avals, device); compiling costs 50-200 ms, a cache hit
a dictionary lookup. Both caches are bounded LRU maps. (An on-disk cache through
``runtime.serialize``/``deserialize`` is a later step.)

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.staging import make_ir
    >>> staged = make_ir(fnp.cos)(fnp.zeros(3))
    >>> compile_ir(staged.closed) is compile_ir(staged.closed)
    True
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["LRUCache", "lowered_text", "compile_ir", "clear", "info"]


class LRUCache:
    """A dict bounded to ``maxsize`` entries; the least recently used one is evicted."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._data: OrderedDict = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key):
        try:
            value = self._data[key]
        except KeyError:
            self.misses += 1
            return None
        self._data.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key, value) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()
        self.hits = self.misses = 0

    def __len__(self):
        return len(self._data)


# id(ir) -> (ir, text): the IR is kept alive with its text, so its id is never reused while
# the entry exists (IR hashes by identity but has no weak references).
_texts = LRUCache(1024)
_executables = LRUCache(512)


def lowered_text(ir) -> str:
    """``stablehlo.lower_ir(ir)``, computed once per IR object."""
    from funcarray.lowering.stablehlo import lower_ir
    from funcarray.transforms.ir import ClosedIR

    ir = ir.ir if isinstance(ir, ClosedIR) else ir
    entry = _texts.get(id(ir))
    if entry is None or entry[0] is not ir:
        entry = (ir, lower_ir(ir))
        _texts.put(id(ir), entry)
    return entry[1]


def compile_ir(ir, *, device=None):
    """The ``runtime.Executable`` of ``ir`` (an IR or ClosedIR) on ``device``, cached."""
    from funcarray.lowering import runtime
    from funcarray.transforms.ir import ClosedIR

    ir = ir.ir if isinstance(ir, ClosedIR) else ir
    device = runtime.default_device() if device is None else device
    text = lowered_text(ir)
    in_avals = tuple((v.aval.shape, v.aval.dtype) for v in (*ir.const_binders, *ir.in_binders))
    key = (text, in_avals, device.platform, device.id)
    exe = _executables.get(key)
    if exe is None:
        out_avals = [(x.aval.shape, x.aval.dtype) for x in ir.outs]
        exe = runtime.compile(text, in_avals, out_avals, device)
        _executables.put(key, exe)
    return exe


def clear() -> None:
    """Empty both caches."""
    _texts.clear()
    _executables.clear()


def info() -> dict:
    """Hit/miss counts and sizes of the executable cache."""
    return {"hits": _executables.hits, "misses": _executables.misses,
            "size": len(_executables)}
