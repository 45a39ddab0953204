"""``funcarray.scipy.stats`` (placeholder: being written)."""

__all__: list[str] = []
