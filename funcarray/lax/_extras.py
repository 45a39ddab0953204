"""More of jax.lax's operations (placeholder: being written)."""

__all__: list[str] = []
