"""funcarray.transforms: tracing machinery (core) and the transforms built on it."""
