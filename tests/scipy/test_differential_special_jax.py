"""Differential test of ``funcarray.scipy.special`` and ``funcarray.lax``'s special functions
against jax: funcarray eager, funcarray jit and ``jax.scipy.special`` / ``jax.lax`` on the
same operands must agree on whether they raise, and otherwise on shape, dtype, weak type and
values.

Operands are arrays of any of the dtypes (0-d, empty, broadcasting shapes, ``SHAPES`` of
differential_values), with values mixing each function's domain, the dtype's edge values
(signed zeros, infinities, NaN, extremes, subnormals) and the function's own hard points
(poles of the gamma functions at 0 and the negative integers, the ends of a probability's
range, the zeros of lgamma and digamma...). A later operand is sometimes a Python float
(weak-typed). jax runs with x64 on only when an array is 64-bit, as in the other
differential tests.

Special functions are approximations: float results are compared within a per-function
number of ulps of the computing precision (``SpecialOp.ulps``, each with the reason), relative
to the larger of jax's magnitude and the function's ``scale`` (its absolute error scale near
its zeros, where relative error is meaningless). Every other difference allowed is a named
function below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import scipy.special as scipy_special
from differential_compare import BITS_64, DEFAULT_32, Raised, attempt, parts, reproducer, subnormal
from differential_values import SHAPES, edge_values
from hypothesis import given, settings
from hypothesis import strategies as st
from op_table import ALL_DTYPES, kind_of

import funcarray as fa
import funcarray.lax as flax
import funcarray.lax._special as flax_special
import funcarray.scipy.special as fsp
from funcarray import dtypes

# Each example compiles a funcarray program and a jax one (hyp1f1's, hyp2f1's and
# sph_harm_y's take seconds): the CI budget is a fixed number of examples over the whole
# table, each drawing its function (the same ones every CI run, derandomized); the
# thorough profile scales the count (conftest.py) and so reaches every function often.
_EXAMPLES = settings(max_examples=20)


# Points where the gamma family is hard: its poles (0, -0 and the negative integers), the
# zeros of lgamma (1, 2), the positive zero of digamma, halves, tiny and huge arguments,
# the float64 and float32 overflow of gamma (171.6, 35.04).
_GAMMA_POINTS = (0.0, -0.0, -1.0, -2.0, -7.0, 1.0, 2.0, 0.5, -0.5, -2.5, 1.4616321449683622,
                 1e-30, 1e-8, 35.0, 35.1, 171.6, 171.7, 1e10, 1e300, -1e10)
_PROBABILITY_POINTS = (0.0, 1.0, 0.5, 1e-300, 1e-30, 1e-7, 1 - 1e-7, 1 - 1e-16, 0.9999,
                       -1e-30)
_INTEGERS = (0.0, 1.0, 2.0, 3.0, 5.0, 10.0)


@dataclasses.dataclass(frozen=True)
class Arg:
    """The values of one operand: floats in ``[lo, hi]`` and the ``points``, next to the
    dtype's edge values. ``integral``: only small integers (orders, counts). ``extremes``
    False: the edge values of magnitude at most ``_MODERATE`` (no infinities, largest
    floats or 64-bit integer extremes; see _HYP2F1_PARAMETER)."""

    lo: float
    hi: float
    points: tuple = ()
    integral: bool = False
    extremes: bool = True


_REAL = Arg(-10.0, 10.0, (0.0, -0.0, 1.0, -1.0))
_GAMMA_ARG = Arg(-10.0, 200.0, _GAMMA_POINTS)
_POSITIVE = Arg(0.0, 30.0, (0.0, 1.0, 0.5, 1e-30, 1e4))
_PROBABILITY = Arg(0.0, 1.0, _PROBABILITY_POINTS)
_ORDER = Arg(0.0, 5.0, _INTEGERS + (-1.0, 0.5), integral=True)
# jax's hyp2f1 computes every branch on every element (lax.select_n), its terminating
# series among them, a fori_loop of |a| (or |b|, |c - a|, |c - b|) terms: a parameter near
# the dtype's largest value or infinite runs for hours. Its parameters are drawn without
# such values (the signed zeros, NaN, the smallest normal and subnormal, 8- and 16-bit
# integer extremes stay).
_MODERATE = 1e4
_HYP2F1_PARAMETER = Arg(-3.0, 3.0, (0.0, 1.0), extremes=False)


@dataclasses.dataclass(frozen=True)
class SpecialOp:
    """One special function and how to compare it.

    * ``name``: the function's name in its namespace (``namespace``: "special" for
      ``scipy.special``, "lax" for ``lax``).
    * ``args``: an ``Arg`` per operand.
    * ``fn`` / ``jax_fn``: the calls (default: the function of that name in each library).
    * ``ulps``: the allowed error in ulps of the computing precision (float32 for float16 and
      bfloat16, whose results must then round to within one of their own ulps), relative to
      ``max(|jax|, scale)``.
    * ``multiple``: it returns a tuple of arrays.
    * ``reference``: SciPy's function (default: ``scipy.special``'s of the same name), the
      third opinion where funcarray and jax differ: funcarray is right where it agrees with
      it in float64 (``jax_is_less_accurate``). None: no third opinion.
    * ``known_defects``: predicates ``(case, what, jax's output)`` giving the elements where
      a named defect outside funcarray's code makes its result open; each defect has its
      own strict expected failure.
    """

    name: str
    args: tuple
    ulps: float = 4
    scale: float = 0.0
    namespace: str = "special"
    fn: Callable | None = None
    jax_fn: Callable | None = None
    multiple: bool = False
    reference: Callable | None = dataclasses.field(default=None, compare=False)
    known_defects: tuple = ()

    @property
    def id(self) -> str:
        return f"{self.namespace}.{self.name}"

    def funcarray_fn(self) -> Callable:
        return self.fn or getattr(fsp if self.namespace == "special" else flax, self.name)

    def reference_call(self) -> Callable | None:
        if self.reference is not None or self.namespace != "special":
            return self.reference
        return getattr(scipy_special, self.name, None)

    def jax_call(self) -> Callable:
        return self.jax_fn or getattr(jsp if self.namespace == "special" else jax.lax, self.name)


def _op(name, *args, **kwargs):
    return SpecialOp(name, args, **kwargs)


# scipy.special's names of the lax functions.
_LAX_REFERENCE = {"erf": "erf", "erfc": "erfc", "erf_inv": "erfinv", "lgamma": "gammaln",
                  "digamma": "digamma", "igamma": "gammainc", "igammac": "gammaincc",
                  "betainc": "betainc", "polygamma": "polygamma", "zeta": "zeta",
                  "bessel_i0e": "i0e", "bessel_i1e": "i1e"}


def _lax(name, *args, **kwargs):
    reference = getattr(scipy_special, _LAX_REFERENCE.get(name, ""), None)
    return SpecialOp(name, args, namespace="lax", reference=reference, **kwargs)


def _reference_logsumexp(x):
    return scipy_special.logsumexp(x, axis=-1)


def _one_element_at_a_time(jax_fn):
    """jax's ``jax_fn`` (expn, or exp1 and expi, which call it), called on one element at a
    time. jax vectorizes expn with a ``jnp.piecewise`` whose branches all run on every
    element of a batch of two or more, and its continued fraction (``_expn2``, meant for
    ``x > 1``) loops while ``x > 0`` and its change exceeds eps, with no cap on the terms:
    a tiny positive ``x`` in a batch (``jsp.expn(jnp.ones(2), jnp.full(2, 1e-30))``) runs
    for hours. One element at a time, ``lax.switch`` runs the chosen branch alone."""
    def call(*operands):
        shape = np.broadcast_shapes(*(np.shape(v) for v in operands))
        if int(np.prod(shape)) < 2:
            return jax_fn(*operands)
        # jax arrays as NumPy ones (to index), Python floats kept (weak).
        spread = [v if isinstance(v, float) else np.broadcast_to(np.asarray(v), shape)
                  for v in operands]
        elements = [jax_fn(*(v if isinstance(v, float) else jnp.asarray(v[i])
                             for v in spread)) for i in np.ndindex(shape)]
        return jnp.stack(elements).reshape(shape)
    return call


def _reference_hyp1f1(a, b, x):
    """SciPy's hyp1f1 where ``a`` and ``b`` are at most ``_MODERATE`` in magnitude (NaN, no
    third opinion, elsewhere): on some larger parameters SciPy's series runs for minutes."""
    a, b, x = np.broadcast_arrays(a, b, x)
    moderate = (np.abs(a) <= _MODERATE) & (np.abs(b) <= _MODERATE)
    out = np.full(a.shape, np.nan)
    out[moderate] = scipy_special.hyp1f1(a[moderate], b[moderate], x[moderate])
    return out


def _reference_bessel_jn(z):
    """jax's bessel_jn(z, v=3) stacks J_0 .. J_3 along a new first axis."""
    return np.stack([scipy_special.jv(n, z) for n in range(4)])


SPECIAL_OPS = (
    # erf/erfc/erfinv/ndtr: XLA's rational approximations, ported to NumPy for eager; a few
    # ulps apart where the two evaluate the polynomial in a different order.
    _op("erf", Arg(-6.0, 6.0, (0.0, -0.0, 1e-30, 3.9, 5.9))),
    _op("erfc", Arg(-30.0, 30.0, (0.0, -0.0, 26.5, 27.3, 9.3))),
    _op("erfinv", Arg(-1.0, 1.0, (1.0, -1.0, 0.0, 0.9999999, -1e-30))),
    # lgamma/digamma near their zeros lose relative accuracy in any implementation: scale 1.
    _op("gammaln", _GAMMA_ARG, ulps=8, scale=1.0),
    _op("digamma", _GAMMA_ARG, ulps=8, scale=1.0),
    _op("xlogy", _REAL, Arg(0.0, 10.0, (0.0, -0.0, 1.0))),
    _op("xlog1py", _REAL, Arg(-1.0, 10.0, (-1.0, 0.0, -0.0, 1e-30))),
    _op("expit", Arg(-100.0, 100.0, (0.0, 88.7, -88.7, 709.0, -745.0))),
    _op("logit", _PROBABILITY, scale=1.0),
    _op("entr", Arg(-1.0, 10.0, (0.0, -0.0, 1.0, 1e-30))),
    _op("rel_entr", _POSITIVE, _POSITIVE),
    _op("kl_div", _POSITIVE, _POSITIVE),
    # boxcox near lmbda = 0 is (x**l - 1) / l: cancellation, scale 1.
    _op("boxcox", _POSITIVE, Arg(-3.0, 3.0, (0.0, 1e-30, 1.0, -1.0)), ulps=16, scale=1.0),
    _op("boxcox1p", Arg(-1.0, 10.0, (-1.0, 0.0, 1e-30)), Arg(-3.0, 3.0, (0.0, 1.0)), ulps=16,
        scale=1.0),
    # logsumexp and the softmaxes: a sum over the last axis, a few roundings per element.
    _op("logsumexp", Arg(-50.0, 50.0, (0.0, 700.0, -700.0)), ulps=8, scale=1.0,
        fn=lambda x: fsp.logsumexp(x, axis=-1), jax_fn=lambda x: jsp.logsumexp(x, axis=-1),
        reference=_reference_logsumexp),
    _op("softmax", Arg(-50.0, 50.0, (0.0, 700.0)), ulps=8,
        fn=lambda x: fsp.softmax(x, axis=-1), jax_fn=lambda x: jsp.softmax(x, axis=-1),
        reference=lambda x: scipy_special.softmax(x, axis=-1)),
    _op("log_softmax", Arg(-50.0, 50.0, (0.0, 700.0)), ulps=8, scale=1.0,
        fn=lambda x: fsp.log_softmax(x, axis=-1), jax_fn=lambda x: jsp.log_softmax(x, axis=-1),
        reference=lambda x: scipy_special.log_softmax(x, axis=-1)),
    # gamma is exp(lgamma): the error of lgamma (scale 1) times the argument's size.
    _op("gamma", _GAMMA_ARG, ulps=64),
    _op("gammasgn", _GAMMA_ARG, ulps=0),
    _op("loggamma", _GAMMA_ARG, ulps=8, scale=1.0),
    # betaln/beta: sums of lgammas, cancelling for large arguments.
    _op("betaln", _POSITIVE, _POSITIVE, ulps=32, scale=1.0),
    _op("beta", _POSITIVE, _POSITIVE, ulps=64),
    _op("factorial", Arg(-2.0, 30.0, _INTEGERS + (170.0, 171.0, -1.0, 2.5)), ulps=64),
    # comb is exp of a sum of lgammas (in jax too): its relative error is about eps times
    # lgamma(N + 1), 480 at N = 126 (an int8's largest): comb(126, 1) is 125.995 in
    # funcarray's float32, 126.003 in jax's.
    _op("comb", Arg(0.0, 30.0, _INTEGERS), Arg(-1.0, 30.0, _INTEGERS + (-1.0,)), ulps=1024),
    _op("poch", Arg(-5.0, 20.0, _GAMMA_POINTS[:8]), Arg(-5.0, 10.0, _INTEGERS), ulps=64),
    _op("multigammaln", Arg(2.0, 20.0, (2.0, 1.5, 1.0)), ulps=16, scale=1.0,
        fn=lambda a: fsp.multigammaln(a, 3), jax_fn=lambda a: jsp.multigammaln(a, 3),
        reference=lambda a: np.vectorize(lambda v: scipy_special.multigammaln(v, 3))(a)),
    _op("zeta", Arg(1.0, 30.0, (1.0, 2.0, 1.5)), Arg(-2.0, 10.0, (1.0, 0.0, -1.0, 0.5)),
        ulps=16),
    _op("polygamma", _ORDER, _GAMMA_ARG, ulps=32, scale=1.0),
    _op("ndtr", Arg(-40.0, 40.0, (0.0, -38.0, 8.3, -1e-30))),
    _op("ndtri", _PROBABILITY, ulps=8, scale=1.0),
    _op("log_ndtr", Arg(-40.0, 40.0, (0.0, -1e5, -20.0, 6.0, 8.0)), ulps=8, scale=1.0),
    _op("erfcx", Arg(-30.0, 100.0, (0.0, 26.0, 1e10, -26.7))),
    _op("owens_t", _REAL, _REAL, ulps=64, scale=1.0),
    _op("wofz", Arg(-10.0, 10.0, (0.0, 1e-30, 6.0)), ulps=64, scale=1.0),
    # The incomplete gamma and beta functions: series and continued fractions, iterated to
    # the precision's epsilon; tens of ulps where the iteration stops differently.
    _op("gammainc", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0, 1e-30)), ulps=64, scale=1.0),
    _op("gammaincc", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0, 1e-30)), ulps=64, scale=1.0),
    _op("betainc", _POSITIVE, _POSITIVE, _PROBABILITY, ulps=64, scale=1.0),
    _op("i0", Arg(-100.0, 100.0, (0.0, 700.0, 3.4e38))),
    _op("i0e", Arg(-100.0, 100.0, (0.0, 700.0, 3.4e38))),
    _op("i1", Arg(-100.0, 100.0, (0.0, 700.0, 3.4e38))),
    _op("i1e", Arg(-100.0, 100.0, (0.0, 700.0, 3.4e38))),
    _op("bernoulli", Arg(0.0, 30.0, _INTEGERS, integral=True), ulps=0),
    _op("dawsn", _REAL, ulps=16),
    _op("exp1", Arg(0.0, 50.0, (0.0, 1e-30, 1.0, 700.0)), ulps=16,
        jax_fn=_one_element_at_a_time(jsp.exp1)),
    _op("expi", Arg(-50.0, 50.0, (0.0, -0.0, 0.3725, 700.0)), ulps=16, scale=1.0,
        jax_fn=_one_element_at_a_time(jsp.expi)),
    _op("expn", _ORDER, Arg(0.0, 50.0, (0.0, 1e-30, 1.0)), ulps=32,
        jax_fn=_one_element_at_a_time(jsp.expn)),
    _op("spence", Arg(0.0, 10.0, (0.0, 1.0, 2.0, -1.0)), ulps=16, scale=1.0),
    _op("fresnel", Arg(-10.0, 10.0, (0.0, 1e10)), ulps=16, scale=1.0, multiple=True),
    _op("sici", Arg(-10.0, 10.0, (0.0, 1e10)), ulps=16, scale=1.0, multiple=True),
    _op("bessel_jn", Arg(0.0, 30.0, (0.0, 1e-30)), ulps=64, scale=1.0,
        fn=lambda z: fsp.bessel_jn(z, v=3), jax_fn=lambda z: jsp.bessel_jn(z, v=3),
        reference=_reference_bessel_jn),
    _op("sph_harm_y", Arg(0.0, 3.0, (0.0, 1.0, 2.0), integral=True),
        Arg(0.0, 2.0, (0.0, 1.0), integral=True), Arg(0.0, 3.14, (0.0,)),
        Arg(0.0, 6.28, (0.0,)), ulps=64, scale=1.0,
        fn=lambda n, m, t, p: fsp.sph_harm_y(n, m, t, p, n_max=3),
        jax_fn=lambda n, m, t, p: jsp.sph_harm_y(n, m, t, p, n_max=3),
        reference=scipy_special.sph_harm_y),
    _op("hyp1f1", Arg(-5.0, 5.0, (0.0, 1.0)), Arg(0.5, 5.0, (1.0,)), Arg(-10.0, 10.0, (0.0,)),
        ulps=64, scale=1.0, reference=_reference_hyp1f1),
    _op("hyp2f1", _HYP2F1_PARAMETER, dataclasses.replace(_HYP2F1_PARAMETER, points=(1.0,)),
        Arg(0.5, 5.0, (1.0,), extremes=False), Arg(-1.0, 1.0, (0.0, 0.5, 1.0)), ulps=64,
        scale=1.0),
    # funcarray.lax: the primitives behind the functions above, with jax.lax's names.
    _lax("erf", Arg(-6.0, 6.0, (0.0, -0.0))),
    _lax("erfc", Arg(-30.0, 30.0, (0.0,))),
    _lax("erf_inv", Arg(-1.0, 1.0, (1.0, -1.0, 0.0))),
    _lax("lgamma", _GAMMA_ARG, ulps=8, scale=1.0),
    _lax("digamma", _GAMMA_ARG, ulps=8, scale=1.0),
    _lax("igamma", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0)), ulps=64, scale=1.0),
    _lax("igammac", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0)), ulps=64, scale=1.0),
    _lax("igamma_grad_a", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0)), ulps=256, scale=1.0),
    _lax("random_gamma_grad", _POSITIVE, Arg(0.0, 60.0, (0.0, 1.0)), ulps=256, scale=1.0),
    _lax("betainc", _POSITIVE, _POSITIVE, _PROBABILITY, ulps=64, scale=1.0),
    _lax("polygamma", _ORDER, _GAMMA_ARG, ulps=32, scale=1.0),
    _lax("zeta", Arg(1.0, 30.0, (1.0, 2.0)), Arg(-2.0, 10.0, (1.0, 0.0)), ulps=16),
    _lax("bessel_i0e", Arg(-100.0, 100.0, (0.0, 3.4e38))),
    _lax("bessel_i1e", Arg(-100.0, 100.0, (0.0, 3.4e38))),
)

# The lax functions of this kind that are not in funcarray.lax._special.
_LAX_SPECIAL_ELSEWHERE = ("erf", "erfc", "erf_inv", "lgamma", "digamma")


def test_every_special_function_is_in_the_table():
    """A function added to funcarray.scipy.special or funcarray.lax._special later must join
    SPECIAL_OPS (with its tolerance) or this fails."""
    tested = {(op.namespace, op.name) for op in SPECIAL_OPS}
    wanted = ({("special", name) for name in fsp.__all__}
              | {("lax", name) for name in (*flax_special.__all__, *_LAX_SPECIAL_ELSEWHERE)})
    assert wanted - tested == set()
    assert tested - wanted == set()


# --------------------------------------------------------------------------------------------
# Operands
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """The operands of one call: NumPy arrays and Python floats, in argument order."""

    values: tuple

    def __repr__(self):
        return "(" + ", ".join(map(reproducer, self.values)) + ")"


def _real_of(dtype):
    return {np.dtype(dtypes.complex64): dtypes.float32,
            np.dtype(dtypes.complex128): dtypes.float64}.get(np.dtype(dtype), dtype)


def _elements(arg, dtype):
    real = _real_of(dtype)
    if arg.integral:
        return st.sampled_from(arg.points) | st.integers(int(arg.lo), int(arg.hi)).map(float)
    edges = tuple(float(v) for v in edge_values(real)
                  if arg.extremes or not abs(float(v)) > _MODERATE)
    return st.one_of(st.floats(arg.lo, arg.hi), st.sampled_from(arg.points),
                     st.sampled_from(edges))


def _as_array(xs, dtype, shape):
    dtype = np.dtype(dtype)
    wide = np.asarray(xs, np.float64)
    if kind_of(dtype) == "b":
        return (wide != 0).reshape(shape)
    if kind_of(dtype) in "iu":
        info = np.iinfo(dtype)
        wide = np.nan_to_num(np.round(wide))  # NaN to 0, infinities to the extremes
        return np.array([min(max(int(v), int(info.min)), int(info.max)) for v in wide],
                        dtype).reshape(shape)
    with np.errstate(over="ignore"):
        return wide.astype(dtype).reshape(shape)


@st.composite
def cases(draw, op):
    nargs = len(op.args)
    dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shapes = draw(st.sampled_from(SHAPES[min(nargs, 3)]), label="shapes")
    shapes = shapes + ((),) * (nargs - len(shapes))
    values = []
    for i, (arg, shape) in enumerate(zip(op.args, shapes)):
        if i > 0 and draw(st.integers(0, 3), label="python float") == 0:
            values.append(draw(_elements(arg, dtypes.float64)))
            continue
        size = int(np.prod(shape))
        xs = draw(st.lists(_elements(arg, dtype), min_size=size, max_size=size))
        if kind_of(dtype) == "c":
            ys = draw(st.lists(_elements(arg, dtype), min_size=size, max_size=size))
            x = np.empty(shape, dtype)  # set part by part: inf * 1j would give a NaN
            x.real, x.imag = _as_array(xs, _real_of(dtype), shape), _as_array(
                ys, _real_of(dtype), shape)
        else:
            x = _as_array(xs, dtype, shape)
        values.append(x)
    return Case(tuple(values))


# --------------------------------------------------------------------------------------------
# Running the three implementations
# --------------------------------------------------------------------------------------------


def _arrays(case):
    return [v for v in case.values if isinstance(v, np.ndarray)]


def _run_eager(op, case):
    fn = op.funcarray_fn()
    return attempt(lambda: fn(*(fa.numpy.asarray(v) if isinstance(v, np.ndarray) else v
                                 for v in case.values)), op.multiple)


def _run_jit(op, case):
    # Every operand, Python floats too, is a jit argument (a float keeps its weak type).
    fn = op.funcarray_fn()
    args = [fa.numpy.asarray(v) if isinstance(v, np.ndarray) else v for v in case.values]
    return attempt(lambda: fa.jit(fn)(*args), op.multiple)


def _x64(case) -> bool:
    return any(np.dtype(a.dtype) in BITS_64 for a in _arrays(case))


def _run_jax(op, case):
    fn = op.jax_call()
    with jax.enable_x64(_x64(case)):
        return attempt(lambda: fn(*(jnp.asarray(v) if isinstance(v, np.ndarray) else v
                                    for v in case.values)), op.multiple)


# --------------------------------------------------------------------------------------------
# Allowances
# --------------------------------------------------------------------------------------------


def xla_reads_subnormal_operands_as_zero(case, what, shape, dtype=None):
    """Elements of the eager result with a subnormal operand: XLA on the CPU reads such
    operands as zero (jax and funcarray's jit), NumPy's kernels (funcarray eager) as
    themselves. The value is open there (all of it for a reduction such as logsumexp, or
    for a Python float that rounds to a subnormal of the result's ``dtype``)."""
    allowed = np.zeros(shape, bool)
    if what != "eager":
        return allowed
    for v in _arrays(case):
        if kind_of(v.dtype) not in "fc" or not v.size:
            continue
        for part in parts(v):
            tiny = subnormal(part, v.dtype)
            try:
                allowed |= np.broadcast_to(tiny, shape)
            except ValueError:  # a reduction's operand: any subnormal opens every element
                allowed |= bool(tiny.any())
    for v in case.values:  # a Python float, subnormal once rounded to the result's dtype
        if isinstance(v, float) and dtype is not None:
            with np.errstate(all="ignore"):
                rounded = np.asarray(v).astype(_real_of(dtype))
            allowed |= bool(subnormal(rounded, dtype))
    return allowed


def xla_flushes_subnormal_results(g, w, dtype):
    """XLA on the CPU flushes subnormal results to zero; NumPy keeps them."""
    return ((subnormal(g, dtype) & ((w == 0) | subnormal(w, dtype)))
            | (subnormal(w, dtype) & ((g == 0) | subnormal(g, dtype))))


def _computing_eps(dtype) -> float:
    real = _real_of(dtype)
    if dtypes.is_half_precision(real):
        return float(dtypes.finfo(dtypes.float32).eps)
    return float(dtypes.finfo(real).eps)


def value_bound(op, w, dtype):
    """``ulps`` of the computing precision relative to ``max(|jax|, scale)``, and at least one
    ulp of the result dtype (half-precision results are float32 ones rounded)."""
    own = float(dtypes.finfo(_real_of(dtype)).eps)
    with np.errstate(all="ignore"):
        size = np.maximum(np.abs(w.astype(np.float64)), op.scale)
        return np.maximum(op.ulps * _computing_eps(dtype) * size, own * size)


def funcarray_refuses_complex(case, got, want) -> bool:
    """funcarray's special functions take real operands only and say so (a TypeError naming
    complex inputs: float_args of funcarray/scipy/_special_arguments.py); jax computes some
    of them (expit, logit, xlogy...) with complex arithmetic. Allowed where an operand is
    complex and funcarray refused it."""
    return (isinstance(got, Raised) and not isinstance(want, Raised)
            and isinstance(got.exc, TypeError) and "complex" in str(got.exc)
            and any(kind_of(np.asarray(v).dtype) == "c" for v in case.values))


# jax builds these results from strong internal constants or casts (a bool array with a
# Python float gives a strong float32); funcarray's result is weak, as its elementwise
# functions' (and jax's own jnp.add's) are for the same operands.
_JAX_STRONG_RESULT = frozenset({"rel_entr", "kl_div", "beta", "poch", "owens_t", "expn",
                                "hyp1f1", "hyp2f1", "betaln", "comb"})


def jax_result_is_strong(op, case, g, g_weak, w, w_weak) -> bool:
    """jax's result is strong where funcarray's is weak: for the functions listed above, and
    for every function (scipy.stats' too) whose arrays are all bool, which jax's
    promote_args_inexact turns into a strong float before the Python floats join (jnp.add
    of the same operands is weak, as funcarray's results are)."""
    all_bool = all(kind_of(a.dtype) == "b" for a in _arrays(case))
    return ((op.name in _JAX_STRONG_RESULT or all_bool)
            and g_weak and not w_weak)


def jax_refuses_dtype(case, got, want) -> bool:
    """jax refuses some dtypes its siblings take: bools, integers and half precision for
    ndtr, ndtri, log_ndtr and spence ("x.dtype=int8 is not supported"), and bool orders in
    sph_harm_y (which index its table: NonConcreteBooleanIndexError, or an IndexError of
    "too many indices" where they are 2-d), bool ``q`` in scipy.stats' norm.isf ("sub does
    not accept dtype bool": jax negates it before promoting); funcarray converts them to its
    float, as for every other special function. Allowed where funcarray computes, jax raised
    that way, and an array is not float32 or float64."""
    return (isinstance(want, Raised) and not isinstance(got, Raised)
            and (type(want.exc).__name__ in ("NonConcreteBooleanIndexError", "IndexError")
                 or (isinstance(want.exc, TypeError)
                     and ("is not supported" in str(want.exc)
                          or "does not accept dtype bool" in str(want.exc))))
            and any(np.dtype(a.dtype) not in (np.dtype(np.float32), np.dtype(np.float64))
                    for a in _arrays(case)))


def jax_sph_harm_y_refuses_broadcasting(op, case, got, want) -> bool:
    """jax's sph_harm_y refuses orders ``n`` and ``m`` that broadcast to a shape of rank 2
    or more ("Incompatible shapes for broadcasting: shapes=[(3,), (2, 3), (2,)]", or
    einsum's "Einstein sum subscript 'j' does not contain the correct number of indices":
    it broadcasts its table against the flattened operands); funcarray broadcasts all four
    operands as its other functions do."""
    return (op.name == "sph_harm_y" and isinstance(want, Raised) and not isinstance(got, Raised)
            and ("Incompatible shapes for broadcasting" in str(want.exc)
                 or "Einstein sum subscript" in str(want.exc)))


def jax_lax_refuses_python_scalars(op, case, got, want) -> bool:
    """jax.lax's igamma family requires operands of one dtype and refuses a Python float
    beside a float16 array ("requires arguments to have the same dtypes, got float16,
    float32"); funcarray's lax takes the Python float as weak, as its other lax functions
    do."""
    return (op.namespace == "lax" and isinstance(want, Raised) and not isinstance(got, Raised)
            and "requires arguments to have the same dtypes" in str(want.exc)
            and any(not isinstance(v, np.ndarray) for v in case.values))


def jax_owens_t_widens_half_precision(op, g, w) -> bool:
    """jax's owens_t returns float32 for float16 and bfloat16 operands (it computes in
    float32 and does not round back); funcarray's keeps their dtype, as its other special
    functions and jax's do. The values are compared in funcarray's dtype."""
    return (op.name == "owens_t" and w.dtype == np.float32
            and dtypes.is_half_precision(g.dtype))


def jax_wofz_is_complex64(op, case, g, w) -> bool:
    """jax's wofz returns complex64 for 64-bit operands (its algorithm is float32 only);
    funcarray's is complex128. The values are compared in jax's complex64."""
    return op.name == "wofz" and g.dtype == np.complex128 and w.dtype == np.complex64


def jax_is_less_accurate(op, case, k, g, ok):
    """Elements where funcarray differs from jax but agrees with SciPy (computed in float64
    on the same operands, then rounded to the result dtype; output ``k``) within the same
    bound: jax is
    the one that is off there (expi(0) is nan in jax, -inf in SciPy and funcarray; jax's
    betaln(8, 1) is 5e-7 off in float64). None where ``op`` has no reference."""
    reference = op.reference_call()
    if reference is None:
        return None
    # A Python float enters funcarray's computation rounded to the result's dtype (a weak
    # 2.2e-308 beside float32 is 0): SciPy gets it rounded the same way.
    try:
        with np.errstate(all="ignore"):
            wide = [v.astype(np.complex128 if kind_of(v.dtype) == "c" else np.float64)
                    if isinstance(v, np.ndarray)
                    else float(np.asarray(v).astype(_real_of(g.dtype))) for v in case.values]
            r = reference(*wide)
            r = np.broadcast_to(np.asarray(r[k] if op.multiple else r), g.shape).astype(g.dtype)
    except Exception:  # noqa: BLE001 (SciPy refusing an operand: no third opinion)
        return None
    agrees = np.ones(g.shape, bool)
    for gp, rp in zip(parts(g), parts(r)):
        gp, rp = gp.astype(np.float64), rp.astype(np.float64)
        with np.errstate(invalid="ignore"):
            agrees &= ((gp == rp) | (np.isnan(gp) & np.isnan(rp))
                       | (np.abs(gp - rp) <= value_bound(op, rp, g.dtype)))
    return ok | agrees


def weak_default_is_32_bit(case, g, g_weak, w, w_weak) -> bool:
    """A weak result under x64 (a Python float won the promotion over an integer array) is
    64-bit in jax and 32-bit in funcarray, whose Python scalar defaults are 32-bit without a
    switch (README, "Dtypes"). The values are then compared with jax's in funcarray's
    dtype, as in the elementwise differential test. So too where the Python float joined
    integer arrays and a strong constant of the formula made the result strong (both
    libraries promote to the float a weak Python float gives, then mix in constants)."""
    float_joins_integers = (any(isinstance(v, float) for v in case.values)
                            and all(kind_of(a.dtype) in "biu" for a in _arrays(case)))
    return (_x64(case) and ((g_weak and w_weak) or float_joins_integers)
            and DEFAULT_32.get(w.dtype) == g.dtype)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def _values_match(op, case, what, g, w):
    dtype = w.dtype
    ok = np.ones(w.shape, bool)
    open_ = xla_reads_subnormal_operands_as_zero(case, what, w.shape, dtype)
    for gp, wp in zip(parts(g), parts(w)):
        gp, wp = gp.astype(np.float64), wp.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok &= ((gp == wp) | (np.isnan(gp) & np.isnan(wp))
                   | (np.abs(gp - wp) <= value_bound(op, wp, dtype))
                   | xla_flushes_subnormal_results(gp, wp, _real_of(dtype)) | open_)
    return ok


def _check_against_jax(op, case, what, got, want):
    where = f"{op.id}{case}, {what}"
    if (funcarray_refuses_complex(case, got, want) or jax_refuses_dtype(case, got, want)
            or jax_lax_refuses_python_scalars(op, case, got, want)
            or jax_sph_harm_y_refuses_broadcasting(op, case, got, want)):
        return
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return
    assert len(got) == len(want), f"{where}: {len(got)} outputs, jax {len(want)}"
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{where}, output {k}: shape {g.shape}, jax {w.shape}"
        if jax_result_is_strong(op, case, g, g_weak, w, w_weak):
            w_weak = True
        if weak_default_is_32_bit(case, g, g_weak, w, w_weak):
            with np.errstate(all="ignore"):
                w = w.astype(g.dtype)
        if jax_owens_t_widens_half_precision(op, g, w):
            w = w.astype(g.dtype)
        if jax_wofz_is_complex64(op, case, g, w):
            g = g.astype(w.dtype)
        assert g.dtype == w.dtype, f"{where}, output {k}: dtype {g.dtype}, jax {w.dtype}"
        assert g_weak == w_weak, f"{where}, output {k}: weak_type {g_weak}, jax {w_weak}"
        if kind_of(w.dtype) in "biu":
            assert (g == w).all(), f"{where}, output {k}:\n  got {g.tolist()}\n  jax {w.tolist()}"
            continue
        ok = _values_match(op, case, what, g, w)
        for defect in op.known_defects:
            ok |= defect(case, what, w)
        if not ok.all():
            better = jax_is_less_accurate(op, case, k, g, ok)
            ok = ok if better is None else better
        assert ok.all(), (f"{where}, output {k}:\n  got {g[~ok].tolist()}\n"
                          f"  jax {w[~ok].tolist()}")


def check_case(op, case):
    """Run ``case`` through funcarray eager, funcarray jit and jax, and compare."""
    want = _run_jax(op, case)
    for what, run in (("eager", _run_eager), ("jit", _run_jit)):
        _check_against_jax(op, case, what, run(op, case), want)


@_EXAMPLES
@given(op=st.sampled_from(SPECIAL_OPS), data=st.data())
def test_eager_and_jit_match_jax(op, data):
    check_case(op, data.draw(cases(op), label="case"))
