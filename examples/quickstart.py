"""Quickstart: eager funcarray arrays behave like NumPy, but are immutable values.

Run: python examples/quickstart.py
"""

import numpy as np

import funcarray as fa
import funcarray.numpy as fnp


def main():
    x = fnp.linspace(0.0, 1.0, 5)
    print("x            =", x)
    print("sin(x) * 2   =", fnp.sin(x) * 2)  # a Python float keeps float32 (weak typing)
    print("x.dtype      =", x.dtype)

    m = fnp.arange(6).reshape(2, 3)
    print("m            =\n", m)
    print("m.sum(axis=0) =", m.sum(axis=0))
    print("m @ m.T      =\n", m @ m.T)

    # Arrays are immutable: updates are functional and return a new array.
    y = x.at[0].set(10.0)
    print("x.at[0].set(10.0) =", y, "(x is unchanged:", x, ")")
    try:
        x[0] = 1.0
    except TypeError as err:
        print("x[0] = 1.0 raises TypeError:", str(err).splitlines()[0])

    # 64-bit inputs stay 64-bit without any global switch.
    d = fnp.asarray(np.array([1e-100, 2.0]))
    print("float64 stays float64:", d.dtype, (d * d)[0])

    # Pytrees: nested containers of arrays.
    params = {"w": fnp.ones((2, 2)), "b": fnp.zeros(2)}
    print("tree.map     =", fa.tree.map(lambda p: p.shape, params))


if __name__ == "__main__":
    main()
