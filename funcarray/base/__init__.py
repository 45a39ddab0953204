"""The bottom layer: dtypes, errors, settings, pytrees, abstract values and the ``Array``
value type. It imports nothing else from funcarray; layers above register what it needs
(the tracer type, the device error handler) instead of being imported."""
