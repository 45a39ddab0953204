"""Fine-tune a pretrained checkpoint: load the MLP that ``train_mlp.py`` saved and adapt it to
data it never saw.

The held-out fifth of the digits (which ``train_mlp.py`` never trains on) plays a new data
source whose images come out shifted one pixel to the right, as from a misaligned scanner.
The pretrained model loses accuracy on such images; a few hundred fine-tuning steps on the
held-out subset win it back. The checkpoint is loaded with ``funcarray.io.load(path,
like=model)``, which checks every parameter's name, shape and dtype against the model defined
here. Without a checkpoint, the script pretrains one first (quickly, with ``--quick``).

Run: python examples/fine_tune.py [--checkpoint PATH] [--steps N] [--quick] [--out DIR]
"""

import argparse
import os
import sys

import numpy as np

import funcarray as fa
import funcarray.io as fio
import funcarray.optim as optim
import funcarray.random as fr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_mlp  # noqa: E402  (the model, data and training loop of the pretraining run)


def shift_right(images, pixels: int = 1):
    """Images moved ``pixels`` columns to the right, the uncovered columns blank."""
    shifted = np.zeros_like(images)
    shifted[:, :, pixels:] = images[:, :, :-pixels]
    return shifted


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None,
                        help="a checkpoint saved by train_mlp.py (default OUT/mlp.safetensors)")
    parser.add_argument("--steps", type=int, default=None,
                        help="fine-tuning steps (default 300; 10 with --quick)")
    parser.add_argument("--quick", action="store_true", default=train_mlp.QUICK)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--out", default=train_mlp.DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 10 if args.quick else 300
    if args.checkpoint is None:
        args.checkpoint = os.path.join(args.out, train_mlp.CHECKPOINT_NAME)
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if not os.path.exists(args.checkpoint):
        print(f"no checkpoint at {args.checkpoint}: pretraining one with train_mlp.py first")
        pretrain_out = os.path.dirname(os.path.abspath(args.checkpoint))
        train_mlp.main(["--out", pretrain_out] + (["--quick"] if args.quick else []))

    # The model is defined here, in code; the checkpoint must fit it name by name.
    metadata = fio.load_metadata(args.checkpoint)
    sizes = tuple(int(n) for n in metadata["sizes"].split(","))
    model = train_mlp.init_mlp(fr.key(0), sizes)
    params = fio.load(args.checkpoint, like=model)
    names = sorted(fio.load(args.checkpoint, flat=True))
    print(f"loaded checkpoint {args.checkpoint} ({len(names)} arrays: {', '.join(names)}; "
          f"pretrained for {metadata['steps']} steps)")

    splits = train_mlp.load_splits()
    (tune_x, tune_y), (test_x, test_y) = splits["held_out"], splits["test"]
    tune_x, shifted_test_x = shift_right(tune_x), shift_right(test_x)
    before = {"original": train_mlp.accuracy(params, test_x, test_y),
              "shifted": train_mlp.accuracy(params, shifted_test_x, test_y)}
    print(f"pretrained: test accuracy {before['original']:.2%} on original images, "
          f"{before['shifted']:.2%} on shifted ones")

    optimizer = optim.adam(args.learning_rate)
    step = fa.jit(train_mlp.make_train_step(optimizer), donate_argnums=(0, 1))
    data = train_mlp.batches(tune_x, tune_y, args.batch_size, seed=1)
    params, _, losses, steps_per_second = train_mlp.train(
        params, optimizer.init(params), step, data, args.steps, "fine-tuning")
    after = {"original": train_mlp.accuracy(params, test_x, test_y),
             "shifted": train_mlp.accuracy(params, shifted_test_x, test_y)}
    print(f"fine-tuned on {len(tune_y)} held-out shifted images for {args.steps} steps "
          f"({steps_per_second:.0f} steps/s): test accuracy {after['shifted']:.2%} on shifted "
          f"images (was {before['shifted']:.2%}), {after['original']:.2%} on original ones "
          "(fine-tuning on shifted images only forgets some of the original task; mix the "
          "two to keep both)")

    tuned = os.path.join(args.out, "mlp_fine_tuned.safetensors")
    fio.save(tuned, params, metadata={**metadata, "fine_tuned_steps": str(args.steps)})
    curve = os.path.join(args.out, "fine_tune_loss_curve.png")
    train_mlp.save_loss_curve(losses, curve, "fine-tuning on shifted held-out digits")
    print(f"saved {tuned} and {curve}")
    # Loading back with the model as `like` checks the round trip, names, shapes and dtypes.
    reloaded = fio.load(tuned, like=model)
    assert all(np.array_equal(a, b) for a, b in
               zip(fa.tree.leaves(reloaded), fa.tree.leaves(params), strict=True))
    return {"before": before, "after": after}


if __name__ == "__main__":
    main()
