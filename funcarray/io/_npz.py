"""NumPy ``.npz`` checkpoints: one ``.npy`` member per leaf, never pickled.

NumPy's format has no code for bfloat16 and the float8 types, so those leaves are stored as
their bit patterns (``uint16`` / ``uint8``) and a record member, ``__funcarray__`` (a JSON
string), remembers their real dtype along with the metadata; ``numpy.load`` on such a file
sees the raw bits. Files written by ``numpy.savez`` load as they are. Loading never unpickles:
a member holding Python objects is refused.
"""

from __future__ import annotations

import json
import zipfile
from typing import TYPE_CHECKING

import numpy as np

from funcarray.base import dtypes
from funcarray.base.errors import op_value_error

if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["RECORD", "read", "write"]

RECORD = "__funcarray__"
# The dtypes NumPy cannot describe in a .npy header, stored as unsigned ints of the same size.
_STORED_AS_BITS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def _bits_dtype(dtype: np.dtype):
    """The unsigned int dtype a leaf of ``dtype`` is stored as, or None: stored as it is."""
    if dtype.isbuiltin == 2 and dtype.name in _STORED_AS_BITS:  # (2: not NumPy's own)
        return np.dtype(f"uint{8 * dtype.itemsize}")
    return None


def write(file: BinaryIO, arrays: dict, metadata: dict | None) -> None:
    members, stored_as = {}, {}
    for name, array in arrays.items():
        bits = _bits_dtype(array.dtype)
        if bits is not None:
            stored_as[name] = array.dtype.name
            array = array.view(bits)
        members[name] = array
    record = {"dtypes": stored_as, "metadata": metadata or {}}
    members[RECORD] = np.array(json.dumps(record))
    np.savez(file, **members)


def read(op: str, path: str, where: str) -> tuple:
    """``(arrays, metadata)``: every member of an ``.npz`` file, name -> NumPy array."""
    try:
        # Open the file here: np.load leaks its own handle when the archive is corrupt.
        with open(path, "rb") as file:
            npz = np.load(file, allow_pickle=False)
            if not isinstance(npz, np.lib.npyio.NpzFile):
                raise _not_npz(op, where, "it holds a single .npy array")
            with npz:
                arrays = {name: _member(op, npz, name, where) for name in npz.files}
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError) as err:
        raise _not_npz(op, where, err) from None
    except ValueError as err:
        if getattr(err, "_funcarray_user_error", False):
            raise
        raise _not_npz(op, where, err) from None  # np.load's complaint about other files
    record = _record(op, arrays.pop(RECORD, None), where)
    for name, dtype_name in record.get("dtypes", {}).items():
        arrays[name] = _from_bits(op, arrays, name, dtype_name, where)
    return arrays, record.get("metadata", {})


def _not_npz(op: str, where: str, reason) -> ValueError:
    return op_value_error(op, f"{where} is not a readable .npz file ({reason}): it is "
                              "truncated or corrupt")


def _member(op: str, npz, name: str, where: str) -> np.ndarray:
    try:
        return npz[name]
    except ValueError as err:
        if "allow_pickle" in str(err):
            raise op_value_error(op, f"{where}: key {name!r} holds pickled Python objects, "
                                     "which funcarray.io never loads (they can run code)"
                                 ) from None
        raise op_value_error(op, f"{where}: key {name!r} cannot be read ({err}): the file is "
                                 "corrupt") from None
    except (zipfile.BadZipFile, EOFError, OSError) as err:
        raise op_value_error(op, f"{where}: key {name!r} cannot be read ({err}): the file is "
                                 "truncated or corrupt") from None


def _record(op: str, member, where: str) -> dict:
    if member is None:
        return {}
    try:
        record = json.loads(str(member))
        if isinstance(record, dict):
            return record
    except json.JSONDecodeError:
        pass
    raise op_value_error(op, f"{where}: the {RECORD!r} record is not the JSON object that "
                             "funcarray.io writes: the file is corrupt")


def _from_bits(op: str, arrays: dict, name: str, dtype_name: str, where: str) -> np.ndarray:
    # (getattr of an ml_dtypes name loads ml_dtypes)
    dtype = getattr(dtypes, dtype_name) if dtype_name in _STORED_AS_BITS else None
    bits = arrays.get(name)
    if dtype is None or bits is None or bits.dtype != _bits_dtype(dtype):
        raise op_value_error(op, f"{where}: key {name!r}: the record says it stores "
                                 f"{dtype_name} bits, but the member is "
                                 f"{'missing' if bits is None else bits.dtype.name}: the file "
                                 "is corrupt")
    return bits.view(dtype)
