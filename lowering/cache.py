"""In-memory caches of lowered text and compiled executables.

``compile_ir(closed_ir)`` lowers an IR once (keyed by the IR's identity) and compiles each
StableHLO text once per (text, input avals, device); compiling costs 50-200 ms, a cache hit
a dictionary lookup. Both caches are bounded LRU maps. The persistent cache (off by default;
``funcarray.config.compilation_cache_dir`` turns it on) stores serialized executables on disk,
one file per executable, named by a hash of the text, the signature, the compile options, the
jaxlib version and the device kind; a corrupt or stale file is a miss.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.transforms.staging import make_ir
    >>> staged = make_ir(fnp.cos)(fnp.zeros(3))
    >>> compile_ir(staged.closed) is compile_ir(staged.closed)
    True
"""

from __future__ import annotations

import os
import time

from funcarray.base.lru_cache import LRUCache

__all__ = ["lowered_text", "lowered_module", "compile_ir", "compile_count",
           "persistent_path", "clear", "info"]


# id(ir) -> (ir, text): the IR is kept alive with its text, so its id is never reused while
# the entry exists (IR hashes by identity but has no weak references).
_texts = LRUCache(1024)
_executables = LRUCache(512)


def lowered_text(ir, donated: tuple = (), platform: str | None = None,
                 shardings=None) -> str:
    """``stablehlo.lower_ir(ir, donated=donated, platform=platform)`` (with ``shardings``:
    see ``lower_module``), computed once per IR object, platform and shardings."""
    return lowered_module(ir, donated, platform, shardings)[0]


def lowered_module(ir, donated: tuple = (), platform: str | None = None,
                   shardings=None) -> tuple:
    """``stablehlo.lower_module``'s ``(text, host_callbacks, mesh)``, computed once per IR
    object, platform and shardings."""
    from funcarray.lowering.stablehlo import lower_module
    from funcarray.transforms.ir import ClosedIR

    ir = ir.ir if isinstance(ir, ClosedIR) else ir
    key = (id(ir), donated, platform, shardings)
    entry = _texts.get(key)
    if entry is None or entry[0] is not ir:
        entry = (ir, lower_module(ir, donated=donated, platform=platform,
                                  shardings=shardings))
        _texts.put(key, entry)
    return entry[1]


def compile_ir(ir, *, device=None, donated: tuple = (), compiler_options: tuple = (),
               shardings=None):
    """The ``runtime.Executable`` of ``ir`` (an IR or ClosedIR) on ``device``, cached.

    ``shardings`` (``(in_shardings, out_shardings)``, see ``stablehlo.lower_module``), or a
    sharding constraint inside ``ir``, make it an SPMD executable over the devices of their
    mesh (``runtime.compile_spmd``; ``device`` is then unused). SPMD executables are kept in
    memory only.

    With ``funcarray.config.compilation_cache_dir`` set, a miss in memory looks on disk
    first, and executables that took at least ``persistent_cache_min_compile_time_secs`` to
    compile are written there (see ``persistent_path``). ``donated`` lists the positions of
    arguments whose buffers XLA may reuse for outputs (they are deleted by the call);
    ``compiler_options`` XLA options as ``runtime.check_compiler_options`` pairs.
    """
    from funcarray.lowering import runtime
    from funcarray.transforms.ir import ClosedIR

    ir = ir.ir if isinstance(ir, ClosedIR) else ir
    device = runtime.default_device() if device is None else device
    text, callbacks, mesh = lowered_module(ir, donated, device.platform, shardings)
    in_avals = tuple((v.aval.shape, v.aval.dtype) for v in (*ir.const_binders, *ir.in_binders))
    # (the callbacks themselves are part of the key: two modules can differ only in the
    # Python function a callback index stands for)
    where = (device.platform, device.id) if mesh is None else mesh
    key = (text, in_avals, where, callbacks, compiler_options)
    exe = _executables.get(key)
    if exe is None:
        out_avals = [(x.aval.shape, x.aval.dtype) for x in ir.outs]
        if mesh is None:
            exe = _compile_or_load(text, in_avals, out_avals, device, callbacks,
                                   compiler_options)
        else:
            exe = runtime.compile_spmd(text, in_avals, out_avals, mesh, callbacks,
                                       compiler_options, shardings)
            _compiles[0] += 1
        _executables.put(key, exe)
    return exe


_disk_stats = {"hits": 0, "misses": 0, "writes": 0, "errors": 0}
_compiles = [0]  # XLA compilations so far (persistent-cache loads do not count)


def compile_count() -> int:
    """How many executables XLA has compiled in this process (for ``count_compiles``)."""
    return _compiles[0]


def _compile_or_load(text, in_avals, out_avals, device, callbacks=(), compiler_options=()):
    from funcarray.base.config import config
    from funcarray.lowering import runtime

    # A module that calls Python functions back is never written to disk: the functions
    # live in this process only.
    directory = None if callbacks else config.compilation_cache_dir
    path = (persistent_path(directory, text, in_avals, out_avals, device, compiler_options)
            if directory else None)
    if path is not None:
        exe = _load(path, device)
        if exe is not None:
            _disk_stats["hits"] += 1
            return exe
        _disk_stats["misses"] += 1
    start = time.perf_counter()
    exe = runtime.compile(text, in_avals, out_avals, device, host_callbacks=callbacks,
                          compiler_options=compiler_options)
    _compiles[0] += 1
    elapsed = time.perf_counter() - start
    if path is not None and elapsed >= config.persistent_cache_min_compile_time_secs:
        _store(path, exe)
    return exe


def persistent_path(directory: str, text: str, in_avals, out_avals, device,
                    compiler_options: tuple = ()) -> str:
    """The file holding this executable in the persistent cache.

    Its name hashes everything the executable depends on: the StableHLO text, the signature,
    the compile options (XLA's defaults plus ``jit``'s ``compiler_options``), the jaxlib
    version and the device's platform, platform version and kind.
    """
    import hashlib

    from funcarray.lowering import runtime

    options = repr(compiler_options) if compiler_options else "default-compile-options"
    parts = [text, repr(in_avals), repr(list(out_avals)), options,
             runtime.jaxlib_version(), device.platform, device.client.platform_version,
             device.device_kind]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    return os.path.join(directory, f"{digest}.fexe")


def _load(path: str, device):
    """The executable stored at ``path``, or None: a missing, corrupt or stale file is a
    miss, never an error."""
    from funcarray.lowering import runtime

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        return runtime.deserialize(data, device)
    except Exception:  # noqa: BLE001 (any unreadable entry is a miss; it is rewritten)
        _disk_stats["errors"] += 1
        return None


def _store(path: str, exe) -> None:
    """Write ``exe`` atomically (a reader never sees half a file); failures are ignored."""
    import tempfile

    from funcarray.lowering import runtime

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = runtime.serialize(exe)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        _disk_stats["writes"] += 1
    except Exception:  # noqa: BLE001 (a cache that cannot be written is just not used)
        _disk_stats["errors"] += 1


def clear() -> None:
    """Empty both caches."""
    _texts.clear()
    _executables.clear()


def info() -> dict:
    """Hit/miss counts and sizes of the executable cache."""
    return {"hits": _executables.hits, "misses": _executables.misses,
            "size": len(_executables),
            **{f"disk_{k}": v for k, v in _disk_stats.items()}}
