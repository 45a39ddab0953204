"""``funcarray.Array``: an immutable array with a concrete value.

An Array is what eager code sees. It wraps a NumPy array (on the CPU eager engine) and a
``weak_type`` flag (set when the value came from a Python scalar). Arrays are never mutated:
``x[0] = 1`` raises and points at ``x.at[0].set(1)``, and the NumPy view handed out by
``np.asarray(x)`` is read-only.

Operators and array methods (``+``, ``@``, ``x.sum()``, ``x[idx]``, ``x.at``...) are installed
by ``funcarray.numpy.array_methods`` on both Array and the tracers, so the same user code works
eagerly and under every transform.

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.array([1.0, 2.0])
    >>> x * 2
    Array([2., 4.], dtype=float32)
    >>> x.shape, x.dtype
    ((2,), dtype('float32'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from funcarray.base.avals import ShapedArray
from funcarray.base.sharding import NamedSharding, Shard, SingleDeviceSharding

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from types import ModuleType
    from typing import overload

    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.numpy._indexing import IndexUpdateHelper

    # Axis arguments: one axis, several, or None for all of them.
    _Axis = int | Sequence[int] | None

_trusted_aval = ShapedArray.trusted

__all__ = ["Array", "DeviceArray", "Device", "cpu_device", "device_array", "new_array"]


class Device:
    """Where an array lives. Eager CPU arrays live on ``cpu:0`` without loading any runtime.

    Example:
        >>> cpu_device()
        CpuDevice(id=0)
    """

    __slots__ = ("platform", "id")

    def __init__(self, platform: str, id: int = 0) -> None:
        self.platform = platform
        self.id = id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (self.platform, self.id) == (other.platform, other.id)

    def __hash__(self) -> int:
        return hash((self.platform, self.id))

    def __repr__(self) -> str:
        return f"{self.platform.capitalize()}Device(id={self.id})"


_CPU0 = Device("cpu", 0)


def cpu_device() -> Device:
    """The host CPU device (no jaxlib needed)."""
    return _CPU0


_SETITEM_MSG = (
    "funcarray arrays are immutable: item assignment `x[{idx}] = ...` is not supported.\n"
    "Use the functional update instead, which returns a new array:\n"
    "    x = x.at[{idx}].set(value)     # also .add, .multiply, .divide, .min, .max"
)


class _ArrayMeta(type):
    """Makes ``isinstance(x, Array)`` true for tracers too, as ``isinstance(x, jax.Array)`` is
    under jit, grad and vmap: JAX code that branches on it takes the same path eagerly and
    when traced. (Only ``Array`` itself: a tracer is not a ``DeviceArray``.) Exact Arrays
    never get here: ``isinstance`` answers those before calling this."""

    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or (cls is Array and isinstance(obj, _traced))


# The tracer type (``funcarray.transforms.core.Tracer``), registered by the transforms when
# they load: the value type sits below them and imports none of their modules.
_traced: tuple = ()


def register_tracer_type(tracer_type: type) -> None:
    """Make ``isinstance(x, Array)`` true for instances of ``tracer_type``."""
    global _traced
    _traced = (*_traced, tracer_type)


class Array(metaclass=_ArrayMeta):
    """An immutable n-dimensional array with a concrete value.

    ``isinstance(x, Array)`` is also true for the traced values a transform passes to a
    function (as for ``jax.Array``); ``isinstance(x, funcarray.transforms.core.Tracer)`` tells
    a traced value apart.

    Create Arrays with ``funcarray.numpy`` (``fnp.array``, ``fnp.zeros``, ...); the constructor
    is internal and takes ownership of the NumPy value it is given without copying.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.arange(6).reshape(2, 3)
        >>> x.T.shape
        (3, 2)
        >>> float(x.sum())
        15.0
    """

    # ``_buf`` (set only by the compiled path, read with getattr) caches the value's XLA
    # buffer as (runtime device, buffer), so an array passed to jitted functions again is not
    # copied to the device again. ``_aval``, ``_donated`` and ``_ready`` are a DeviceArray's
    # (unset on other Arrays), declared here so that a DeviceArray whose value has been read
    # can become an Array (``__class__`` assignment needs one layout): see DeviceArray.
    __slots__ = ("_value", "_weak", "_buf", "_aval", "_donated", "_ready", "__weakref__")
    __array_priority__ = 100
    __hash__ = None  # arrays are unhashable, as in NumPy and JAX

    def __init__(self, value: Any, weak_type: bool = False) -> None:
        self._value = value  # np.ndarray, or a NumPy scalar for 0-d results of ufuncs
        self._weak = weak_type

    # --- abstract value -------------------------------------------------------------------
    @property
    def aval(self) -> ShapedArray:
        value = self._value
        return _trusted_aval(value.shape, value.dtype, self._weak)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    @property
    def weak_type(self) -> bool:
        return self._weak

    @property
    def nbytes(self) -> int:
        return self._value.nbytes

    @property
    def itemsize(self) -> int:
        return self._value.dtype.itemsize

    @property
    def device(self) -> Device | NamedSharding:
        """The device holding the array; for an array split over several devices, its
        sharding (as ``jax.Array.device``)."""
        entry = getattr(self, "_buf", None)  # (runtime device, buffer), see DeviceArray
        if entry is None:
            return _CPU0
        where = entry[0]
        if type(where) is NamedSharding:
            return where.mesh.flat_devices[0] if where.num_devices == 1 else where
        return Device(where.platform, where.id)

    def devices(self) -> set[Device]:
        entry = getattr(self, "_buf", None)
        if entry is not None and type(entry[0]) is NamedSharding:
            return entry[0].device_set
        return {self.device}

    # --- placement: one device, or a NamedSharding (see funcarray/base/sharding.py) --------
    @property
    def sharding(self) -> SingleDeviceSharding | NamedSharding:
        entry = getattr(self, "_buf", None)
        if entry is not None and type(entry[0]) is NamedSharding:
            return entry[0]
        return SingleDeviceSharding(self.device)

    is_fully_replicated = property(lambda self: self.sharding.is_fully_replicated)
    is_fully_addressable = property(lambda self: self.sharding.is_fully_addressable)

    @property
    def addressable_shards(self) -> list[Shard]:
        """Each device's piece of the array (a single-device Array), in mesh order."""
        entry = getattr(self, "_buf", None)
        if entry is None or type(entry[0]) is not NamedSharding:
            return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
        sharding, buffer = entry
        # The buffer is the runtime's multi-device array; its per-device pieces are looked up
        # by device id (the runtime's devices and funcarray's Devices share their ids).
        pieces = {(s.device.platform, s.device.id): s.data for s in buffer.addressable_shards}
        shard_aval = ShapedArray(sharding.shard_shape(self.shape), self.dtype, self.weak_type)
        out = []
        for device, index, replica in sharding.shard_layout(self.shape):
            piece = pieces.get((device.platform, device.id))
            if piece is None:  # another process's device (a job of several processes)
                continue
            out.append(Shard(device, index, replica,
                             device_array(piece.devices().pop(), piece, shard_aval)))
        return out

    def block_until_ready(self) -> Array:
        """Eager CPU arrays are always ready; kept for JAX compatibility."""
        return self

    # --- conversion to Python and NumPy ---------------------------------------------------
    def _readonly_numpy(self) -> np.ndarray:
        view = np.asarray(self._value).view()
        view.flags.writeable = False
        return view

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None
                  ) -> np.ndarray:
        if copy:
            return np.array(self._value, dtype=dtype, copy=True)
        out = self._readonly_numpy()
        if dtype is not None and np.dtype(dtype) != out.dtype:
            if copy is False:
                raise ValueError("Converting an Array to another dtype needs a copy")
            out = out.astype(dtype)
        return out

    def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: Any = None, copy: bool | None = None) -> Any:
        kwargs = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        try:
            # Consumers that understand DLPack 1.0's read-only flag get a zero-copy view.
            return self._readonly_numpy().__dlpack__(**kwargs)
        except BufferError:
            # Older consumers cannot be told the buffer is read-only: hand them a copy so
            # that nothing they do can change this array.
            return np.array(self._value, copy=True).__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return np.asarray(self._value).__dlpack_device__()

    def item(self, *args: int) -> Any:
        return self._value.item(*args)

    def tolist(self) -> Any:
        return np.asarray(self._value).tolist()

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iub":
            raise TypeError(
                f"Only integer arrays can be used as an index, got dtype {self.dtype}"
            )
        return self._value.__index__()

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[Array]:
        if not self._value.shape:
            raise TypeError("iteration over a 0-d array")
        value = np.asarray(self._value)
        weak = self._weak
        return (Array(value[i], weak) for i in range(value.shape[0]))

    def __setitem__(self, idx: Any, value: Any) -> None:
        raise TypeError(_SETITEM_MSG.format(idx=_format_index(idx)))

    def __delitem__(self, idx: Any) -> None:
        raise TypeError(_SETITEM_MSG.format(idx=_format_index(idx)))

    # Arrays are values: copying returns the same immutable object.
    def __copy__(self) -> Array:
        return self

    def __deepcopy__(self, memo: Any) -> Array:
        return self

    def __reduce__(self):
        return (_rebuild, (np.asarray(self._value), self._weak))


    if TYPE_CHECKING:
        # The operators and array methods, installed at import by funcarray.numpy.array_methods (on
        # the tracers too): declared here for type checkers only, with the signatures of the
        # funcarray.numpy functions they call (JAX's).
        def __getitem__(self, idx: Any) -> Array: ...

        def __eq__(self, other: ArrayLike) -> Array: ...
        def __ne__(self, other: ArrayLike) -> Array: ...
        def __lt__(self, other: ArrayLike) -> Array: ...
        def __le__(self, other: ArrayLike) -> Array: ...
        def __gt__(self, other: ArrayLike) -> Array: ...
        def __ge__(self, other: ArrayLike) -> Array: ...

        def __neg__(self) -> Array: ...
        def __pos__(self) -> Array: ...
        def __abs__(self) -> Array: ...
        def __invert__(self) -> Array: ...

        def __add__(self, other: ArrayLike) -> Array: ...
        def __sub__(self, other: ArrayLike) -> Array: ...
        def __mul__(self, other: ArrayLike) -> Array: ...
        def __matmul__(self, other: ArrayLike) -> Array: ...
        def __truediv__(self, other: ArrayLike) -> Array: ...
        def __floordiv__(self, other: ArrayLike) -> Array: ...
        def __mod__(self, other: ArrayLike) -> Array: ...
        def __divmod__(self, other: ArrayLike) -> tuple[Array, Array]: ...
        def __pow__(self, other: ArrayLike) -> Array: ...
        def __lshift__(self, other: ArrayLike) -> Array: ...
        def __rshift__(self, other: ArrayLike) -> Array: ...
        def __and__(self, other: ArrayLike) -> Array: ...
        def __xor__(self, other: ArrayLike) -> Array: ...
        def __or__(self, other: ArrayLike) -> Array: ...

        def __radd__(self, other: ArrayLike) -> Array: ...
        def __rsub__(self, other: ArrayLike) -> Array: ...
        def __rmul__(self, other: ArrayLike) -> Array: ...
        def __rmatmul__(self, other: ArrayLike) -> Array: ...
        def __rtruediv__(self, other: ArrayLike) -> Array: ...
        def __rfloordiv__(self, other: ArrayLike) -> Array: ...
        def __rmod__(self, other: ArrayLike) -> Array: ...
        def __rdivmod__(self, other: ArrayLike) -> tuple[Array, Array]: ...
        def __rpow__(self, other: ArrayLike) -> Array: ...
        def __rlshift__(self, other: ArrayLike) -> Array: ...
        def __rrshift__(self, other: ArrayLike) -> Array: ...
        def __rand__(self, other: ArrayLike) -> Array: ...
        def __rxor__(self, other: ArrayLike) -> Array: ...
        def __ror__(self, other: ArrayLike) -> Array: ...

        # round(x) is a Python number (of x.item()), round(x, n) an Array.
        @overload
        def __round__(self, ndigits: None = None) -> int: ...
        @overload
        def __round__(self, ndigits: int) -> Array: ...

        @property
        def T(self) -> Array: ...
        @property
        def mT(self) -> Array: ...
        @property
        def real(self) -> Array: ...
        @property
        def imag(self) -> Array: ...
        @property
        def at(self) -> IndexUpdateHelper: ...

        def all(self, axis: _Axis = None, out: None = None, keepdims: bool = False, *,
                where: ArrayLike | None = None) -> Array: ...
        def any(self, axis: _Axis = None, out: None = None, keepdims: bool = False, *,
                where: ArrayLike | None = None) -> Array: ...
        def argmax(self, axis: int | None = None, out: None = None,
                   keepdims: bool | None = None) -> Array: ...
        def argmin(self, axis: int | None = None, out: None = None,
                   keepdims: bool | None = None) -> Array: ...
        def argsort(self, axis: int | None = -1, *, kind: None = None, order: None = None,
                    stable: bool = True, descending: bool = False) -> Array: ...
        def astype(self, dtype: DTypeLike, copy: bool = False) -> Array: ...
        def clip(self, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Array: ...
        def conj(self) -> Array: ...
        def conjugate(self) -> Array: ...
        def copy(self) -> Array: ...
        def __array_namespace__(self, *, api_version: str | None = None) -> ModuleType: ...
        def to_device(self, device: Any, /, *, stream: None = None) -> Array: ...
        def cumprod(self, axis: int | None = None, dtype: DTypeLike | None = None,
                    out: None = None) -> Array: ...
        def cumsum(self, axis: int | None = None, dtype: DTypeLike | None = None,
                   out: None = None) -> Array: ...
        def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array: ...
        def dot(self, b: ArrayLike, *, precision: Any = None,
                preferred_element_type: DTypeLike | None = None) -> Array: ...
        def flatten(self, order: str = "C") -> Array: ...
        def max(self, axis: _Axis = None, out: None = None, keepdims: bool = False,
                initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array: ...
        def mean(self, axis: _Axis = None, dtype: DTypeLike | None = None, out: None = None,
                 keepdims: bool = False, *, where: ArrayLike | None = None) -> Array: ...
        def min(self, axis: _Axis = None, out: None = None, keepdims: bool = False,
                initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array: ...
        def nonzero(self, *, size: int | None = None,
                    fill_value: ArrayLike | tuple[ArrayLike, ...] | None = None
                    ) -> tuple[Array, ...]: ...
        def prod(self, axis: _Axis = None, dtype: DTypeLike | None = None, out: None = None,
                 keepdims: bool = False, initial: ArrayLike | None = None,
                 where: ArrayLike | None = None, promote_integers: bool = True) -> Array: ...
        def ravel(self, order: str = "C") -> Array: ...
        def repeat(self, repeats: ArrayLike, axis: int | None = None, *,
                   total_repeat_length: int | None = None) -> Array: ...
        def reshape(self, *shape: Any, order: str = "C") -> Array: ...
        def round(self, decimals: int = 0, out: None = None) -> Array: ...
        def sort(self, axis: int | None = -1, *, kind: None = None, order: None = None,
                 stable: bool = True, descending: bool = False) -> Array: ...
        def squeeze(self, axis: _Axis = None) -> Array: ...
        def std(self, axis: _Axis = None, dtype: DTypeLike | None = None, out: None = None,
                ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
                correction: int | float | None = None) -> Array: ...
        def sum(self, axis: _Axis = None, dtype: DTypeLike | None = None, out: None = None,
                keepdims: bool = False, initial: ArrayLike | None = None,
                where: ArrayLike | None = None, promote_integers: bool = True) -> Array: ...
        def swapaxes(self, axis1: int, axis2: int) -> Array: ...
        def take(self, indices: ArrayLike, axis: int | None = None, mode: str | None = None,
                 unique_indices: bool = False, indices_are_sorted: bool = False,
                 fill_value: ArrayLike | None = None) -> Array: ...
        def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1,
                  dtype: DTypeLike | None = None, out: None = None) -> Array: ...
        def transpose(self, *axes: Any) -> Array: ...
        def var(self, axis: _Axis = None, dtype: DTypeLike | None = None, out: None = None,
                ddof: int = 0, keepdims: bool = False, *, where: ArrayLike | None = None,
                correction: int | float | None = None) -> Array: ...

    # --- printing -------------------------------------------------------------------------
    def __repr__(self) -> str:
        value = np.asarray(self._value)
        weak = ", weak_type=True" if self._weak else ""
        suffix = f", dtype={value.dtype.name}{weak})"
        if value.size == 0:
            return f"Array([], shape={value.shape}{suffix}"
        body = np.array2string(value, separator=", ", prefix="Array(", suffix=suffix)
        return f"Array({body}{suffix}"

    def __str__(self) -> str:
        return str(np.asarray(self._value))

    def __format__(self, spec: str) -> str:
        if not self._value.shape:
            return format(self._value.item(), spec)
        return format(str(self), spec)


_VALUE_SLOT = Array.__dict__["_value"]
_new = Array.__new__


def new_array(value: Any, weak_type: bool = False) -> Array:
    """``Array(value, weak_type)`` for the eager hot paths: CPython inlines this function's
    call, not a class's, so it costs ~40 ns less.

    Example:
        >>> new_array(np.arange(3), True).weak_type
        True
    """
    out = _new(Array)
    out._value = value
    out._weak = weak_type
    return out


class DeviceArray(Array):
    """An Array whose value lives in an XLA buffer (a jitted function's output).

    Shape and dtype are known without touching the data; the NumPy value is fetched from the
    device the first time something needs it (printing, an eager NumPy kernel, ``np.asarray``)
    and kept, and the array is an ``Array`` from then on, its buffer cached. Passed back to a
    jitted function, the buffer is used as it is: a training loop of jitted steps never copies
    its parameters to the host.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> y = fa.jit(lambda x: x * 2)(fnp.ones(2))
        >>> isinstance(y, fa.Array), y.shape, y
        (True, (2,), Array([2., 2.], dtype=float32))
    """

    __slots__ = ()  # (its _aval, _donated, _ready: Array's slots; _ready: block_until_ready)

    # The value slot (Array's) starts empty: reading it then falls through to __getattr__,
    # which fetches the value once, fills the slot and makes the array an Array (its buffer
    # kept in ``_buf``, as an Array passed to jit keeps its own). From then on every read is
    # a plain slot read, and eager code takes the host arrays' paths: a class that defines
    # __getattr__ costs every attribute read ~13 ns (CPython does not specialise them), and
    # a property on ``_value`` would cost ~0.3 us on each of an eager op's reads.
    def __getattr__(self, name: str):
        if name != "_value":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        try:
            return _VALUE_SLOT.__get__(self, DeviceArray)
        except AttributeError:
            if getattr(self, "_donated", False):
                raise RuntimeError(
                    f"This {self._aval.str_short()} array was donated to a jitted function "
                    f"(donate_argnums/donate_argnames) and its buffer was reused for the "
                    f"outputs, so it no longer has a value. Use the function's outputs, or do "
                    f"not donate arrays you still need.") from None
            try:
                value = np.asarray(self._buf[1])
            except Exception as exc:  # noqa: BLE001 (a deferred error of the computation)
                _raise_deferred_error(exc)
            _VALUE_SLOT.__set__(self, value)
            self.__class__ = Array
            return value

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self._aval.dtype

    @property
    def ndim(self) -> int:
        return len(self._aval.shape)

    @property
    def size(self) -> int:
        return self._aval.size

    @property
    def nbytes(self) -> int:
        return self._aval.size * self._aval.dtype.itemsize

    def block_until_ready(self) -> DeviceArray:
        """Wait until the computation producing this array has finished."""
        # Once waited for, an array stays computed (until donated: ``_finish_donation`` in
        # lowering/executor.py clears the flag): timing loops wait for the same array again
        # and again, and asking jaxlib costs more than this method otherwise does.
        if self._ready:  # (every DeviceArray is made with it set: see device_array)
            return self
        try:
            self._buf[1].block_until_ready()
        except Exception as exc:  # noqa: BLE001 (a deferred error of the computation)
            _raise_deferred_error(exc)
        self._ready = True
        return self


def _reraise(exc: Exception) -> None:
    raise exc


# How an error that XLA reports late (when a buffer is read) reaches the user: the runtime
# (``funcarray.lowering.runtime``), which made every buffer, registers its translation.
_raise_deferred_error = _reraise


def register_deferred_error_handler(handler) -> None:
    """Have ``handler(exc)`` raise the user-facing error for a device buffer's ``exc``."""
    global _raise_deferred_error
    _raise_deferred_error = handler


def device_array(device: Any, buffer: Any, aval: ShapedArray) -> DeviceArray:
    """A DeviceArray for ``buffer`` (on runtime device ``device``) of type ``aval``."""
    out = DeviceArray.__new__(DeviceArray)
    out._weak = aval.weak_type
    out._buf = (device, buffer)
    out._aval = aval
    out._ready = False  # set, so that block_until_ready's check raises nothing inside
    return out


def _rebuild(value, weak):
    return Array(value, weak)


def _format_index(idx) -> str:
    parts = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for p in parts:
        if isinstance(p, slice):
            s = "" if p.start is None else str(p.start)
            s += ":" + ("" if p.stop is None else str(p.stop))
            if p.step is not None:
                s += f":{p.step}"
            out.append(s)
        elif p is Ellipsis:
            out.append("...")
        elif isinstance(p, (int, np.integer)):
            out.append(str(p))
        else:
            out.append("idx")
    return ", ".join(out)
