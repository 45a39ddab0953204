"""Start-up: a fresh interpreter that imports the library and does its first work, funcarray
against NumPy and jax, with bytecode caching on as users have it.

Each row is one program run as ``python -c CODE`` (median of several fresh interpreters,
interleaved across the libraries, after one unmeasured run each that also writes the bytecode
caches). The rows cover the first things a user does: the import and one eager op, a
reduction and indexing, a gradient, a ``vmap``, a random draw, a bfloat16 array (which loads
ml_dtypes), and the first ``jit`` call (which loads jaxlib and compiles). The goal the project
set is start-up within 2x NumPy's for eager work; jax is shown for reference.

Run: ``python bench/bench_startup.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import sys

from _harness import (
    Goal,
    Row,
    Settings,
    machine_info,
    make_parser,
    print_report,
    time_startup,
    write_json,
)

IMPLEMENTATIONS = ("funcarray", "numpy", "jax")
LABELS = {"funcarray": "funcarray", "numpy": "NumPy", "jax": "jax"}
EAGER_GOALS = (Goal("numpy", 2.0, "<=2x NumPy"),)

# (row name, {implementation: program}, goals). The programs do the same work in each library.
CASES = [
    ("import + ones(3) + 1", {
        "funcarray": "import funcarray.numpy as fnp; fnp.ones(3) + 1",
        "numpy": "import numpy as np; np.ones(3) + 1",
        "jax": "import jax.numpy as jnp; jnp.ones(3) + 1"}, EAGER_GOALS),
    ("import funcarray as fa + ones(3) + 1", {
        "funcarray": "import funcarray as fa, funcarray.numpy as fnp; fnp.ones(3) + 1",
        "numpy": "import numpy as np; np.ones(3) + 1",
        "jax": "import jax, jax.numpy as jnp; jnp.ones(3) + 1"}, EAGER_GOALS),
    ("sum, mean, x[1:3], x[mask]", {
        "funcarray": "import funcarray.numpy as fnp; x = fnp.arange(12.0).reshape(3, 4); "
                     "fnp.sum(x); fnp.mean(x, 0); x[1:3]; x[x > 3]",
        "numpy": "import numpy as np; x = np.arange(12.0).reshape(3, 4); "
                 "np.sum(x); np.mean(x, 0); x[1:3]; x[x > 3]",
        "jax": "import jax.numpy as jnp; x = jnp.arange(12.0).reshape(3, 4); "
               "jnp.sum(x); jnp.mean(x, 0); x[1:3]; x[x > 3]"}, EAGER_GOALS),
    ("grad of tanh-sum", {
        "funcarray": "import funcarray as fa, funcarray.numpy as fnp; "
                     "fa.grad(lambda x: fnp.sum(fnp.tanh(x)))(fnp.ones(3))",
        "numpy": None,
        "jax": "import jax, jax.numpy as jnp; "
               "jax.grad(lambda x: jnp.sum(jnp.tanh(x)))(jnp.ones(3))"}, ()),
    ("vmap of a dot", {
        "funcarray": "import funcarray as fa, funcarray.numpy as fnp; "
                     "fa.vmap(lambda r: r @ fnp.ones(3))(fnp.ones((4, 3)))",
        "numpy": None,
        "jax": "import jax, jax.numpy as jnp; "
               "jax.vmap(lambda r: r @ jnp.ones(3))(jnp.ones((4, 3)))"}, ()),
    ("random.normal", {
        "funcarray": "import funcarray as fa; fa.random.normal(fa.random.PRNGKey(0), (3,))",
        "numpy": "import numpy as np; np.random.default_rng(0).normal(size=3)",
        "jax": "import jax; jax.random.normal(jax.random.PRNGKey(0), (3,))"}, ()),
    ("a bfloat16 array (loads ml_dtypes)", {
        "funcarray": "import funcarray.numpy as fnp; fnp.ones(3, fnp.bfloat16) + 1",
        "numpy": "import numpy as np, ml_dtypes; np.ones(3, ml_dtypes.bfloat16) + 1",
        "jax": "import jax.numpy as jnp; jnp.ones(3, jnp.bfloat16) + 1"}, ()),
    ("first jit call (loads jaxlib, compiles)", {
        "funcarray": "import funcarray as fa, funcarray.numpy as fnp; "
                     "fa.jit(lambda x: fnp.sin(x) * 2)(fnp.ones(3)).block_until_ready()",
        "numpy": None,
        "jax": "import jax, jax.numpy as jnp; "
               "jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(3)).block_until_ready()"}, ()),
]


def _jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    args = make_parser(__doc__.splitlines()[0]).parse_args(argv)
    settings = Settings.from_args(args)
    info = machine_info()  # before timing, so the load average is not our own
    have_jax = _jax_available()
    rows = []
    for name, programs, goals in CASES:
        if not have_jax:
            programs = {**programs, "jax": None}
        times, notes = time_startup(programs, settings)
        rows.append(Row(name, times, goals, notes))
    header = [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores; 1-min load average before"
        f" the run: {info['load_average_1min']} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, jax {info['jax'] or '(missing)'},"
        f" funcarray {info['funcarray']} (commit {info['git_commit'] or '?'})",
        f"median wall time of a fresh `python -c` over {settings.startup_runs} runs per"
        " program, after one unmeasured run that writes the bytecode caches"
        " (PYTHONDONTWRITEBYTECODE is removed from the children's environment)",
        "goal: eager start-up within 2x NumPy's; ratios are funcarray time / other time",
    ]
    print_report("funcarray start-up benchmark", header, rows, IMPLEMENTATIONS, LABELS)
    if args.json:
        write_json(args.json, rows, IMPLEMENTATIONS,
                   {**info, "quick": settings.quick, "startup_runs": settings.startup_runs})
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
