"""The memoising maps of lowering and jit dispatch stay bounded when a program keeps
bringing new shapes, dict keys or eager operations: past its size, each holds only its most
recently used entries, and what it returns is still right."""

import numpy as np

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.api import jit_dispatch
from funcarray.lowering import executor, stablehlo
from funcarray.transforms.core import ShapedArray


def _bound(cache) -> int:
    return cache.cache_info().maxsize if hasattr(cache, "cache_info") else cache.maxsize


def _size(cache) -> int:
    return cache.cache_info().currsize if hasattr(cache, "cache_info") else len(cache)


def test_type_texts_are_bounded():
    f32 = np.dtype(np.float32)
    for n in range(_bound(stablehlo._tensor_types) + 10):
        assert stablehlo.tensor_type(ShapedArray((n, 2), f32)) == f"tensor<{n}x2xf32>"
        stablehlo._type_strs(ShapedArray((n,), f32))
    assert _size(stablehlo._tensor_types) == _bound(stablehlo._tensor_types)
    assert _size(stablehlo._type_strs) == _bound(stablehlo._type_strs)


def test_sorted_dict_keys_of_the_fast_path_are_bounded():
    f = fa.jit(lambda d: d["b"] - d["a"])
    for n in range(_bound(jit_dispatch._sorted_names) + 10):
        keys = (f"k{n}",)
        assert jit_dispatch.fast_signature(({keys[0]: fnp.ones(1)},))[0][0] == keys
    assert _size(jit_dispatch._sorted_names) == _bound(jit_dispatch._sorted_names)
    assert float(f({"b": fnp.float32(3.0), "a": fnp.float32(1.0)})) == 2.0


def test_single_op_irs_are_bounded():
    from funcarray.primitives.elementwise import add_p

    f32 = np.dtype(np.float32)
    bound = executor.single_op_irs.maxsize
    for n in range(bound + 10):
        aval = ShapedArray((n,), f32)
        ir = executor.single_op_ir(add_p, (aval, aval), {})
        assert ir.outs[0].aval.shape == (n,)
    assert len(executor.single_op_irs) == bound
