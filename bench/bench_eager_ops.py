"""Eager op-table benchmark: every public funcarray.numpy and funcarray.lax operation against NumPy.

Walks the public names of ``funcarray.numpy``, ``funcarray.lax``, ``funcarray.numpy.linalg``
and ``funcarray.numpy.fft``, and times each operation of the table (``eager_op_cases.py``)
eagerly (no jit) on small inputs (a 0-d array, a 4-vector, a 64x64 matrix; float32 unless
the op needs ints or bools) against its NumPy reference, in the same run: on host arrays
(``fnp.asarray``) and on device arrays (``funcarray.device_put``). Prints the coverage (the
names timed, and each name left out with its reason), the distribution of the ratios
funcarray time / NumPy time, and the worst 20, for host and device separately, beside the
goals of issue 22. Verdicts are information only: the script exits 0 whatever the numbers.

Usage:
    python bench/bench_eager_ops.py            # full run: ~3 min of CPU (8.5 min at load 11)
    python bench/bench_eager_ops.py --quick    # ~70 s of CPU (4 min at load 10, 2 cores)
    python bench/bench_eager_ops.py --quick --json results.json
"""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from _harness import (
    Goal,
    Row,
    Settings,
    Timing,
    call_overhead_ns,
    error_note,
    format_ratio,
    format_time,
    freeze_heap,
    machine_info,
    make_parser,
    measure,
    write_json,
)

IMPLEMENTATIONS = ("funcarray", "numpy")
PLACEMENTS = ("host", "device")

# Issue 22's goals, over every (operation, input) timed: the median ratio at most 2x NumPy,
# and 95% of them within 3x NumPy plus 2 us (the allowance covers ops NumPy does in ~100 ns).
MEDIAN_GOAL = 2.0
SHARE_GOAL = 0.95
FACTOR, ALLOWANCE_NS = 3.0, 2000.0
WITHIN_LABEL = "<=3x NumPy + 2 us"
WORST = 20
NOISY = 0.25  # a timing whose interquartile range exceeds this share of its median


def within(funcarray_ns: float, numpy_ns: float) -> bool:
    return funcarray_ns <= FACTOR * numpy_ns + ALLOWANCE_NS


# --- coverage ---------------------------------------------------------------------------------
def public_names(module: types.ModuleType) -> list[str]:
    """``__all__``, or (funcarray.numpy has none) every name not starting with ``_``."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    return sorted(names)


def kind_reason(value: object, scalar_type: type) -> str | None:
    """Why a public name is no operation to time, or None if it is one."""
    if isinstance(value, types.ModuleType):
        return "a module"
    if isinstance(value, (scalar_type, np.dtype)):
        return "a dtype object"
    if isinstance(value, type):
        return "a class"
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return "a constant"
    if isinstance(value, (types.GenericAlias, types.UnionType)):
        return "a type alias"
    return None


@dataclass
class Coverage:
    timed: dict[str, list[str]]  # module -> names
    left_out: dict[str, str]  # "module.name" -> reason
    totals: dict[str, int]  # module -> number of public names


def coverage(modules: dict[str, types.ModuleType], table, skipped: dict[str, str],
             scalar_type: type) -> Coverage:
    in_table = {op.key for op in table}
    result = Coverage({name: [] for name in modules}, {}, {})
    for module_name, module in modules.items():
        names = public_names(module)
        result.totals[module_name] = len(names)
        for name in names:
            key = f"{module_name}.{name}"
            reason = skipped.get(key) or kind_reason(getattr(module, name), scalar_type)
            if key in in_table:
                result.timed[module_name].append(name)
            else:
                result.left_out[key] = reason or "MISSING FROM THE TABLE"
    return result


# --- the calls --------------------------------------------------------------------------------
def convert(value, put: Callable, side: str):
    """The argument as one library gets it: NumPy arrays through ``put``, ``Both`` resolved."""
    from eager_op_cases import Both

    if isinstance(value, np.ndarray):
        return put(value)
    if isinstance(value, Both):
        return getattr(value, side)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(convert(item, put, side) for item in value)
    return value


def has_array(value) -> bool:
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return any(has_array(item) for item in items)
    return False


def _call(op, function, arguments, put, side) -> Callable[[], object]:
    args = tuple(convert(value, put, side) for value in arguments.args)
    kwargs = {name: convert(value, put, side) for name, value in arguments.kwargs.items()}
    if op.invoke is not None:
        invoke = op.invoke
        return lambda: invoke(function, *args, **kwargs)
    return lambda: function(*args, **kwargs)


def _waiting(call: Callable[[], object], block: Callable) -> Callable[[], object]:
    return lambda: block(call())


def same_result(got, expected) -> bool:
    """funcarray's result against NumPy's: the same structure, shapes and (closely) values."""
    if isinstance(expected, (tuple, list)) and isinstance(got, (tuple, list)):
        return len(got) == len(expected) and all(map(same_result, got, expected))
    if isinstance(expected, (np.dtype, type, str, dict)) or expected is None:
        return got == expected
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return False
    if expected.dtype == object or got.dtype == object:
        return bool(np.all(got == expected))
    return bool(np.allclose(got, expected, rtol=1e-3, atol=1e-4, equal_nan=True))


@dataclass
class Case:
    key: str
    label: str
    times: dict[str, Timing | None]  # host, device, numpy


@dataclass
class Outcome:
    cases: list[Case]
    failures: list[str]  # an op that raised: a bug in the table (or in funcarray)
    mismatches: list[str]  # results that differ from the reference


def run_cases(table, settings: Settings, progress: bool) -> Outcome:
    import eager_op_cases

    import funcarray as fa
    import funcarray.lax as lax
    import funcarray.numpy as fnp

    namespaces = {"numpy": fnp, "lax": lax, "numpy.linalg": fnp.linalg, "numpy.fft": fnp.fft}
    gens = {label: eager_op_cases.Gen(label) for label in eager_op_cases.SHAPES}
    # On an accelerator results come back before the device is done: wait for them.
    block = None if fa.default_backend() == "cpu" else fa.block_until_ready
    fa.device_put(np.zeros(1, np.float32))  # loads jaxlib now, before the heap is frozen
    freeze_heap()
    outcome = Outcome([], [], [])
    total = sum(len(op.shapes) for op in table)
    for op in table:
        function = getattr(namespaces[op.module], op.name)
        for label in op.shapes:
            where = f"{op.key} [{label}]"
            try:
                arguments = op.build(gens[label])
                calls = {"host": _call(op, function, arguments, fnp.asarray, "fa"),
                         "device": _call(op, function, arguments, fa.device_put, "fa"),
                         "numpy": _call(op, op.reference, arguments, lambda a: a, "np")}
            except Exception as exc:  # noqa: BLE001 (a table bug, reported, not fatal)
                outcome.failures.append(error_note(f"{where} (building the arguments)", exc))
                continue
            if not has_array((arguments.args, arguments.kwargs)):
                calls["device"] = None  # nothing to place: the host timing stands for both
            elif block is not None:
                calls["device"] = _waiting(calls["device"], block)
            results, failed = {}, False
            for name, call in calls.items():
                if call is None:
                    continue
                try:
                    results[name] = call()
                except Exception as exc:  # noqa: BLE001 (a table bug, reported, not fatal)
                    outcome.failures.append(error_note(f"{where} {name}", exc))
                    failed = True
            if failed:
                continue
            if op.check:
                for name in ("host", "device"):
                    if name in results and not _agrees(results[name], results["numpy"]):
                        outcome.mismatches.append(f"{where} {name}")
            times = measure(calls, settings)
            if times["device"] is None:
                times["device"] = times["host"]
            outcome.cases.append(Case(op.key, label, times))
            if progress and len(outcome.cases) % 200 == 0:
                print(f"... {len(outcome.cases)}/{total} timed", file=sys.stderr, flush=True)
    return outcome


def _agrees(got, expected) -> bool:
    try:
        return same_result(got, expected)
    except Exception:  # noqa: BLE001 (an incomparable result counts as a difference)
        return False


# --- summaries --------------------------------------------------------------------------------
def rows_for(cases: list[Case], placement: str) -> list[Row]:
    """One harness ``Row`` per case; its goal is the allowance as a ratio for this case."""
    rows = []
    for case in cases:
        funcarray_ns, numpy_ns = case.times[placement].median_ns, case.times["numpy"].median_ns
        limit = (FACTOR * numpy_ns + ALLOWANCE_NS) / numpy_ns
        rows.append(Row(f"{case.key} [{case.label}] {placement}",
                        {"funcarray": funcarray_ns, "numpy": numpy_ns},
                        (Goal("numpy", limit, WITHIN_LABEL),)))
    return rows


def distribution(cases: list[Case], placement: str, field: str = "median_ns") -> dict:
    """Median, 90th and 95th percentile of the ratios, and the share within the allowance,
    from each timing's ``field``: its median sample, or its fastest (``best_ns``)."""
    pairs = [(getattr(c.times[placement], field), getattr(c.times["numpy"], field))
             for c in cases]
    ratios = np.array([ours / theirs for ours, theirs in pairs])
    return {"timed": len(cases), "median": float(np.median(ratios)),
            "p90": float(np.percentile(ratios, 90)), "p95": float(np.percentile(ratios, 95)),
            "share_within": float(np.mean([within(*pair) for pair in pairs]))}


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_distribution(cases: list[Case], placement: str, summary: dict, fastest: dict
                       ) -> None:
    title = f"{placement} arrays ({'fnp.asarray' if placement == 'host' else 'fa.device_put'})"
    print(title)
    print("-" * len(title))
    print(f"{summary['timed']} (operation, input) pairs; ratio = funcarray time / NumPy time")
    print(f"median {format_ratio(summary['median'])}   90th percentile "
          f"{format_ratio(summary['p90'])}   95th percentile {format_ratio(summary['p95'])}")
    print(f"goal: median <= {MEDIAN_GOAL:g}x NumPy: {verdict(summary['median'] <= MEDIAN_GOAL)}"
          f" ({format_ratio(summary['median'])})")
    print(f"goal: {SHARE_GOAL:.0%} within {WITHIN_LABEL}: "
          f"{verdict(summary['share_within'] >= SHARE_GOAL)}"
          f" ({summary['share_within']:.1%} within)")
    # Other processes only ever add time: on a busy machine the fastest samples say more.
    print(f"from the fastest samples: median {format_ratio(fastest['median'])}, 95th percentile"
          f" {format_ratio(fastest['p95'])}, {fastest['share_within']:.1%} within")
    worst = sorted(cases, key=lambda c: c.times[placement].median_ns / c.times["numpy"].median_ns,
                   reverse=True)[:WORST]
    lines = [("operation", "input", "funcarray", "NumPy", "ratio", WITHIN_LABEL)]
    for case in worst:
        ours, theirs = case.times[placement].median_ns, case.times["numpy"].median_ns
        lines.append((case.key, case.label, format_time(ours), format_time(theirs),
                      format_ratio(ours / theirs), "yes" if within(ours, theirs) else "no"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    print(f"worst {len(worst)} by ratio:")
    for n, line in enumerate(lines):
        cells = [cell.ljust(w) if i < 2 else cell.rjust(w)
                 for i, (cell, w) in enumerate(zip(line, widths))]
        print("  " + "  ".join(cells).rstrip())
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))
    print()


def print_coverage(cov: Coverage) -> None:
    timed = sum(len(names) for names in cov.timed.values())
    print(f"coverage: {timed} of {sum(cov.totals.values())} public names timed ("
          + ", ".join(f"funcarray.{m} {len(cov.timed[m])}/{cov.totals[m]}" for m in cov.totals)
          + ")")
    by_reason: dict[str, list[str]] = {}
    for key, reason in cov.left_out.items():
        by_reason.setdefault(reason, []).append(key)
    print(f"left out ({len(cov.left_out)}), by reason:")
    for reason, keys in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        print(f"  {reason} ({len(keys)}): {', '.join(keys)}")
    print()


def header_lines(info: dict, settings: Settings, overhead_ns: float, backend: str) -> list[str]:
    mode = "quick" if settings.quick else "full"
    return [
        f"machine: {info['cpu_model']}, {info['cpu_count']} cores "
        f"({info['usable_cores']} usable); 1-min load average before the run:"
        f" {info['load_average_1min']} (other processes add noise)",
        f"python {info['python']}, numpy {info['numpy']}, funcarray {info['funcarray']}"
        f" (commit {info['git_commit'] or '?'}); funcarray's default backend: {backend}",
        f"mode: {mode}; per (operation, input): funcarray on host arrays, on device arrays and"
        f" NumPy interleaved, median of {settings.repeats} samples, each >= "
        f"{settings.min_sample_ns / 1e6:g} ms; timing-loop overhead ({overhead_ns:.0f} ns/call)"
        " subtracted",
        "inputs: a 0-d array, a 4-vector, a 64x64 matrix (float32 unless the op needs ints or"
        " bools); ops without an array argument (creation) are timed once, for both",
        f"goals (issue 22): median <= {MEDIAN_GOAL:g}x NumPy; {SHARE_GOAL:.0%} of operations"
        f" within {WITHIN_LABEL}; host and device alike",
    ]


def settings_for(args) -> Settings:
    """Fewer, shorter samples than the harness's defaults: a run times ~1,300 cases."""
    settings = Settings.from_args(args)
    if settings.quick:
        return dataclasses.replace(settings, repeats=5, warmup_calls=2, min_sample_ns=1_000_000)
    return dataclasses.replace(settings, repeats=11, warmup_calls=5)


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="TEXT",
                        help="time only the operations whose name contains TEXT")
    args = parser.parse_args(argv)
    settings = settings_for(args)
    info = machine_info()  # before timing, so the load average is not our own

    import eager_op_cases

    import funcarray as fa
    import funcarray.lax as lax
    import funcarray.numpy as fnp
    from funcarray.numpy._scalar_types import ScalarType

    modules = {"numpy": fnp, "lax": lax, "numpy.linalg": fnp.linalg, "numpy.fft": fnp.fft}
    cov = coverage(modules, eager_op_cases.TABLE, eager_op_cases.SKIPPED, ScalarType)
    table = [op for op in eager_op_cases.TABLE if args.only is None or args.only in op.key]
    overhead_ns = call_overhead_ns(settings)
    outcome = run_cases(table, settings, progress=sys.stderr.isatty())

    title = "funcarray eager op-table benchmark (issue 22)"
    print(title)
    print("=" * len(title))
    for line in header_lines(info, settings, overhead_ns, fa.default_backend()):
        print(line)
    print()
    print_coverage(cov)
    summaries = {}
    if outcome.cases:
        for placement in PLACEMENTS:
            summaries[placement] = distribution(outcome.cases, placement)
            summaries[f"{placement}_fastest"] = distribution(outcome.cases, placement, "best_ns")
            print_distribution(outcome.cases, placement, summaries[placement],
                               summaries[f"{placement}_fastest"])
    print(f"could not time ({len(outcome.failures)}):" + ("" if outcome.failures else " none"))
    for note in outcome.failures:
        print(f"  {note}")
    print(f"results that differ from the NumPy reference ({len(outcome.mismatches)}):"
          + (" " + ", ".join(outcome.mismatches) if outcome.mismatches else " none"))
    noisy = sum(any(t is not None and t.relative_spread > NOISY for t in case.times.values())
                for case in outcome.cases)
    print(f"noisy cases (interquartile range > {NOISY:.0%} of the median): {noisy} of "
          f"{len(outcome.cases)}")
    print("verdicts are information only; this never fails.")

    if args.json:
        rows = [row for placement in PLACEMENTS for row in rows_for(outcome.cases, placement)]
        meta = {**info, "quick": settings.quick, "repeats": settings.repeats,
                "min_sample_ns": settings.min_sample_ns, "call_overhead_ns": overhead_ns,
                "backend": fa.default_backend(), "summary": summaries,
                "coverage": {"timed": cov.timed, "totals": cov.totals, "left_out": cov.left_out},
                "could_not_time": outcome.failures, "differ_from_reference": outcome.mismatches}
        write_json(args.json, rows, IMPLEMENTATIONS, meta)
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
