"""The transformations as users call them (jit, grad, vmap, custom derivatives,
checkpointing, callbacks, shape evaluation, transfers) and the conversion of user
arguments to arrays. Built on the primitives; below funcarray.lax and funcarray.numpy,
which use them."""
