"""The IR (transforms/ir.py) and staging (transforms/staging.py): printer snapshots, typecheck,
eval_ir against eager execution and NumPy, DCE, closure conversion and tracer errors."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import funcarray.numpy as fnp
from funcarray.primitives.elementwise import add_p, mul_p, neg_p, sin_p
from funcarray.primitives.shape import broadcast_in_dim_p, reshape_p
from funcarray.transforms.core import (
    ConcretizationError,
    Primitive,
    ShapedArray,
    UnexpectedTracerError,
)
from funcarray.transforms.ir import IR, ClosedIR, Eqn, Lit, Var, dce, eval_ir, typecheck
from funcarray.transforms.staging import StagedIR, StagingTrace, make_ir, stage_flat

F32_3 = ShapedArray((3,), np.float32)


def snapshot(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


# --------------------------------------------------------------------------------------------
# Printer snapshots
# --------------------------------------------------------------------------------------------


def test_print_elementwise_chain():
    def f(x, y):
        return fnp.exp(fnp.sin(x) * y) - y

    assert str(make_ir(f)(fnp.ones(3), fnp.ones(3))) == snapshot("""
        { lambda ; a:f32[3] b:f32[3]. let
            c:f32[3] = sin a
            d:f32[3] = mul c b
            e:f32[3] = exp d
            f:f32[3] = sub e b
          in (f) }
    """)


def test_print_closed_over_constant_is_a_const_binder():
    w = fnp.arange(3.0)

    def f(x):
        return fnp.sin(x) * w + w

    staged = make_ir(f)(fnp.ones(3))
    assert str(staged) == snapshot("""
        { lambda a:f32[3] ; b:f32[3]. let
            c:f32[3] = sin b
            d:f32[3] = mul c a
            e:f32[3] = add d a
          in (e) }
    """)
    # One binder per closed-over value, however often it is used; the value is kept as is.
    assert len(staged.consts) == 1 and staged.consts[0] is w


def test_print_python_scalar_literal_and_weak_argument():
    def f(x, s):
        return x * 2.0, s + 1.0

    assert str(make_ir(f)(fnp.ones(2), 3.0)) == snapshot("""
        { lambda ; a:f32[2] b:f32[]{weak}. let
            c:f32[2] = broadcast_in_dim[ broadcast_dimensions=() shape=(2,) ] 2.0:f32[]
            d:f32[2] = mul a c
            e:f32[]{weak} = add b 1.0:f32[]{weak}
          in (d, e) }
    """)


def test_print_literal_dtypes_and_literal_outputs():
    def f():
        return (fnp.asarray(True), fnp.asarray(-3, fnp.int8), fnp.asarray(1.5, fnp.bfloat16),
                7, fnp.asarray(np.nan, fnp.float32))

    assert str(make_ir(f)()) == snapshot("""
        { lambda ; . let
          in (True:bool[], -3:i8[], 1.5:bf16[], 7:i32[]{weak}, nan:f32[]) }
    """)


def test_print_shape_primitives_params_sorted():
    def f(x):
        y = reshape_p.bind(x, new_sizes=(3, 2))
        return broadcast_in_dim_p.bind(y, shape=(4, 3, 2), broadcast_dimensions=(1, 2))

    assert str(make_ir(f)(fnp.ones((2, 3)))) == snapshot("""
        { lambda ; a:f32[2,3]. let
            b:f32[3,2] = reshape[ new_sizes=(3, 2) ] a
            c:f32[4,3,2] = broadcast_in_dim[ broadcast_dimensions=(1, 2) shape=(4, 3, 2) ] b
          in (c) }
    """)


def test_print_pytree_inputs_and_outputs():
    def f(params, x):
        w, b = params["w"], params["b"]
        return {"out": fnp.sin(x * w + b), "aux": (x, None)}

    staged = make_ir(f)({"w": fnp.ones(2), "b": fnp.zeros(2)}, fnp.ones(2))
    # Leaves in pytree order: dict keys sorted (b before w), then x; outputs likewise.
    assert str(staged) == snapshot("""
        { lambda ; a:f32[2] b:f32[2] c:f32[2]. let
            d:f32[2] = mul c b
            e:f32[2] = add d a
            f:f32[2] = sin e
          in (c, f) }
    """)
    assert staged.in_tree.num_leaves == 3 and staged.out_tree.num_leaves == 2
    assert staged.in_avals == [ShapedArray((2,), np.float32)] * 3
    out = staged({"w": fnp.full(2, 2.0), "b": fnp.ones(2)}, fnp.arange(2.0))
    assert set(out) == {"out", "aux"} and out["aux"][1] is None
    np.testing.assert_allclose(np.asarray(out["out"]), np.sin(np.arange(2.0) * 2 + 1),
                               rtol=1e-6)


def test_keyword_arguments_are_staged_too():
    scale = fnp.asarray(np.full(2, 3, np.float32))
    staged = make_ir(lambda x, *, scale: x * scale)(fnp.ones(2), scale=scale)
    assert str(staged) == snapshot("""
        { lambda ; a:f32[2] b:f32[2]. let
            c:f32[2] = mul a b
          in (c) }
    """)
    out = staged(fnp.arange(2.0), scale=fnp.asarray(np.full(2, 2, np.float32)))
    assert np.asarray(out).tolist() == [0.0, 2.0]


def test_names_continue_past_z():
    def f(x):
        for _ in range(30):
            x = fnp.sin(x)
        return x

    text = str(make_ir(f)(fnp.ones(1)))
    lines = text.splitlines()
    assert lines[1].strip() == "b:f32[1] = sin a"
    assert lines[25].strip() == "z:f32[1] = sin y"
    assert lines[26].strip() == "ba:f32[1] = sin z"
    assert lines[-1].strip() == "in (be) }"


def _call_primitive():
    """A minimal higher-order primitive (like jit) holding a ClosedIR in its params."""
    call_p = Primitive("call", multiple_results=True)
    call_p.abstract_eval = lambda *avals, ir, name: ir.out_avals
    call_p.impl = lambda *args, ir, name: ir(*args)

    def call(f, *args):
        staged = make_ir(f)(*args)
        return call_p.bind(*staged.consts, *args, ir=staged.closed, name=f.__name__)

    return call


def test_print_nested_ir_params_indented():
    call = _call_primitive()

    def inner(y):
        return fnp.sin(y) * 2.0

    def outer(x):
        (a,) = call(inner, x)
        return call(lambda z: call(inner, z)[0], a)[0]

    staged = make_ir(outer)(fnp.ones(2))
    assert str(staged) == snapshot("""
        { lambda ; a:f32[2]. let
            b:f32[2] = call[
              ir={ lambda ; a:f32[2]. let
                  b:f32[2] = sin a
                  c:f32[2] = broadcast_in_dim[ broadcast_dimensions=() shape=(2,) ] 2.0:f32[]
                  d:f32[2] = mul b c
                in (d) }
              name=inner
            ] a
            c:f32[2] = call[
              ir={ lambda ; a:f32[2]. let
                  b:f32[2] = call[
                    ir={ lambda ; a:f32[2]. let
                        b:f32[2] = sin a
                        c:f32[2] = broadcast_in_dim[ broadcast_dimensions=() shape=(2,) ] 2.0:f32[]
                        d:f32[2] = mul b c
                      in (d) }
                    name=inner
                  ] a
                in (b) }
              name=<lambda>
            ] b
          in (c) }
    """)
    typecheck(staged.closed)
    x = fnp.arange(2.0)
    np.testing.assert_allclose(np.asarray(staged(x)), np.sin(np.sin(np.arange(2.0)) * 2) * 2,
                               rtol=1e-6)


def test_typecheck_checks_nested_irs():
    call = _call_primitive()
    staged = make_ir(lambda x: call(fnp.sin, x)[0])(fnp.ones(3))
    eqn = staged.ir.eqns[0]
    x, y = Var(F32_3), Var(ShapedArray((2,), np.float32))
    broken = ClosedIR(IR((), (x,), (Eqn(sin_p, (x,), {}, (y,)),), (y,)), ())
    bad_eqn = Eqn(eqn.prim, eqn.inputs, dict(eqn.params, ir=broken), eqn.outs)
    bad = IR(staged.ir.const_binders, staged.ir.in_binders, (bad_eqn,), staged.ir.outs)
    with pytest.raises(TypeError, match=r"(?s)equation 0:.*in the IR of param 'ir'.*"
                                        r"declared f32\[2\] but sin gives f32\[3\]"):
        typecheck(bad)


def test_print_multiple_results():
    split_p = Primitive("split_halves", multiple_results=True)
    split_p.abstract_eval = lambda x: [x.update(shape=(x.shape[0] // 2,))] * 2

    def f(x):
        lo, hi = split_p.bind(x)
        return hi, lo

    assert str(make_ir(f)(fnp.ones(4))) == snapshot("""
        { lambda ; a:f32[4]. let
            b:f32[2] c:f32[2] = split_halves a
          in (c, b) }
    """)


def test_nested_make_ir_of_evaluated_ir_inlines():
    def g(x):
        inner = make_ir(lambda y: fnp.cos(y) * x)(x)  # closes over the outer tracer x
        assert len(inner.consts) == 1 and inner.consts[0] is x
        assert str(inner).startswith("{ lambda a:f32[2] ; b:f32[2]. let")
        return inner(x) + inner.closed(x)[0]

    def direct(x):
        return fnp.cos(x) * x + fnp.cos(x) * x

    assert str(make_ir(g)(fnp.ones(2))) == str(make_ir(direct)(fnp.ones(2)))


def test_restaging_eval_ir_reproduces_the_ir():
    def f(x, y):
        return fnp.tanh(x) * y + 1.0

    staged = make_ir(f)(fnp.ones(3), fnp.ones(3))
    again = stage_flat(lambda *args: eval_ir(staged.ir, staged.consts, args), staged.in_avals)
    assert str(again) == str(staged)


def test_staging_twice_gives_the_same_text():
    w = fnp.ones(3)

    def f(x, s):
        return fnp.sin(x) * w + s

    first = make_ir(f)(fnp.ones(3), 2.0)
    second = make_ir(f)(fnp.zeros(3), 5.0)
    assert str(first) == str(second)
    assert first.ir is not second.ir


# --------------------------------------------------------------------------------------------
# typecheck
# --------------------------------------------------------------------------------------------


def test_typecheck_accepts_staged_ir():
    staged = make_ir(lambda x, s: (fnp.sin(x) * s, s))(fnp.ones(3), 2.0)
    assert typecheck(staged.closed) == [F32_3, ShapedArray((), np.float32, weak_type=True)]
    assert typecheck(staged.ir) == staged.out_avals


def test_typecheck_wrong_output_shape_names_the_equation():
    x, y = Var(F32_3), Var(ShapedArray((4,), np.float32))
    ir = IR((), (x,), (Eqn(sin_p, (x,), {}, (y,)),), (y,))
    with pytest.raises(TypeError, match=r"(?s)equation 0:.*b:f32\[4\] = sin a.*declared "
                                        r"f32\[4\] but sin gives f32\[3\]"):
        typecheck(ir)


def test_typecheck_wrong_weak_type():
    x, y = Var(F32_3), Var(F32_3.update(weak_type=True))
    ir = IR((), (x,), (Eqn(neg_p, (x,), {}, (y,)),), (y,))
    with pytest.raises(TypeError, match=r"declared f32\[3\]\{weak\} but neg gives f32\[3\]"):
        typecheck(ir)


def test_typecheck_inputs_rejected_by_the_primitive():
    x, y, z = Var(F32_3), Var(ShapedArray((2,), np.float32)), Var(F32_3)
    ir = IR((), (x, y), (Eqn(add_p, (x, y), {}, (z,)),), (z,))
    with pytest.raises(TypeError, match=r"(?s)c:f32\[3\] = add a b.*add rejects its inputs"):
        typecheck(ir)


def test_typecheck_use_before_definition():
    x, y, z = Var(F32_3), Var(F32_3), Var(F32_3)
    eqns = (Eqn(mul_p, (x, y), {}, (z,)), Eqn(sin_p, (x,), {}, (y,)))
    # Names follow the printed text: the equation's output (b) is named before its inputs.
    expected = r"equation 0:\n    b:f32\[3\] = mul a c\nvariable c:f32\[3\] is used before"
    with pytest.raises(TypeError, match=expected):
        typecheck(IR((), (x,), eqns, (z,)))


def test_typecheck_double_definition_and_undefined_output():
    x, y = Var(F32_3), Var(F32_3)
    with pytest.raises(TypeError, match="already defined"):
        typecheck(IR((), (x,), (Eqn(sin_p, (x,), {}, (x,)),), (x,)))
    with pytest.raises(TypeError, match="bound twice"):
        typecheck(IR((x,), (x,), (), (x,)))
    with pytest.raises(TypeError, match="at the outputs"):
        typecheck(IR((), (x,), (), (y,)))


def test_typecheck_output_count_and_literal_type():
    x, y, z = Var(F32_3), Var(F32_3), Var(F32_3)
    with pytest.raises(TypeError, match="sin gives 1 outputs, the equation binds 2"):
        typecheck(IR((), (x,), (Eqn(sin_p, (x,), {}, (y, z)),), (y,)))
    bad = Lit(fnp.asarray(2.0), ShapedArray((), np.float64))
    with pytest.raises(TypeError, match=r"literal 2.0:f64\[\] holds a value of type f32\[\]"):
        typecheck(IR((), (), (), (bad,)))


def test_typecheck_closed_ir_consts():
    c = Var(F32_3)
    ir = IR((c,), (), (), (c,))
    typecheck(ClosedIR(ir, (fnp.ones(3),)))
    with pytest.raises(TypeError, match=r"const 0 has type f32\[2\]"):
        typecheck(ClosedIR(ir, (fnp.ones(2),)))
    with pytest.raises(TypeError, match="1 const binders but 0 consts"):
        typecheck(ClosedIR(ir, ()))


# --------------------------------------------------------------------------------------------
# eval_ir against eager execution and NumPy
# --------------------------------------------------------------------------------------------

_FLOATS = st.floats(-10, 10, width=32)


@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                max_side=4), elements=_FLOATS),
       st.floats(-4, 4, width=32))
def test_eval_ir_matches_eager_and_numpy(xv, s):
    w = fnp.asarray(np.linspace(-1, 1, xv.size, dtype=np.float32).reshape(xv.shape))

    def f(x, s):
        return {"a": fnp.sin(x) * w + s, "b": fnp.exp(-fnp.abs(x)) - 2.0 * x}

    x = fnp.asarray(xv)
    staged = make_ir(f)(x, s)
    typecheck(staged.closed)
    got, eager = staged(x, s), f(x, s)
    for key in ("a", "b"):
        assert got[key].dtype == eager[key].dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(eager[key]))
    wv = np.asarray(w)
    np.testing.assert_allclose(np.asarray(got["a"]), np.sin(xv) * wv + np.float32(s),
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(got["b"]), np.exp(-np.abs(xv)) - 2 * xv,
                               rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float16, np.float64,
                                   np.complex64])
@given(data=st.data())
def test_eval_ir_across_dtypes(dtype, data):
    low = 0 if np.dtype(dtype).kind == "u" else -3
    xv = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
                              elements=st.integers(low, 5)))
    x = fnp.asarray(xv)

    def f(x):
        return x * x + 2 - x

    staged = make_ir(f)(x)
    typecheck(staged.closed)
    got = staged(x)
    assert got.dtype == np.dtype(dtype) and got.shape == xv.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(f(x)))
    np.testing.assert_array_equal(np.asarray(got), (xv * xv + np.asarray(2, dtype) - xv))


def test_eval_ir_argument_count_error():
    staged = make_ir(fnp.sin)(fnp.ones(3))
    with pytest.raises(TypeError, match="takes 0 consts and 1 arguments, got 0 consts and 2"):
        eval_ir(staged.ir, (), [fnp.ones(3), fnp.ones(3)])


def test_staged_ir_call_checks_arguments():
    staged = make_ir(lambda x, y: x + y)(fnp.ones(3), fnp.ones(3))
    with pytest.raises(TypeError, match=r"argument leaf 1 has type float32\[2\]"):
        staged(fnp.ones(3), fnp.ones(2))
    with pytest.raises(TypeError, match="structure"):
        staged(fnp.ones(3), (fnp.ones(3),))


def test_outputs_may_be_inputs_constants_and_python_scalars():
    c = fnp.arange(2.0)
    staged = make_ir(lambda x: (x, c, 3))(fnp.ones(2))
    assert str(staged) == snapshot("""
        { lambda a:f32[2] ; b:f32[2]. let
          in (b, a, 3:i32[]{weak}) }
    """)
    x, c_out, three = staged(fnp.full(2, 5.0))
    assert np.asarray(x).tolist() == [5.0, 5.0] and c_out is c
    assert int(three) == 3 and three.weak_type


def test_reshape_and_reduction():
    def f(x):
        return fnp.sum(fnp.reshape(x, (3, 2)) * 2.0, axis=0)

    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    staged = make_ir(f)(fnp.asarray(xv))
    names = [eqn.prim.name for eqn in staged.ir.eqns]
    assert "reshape" in names and "reduce_sum" in names
    np.testing.assert_allclose(np.asarray(staged(fnp.asarray(xv))),
                               (xv.reshape(3, 2) * 2).sum(0))


# --------------------------------------------------------------------------------------------
# DCE
# --------------------------------------------------------------------------------------------


def test_dce_removes_dead_equations_and_unused_consts():
    used, unused = fnp.ones(3), fnp.arange(3.0)

    def f(x):
        dead = fnp.cos(x) * unused
        fnp.exp(dead)
        return fnp.sin(x) * used

    staged = make_ir(f)(fnp.ones(3))
    assert len(staged.ir.eqns) == 5 and len(staged.consts) == 2
    pruned = dce(staged.closed)
    assert str(pruned) == snapshot("""
        { lambda a:f32[3] ; b:f32[3]. let
            c:f32[3] = sin b
            d:f32[3] = mul c a
          in (d) }
    """)
    assert pruned.consts == (used,)
    typecheck(pruned)
    x = fnp.asarray(np.array([0.5, 1.0, -2.0], np.float32))
    np.testing.assert_array_equal(np.asarray(pruned(x)[0]), np.asarray(staged(x)))
    # The plain-IR form keeps every binder (the signature does not change).
    assert dce(staged.ir).const_binders == staged.ir.const_binders


def test_dce_keeps_side_effecting_equations():
    effect_p = Primitive("effect")
    effect_p.has_side_effects = True
    effect_p.abstract_eval = lambda x: x

    def f(x):
        effect_p.bind(x)
        fnp.cos(x)
        return x

    pruned = dce(make_ir(f)(fnp.ones(2)).ir)
    assert [eqn.prim.name for eqn in pruned.eqns] == ["effect"]


# --------------------------------------------------------------------------------------------
# Errors: concretization, escaped tracers, bad operands, static arguments
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use", [
    lambda x: 1 if x > 0 else 2,
    lambda x: float(x),
    lambda x: int(x),
    lambda x: np.asarray(x),
    lambda x: x.tolist(),
])
def test_concretization_error_under_staging_names_the_fixes(use):
    with pytest.raises(ConcretizationError, match=r"(?s)StagingTrace.*static_argnums.*lax\.cond"):
        make_ir(use)(fnp.ones(()))


def test_static_argnums_make_python_control_flow_work():
    def f(x, n, flag):
        for _ in range(n):
            x = fnp.sin(x)
        return -x if flag else x

    staged = make_ir(f, static_argnums=(1, -1))(fnp.ones(2), 2, True)
    assert [eqn.prim.name for eqn in staged.ir.eqns] == ["sin", "sin", "neg"]
    assert staged.in_avals == [ShapedArray((2,), np.float32)]
    np.testing.assert_allclose(np.asarray(staged(fnp.zeros(2) + 1, 2, True)),
                               -np.sin(np.sin(np.ones(2))), rtol=1e-6)
    with pytest.raises(ValueError, match="static argument 1 is 3"):
        staged(fnp.ones(2), 3, True)
    with pytest.raises(ValueError, match="static_argnums contains 5"):
        make_ir(f, static_argnums=5)(fnp.ones(2), 2, True)


def test_non_array_argument_suggests_static_argnums():
    with pytest.raises(TypeError, match="(?s)make_ir.*static_argnums"):
        make_ir(lambda x, name: x)(fnp.ones(2), "hello")


def test_non_array_operand_under_staging():
    with pytest.raises(TypeError, match="primitive 'sin': got a value of type float"):
        make_ir(lambda x: sin_p.bind(1.5))(fnp.ones(2))


def test_escaped_tracer_used_after_staging():
    leaked = []

    def f(x):
        leaked.append(fnp.sin(x))
        return x

    make_ir(f)(fnp.ones(2))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        leaked[0] + 1.0
    # Inside a later, unrelated staging it is caught when first used, not at evaluation.
    with pytest.raises(UnexpectedTracerError, match=r"(?s)does not enclose.*primitive 'mul'"):
        make_ir(lambda y: y * leaked[0])(fnp.ones(2))


def test_outer_tracers_are_closure_converted():
    def outer(x):
        inner = make_ir(lambda y: y * x)(fnp.ones(2))
        # The outer tracer became the inner IR's const binder; its value is the tracer itself.
        assert isinstance(inner, StagedIR) and inner.consts == (x,)
        assert isinstance(x._trace, StagingTrace)
        return inner(fnp.full(2, 3.0))

    staged = make_ir(outer)(fnp.ones(2))
    np.testing.assert_array_equal(np.asarray(staged(fnp.arange(2.0))), [0.0, 3.0])


def test_var_and_eqn_are_immutable_and_identity_hashed():
    a, b = Var(F32_3), Var(F32_3)
    assert a != b and len({a, b}) == 2
    with pytest.raises(AttributeError):
        a.aval = ShapedArray((1,), np.float32)
    eqn = Eqn(sin_p, (a,), {}, (b,))
    assert str(eqn) == "a:f32[3] = sin b"  # a standalone equation names its outputs first
    assert repr(a) == "Var(f32[3])"
