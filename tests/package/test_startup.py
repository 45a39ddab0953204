"""Start-up: eager CPU work imports neither jax nor ml_dtypes (their imports cost 5-10x all of
funcarray's; bench/bench_startup.py times it), and ml_dtypes' types behave the same whether
they were loaded before funcarray or on first use."""

import subprocess
import sys
import textwrap

_EAGER_WORK = textwrap.dedent("""
    import sys
    import numpy as np
    import funcarray as fa, funcarray.numpy as fnp
    x = fnp.ones((4, 3)); y = fnp.arange(12.0).reshape(4, 3)
    z = fnp.sin((x + y * 2 - 1) / 3) @ fnp.ones((3, 2))
    s = fnp.sum(z) + fnp.mean(y) + fnp.var(y) + fnp.max(y) + fnp.argmax(y)
    w = y[1:3, 0].sum() + y[fnp.array([0, 2])].sum() + y[y > 3].sum() + fnp.std(y, axis=0)
    u = y.at[0, 1].set(5.0).astype(np.float64).astype(fnp.int32).astype(fnp.float16)
    c = fnp.concatenate([x, y]) + fnp.where(x > 0, x, y).sum() + fnp.stack([x, y]).sum()
    d = fnp.asarray(np.ones(3)) * 2.0 + fnp.linalg.norm(y) + fnp.cumsum(y).sum()
    g = fa.grad(lambda p: fnp.sum(fnp.tanh(p @ x.T) ** 2))(fnp.ones((2, 3)))
    v = fa.vmap(lambda r: r @ fnp.ones(3))(y)
    h = fa.hessian(lambda p: fnp.sum(p ** 3))(fnp.ones(3))
    k = fa.random.normal(fa.random.key(0), (3,)) + fa.random.uniform(fa.random.PRNGKey(1))
    a = fa.nn.relu(y) + fa.nn.softmax(y) + fa.nn.logsumexp(y)
    sc = fa.lax.scan(lambda c, t: (c + t, c), 0.0, fnp.arange(3.0))
    opt = fa.optim.adam(1e-3)
    upd = opt.update({"w": x}, opt.init({"w": x}), {"w": x})
    loaded = sorted(m for m in ("jax", "jaxlib", "ml_dtypes") if m in sys.modules)
    print("loaded:", loaded)
""")


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_eager_work_imports_neither_jax_nor_ml_dtypes():
    assert "loaded: []" in _run(_EAGER_WORK)


# Standard-library modules that only some features need, imported where those run (each
# costs ~1-3 ms of every program's start-up): the kernel thread pool, the serialized
# executables' headers, the command-line debugger, einsum's letters.
_LATE_STDLIB = ("concurrent.futures", "logging", "json", "cmd", "pprint", "string")


def test_import_leaves_the_stdlib_modules_of_rare_features_unloaded():
    code = (f"import sys; import funcarray, funcarray.numpy as fnp; fnp.ones(3) + 1; "
            f"print(sorted(m for m in {_LATE_STDLIB!r} if m in sys.modules))")
    assert _run(code).strip() == "[]"


# Every way a narrow dtype reaches funcarray, and what funcarray does with it. Run with
# ml_dtypes imported before funcarray (as jax users have it) and loaded lazily; the printed
# results must be identical.
_NARROW_WORK = textwrap.dedent("""
    import sys
    import numpy as np
    FIRST = sys.argv[1]
    if FIRST == "ml_dtypes":
        import ml_dtypes
    import funcarray as fa, funcarray.numpy as fnp
    from funcarray import dtypes
    assert ("ml_dtypes" in sys.modules) == (FIRST == "ml_dtypes")

    def show(f):
        try:
            out = f()
        except Exception as exc:
            return f"{type(exc).__name__}"
        if isinstance(out, fa.Array):
            return f"{out.dtype}:{out.weak_type}:{np.asarray(out).astype(np.float64).tolist()}"
        return repr(out)

    def get(name):  # the dtype reached as the test asks
        if FIRST == "string":
            return name
        if FIRST == "numpy_array":  # a user array of that dtype, made after funcarray
            import ml_dtypes
            return np.zeros(0, getattr(ml_dtypes, name)).dtype
        return getattr(fnp, name)

    lines = []
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4"):
        dt = get(name)
        x = lambda: fnp.asarray([1.5, -2.0, 3.0, 0.5]).astype(dt)
        for label, f in [
                ("make", x), ("add1", lambda: x() + 1), ("addf", lambda: x() + 1.5),
                ("mul", lambda: x() * x()), ("neg", lambda: -x()), ("abs", lambda: fnp.abs(x())),
                ("sin", lambda: fnp.sin(x())), ("exp", lambda: fnp.exp(x())),
                ("sum", lambda: fnp.sum(x())), ("mean", lambda: fnp.mean(x())),
                ("max", lambda: fnp.max(x())), ("sort", lambda: fnp.sort(x())),
                ("dot", lambda: x() @ x()), ("f32", lambda: x() + fnp.ones(4)),
                ("f16", lambda: x() + fnp.ones(4, "float16")),
                ("i8", lambda: x() + fnp.ones(4, "int8")),
                ("cast", lambda: x().astype(fnp.float32)),
                ("zeros", lambda: fnp.zeros(2, dt)), ("full", lambda: fnp.full(2, 3, dt)),
                ("result_type", lambda: fnp.result_type(dt, 1.0)),
                ("promote", lambda: fnp.promote_types(dt, "float32")),
                ("floating", lambda: fnp.issubdtype(dt, fnp.floating)),
                ("integer", lambda: fnp.issubdtype(dt, fnp.integer)),
                ("isdtype", lambda: fnp.isdtype(dtypes.canonicalize_dtype(dt), "real floating")),
                ("finfo", lambda: float(fnp.finfo(dt).eps)),
                ("iinfo", lambda: int(fnp.iinfo(dt).max)),
                ("grad", lambda: fa.grad(lambda v: fnp.sum(v * v))(x())),
                ("vmap", lambda: fa.vmap(lambda v: v * 2)(x())),
                ("bitcast", lambda: fa.lax.bitcast_convert_type(x(), "uint8"))]:
            lines.append(f"{name} {label} {show(f)}")
    print("\\n".join(lines))
""")


def test_narrow_dtypes_same_whether_loaded_first_or_on_first_use():
    reference = _run(_NARROW_WORK.replace("FIRST = sys.argv[1]", "FIRST = 'ml_dtypes'"))
    assert "bfloat16 sin bfloat16:False" in reference  # the battery computes, not only fails
    for first in ("funcarray", "string", "numpy_array"):
        got = _run(_NARROW_WORK.replace("FIRST = sys.argv[1]", f"FIRST = {first!r}"))
        assert got == reference, first
