"""FFT: lax.fft (the fft primitive) against jax.lax.fft (values eager and jitted, dtypes, the
portable lowering, JVP, the transposes of all four types through vjp and linear_transpose,
vmap over every batch position, errors); funcarray.numpy.fft against NumPy (Hypothesis over
shapes, axes, n/s and norm) and jax (dtypes with x64 off, gradients of real losses, jit,
vmap); funcarray.scipy.fft's DCTs against
scipy.fft (which jax.scipy.fft agrees with; SciPy's are much faster to call)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.fft
from helpers import run_portable
from hypothesis import given, settings
from hypothesis import strategies as st

import funcarray as fa
import funcarray.numpy as fnp
from funcarray import lax
from funcarray.scipy import fft as fsp_fft

RNG = np.random.default_rng(0)


def _complex(shape, dtype=np.complex128, rng=RNG):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def _operand(fft_type, shape, real_dtype):
    if fft_type == "RFFT":
        return RNG.normal(size=shape).astype(real_dtype)
    return _complex(shape, np.result_type(real_dtype, np.complex64))


def _same(got, want, rtol=None, atol=None):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                  want.shape, want.dtype)
    single = got.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got, want, rtol=rtol or (2e-5 if single else 1e-12),
                               atol=atol or (2e-5 if single else 1e-12))


# (fft_type, operand shape, fft_lengths): 1 to 3 axes, even and odd last lengths
CASES = [("FFT", (3, 4, 6), (4, 6)), ("IFFT", (2, 5), (5,)), ("RFFT", (2, 3, 4, 5), (3, 4, 5)),
         ("RFFT", (3, 8), (8,)), ("IRFFT", (2, 4, 4), (4, 6)), ("IRFFT", (3, 4), (7,)),
         ("IRFFT", (2, 3, 2, 4), (3, 2, 7))]


@pytest.mark.parametrize("real_dtype", [np.float32, np.float64])
def test_lax_fft_matches_jax_eager_and_jit(real_dtype):
    for fft_type, shape, lengths in CASES:
        x = _operand(fft_type, shape, real_dtype)
        want = jax.lax.fft(x, fft_type, lengths)
        _same(lax.fft(fnp.asarray(x), fft_type, lengths), want)
        if fft_type in ("FFT", "IRFFT") and len(lengths) > 1:  # each jit compiles: a few
            _same(fa.jit(lambda v, t=fft_type, n=lengths: lax.fft(v, t, n))(x), want)
    # the enum and lower-case names, real input to FFT, empty lengths: as jax
    x = RNG.normal(size=(4,)).astype(real_dtype)
    _same(lax.fft(x, lax.FftType.FFT, (4,)), jax.lax.fft(x, jax.lax.FftType.FFT, (4,)))
    _same(lax.fft(x, "rfft", [4]), jax.lax.fft(x, "rfft", (4,)))
    _same(lax.fft(x, "ifft", ()), jax.lax.fft(x, "ifft", ()))


def test_lax_fft_portable_lowering_and_text():
    x = _complex((2, 3, 4, 4))  # a non-Hermitian input: only the last axis is taken as such
    got = run_portable(lambda v: lax.fft(v, "irfft", (3, 4, 6)), fnp.asarray(x))[0]
    _same(got, jax.lax.fft(x, "irfft", (3, 4, 6)))
    # (for the CPU: on other platforms a multi-axis IRFFT is lowered as an IFFT and a 1-D
    # IRFFT, see primitives/fft.py)
    irfft = fa.jit(lambda v: lax.fft(v, "irfft", (3, 4, 6)), backend="cpu")
    text = irfft.lower(fnp.asarray(x)).as_text()
    assert "fft_type = #stablehlo<fft_type IRFFT>" in text
    assert "fft_length = array<i64: 3, 4, 6>" in text


@pytest.mark.parametrize("fft_type,shape,lengths", CASES)
def test_lax_fft_transposes_match_jax(fft_type, shape, lengths):
    x = _operand(fft_type, shape, np.float64)

    def f(v):
        return lax.fft(v, fft_type, lengths)

    out, f_vjp = fa.vjp(f, fnp.asarray(x))
    want_out, want_vjp = jax.vjp(lambda v: jax.lax.fft(v, fft_type, lengths), x)
    ct = (RNG.normal(size=out.shape) if fft_type == "IRFFT" else _complex(out.shape))
    (want,) = want_vjp(ct)
    _same(f_vjp(fnp.asarray(ct))[0], want)
    _same(fa.linear_transpose(f, fnp.asarray(x))(fnp.asarray(ct))[0], want)
    t = _operand(fft_type, shape, np.float64)
    _same(fa.jvp(f, (fnp.asarray(x),), (fnp.asarray(t),))[1],
          jax.jvp(lambda v: jax.lax.fft(v, fft_type, lengths), (x,), (t,))[1])


def test_lax_fft_vmap_every_batch_position():
    for fft_type, shape, lengths in CASES[:5]:
        x = _operand(fft_type, shape, np.float64)
        for axis in range(len(shape) + 1):
            stacked = np.stack([x, 2 * x, x * x], axis=axis)
            got = fa.vmap(lambda v, t=fft_type, n=lengths: lax.fft(v, t, n),
                          in_axes=axis)(stacked)
            for b in range(3):
                _same(got[b], lax.fft(np.take(stacked, b, axis=axis), fft_type, lengths))


def test_lax_fft_errors():
    c = fnp.ones((2, 4), dtype=np.complex64)
    with pytest.raises(ValueError, match=r"lax.fft: unknown FFT type 'Fft'"):
        lax.fft(c, "Fft", (4,))
    with pytest.raises(TypeError, match="fft_type must be a lax.FftType"):
        lax.fft(c, 0, (4,))
    with pytest.raises(TypeError, match="RFFT needs a real operand, got complex64"):
        lax.fft(c, "rfft", (4,))
    with pytest.raises(ValueError, match=r"shape \(2, 4\) must end in fft_lengths \(5,\)"):
        lax.fft(c, "fft", (5,))
    with pytest.raises(ValueError, match=r"fewer axes than fft_lengths \(2, 2, 4\)"):
        lax.fft(c, "fft", (2, 2, 4))
    with pytest.raises(ValueError, match=r"IRFFT operand shape \(2, 4\) must end in \(5,\)"):
        lax.fft(c, "irfft", (8,))
    with pytest.raises(ValueError, match="at most 3 entries"):
        lax.fft(fnp.ones((1, 1, 1, 2, 4), dtype=np.complex64), "fft", (1, 1, 2, 4))
    with pytest.raises(ValueError, match="must be positive"):
        lax.fft(c, "fft", (0,))
    from funcarray.primitives.fft import fft_p
    with pytest.raises(TypeError, match="FFT needs a complex64 or complex128 operand, got "
                                        "float32"):
        fft_p.bind(fnp.ones(4), fft_type=lax.FftType.FFT, fft_lengths=(4,))
    with pytest.raises(TypeError, match="RFFT needs a float32 or float64 operand"):
        fa.jit(lambda v: fft_p.bind(v, fft_type=lax.FftType.RFFT, fft_lengths=(4,)))(c)


# --- funcarray.numpy.fft -----------------------------------------------------------------

NORMS = [None, "backward", "ortho", "forward"]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_AXES = ["fftn", "ifftn", "rfftn", "irfftn"]


def _input_for(name, shape, rng):
    if name in ("rfft", "ihfft", "rfftn", "rfft2"):
        return rng.normal(size=shape)
    return _complex(shape, rng=rng)


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_numpy_fft_one_axis_matches_numpy(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    name = data.draw(st.sampled_from(ONE_AXIS), label="name")
    shape = tuple(data.draw(st.lists(st.integers(2, 5), min_size=1, max_size=3), label="shape"))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    n = data.draw(st.none() | st.integers(1, 7), label="n")
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    x = _input_for(name, shape, rng)
    want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
    _same(getattr(fnp.fft, name)(fnp.asarray(x), n=n, axis=axis, norm=norm), want)


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_numpy_fft_many_axes_matches_numpy(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    name = data.draw(st.sampled_from(MANY_AXES + ["fft2", "rfft2", "irfft2"]), label="name")
    ndim = data.draw(st.integers(2 if name.endswith("2") else 1, 5), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(2, 3), min_size=ndim, max_size=ndim)))
    count = 2 if name.endswith("2") else data.draw(st.integers(1, ndim), label="count")
    axes = data.draw(st.none() | st.permutations(range(-ndim, 0)), label="axes")
    axes = None if axes is None else list(axes[:count])
    s = data.draw(st.none() | st.lists(st.integers(1, 4), min_size=count, max_size=count))
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    if name.endswith("2") and axes is None:
        axes = [-2, -1]
    x = _input_for(name, shape, rng)
    np_axes = list(range(ndim - len(s), ndim)) if axes is None and s is not None else axes
    want = getattr(np.fft, name)(x, s=s, axes=np_axes, norm=norm)
    _same(getattr(fnp.fft, name)(fnp.asarray(x), s=s, axes=axes, norm=norm), want)


def test_numpy_fft_dtypes_match_jax_32_bit():
    x32 = RNG.normal(size=(3, 4)).astype(np.float32)
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    names = ONE_AXIS + MANY_AXES + ["fft2", "ifft2", "rfft2", "irfft2"]
    calls = [(getattr(fnp.fft, name), getattr(jnp.fft, name), getattr(np.fft, name), (x,))
             for name in names for x in (x32, ints)]
    calls += [(getattr(fnp.fft, name), functools.partial(getattr(jnp.fft, name), n, d),
               getattr(np.fft, name), (n, d))
              for name, n, d in (("fftfreq", 7, 0.3), ("rfftfreq", 8, 0.3))]
    with jax.enable_x64(False):  # jax's 32-bit result types (traced only: nothing compiles)
        wants = [jax.eval_shape(jax_fn, *args) if not isinstance(jax_fn, functools.partial)
                 else jax.eval_shape(jax_fn) for _, jax_fn, _, args in calls]
    for (fa_fn, _, np_fn, args), want in zip(calls, wants):
        got = fa_fn(*args)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (fa_fn.__name__, args)
        np.testing.assert_allclose(got, np_fn(*args), rtol=1e-5, atol=1e-4)
    _same(fnp.fft.fftfreq(6, 2.0, dtype=np.float64), np.fft.fftfreq(6, 2.0))
    _same(fnp.fft.rfftfreq(5, dtype=np.float64), np.fft.rfftfreq(5))
    for axes in (None, 0, (1, 2), [-1]):
        x = RNG.normal(size=(3, 4, 5))
        _same(fnp.fft.fftshift(x, axes=axes), np.fft.fftshift(x, axes=axes))
        _same(fnp.fft.ifftshift(x, axes=axes), np.fft.ifftshift(x, axes=axes))


def test_numpy_fft_more_than_three_axes_in_blocks():
    x = _complex((2, 3, 2, 3, 4))
    for name in MANY_AXES:
        v = x.real if name == "rfftn" else x
        for axes in (None, (4, 0, 2, 1)):
            want = getattr(np.fft, name)(v, axes=axes)
            _same(getattr(fnp.fft, name)(fnp.asarray(v), axes=axes), want)
    got = fa.vmap(lambda v: fnp.fft.irfftn(v, s=(3, 2, 3, 5)), in_axes=2)(x)
    for b in range(x.shape[2]):
        _same(got[b], np.fft.irfftn(x[:, :, b], s=(3, 2, 3, 5), axes=(0, 1, 2, 3)))


# (name, kwargs): every function, with padding, truncation, axes and norms
GRAD_CASES = [("fft", dict(n=7, axis=0)), ("ifft", dict(norm="ortho")),
              ("rfft", dict(n=4, axis=0)), ("rfft", dict(norm="forward")),
              ("irfft", dict(n=7)), ("irfft", dict(axis=0, norm="ortho")),
              ("hfft", dict(n=6)), ("ihfft", dict(n=5, norm="ortho")),
              ("fft2", dict(s=(2, 6))), ("ifft2", dict(axes=(1, 0))),
              ("rfft2", dict(norm="ortho")), ("irfft2", dict(s=(3, 5))),
              ("fftn", dict(axes=(0,))), ("ifftn", dict(s=(4, 5), axes=(0, 1), norm="forward")),
              ("rfftn", dict(s=(3, 3), axes=(-2, -1))), ("irfftn", dict(axes=(1, 0)))]


def _grad_inputs():
    rng = np.random.default_rng(1)
    return [_input_for(name, (3, 4), rng) for name, _ in GRAD_CASES]


def _loss(fft_module, name, kwargs):
    """A real loss through ``name`` (the fftshift and the weights make every output entry
    count differently); quadratic in the input."""
    def loss(v):
        y = getattr(fft_module, name)(v, **kwargs)
        w = np.cos(np.arange(y.size)).reshape(y.shape)
        return (fft_module.fftshift(y).real * w).sum() + (abs(y) ** 2).sum()
    return loss


def _numpy_gradient(loss, x):
    """JAX's gradient of a real quadratic ``loss`` by NumPy central differences (exact for a
    quadratic, up to rounding): dL/dRe(x) - i dL/dIm(x) for complex ``x``, as jax.grad."""
    flat = x.reshape(-1)
    directions = [1.0] + ([1j] if np.iscomplexobj(x) else [])
    grad = np.zeros(flat.shape, x.dtype)
    for i in range(flat.size):
        for d in directions:
            step = np.zeros_like(flat)
            step[i] = d
            slope = (loss((flat + step).reshape(x.shape)) - loss((flat - step).reshape(x.shape)))
            grad[i] += np.conj(d) * slope / 2
    return grad.reshape(x.shape)


def test_numpy_fft_gradients_match_jax():
    xs = _grad_inputs()
    for (name, kwargs), x in zip(GRAD_CASES, xs):
        got = fa.grad(_loss(fnp.fft, name, kwargs))(fnp.asarray(x))
        want = _numpy_gradient(_loss(np.fft, name, kwargs), x)
        assert np.asarray(got).dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=f"{name} {kwargs}")
    # jax itself on the Hermitian cases (one jitted gradient: each jax compile is costly)
    picked = [i for i, (name, kwargs) in enumerate(GRAD_CASES)
              if name in ("irfft", "ihfft") and "norm" in kwargs]

    def total(module):
        return lambda *v: sum(_loss(module, *GRAD_CASES[i])(x) for i, x in zip(picked, v))

    want = jax.jit(jax.grad(total(jnp.fft), argnums=tuple(range(len(picked)))))(
        *[xs[i] for i in picked])
    fa_grad = fa.grad(total(fnp.fft), argnums=tuple(range(len(picked))))
    for got in (fa_grad(*[xs[i] for i in picked]), fa.jit(fa_grad)(*[xs[i] for i in picked])):
        for g, w in zip(got, want):
            _same(g, w, rtol=1e-10, atol=1e-10)


def test_numpy_fft_under_jit_and_vmap():
    x = RNG.normal(size=(4, 3, 6)).astype(np.float32)

    def f(v):
        spectrum = fnp.fft.rfft2(v, s=(4, 6))
        return fnp.fft.irfft(spectrum, n=5, axis=-1, norm="ortho"), fnp.fft.fftn(v, axes=(0,))

    eager = f(fnp.asarray(x))
    fa.tree.map(lambda g, e: _same(g, e), fa.jit(f)(x), eager)
    batched = fa.vmap(f, in_axes=1)(x)
    for b in range(x.shape[1]):
        for got, part in zip(batched, f(x[:, b])):
            _same(got[b], part)
    # the frequencies under jit, with a traced spacing
    _same(fa.jit(lambda d: fnp.fft.fftfreq(5, d))(fnp.asarray(0.5)), np.fft.fftfreq(5, 0.5)
          .astype(np.float32))


def test_numpy_fft_errors():
    x = fnp.ones((2, 4))
    with pytest.raises(ValueError, match="fft.fft: norm must be 'backward'"):
        fnp.fft.fft(x, norm="bad")
    with pytest.raises(ValueError, match="fft.fftn: repeated axes"):
        fnp.fft.fftn(x, axes=(0, -2))
    with pytest.raises(ValueError, match="s and axes must have the same length"):
        fnp.fft.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="fft.fft: takes one axis"):
        fnp.fft.fft(x, axis=(0, 1))
    with pytest.raises(TypeError, match="fft.rfft: needs a real input"):
        fnp.fft.rfft(x * 1j)
    with pytest.raises(ValueError, match=r"default output length 2 \* \(m - 1\) is 0"):
        fnp.fft.irfft(fnp.ones((3, 1)))
    with pytest.raises(ValueError, match="entries must be positive"):
        fnp.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="fft.fft2: transforms exactly 2 axes"):
        fnp.fft.fft2(x, axes=(0,))
    with pytest.raises(ValueError, match=r"fft.fft: axis 2 is out of bounds"):
        fnp.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="more entries than the input has axes"):
        fnp.fft.fftn(x, s=(1, 2, 3))
    with pytest.raises(ValueError, match="fft.fftfreq: n must be positive"):
        fnp.fft.fftfreq(0)
    with pytest.raises(TypeError, match="d must be a single number"):
        fnp.fft.rfftfreq(4, d=[1.0])


# --- funcarray.scipy.fft ------------------------------------------------------------------

DCT_CASES = [("dct", dict(axis=0)), ("dct", dict(n=6, norm="ortho")), ("dct", dict(n=3)),
             ("idct", dict(axis=-2, norm="ortho")), ("idct", dict(n=5)),
             ("dctn", dict()), ("dctn", dict(s=(2, 5), norm="ortho")),
             ("idctn", dict(axes=(1, 0))), ("idctn", dict(s=(4,), norm="ortho"))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_dct_values_match_jax(dtype):
    x = (RNG.normal(size=(3, 4)) + (1j * RNG.normal(size=(3, 4)) if dtype == np.complex128
                                    else 0)).astype(dtype)
    for name, kwargs in DCT_CASES:  # SciPy is the oracle (the same values as jax's, faster)
        want = getattr(scipy.fft, name)(x, **kwargs)
        _same(getattr(fsp_fft, name)(fnp.asarray(x), **kwargs), want, rtol=1e-4
              if dtype == np.float32 else 1e-12, atol=1e-4 if dtype == np.float32 else 1e-12)
    # round trips and jit
    _same(fsp_fft.idctn(fsp_fft.dctn(x, norm="ortho"), norm="ortho"), x, rtol=1e-4, atol=1e-4)
    if dtype == np.float32:
        _same(fa.jit(lambda v: fsp_fft.dct(v, n=5, axis=0))(x), scipy.fft.dct(x, n=5, axis=0))


def test_dct_gradients_vmap_and_errors():
    x = RNG.normal(size=(3, 5))

    def loss(module):
        return lambda v: (module.dctn(v, s=(4, 4), norm="ortho") ** 2 * np.arange(4.0)).sum() \
            + (module.idct(v, axis=0) * np.arange(5.0)).sum()

    _same(fa.grad(loss(fsp_fft))(fnp.asarray(x)), _numpy_gradient(loss(scipy.fft), x),
          rtol=1e-9, atol=1e-9)
    got = fa.vmap(lambda v: fsp_fft.dct(v, norm="ortho"), in_axes=1)(x)
    for b in range(x.shape[1]):
        _same(got[b], fsp_fft.dct(x[:, b], norm="ortho"))
    with pytest.raises(NotImplementedError, match="only the type 2 DCT"):
        fsp_fft.dct(x, type=3)
    with pytest.raises(ValueError, match="type must be 1, 2, 3 or 4"):
        fsp_fft.idctn(x, type=5)
    with pytest.raises(ValueError, match="norm must be None, 'backward' or 'ortho'"):
        fsp_fft.dct(x, norm="forward")
    with pytest.raises(ValueError, match="scipy.fft.dctn: s and axes must have the same"):
        fsp_fft.dctn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="n must be positive"):
        fsp_fft.idct(x, n=0)
