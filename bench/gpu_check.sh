#!/usr/bin/env bash
# The prepared NVIDIA GPU check of issue 4 (jit): the jit tests and the jit benchmark on the
# GPU, in one run. CI never has a GPU; this is for a session that is lent one.
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
# (about 5 minutes). Results land in $OUT: the test log and the benchmark's JSON and text.
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
# The jit tests with the GPU as the platform (eager ops then run through XLA on the GPU).
# The jax oracle multiplies float32 at full precision too (its GPU default is TF32).
export JAX_DEFAULT_MATMUL_PRECISION=highest
FUNCARRAY_PLATFORM=cuda timeout 300 python3 -m pytest -q -x -n 4 -p no:cacheprovider \
    tests/test_jit.py tests/test_lowering.py tests/test_composition.py \
    tests/test_control_flow.py 2>&1 | tee "$OUT/tests.log" | tail -30
# The benchmark (funcarray and jax both on the GPU).
FUNCARRAY_PLATFORM=cuda timeout 240 python3 bench/bench_jit.py --quick \
    --json "$OUT/bench_jit.json" 2>&1 | tee "$OUT/bench_jit.txt" | tail -25
