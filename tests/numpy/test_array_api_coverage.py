"""Every function of the Array API standard 2024.12 (array-api-strict's namespace at
2024.12, ``linalg`` and ``fft`` included) and every method, operator and attribute of its
array object is compared with array-api-strict by a table of
``test_array_api_elementwise_vs_strict.py`` or ``test_array_api_functions_vs_strict.py``,
or listed in ``EXCLUDED`` with the test that checks it instead."""

from __future__ import annotations

import test_array_api_elementwise_vs_strict as elementwise
import test_array_api_functions_vs_strict as functions
from array_api_strict_oracle import (
    IN_PLACE_OPERATORS,
    STRICT_ARRAY_ATTRIBUTES,
    STRICT_ARRAY_METHODS,
    standard_function_names,
)

# name -> where it is checked instead (it has no values to compare with array-api-strict's)
EXCLUDED = {
    "__array_namespace_info__": "test_array_api_protocol.py: the info object's dtypes, "
                                "devices and capabilities against array-api-strict's",
    "__array_namespace__": "test_array_api_protocol.py: funcarray.numpy for eager and traced "
                           "arrays, and the api_version argument",
    "__dlpack__": "the from_dlpack table here exchanges funcarray arrays through it; "
                  "test_array_api_protocol.py checks devices",
    "__dlpack_device__": "test_array_api_protocol.py: the device of eager arrays",
    "to_device": "test_array_api_protocol.py: to_device and its stream keyword",
    "device": "test_array_api_protocol.py: a runtime device eagerly, None for a traced value",
    "__setitem__": "arrays are immutable (docs/array_api.md): x[i] = v raises and names "
                   "x.at[i].set(v), test_array_api_protocol.py",
}
_COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


def _covered() -> set[str]:
    names = set(elementwise.UNARY) | set(elementwise.BINARY) | set(elementwise.UNARY_OPERATORS)
    for op in elementwise.BINARY_OPERATORS:
        names.add(op)
        if op not in _COMPARISONS:  # x op= y, and s op x (the reflected operator)
            names |= {"__r" + op[2:], "__i" + op[2:]}
    names |= {"__matmul__", "__rmatmul__", "__imatmul__"}  # test_matmul_operator
    names |= {label.partition(":")[0] for label in functions.TABLE}
    return names


def _standard() -> set[str]:
    return ({name for name, _, _ in standard_function_names()}
            | {name for name, _ in STRICT_ARRAY_METHODS} | set(STRICT_ARRAY_ATTRIBUTES)
            | set(IN_PLACE_OPERATORS))


def test_every_function_and_operator_of_the_standard_is_compared():
    missing = _standard() - _covered() - set(EXCLUDED)
    assert not missing, f"no conformance table holds {sorted(missing)}"


def test_exclusions_and_tables_name_only_the_standard():
    standard = _standard()
    assert set(EXCLUDED) <= standard - _covered(), "an exclusion is covered or not standard"
    assert _covered() <= standard, f"not the standard's: {sorted(_covered() - standard)}"
