"""IndexFunction: text, algebra and queries against NumPy's arrays of offsets."""
import numpy as np
import pytest

import ixjit
from ixjit import IndexFunction


def offsets_of(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def test_parse_and_text():
    f = IndexFunction.parse("iota 8 6 | permute 1 0")
    assert f.shape == (6, 8) and f.ndim == 2 and f.size == 48 and f.base == (8, 6)
    np.testing.assert_array_equal(f.offsets(), offsets_of((8, 6)).T)
    assert IndexFunction.parse(str(f)) == f
    assert eval(repr(f), {"IndexFunction": IndexFunction}) == f
    assert hash(IndexFunction.parse(str(f))) == hash(f)
    assert IndexFunction("iota 3") == IndexFunction.iota(3)


def test_bad_text_has_its_column():
    with pytest.raises(ValueError) as e:
        IndexFunction.parse("iota 8 6 | permute 1 2")
    assert isinstance(e.value, ixjit.InvalidInput) and isinstance(e.value, ixjit.Error)
    assert e.value.column == 12 and str(e.value).startswith("column 12:")
    with pytest.raises(ixjit.InvalidInput) as e:
        IndexFunction.parse("iota 3 | bogus")
    assert e.value.column == 10 and e.value.status == "parse error"
    with pytest.raises(TypeError):
        IndexFunction.parse(3)


def test_algebra_matches_numpy():
    base = offsets_of((4, 5, 6))
    f = IndexFunction.iota(4, 5, 6)
    np.testing.assert_array_equal(f.permute(2, 0, 1).offsets(), base.transpose(2, 0, 1))
    np.testing.assert_array_equal(f.rotate(1, -2, 3).offsets(), np.roll(base, (-1, 2, -3), (0, 1, 2)))
    np.testing.assert_array_equal(f[1:3, ::-2].offsets(), base[1:3, ::-2])
    np.testing.assert_array_equal(f[-1, 2].offsets(), base[-1, 2])
    np.testing.assert_array_equal(f.permute(1, 0, 2).reshape(20, 6).offsets(), base.transpose(1, 0, 2).reshape(20, 6))
    np.testing.assert_array_equal(f[0, 0].expand(3, 6).offsets(), np.broadcast_to(base[0, 0], (3, 6)))
    g = IndexFunction.iota(120).reshape(6, 20)
    r = IndexFunction.iota(20, 6).permute(1, 0).rebase(g)
    assert r.shape == (6, 20)
    with pytest.raises(ixjit.InvalidInput):
        f.permute(0, 0, 1)
    with pytest.raises(ixjit.InvalidInput):
        f[7]


def test_from_strides_and_queries():
    a = np.zeros((3, 4), np.float32)[::-1, ::2]
    f = IndexFunction.from_strides(a.shape, [s // 4 for s in a.strides], offset=8)
    assert f.shape == (3, 2) and f.num_lmads == 1
    assert f.offset_range == (0, 10)
    assert f.index(0, 0) == 8 and f.index(2, 1) == 2
    assert not f.is_contiguous and not f.is_linear
    assert IndexFunction.iota(5).is_contiguous and IndexFunction.iota(5).is_direct
    assert IndexFunction.iota(0, 3).offset_range is None
    assert f.required_bytes(4) == 44
    lm = f.lmads[0]
    assert lm["shape"] == (3, 2) and set(lm) == {"offset", "shape", "strides", "rotates", "permutation"}
    with pytest.raises(ixjit.InvalidInput):
        IndexFunction.from_strides((3,), (1, 2))
