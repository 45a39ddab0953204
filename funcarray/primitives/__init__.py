"""Primitives, one file per family, each primitive with all of its rules side by side."""
