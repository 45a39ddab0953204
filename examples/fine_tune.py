"""Fine-tune a pretrained model: load the character-level GPT-2 that ``transformer_lm.py``
saved, replace its head, freeze its body and train the new head for a new task.

The new task tells Python source code from English prose: 64-character windows of the
standard library's own source (``inspect.getsource`` of a few modules) against windows of
docstrings the language model never saw. The classifier is a module holding the pretrained
``GPT2`` as its body and a fresh ``Linear`` head on the body's mean hidden state. Freezing is
partitioning: ``nn.name_mask`` marks the head's arrays by name, ``tree.partition`` splits the
model, and only the head goes to ``grad`` and to the optimizer, so the body gets neither
gradients nor optimizer state. At the end the script checks that every body array is
bit-identical to the checkpoint's and shows how far the head moved. The checkpoint is loaded
with ``funcarray.io.load(path, like=model)``, which checks every array's name, shape and dtype
against the model defined in code. Without a checkpoint, the script pretrains one first
(quickly, with ``--quick``).

Run: python examples/fine_tune.py [--checkpoint PATH] [--steps N] [--quick] [--out DIR]
"""

import argparse
import inspect
import os
import sys

import numpy as np

import funcarray as fa
import funcarray.io as fio
import funcarray.nn as nn
import funcarray.numpy as fnp
import funcarray.optim as optim
import funcarray.random as fr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transformer_lm  # noqa: E402  (the model, corpus and checkpoint of the pretraining run)
from train_mlp import DEFAULT_OUT, QUICK, ProgressBar, save_loss_curve  # noqa: E402

# Source code (label 1) and prose the pretraining corpus does not hold (label 0).
CODE_MODULES = ("textwrap", "string", "functools", "colorsys", "shlex", "fnmatch")
PROSE_MODULES = ("decimal", "fractions", "heapq", "bisect", "calendar", "difflib")


class TextClassifier(nn.Module):
    """A pretrained ``GPT2`` body and a linear head on its mean hidden state: class logits
    for one window of character ids."""

    body: nn.GPT2
    head: nn.Linear

    def __call__(self, ids):
        return self.head(fnp.mean(self.body.hidden_states(ids), axis=0))


def task_data(vocab, window: int, seed: int = 0):
    """Windows of source code and of docstrings (as ids), half each, and their labels,
    shuffled; three quarters to train, the rest to test."""
    import importlib

    def windows(text):
        ids = vocab.encode(text)
        return [ids[i:i + window] for i in range(0, len(ids) - window, window)]

    code, prose = [], []
    for name in CODE_MODULES:
        code += windows(inspect.getsource(importlib.import_module(name)))
    for name in PROSE_MODULES:
        module = importlib.import_module(name)
        docs = [getattr(module, a).__doc__ or "" for a in sorted(vars(module))
                if not a.startswith("_")]
        prose += windows("\n\n".join([module.__doc__ or "", *docs]))
    n = min(len(code), len(prose))
    rng = np.random.default_rng(seed)
    x = np.stack([*rng.permutation(code)[:n], *rng.permutation(prose)[:n]]).astype(np.int32)
    y = np.asarray([1] * n + [0] * n, np.int32)
    order = rng.permutation(len(y))
    x, y = x[order], y[order]
    cut = 3 * len(y) // 4
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def loss_fn(trainable, frozen, inputs, labels):
    model = fa.tree.combine(trainable, frozen)
    logits = fa.vmap(model)(inputs)
    return -fnp.mean(fnp.sum(nn.one_hot(labels, 2) * nn.log_softmax(logits), axis=-1))


def make_train_step(optimizer):
    def train_step(trainable, frozen, opt_state, inputs, labels):
        # Gradients of the trainable part only: the frozen body is a constant here.
        loss, grads = fa.value_and_grad(loss_fn)(trainable, frozen, inputs, labels)
        updates, opt_state = optimizer.update(grads, opt_state, trainable)
        return optim.apply_updates(trainable, updates), opt_state, loss

    return train_step


@fa.jit
def predict(model, inputs):
    return fnp.argmax(fa.vmap(model)(inputs), axis=-1)


def accuracy(model, x, y) -> float:
    return float(np.mean(np.asarray(predict(model, x)) == y))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a checkpoint saved by "
                        "transformer_lm.py (default OUT/transformer_lm.safetensors)")
    parser.add_argument("--steps", type=int, default=None,
                        help="fine-tuning steps (default 300; 20 with --quick)")
    parser.add_argument("--quick", action="store_true", default=QUICK)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=1e-2)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 20 if args.quick else 300
    if args.checkpoint is None:
        args.checkpoint = os.path.join(args.out, transformer_lm.CHECKPOINT_NAME)
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if not os.path.exists(args.checkpoint):
        print(f"no checkpoint at {args.checkpoint}: pretraining one with transformer_lm.py")
        pretrain_out = os.path.dirname(os.path.abspath(args.checkpoint))
        transformer_lm.main(["--out", pretrain_out] + (["--quick"] if args.quick else []))

    # The model is defined in code; the checkpoint must fit it name by name.
    body, vocab, metadata = transformer_lm.load_checkpoint(args.checkpoint)
    print(f"loaded checkpoint {args.checkpoint}: {len(nn.state_dict(body))} arrays "
          f"(wte.weight, h.0.attn.c_attn.weight, ...), pretrained for {metadata['steps']} "
          f"steps to validation loss {metadata['val_loss']}")

    # Replace the head: the language model's head is its token embedding (tied), so the new
    # head reads the body's hidden states instead.
    head = nn.Linear(body.config.n_embd, 2, key=fr.key(1))
    model = TextClassifier(body, head)
    (train_x, train_y), (test_x, test_y) = task_data(vocab, body.config.n_positions)
    print(f"task: code or prose? {len(train_y)} training and {len(test_y)} test windows of "
          f"{body.config.n_positions} characters")
    before = accuracy(model, test_x, test_y)

    # Freeze the body: only arrays named head.* are trainable.
    trainable_mask = nn.name_mask(model, lambda name: name.startswith("head."))
    trainable, frozen = fa.tree.partition(model, trainable_mask)
    n_trainable = sum(p.size for p in fa.tree.leaves(trainable))
    n_frozen = sum(p.size for p in fa.tree.leaves(frozen))
    print(f"frozen body: {n_frozen:,} parameters; trainable head: {n_trainable:,}")

    optimizer = optim.adam(args.learning_rate)
    opt_state = optimizer.init(trainable)  # state for the head alone
    step = fa.jit(make_train_step(optimizer), donate_argnums=(0, 2))
    rng, losses = np.random.default_rng(0), []
    progress = ProgressBar(args.steps, "fine-tuning")
    for i in range(1, args.steps + 1):
        idx = rng.integers(0, len(train_y), size=args.batch_size)
        trainable, opt_state, loss = step(trainable, frozen, opt_state, train_x[idx],
                                          train_y[idx])
        losses.append(float(loss))
        progress.update(i, loss=losses[-1])
    tuned = fa.tree.combine(trainable, frozen)
    after = accuracy(tuned, test_x, test_y)
    print(f"fine-tuned the head for {args.steps} steps: test accuracy {after:.1%} "
          f"(was {before:.1%} with the fresh head)")

    # Compare frozen and trained parameters.
    pretrained = nn.state_dict(body)
    unchanged = all(np.array_equal(pretrained[name], value)
                    for name, value in nn.state_dict(tuned.body).items())
    moved = {name: float(np.abs(np.asarray(value) - np.asarray(nn.state_dict(head)[name])).max())
             for name, value in nn.state_dict(tuned.head).items()}
    print(f"body: {len(pretrained)} arrays, bit-identical to the checkpoint: {unchanged}; "
          "head moved by at most " + ", ".join(f"{n} {d:.3f}" for n, d in moved.items()))
    assert unchanged

    path = os.path.join(args.out, "text_classifier.safetensors")
    fio.save(path, tuned, metadata={"fine_tuned_steps": str(args.steps),
                                    "test_accuracy": f"{after:.4f}"})
    curve = os.path.join(args.out, "fine_tune_loss_curve.png")
    save_loss_curve(losses, curve, "fine-tuning a head: code or prose?")
    reloaded = fio.load(path, like=tuned)
    assert all(np.array_equal(a, b) for a, b in
               zip(fa.tree.leaves(reloaded), fa.tree.leaves(tuned), strict=True))
    print(f"saved {path} and {curve}")
    return {"before": before, "after": after, "body_unchanged": unchanged}


if __name__ == "__main__":
    main()
