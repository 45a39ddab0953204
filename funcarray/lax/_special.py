"""jax.lax's special functions beyond erf/lgamma/digamma (placeholder: being written)."""

__all__: list[str] = []
