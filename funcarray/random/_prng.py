"""Keys and raw bits: the threefry2x32 counter-based generator, built from uint32 operations.

A key is either a typed key array (``key(seed)``: dtype ``key<fry>``, see ``_keys.py``) or a
raw key, a ``uint32`` array whose last axis has length 2 (JAX's legacy ``PRNGKey`` layout); a
batch of raw keys has shape ``(..., 2)``. Every function takes both and gives keys of the
kind it was given. The hash, ``split``, ``fold_in`` and the bit streams
follow ``jax.random`` with its default ``jax_threefry_partitionable=True``, so the same key
gives the same bits as JAX. Everything is written with ``funcarray.numpy`` operations (no
primitive of its own), so it runs eagerly, under ``vmap``, ``grad`` and ``jit`` alike.

The private helpers here take *batched* keys (shape ``batch + (2,)``) and give results of
shape ``batch + shape``: the samplers use them to draw per-element streams in one pass.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, overload

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.arguments import asarray_arg, convert, is_array
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.numpy._creation import shape_tuple as canonical_shape
from funcarray.random._keys import KeyArray, impl_dtype, key_bits

if TYPE_CHECKING:
    from collections.abc import Sequence

    from funcarray.base.typing import ArrayLike, DTypeLike, ShapeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["key", "PRNGKey", "key_data", "wrap_key_data", "split", "fold_in", "bits",
           "threefry2x32", "clone", "key_impl"]

_UINT32 = dtypes.uint32
# Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
# SC 2011): the rotation schedule alternates between these two groups of four rounds.
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KEY_PARITY = 0x1BD11BDA
_UINT_OF_WIDTH = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}


# --------------------------------------------------------------------------------------------
# The hash
# --------------------------------------------------------------------------------------------

def _rotate_left(x, distance: int):
    return fnp.left_shift(x, distance) | fnp.right_shift(x, 32 - distance)


def _threefry_rounds(k1, k2, x1, x2):
    """Threefry-2x32 on broadcast-compatible uint32 operands (no checks)."""
    schedule = (k1, k2, k1 ^ k2 ^ _KEY_PARITY)
    x1, x2 = x1 + schedule[0], x2 + schedule[1]
    for block in range(5):
        for distance in _ROTATIONS[block % 2]:
            x1 = x1 + x2
            x2 = _rotate_left(x2, distance) ^ x1
        # Inject the key schedule (rotated by one each block) and the block counter.
        x1 = x1 + schedule[(block + 1) % 3]
        x2 = x2 + schedule[(block + 2) % 3] + (block + 1)
    return x1, x2


@api_boundary
def threefry2x32(key1: ArrayLike, key2: ArrayLike, count1: ArrayLike, count2: ArrayLike
                ) -> tuple[Array, Array]:
    """The Threefry-2x32 block cipher: hash the counter pairs ``(count1, count2)`` under the key
    ``(key1, key2)``; all four are uint32 arrays that broadcast together.

    This is the bijection every sampler in ``funcarray.random`` draws its bits from.

    Example:
        >>> import funcarray.numpy as fnp
        >>> import funcarray.random as fr
        >>> y1, y2 = fr.threefry2x32(*(fnp.zeros((), fnp.uint32),) * 4)
        >>> [hex(int(y1)), hex(int(y2))]
        ['0x6b200159', '0x99ba4efe']
    """
    operands = [asarray_arg("threefry2x32", x) for x in (key1, key2, count1, count2)]
    for x in operands:
        if x.dtype != _UINT32:
            got = ", ".join(str(o.dtype) for o in operands)
            raise op_type_error("threefry2x32", f"needs uint32 operands, got {got}")
    return _threefry_rounds(*(convert(x, _UINT32) for x in operands))


def _counters(shape: tuple):
    """The high and low 32-bit words of a row-major uint64 counter over ``shape``."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise op_value_error("funcarray.random",
                             f"cannot draw 2**32 or more values at once, got shape {shape}")
    low = fnp.reshape(fnp.arange(size, dtype=_UINT32), shape)
    return fnp.zeros(shape, _UINT32), low


def _hash_counters(keys, shape: tuple):
    """Threefry of the counters over ``shape`` under each key of the batch ``keys[..., :]``:
    two uint32 arrays of shape ``keys.shape[:-1] + shape``."""
    batch = keys.shape[:-1]
    tail = (1,) * len(shape)
    k1 = fnp.reshape(keys[..., 0], batch + tail)
    k2 = fnp.reshape(keys[..., 1], batch + tail)
    high, low = _counters(shape)
    y1, y2 = _threefry_rounds(k1, k2, high, low)
    full = batch + tuple(shape)
    # A 0-d shape broadcasts through the key batch already; make sure even an empty key batch
    # keeps the full shape.
    return fnp.broadcast_to(y1, full), fnp.broadcast_to(y2, full)


def _split(keys, shape: tuple):
    """``split`` of a batch of keys: shape ``batch + shape + (2,)``."""
    y1, y2 = _hash_counters(keys, tuple(shape))
    return fnp.stack([y1, y2], axis=-1)


def _random_bits(keys, bit_width: int, shape: tuple):
    """Uniform bits of ``bit_width`` (8, 16, 32 or 64) for each key: ``batch + shape``."""
    y1, y2 = _hash_counters(keys, tuple(shape))
    if bit_width == 64:
        high = convert(y1, dtypes.uint64)
        return fnp.left_shift(high, 32) | convert(y2, dtypes.uint64)
    mixed = y1 ^ y2
    return mixed if bit_width == 32 else convert(mixed, _UINT_OF_WIDTH[bit_width])


def _fold_in(keys, data):
    """``fold_in`` of a batch of keys with uint32 ``data`` of the batch's shape."""
    y1, y2 = _threefry_rounds(keys[..., 0], keys[..., 1], fnp.zeros_like(data), data)
    return fnp.stack([y1, y2], axis=-1)


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------

_KEY_KINDS = ("a typed key from funcarray.random.key, or raw key data: a uint32 array of "
              "shape (2,) from funcarray.random.PRNGKey")


def check_key(op: str, key, *, batched: bool = False):
    """The raw data of ``key`` (a typed key array or a raw key): a uint32 Array (or tracer) of
    shape ``(2,)`` (``(..., 2)`` when batched)."""
    if isinstance(key, KeyArray):
        if not batched and key.ndim:
            raise op_value_error(
                op, f"takes a single key, got a key array of shape {key.shape}; map over the "
                    f"batch with funcarray.vmap")
        key = key_bits(key)  # checked below as raw data (device_get leaves a NumPy array)
    if isinstance(key, np.ndarray) and key.dtype == np.uint32:
        key = Array(np.array(key))
    if not is_array(key):
        raise op_type_error(op, f"expected a key ({_KEY_KINDS}), got {type(key).__name__}")
    if key.dtype != _UINT32 or key.ndim < 1 or key.shape[-1] != 2:
        raise op_type_error(op, f"expected a key ({_KEY_KINDS}), got {key.dtype}{list(key.shape)}")
    if not batched and key.ndim != 1:
        raise op_value_error(
            op, f"takes a single key of shape (2,), got a batch of keys of shape {key.shape}; "
                f"map over the batch with funcarray.vmap")
    return key


def _like(key, data):
    """``data`` as keys of the kind ``key`` is: typed if it is typed, raw otherwise."""
    return KeyArray(data, key.dtype) if isinstance(key, KeyArray) else data


# --------------------------------------------------------------------------------------------
# Public key functions
# --------------------------------------------------------------------------------------------

_INT64_RANGE = (-(2 ** 63), 2 ** 64)


def _seed_array(seed):
    if isinstance(seed, bool) or (is_array(seed) and seed.dtype == np.bool_):
        raise op_type_error("key", "the seed must be an integer, got a bool")
    if isinstance(seed, int):
        # A Python int seed is used modulo 2**32, as JAX does in its default (32-bit) mode:
        # ``PRNGKey(-1)`` and ``PRNGKey(2**40 + 7)`` give JAX's keys. (Python ints are int32
        # everywhere else in funcarray too; pass an int64 array for a 64-bit seed.)
        if not _INT64_RANGE[0] <= seed < _INT64_RANGE[1]:
            raise op_value_error("key", f"the seed {seed} does not fit in 64 bits")
        return Array(np.asarray(seed % 2 ** 32, _UINT32))
    if isinstance(seed, float):
        raise op_type_error("key", f"the seed must be an integer, got the float {seed}")
    seed = asarray_arg("key", seed)
    if not dtypes.is_integer(seed.dtype):
        raise op_type_error("key", f"the seed must be an integer, got dtype {seed.dtype}")
    if seed.ndim:
        raise op_type_error(
            "key", f"takes a scalar seed, got an array of shape {seed.shape}; make a batch of "
                   f"keys with funcarray.vmap(funcarray.random.key)(seeds) or with split")
    return seed


@api_boundary
def key(seed: ArrayLike, *, impl: str | None = None) -> KeyArray:
    """A typed PRNG key made from an integer seed: a scalar key array of dtype ``key<fry>``.

    Its data (``key_data``) is ``PRNGKey(seed)``'s. ``split`` and ``fold_in`` of a typed key
    give typed keys; arithmetic on keys is an error (``key_data`` gives the raw bits). Under
    jit, vmap, scan and the other transforms a key travels as its uint32 data.

    Example:
        >>> import funcarray.random as fr
        >>> fr.key(42)
        Array((), dtype=key<fry>) overlaying:
        [ 0 42]
        >>> fr.key_data(fr.key(42))
        Array([ 0, 42], dtype=uint32)
    """
    return KeyArray(_raw_key(seed), impl_dtype("key", impl))


@api_boundary
def PRNGKey(seed: ArrayLike, *, impl: str | None = None) -> Array:  # noqa: N802 (JAX's name)
    """A raw PRNG key made from an integer seed: a ``uint32`` array of shape ``(2,)`` (JAX's
    legacy key layout).

    A Python int or an array of 32 bits or fewer gives ``[0, seed as uint32]`` (a Python int
    modulo 2**32): ``jax.random.PRNGKey(seed)`` in JAX's default mode, also for negative and
    huge Python ints. An int64/uint64 array gives ``[high 32 bits, low 32 bits]``, what JAX
    gives for it with ``jax_enable_x64`` (the only JAX mode with 64-bit integers).

    Example:
        >>> import funcarray.numpy as fnp
        >>> import funcarray.random as fr
        >>> fr.PRNGKey(42)
        Array([ 0, 42], dtype=uint32)
        >>> fr.PRNGKey(2**32 + 5)
        Array([0, 5], dtype=uint32)
        >>> fr.PRNGKey(fnp.asarray(2**32 + 5, fnp.int64))
        Array([1, 5], dtype=uint32)
    """
    impl_dtype("PRNGKey", impl)
    return _raw_key(seed)


def _raw_key(seed):
    seed = _seed_array(seed)
    if seed.dtype.itemsize == 8:
        unsigned = fnp.asarray(seed, dtype=dtypes.uint64) if seed.dtype == dtypes.int64 else seed
        high = convert(fnp.right_shift(unsigned, 32), _UINT32)
        low = convert(unsigned & 0xFFFFFFFF, _UINT32)
    else:
        # Narrow signed seeds are sign-extended to 32 bits first, as in JAX.
        wide = convert(seed, dtypes.int32 if seed.dtype.kind == "i" else _UINT32)
        low, high = convert(wide, _UINT32), fnp.zeros((), _UINT32)
    return fnp.stack([high, low])


@api_boundary
def key_data(keys: KeyArrayLike) -> Array:
    """The uint32 data of a key array (shape ``keys.shape + (2,)``); a raw key (a uint32
    ``(..., 2)`` array) is its own data.

    Example:
        >>> import funcarray.random as fr
        >>> fr.key_data(fr.key(7))
        Array([0, 7], dtype=uint32)
        >>> fr.key_data(fr.split(fr.key(7), 3)).shape
        (3, 2)
    """
    return check_key("key_data", keys, batched=True)


@api_boundary
def wrap_key_data(key_bits_array: ArrayLike, *, impl: str | None = None) -> KeyArray:
    """The inverse of ``key_data``: a typed key array over a uint32 ``(..., 2)`` array.

    Example:
        >>> import funcarray.numpy as fnp, funcarray.random as fr
        >>> fr.wrap_key_data(fnp.asarray([[0, 7], [1, 2]], dtype=fnp.uint32))
        Array((2,), dtype=key<fry>) overlaying:
        [[0 7]
         [1 2]]
    """
    dtype = impl_dtype("wrap_key_data", impl)
    data = check_key("wrap_key_data", asarray_arg("wrap_key_data", key_bits_array),
                     batched=True)
    return KeyArray(data, dtype)


@overload
def split(key: KeyArray, num: int | Sequence[int] = 2) -> KeyArray: ...
@overload
def split(key: ArrayLike, num: int | Sequence[int] = 2) -> Array: ...
@api_boundary
def split(key: KeyArrayLike, num: int | Sequence[int] = 2) -> KeyArray | Array:
    """Split a key into ``num`` new independent keys (``num`` may be a shape tuple): typed keys
    of shape ``num`` from a typed key, raw keys of shape ``num + (2,)`` from a raw one.

    Example:
        >>> import funcarray.random as fr
        >>> fr.split(fr.key(0)).shape
        (2,)
        >>> fr.split(fr.key(0), (3, 4)).shape
        (3, 4)
        >>> fr.split(fr.PRNGKey(0), 3).shape
        (3, 2)
    """
    shape = canonical_shape("split", num)
    return _like(key, _split(check_key("split", key), shape))


@overload
def fold_in(key: KeyArray, data: ArrayLike) -> KeyArray: ...
@overload
def fold_in(key: ArrayLike, data: ArrayLike) -> Array: ...
@api_boundary
def fold_in(key: KeyArrayLike, data: ArrayLike) -> KeyArray | Array:
    """A new key made from ``key`` and a 32-bit integer ``data`` (e.g. a step number), of the
    kind ``key`` is (typed or raw).

    Example:
        >>> import funcarray.random as fr
        >>> k = fr.key(0)
        >>> bool((fr.fold_in(k, 1) != fr.fold_in(k, 2)).any())
        True
    """
    raw = check_key("fold_in", key)
    if isinstance(data, int) and not isinstance(data, bool):
        if not 0 <= data < 2 ** 32:
            raise op_value_error("fold_in", f"data must fit in uint32, got {data}")
        data = Array(np.asarray(data, _UINT32))
    data = asarray_arg("fold_in", data)
    if data.ndim:
        raise op_type_error(
            "fold_in", f"takes a scalar, got an array of shape {data.shape}; use funcarray.vmap "
                       f"to fold in a batch")
    if not dtypes.is_integer(data.dtype):
        raise op_type_error("fold_in", f"data must be an integer, got dtype {data.dtype}")
    return _like(key, _fold_in(raw, convert(data, _UINT32)))


@api_boundary
def bits(key: KeyArrayLike, shape: ShapeLike = (), dtype: DTypeLike | None = None) -> Array:
    """Uniform random bits as unsigned integers (uint32 unless ``dtype`` says otherwise).

    Reproduces ``jax.random.bits`` bit for bit for the same key, shape and dtype.

    Example:
        >>> import funcarray.random as fr
        >>> fr.bits(fr.key(0), (3,)).dtype
        dtype('uint32')
    """
    key = check_key("bits", key)
    shape = canonical_shape("bits", shape)
    dtype = _UINT32 if dtype is None else dtypes.canonicalize_dtype(dtype)
    if dtype.kind != "u":
        raise op_value_error("bits", f"dtype must be an unsigned integer dtype, got {dtype}")
    return _random_bits(key, dtype.itemsize * 8, shape)


@overload
def clone(key: KeyArray) -> KeyArray: ...
@overload
def clone(key: ArrayLike) -> Array: ...
@api_boundary
def clone(key: KeyArrayLike) -> KeyArray | Array:
    """A copy of ``key`` for deliberate reuse; funcarray has no key-reuse checker, so (as
    JAX's outside its checker) this is the identity.

    Example:
        >>> import funcarray.random as fr
        >>> k = fr.key(0)
        >>> bool(fr.uniform(k) == fr.uniform(fr.clone(k)))
        True
    """
    return _like(key, check_key("clone", key, batched=True))


@api_boundary
def key_impl(keys: KeyArrayLike) -> str:
    """The name of the PRNG implementation behind ``keys``: ``"threefry2x32"``, the only one
    funcarray has (JAX's answer for raw uint32 keys too).

    Example:
        >>> import funcarray.random as fr
        >>> fr.key_impl(fr.key(0))
        'threefry2x32'
    """
    check_key("key_impl", keys, batched=True)
    return keys.dtype.impl if isinstance(keys, KeyArray) else "threefry2x32"
