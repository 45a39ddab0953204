"""jit, the lowering and executable caches and the runtime's first initialisation under
calls from many threads at once. Each scenario runs in a fresh interpreter, so the first
call really is the process's first (jax not yet imported, every cache empty)."""

import os
import subprocess
import sys
import textwrap

# Runs in a subprocess: THREADS threads, released together by a barrier, each calling jitted
# functions (the same one for all, one per thread, one with a pytree and static argument),
# eager ops and grad/vmap of a jitted function; every result is checked against NumPy.
_SCRIPT = textwrap.dedent("""
    import sys
    import threading

    import numpy as np

    import funcarray as fa
    import funcarray.numpy as fnp

    THREADS = 8
    shared = fa.jit(lambda x: fnp.sin(x) * 2.0 + 1.0)
    own = [fa.jit(lambda x, k=k: x * k + fnp.cos(x)) for k in range(THREADS)]
    with_static = fa.jit(lambda p, n: p["w"] ** n + p["b"], static_argnums=1)
    barrier = threading.Barrier(THREADS)
    failures = []

    def check(got, want):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)

    def work(k):
        try:
            barrier.wait()
            for step in range(3):
                x = fnp.arange(4.0 + (k + step) % 3)  # a few shapes: staging at once too
                v = np.asarray(x)
                check(shared(x), np.sin(v) * 2 + 1)
                check(own[k](x), v * k + np.cos(v))
                check(with_static({"w": x, "b": x}, k % 3 + 1), v ** (k % 3 + 1) + v)
                check(fnp.tanh(x) + x * 3.0, np.tanh(v) + v * 3)
                check(fa.grad(lambda y: shared(y).sum())(x), 2 * np.cos(v))
                check(fa.vmap(own[k])(x[:, None]), (v * k + np.cos(v))[:, None])
                check(fa.jit(lambda y, k=k: y - k)(x), v - k)
        except BaseException as exc:  # noqa: BLE001 (reported by the parent)
            import traceback
            failures.append("".join(traceback.format_exception(exc)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(failures))
    sys.stderr.write("\\n".join(failures[:2]))
""")


def test_first_calls_from_many_threads_at_once():
    """Eight threads make the process's first jit calls together, on the NumPy and the XLA
    eager engine (whose single-op executables are cached too), in three fresh processes: no
    exception, every value right (the race on jax's lazy import failed 2 runs in 3)."""
    for eager_backend in ("xla", "numpy", "xla"):
        env = {**os.environ, "FUNCARRAY_EAGER_BACKEND": eager_backend}
        run = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["0"], run.stderr
