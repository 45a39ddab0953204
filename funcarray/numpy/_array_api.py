"""The Python Array API standard's inspection utilities: ``__array_api_version__`` and
``__array_namespace_info__()`` (what a library written against the standard asks the
namespace: its capabilities, devices and dtypes).

Example:
    >>> import funcarray.numpy as fnp
    >>> info = fnp.__array_namespace_info__()
    >>> info.default_dtypes()["real floating"]
    dtype('float32')
    >>> sorted(info.dtypes(kind="unsigned integer"))
    ['uint16', 'uint32', 'uint64', 'uint8']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcarray.api.placement import check_device
from funcarray.base import dtypes
from funcarray.base.array import cpu_device
from funcarray.base.errors import op_value_error

__all__ = ["__array_api_version__", "__array_namespace_info__", "ArrayNamespaceInfo"]

__array_api_version__ = "2024.12"

# The standard's dtypes by its kinds. funcarray keeps 64-bit dtypes without a flag, so all
# thirteen are supported everywhere.
_KINDS: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class ArrayNamespaceInfo:
    """What ``funcarray.numpy`` supports, as the Array API standard's inspection API reports
    it.

    Example:
        >>> import funcarray.numpy as fnp
        >>> info = fnp.__array_namespace_info__()
        >>> info.capabilities()["max dimensions"]
        64
        >>> info.default_device()
        CpuDevice(id=0)
    """

    __slots__ = ()

    def capabilities(self) -> dict[str, Any]:
        """Boolean-mask indexing and functions whose output shape depends on values
        (``nonzero``, ``unique_*``) work eagerly but not under ``jit``, where shapes must be
        static: they are reported as unsupported, as jax.numpy does, so that libraries
        choose the code paths that also run traced."""
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": 64}

    def default_device(self) -> Any:
        """The host CPU: where eager arrays are created when no ``device=`` is given."""
        return cpu_device()

    def devices(self) -> list[Any]:
        """The host CPU, then the devices of the selected platform (loads jaxlib)."""
        from funcarray.lowering.devices import devices
        out = [cpu_device()]
        return out + [d for d in devices() if d not in out]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        """The dtypes of Python floats, complex numbers and ints, and of indices (JAX's,
        on every device)."""
        check_device("__array_namespace_info__().default_dtypes", device)
        return {"real floating": dtypes.default_float, "complex floating": dtypes.complex64,
                "integral": dtypes.default_int, "indexing": dtypes.default_int}

    def dtypes(self, *, device: Any = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, np.dtype]:
        """The standard's dtypes of ``kind`` (one of its kind names or a tuple of them;
        None: all), by name."""
        op = "__array_namespace_info__().dtypes"
        check_device(op, device)
        kinds = ("bool", "numeric") if kind is None else (
            kind if isinstance(kind, tuple) else (kind,))
        out: dict[str, np.dtype] = {}
        for k in kinds:
            if k not in _KINDS:
                raise op_value_error(op, f"unknown kind {k!r}; the kinds are "
                                         f"{', '.join(map(repr, _KINDS))}")
            out.update((name, np.dtype(name)) for name in _KINDS[k])
        return out


_INFO = ArrayNamespaceInfo()


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The namespace's inspection object (the Array API standard's).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.__array_namespace_info__().capabilities()["boolean indexing"]
        False
    """
    return _INFO
