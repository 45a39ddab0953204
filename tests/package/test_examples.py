"""Smoke tests: every script in examples/ runs to completion in quick mode.

Each file in examples/ (except helpers named ``_*.py``) runs as a subprocess with
``FUNCARRAY_EXAMPLES_QUICK=1`` (a few steps only) and ``FUNCARRAY_EXAMPLES_OUT`` set to a
temporary folder, and must exit 0; for the examples listed in ``EXPECTED`` the output must
also show the lines that make the example's point. A script listed in ``RUNS_BEFORE`` runs
after that other one, in the same folder: fine_tune.py loads the checkpoint transformer_lm.py
saves, the workflow the README describes (run alone it would pretrain one itself, the same
transformer_lm run again).
"""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))

# Patterns the output (stdout and stderr together) must contain, and files the run leaves.
EXPECTED = {
    "quickstart.py": ([r"tree\.map +="], []),
    "train_mlp.py": ([r"eager step: layer 0 gradient norm \d", r"eager step: loss \d",
                      r"training 19/19 loss \d", r"test accuracy \d+\.\d\d%",
                      r"jitted: \d+ steps/s"], ["loss_curve.png", "mlp.safetensors"]),
    "fine_tune.py": ([r"loaded checkpoint .*28 arrays",
                      r"frozen body: [\d,]+ parameters; trainable head: 66",
                      r"fine-tuned the head for 20 steps: test accuracy",
                      r"bit-identical to the checkpoint: True"],
                     ["transformer_lm.safetensors", "text_classifier.safetensors",
                      "fine_tune_loss_curve.png"]),
    "transformer_lm.py": ([r"corpus: [\d,]+ characters", r"first step \(trace, compile, run\)",
                           r"training 20/20 loss \d", r"validation loss \d", r"sample: .The "],
                          ["transformer_lm_loss.png", "transformer_lm.safetensors"]),
    "per_example_gradients.py": ([r"vmap\(grad\) vs a loop of grad: max abs difference",
                                  r"jit\(vmap\(grad\)\) +\d", r"DP-SGD .*test accuracy"], []),
    "hessian_vector_products.py": ([r"forward-over-reverse +vs hessian\(f\) @ v",
                                    r"step 2: Newton-CG loss", r"largest Hessian eigenvalue"],
                                   []),
    "data_parallel.py": ([r"devices: 8", r"inserted by the partitioner: [1-9]",
                          r"step 3: data-parallel loss \d",
                          r"largest parameter difference from one device \d\.\d+e-0[5-9]",
                          r"loaded back onto the mesh, identical: True"],
                         ["data_parallel.safetensors"]),
    "shard_map_collectives.py": ([r"devices: 8", r"psum over cols +True", r"all_to_all +True",
                                  r"step 2: data-parallel loss \d",
                                  r"largest gradient difference from one device"], []),
}


# script -> the script that runs first in the same folder (see the module docstring).
RUNS_BEFORE = {"fine_tune.py": "transformer_lm.py"}


def _runs() -> list[tuple[Path, ...]]:
    """The scripts, each alone or after the one it needs (which then is not run alone)."""
    by_name = {p.name: p for p in SCRIPTS}
    first = set(RUNS_BEFORE.values())
    return [(by_name[RUNS_BEFORE[p.name]], p) if p.name in RUNS_BEFORE else (p,)
            for p in SCRIPTS if p.name not in first]


def test_examples_folder_is_found():
    assert {"quickstart.py", "train_mlp.py"} <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("scripts", _runs(), ids=lambda run: "+".join(p.name for p in run))
def test_example_runs(scripts, tmp_path):
    env = {**os.environ, "FUNCARRAY_EXAMPLES_QUICK": "1",
           "FUNCARRAY_EXAMPLES_OUT": str(tmp_path), "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    for script in scripts:
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=300)
        output = result.stdout + result.stderr
        assert result.returncode == 0, f"{script.name} failed:\n{output[-4000:]}"
        assert result.stdout.strip(), f"{script.name} printed nothing"
        patterns, files = EXPECTED.get(script.name, ([], []))
        for pattern in patterns:
            assert re.search(pattern, output), f"{script.name}: no {pattern!r} in:\n{output}"
        for name in files:
            assert (tmp_path / name).stat().st_size > 0, f"{script.name} did not write {name}"


def test_expected_lists_only_existing_examples():
    assert set(EXPECTED) <= {p.name for p in SCRIPTS}
    assert set(RUNS_BEFORE) | set(RUNS_BEFORE.values()) <= {p.name for p in SCRIPTS}


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def _progress_bar_class():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import train_mlp
    finally:
        sys.path.remove(str(EXAMPLES))
    return train_mlp.ProgressBar


@pytest.mark.parametrize("tty", [True, False])
def test_progress_bar(tty):
    stream = _Stream(tty)
    bar = _progress_bar_class()(100, "training", width=10, stream=stream)
    for step in range(1, 101):
        bar.update(step, loss=1.0 / step)
    text = stream.getvalue()
    if tty:  # redrawn in place, ending full and on a new line
        assert text.startswith("\rtraining [") and text.endswith("\n")
        assert "[##########] 100/100 loss 0.0100" in text
    else:  # one plain line every tenth of the run
        lines = text.splitlines()
        assert len(lines) == 10 and lines[0].startswith("training 10/100 loss 0.1000")
        assert "\r" not in text
