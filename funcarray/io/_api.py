"""``save`` and ``load``: parameter pytrees to and from safetensors and ``.npz`` files."""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray.base import dtypes
from funcarray.base import pytrees as _tree
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.io import _npz, _per_process, _safetensors
from funcarray.io._names import leaf_names, nest
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from io import BufferedReader
    from typing import Any, BinaryIO, Literal, TypeVar

    _Tree = TypeVar("_Tree")
    # A file name (a str or an os.PathLike such as pathlib.Path).
    _Path = str | os.PathLike[str]

__all__ = ["save", "load", "load_metadata"]

_FORMATS = {".safetensors": "safetensors", ".npz": "npz"}
# How many mismatches one error lists before summarising the rest.
_MAX_LISTED = 20


def _format(op: str, path: str) -> str:
    for suffix, name in _FORMATS.items():
        if path.endswith(suffix):
            return name
    raise op_value_error(op, f"cannot tell the format of {path!r} from its name: use a "
                             "'.safetensors' or '.npz' file name")


def _to_numpy(op: str, name: str, leaf: Any) -> np.ndarray:
    if isinstance(leaf, Tracer):
        raise op_type_error(op, f"key {name!r} is a traced value (save was called inside jit, "
                                "grad or vmap); save concrete arrays, outside transformed "
                                "functions")
    if isinstance(leaf, np.ndarray | np.generic):
        array = np.asarray(leaf)
    else:
        from funcarray import numpy as fnp  # late: funcarray.numpy imports much of the package
        try:
            array = np.asarray(fnp.asarray(leaf))
        except TypeError:
            raise op_type_error(op, f"key {name!r} is a {type(leaf).__name__}, not an array "
                                    "or a number") from None
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if array.dtype not in dtypes.supported_dtypes:
        raise op_type_error(op, f"key {name!r} has dtype {array.dtype}, which funcarray does "
                                "not support")
    # (not np.ascontiguousarray, which turns a 0-d array into a 1-d one)
    return array if array.flags.c_contiguous else array.copy(order="C")


def _atomic_write(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Write through a temporary file in the same folder, then rename it over ``path``: a
    crash or an error mid-write leaves the old file (or none), never a partial one."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                     dir=folder)
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _new_file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _new_file_mode(path: str) -> int:
    """Keep an existing file's permissions; a new file gets the usual ones (mkstemp's are
    owner-only)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _check_metadata(op: str, metadata: object) -> dict[str, str] | None:
    if metadata is None:
        return None
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise op_type_error(op, f"metadata must be a dict of str to str, got {metadata!r}")
    return metadata


@api_boundary
def save(path: _Path, tree: Any, *, metadata: Mapping[str, str] | None = None) -> None:
    """Save a pytree of arrays to ``path``, a ``.safetensors`` or ``.npz`` file.

    Each leaf is stored under its dotted path (``{"layers": [{"w": w}]}`` stores
    ``"layers.0.w"``, the way PyTorch names a ``state_dict``; a ``funcarray.nn.Module`` is
    stored under the names of ``nn.state_dict``), with its dtype and shape
    (bfloat16 and float8 included). ``metadata`` is an optional dict of strings kept in the
    file. The file is written to a temporary file first and renamed into place, so it is
    never left half written. Safetensors has no code for complex128 (use ``.npz``); ``.npz``
    has none for bfloat16 and float8, so those are stored there as their bits (``uint16`` /
    ``uint8``) with a ``"__funcarray__"`` record of the real dtypes that ``load`` applies.

    Arrays split over a mesh are gathered into whole tensors. In a job of several processes
    (``funcarray.distributed``) an array split across processes cannot be gathered: every
    process must then call ``save`` with the same ``path``; each writes
    ``<stem>.process<k>-of-<n><suffix>`` with the blocks its devices hold, and process 0
    ``path + ".index.json"`` once all are written; ``load(path)`` reads them back.

    Example:
        >>> import os, tempfile
        >>> import funcarray.io as fio, funcarray.numpy as fnp
        >>> path = os.path.join(tempfile.mkdtemp(), "params.safetensors")
        >>> fio.save(path, {"dense": {"w": fnp.ones((2, 3)), "b": fnp.zeros(3)}})
        >>> sorted(fio.load(path, flat=True))
        ['dense.b', 'dense.w']
    """
    op = "funcarray.io.save"
    path = os.fspath(path)
    kind = _format(op, path)
    metadata = _check_metadata(op, metadata)
    names, leaves, _ = leaf_names(op, tree)
    if _per_process.needs_per_process(leaves):
        # split across the processes of a job: no process can gather it (see _per_process)
        _per_process.save_per_process(op, path, names, leaves, _to_numpy,
                                      lambda name, arrays, meta: _write(op, kind, name, arrays,
                                                                        meta), metadata)
        return
    arrays = {name: _to_numpy(op, name, leaf) for name, leaf in zip(names, leaves, strict=True)}
    _write(op, kind, path, arrays, metadata)


def _write(op: str, kind: str, path: str, arrays: dict, metadata) -> None:
    if kind == "safetensors":
        for name, array in arrays.items():  # fail before creating any file
            _safetensors.code_of(op, name, array.dtype)
        _atomic_write(path, lambda f: _safetensors.write(op, f, arrays, metadata))
    else:
        _atomic_write(path, lambda f: _npz.write(f, arrays, metadata))


def _shape_dtype(op: str, name: str, leaf) -> tuple:
    """The shape and dtype that ``like``'s leaf asks for (an array or a ShapeDtype-like)."""
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return tuple(leaf.shape), np.dtype(leaf.dtype)
    array = _to_numpy(op, name, leaf)
    return array.shape, array.dtype


class _Checkpoint:
    """An open checkpoint: the names, shapes and dtypes it holds, and a way to read each."""

    def __init__(self, op: str, path: str, file: BufferedReader | None = None):
        self.where = repr(path)
        if file is not None:
            entries, self.metadata = _safetensors.read_header(op, file, self.where)
            self.specs = {e.name: (e.shape, e.dtype) for e in entries}
            entries = {e.name: e for e in entries}
            data_start = file.tell()
            self.read = lambda name: _safetensors.read_tensor(op, file, entries[name],
                                                              data_start, self.where)
        else:
            arrays, self.metadata = _npz.read(op, path, self.where)
            for name, array in arrays.items():
                if array.dtype.newbyteorder("=") not in dtypes.supported_dtypes:
                    raise op_value_error(op, f"{self.where}: key {name!r} has dtype "
                                             f"{array.dtype}, which funcarray does not support")
            self.specs = {n: (a.shape, a.dtype.newbyteorder("=")) for n, a in arrays.items()}
            self.read = arrays.__getitem__


class _Assembled:
    """A checkpoint saved one file per process (see ``_per_process``): ``read`` gives a whole
    array, ``read_part`` the part of one a device holds (only the blocks that meet it are
    read from the files)."""

    def __init__(self, op: str, path: str):
        index = _per_process.read_index(op, path)
        reader = _per_process.BlockReader(index, os.path.dirname(os.path.abspath(path)),
                                          lambda file, key: _read_key(op, file, key))
        self.where = repr(_per_process.index_path(path))
        self.metadata, self.specs = index["metadata"], reader.specs
        self.read, self.read_part = reader.whole, reader.part


def _read_key(op: str, path: str, key: str) -> np.ndarray:
    if _format(op, path) == "npz":
        return _Checkpoint(op, path).read(key)
    with open(path, "rb") as file:
        return _Checkpoint(op, path, file).read(key)


def _describe(spec: tuple) -> str:
    shape, dtype = spec
    return f"shape {shape} {dtype.name}"


def _mismatches(checkpoint: _Checkpoint, names: list, wanted: list, strict: bool) -> list:
    problems = []
    for name, spec in zip(names, wanted, strict=True):
        found = checkpoint.specs.get(name)
        if found is None:
            problems.append(f"key {name!r}: missing from the file (expected {_describe(spec)})")
        elif found != spec:
            problems.append(f"key {name!r}: expected {_describe(spec)}, found "
                            f"{_describe(found)}")
    if strict:
        extra = [n for n in checkpoint.specs if n not in set(names)]
        problems += [f"key {n!r} ({_describe(checkpoint.specs[n])}): in the file but not in "
                     "`like` (pass strict=False to ignore extra keys)" for n in extra]
    return problems


def _raise_mismatches(op: str, checkpoint: _Checkpoint, problems: list):
    listed = problems[:_MAX_LISTED]
    if len(problems) > _MAX_LISTED:
        listed.append(f"... and {len(problems) - _MAX_LISTED} more")
    raise op_value_error(op, f"{checkpoint.where} does not match `like`:\n  " +
                         "\n  ".join(listed))


def _as_array(array: np.ndarray) -> Array:
    # A fresh, native-order, C-contiguous buffer that nothing else references: the Array
    # takes ownership of it without a copy.
    if not array.dtype.isnative or not array.flags.c_contiguous:
        array = array.astype(array.dtype.newbyteorder("="), order="C")
    return Array(array)


def _load(op: str, checkpoint: _Checkpoint, like: Any, flat: bool, strict: bool,
          sharding: Any) -> Any:
    if like is None:
        names = list(checkpoint.specs)
        treedef = None
    else:
        names, leaves, treedef = leaf_names(op, like)
        wanted = [_shape_dtype(op, n, leaf) for n, leaf in zip(names, leaves, strict=True)]
        problems = _mismatches(checkpoint, names, wanted, strict)
        if problems:
            _raise_mismatches(op, checkpoint, problems)
    if sharding is None:
        arrays = [_as_array(checkpoint.read(n)) for n in names]
    else:
        arrays = _placed(op, checkpoint, names, like, flat, sharding)
    if treedef is not None:
        return _tree.unflatten(treedef, arrays)
    by_name = dict(zip(names, arrays, strict=True))
    return by_name if flat else nest(op, by_name)


def _placed(op: str, checkpoint: _Checkpoint, names: list, like: Any, flat: bool,
            sharding: Any) -> list:
    """Each array read and placed with its sharding (``sharding`` is one placement for every
    leaf, or a pytree prefix of the result's structure). Each array goes straight from the
    file's NumPy data to its devices, one block per device: no whole-array host Array."""
    from funcarray.api.sharded_arrays import make_array_from_callback
    from funcarray.api.transfers import device_put  # late: funcarray.api imports much
    from funcarray.base.mesh import PartitionSpec
    from funcarray.base.sharding import NamedSharding, Sharding

    def is_leaf(v) -> bool:
        return v is None or isinstance(v, (Sharding, PartitionSpec)) or hasattr(v, "client")

    # The tree the placements are a prefix of, and the file names in its flattening order
    # (a nested result flattens its dicts in sorted-key order, not in file order).
    if like is not None:
        shape_of, order = like, names
    else:
        by_name = {n: n for n in names}
        shape_of = by_name if flat else nest(op, by_name)
        order = _tree.leaves(shape_of)
    try:
        placements = _tree.broadcast_prefix(sharding, shape_of, is_leaf=is_leaf)
    except ValueError as exc:
        raise op_value_error(op, f"sharding must be one sharding or a pytree prefix of the "
                                 f"loaded tree ({exc})") from None
    per_name = dict(zip(order, placements, strict=True))
    per_leaf = [per_name[n] for n in names]
    def place(name, s):
        if s is None:
            return _as_array(checkpoint.read(name))
        read_part = getattr(checkpoint, "read_part", None)
        if read_part is not None and isinstance(s, NamedSharding):
            # (a per-process checkpoint: each device's part read on its own, so a process
            # reads only the blocks its devices hold)
            shape = checkpoint.specs[name][0]
            s.check_shape(shape)
            return make_array_from_callback(shape, s, lambda index: read_part(name, index))
        return device_put(checkpoint.read(name), s)

    return [place(n, s) for n, s in zip(names, per_leaf, strict=True)]


@overload
def load(path: _Path, like: None = None, *, strict: bool = True, flat: Literal[False] = False,
         sharding: Any = None) -> dict[str, Any]: ...


@overload
def load(path: _Path, like: None = None, *, strict: bool = True, flat: Literal[True],
         sharding: Any = None) -> dict[str, Array]: ...


@overload
def load(path: _Path, like: _Tree, *, strict: bool = True, flat: bool = False,
         sharding: Any = None) -> _Tree: ...


@api_boundary
def load(path: _Path, like: Any = None, *, strict: bool = True, flat: bool = False,
         sharding: Any = None) -> Any:
    """Load the arrays saved in ``path`` (a ``.safetensors`` or ``.npz`` file).

    With ``like`` (a pytree of arrays, or of anything with ``shape`` and ``dtype``) the result
    has ``like``'s structure; every leaf's dotted name must be in the file with ``like``'s
    shape and dtype, and, when ``strict``, the file may hold no other keys. All mismatches are
    reported at once, each naming the key, the expected and the found shape and dtype; cast
    after loading to change dtypes. Without ``like`` the result is a nested dict rebuilt from
    the dotted names, every level a dict with str keys (``"layers.0.w"`` gives
    ``{"layers": {"0": {"w": ...}}}``); with ``flat=True`` it is the flat dict of names, in
    file order. Leaves come back as funcarray Arrays.

    ``sharding`` places the loaded arrays: one placement for every leaf (a
    ``NamedSharding``, a bare ``PartitionSpec`` under ``set_mesh``, a device), or a pytree
    prefix of the result holding one per subtree (``None`` leaves those arrays on the host,
    as without ``sharding``). Each array is split straight from the file's data, so a
    checkpoint saved from arrays on a mesh (``save`` gathers them) loads back onto a mesh of
    any shape.

    The safetensors header is validated in full before any data is read: a truncated or
    corrupt file raises a ValueError naming the key and its expected shape, never garbage.
    ``.npz`` members holding pickled objects are refused.

    A checkpoint saved by the processes of a job, one file per process (``save`` of arrays
    split across processes), is loaded from the ``path`` it was saved to: when that file does
    not exist, ``path + ".index.json"`` says where each block is.

    Example:
        >>> import os, tempfile
        >>> import funcarray.io as fio, funcarray.numpy as fnp
        >>> path = os.path.join(tempfile.mkdtemp(), "params.safetensors")
        >>> params = {"layers": [{"w": fnp.ones((2, 2)), "b": fnp.zeros(2)}]}
        >>> fio.save(path, params)
        >>> fio.load(path)["layers"]["0"]["b"]
        Array([0., 0.], dtype=float32)
        >>> fio.load(path, like=params)["layers"][0]["w"].shape
        (2, 2)
    """
    op = "funcarray.io.load"
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(_per_process.index_path(path)):
        return _load(op, _Assembled(op, path), like, flat, strict, sharding)
    if _format(op, path) == "npz":
        return _load(op, _Checkpoint(op, path), like, flat, strict, sharding)
    with open(path, "rb") as file:
        return _load(op, _Checkpoint(op, path, file), like, flat, strict, sharding)


@api_boundary
def load_metadata(path: _Path) -> dict[str, str]:
    """The metadata dict of strings saved with ``save(..., metadata=...)`` (or by another
    safetensors writer, such as ``{"format": "pt"}``); for a checkpoint saved one file per
    process, the metadata its index holds.

    Example:
        >>> import os, tempfile
        >>> import funcarray.io as fio, funcarray.numpy as fnp
        >>> path = os.path.join(tempfile.mkdtemp(), "params.safetensors")
        >>> fio.save(path, {"w": fnp.ones(2)}, metadata={"step": "100"})
        >>> fio.load_metadata(path)
        {'step': '100'}
    """
    op = "funcarray.io.load_metadata"
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(_per_process.index_path(path)):
        return dict(_per_process.read_index(op, path)["metadata"])  # (saved per process)
    if _format(op, path) == "npz":
        return dict(_npz.read(op, path, repr(path))[1])
    with open(path, "rb") as file:
        return dict(_safetensors.read_header(op, file, repr(path))[1])
