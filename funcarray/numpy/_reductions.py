"""Placeholder: being written."""
__all__ = []
