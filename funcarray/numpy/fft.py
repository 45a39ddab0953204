"""``funcarray.numpy.fft`` (placeholder: being written)."""

__all__: list[str] = []
