"""A small timing harness shared by the funcarray benchmarks.

What it does, and why:

- ``time_many`` times several implementations of the same operation. Each sample runs the
  callable ``n`` times in a loop, with ``n`` chosen per callable so that one sample lasts at
  least ``min_sample_ns`` (~2 ms): then the clock resolution and the loop overhead are
  negligible. Samples of the implementations are interleaved (a, b, c, a, b, c, ...), so slow
  drift of the machine (frequency scaling, a neighbour process) hits all of them alike and the
  ratios stay honest. The result is the median sample divided by ``n``; ``measure`` also
  returns the interquartile range, and ``noise_notes`` flags implementations whose samples
  spread widely (a busy machine).
- The cost of calling an empty Python lambda (~30-50 ns) is measured once and subtracted, so
  that sub-microsecond operations are not made to look closer to each other than they are.
- The garbage collector is off while sampling (as in ``timeit``), since a collection landing
  in one implementation's sample would be charged to that implementation alone.
- ``time_startup`` times fresh interpreters (``python -c CODE``), interleaved the same way.
- ``Row`` holds one benchmark's times, its goals, and turns them into ratios, PASS/MISS
  verdicts, a table line and a JSON record.

A benchmark script builds ``Row``s and calls ``print_report`` and ``write_json``; see
``bench_eager.py`` for an example and ``README.md`` for how to read the table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# The implementation being measured; every other implementation is a reference it is
# compared against (ratio = subject time / reference time, so lower is better).
SUBJECT = "funcarray"

MISSING = "MISS"
PASSED = "PASS"
UNKNOWN = "N/A"


# --- settings ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    """How hard to try: quick mode trades precision for a run that fits in a CI job."""

    quick: bool
    repeats: int  # samples per implementation; the median is reported
    warmup_calls: int  # calls before calibration (jax compiles on the first call)
    min_sample_ns: int  # each sample lasts at least this long
    startup_runs: int  # fresh interpreters per start-up program

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        if args.quick:
            return cls(quick=True, repeats=7, warmup_calls=3, min_sample_ns=2_000_000,
                       startup_runs=3)
        return cls(quick=False, repeats=31, warmup_calls=10, min_sample_ns=2_000_000,
                   startup_runs=5)


def make_parser(description: str) -> argparse.ArgumentParser:
    """The command line every benchmark shares: ``--quick`` and ``--json PATH``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="fewer samples and start-up runs (about a minute on 2 cores)")
    parser.add_argument("--json", metavar="PATH",
                        help="also write the results as JSON to PATH")
    return parser


# --- timing -----------------------------------------------------------------------------------
def _sample_ns(fn: Callable[[], object], n: int) -> int:
    """Wall time of ``n`` back-to-back calls of ``fn``, in nanoseconds."""
    loop = range(n)
    start = time.perf_counter_ns()
    for _ in loop:
        fn()
    return time.perf_counter_ns() - start


def _calibrate(fn: Callable[[], object], min_sample_ns: int) -> int:
    """The smallest power-of-two-ish loop count whose sample lasts ``min_sample_ns``."""
    n = 1
    while True:
        elapsed = _sample_ns(fn, n)
        if elapsed >= min_sample_ns:
            return n
        # Jump most of the way at once (10% margin), but at most 10x per step in case the
        # first calls were unusually fast.
        target = n * min_sample_ns * 1.1 / max(elapsed, 1)
        n = int(min(max(target, n * 2), n * 10))


class _GcPaused:
    def __enter__(self):
        self._was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()

    def __exit__(self, *exc):
        if self._was_enabled:
            gc.enable()


_call_overhead_cache: list[float] = []


def call_overhead_ns(settings: Settings) -> float:
    """Per-call cost of the timing loop itself (an empty lambda), measured once."""
    if not _call_overhead_cache:
        empty = lambda: None
        n = _calibrate(empty, settings.min_sample_ns)
        with _GcPaused():
            samples = [_sample_ns(empty, n) / n for _ in range(max(settings.repeats, 11))]
        _call_overhead_cache.append(statistics.median(samples))
    return _call_overhead_cache[0]


@dataclass(frozen=True)
class Timing:
    """Nanoseconds per call: the median sample, the spread (interquartile range) and the
    fastest sample (noise on a shared machine only ever adds time)."""

    median_ns: float
    iqr_ns: float
    best_ns: float

    @property
    def relative_spread(self) -> float:
        return self.iqr_ns / self.median_ns


def measure(fns: dict[str, Callable[[], object] | None], settings: Settings
            ) -> dict[str, Timing | None]:
    """Time each callable (``None`` entries stay ``None``); see ``time_many``."""
    overhead = call_overhead_ns(settings)
    live = {name: fn for name, fn in fns.items() if fn is not None}
    loops = {}
    for name, fn in live.items():
        for _ in range(settings.warmup_calls):
            fn()
        loops[name] = _calibrate(fn, settings.min_sample_ns)
    samples: dict[str, list[float]] = {name: [] for name in live}
    with _GcPaused():
        for _ in range(settings.repeats):
            for name, fn in live.items():
                samples[name].append(_sample_ns(fn, loops[name]) / loops[name])
    result: dict[str, Timing | None] = dict.fromkeys(fns)
    for name, per_call in samples.items():
        quartiles = statistics.quantiles(per_call, n=4) if len(per_call) > 1 else [0, 0, 0]
        # Clamp: a no-op-like callable could otherwise come out negative by noise.
        median = max(statistics.median(per_call) - overhead, 1.0)
        best = max(min(per_call) - overhead, 1.0)
        result[name] = Timing(median, quartiles[2] - quartiles[0], best)
    return result


def time_many(fns: dict[str, Callable[[], object] | None], settings: Settings
              ) -> dict[str, float | None]:
    """Median nanoseconds per call of each callable (``None`` entries stay ``None``).

    Each callable is warmed up and calibrated on its own, then the samples are interleaved.
    """
    return medians(measure(fns, settings))


def medians(timings: dict[str, Timing | None]) -> dict[str, float | None]:
    return {name: None if timing is None else timing.median_ns
            for name, timing in timings.items()}


def noise_notes(timings: dict[str, Timing | None], threshold: float = 0.25,
                goals: Sequence[Goal] = ()) -> list[str]:
    """Notes for the implementations whose samples spread widely (IQR > threshold * median);
    when any does, also the ratios of the fastest samples for ``goals`` (information: the
    verdicts use the medians)."""
    notes = [f"{name} is noisy: interquartile range {timing.relative_spread:.0%} of the median"
             for name, timing in timings.items()
             if timing is not None and timing.relative_spread > threshold]
    subject = timings.get(SUBJECT)
    if notes and subject is not None:
        for goal in goals:
            ref = timings.get(goal.reference)
            if ref is not None:
                notes.append(f"fastest samples: {SUBJECT}/{goal.reference} "
                             f"{subject.best_ns / ref.best_ns:.2f}x")
    return notes


def time_startup(programs: dict[str, str | None], settings: Settings
                 ) -> tuple[dict[str, float | None], list[str]]:
    """Median wall time (ns) of ``python -c CODE`` per program, and notes on failures.

    One unmeasured run per program first, so the disk cache is warm for everyone.
    """
    live = {name: code for name, code in programs.items() if code is not None}
    notes: list[str] = []
    failed: set[str] = set()
    for name, code in live.items():
        if _run_python(code) is None:
            failed.add(name)
            notes.append(f"start-up program for {name} failed: python -c {code!r}")
    samples: dict[str, list[int]] = {name: [] for name in live if name not in failed}
    for _ in range(settings.startup_runs):
        for name in samples:
            elapsed = _run_python(live[name])
            if elapsed is not None:
                samples[name].append(elapsed)
    result: dict[str, float | None] = dict.fromkeys(programs)
    for name, values in samples.items():
        if values:
            result[name] = float(statistics.median(values))
    return result, notes


# Start-up is measured as a user sees it: with bytecode caches written by the warm-up run.
# (Some sandboxes set PYTHONDONTWRITEBYTECODE, which makes every start compile every module.)
_STARTUP_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run_python(code: str) -> int | None:
    start = time.perf_counter_ns()
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False, env=_STARTUP_ENV)
    elapsed = time.perf_counter_ns() - start
    return elapsed if done.returncode == 0 else None


# --- goals and rows ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Goal:
    """``ratio(SUBJECT / reference) <= limit``; ``floor`` is the weaker bound still accepted."""

    reference: str  # e.g. "numpy"
    limit: float
    label: str  # how the table states it, e.g. "<=3x NumPy"
    floor: float | None = None

    def verdict(self, ratio: float | None) -> str:
        if ratio is None:
            return UNKNOWN
        return PASSED if ratio <= self.limit else MISSING

    def within_floor(self, ratio: float | None) -> bool:
        return ratio is not None and self.floor is not None and ratio <= self.floor


@dataclass
class Row:
    """One benchmark: per-implementation nanoseconds (``None``: not measured) and goals."""

    name: str
    times_ns: dict[str, float | None]
    goals: tuple[Goal, ...] = ()
    notes: list[str] = field(default_factory=list)

    def ratio(self, reference: str) -> float | None:
        subject, other = self.times_ns.get(SUBJECT), self.times_ns.get(reference)
        if subject is None or not other:
            return None
        return subject / other

    @property
    def goal_text(self) -> str:
        return "; ".join(goal.label for goal in self.goals) or "-"

    @property
    def status(self) -> str:
        """PASS when every goal is met, MISS when one is missed, N/A when none can be judged."""
        verdicts = [goal.verdict(self.ratio(goal.reference)) for goal in self.goals]
        if MISSING in verdicts:
            return MISSING
        if PASSED in verdicts:
            return PASSED
        return UNKNOWN

    def status_detail(self) -> str:
        """The status plus, on a miss, which goal was missed and whether its floor holds."""
        misses = []
        for goal in self.goals:
            ratio = self.ratio(goal.reference)
            if goal.verdict(ratio) == MISSING:
                floor = ""
                if goal.floor is not None:
                    floor = " (floor ok)" if goal.within_floor(ratio) else " (floor missed)"
                misses.append(f"{goal.reference}{floor}")
        if misses:
            return f"{MISSING}: " + ", ".join(misses)
        return self.status

    def record(self, references: Sequence[str]) -> dict:
        """The JSON record: name, <impl>_us, ratio_<ref>, goal, status."""
        out: dict = {"name": self.name}
        for impl, ns in self.times_ns.items():
            out[f"{impl}_us"] = None if ns is None else ns / 1000.0
        for reference in references:
            out[f"ratio_{reference}"] = self.ratio(reference)
        out["goal"] = self.goal_text
        out["status"] = self.status
        return out


# --- reporting --------------------------------------------------------------------------------
def format_time(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e9:.2f} s"


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.3f}x" if ratio < 0.1 else f"{ratio:.2f}x"


def machine_info(env_vars: Sequence[str] = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")) -> dict:
    """What the numbers depend on: CPU, core counts, library versions, relevant env vars."""
    info: dict = {
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "python": platform.python_version(),
        "numpy": _version_of("numpy"),
        "jax": _version_of("jax"),
        "funcarray": _version_of("funcarray"),
        "git_commit": _git_commit(),
        # Other processes on the machine add noise; the 1-minute load says how much.
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }
    for name in env_vars:
        info[name] = os.environ.get(name)
    return info


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version_of(module: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        done = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=False, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def print_report(title: str, header_lines: Sequence[str], rows: Sequence[Row],
                 implementations: Sequence[str], labels: dict[str, str] | None = None) -> None:
    """Print the header, a table of medians and ratios with verdicts, then per-row notes."""
    labels = labels or {}
    references = [impl for impl in implementations if impl != SUBJECT]
    columns = (["benchmark"] + [labels.get(impl, impl) for impl in implementations]
               + [f"{labels.get(SUBJECT, SUBJECT)}/{labels.get(ref, ref)}" for ref in references]
               + ["goal", "status"])
    lines = []
    for row in rows:
        lines.append([row.name]
                     + [format_time(row.times_ns.get(impl)) for impl in implementations]
                     + [format_ratio(row.ratio(ref)) for ref in references]
                     + [row.goal_text, row.status_detail()])
    widths = [max(len(str(cell)) for cell in column) for column in zip(columns, *lines)]
    numeric = range(1, 1 + len(implementations) + len(references))

    def render(cells):
        return "  ".join(str(cell).rjust(width) if i in numeric else str(cell).ljust(width)
                         for i, (cell, width) in enumerate(zip(cells, widths))).rstrip()

    print(title)
    print("=" * len(title))
    for line in header_lines:
        print(line)
    print()
    print(render(columns))
    print(render(["-" * width for width in widths]))
    for line in lines:
        print(render(line))
    passed = sum(row.status == PASSED for row in rows)
    judged = sum(row.status != UNKNOWN for row in rows)
    print()
    print(f"{passed}/{judged} rows meet their goals (information only; this never fails).")
    for row in rows:
        for note in row.notes:
            print(f"note [{row.name}]: {note}")
    sys.stdout.flush()


def write_json(path: str, rows: Sequence[Row], implementations: Sequence[str],
               meta: dict) -> None:
    """Write ``{"meta": {...}, "rows": [record, ...]}`` (records as in ``Row.record``)."""
    references = [impl for impl in implementations if impl != SUBJECT]
    payload = {"meta": meta, "rows": [row.record(references) for row in rows]}
    with open(path, "w") as out:
        json.dump(payload, out, indent=2)
        out.write("\n")


# --- additions for heavy and one-shot benchmarks (bench_transforms.py, bench_jit.py) --------
def scaled(settings: Settings, *, max_repeats: int, max_warmup_calls: int) -> Settings:
    """``settings`` with fewer samples, for operations that take tens of milliseconds or more.

    A 300 ms call timed 31 times per library would make one row last minutes; the median of
    fewer samples is still robust for calls that long (their loop overhead is negligible).
    """
    import dataclasses

    return dataclasses.replace(settings, repeats=min(settings.repeats, max_repeats),
                               warmup_calls=min(settings.warmup_calls, max_warmup_calls))


def error_note(name: str, exc: BaseException) -> str:
    """``"name: n/a (TypeName: first line of the message)"``: what a row shows instead of
    crashing when an implementation cannot run the benchmark."""
    # str(KeyError) quotes its message; its argument reads better.
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    lines = str(message).strip().splitlines()
    return f"{name}: n/a ({type(exc).__name__}: {lines[0] if lines else ''})"


def guarded(name: str, build: Callable[[], object], notes: list[str]) -> object | None:
    """``build()``, or ``None`` plus an ``error_note`` in ``notes`` if it raises."""
    try:
        return build()
    except Exception as exc:  # noqa: BLE001 (reported in the row instead of crashing)
        notes.append(error_note(name, exc))
        return None


# A one-shot measurement: setup() -> state (not timed), then run(state) (timed).
ColdCase = tuple[Callable[[], object], Callable[[object], object]]


def time_cold(cases: dict[str, ColdCase | None], repeats: int
              ) -> tuple[dict[str, Timing | None], list[str]]:
    """Time operations that can only run once per state (a first call, a compilation).

    Each sample calls ``setup()`` untimed (clear caches, make a fresh function), then times
    one ``run(state)``. Samples are interleaved across implementations, as in ``measure``;
    an implementation that raises is dropped with an ``error_note``.
    """
    live = {name: case for name, case in cases.items() if case is not None}
    samples: dict[str, list[int]] = {name: [] for name in live}
    notes: list[str] = []
    for _ in range(repeats):
        for name, (setup, run) in list(live.items()):
            try:
                state = setup()
                with _GcPaused():
                    start = time.perf_counter_ns()
                    run(state)
                    samples[name].append(time.perf_counter_ns() - start)
            except Exception as exc:  # noqa: BLE001 (reported in the row instead of crashing)
                notes.append(error_note(name, exc))
                del live[name]
                samples.pop(name)
    result: dict[str, Timing | None] = dict.fromkeys(cases)
    for name, values in samples.items():
        quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else [0, 0, 0]
        result[name] = Timing(float(statistics.median(values)), quartiles[2] - quartiles[0],
                              float(min(values)))
    return result, notes


def time_child_programs(programs: dict[str, str | None], runs: int
                        ) -> tuple[dict[str, float | None], dict[str, float | None], list[str]]:
    """Run each ``python -c CODE`` ``runs`` times (interleaved, after one unmeasured run).

    Returns the median wall time of the whole child (start-up and imports included), the
    median of the nanoseconds each child prints as the last line of its stdout (what it
    timed itself, e.g. from after its imports), and notes on failures.
    """
    live = {name: code for name, code in programs.items() if code is not None}
    notes: list[str] = []
    for name, code in list(live.items()):
        outcome = _run_child(code)
        if isinstance(outcome, str):
            notes.append(f"{name}: n/a (child failed: {outcome})")
            del live[name]
    walls: dict[str, list[int]] = {name: [] for name in live}
    inners: dict[str, list[int]] = {name: [] for name in live}
    for _ in range(runs):
        for name, code in live.items():
            outcome = _run_child(code)
            if isinstance(outcome, tuple):
                walls[name].append(outcome[0])
                inners[name].append(outcome[1])
    wall: dict[str, float | None] = dict.fromkeys(programs)
    inner: dict[str, float | None] = dict.fromkeys(programs)
    for name in live:
        if walls[name]:
            wall[name] = float(statistics.median(walls[name]))
            inner[name] = float(statistics.median(inners[name]))
    return wall, inner, notes


def _run_child(code: str) -> tuple[int, int] | str:
    """(wall ns, the ns the child printed last), or the reason it failed."""
    start = time.perf_counter_ns()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, env=_STARTUP_ENV)
    elapsed = time.perf_counter_ns() - start
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()
        return f"exit {done.returncode}: {tail[-1] if tail else ''}"
    try:
        return elapsed, int(done.stdout.split()[-1])
    except (IndexError, ValueError):
        return f"printed no timing: {done.stdout[-200:]!r}"


# --- additions for benchmarks of many small cases (bench_eager_ops.py) -----------------------
def freeze_heap() -> None:
    """Collect garbage once, then move every live object out of the collector's reach.

    ``measure`` collects before each set of samples, so that no collection lands in one
    implementation's samples. With a large heap (jaxlib loaded) a full collection takes
    ~0.1 s, which would dominate a benchmark of a thousand cases of microseconds each; after
    ``gc.freeze()`` a collection traverses only the objects made since. Call it once, after
    the imports and before the cases.
    """
    gc.collect()
    gc.freeze()
