#!/usr/bin/env bash
# The prepared NVIDIA GPU check of issue 4 (jit): the jit and GPU tests and the jit and GPU
# eager benchmarks on the GPU, in one run. CI never has a GPU; this is for a session that is lent one.
#
# The device image has Python 3.12 with jax/jaxlib 0.11.2 and the CUDA 13 plugin (funcarray's
# runtime supports 0.11.2 besides the pinned 0.10.2), numpy, ml_dtypes, hypothesis, pytest and
# pytest-xdist, but no optree and no network. Before the run, on the development machine, in
# the repository root:
#     echo /.whl/ >> .git/info/exclude
#     python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#         --implementation cp --platform manylinux_2_28_x86_64 \
#         --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
#         -d .whl optree==0.20.0
# (checked here: it fetches a 0.5 MB wheel, and the offline installs below work in a Python
# 3.12 environment with jax 0.11.2 and setuptools, as on the device image)
# then call the device tool's run with carry [".whl"] and the command
#     bash bench/gpu_check.sh
# (4-6 minutes on an H200, 9 at most: run it with timeout_s=570). Results land in $OUT: the test logs,
# the benchmarks' JSON and text.
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
    || exit 1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c "import jax, funcarray as fa; print(jax.devices(), fa.devices(), fa.default_backend())" \
    | tee -a "$OUT/gpu.txt"
# GPU_CHECK_PARTS picks what runs (default: all six, in this order).
PARTS=${GPU_CHECK_PARTS:-tests tests_more bench_jit bench_eager cholesky diagnose}
part() { [[ " $PARTS " == *" $1 "* ]]; }
# The jit tests and tests/api/test_gpu.py with the GPU as the platform (eager ops on device
# arrays then run through XLA on the GPU). Several pytest workers share the GPU: jax's client
# must not take 75% of its memory in each. The jax oracle multiplies float32 at full
# precision too (its GPU default is TF32). -v lists each result as it comes, so a run cut
# short by the timeout still says what passed and failed.
export JAX_DEFAULT_MATMUL_PRECISION=highest
if part tests; then
    XLA_PYTHON_CLIENT_PREALLOCATE=false FUNCARRAY_PLATFORM=cuda timeout 120 python3 -m pytest \
        -v -n 8 -p no:cacheprovider --tb=short tests/api/test_gpu.py tests/api/test_jit.py \
        tests/lowering/test_lowering.py tests/api/test_composition.py tests/lax/test_control_flow.py \
        tests/api/test_callbacks.py > "$OUT/tests.log" 2>&1
    echo "pytest exit status $?" >> "$OUT/tests.log"
    grep -E "FAILED|ERROR|passed|failed|exit status" "$OUT/tests.log" | tail -40
fi
# More of the suite on the GPU (every primitive's lowering, random bits, FFT, convolutions,
# factorisations), in a log of its own: failures here may also be tests that assume NumPy
# eager kernels (on a GPU, eager ops run through XLA).
if part tests_more; then
    XLA_PYTHON_CLIENT_PREALLOCATE=false FUNCARRAY_PLATFORM=cuda timeout 120 python3 -m pytest \
        -v -n 12 -p no:cacheprovider --tb=short tests/lowering/test_lowering_ops.py \
        tests/random/test_random.py tests/lax/test_fft.py tests/lax/test_convolution.py \
        tests/numpy/test_linalg_decompositions.py > "$OUT/tests_more.log" 2>&1
    echo "pytest exit status $?" >> "$OUT/tests_more.log"
    grep -E "FAILED|ERROR|passed|failed|exit status" "$OUT/tests_more.log" | tail -30
fi
# The benchmarks (funcarray and jax both on the GPU): jit dispatch, first call and steady
# state; eager ops on device arrays; where a steady-state gap comes from.
if part bench_jit; then
    FUNCARRAY_PLATFORM=cuda timeout 150 python3 bench/bench_jit.py --quick \
        --json "$OUT/bench_jit.json" > "$OUT/bench_jit.txt" 2>&1
    tail -25 "$OUT/bench_jit.txt"
fi
if part bench_eager; then
    FUNCARRAY_PLATFORM=cuda timeout 50 python3 bench/bench_gpu_eager.py --quick \
        --json "$OUT/bench_gpu_eager.json" > "$OUT/bench_gpu_eager.txt" 2>&1
    tail -12 "$OUT/bench_gpu_eager.txt"
fi
if part cholesky; then
    FUNCARRAY_PLATFORM=cuda timeout 60 python3 bench/diagnose_cholesky.py \
        > "$OUT/diagnose_cholesky.txt" 2>&1
    tail -22 "$OUT/diagnose_cholesky.txt"
fi
if part diagnose; then
    (cd bench && FUNCARRAY_PLATFORM=cuda timeout 60 python3 diagnose_steady.py \
        --out /tmp/hlo) 2>&1 | tee "$OUT/diagnose_steady.txt" | tail -16
    if [[ -n "${GPU_CHECK_HLO:-}" ]]; then  # the optimised modules (the tool brings back
        tar czf "$OUT/hlo.tgz" -C /tmp hlo  # at most eight files: one archive)
    fi
fi
