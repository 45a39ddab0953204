"""Which engine the samplers compute for: ``lowering.executor.ops_run_on_accelerator`` answers
whether operations called now run through XLA on an accelerator, and the scaled uniforms
(``a * b + c``, rounded once where XLA contracts it) follow that answer."""

import sys
import types

import numpy as np
import pytest
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import config
from funcarray.lowering import executor


@pytest.fixture
def accelerator_platform(monkeypatch):
    """The default platform reads as a GPU (jax counted as loaded), with no device touched."""
    if "jax" not in sys.modules:
        monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    monkeypatch.setattr(executor, "default_backend", lambda: "gpu")


def test_eager_numpy_engine_runs_on_the_host_whatever_the_platform(accelerator_platform):
    assert not executor.ops_run_on_accelerator()
    for setting in ("eager_shortcuts", "debug_nans"):
        before = getattr(config, setting)
        config.update(setting, not before)
        try:
            assert not executor.ops_run_on_accelerator(), setting
        finally:
            config.update(setting, before)


def test_transforms_and_the_xla_engine_run_on_the_accelerator(accelerator_platform):
    seen = []
    fa.vmap(lambda x: seen.append(executor.ops_run_on_accelerator()) or x)(fnp.ones(2))
    assert seen == [True]
    config.update("eager_backend", "xla")
    try:
        assert executor.ops_run_on_accelerator()
    finally:
        config.update("eager_backend", "auto")
    assert not executor.ops_run_on_accelerator()


def test_on_the_cpu_nothing_runs_on_an_accelerator():
    seen = []
    fa.jit(lambda x: seen.append(executor.ops_run_on_accelerator()) or x)(fnp.ones(2))
    assert seen == [fa.default_backend() != "cpu"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_scaled_uniforms_do_not_depend_on_the_host_shortcuts(dtype):
    key = fa.random.key(3)
    assert_same_outcome(lambda: fa.random.uniform(key, (5,), dtype, -2.0, 3.0))
