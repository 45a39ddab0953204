"""array-api-strict (the Array API standard's reference implementation, set to 2024.12) as the
oracle of funcarray.numpy's conformance tables: the standard's names, operands over its
dtypes, and the one comparison, with every allowance the tables make.

A case is a ``call(xp, *arrays)`` run on both namespaces with the same NumPy operands,
eagerly and under ``fa.jit`` (one compilation for a batch of cases: compiling dominates).

Allowances (the only ones; docs/array_api.md, "How conformance is checked"):

* Where array-api-strict raises, the standard does not define the call (a dtype it does not
  allow the function, Python scalars of another kind than the array, integer powers with
  negative exponents...): funcarray's answer is not checked there (it is jax.numpy's), and
  raising is not required.
* ``result="index"``: results the standard types as the default index dtype (``argmax``,
  ``argsort``, ``nonzero``, ``searchsorted``, the ``unique_*`` indices and counts...)
  are funcarray's default index dtype int32, array-api-strict's int64.
* ``result="default"``: results whose dtype the standard leaves to the library's default
  (``sum``/``prod``/``trace``/``cumulative_*`` of integers without ``dtype=``, creation
  without ``dtype=``): funcarray's 32-bit defaults (int32, uint32, float32, complex64) where
  array-api-strict has its 64-bit ones, values compared in funcarray's dtype.
* Values: NaN equals NaN (the standard leaves NaN payloads and signs open); floating results
  agree within a few units in the last place (``RTOL``; the eager kernels and XLA round
  transcendental functions differently); the other functions within 1e-4 (32-bit) or 1e-10
  (64-bit), relative and absolute, as reductions, decompositions and transforms round in
  another order, and decompositions by what the standard fixes (eigenvalues, ``|R|`` and
  ``Q @ R``, singular values and ``U @ diag(S) @ Vh``), not by vectors unique only up to
  phases. Integer operands stay small where sums of products would overflow (the standard
  leaves integer overflow open).
  Zeros' signs of real floating results must match in the elementwise tables (IEEE 754 and
  the standard's special cases fix them), except where the standard leaves them open
  (``sign`` of a zero, ``maximum``/``minimum`` of zeros of both signs). Under jit, XLA
  simplifies ``x + 0`` to ``x`` (as for jax), so ``-0.0 + 0`` with a Python zero is
  ``-0.0`` there (IEEE 754: ``+0.0``): zero signs of a sum or difference with a Python
  zero are checked eagerly only.
* ``floor_divide`` with an infinite operand: NumPy (hence array-api-strict) departs from the
  standard (``floor_divide(inf, 1.0)`` is NaN there, the standard's ``+inf``); funcarray
  follows the standard (docs/decisions.md), which ``test_array_api_special_cases.py``
  checks. Its tables here have no infinities.
* Complex zeros and special values: complex operands here are finite with +0 parts, and a
  real operand mixed with a complex one has no edge values. NumPy (hence array-api-strict)
  departs from the standard at complex infinities and NaNs (``expm1(nan+0j)``), which
  ``test_array_api_special_cases.py`` checks against the standard's own table; complex
  division and multiplication by infinities or zeros are left open by the standard; and
  funcarray, as jax (XLA), ignores the sign of a zero part on branch cuts (``sqrt(-2-0j)``
  is ``+1.414j``, where the standard's ``sqrt(conj(x)) == conj(sqrt(x))`` asks
  ``-1.414j``; ``asinh(-0-2j)``): a known difference (docs/decisions.md), not checked here.

Example:
    >>> case = Case("add(int8, int8)", lambda xp, x, y: xp.add(x, y),
    ...             (np.int8([1, 2]), np.int8([3, 4])))
    >>> check_cases([case])
    2
"""

from __future__ import annotations

import inspect
import os
import re
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import array_api_strict as xps
import numpy as np
from hypothesis import settings
from hypothesis.errors import InvalidArgument

import funcarray as fa
import funcarray.numpy as fnp

__all__ = ["DTYPES", "BOOL", "INTEGER", "REAL_FLOAT", "COMPLEX", "FLOATING", "REAL", "NUMERIC",
           "Case", "check_cases", "strict_results", "assert_conforms", "operand", "thorough",
           "sample", "strict_2024_12", "standard_names", "standard_function_names",
           "STRICT_ARRAY_METHODS", "STRICT_ARRAY_ATTRIBUTES", "IN_PLACE_OPERATORS",
           "STRICT_ONLY"]

BOOL = ("bool",)
INTEGER = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
REAL_FLOAT = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOATING = REAL_FLOAT + COMPLEX
REAL = INTEGER + REAL_FLOAT
NUMERIC = REAL + COMPLEX
DTYPES = BOOL + NUMERIC

# Relative tolerances by result dtype: a few units in the last place.
RTOL = {np.dtype("float32"): 2e-5, np.dtype("complex64"): 2e-5,
        np.dtype("float64"): 1e-12, np.dtype("complex128"): 1e-12}
# strict's 64-bit default dtype of each kind -> funcarray's default of that kind
_DEFAULT_OF = {np.dtype("int64"): np.dtype("int32"), np.dtype("uint64"): np.dtype("uint32"),
               np.dtype("float64"): np.dtype("float32"),
               np.dtype("complex128"): np.dtype("complex64")}
_INDEX_DTYPE = np.dtype(fnp.__array_namespace_info__().default_dtypes()["indexing"])


# ---------------------------------------------------------------- the standard's names

# array-api-strict's own helpers and device class, not names the standard asks for
STRICT_ONLY = {"ArrayAPIStrictFlags", "get_array_api_strict_flags",
               "set_array_api_strict_flags", "reset_array_api_strict_flags", "__version__",
               "Device"}
# Python's object protocol and NumPy interop on array-api-strict's array, not the standard's
_STRICT_ARRAY_ONLY = {"__array__", "__buffer__", "__iter__", "__repr__", "__str__", "__new__",
                      "__reduce__", "__hash__"}
IN_PLACE_OPERATORS = ["__iadd__", "__iand__", "__ifloordiv__", "__ilshift__", "__imatmul__",
                      "__imod__", "__imul__", "__ior__", "__ipow__", "__irshift__",
                      "__isub__", "__itruediv__", "__ixor__"]


def strict_2024_12(read):
    """``read()`` with array-api-strict set to the 2024.12 standard."""
    with xps.ArrayAPIStrictFlags(api_version="2024.12"):
        return read()


def _newer_than_2024_12(obj) -> bool:
    """array-api-strict lists functions of later drafts too (isin), wrapped by
    ``requires_api_version``, whose closure holds the version they need."""
    cells = getattr(obj, "__closure__", None) or ()
    return any(isinstance(c.cell_contents, str) and re.fullmatch(r"\d{4}\.\d{2}", c.cell_contents)
               and c.cell_contents > "2024.12" for c in cells)


def _standard_names():
    return [n for n in xps.__all__
            if n not in STRICT_ONLY and not _newer_than_2024_12(getattr(xps, n))]


def _standard_functions():
    out = [(n, getattr(xps, n), fnp) for n in _standard_names()
           if inspect.isfunction(getattr(xps, n))]
    for ext in ("linalg", "fft"):
        out += [(f"{ext}.{n}", getattr(getattr(xps, ext), n), getattr(fnp, ext))
                for n in getattr(xps, ext).__all__]
    return out


def standard_names() -> list[str]:
    """Every name of the 2024.12 main namespace (functions, constants, dtypes)."""
    return strict_2024_12(_standard_names)


def standard_function_names() -> list[tuple[str, Callable, object]]:
    """(qualified name, array-api-strict's function, funcarray's owner namespace) of every
    function of the 2024.12 standard, ``linalg.*`` and ``fft.*`` included."""
    return strict_2024_12(_standard_functions)


_STRICT_ARRAY = type(xps.asarray(1.0))
STRICT_ARRAY_METHODS = sorted(
    (n, v) for n, v in vars(_STRICT_ARRAY).items()
    if inspect.isfunction(v) and (n.startswith("__") or not n.startswith("_"))
    and n not in _STRICT_ARRAY_ONLY and n not in IN_PLACE_OPERATORS)
STRICT_ARRAY_ATTRIBUTES = sorted(n for n, v in vars(_STRICT_ARRAY).items()
                                 if isinstance(v, property))


# ---------------------------------------------------------------- operands and sampling

def thorough() -> bool:
    """The thorough Hypothesis profile (tests/conftest.py) is loaded: run every case."""
    try:
        return settings.default.max_examples >= settings.get_profile("thorough").max_examples
    except InvalidArgument:  # imported outside pytest: no profiles registered
        return False


def _rng(key: str) -> np.random.Generator:
    """One generator per case label (independent of test order); the thorough profile mixes
    in its seed, so each thorough run draws other values."""
    seed = zlib.crc32(key.encode())
    if thorough():
        seed ^= int(os.environ.get("FUNCARRAY_HYPOTHESIS_SEED", "0")) & 0xFFFFFFFF
    return np.random.default_rng(seed)


# Edge values put first in an "edge" operand, by kind
_FLOAT_EDGES = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5)
# Complex operands stay finite with +0 parts: see "Complex zeros and special values" above.
_COMPLEX_EDGES = (0j, 1.0, -1.0, 1j, -1j)
_INTEGER_EDGES = (0, 1, -1, 2)


def operand(dtype: str, shape, key: str, kind: str = "any") -> np.ndarray:
    """Values of ``dtype`` and ``shape`` for the case ``key``: ``"any"`` (small random
    values), ``"pos"`` (positive: divisors, shift counts, exponents), ``"small"`` (integers
    in [-3, 3], whose sums of products do not overflow), ``"edge"`` (NaN, infinities, signed
    zeros, then random values), ``"finite-edge"`` (the same without infinities)."""
    dt, rng = np.dtype(dtype), _rng(key)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        bound = 3 if kind == "small" else 20
        lo = 1 if kind == "pos" else max(info.min, -bound)
        v = rng.integers(lo, min(info.max, bound) + 1, n)
        if kind in ("edge", "finite-edge"):
            edges = [e for e in _INTEGER_EDGES if e >= info.min]
            v[:len(edges)] = edges[:n]
    elif dt.kind == "f":
        v = rng.standard_normal(n) * 3
        if kind == "pos":
            v = np.abs(v) + 0.1
        elif kind in ("edge", "finite-edge"):
            edges = [e for e in _FLOAT_EDGES if kind == "edge" or np.isfinite(e) or np.isnan(e)]
            v[:len(edges)] = edges[:n]
    else:
        v = rng.standard_normal(n) * 2 + 2j * rng.standard_normal(n)
        if kind in ("edge", "finite-edge"):
            v[:len(_COMPLEX_EDGES)] = _COMPLEX_EDGES[:n]
    return np.asarray(v).astype(dt).reshape(shape)


def sample(cases: list, count: int, key: str) -> list:
    """All cases under the thorough profile; else ``count`` of them, evenly spaced from an
    offset fixed by ``key`` (so different tables jit different dtypes)."""
    if thorough() or len(cases) <= count:
        return list(cases)
    step = len(cases) / count
    offset = zlib.crc32(key.encode()) % max(int(step), 1)
    return [cases[int(offset + k * step)] for k in range(count)]


# ---------------------------------------------------------------- cases and the comparison

@dataclass
class Case:
    """``call(xp, *arrays)`` on ``operands`` (NumPy arrays) in both namespaces.

    ``result``: ``"same"`` (dtype as array-api-strict's), ``"index"`` or ``"default"`` (the
    allowances above); ``rtol``/``atol`` override the dtype's tolerance; ``signed_zeros``:
    zeros' signs must match (``"eager"``: eagerly only); ``jit``: False for data-dependent
    shapes."""

    label: str
    call: Callable
    operands: tuple = ()
    result: str = "same"
    rtol: float | None = None
    atol: float = 0.0
    signed_zeros: bool | str = False
    jit: bool = True
    want: object = field(default=None, repr=False)


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def strict_results(cases: list[Case]) -> list:
    """array-api-strict's result of each case, None where it raises (the call is not the
    standard's)."""
    out = []
    with warnings.catch_warnings(), np.errstate(all="ignore"), \
            xps.ArrayAPIStrictFlags(api_version="2024.12"):
        warnings.simplefilter("ignore")
        for case in cases:
            try:
                # copies: the in-place operators write into array-api-strict's operands
                out.append(case.call(xps, *(xps.asarray(o.copy()) for o in case.operands)))
            except Exception:  # noqa: BLE001 - any refusal: not defined by the standard
                out.append(None)
    return out


def assert_conforms(got, want, case: Case, how: str) -> None:  # noqa: C901
    """funcarray's result ``got`` against array-api-strict's ``want`` (an array, a tuple of
    them, or Python scalars), with the module's allowances."""
    where = f"{case.label} ({how})"
    gots, wants = _leaves(got), _leaves(want)
    assert len(gots) == len(wants), f"{where}: {len(gots)} results, the standard's {len(wants)}"
    for k, (g, w) in enumerate(zip(gots, wants)):
        at = f"{where}, result {k}"
        if not hasattr(w, "dtype"):  # a Python scalar (bool(x), int(x), x.shape...)
            assert type(g) is type(w), f"{at}: {type(g).__name__}, the standard's {type(w)}"
            assert g == w or (isinstance(w, (float, complex)) and np.isnan(w) and np.isnan(g)), \
                f"{at}: {g!r}, the standard's {w!r}"
            continue
        assert isinstance(g, fa.Array), f"{at}: {type(g).__name__}, not a funcarray Array"
        g, w = np.asarray(g), np.asarray(w)
        if case.result == "index" and w.dtype == np.int64 and g.dtype == _INDEX_DTYPE:
            w = w.astype(_INDEX_DTYPE)
        elif case.result == "default" and _DEFAULT_OF.get(w.dtype) == g.dtype:
            w = w.astype(g.dtype)
        assert g.shape == w.shape, f"{at}: shape {g.shape}, the standard's {w.shape}"
        assert g.dtype == w.dtype, f"{at}: dtype {g.dtype}, the standard's {w.dtype}"
        if w.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, w, err_msg=at)
            continue
        rtol = RTOL[w.dtype] if case.rtol is None else case.rtol
        np.testing.assert_allclose(g, w, rtol=rtol, atol=case.atol, equal_nan=True, err_msg=at)
        if case.signed_zeros in (True, how) and w.dtype.kind == "f":
            zeros = (w == 0) & (g == 0)
            assert np.array_equal(np.signbit(g[zeros]), np.signbit(w[zeros])), \
                f"{at}: zero signs {g[zeros]}, the standard's {w[zeros]}"


def check_cases(cases: list[Case], *, jit_count: int | None = None, key: str = "") -> int:
    """Each case the standard defines (array-api-strict does not raise) eagerly, and under
    one ``fa.jit`` all of them (``jit_count=None``) or ``sample(..., jit_count, key)`` of
    them. Returns the number of comparisons made."""
    defined = []
    for case, want in zip(cases, strict_results(cases)):
        case.want = want
        if want is not None:
            defined.append(case)
    for case in defined:
        got = case.call(fnp, *(fnp.asarray(o) for o in case.operands))
        assert_conforms(got, case.want, case, "eager")
    traceable = [c for c in defined if c.jit]
    chosen = traceable if jit_count is None else sample(traceable, jit_count, key)
    if chosen:
        arrays = [tuple(fnp.asarray(o) for o in c.operands) for c in chosen]
        try:
            outs = fa.jit(lambda ins: [c.call(fnp, *a) for c, a in zip(chosen, ins)])(arrays)
        except Exception:
            for c, a in zip(chosen, arrays):  # name the case that does not trace
                try:
                    fa.jit(lambda args, c=c: c.call(fnp, *args))(a)
                except Exception as error:
                    raise AssertionError(f"{c.label} (jit): {error}") from error
            raise
        for c, got in zip(chosen, outs):
            assert_conforms(got, c.want, c, "jit")
    return len(defined) + len(chosen)
