"""Train a small character-level GPT-2 on text that ships with Python, then sample from it.

The corpus is the documentation inside the standard library: the Zen of Python (``this``)
and the docstrings of a dozen modules, about 160,000 characters of English about
programming, read from the running interpreter (no download). The model is
``funcarray.nn.GPT2``, a decoder-only transformer, with one token per character. The
training step (forward pass over a batch through ``vmap``, cross-entropy, gradient, AdamW)
is compiled once with ``fa.jit``; a progress bar shows the loss, a PNG shows the loss curve,
and the trained model is saved as a safetensors checkpoint (the vocabulary and sizes in its
metadata) that ``fine_tune.py`` loads. Sampling runs a jitted next-token function over a
fixed-size context window, so it compiles once however long the sample.

Run: python examples/transformer_lm.py [--steps N] [--quick] [--out DIR]
(needs the examples extra for the plot: python -m pip install -e ".[examples]")
"""

import argparse
import codecs
import dataclasses
import json
import os
import sys
import time

import numpy as np

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
import funcarray.random as fr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_mlp import DEFAULT_OUT, QUICK, ProgressBar, save_loss_curve  # noqa: E402

CHECKPOINT_NAME = "transformer_lm.safetensors"
CORPUS_MODULES = ("builtins", "collections", "functools", "itertools", "string", "textwrap",
                  "json", "pathlib", "re", "random", "statistics", "argparse", "dataclasses")


# --- data --------------------------------------------------------------------------------------

def load_corpus() -> str:
    """The Zen of Python and the docstrings of ``CORPUS_MODULES`` and their public members, in
    a fixed order."""
    import contextlib
    import importlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # importing `this` prints the poem
        import this
    texts = [codecs.decode(this.s, "rot13")]
    for name in CORPUS_MODULES:
        module = importlib.import_module(name)
        texts.append(module.__doc__ or "")
        for attr in sorted(vars(module)):
            doc = getattr(getattr(module, attr), "__doc__", None)
            if not attr.startswith("_") and isinstance(doc, str):
                texts.append(doc)
    return "\n\n".join(t.strip() for t in texts if t.strip())


class CharVocab:
    """Characters to ids and back; the vocabulary is the corpus's sorted characters."""

    def __init__(self, chars: str):
        self.chars = chars
        self.index = {c: i for i, c in enumerate(chars)}

    def encode(self, text: str) -> np.ndarray:
        return np.asarray([self.index[c] for c in text if c in self.index], np.int32)

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)


def batches(data: np.ndarray, batch_size: int, block_size: int, seed: int):
    """Endless random windows: inputs ``(batch, block)`` and the next characters as targets."""
    rng = np.random.default_rng(seed)
    while True:
        starts = rng.integers(0, len(data) - block_size - 1, size=batch_size)
        windows = np.stack([data[s:s + block_size + 1] for s in starts])
        yield fnp.asarray(windows[:, :-1]), fnp.asarray(windows[:, 1:])


# --- training -------------------------------------------------------------------------------------

def loss_fn(model, inputs, targets):
    """Mean next-character cross-entropy over a batch of windows."""
    logits = fa.vmap(model)(inputs)
    log_probs = nn.log_softmax(logits)
    return -fnp.mean(fnp.take_along_axis(log_probs, targets[..., None], axis=-1))


def make_train_step(optimizer):
    def train_step(model, opt_state, inputs, targets):
        loss, grads = fa.value_and_grad(loss_fn)(model, inputs, targets)
        updates, opt_state = optimizer.update(grads, opt_state, model)
        return optim.apply_updates(model, updates), opt_state, loss

    return train_step


def make_optimizer(learning_rate: float, steps: int):
    schedule = optim.warmup_cosine_decay_schedule(
        0.0, learning_rate, warmup_steps=max(1, steps // 10), decay_steps=max(steps, 2))
    return optim.chain(optim.clip_by_global_norm(1.0), optim.adamw(schedule, weight_decay=0.01))


# --- sampling -----------------------------------------------------------------------------------

@fa.jit
def _next_token(model, window, length, key, temperature):
    """A token drawn after the first ``length`` ids of ``window`` (the rest is padding the
    causal mask keeps from mattering)."""
    logits = model(window)[length - 1]
    return fr.categorical(key, logits / temperature)


def sample(model, vocab: CharVocab, prompt: str, length: int, key, temperature: float = 0.8
           ) -> str:
    """``prompt`` continued by ``length`` characters drawn from ``model``."""
    block = model.config.n_positions
    ids = list(vocab.encode(prompt)) or [0]
    for key in fr.split(key, length):
        context = ids[-block:]
        window = np.zeros(block, np.int32)
        window[:len(context)] = context
        ids.append(int(_next_token(model, window, len(context), key, temperature)))
    return vocab.decode(ids)


# --- checkpoint ---------------------------------------------------------------------------------

def save_checkpoint(path: str, model, vocab: CharVocab, **info) -> None:
    config = dataclasses.asdict(model.config)
    fio.save(path, model, metadata={"config": json.dumps(config), "vocab": vocab.chars,
                                    **{k: str(v) for k, v in info.items()}})


def load_checkpoint(path: str):
    """``(model, vocab, metadata)``: the model is rebuilt from the sizes in the metadata, then
    its arrays loaded and checked name by name."""
    metadata = fio.load_metadata(path)
    config = nn.GPT2Config(**json.loads(metadata["config"]))
    like = nn.GPT2(config, key=fr.key(0))
    return fio.load(path, like=like), CharVocab(metadata["vocab"]), metadata


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None,
                        help="training steps (default 1000; 20 with --quick)")
    parser.add_argument("--quick", action="store_true", default=QUICK,
                        help="a tiny model for a few steps, to check that everything runs")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder for the PNG and checkpoint")
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 20 if args.quick else 1000
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    text = load_corpus()
    vocab = CharVocab("".join(sorted(set(text))))
    data = vocab.encode(text)
    cut = int(0.9 * len(data))
    train_data, val_data = data[:cut], data[cut:]
    print(f"corpus: {len(text):,} characters of standard-library documentation, "
          f"{len(vocab.chars)} distinct")

    if args.quick:
        config = nn.GPT2Config(len(vocab.chars), n_positions=32, n_embd=32, n_layer=2, n_head=2)
    else:
        # Small enough to train in a few minutes on a laptop's CPU.
        config = nn.GPT2Config(len(vocab.chars), n_positions=64, n_embd=64, n_layer=4, n_head=4)
    init_key, sample_key = fr.split(fr.key(args.seed))
    model = nn.GPT2(config, key=init_key)
    n_params = sum(p.size for _, p in nn.named_parameters(model))
    print(f"model: GPT-2 with {config.n_layer} blocks, {config.n_head} heads, width "
          f"{config.n_embd}, context {config.n_positions}: {n_params:,} parameters")

    optimizer = make_optimizer(args.learning_rate, args.steps)
    opt_state = optimizer.init(model)
    # Donating the model and optimizer state lets XLA update them in place.
    step = fa.jit(make_train_step(optimizer), donate_argnums=(0, 1))
    stream = batches(train_data, args.batch_size, config.n_positions, args.seed)
    losses, progress = [], ProgressBar(args.steps, "training")
    start = time.perf_counter()
    for i in range(1, args.steps + 1):
        model, opt_state, loss = step(model, opt_state, *next(stream))
        losses.append(float(loss))
        if i == 1:
            compiled = time.perf_counter()
            print(f"first step (trace, compile, run): {compiled - start:.1f} s")
        progress.update(i, loss=losses[-1])
    if args.steps > 1:
        rate = (args.steps - 1) / (time.perf_counter() - compiled)
        print(f"jitted: {rate:.1f} steps/s after compiling")

    val_inputs, val_targets = next(batches(val_data, 64, config.n_positions, seed=123))
    val_loss = float(fa.jit(loss_fn)(model, val_inputs, val_targets))
    print(f"final training loss {losses[-1]:.3f}; validation loss {val_loss:.3f} nats/char "
          f"(uniform guessing: {np.log(len(vocab.chars)):.3f})")
    print("sample:", repr(sample(model, vocab, "The ", 80 if args.quick else 300, sample_key)))

    curve = os.path.join(args.out, "transformer_lm_loss.png")
    save_loss_curve(losses, curve, f"char-level GPT-2: validation loss {val_loss:.2f}")
    checkpoint = os.path.join(args.out, CHECKPOINT_NAME)
    save_checkpoint(checkpoint, model, vocab, steps=args.steps, val_loss=f"{val_loss:.4f}")
    reloaded, _, _ = load_checkpoint(checkpoint)
    assert all(np.array_equal(a, b) for a, b in
               zip(fa.tree.leaves(reloaded), fa.tree.leaves(model), strict=True))
    print(f"saved {curve} and {checkpoint}")
    return {"model": model, "val_loss": val_loss, "checkpoint": checkpoint}


if __name__ == "__main__":
    main()
