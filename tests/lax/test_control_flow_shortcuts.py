"""The short eager paths of ``cond``, ``switch``, ``fori_loop``, ``while_loop``, ``scan``,
``map``, ``associative_scan`` and ``custom_root`` (``funcarray/lax/_branches.py``,
``_control_flow.py``, ``_linear_solve.py``) give the outcome of their longer forms: a Python
bool or int selector the same as the same selector given as an array, Python int loop bounds
the same as array bounds, ``map`` over one array the same as the ``scan`` it stands for, a
carry of arrays that keeps its types checked as every carry is, and a check cached per
function and argument types the same as a fresh one. Results
are compared by type, shape, dtype, weak type and bits, errors by class and message; the
bodies still run as plain Python on concrete values, once per iteration."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome, outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.base.array import Array

_SPECIAL = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3e38]


def _same(a, b):
    """Same outcome: both errors alike, or equal pytrees of arrays bit for bit."""
    if a[0] == "error" or b[0] == "error":
        assert a == b
        return
    la, ta = fa.tree.flatten(a[1])
    lb, tb = fa.tree.flatten(b[1])
    assert ta == tb
    for x, y in zip(la, lb):
        assert type(x) is type(y) or (isinstance(x, fa.Array) and isinstance(y, fa.Array))
        assert (x.shape, x.dtype, x.weak_type) == (y.shape, y.dtype, y.weak_type)
        vx, vy = np.asarray(x), np.asarray(y)
        if vx.dtype.kind in "fc" or vx.dtype.name in ("bfloat16", "float16"):
            vx, vy = vx.astype(np.complex128), vy.astype(np.complex128)
            assert np.array_equal(vx, vy, equal_nan=True)
            assert np.array_equal(np.signbit(vx.real), np.signbit(vy.real))
        else:
            assert np.array_equal(vx, vy)


_SHAPES = st.sampled_from([(), (3,), (2, 3)])


@st.composite
def arrays(draw, shapes=_SHAPES):
    dtype = np.dtype(fnp.dtype(draw(st.sampled_from(ALL_DTYPES))))
    shape = draw(shapes)
    n = int(np.prod(shape))
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype.kind in "biu":
            value = np.asarray(draw(st.lists(st.integers(0, 1 if dtype.kind == "b" else 100),
                                             min_size=n, max_size=n))).astype(dtype)
        else:
            value = np.asarray(draw(st.lists(st.sampled_from(_SPECIAL), min_size=n,
                                             max_size=n))).astype(dtype)
    value = value.reshape(shape)
    kind = draw(st.sampled_from(["array", "weak", "device"]))
    if kind == "weak":
        return Array(value, True)
    return fa.device_put(fnp.asarray(value)) if kind == "device" else fnp.asarray(value)


_BRANCHES = [
    lambda x: x,
    lambda x: x * 2,
    lambda x: 3,
    lambda x: 2.5,
    lambda x: (x, 1.0),
    lambda x: x.sum(),
    lambda x: fnp.float32(7.0),
]


@settings(max_examples=60, deadline=None)
@given(arrays(), st.integers(0, len(_BRANCHES) - 1), st.integers(0, len(_BRANCHES) - 1),
       st.booleans())
def test_cond_with_a_python_bool_matches_an_array_predicate(x, t, f, pred):
    args = (_BRANCHES[t], _BRANCHES[f], x)
    _same(outcome(lambda: lax.cond(pred, *args)),
          outcome(lambda: lax.cond(fnp.asarray(pred), *args)))
    eager = outcome(lambda: lax.cond(pred, *args))
    jitted = outcome(lambda: fa.jit(lambda p, x: lax.cond(p, *args[:2], x))(pred, x))
    if eager[0] == "error":  # (eagerly the chosen branch is named first)
        assert jitted[0] == "error" and jitted[1] is eager[1]
    else:
        _same(eager, jitted)


@settings(max_examples=60, deadline=None)
@given(arrays(), st.lists(st.integers(0, len(_BRANCHES) - 1), min_size=1, max_size=3),
       st.sampled_from([-(2**31), -1, 0, 1, 2, 5, 2**31, 2**40]))
def test_switch_with_a_python_int_matches_an_array_index(x, which, index):
    branches = [_BRANCHES[k] for k in which]
    want = outcome(lambda: lax.switch(index, branches, x))
    if -(2**31) <= index < 2**31:
        _same(want, outcome(lambda: lax.switch(fnp.asarray(index, fnp.int32), branches, x)))
    else:  # an index beyond int32: as the general conversion of the index decides
        assert want[0] == "error" or index > 0


def test_cond_and_switch_fast_paths_keep_python_on_values_and_errors():
    seen = []

    def branch(x):
        seen.append(float(x.sum()))  # concrete: the chosen branch runs as Python
        return x + 1.0

    x = fnp.ones(2)
    for _ in range(3):
        lax.cond(True, branch, lambda x: x, x)
        lax.switch(0, [branch, lambda x: x], x)
    assert seen == [2.0] * 6
    with pytest.raises(TypeError, match="same types"):
        lax.cond(True, lambda x: x, lambda x: x[:1], x)
    with pytest.raises(TypeError, match="integer scalar"):
        lax.switch(True, [lambda x: x, lambda x: x], x)
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.switch(1, [lambda x: (x, x), lambda x: x], x)
    out = lax.switch(7, [lambda x: 1, lambda x: x.sum()], x)  # clamped to the last branch
    assert (out.dtype, out.weak_type, float(out)) == (np.float32, False, 2.0)


@settings(max_examples=40, deadline=None)
@given(arrays(), st.integers(-2, 4), st.integers(-2, 6))
def test_fori_loop_with_int_bounds_matches_array_bounds(x, lower, upper):
    def body(i, v):
        return v + i.astype(v.dtype) if v.dtype != np.bool_ else v

    _same(outcome(lambda: lax.fori_loop(lower, upper, body, x)),
          outcome(lambda: lax.fori_loop(fnp.asarray(lower), fnp.asarray(upper), body, x)))
    counters = []
    lax.fori_loop(lower, upper, lambda i, v: counters.append(i) or v, x)
    assert [(type(i), i.dtype, i.weak_type, int(i)) for i in counters] == [
        (Array, np.int32, False, k) for k in range(lower, upper)]


def test_while_loop_checks_every_carry_of_arrays():
    x = fnp.ones(3)
    out = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))
    assert int(out[0]) == 3 and np.asarray(out[1]).tolist() == [8.0] * 3
    with pytest.raises(TypeError, match="same type"):
        lax.while_loop(lambda c: c.sum() < 30, lambda c: c[:2], x)
    with pytest.raises(TypeError, match="same type"):
        lax.while_loop(lambda c: c.sum() < 30, lambda c: c.astype(fnp.float16) * 2, x)
    with pytest.raises(TypeError, match="boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c, x)
    # A weak carry adopts the body's dtype (eagerly, as before).
    assert lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0).dtype == np.float32
    dev = fa.device_put(x)
    assert float(lax.while_loop(lambda c: c[0] < 3, lambda c: c * 2.0, dev)[0]) == 4.0


_CARRIES = {
    "array": lambda x: x,
    "tuple": lambda x: (x, 0),
    "list": lambda x: [x.sum(), x],
    "dict": lambda x: {"a": x, "b": 1.5},
    "nested": lambda x: (x, (x.sum(),)),
}

_NEW_CARRIES = [  # a body's output from its carry: kept types, or changed in one way
    lambda c: c,
    lambda c: fa.tree.map(lambda v: v * 2, c),
    lambda c: fa.tree.map(lambda v: v[..., :1] if v.ndim else v, c),
    lambda c: fa.tree.map(lambda v: v.astype(fnp.float16), c),
    lambda c: fa.tree.map(lambda v: 1.0, c),
    lambda c: fa.tree.map(fa.device_put, c),
    lambda c: fa.tree.map(lambda v: fa.device_put(v.astype(fnp.float16)), c),
    lambda c: list(c) if isinstance(c, tuple) else c,
    lambda c: (c, c),
    lambda c: None,
]


def _with_general_carry_check(run):
    """``run()`` with every eager carry left to ``_check_eager_carry`` (no fast test)."""
    from funcarray.lax import _control_flow

    original = _control_flow._carry_test
    _control_flow._carry_test = lambda *args: lambda out: False
    try:
        return outcome(run)
    finally:
        _control_flow._carry_test = original


@settings(max_examples=80, deadline=None)
@given(arrays(), st.sampled_from(sorted(_CARRIES)), st.sampled_from(range(len(_NEW_CARRIES))),
       st.integers(0, 3))
def test_eager_loops_check_carries_as_the_general_check_does(x, carry, k, steps):
    """The per-iteration test that a loop body kept its carry's types (``_carry_test``)
    gives the outcome of the full check: the same result, or the same error."""
    init = _CARRIES[carry](x)
    body = _NEW_CARRIES[k]

    def loop():
        return lax.while_loop(lambda c: True, body, init, max_steps=steps)

    def scan():
        return lax.scan(lambda c, v: (body(c), v), init, fnp.zeros(max(steps, 1)))

    def fori():
        return lax.fori_loop(0, steps, lambda i, c: body(c), init)

    for run in (loop, scan, fori):
        _same(outcome(run), _with_general_carry_check(run))


@pytest.mark.parametrize("body", [lambda i, c: c.astype(fnp.int32), lambda i, c: (c, c),
                                  lambda i, c: c[:1]], ids=["dtype", "structure", "shape"])
def test_eager_fori_loop_refuses_the_carries_jit_refuses(body):
    """A body that changes its carry's dtype, structure or shape is a TypeError eagerly, as
    under jit (where the loop is a scan)."""
    def loop(v):
        return lax.fori_loop(0, 3, body, v)

    for run in (loop, fa.jit(loop)):
        with pytest.raises(TypeError, match="carry"):
            run(fnp.ones(2))


_MAPPED = [
    lambda v: v,
    lambda v: v * 2,
    lambda v: (v, v.sum()),
    lambda v: {"a": v.astype(fnp.float32)},
    lambda v: 1.0,
]


@settings(max_examples=60, deadline=None)
@given(arrays(st.sampled_from([(1,), (3,), (2, 3), (3, 0)])), st.sampled_from(range(5)))
def test_map_over_one_array_matches_the_scan_it_stands_for(xs, k):
    f = _MAPPED[k]
    _same(outcome(lambda: lax.map(f, xs)),
          outcome(lambda: lax.scan(lambda c, x: (c, f(x)), (), xs)[1]))


def test_map_fast_path_runs_python_per_row_and_keeps_errors():
    rows = []
    out = lax.map(lambda v: rows.append(np.asarray(v).tolist()) or v * 2.0,
                  fnp.arange(6.0).reshape(3, 2))
    assert rows == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert np.asarray(out).tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    with pytest.raises(TypeError, match="ys of one pytree structure"):
        lax.map(lambda v: v if v < 2 else (v,), fnp.arange(4.0))
    with pytest.raises(TypeError):
        lax.map(lambda v: v, fnp.float32(1.0))  # a scalar has no rows


_COMBINE = [lax.add, lax.mul, lax.max, lambda a, b: a * 0.5 + b, lambda a, b: (a, b)[1],
            lambda a, b: a[:1], lambda a, b: a.astype(fnp.float16)]


@settings(max_examples=60, deadline=None)
@given(arrays(st.sampled_from([(1,), (2,), (5,), (8,), (13,), (3, 4), (2, 7), (17, 2),
                               (0, 3)])),
       st.sampled_from(range(len(_COMBINE))), st.booleans(), st.sampled_from([0, -1, 1]))
def test_associative_scan_on_host_values_matches_the_general_path(elems, k, reverse, axis):
    from funcarray.lax import _control_flow

    def run():
        return lax.associative_scan(_COMBINE[k], elems, reverse=reverse, axis=axis)

    fast = outcome(run)
    original = _control_flow._prefix_scan_on_host
    _control_flow._prefix_scan_on_host = lambda *args: None  # the general path
    try:
        general = outcome(run)
    finally:
        _control_flow._prefix_scan_on_host = original
    _same(fast, general)


def test_associative_scan_takes_the_host_path_and_leaves_weak_results_to_the_general_one():
    from funcarray.lax._control_flow import _prefix_scan_on_host

    x = fnp.arange(7.0)
    tree = fa.tree.structure(x)
    assert _prefix_scan_on_host(lax.add, tree, [x], 0, False) is not None
    pair = (fnp.arange(5), fa.device_put(fnp.ones(5)))
    out = lax.associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), pair, reverse=True)
    assert np.asarray(out[0]).tolist() == [10, 10, 9, 7, 4]
    weak = Array(np.arange(4.0, dtype=np.float32), True)
    want = lax.associative_scan(lambda a, b: a + b, weak)
    assert want.weak_type and np.asarray(want).tolist() == [0.0, 1.0, 3.0, 6.0]
    assert _prefix_scan_on_host(lambda a, b: weak[: a.shape[0]], tree, [x], 0, False) is None


def test_eager_custom_root_calls_the_solver_directly_and_still_differentiates():
    def sqrt(y, has_aux=False):
        def newton(f, x0):
            x = lax.fori_loop(0, 12, lambda i, x: x - f(x) / (2 * x), x0)
            return (x, {"steps": 12}) if has_aux else x
        return lax.custom_root(lambda x: x ** 2 - y, 1.0, newton, lambda g, t: t / g(1.0),
                               has_aux=has_aux)

    y = fnp.float32(4.0)
    eager, jitted = sqrt(y), fa.jit(sqrt)(y)
    assert (eager.dtype, eager.weak_type) == (jitted.dtype, jitted.weak_type)
    assert float(eager) == pytest.approx(float(jitted)) == pytest.approx(2.0)
    root, aux = sqrt(y, has_aux=True)
    assert float(root) == float(eager) and int(aux["steps"]) == 12
    assert abs(float(fa.grad(sqrt)(y)) - 0.25) < 1e-6
    with pytest.raises(TypeError, match="structure and types"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x0: x0, lambda g, t: t)


_ROOT_FUNCTIONS = [
    lambda v: fa.tree.map(lambda a: a * 2.0 - 1.0, v),
    lambda v: fa.tree.map(lambda a: a - 0.5, v),
    lambda v: fa.tree.map(lambda a: 1.0, v),  # Python scalars: as the staged f's arrays
    lambda v: (v, v),  # a wrong structure
    lambda v: fa.tree.map(lambda a: a.astype(fnp.float16), v),  # a wrong dtype
    lambda v: fa.tree.map(lambda a: a if float(fnp.sum(a)) > 0 else -a, v),  # needs values
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(range(len(_ROOT_FUNCTIONS))),
       st.sampled_from(["array", "weak", "device", "python", "pair"]), st.booleans())
def test_eager_custom_root_checks_f_once_per_type_and_matches_jit(k, kind, has_aux):
    """Eager custom_root stages f only to check it, once per function key and guess types:
    a warm call has the outcome of a cold one (cache cleared), and a valid one the result
    jit gives."""
    f = _ROOT_FUNCTIONS[k]
    x = fnp.asarray(np.array([0.25, 0.75], np.float32))
    guess = {"array": x, "weak": Array(np.asarray(x), True), "device": fa.device_put(x),
             "python": 0.5, "pair": (x, {"b": fnp.float32(2.0)})}[kind]

    def solve(g, x0):  # one step of x - g(x) (so g is called on arrays), and aux
        x1 = fa.tree.map(lambda a, b: a - b, x0, g(x0))
        return (x1, {"steps": fnp.int32(1), "residual": g(x1)}) if has_aux else x1

    def root(guess):
        return lax.custom_root(f, guess, solve, lambda g, y: y, has_aux=has_aux)

    fa.clear_caches()
    cold = outcome(lambda: root(guess))
    _same(outcome(lambda: root(guess)), cold)
    if cold[0] == "ok" and k != 5:  # (Python control flow on values cannot be traced)
        _same(cold, outcome(lambda: fa.jit(root)(guess)))


def test_eager_custom_root_returns_arrays_as_jit_does():
    """Python scalars returned by ``solve`` (the root and its aux) come back as the weak
    arrays jit gives."""
    def root(y):
        return lax.custom_root(lambda x: x * x - y, 1.0,
                               lambda g, x0: (2.0, {"steps": 12, "residual": 0.5}),
                               lambda g, t: t, has_aux=True)

    y = fnp.float32(4.0)
    _same(outcome(lambda: root(y)), outcome(lambda: fa.jit(root)(y)))
    _same(outcome(lambda: lax.custom_root(lambda x: x - y, 1.0, lambda g, x0: 4.0,
                                          lambda g, t: t)),
          outcome(lambda: fa.jit(lambda v: lax.custom_root(lambda x: x - v, 1.0,
                                                            lambda g, x0: 4.0,
                                                            lambda g, t: t))(y)))


def test_eager_custom_root_stages_f_once_and_calls_it_on_values():
    seen = []

    def f(x):
        seen.append(type(x) is Array)
        return x - 2.0

    for _ in range(3):
        out = lax.custom_root(f, fnp.float32(1.0), lambda g, x0: x0 - g(x0),
                              lambda g, y: y)
        assert float(out) == 2.0
    assert seen == [False, True, True, True]  # staged (a tracer) once, then solve's calls


def test_platform_dependent_checks_branches_and_picks_the_platform():
    platform = fa.default_backend()
    x = fnp.ones(2)
    assert float(lax.platform_dependent(x, default=lambda v: v.sum())) == 2.0
    picked = lax.platform_dependent(x, default=lambda v: v, **{platform: lambda v: v * 3.0})
    assert np.asarray(picked).tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="the cpu= branch must be a function"):
        lax.platform_dependent(x, cpu=3, default=lambda v: v)
    with pytest.raises(TypeError, match="the default= branch must be a function"):
        lax.platform_dependent(x, default=3)
    with pytest.raises(ValueError, match="no branch for the platform"):
        lax.platform_dependent(x, tpu_like=lambda v: v)


_SELECTOR_DTYPES = (np.bool_, np.bool_, np.int8, np.uint8, np.int32, np.int32, np.int64,
                    np.uint32, np.uint64, np.float32)


@st.composite
def selectors(draw, shape):
    """A ``select_n`` selector for cases of ``shape`` (sometimes of a wrong shape or dtype):
    an array of any integer dtype (values past the cases, negative, or past int32), a NumPy or
    Python bool, a Python int, given as any kind."""
    form = draw(st.sampled_from(["array", "array", "device", "numpy", "np_bool", "bool", "int"]))
    if form == "np_bool":
        return np.bool_(draw(st.booleans()))
    if form == "bool":
        return draw(st.booleans())
    if form == "int":
        return draw(st.integers(-1, 3))
    dtype = np.dtype(draw(st.sampled_from(_SELECTOR_DTYPES)))
    shape = draw(st.sampled_from([(), shape, shape, (2,)]))
    n = int(np.prod(shape))
    values = st.booleans() if dtype == np.bool_ else st.sampled_from(
        [0, 1, 2, 3, -1, -5, 2**31 + 1, 2**32 + 1, 2**40])
    with np.errstate(over="ignore"):
        value = np.asarray(draw(st.lists(values, min_size=n, max_size=n)),
                           np.int64 if dtype != np.bool_ else np.bool_).astype(dtype)
    value = value.reshape(shape)
    if form == "numpy":
        return value
    return fa.device_put(fnp.asarray(value)) if form == "device" else fnp.asarray(value)


def _recast(data, case, dtype):
    """``case``'s values as ``dtype``, strong or weak as it was, on the host or a device."""
    value = np.asarray(case)
    value = (value.real if value.dtype.kind == "c" and dtype.kind != "c" else value).astype(dtype)
    if data.draw(st.integers(0, 5)):
        return Array(value, bool(case.weak_type))
    return fa.device_put(fnp.asarray(value))


@settings(max_examples=300, deadline=None)
@given(st.data(), arrays(), st.integers(0, 3))
def test_select_n_matches_the_general_path(data, first, count):
    shape = first.shape
    cases = [first] + [data.draw(arrays(st.just(shape))) for _ in range(count - 1)]
    with np.errstate(all="ignore"):
        if count > 1 and data.draw(st.integers(0, 3)):  # (mostly cases of one dtype)
            cases[1:] = [_recast(data, c, first._value.dtype) for c in cases[1:]]
        if count and data.draw(st.integers(0, 7)) == 0:  # a case as a list, or of another shape
            cases[-1] = data.draw(st.sampled_from([np.asarray(cases[-1]).tolist(),
                                                   fnp.ones((4,))]))
        which = data.draw(selectors(shape))
        assert_same_outcome(lambda: lax.select_n(which, *cases))


def test_select_n_takes_the_host_path_for_concrete_operands():
    from funcarray.lax._control_flow import _select_n_on_host

    x = fnp.asarray(np.array([1.0, -0.0, np.nan], np.float32))
    for case in (x, fa.device_put(x)):
        for which in (np.True_, False, fnp.asarray([True, False, True]),
                      fa.device_put(fnp.asarray(np.array([0, 5, -1], np.int64)))):
            assert type(_select_n_on_host(which, case, -case)) is Array
    assert _select_n_on_host(np.int32(0), x, x) is NotImplemented  # (the general path's)
