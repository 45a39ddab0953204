"""The safetensors file format, read and written with NumPy only.

Layout: an unsigned 64-bit little-endian header length ``N``; ``N`` bytes of UTF-8 JSON
mapping each tensor name to ``{"dtype": code, "shape": [...], "data_offsets": [begin, end]}``
(plus an optional ``"__metadata__"`` object of strings); then the data section, the tensors'
raw little-endian bytes in C order. Offsets count from the start of the data section; the
tensors must tile it exactly: contiguous, not overlapping, no trailing bytes. Writers pad the
header with spaces so that the data section starts at a multiple of 8.

Reading validates the whole header before any data is read, so a truncated, corrupt or
hand-edited file raises a ``ValueError`` that names the tensor concerned instead of loading
garbage.
"""

from __future__ import annotations

import json
import math
import os
import struct
import sys
from typing import TYPE_CHECKING

import numpy as np

from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error

if TYPE_CHECKING:
    from io import BufferedReader
    from typing import BinaryIO

__all__ = ["DTYPE_CODES", "Entry", "read_header", "read_tensor", "write"]

# The official dtype codes (huggingface/safetensors), for the dtypes funcarray supports. The
# ml_dtypes ones join on first use (dtypes.dtype_map), so saving float32 weights never imports
# ml_dtypes.
_NARROW_CODES = {"bfloat16": "BF16", "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2"}
DTYPE_CODES = {
    "BOOL": np.dtype(np.bool_), "U8": np.dtype(np.uint8), "I8": np.dtype(np.int8),
    "U16": np.dtype(np.uint16), "I16": np.dtype(np.int16), "U32": np.dtype(np.uint32),
    "I32": np.dtype(np.int32), "U64": np.dtype(np.uint64), "I64": np.dtype(np.int64),
    "F16": np.dtype(np.float16), "F32": np.dtype(np.float32), "F64": np.dtype(np.float64),
    "C64": np.dtype(np.complex64),
}
_CODE_OF = {dtype: code for code, dtype in DTYPE_CODES.items()}


def _add_narrow_codes() -> None:
    """Put bfloat16 and the float8 types in the tables (loads ml_dtypes)."""
    dtypes.load_narrow_dtypes()
    for name, code in _NARROW_CODES.items():
        DTYPE_CODES[code] = np.dtype(getattr(dtypes, name))
        _CODE_OF[DTYPE_CODES[code]] = code
# The reference implementation refuses larger headers; so does this one, before reading it.
_MAX_HEADER_BYTES = 100_000_000
_METADATA = "__metadata__"


class Entry:
    """One tensor of a file's header: its name, dtype, shape and byte range."""

    __slots__ = ("name", "dtype", "shape", "begin", "end")

    def __init__(self, name: str, dtype: np.dtype, shape: tuple, begin: int, end: int):
        self.name, self.dtype, self.shape, self.begin, self.end = name, dtype, shape, begin, end

    def describe(self) -> str:
        return f"shape {self.shape} {self.dtype.name}"


def code_of(op: str, name: str, dtype: np.dtype) -> str:
    if dtype.isbuiltin == 2:  # an ml_dtypes type
        _add_narrow_codes()
    try:
        return _CODE_OF[dtype]
    except KeyError:
        raise op_type_error(op, f"key {name!r}: safetensors has no code for dtype {dtype.name} "
                                f"(it stores {', '.join(d.name for d in _CODE_OF)}); cast it "
                                "or save to a .npz file") from None


# --- writing -------------------------------------------------------------------------------

def write(op: str, file: BinaryIO, arrays: dict, metadata: dict | None) -> None:
    """Write ``arrays`` (name -> C-contiguous NumPy array) to the binary ``file``."""
    header: dict = {}
    if metadata:
        header[_METADATA] = metadata
    offset = 0
    for name, array in arrays.items():
        header[name] = {"dtype": code_of(op, name, array.dtype), "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        offset += array.nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data section starts 8-byte aligned
    file.write(struct.pack("<Q", len(text)))
    file.write(text)
    for array in arrays.values():
        if array.size:
            file.write(_little_endian(array).reshape(-1).view(np.uint8).data)


def _little_endian(array: np.ndarray) -> np.ndarray:
    if sys.byteorder == "big" and array.dtype.itemsize > 1:
        return array.byteswap()
    return array


# --- reading -------------------------------------------------------------------------------

def read_header(op: str, file: BufferedReader, where: str) -> tuple:
    """``(entries, metadata)`` of an open safetensors file, the header fully validated.

    ``entries`` lists the tensors in header order. ``where`` names the file in messages.
    """
    size = os.fstat(file.fileno()).st_size
    if size < 8:
        raise op_value_error(op, f"{where} is {size} bytes long, too short for a safetensors "
                                 "file (8-byte header length, then the header)")
    (length,) = struct.unpack("<Q", file.read(8))
    if length > _MAX_HEADER_BYTES or length > size - 8:
        raise op_value_error(op, f"{where}: the header length field says {length} bytes but "
                                 f"{size - 8} follow it: the file is truncated or is not a "
                                 "safetensors file")
    header = _parse_json(op, file.read(length), where)
    metadata = _check_metadata(op, header.pop(_METADATA, None), where)
    entries = [_entry(op, name, fields, where) for name, fields in header.items()]
    _check_tiling(op, entries, size - 8 - length, where)
    return entries, metadata


def _parse_json(op: str, raw: bytes, where: str) -> dict:
    def no_duplicates(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise op_value_error(op, f"{where}: the header names key {key!r} twice")
            seen[key] = value
        return seen

    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise op_value_error(op, f"{where}: the header is not valid UTF-8 JSON ({err}); the "
                                 "file is corrupt or is not a safetensors file") from None
    if not isinstance(header, dict):
        raise op_value_error(op, f"{where}: the header must be a JSON object, got "
                                 f"{type(header).__name__}")
    return header


def _check_metadata(op: str, metadata, where: str) -> dict:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(
            isinstance(v, str) for v in metadata.values()):
        raise op_value_error(op, f"{where}: {_METADATA!r} must map strings to strings")
    return metadata


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _entry(op: str, name: str, fields, where: str) -> Entry:
    def bad(message):
        return op_value_error(op, f"{where}: key {name!r}: {message}")

    if not isinstance(fields, dict) or not {"dtype", "shape", "data_offsets"} <= fields.keys():
        raise bad(f"expected an object with dtype, shape and data_offsets, got {fields!r}")
    code, shape, offsets = fields["dtype"], fields["shape"], fields["data_offsets"]
    if code in _NARROW_CODES.values():
        _add_narrow_codes()
    if code not in DTYPE_CODES:
        raise bad(f"unsupported dtype code {code!r} (funcarray reads "
                  f"{', '.join(DTYPE_CODES)})")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise bad(f"shape must be a list of non-negative ints, got {shape!r}")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(map(_is_int, offsets))
            or not 0 <= offsets[0] <= offsets[1]):
        raise bad(f"data_offsets must be [begin, end] with 0 <= begin <= end, got {offsets!r}")
    entry = Entry(name, DTYPE_CODES[code], tuple(shape), offsets[0], offsets[1])
    needed = math.prod(entry.shape) * entry.dtype.itemsize
    if entry.end - entry.begin != needed:
        raise bad(f"data_offsets {offsets} span {entry.end - entry.begin} bytes, but "
                  f"{entry.describe()} needs {needed}: the header is corrupt")
    return entry


def _check_tiling(op: str, entries: list, data_size: int, where: str) -> None:
    """The tensors must cover the data section exactly, one after the other."""
    position, previous = 0, None
    for entry in sorted(entries, key=lambda e: (e.begin, e.end)):
        if entry.begin < position:
            raise op_value_error(op, f"{where}: key {entry.name!r} (bytes [{entry.begin}, "
                                     f"{entry.end})) overlaps key {previous.name!r} (bytes "
                                     f"[{previous.begin}, {previous.end})): the header is "
                                     "corrupt")
        if entry.begin > position:
            raise op_value_error(op, f"{where}: key {entry.name!r} starts at byte "
                                     f"{entry.begin} of the data section, leaving a gap after "
                                     f"byte {position}: the header is corrupt")
        if entry.end > data_size:
            raise op_value_error(op, f"{where}: key {entry.name!r} ({entry.describe()}) needs "
                                     f"bytes [{entry.begin}, {entry.end}) of the data section, "
                                     f"but the file holds only {data_size}: the file is "
                                     "truncated")
        position, previous = entry.end, entry
    if position != data_size:
        raise op_value_error(op, f"{where}: the tensors cover {position} bytes of the data "
                                 f"section but it has {data_size}: the file has trailing "
                                 "bytes and is corrupt")


def read_tensor(op: str, file: BufferedReader, entry: Entry, data_start: int, where: str
                ) -> np.ndarray:
    """Read one validated entry into a fresh, aligned NumPy array."""
    array = np.empty(entry.shape, entry.dtype)
    if not array.size:
        return array
    file.seek(data_start + entry.begin)
    view = memoryview(array.reshape(-1).view(np.uint8))
    filled = 0
    while filled < len(view):
        count = file.readinto(view[filled:])
        if not count:  # the file shrank after its header was checked
            raise op_value_error(op, f"{where}: key {entry.name!r} ({entry.describe()}) ends "
                                     "early: the file is truncated")
        filled += count
    if entry.dtype == np.bool_ and array.view(np.uint8).max() > 1:
        raise op_value_error(op, f"{where}: key {entry.name!r}: BOOL data holds bytes other "
                                 "than 0 and 1: the file is corrupt")
    return _little_endian(array)
