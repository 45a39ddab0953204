"""``Module``: a model as a frozen dataclass that is a pytree, in the style of Equinox.

Subclasses declare their fields with annotations and become dataclasses registered as
pytrees: field values are children (arrays become leaves, nested modules and containers
subtrees), while fields made with ``field(static=True)`` are part of the tree structure, so
``jit`` treats them as compile-time constants and retraces when one changes. A child's path
entry is its field name, so key paths read ``.layers[0].weight`` and checkpoint names
``layers.0.weight``.

A module may define its own ``__init__`` (to draw its weights from a key); fields can be
assigned while it runs and never after: a module is immutable, and a changed module is made
with ``tree_at``. Rebuilding a module from its leaves (``tree.unflatten``, ``tree.map``) never
calls ``__init__``.

Example:
    >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
    >>> class Scale(nn.Module):
    ...     factor: fa.Array
    ...     name: str = nn.field(static=True, default="scale")
    ...     def __call__(self, x):
    ...         return self.factor * x
    >>> m = Scale(fnp.float32(2.0))
    >>> m(fnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    >>> fa.tree.leaves(m)
    [Array(2., dtype=float32)]
"""

from __future__ import annotations

import abc
import dataclasses
import operator
from collections.abc import Callable
from typing import Any, dataclass_transform

import numpy as np
import optree

from funcarray.api.arguments import is_array as _is_funcarray_array
from funcarray.base.pytrees import NAMESPACE

__all__ = ["Module", "field", "static_field"]

# The marker of a field that belongs to the tree structure (the name JAX's
# register_dataclass and Equinox read from a field's metadata).
_STATIC = "static"


def field(*, static: bool = False, **kwargs: Any) -> Any:
    """A dataclass field of a ``Module``; ``static=True`` makes it part of the tree structure
    (not a leaf), for configuration such as sizes, flags and activation functions. The other
    keywords are ``dataclasses.field``'s (``default``, ``default_factory``, ``init``...).

    Example:
        >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
        >>> class Affine(nn.Module):
        ...     w: fa.Array
        ...     size: int = nn.field(static=True, default=2)
        >>> fa.tree.leaves(Affine(fnp.ones(2)))
        [Array([1., 1.], dtype=float32)]
    """
    metadata = dict(kwargs.pop("metadata", None) or {})
    if static:
        metadata[_STATIC] = True
    return dataclasses.field(metadata=metadata, **kwargs)


def static_field(**kwargs: Any) -> Any:
    """``field(static=True, **kwargs)``: a field in the tree structure, not a leaf.

    Example:
        >>> import funcarray as fa, funcarray.nn as nn
        >>> class Config(nn.Module):
        ...     depth: int = nn.static_field(default=3)
        >>> fa.tree.leaves(Config()), Config().depth
        ([], 3)
    """
    return field(static=True, **kwargs)


def _short(value: Any) -> str:
    """A field's value as a module's repr shows it: arrays by dtype and shape."""
    if _is_funcarray_array(value):
        return value.aval.str_short()
    if isinstance(value, np.ndarray):
        return f"np.{value.dtype.name}[{','.join(map(str, value.shape))}]"
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        inner = ", ".join(map(_short, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(map(_short, value))}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    if callable(value) and hasattr(value, "__qualname__") and not isinstance(value, Module):
        return value.__qualname__
    return repr(value)


def _tuple_getter(names: tuple) -> Callable[[dict], tuple]:
    """A function from a dict to the tuple of its values at ``names``."""
    if len(names) > 1:
        return operator.itemgetter(*names)
    if names:
        name = names[0]
        return lambda values: (values[name],)
    return lambda values: ()


def _register(cls: type) -> None:
    """Register ``cls`` as a pytree node: the non-static fields are its children (named by
    their field names in key paths), the static ones its aux data."""
    fields = dataclasses.fields(cls)
    children = tuple(f.name for f in fields if not f.metadata.get(_STATIC, False))
    static = tuple(f.name for f in fields if f.metadata.get(_STATIC, False))

    # (itemgetters: a jitted call flattens every module of a model, twice, at each call)
    children_of, static_of = _tuple_getter(children), _tuple_getter(static)

    def flatten(module):
        values = module.__dict__
        return children_of(values), static_of(values), children

    def unflatten(aux, leaves):
        # Bypasses __init__ (whose signature need not take the fields) and __setattr__.
        module = object.__new__(cls)
        values = module.__dict__
        values.update(zip(children, leaves, strict=True))
        values.update(zip(static, aux, strict=True))
        return module

    # GetAttrEntry: a child's path entry is its field name, so flatten_with_path gives
    # ("layers", 0, "weight") and tree_util's key paths GetAttrKey("layers")...
    optree.register_pytree_node(cls, flatten, unflatten, path_entry_type=optree.GetAttrEntry,
                                namespace=NAMESPACE)


@dataclass_transform(field_specifiers=(field, static_field, dataclasses.field))
class _ModuleMeta(abc.ABCMeta):
    """Makes every ``Module`` subclass a dataclass and a pytree, and runs ``__init__`` with
    field assignment allowed. (An ABCMeta, so that a module may declare abstract methods.)"""

    def __new__(mcs, name, bases, namespace, **kwargs):
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        # A custom __init__ is inherited: a subclass without its own keeps its parent's
        # instead of getting a generated one for the parent's fields.
        own_init = "__init__" in namespace
        cls._custom_init = own_init or any(getattr(b, "_custom_init", False) for b in bases)
        cls = dataclasses.dataclass(init=not cls._custom_init or own_init, repr=False,
                                    eq=False)(cls)
        _register(cls)
        return cls

    def __call__(cls, *args, **kwargs):
        module = cls.__new__(cls)
        values = module.__dict__
        values["_Module__initialising"] = True
        try:
            cls.__init__(module, *args, **kwargs)
        finally:
            del values["_Module__initialising"]
        _complete(cls, module)
        return module


def _complete(cls, module) -> None:
    """Fill the defaults a custom ``__init__`` left out; check every field has a value and
    static fields are hashable (they key ``jit``'s cache)."""
    values = module.__dict__
    for f in dataclasses.fields(cls):
        if f.name not in values:
            if f.default is not dataclasses.MISSING:
                values[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                values[f.name] = f.default_factory()
            else:
                raise TypeError(f"{cls.__name__}.__init__ did not set the field {f.name!r}: "
                                "every field needs a value (use None for an absent one)")
        if f.metadata.get(_STATIC, False):
            try:
                hash(values[f.name])
            except TypeError:
                raise TypeError(
                    f"{cls.__name__}: the static field {f.name!r} holds an unhashable "
                    f"{type(values[f.name]).__name__}; static fields are part of the tree "
                    "structure and key jit's cache: store a tuple instead of a list, or make "
                    "the field a non-static one if it holds arrays") from None


class Module(metaclass=_ModuleMeta):
    """The base of models: subclasses are frozen dataclasses and pytrees (see the module
    docstring). ``__call__`` should be a pure function of the module and its inputs, so a
    module goes through ``grad``, ``vmap`` and ``jit`` as an argument like any pytree.

    Example:
        >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
        >>> class Bias(nn.Module):
        ...     b: fa.Array
        ...     def __init__(self, size):
        ...         self.b = fnp.zeros(size)
        ...     def __call__(self, x):
        ...         return x + self.b
        >>> m = Bias(2)
        >>> m
        Bias(b=float32[2])
        >>> fa.grad(lambda m, x: fnp.sum(m(x) ** 2))(m, fnp.ones(2)).b
        Array([2., 2.], dtype=float32)
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_Module__initialising"):
            object.__setattr__(self, name, value)
            return
        raise dataclasses.FrozenInstanceError(
            f"cannot assign to field {name!r} of {type(self).__name__}: modules are immutable; "
            f"make a changed copy with funcarray.nn.tree_at(lambda m: m.{name}, module, "
            "replace=value)")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(
            f"cannot delete field {name!r} of {type(self).__name__}: modules are immutable")

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={_short(self.__dict__.get(f.name))}"
                          for f in dataclasses.fields(self) if f.repr)  # type: ignore[arg-type]
        return f"{type(self).__name__}({shown})"
