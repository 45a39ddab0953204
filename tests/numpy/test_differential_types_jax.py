"""Differential test of ``funcarray.numpy``'s scalar types (``fnp.int8(2.7)``...) and of its
questions about types and shapes (``result_type``, ``finfo``, ``ndim``...) against jax.

``SCALAR_TYPE_OPS`` calls each scalar type constructor with Python numbers of every kind (ints
beyond every range, floats at the edges, complex, bool), numeric strings, lists, NumPy arrays
and scalars of every dtype (eagerly and as constants under jit) and funcarray arrays (traced
under jit), and compares funcarray eager, funcarray jit and jax as the shapes table does
(``check_case`` there): whether they raise, shape, dtype, weak type and value.

``TYPE_QUERY_OPS`` calls the functions that answer with Python objects (a dtype, a bool, a
tuple, machine limits) on the same mix of dtypes, scalar types, Python types and scalars,
strings, arrays and weakly typed arrays, and compares the answers (and whether they raise);
for those that take arrays the funcarray answer is also read under jit, on traced arrays.
jax runs with x64 on only when a 64-bit dtype takes part.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from differential_compare import BITS_64, Case, Raised, attempt
from differential_values import array_of, python_scalars
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, ANY
from test_differential_shapes_jax import (
    ShapeOp,
    _compare_outputs,
    _run_creation,
    _run_eager,
    _run_jit,
)

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import dtypes

# ============================================================================================
# Scalar type constructors
# ============================================================================================

_STANDARD_TYPES = (
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "int_", "uint", "float16", "float32", "float64", "float_", "double", "single", "bfloat16",
    "complex64", "complex128", "complex_", "cdouble", "csingle")
_ML_TYPES = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
    "float6_e3m2fn", "int2", "int4", "uint2", "uint4")
_NARROW_DTYPES = tuple(np.dtype(getattr(ml_dtypes, n)) for n in _ML_TYPES)
_NARROW_INTS = _NARROW_DTYPES[-4:]


def _construct(name):
    """``ns.<name>(value)``: the value a funcarray array (``x``, traced under jit) or any
    other value (``value``, a constant under jit). ``target`` is the type's dtype, there for
    the x64 choice alone."""
    def call(ns, x=None, *, value=None, target=None):
        return getattr(ns, name)(value if x is None else x)
    return call


SCALAR_TYPE_OPS = tuple(ShapeOp(name, _construct(name)) for name in _STANDARD_TYPES + _ML_TYPES)

_PYTHON_EDGES = st.sampled_from((
    2.7, -2.7, -0.0, np.nan, np.inf, -np.inf, 300.7, -129.5, 1e10, 0.5, 1e-40, 3.0,
    2**63 - 1, 2**63, 2**64 - 1, -2**63 - 1, 1 + 2j, -0.0j, True, False))
_STRINGS = st.sampled_from(("3", "2.5", "-1", "nan", "1+2j", "300", "", "x", b"7"))
_SOURCE_DTYPES = ALL_DTYPES + _NARROW_DTYPES[:3]


@st.composite
def _constructor_values(draw):
    """A value for a scalar type: as a Python object (``value``) or a funcarray array."""
    form = draw(st.sampled_from(("python", "edge", "string", "list", "numpy", "numpy scalar",
                                 "array")), label="form")
    if form in ("numpy", "numpy scalar", "array"):
        dtype = draw(st.sampled_from(_SOURCE_DTYPES), label="source dtype")
        shape = () if form == "numpy scalar" else draw(st.sampled_from(((), (2,), (0,))))
        value = draw(array_of(dtype, shape, ANY), label="value")
        if form == "array":
            return None, value
        return (value[()] if form == "numpy scalar" else value), None
    value = draw({"python": python_scalars(ANY), "edge": _PYTHON_EDGES, "string": _STRINGS,
                  "list": st.lists(st.one_of(python_scalars(ANY), _PYTHON_EDGES),
                                   max_size=3)}[form], label="value")
    return value, None


def _scalar_case(op, value, operand):
    target = np.dtype(getattr(fnp, op.name))
    kwargs = {"target": target} if operand is not None else {"value": value, "target": target}
    return Case(operand, kwargs)


def _x64_for(case) -> bool:
    values = [case.kwargs["target"], case.operand, case.kwargs.get("value")]
    return any(np.dtype(getattr(v, "dtype", v)) in BITS_64 for v in values
               if isinstance(v, (np.dtype, np.ndarray, np.generic)))


def _numpy_conversion(case):
    """NumPy's (ml_dtypes') conversion of the value: what jax's constructor computes before
    handing the result to its runtime."""
    value = case.operand if case.operand is not None else case.kwargs["value"]
    return attempt(lambda: _HostResult(np.asarray(value, case.kwargs["target"])), False)


@dataclasses.dataclass(frozen=True)
class _HostResult:
    """A NumPy array dressed as a strongly typed result, for ``attempt``."""

    value: np.ndarray
    weak_type: bool = False

    def __array__(self, dtype=None, copy=None):
        return self.value


_FLOAT6 = {np.dtype(ml_dtypes.float6_e2m3fn), np.dtype(ml_dtypes.float6_e3m2fn)}


def jax_runtime_lacks_float6(target) -> bool:
    """jax's CPU runtime cannot hold the float6 dtypes (``Invalid XLA PrimitiveType``; a
    conversion of a device array to one aborts the process), which funcarray holds as
    ml_dtypes values: its eager conversion is compared with NumPy's (ml_dtypes') instead."""
    return np.dtype(target) in _FLOAT6


def funcarray_jit_refuses_float6(target, what, got) -> bool:
    """funcarray's jit refuses float6 values with an error that says why (XLA has no float6
    arithmetic and its compiler crashes on float6 constants) and how to run it eagerly."""
    return (np.dtype(target) in _FLOAT6 and what == "jit" and isinstance(got, Raised)
            and "XLA cannot run" in str(got.exc))


def _out_of_range_or_nan(value, dtype) -> bool:
    """Whether some element of the (real) ``value`` has no value in the integer ``dtype``."""
    info = ml_dtypes.iinfo(dtype) if dtype in _NARROW_INTS else np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        x = np.asarray(value).real.astype(np.float64)
        return bool((np.isnan(x) | (np.trunc(x) < int(info.min))
                     | (np.trunc(x) > int(info.max))).any())


def float_beyond_integer_range_on_device(case, target) -> bool:
    """A float array element converted to an integer dtype that cannot hold it (NaN, beyond
    the range): the result is implementation-defined (XLA's convert, NumPy's cast) and the
    value is not compared; shape, dtype and weak type still are."""
    target = np.dtype(target)
    return (case.operand is not None and (target.kind in "iu" or target in _NARROW_INTS)
            and dtypes.is_inexact(case.operand.dtype)
            and _out_of_range_or_nan(case.operand, target))


def subnormal_or_unrepresentable_on_device(case, target) -> bool:
    """An array element XLA converts in float32 and reads as zero there (a float32
    subnormal, or a float64 below float32's normal range), or a NaN, infinity or value beyond
    the range of a narrow float type (float8, float4...) that may have no NaN or infinity:
    XLA's conversion and ml_dtypes' differ there, and the value is not compared."""
    if case.operand is None or not dtypes.is_inexact(case.operand.dtype):
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.abs(np.asarray(case.operand).astype(np.complex128))
        tiny = float(np.finfo(np.float32).tiny)
        if ((x > 0) & (x < tiny)).any():
            return True
        target = np.dtype(target)
        return target in _NARROW_DTYPES[:11] and not (
            np.isfinite(x) & (x <= float(dtypes.finfo(target).max))).all()


def check_scalar_type(op, case):
    """Run one constructor call through funcarray eager, funcarray jit and jax; compare."""
    target = case.kwargs["target"]
    x64 = _x64_for(case)
    if jax_runtime_lacks_float6(target):
        want = _numpy_conversion(case)
    else:
        with jax.enable_x64(x64):
            want = _run_creation(jnp, op, case) if case.operand is None else attempt(
                lambda: op.call(jnp, jnp.asarray(case.operand), **case.kwargs), False)
    if case.operand is None:
        runs = (("eager", lambda: _run_creation(fnp, op, case)),
                ("jit", lambda: _run_creation(fnp, op, case, jit=True)))
    else:
        runs = (("eager", lambda: _run_eager(op, case)), ("jit", lambda: _run_jit(op, case)))
    compare_values = not (float_beyond_integer_range_on_device(case, target)
                          or subnormal_or_unrepresentable_on_device(case, target))
    for what, run in runs:
        got = run()
        where = f"{op.name}{case}, {what}"
        if funcarray_jit_refuses_float6(target, what, got):
            continue
        if isinstance(want, Raised) or isinstance(got, Raised):
            assert isinstance(want, Raised) and isinstance(got, Raised), (
                f"{where}: {got!r}, jax {want!r}")
            continue
        _compare_outputs(op if compare_values else dataclasses.replace(op, values=False),
                         case, where, got, want, x64)


_SCALAR_EXAMPLES = settings(max_examples=4)


@pytest.mark.parametrize("op", SCALAR_TYPE_OPS, ids=lambda op: op.name)
@_SCALAR_EXAMPLES
@given(data=st.data())
def test_scalar_types_match_jax(op, data):
    value, operand = data.draw(_constructor_values(), label="value")
    check_scalar_type(op, _scalar_case(op, value, operand))


# Defects the table found, kept as explicit examples.
_SCALAR_TYPE_EXAMPLES = (
    ("int8", 2.7, None), ("int8", -2.7, None), ("uint8", 300.7, None), ("int32", "3", None),
    ("float32", "2.5", None), ("bool_", "0", None), ("complex64", "1+2j", None),
    ("float16", ["1", "2.5"], None), ("int2", 2.7, None), ("uint4", -2.7, None),
    ("int4", [1, 2.5, 9.5], None), ("float6_e2m3fn", 2.7, None),
    ("int8", None, np.array([1.5, -2.5, 127.9], np.float32)),
)


@pytest.mark.parametrize(("name", "value", "operand"), _SCALAR_TYPE_EXAMPLES)
def test_scalar_type_examples_match_jax(name, value, operand):
    op = next(op for op in SCALAR_TYPE_OPS if op.name == name)
    check_scalar_type(op, _scalar_case(op, value, operand))


# ============================================================================================
# Questions about types and shapes
# ============================================================================================


@dataclasses.dataclass(frozen=True)
class QueryOp:
    """A function answering with a Python object: ``call(ns, *args)``, its arguments drawn
    by ``args`` as tokens that ``_resolve`` turns into each namespace's objects.
    ``takes_arrays``: its answer is also read under funcarray's jit, on traced arrays."""

    name: str
    args: st.SearchStrategy
    call: Callable | None = None
    takes_arrays: bool = True

    def run(self, ns, *args):
        return (self.call or getattr(ns, self.name))(*args)


_QUERY_DTYPES = ALL_DTYPES + _NARROW_DTYPES[:4]


def _token_strategy(*, arrays=True):
    """One argument: a token ``(kind, payload)``."""
    kinds = [
        st.sampled_from(_QUERY_DTYPES).map(lambda d: ("dtype", d)),
        st.sampled_from(_STANDARD_TYPES + _ML_TYPES[:3]).map(lambda n: ("scalar type", n)),
        st.sampled_from((int, float, complex, bool)).map(lambda t: ("python type", t)),
        st.sampled_from(("int8", "float32", "complex128", "bool", "uint64", "bfloat16", "i4",
                         "f8", "floating", "nonsense")).map(lambda s: ("string", s)),
        python_scalars(ANY).map(lambda v: ("python", v)),
    ]
    if arrays:
        kinds += [
            st.sampled_from(ALL_DTYPES).flatmap(lambda d: st.sampled_from(
                ((), (2,), (0, 3))).flatmap(lambda s: array_of(d, s, ANY))).map(
                    lambda a: ("array", a)),
            st.sampled_from((0, 2.5, 1j, True)).map(lambda v: ("weak array", v)),
            st.sampled_from(ALL_DTYPES).flatmap(lambda d: array_of(d, (), ANY)).map(
                lambda a: ("numpy scalar", a[()])),
            st.lists(st.integers(-2, 2), max_size=3).map(lambda v: ("list", v)),
        ]
    return st.one_of(*kinds)


_ABSTRACT = ("floating", "integer", "number", "inexact", "complexfloating", "signedinteger",
             "unsignedinteger", "generic", "bool_")


def _resolve(ns, token, traced=None):
    """The namespace's object for ``token``; ``traced`` replaces a (weak) array."""
    kind, payload = token
    if kind in ("array", "weak array") and traced is not None:
        return traced
    return {
        "dtype": lambda: payload,
        "scalar type": lambda: getattr(ns, payload),
        "abstract": lambda: getattr(ns, payload),
        "array": lambda: ns.asarray(payload),
        "weak array": lambda: ns.asarray(payload),
    }.get(kind, lambda: payload)()


def _array_tokens(tokens):
    return [t for t in tokens if t[0] in ("array", "weak array")]


def _tokens(n_min, n_max, *, arrays=True):
    return st.lists(_token_strategy(arrays=arrays), min_size=n_min, max_size=n_max)


# Values alone (no dtypes or types), for the questions about values: jax's iscomplexobj
# answers a dtype argument by accident (False for bool, an error for complex64).
_VALUE = _token_strategy().filter(
    lambda t: t[0] not in ("dtype", "scalar type", "python type", "string"))


_CASTING = st.sampled_from(("no", "equiv", "safe", "same_kind", "unsafe"))
_ISDTYPE_KIND = st.sampled_from((
    "bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric", "nonsense")).map(lambda k: ("kind", k))
_DTYPE_TOKEN = st.sampled_from(_QUERY_DTYPES).map(lambda d: ("dtype", d))
_SHAPE = st.one_of(st.lists(st.integers(-1, 3), max_size=3).map(tuple), st.integers(0, 3),
                   st.just((2, 0)))

TYPE_QUERY_OPS = (
    QueryOp("can_cast", st.tuples(_token_strategy().filter(lambda t: t[0] != "list"),
                                  _token_strategy(arrays=False),
                                  _CASTING.map(lambda c: ("casting", c))).map(list)),
    QueryOp("promote_types", _tokens(2, 2, arrays=False), takes_arrays=False),
    QueryOp("result_type", _tokens(0, 3)),
    QueryOp("isdtype", st.tuples(_DTYPE_TOKEN, st.one_of(
        _ISDTYPE_KIND, _DTYPE_TOKEN.map(lambda t: ("kind", t[1])),
        st.lists(st.one_of(_DTYPE_TOKEN, _ISDTYPE_KIND), min_size=1, max_size=2).map(
            lambda ks: ("kind", tuple(t[1] for t in ks))))).map(list), takes_arrays=False),
    QueryOp("issubdtype", st.tuples(_token_strategy(arrays=False), st.one_of(
        _token_strategy(arrays=False), st.sampled_from(_ABSTRACT).map(
            lambda a: ("abstract", a)))).map(list), takes_arrays=False),
    QueryOp("finfo", _tokens(1, 1)),
    QueryOp("iinfo", _tokens(1, 1)),
    QueryOp("iscomplexobj", _VALUE.map(lambda t: [t])),
    QueryOp("isrealobj", _VALUE.map(lambda t: [t])),
    QueryOp("isscalar", _tokens(1, 1)),
    QueryOp("iterable", _tokens(1, 1)),
    QueryOp("ndim", _tokens(1, 1)),
    QueryOp("shape", _tokens(1, 1)),
    QueryOp("size", st.tuples(_token_strategy(), st.one_of(
        st.none(), st.integers(-2, 2), st.just((0, 1))).map(lambda a: ("axis", a))).map(list),
            call=lambda ns, x, axis: ns.size(x) if axis is None else ns.size(x, axis)),
    QueryOp("broadcast_shapes", st.lists(_SHAPE.map(lambda s: ("shape", s)), max_size=3),
            takes_arrays=False),
)


def _resolve_all(ns, tokens, traced=()):
    it = iter(traced)
    out = []
    for token in tokens:
        if token[0] in ("array", "weak array") and traced:
            out.append(next(it))
        else:
            out.append(_resolve(ns, token))
    return out


_FINFO_FIELDS = ("bits", "dtype", "eps", "epsneg", "iexp", "machep", "max", "maxexp", "min",
                 "minexp", "negep", "nexp", "nmant", "precision", "resolution",
                 "smallest_normal", "smallest_subnormal", "tiny")
_IINFO_FIELDS = ("bits", "dtype", "kind", "max", "min")


def _plain(answer):
    """An answer as plain Python data comparable across libraries."""
    if isinstance(answer, (list, tuple)):
        return tuple(_plain(a) for a in answer)
    if isinstance(answer, (np.dtype, type)) or hasattr(answer, "dtype") and not hasattr(
            answer, "eps") and not hasattr(answer, "kind"):
        try:
            return ("dtype", str(np.dtype(answer)))
        except TypeError:
            pass
    fields = (_FINFO_FIELDS if hasattr(answer, "eps") else
              _IINFO_FIELDS if hasattr(answer, "kind") and hasattr(answer, "bits") else None)
    if fields:
        return tuple((f, _plain_number(getattr(answer, f))) for f in fields)
    return _plain_number(answer)


def _plain_number(v):
    if isinstance(v, (np.dtype, type)):
        return str(np.dtype(v))
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) or type(v).__module__ == "ml_dtypes":
        f = float(v)
        return "nan" if f != f else f
    return v


def _query_x64(tokens) -> bool:
    def wide(t):
        kind, p = t
        if kind == "kind" and isinstance(p, tuple):
            return any(wide(("kind", u)) for u in p)
        if kind in ("dtype", "kind") and isinstance(p, np.dtype):
            return p in BITS_64
        if kind == "scalar type":
            return np.dtype(getattr(fnp, p)) in BITS_64
        if kind == "string":
            try:
                return np.dtype(p) in BITS_64
            except TypeError:
                return False
        if kind in ("array", "numpy scalar"):
            return p.dtype in BITS_64
        return False
    return any(wide(t) for t in tokens)


def _answer(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # jax's deprecations (ndim of a scalar type...)
            return _plain(call())
    except Exception as exc:  # noqa: BLE001 (raising is compared)
        return Raised(exc)


def funcarray_can_cast_follows_the_standard(op, tokens, got, want) -> bool:
    """funcarray's ``can_cast(..., "safe")`` follows the Array API standard's promotion table
    among its dtypes (docs/decisions.md): bool casts only to bool and an integer never to a
    float, where jax.numpy (as NumPy) says True. Only that answer may differ."""
    standard = {np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                      "uint16", "uint32", "uint64", "float32", "float64",
                                      "complex64", "complex128")}
    if op.name != "can_cast" or tokens[2][1] != "safe" or (got, want) != (False, True):
        return False
    try:
        src, dst = (np.dtype(getattr(_resolve(fnp, t), "dtype", _resolve(fnp, t)))
                    for t in tokens[:2])
    except TypeError:
        return False
    return src in standard and dst in standard and (
        (src.kind == "b" and dst.kind != "b") or (src.kind in "iu" and dst.kind in "fc"))


def _takes_python_default(tokens) -> bool:
    return any(t[0] in ("python type", "python", "weak array") for t in tokens)


_PYTHON_TYPE_DTYPES = {int: np.dtype(np.int32), float: np.dtype(np.float32),
                       complex: np.dtype(np.complex64), bool: np.dtype(np.bool_)}


def python_scalar_defaults_are_32_bit(op, tokens, args, got, call_with) -> bool:
    """funcarray's Python scalars and types default to 32 bits always (README, "Dtypes");
    jax's scalars to 64 bits under x64, and its types to NumPy's 64-bit dtypes in
    ``finfo``, ``iinfo``, ``promote_types`` and ``can_cast`` even without x64
    (``iinfo(int)`` is int64's). Where a Python scalar or type takes part, funcarray's answer
    must be jax's without x64, or jax's with the types read as their 32-bit dtypes."""
    if not _takes_python_default(tokens):
        return False
    read_as_type = ("python type", "python") if op.name == "iinfo" else (
        "python type",)  # (iinfo takes a number for its type)
    as_32_bit = [("dtype", _PYTHON_TYPE_DTYPES[t[1] if t[0] == "python type" else type(t[1])])
                 if t[0] in read_as_type else t for t in args]
    answers = []
    for x64 in (False, _query_x64(tokens)):
        with jax.enable_x64(x64):
            answers += [_answer(lambda: call_with(jnp, _resolve_all(jnp, args))),
                        _answer(lambda: call_with(jnp, _resolve_all(jnp, as_32_bit)))]
    return got in answers


def funcarray_has_64_bit_types(tokens, got, call_with, args) -> bool:
    """funcarray holds 64-bit dtypes always: a promotion that reaches one (int8 with uint32)
    gives it, as jax's under x64, where jax without x64 gives its 32-bit counterpart."""
    with jax.enable_x64(True):
        return got == _answer(lambda: call_with(jnp, _resolve_all(jnp, args)))


def check_query(op, tokens):
    args = [t for t in tokens if t[0] not in ("casting", "axis", "kind", "shape")]
    x64 = _query_x64(tokens)

    def call_with(ns, resolved):
        it = iter(resolved)
        full = [t[1] if t[0] in ("casting", "axis", "kind", "shape") else next(it)
                for t in tokens]
        return op.run(ns, *full)

    with jax.enable_x64(x64):
        want = _answer(lambda: call_with(jnp, _resolve_all(jnp, args)))
    runs = [("eager", lambda: _answer(lambda: call_with(fnp, _resolve_all(fnp, args))))]
    arrays = _array_tokens(args)
    if op.takes_arrays and arrays:
        def traced():
            answers = []

            def body(*xs):
                answers.append(call_with(fnp, _resolve_all(fnp, args, xs)))
                return xs[0]
            fa.jit(body)(*(fnp.asarray(t[1]) for t in arrays))
            return answers[0]
        runs.append(("jit", lambda: _answer(traced)))
    for what, run in runs:
        got = run()
        where = f"{op.name}({tokens!r}), {what}"
        if isinstance(want, Raised) or isinstance(got, Raised):
            assert isinstance(want, Raised) and isinstance(got, Raised), (
                f"{where}: {got!r}, jax {want!r}")
            continue
        if got != want and (
                funcarray_can_cast_follows_the_standard(op, tokens, got, want)
                or python_scalar_defaults_are_32_bit(op, tokens, args, got, call_with)
                or (not x64 and funcarray_has_64_bit_types(tokens, got, call_with, args))):
            continue
        assert got == want, f"{where}: {got!r}, jax {want!r}"


_QUERY_EXAMPLES = settings(max_examples=15)


@pytest.mark.parametrize("op", TYPE_QUERY_OPS, ids=lambda op: op.name)
@_QUERY_EXAMPLES
@given(data=st.data())
def test_type_queries_match_jax(op, data):
    check_query(op, data.draw(op.args, label="arguments"))


# Defects the table found, kept as explicit examples.
_QUERY_EXAMPLES_FOUND = (
    # strong int8 and uint64 meet at float64: a Python int in the same call cannot narrow it
    ("result_type", [("dtype", np.dtype(np.int8)), ("dtype", np.dtype(np.uint64)),
                     ("python type", int)]),
    ("result_type", [("dtype", np.dtype(np.int64)), ("dtype", np.dtype(np.uint64)),
                     ("python", 2.5)]),
    ("broadcast_shapes", [("shape", (-1,))]),  # negative dimensions raise
    ("broadcast_shapes", [("shape", (2, -1)), ("shape", (2, 1))]),
    ("iinfo", [("python", 0)]),  # a number for its type
)


@pytest.mark.parametrize(("name", "tokens"), _QUERY_EXAMPLES_FOUND)
def test_type_query_examples_match_jax(name, tokens):
    check_query(next(op for op in TYPE_QUERY_OPS if op.name == name), tokens)


# ============================================================================================
# Completeness
# ============================================================================================

# The names this file and the shapes file's rows answer for (issue 27's assignment).
_ASSIGNED_SHAPES = (
    "append", "block", "broadcast_arrays", "concat", "permute_dims", "matrix_transpose",
    "rollaxis", "hsplit", "vsplit", "dsplit", "unstack", "apply_along_axis", "apply_over_axes",
    "zeros_like", "ones_like", "full_like", "empty_like")
_ASSIGNED_CREATION = ("array", "asarray", "empty", "fromfunction", "frombuffer", "fromiter",
                      "fromstring", "from_dlpack")
_ASSIGNED_QUERIES = (
    "can_cast", "promote_types", "result_type", "isdtype", "issubdtype", "finfo", "iinfo",
    "iscomplexobj", "isrealobj", "isscalar", "iterable", "ndim", "shape", "size",
    "broadcast_shapes")


def test_every_assigned_name_is_a_row():
    from test_differential_shapes_jax import CREATION_OPS, SHAPE_OPS
    shape_rows = {op.name for op in SHAPE_OPS}
    creation_rows = {op.name for op in CREATION_OPS}
    assert set(_ASSIGNED_SHAPES) <= shape_rows, set(_ASSIGNED_SHAPES) - shape_rows
    assert set(_ASSIGNED_CREATION) <= creation_rows, set(_ASSIGNED_CREATION) - creation_rows
    assert {op.name for op in TYPE_QUERY_OPS} == set(_ASSIGNED_QUERIES)
    types = {op.name for op in SCALAR_TYPE_OPS}
    # every scalar type funcarray.numpy exports is a row, and each row is one
    exported = {n for n in dir(fnp) if isinstance(getattr(fnp, n), type(fnp.int8))}
    assert exported == types, exported ^ types
    names = (*_ASSIGNED_SHAPES, *_ASSIGNED_CREATION, *_ASSIGNED_QUERIES, *types)
    assert [n for n in names if not (hasattr(fnp, n) and hasattr(jnp, n))] == []
