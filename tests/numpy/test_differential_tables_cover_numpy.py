"""Every public name of ``funcarray.numpy`` is compared with jax by a differential table, or
is listed here with the test that covers it instead: a function added later fails this test
until it joins a table.

The tables (each a tuple of rows whose ``name`` is the public name they call) live in the
``test_differential_*_jax.py`` files beside this one; ``funcarray.numpy.linalg`` and
``funcarray.numpy.fft`` are checked by their own tables' completeness tests, ``funcarray.lax``
and ``funcarray.nn`` by theirs.
"""

from __future__ import annotations

import importlib
import inspect
import math

import jax.numpy as jnp
import pytest
from op_table import ELEMENTWISE_OPS

import funcarray.numpy as fnp

# table module -> the names of its row tuples
TABLES = {
    "test_differential_reductions_jax": ("REDUCTIONS",),
    "test_differential_shapes_jax": ("SHAPE_OPS", "CREATION_OPS"),
    "test_differential_products_jax": ("PRODUCT_OPS",),
    "test_differential_polynomials_jax": ("POLYNOMIAL_OPS",),
    "test_differential_indexing_jax": ("INDEXING_OPS",),
    "test_differential_sets_and_search_jax": ("SET_AND_SEARCH_OPS",),
    "test_differential_numerics_jax": ("NUMERIC_OPS",),
    "test_differential_types_jax": ("SCALAR_TYPE_OPS", "TYPE_QUERY_OPS"),
    "test_differential_index_tricks_jax": ("INDEX_TRICK_OBJECTS",),
}

# Public names no differential table calls, and where they are tested instead.
COVERED_ELSEWHERE = {
    # Files and printing: no numbers to compare with jax's.
    **dict.fromkeys(("load", "save", "savez", "array_repr", "array_str", "get_printoptions",
                     "set_printoptions", "printoptions"),
                    "tests/numpy/test_numpy_vectorize_and_sorting.py"),
    # Wrappers of the user's Python function: their numbers are the function's.
    "vectorize": "tests/numpy/test_numpy_vectorize_and_sorting.py",
    "frompyfunc": "tests/numpy/test_numpy_ufunc.py",
    # The Array API's name for ``power``, which it calls: jax's power row covers the values,
    # and the reference implementation checks ``pow`` itself over every dtype.
    "pow": "tests/numpy/test_array_api_elementwise_vs_strict.py",
    # The namespaces of the extensions, with their own complete tables.
    "linalg": "tests/numpy/test_differential_linalg_jax.py",
    "fft": "tests/numpy/test_differential_fft_jax.py",
}

# Constants compared with jax's here.
CONSTANTS = ("e", "pi", "inf", "nan", "euler_gamma", "newaxis")


def _public_names():
    names = set()
    for name in dir(fnp):
        value = getattr(fnp, name)
        if name.startswith("_") or isinstance(value, type) or name in CONSTANTS:
            continue
        if inspect.ismodule(value) and name not in COVERED_ELSEWHERE:
            continue  # the implementation modules (funcarray.numpy._math...)
        names.add(name)
    return names


def _tabled_names():
    names = {spec.name for spec in ELEMENTWISE_OPS}
    functions = {id(spec.fn) for spec in ELEMENTWISE_OPS}
    for module_name, tables in TABLES.items():
        module = importlib.import_module(module_name)
        for table in tables:
            names |= {row if isinstance(row, str) else row.name
                      for row in getattr(module, table)}
    # An alias (``fnp.absolute is fnp.abs``) is called by its twin's row.
    return names | {name for name in dir(fnp) if id(getattr(fnp, name)) in functions}


def test_every_public_name_is_in_a_differential_table():
    missing = _public_names() - _tabled_names() - set(COVERED_ELSEWHERE)
    assert not missing, (
        f"funcarray.numpy names that no differential table against jax calls: "
        f"{sorted(missing)}; add a row to a test_differential_*_jax.py table")


def test_the_exclusions_are_public_and_untabled():
    # A name that joined a table, or left the namespace, leaves the list.
    stale = {name for name in COVERED_ELSEWHERE if not hasattr(fnp, name)}
    stale |= set(COVERED_ELSEWHERE) & _tabled_names()
    assert not stale


@pytest.mark.parametrize("name", CONSTANTS)
def test_constants_equal_jax(name):
    got, want = getattr(fnp, name), getattr(jnp, name)
    if want is None:
        assert got is None
    elif math.isnan(want):
        assert math.isnan(got) and type(got) is type(want)
    else:
        assert got == want and type(got) is type(want)
