"""Data-parallel benchmark: the MLP training step on 8 simulated CPU devices, funcarray against jax.

The step of ``bench_transforms.py`` (784-512-512-10 MLP, batch 128, SGD), jitted with
``in_shardings``/``out_shardings`` over a one-axis mesh ``("data",)`` of 8 CPU devices
(``--xla_force_host_platform_device_count=8``, set by this script before either library
loads jaxlib): parameters replicated, the batch split along its rows. Both libraries hand the
same program to XLA's SPMD partitioner, which inserts the gradient all-reduce.

Rows (ratios are funcarray / jax, lower is better):
- the first call of a fresh jitted step (every cache cleared first): goal, within 10%;
- the steady-state step on arguments already placed on the mesh: goal, within 5%.
Both results are checked against the single-device NumPy backprop before timing. After the
table: the collectives of each compiled, partitioned step (all-reduce, all-gather,
reduce-scatter, collective-permute, all-to-all; an async pair counted once): goal, the same
as jax's.

The 8 devices share this machine's cores, so times are those of a partitioned program on a
small CPU, not of 8 accelerators; the ratios compare the programs and the dispatch.

Usage:
    python bench/bench_data_parallel.py            # a few minutes on 2 cores
    python bench/bench_data_parallel.py --quick    # fewer samples
    python bench/bench_data_parallel.py --quick --json results.json
"""

from __future__ import annotations

import os

# XLA fixes its number of CPU devices when it starts: ask for 8 before anything loads jaxlib.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_force_host_platform_device_count=8").strip()

import re  # noqa: E402
import sys  # noqa: E402

from _harness import (  # noqa: E402
    Goal,
    Row,
    Settings,
    call_overhead_ns,
    guarded,
    machine_info,
    make_parser,
    measure,
    medians,
    noise_notes,
    print_report,
    scaled,
    time_cold,
    write_json,
)
from bench_jit import ready  # noqa: E402
from bench_transforms import (  # noqa: E402
    BATCH,
    SIZES,
    close,
    funcarray_lib,
    jax_lib,
    make_mlp_data,
    make_train_step,
    numpy_train_step,
)

IMPLEMENTATIONS = ("funcarray", "jax")
DEVICES = 8
FIRST_CALL_GOALS = (Goal("jax", 1.10, "<=1.1x jax (within 10%)"),)
STEADY_GOALS = (Goal("jax", 1.05, "<=1.05x jax (within 5%)"),)
# An HLO instruction that moves data between devices (an async pair counts once: its start).
# The opcode follows the result shape and a space: " all-reduce(" (never "%all-reduce.6").
_COLLECTIVE = re.compile(r"\s(all-reduce|all-gather|reduce-scatter|collective-permute|"
                         r"all-to-all|collective-broadcast)(-start)?\(")


def load_libs() -> dict:
    """Each library with its mesh, shardings, jit, device_put and cache clearing."""
    import funcarray as fa

    libs = {"funcarray": funcarray_lib(), "jax": None}
    lib = libs["funcarray"]
    lib.mesh = fa.make_mesh((DEVICES,), ("data",))
    lib.sharding = lambda *spec, mesh=lib.mesh: fa.sharding.NamedSharding(mesh, fa.P(*spec))
    lib.jit, lib.device_put, lib.clear_caches = fa.jit, fa.device_put, fa.clear_caches
    try:
        import jax
    except ImportError:
        return libs
    libs["jax"] = lib = jax_lib()
    lib.mesh = jax.make_mesh((DEVICES,), ("data",))
    lib.sharding = lambda *spec, mesh=lib.mesh: jax.sharding.NamedSharding(mesh, jax.P(*spec))
    lib.jit, lib.device_put, lib.clear_caches = jax.jit, jax.device_put, jax.clear_caches
    return libs


def parallel_step(lib):
    """The training step jitted over the mesh: parameters replicated, the batch split."""
    replicated, split = lib.sharding(), lib.sharding("data")
    return lib.jit(make_train_step(lib), in_shardings=(replicated, split, split),
                   out_shardings=replicated)


def placed_arguments(lib):
    params, x, y = make_mlp_data()
    return (lib.device_put(params, lib.sharding()), lib.device_put(x, lib.sharding("data")),
            lib.device_put(y, lib.sharding("data")))


def collective_counts(lib) -> dict[str, int]:
    """The collectives of the compiled, partitioned step, by kind."""
    text = parallel_step(lib).lower(*placed_arguments(lib)).compile().as_text()
    counts: dict[str, int] = {}
    for match in _COLLECTIVE.finditer(text):
        counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts


def compare_collectives(libs) -> tuple[list[str], dict]:
    """Lines saying each library's collectives and the verdict (same count as jax), and
    the counts for the JSON output."""
    notes: list[str] = []
    counts = {impl: (None if lib is None else guarded(impl, lambda lib=lib: collective_counts(lib),
                                                      notes))
              for impl, lib in libs.items()}
    lines = []
    for impl, found in counts.items():
        if found is not None:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(found.items())) or "none"
            lines.append(f"collectives in {impl}'s partitioned step: {kinds}")
    if counts["funcarray"] is None or counts["jax"] is None:
        verdict = "N/A"
    else:
        verdict = "PASS" if counts["funcarray"] == counts["jax"] else "MISS"
    lines.append(f"goal: the same collectives as jax: {verdict}")
    return lines + notes, {"collectives": counts, "collectives_status": verdict}


def bench_first_call(libs, repeats: int) -> Row:
    def case(lib):
        args = placed_arguments(lib)

        def fresh():
            lib.clear_caches()
            return parallel_step(lib)

        return fresh, lambda step: ready(step(*args))

    cases = {impl: None if lib is None else case(lib) for impl, lib in libs.items()}
    timings, notes = time_cold(cases, repeats)
    return Row(f"first call: fresh jit(step) over {DEVICES} devices", medians(timings),
               FIRST_CALL_GOALS, notes)


def bench_steady(libs, settings) -> Row:
    params, x, y = make_mlp_data()
    expected = numpy_train_step(params, x, y)
    notes: list[str] = []
    calls = {}
    for impl, lib in libs.items():
        if lib is None:
            calls[impl] = None
            continue
        step, args = parallel_step(lib), placed_arguments(lib)
        result = guarded(impl, lambda: step(*args), notes)
        if result is None or not close(result, expected):
            if result is not None:
                notes.append(f"{impl}: n/a (its result differs from NumPy's one-device step)")
            calls[impl] = None
            continue
        calls[impl] = lambda step=step, args=args: ready(step(*args))
    timings = measure(calls, settings)
    return Row(f"steady: MLP step {'-'.join(map(str, SIZES))}, batch {BATCH} over "
               f"{DEVICES} devices", medians(timings), STEADY_GOALS,
               notes + noise_notes(timings, goals=STEADY_GOALS))


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    settings = Settings.from_args(args)
    heavy = scaled(settings, max_repeats=7, max_warmup_calls=3)
    info = machine_info()
    libs = load_libs()
    import funcarray as fa

    devices = len(fa.devices())
    if devices != DEVICES:
        print(f"expected {DEVICES} CPU devices, found {devices}: was jaxlib loaded before "
              f"XLA_FLAGS was set?", file=sys.stderr)
        return 1
    overhead_ns = call_overhead_ns(settings)
    collective_lines, collective_record = compare_collectives(libs)
    rows = [bench_first_call(libs, 3 if settings.quick else 5),
            bench_steady(libs, heavy)]
    header = [
        f"machine: {info['cpu_model']}, {info['usable_cores']} usable cores; load average "
        f"(1 min) before the run: {info['load_average_1min']}",
        f"{DEVICES} simulated CPU devices (--xla_force_host_platform_device_count), one mesh "
        f"axis 'data'; parameters replicated, batch split; timing-loop overhead "
        f"{overhead_ns:.0f} ns/call subtracted",
        "first call: median of cold runs after clearing every cache; steady: arguments "
        "already on the mesh",
        "ratios are funcarray / jax: lower is better; verdicts are information only",
    ]
    print_report("funcarray data-parallel benchmark (issue 23)", header, rows, IMPLEMENTATIONS)
    print("\n".join(collective_lines))
    if args.json:
        write_json(args.json, rows, IMPLEMENTATIONS, {**info, **collective_record})
    return 0


if __name__ == "__main__":
    sys.exit(main())
