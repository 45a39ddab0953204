"""Every function, constant, dtype, ``__array_namespace_info__`` method and array method or
attribute of the Array API standard 2024.12, as array-api-strict (its reference
implementation) exposes them, exists in funcarray.numpy or on funcarray arrays and takes the
same parameters: positional-only slots accepted positionally, named parameters under the
standard's names, keyword-only ones by keyword, and the standard's defaults.

Where funcarray keeps jax.numpy's default (``None`` standing for the standard's value), the
test calls the function both ways and requires the same result, so the difference is one of
spelling only."""

from __future__ import annotations

import inspect
import operator

import array_api_strict as xps
import numpy as np
import pytest
from array_api_strict_oracle import (
    IN_PLACE_OPERATORS,
    STRICT_ARRAY_ATTRIBUTES,
    STRICT_ARRAY_METHODS,
    standard_function_names,
    standard_names,
    strict_2024_12,
)

import funcarray.numpy as fnp

P = inspect.Parameter

_NAMESPACE_INFO_METHODS = ["capabilities", "default_device", "default_dtypes", "dtypes",
                           "devices"]
STRICT_NAMES = standard_names()
STRICT_FUNCTIONS = standard_function_names()

# (function, parameter) -> a call with the parameter left out and one with the standard's
# default spelled out; funcarray's default is jax.numpy's None, meaning the same thing.
_X = np.linspace(-1.0, 2.0, 12).reshape(3, 4)
_SPELLED_DEFAULTS = {
    ("arange", "step"): (lambda f: f.arange(1, 7), lambda f: f.arange(1, 7, 1)),
    ("argmax", "keepdims"): (lambda f: f.argmax(f.asarray(_X), axis=1),
                             lambda f: f.argmax(f.asarray(_X), axis=1, keepdims=False)),
    ("argmin", "keepdims"): (lambda f: f.argmin(f.asarray(_X), axis=0),
                             lambda f: f.argmin(f.asarray(_X), axis=0, keepdims=False)),
    ("std", "correction"): (lambda f: f.std(f.asarray(_X), axis=1),
                            lambda f: f.std(f.asarray(_X), axis=1, correction=0.0)),
    ("var", "correction"): (lambda f: f.var(f.asarray(_X)),
                            lambda f: f.var(f.asarray(_X), correction=0.0)),
    **{(f"fft.{name}", "norm"): (
        lambda f, name=name, x=x: getattr(f.fft, name)(f.asarray(x)),
        lambda f, name=name, x=x: getattr(f.fft, name)(f.asarray(x), norm="backward"))
       for name, x in [("fft", _X + 1j), ("ifft", _X + 1j), ("fftn", _X + 1j),
                       ("ifftn", _X + 1j), ("rfft", _X), ("irfft", _X + 1j),
                       ("rfftn", _X), ("irfftn", _X + 1j), ("hfft", _X + 1j),
                       ("ihfft", _X)]},
}
# astype(copy=) defaults to False as in jax.numpy: arrays are immutable, so a copy and the
# input itself cannot be told apart by anything but ``is``.
_UNOBSERVABLE_DEFAULTS = {("astype", "copy")}


def _standard_parameters(name, theirs, *, method):
    spec = list(inspect.signature(theirs).parameters.values())[1 if method else 0:]
    if name == "Array.to_device":
        # the standard makes ``stream`` keyword-only; array-api-strict does not
        spec = [p.replace(kind=P.KEYWORD_ONLY) if p.name == "stream" else p for p in spec]
    return spec


def _signature_mismatches(name, ours, theirs, *, method=False):
    """What array-API code calling ``theirs``'s way could not do with ``ours``."""
    mine = list(inspect.signature(ours).parameters.values())[1 if method else 0:]
    spec = _standard_parameters(name, theirs, method=method)
    by_name = {p.name: p for p in mine}
    problems = []
    positional = [p for p in spec if p.kind != P.KEYWORD_ONLY]
    for i, want in enumerate(positional):
        if want.kind == P.VAR_POSITIONAL:
            if not any(p.kind == P.VAR_POSITIONAL for p in mine):
                problems.append(f"{name}: takes no *{want.name}")
            continue
        got = mine[i] if i < len(mine) else None
        if got is None or got.kind not in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            problems.append(f"{name}: argument {i} ({want.name}) is not positional")
            continue
        if want.kind == P.POSITIONAL_OR_KEYWORD and got.name != want.name:
            problems.append(f"{name}: argument {i} is named {got.name!r}, "
                            f"the standard's {want.name!r}")
        problems += _default_mismatch(name, want, got)
    for want in spec:
        if want.kind != P.KEYWORD_ONLY:
            continue
        got = by_name.get(want.name)
        if got is None or got.kind not in (P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD):
            problems.append(f"{name}: no keyword {want.name!r}")
            continue
        problems += _default_mismatch(name, want, got)
    taken = {p.name for p in spec}
    problems += [f"{name}: requires {p.name!r}, which the standard does not have"
                 for p in mine[len(positional):]
                 if p.default is P.empty and p.name not in taken
                 and p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)]
    return problems


def _default_mismatch(name, want, got):
    if want.default is P.empty or (name, want.name) in _UNOBSERVABLE_DEFAULTS:
        return []
    if got.default is P.empty:
        return [f"{name}: {want.name} has no default (the standard's: {want.default!r})"]
    if not isinstance(want.default, (type(None), bool, int, float, str)):
        return []  # array-api-strict's "not given" sentinels
    same = type(got.default) is type(want.default) and got.default == want.default
    if same or (got.default is None and (name, want.name) in _SPELLED_DEFAULTS):
        return []
    return [f"{name}: {want.name} defaults to {got.default!r}, the standard's to "
            f"{want.default!r}"]


@pytest.mark.parametrize("name", STRICT_NAMES)
def test_every_name_of_the_standard_exists(name):
    assert hasattr(fnp, name), f"funcarray.numpy has no {name}"


def test_signatures_of_every_function_match_the_standard():
    problems = []
    for name, theirs, owner in STRICT_FUNCTIONS:
        short = name.rpartition(".")[2]
        if not hasattr(owner, short):
            problems.append(f"{name}: missing")
            continue
        problems += _signature_mismatches(name, getattr(owner, short), theirs)
    assert not problems, "\n".join(problems)


def test_namespace_info_methods_match_the_standard():
    ours = fnp.__array_namespace_info__()
    theirs = strict_2024_12(xps.__array_namespace_info__)
    problems = []
    for name in _NAMESPACE_INFO_METHODS:
        problems += _signature_mismatches(f"info.{name}", getattr(ours, name),
                                          getattr(theirs, name))
    assert not problems, "\n".join(problems)


def test_array_methods_and_attributes_match_the_standard():
    array_type = type(fnp.asarray(1.0))
    problems = [f"Array.{name}: missing" for name in STRICT_ARRAY_ATTRIBUTES
                if not hasattr(array_type, name)]
    for name, theirs in STRICT_ARRAY_METHODS:
        if not hasattr(array_type, name):
            problems.append(f"Array.{name}: missing")
        else:
            problems += _signature_mismatches(f"Array.{name}", getattr(array_type, name),
                                              theirs, method=True)
    assert not problems, "\n".join(problems)


def test_the_comparison_reports_what_array_api_code_could_not_call():
    def standard(x, /, y, *, axis=None, keepdims=False): ...

    def renamed(x, z, *, axis=None, keepdims=False): ...

    def keyword_missing(x, y, *, keepdims=False): ...

    def positional_x_as_keyword(*, x, y, axis=None, keepdims=False): ...

    def other_default(x, y, *, axis=None, keepdims=None): ...

    def extra_required(x, y, *, axis=None, keepdims=False, out): ...

    def wider(x, y=1, axis=None, keepdims=False, out=None): ...

    found = {f.__name__: _signature_mismatches("f", f, standard)
             for f in (renamed, keyword_missing, positional_x_as_keyword, other_default,
                       extra_required, wider)}
    assert found["renamed"] == ["f: argument 1 is named 'z', the standard's 'y'"]
    assert found["keyword_missing"] == ["f: no keyword 'axis'"]
    assert len(found["positional_x_as_keyword"]) == 2
    assert found["other_default"] == ["f: keepdims defaults to None, the standard's to False"]
    assert found["extra_required"] == [
        "f: requires 'out', which the standard does not have"]
    assert found["wider"] == []


@pytest.mark.parametrize("key", sorted(_SPELLED_DEFAULTS))
def test_none_defaults_mean_the_standards_default(key):
    left_out, spelled = _SPELLED_DEFAULTS[key]
    got, want = left_out(fnp), spelled(fnp)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_allclose(np.asarray(got), np.asarray(spelled(xps)), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("method", IN_PLACE_OPERATORS)
def test_in_place_operators_rebind_and_leave_the_operand_unchanged(method):
    """Arrays are immutable, so ``x op= y`` falls back on ``x = x op y`` (as for jax arrays):
    the standard's result, with the array ``x`` named before left as it was."""
    binary = getattr(operator, method.replace("__i", "__", 1))
    x0 = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    y0 = np.array([[3, 1, 2], [1, 2, 1]], dtype=np.int64)
    if method == "__imatmul__":
        y0 = y0.T
    elif method == "__itruediv__":
        x0, y0 = x0 / 1.0, y0 / 1.0
    x = fnp.asarray(x0)
    before = x
    x = getattr(operator, method)(x, fnp.asarray(y0))
    np.testing.assert_array_equal(np.asarray(x), binary(x0, y0))
    np.testing.assert_array_equal(np.asarray(before), x0)
