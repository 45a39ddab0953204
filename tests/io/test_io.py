"""funcarray.io: checkpoints round trip, interoperate with the reference safetensors library,
and refuse truncated, corrupt or mismatched files with errors that name the key."""

import json
import os
import struct

import ml_dtypes
import numpy as np
import pytest
import safetensors
import safetensors.numpy as st_numpy
from hypothesis import given
from hypothesis import strategies as st

import funcarray as fa
import funcarray.io as fio
import funcarray.numpy as fnp
import funcarray.optim as optim
from funcarray.io import _safetensors

FORMATS = ["safetensors", "npz"]
# Every dtype both formats store (complex128 only in .npz: safetensors has no code for it).
DTYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64,
          np.int64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
          ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, np.complex64]


def _random_array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    values = rng.normal(size=shape) * 3
    if dtype.kind == "c":
        values = values + 1j * rng.normal(size=shape)
    return values.astype(dtype)


def _bits(x) -> bytes:
    """The exact bytes of an array (so NaNs and signed zeros compare exactly)."""
    return np.ascontiguousarray(np.asarray(x)).tobytes()


def _assert_same_tree(loaded, expected):
    assert fa.tree.structure(loaded) == fa.tree.structure(expected)
    for got, want in zip(fa.tree.leaves(loaded), fa.tree.leaves(expected), strict=True):
        assert isinstance(got, fa.Array)
        want = np.asarray(want)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert _bits(got) == _bits(want)


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _path(tmp_path, kind, name="ckpt"):
    return str(tmp_path / f"{name}.{kind}")


# --- round trips ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_round_trip_every_dtype(tmp_path, kind, dtype):
    rng = np.random.default_rng(0)
    tree = {"layers": [{"weight": _random_array(rng, (3, 4), dtype),
                        "bias": _random_array(rng, (4,), dtype)}],
            "scalar": _random_array(rng, (), dtype), "empty": _random_array(rng, (0, 2), dtype)}
    path = _path(tmp_path, kind)
    fio.save(path, tree)
    _assert_same_tree(fio.load(path, like=tree), tree)
    nested = fio.load(path)
    assert sorted(nested) == ["empty", "layers", "scalar"]
    assert _bits(nested["layers"]["0"]["weight"]) == _bits(tree["layers"][0]["weight"])
    assert nested["layers"]["0"]["bias"].dtype == np.dtype(dtype)


def test_complex128_needs_npz(tmp_path):
    tree = {"z": np.array([1 + 2j, -3j])}
    with pytest.raises(TypeError, match=r"key 'z'.*complex128.*\.npz"):
        fio.save(_path(tmp_path, "safetensors"), tree)
    assert not os.listdir(tmp_path)  # nothing was created
    fio.save(_path(tmp_path, "npz"), tree)
    _assert_same_tree(fio.load(_path(tmp_path, "npz"), like=tree), tree)


_shapes = st.lists(st.integers(0, 3), max_size=3).map(tuple)
_names = st.text("abcxyz_", min_size=1, max_size=4)
_trees = st.recursive(
    st.tuples(_shapes, st.sampled_from(DTYPES), st.integers(0, 2**32 - 1)),
    lambda children: st.dictionaries(_names, children, min_size=1, max_size=3)
    | st.lists(children, min_size=1, max_size=3),
    max_leaves=6).filter(lambda t: isinstance(t, dict | list))


def _materialise(spec):
    if isinstance(spec, tuple):
        shape, dtype, seed = spec
        return _random_array(np.random.default_rng(seed), shape, dtype)
    if isinstance(spec, dict):
        return {k: _materialise(v) for k, v in spec.items()}
    return [_materialise(v) for v in spec]


@given(spec=_trees, kind=st.sampled_from(FORMATS))
def test_round_trip_random_trees(tmp_path_factory, spec, kind):
    tree = _materialise(spec)
    path = _path(tmp_path_factory.mktemp("io"), kind)
    fio.save(path, tree)
    _assert_same_tree(fio.load(path, like=tree), tree)
    flat = fio.load(path, flat=True)
    assert len(flat) == len(fa.tree.leaves(tree))


def test_funcarray_leaves_and_optimizer_state(tmp_path):
    params = {"w": fnp.ones((2, 3), dtype=fnp.bfloat16), "b": fnp.zeros(3), "n": 2.0}
    opt = optim.adam(1e-3)
    state = opt.init({"w": fnp.ones(3)})
    tree = {"params": params, "opt_state": state}
    path = _path(tmp_path, "safetensors")
    fio.save(path, tree)
    loaded = fio.load(path, like=tree)
    assert isinstance(loaded["opt_state"], type(state))  # the structure of `like`
    assert loaded["params"]["w"].dtype == fnp.bfloat16
    assert loaded["params"]["n"].dtype == np.float32 and float(loaded["params"]["n"]) == 2.0
    assert sorted(fio.load(path, flat=True)) == [
        "opt_state.0.0", "opt_state.0.1.w", "opt_state.0.2.w", "params.b", "params.n",
        "params.w"]


def test_like_accepts_shape_dtype_structs(tmp_path):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {"w": np.arange(6, dtype=np.int16).reshape(2, 3)})
    spec = fa.tree.map(lambda a: fa.transforms.core.ShapedArray(a.shape, a.dtype),
                       {"w": np.zeros((2, 3), np.int16)})
    assert fio.load(path, like=spec)["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_metadata_round_trip(tmp_path):
    for kind in FORMATS:
        path = _path(tmp_path, kind)
        fio.save(path, {"w": np.ones(2)}, metadata={"step": "7", "note": "é"})
        assert fio.load_metadata(path) == {"step": "7", "note": "é"}
    with pytest.raises(TypeError, match="metadata must be a dict of str to str"):
        fio.save(path, {"w": np.ones(2)}, metadata={"step": 7})


def test_overwrite_keeps_permissions_and_leaves_no_temporary(tmp_path):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {"w": np.ones(2)})
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    fio.save(path, {"w": np.zeros(3)})
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]
    assert fio.load(path)["w"].shape == (3,)


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {"w": np.ones(2)})
    before = _read(path)

    def crash(op, file, arrays, metadata):
        file.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(_safetensors, "write", crash)
    with pytest.raises(OSError, match="disk full"):
        fio.save(path, {"w": np.zeros(5)})
    assert _read(path) == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]


# --- interoperability with the reference implementation -------------------------------------

def test_files_load_in_reference_safetensors(tmp_path):
    rng = np.random.default_rng(1)
    tree = {"embed": rng.normal(size=(4, 3)).astype(np.float16),
            "blocks": [{"w": rng.normal(size=(3, 3)).astype(np.float32),
                        "mask": rng.random(3) < 0.5, "ids": np.arange(5, dtype=np.int64)}],
            "bf": rng.normal(size=(2, 2)).astype(ml_dtypes.bfloat16)}
    path = _path(tmp_path, "safetensors")
    fio.save(path, tree, metadata={"format": "np"})
    raw = _read(path)
    assert (8 + struct.unpack("<Q", raw[:8])[0]) % 8 == 0  # the data section is aligned
    tensors = dict(safetensors.deserialize(raw))
    assert tensors["bf"]["dtype"] == "BF16" and tensors["bf"]["shape"] == [2, 2]
    assert bytes(tensors["bf"]["data"]) == _bits(tree["bf"])
    reference = st_numpy.load_file(path)  # its NumPy front end has no bfloat16
    for name, want in [("embed", tree["embed"]), ("blocks.0.w", tree["blocks"][0]["w"]),
                       ("blocks.0.mask", tree["blocks"][0]["mask"]),
                       ("blocks.0.ids", tree["blocks"][0]["ids"])]:
        assert reference[name].dtype == want.dtype
        np.testing.assert_array_equal(reference[name], want)


def test_loads_a_pytorch_style_state_dict_written_by_the_reference(tmp_path):
    rng = np.random.default_rng(2)
    state_dict = {"layers.0.weight": rng.normal(size=(8, 4)).astype(ml_dtypes.bfloat16),
                  "layers.0.bias": np.zeros(8, ml_dtypes.bfloat16),
                  "layers.1.weight": rng.normal(size=(2, 8)).astype(np.float32),
                  "layers.1.bias": rng.normal(size=2).astype(np.float32),
                  "step": np.array(1000, np.int64)}
    path = _path(tmp_path, "safetensors")
    st_numpy.save_file(state_dict, path, metadata={"format": "pt"})
    assert fio.load_metadata(path) == {"format": "pt"}
    flat = fio.load(path, flat=True)
    assert set(flat) == set(state_dict)
    for name, want in state_dict.items():
        assert flat[name].dtype == want.dtype and _bits(flat[name]) == _bits(want)
    model = {"layers": [{"weight": np.zeros((8, 4), ml_dtypes.bfloat16),
                         "bias": np.zeros(8, ml_dtypes.bfloat16)},
                        {"weight": np.zeros((2, 8), np.float32),
                         "bias": np.zeros(2, np.float32)}],
             "step": np.array(0, np.int64)}
    loaded = fio.load(path, like=model)
    assert _bits(loaded["layers"][1]["weight"]) == _bits(state_dict["layers.1.weight"])
    nested = fio.load(path)
    assert sorted(nested["layers"]) == ["0", "1"] and int(nested["step"]) == 1000


def test_reads_numpy_savez_files(tmp_path):
    path = _path(tmp_path, "npz")
    np.savez(path, w=np.arange(4.0).astype(">f8"), b=np.ones((2, 2), order="F"))
    loaded = fio.load(path)
    assert loaded["w"].dtype == np.float64 and loaded["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert loaded["b"].shape == (2, 2)


# --- `like` mismatches -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", FORMATS)
def test_like_mismatch_names_key_expected_and_found(tmp_path, kind):
    path = _path(tmp_path, kind)
    fio.save(path, {"dense": {"w": np.zeros((3, 4), np.float32), "b": np.zeros(4, np.float16)},
                    "extra": np.zeros(1)})
    like = {"dense": {"w": np.zeros((4, 3), np.float32), "b": np.zeros(4, np.float32)},
            "head": np.zeros(2)}
    with pytest.raises(ValueError) as info:
        fio.load(path, like=like)
    message = str(info.value)
    assert "key 'dense.w': expected shape (4, 3) float32, found shape (3, 4) float32" in message
    assert "key 'dense.b': expected shape (4,) float32, found shape (4,) float16" in message
    assert "key 'head': missing from the file (expected shape (2,) float64)" in message
    assert "key 'extra' (shape (1,) float64): in the file but not in `like`" in message


def test_strict_false_ignores_extra_keys_only(tmp_path):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {"w": np.ones(2, np.float32), "head": np.ones(3, np.float32)})
    loaded = fio.load(path, like={"w": np.zeros(2, np.float32)}, strict=False)
    assert loaded["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="key 'v': missing"):
        fio.load(path, like={"v": np.zeros(2, np.float32)}, strict=False)


def test_many_mismatches_are_summarised(tmp_path):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {f"k{i}": np.zeros(1, np.float32) for i in range(30)})
    with pytest.raises(ValueError, match=r"\.\.\. and 10 more"):
        fio.load(path, like={f"k{i}": np.zeros(2, np.float32) for i in range(30)})


# --- names -------------------------------------------------------------------------------------

def test_name_errors(tmp_path):
    path = _path(tmp_path, "safetensors")
    with pytest.raises(ValueError, match=r"same name 'a\.b'"):
        fio.save(path, {"a.b": np.ones(1), "a": {"b": np.ones(1)}})
    with pytest.raises(TypeError, match="single array"):
        fio.save(path, np.ones(2))
    with pytest.raises(TypeError, match="tuple key"):
        fio.save(path, {(1, 2): np.ones(2)})
    with pytest.raises(ValueError, match="reserved"):
        fio.save(path, {"__metadata__": np.ones(2)})
    fio.save(path, {"a": np.ones(1), "a.b": np.ones(1)})  # fine flat, not nested
    assert sorted(fio.load(path, flat=True)) == ["a", "a.b"]
    with pytest.raises(ValueError, match=r"'a' and 'a\.b'.*flat=True"):
        fio.load(path)
    with pytest.raises(ValueError, match="'.safetensors' or '.npz'"):
        fio.save(str(tmp_path / "model.pt"), {"w": np.ones(1)})


def test_leaf_errors(tmp_path):
    path = _path(tmp_path, "safetensors")
    with pytest.raises(TypeError, match="key 'x' is a str"):
        fio.save(path, {"x": "hello"})
    with pytest.raises(TypeError, match="key 'w' is a traced value"):
        fa.grad(lambda w: (fio.save(path, {"w": w}), w.sum())[1])(fnp.ones(2))
    assert not os.path.exists(path)


# --- corrupt and truncated files ---------------------------------------------------------------

def _write_raw(path, header: dict, data: bytes, pad: bool = True):
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def test_every_truncation_is_refused(tmp_path):
    path = _path(tmp_path, "safetensors")
    fio.save(path, {"layers": [{"weight": np.ones((3, 4), np.float32)}],
                    "bias": np.ones(2, ml_dtypes.bfloat16)})
    raw = _read(path)
    cut = _path(tmp_path, "safetensors", "cut")
    header_end = 8 + struct.unpack("<Q", raw[:8])[0]
    for length in range(len(raw)):
        with open(cut, "wb") as f:
            f.write(raw[:length])
        with pytest.raises(ValueError) as info:
            fio.load(cut)
        if length >= header_end:  # the header is whole: the error names the cut tensor
            # Tensors are stored in flattening order: bias (4 bytes), then layers.0.weight.
            cut_key = ("key 'bias' (shape (2,) bfloat16)" if length - header_end < 4 else
                       "key 'layers.0.weight' (shape (3, 4) float32)")
            assert cut_key in str(info.value)
            assert "truncated" in str(info.value)


@pytest.mark.parametrize("header, data, match", [
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4,
     r"key 'w': data_offsets \[0, 4\] span 4 bytes, but shape \(2,\) float32 needs 8"),
    ({"w": {"dtype": "F4", "shape": [2], "data_offsets": [0, 1]}}, b"\0",
     "key 'w': unsupported dtype code 'F4'"),
    ({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4,
     "key 'w': shape must be a list of non-negative ints"),
    ({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}, b"\0" * 4,
     "key 'w': data_offsets must be"),
    ({"w": {"dtype": "F32", "shape": [1]}}, b"\0" * 4, "key 'w': expected an object"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
      "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8,
     "key 'b'.*overlaps key 'a'"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8,
     "key 'a' starts at byte 4.*gap"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 8,
     "trailing bytes"),
    ({"a": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\0\2",
     "key 'a': BOOL data holds bytes other than 0 and 1"),
    ({"__metadata__": {"step": 3}}, b"", "must map strings to strings"),
    ([1, 2], b"", "must be a JSON object"),
])
def test_corrupt_headers(tmp_path, header, data, match):
    path = _path(tmp_path, "safetensors")
    _write_raw(path, header, data)
    with pytest.raises(ValueError, match=match):
        fio.load(path)


def test_corrupt_header_bytes(tmp_path):
    path = _path(tmp_path, "safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 4) + b"\xff{}\x00")
    with pytest.raises(ValueError, match="not valid UTF-8 JSON"):
        fio.load(path)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 2**40) + b"{}")
    with pytest.raises(ValueError, match="length field says 1099511627776 bytes but 2 follow"):
        fio.load(path)
    text = b'{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},' \
           b'"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"\0")
    with pytest.raises(ValueError, match="names key 'w' twice"):
        fio.load(path)
    with pytest.raises(FileNotFoundError):
        fio.load(tmp_path / "missing.safetensors")


@given(position=st.integers(0, 10_000), value=st.integers(0, 255))
def test_header_byte_flips_never_load_garbage(tmp_path_factory, position, value):
    """Any single changed byte in the header gives a ValueError or a file whose arrays are
    exactly what the (changed) header says."""
    path = _path(tmp_path_factory.mktemp("flip"), "safetensors")
    fio.save(path, {"a": np.arange(6, dtype=np.int16).reshape(2, 3), "b": np.ones(3)})
    raw = bytearray(_read(path))
    header_end = 8 + struct.unpack("<Q", raw[:8])[0]
    raw[position % header_end] = value
    with open(path, "wb") as f:
        f.write(raw)
    try:
        loaded = fio.load(path, flat=True)
    except ValueError:
        return
    header = json.loads(bytes(raw[8:header_end]))
    header.pop("__metadata__", None)
    assert set(loaded) == set(header)
    for name, fields in header.items():
        assert list(loaded[name].shape) == fields["shape"]
        assert loaded[name].dtype == _safetensors.DTYPE_CODES[fields["dtype"]]


def test_corrupt_npz_files(tmp_path):
    path = _path(tmp_path, "npz")
    fio.save(path, {"w": np.ones((50, 50))})
    raw = _read(path)
    for length in (0, 10, len(raw) // 2, len(raw) - 1):
        with open(path, "wb") as f:
            f.write(raw[:length])
        with pytest.raises(ValueError, match="truncated or corrupt"):
            fio.load(path)
    np.save(str(tmp_path / "single.npy"), np.ones(2))
    os.replace(tmp_path / "single.npy", path)
    with pytest.raises(ValueError, match="single .npy array"):
        fio.load(path)
    with open(path, "wb") as f:
        f.write(b"just some text, long enough to look like a file")
    with pytest.raises(ValueError, match="not a readable .npz file"):
        fio.load(path)
    np.savez(path, obj=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="key 'obj' holds pickled Python objects"):
        fio.load(path)
    np.savez(path, s=np.array(["text"]))
    with pytest.raises(ValueError, match="key 's' has dtype <U4"):
        fio.load(path)
    np.savez(path, w=np.ones(2, np.uint8), __funcarray__=np.array('{"dtypes": {"w": "bfloat16"}}'))
    with pytest.raises(ValueError, match="key 'w': the record says it stores bfloat16 bits"):
        fio.load(path)
