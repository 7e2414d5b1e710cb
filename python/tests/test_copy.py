"""copy, fill, cat and the conveniences on NumPy arrays, NumPy as the oracle."""
import threading

import numpy as np
import pytest

import ixjit

DTYPES = [np.int8, np.int16, np.float32, np.float64, np.complex128, np.dtype("V3"), np.dtype("V12"),
          np.dtype([("a", "<i4"), ("b", "<f8")])]


def pattern(shape, dtype):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    return np.frombuffer(np.random.default_rng(7).integers(0, 256, n, dtype=np.uint8).tobytes(), dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_item_size(dtype):
    src = pattern((5, 7), dtype)
    for view in (src, src.T, src[::-1, ::2], src[:, 3], src[2:4, ::-3]):
        dst = np.zeros(view.shape, np.dtype(dtype))
        assert ixjit.copy(dst, view) is dst
        assert dst.tobytes() == np.ascontiguousarray(view).tobytes()


def test_negative_and_zero_strides():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((6, 4), np.float32)
    ixjit.copy(out, a[::-1, ::-1].T)
    np.testing.assert_array_equal(out, a[::-1, ::-1].T)
    b = np.broadcast_to(np.arange(6.0), (5, 6))  # zero stride, read-only
    out = np.zeros((5, 6))
    ixjit.copy(out, b)
    np.testing.assert_array_equal(out, b)
    out = np.zeros((3, 4, 6))
    ixjit.copy(out, np.arange(6.0))  # broadcast like np.copyto
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(6.0), (3, 4, 6)))


def test_non_contiguous_destinations():
    big = np.zeros((8, 10), np.int64)
    src = np.arange(20, dtype=np.int64).reshape(4, 5)
    ixjit.copy(big[1::2, ::-2], src)
    want = np.zeros((8, 10), np.int64)
    want[1::2, ::-2] = src
    np.testing.assert_array_equal(big, want)


def test_zero_dim_and_empty():
    a, b = np.array(3.5), np.array(0.0)
    ixjit.copy(b, a)
    assert b == 3.5
    e = np.zeros((3, 0), np.float32)
    ixjit.copy(e, np.ones((3, 0), np.float32))
    ixjit.fill(e, 1.0)
    ixjit.fill(b, 2)
    assert b == 2.0


def test_read_only_sources():
    a = np.arange(10.0)
    a.flags.writeable = False
    out = np.zeros(10)
    ixjit.copy(out, a[::-1])
    np.testing.assert_array_equal(out, a[::-1])
    out8 = bytearray(4)
    ixjit.copy(out8, b"abcd")
    assert out8 == b"abcd"


def test_read_only_destination_refused():
    dst = np.zeros(4)
    dst.flags.writeable = False
    with pytest.raises(ixjit.InvalidInput, match="read-only"):
        ixjit.copy(dst, np.ones(4))
    with pytest.raises(ValueError, match="read-only"):
        ixjit.fill(dst, 1.0)
    with pytest.raises(ValueError, match="read-only"):
        ixjit.copy(b"xxxx", b"abcd")
    assert not dst.any()


def test_overlapping_destinations_refused():
    base = np.zeros(4)
    dst = np.lib.stride_tricks.as_strided(base, shape=(3, 4), strides=(0, 8))  # writable, zero-stride
    before = dst.copy()
    with pytest.raises(ixjit.InvalidInput, match="(?i)distinct|two points|overlap|injective"):
        ixjit.copy(dst, np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(dst, before)
    a = np.arange(10.0)
    with pytest.raises(ixjit.InvalidInput, match="overlap"):
        ixjit.copy(a[1:], a[:-1])  # a source overlapping the destination
    np.testing.assert_array_equal(a, np.arange(10.0))


def test_mismatches():
    with pytest.raises(ixjit.InvalidInput, match="item sizes differ"):
        ixjit.copy(np.zeros(3), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        ixjit.copy(np.zeros(3), np.zeros(4))
    with pytest.raises(TypeError, match="expected an array"):
        ixjit.copy(np.zeros(3), [1.0, 2.0, 3.0])
    objs = np.array([object(), object()], dtype=object)
    with pytest.raises(TypeError, match="Python objects"):
        ixjit.copy(np.empty(2, dtype=object), objs)  # references, never moved as bytes
    with pytest.raises(TypeError, match="Python objects"):
        ixjit.copy(np.zeros(2, np.int64), objs)
    rec = np.zeros(3, np.dtype([("Obj", "<i8"), ("x", "<f8")]))  # an 'O' in a field name is not an object
    ixjit.copy(rec, np.ones(3, rec.dtype))
    assert (rec["x"] == 1).all()


def test_fill():
    for dtype, value in [(np.int8, -5), (np.uint16, 65535), (np.float32, 1.5), (np.float16, -2.25),
                         (np.complex64, 1 + 2j), (np.bool_, True), (np.dtype(">i4"), 123456)]:
        a = np.zeros((4, 5), dtype)
        ixjit.fill(a[::2, 1:], value)
        want = np.zeros((4, 5), dtype)
        want[::2, 1:] = value
        np.testing.assert_array_equal(a, want)
    v = np.zeros(6, np.dtype("V12"))
    ixjit.fill(v, np.frombuffer(bytes(range(12)), np.dtype("V12"))[0])
    assert v.tobytes() == bytes(range(12)) * 6
    with pytest.raises(OverflowError):
        ixjit.fill(np.zeros(3, np.int8), 300)
    with pytest.raises(TypeError):
        ixjit.fill(np.zeros(3, np.int32), 1.5)


def test_cat():
    parts = [np.arange(6.0).reshape(2, 3), np.arange(3.0).reshape(1, 3)[:, ::-1], np.ones((3, 3)).T]
    out = np.zeros((6, 3))
    ixjit.cat(out, parts, 0)
    np.testing.assert_array_equal(out, np.concatenate(parts, 0))
    out = np.zeros((3, 6))
    ixjit.cat(out, [p.T for p in parts], axis=-1)
    np.testing.assert_array_equal(out, np.concatenate([p.T for p in parts], 1))
    with pytest.raises(ixjit.InvalidInput):
        ixjit.cat(np.zeros((5, 3)), parts, 0)


def test_conveniences():
    a = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    c = ixjit.contiguous(a[:, ::-1].transpose(2, 0, 1))
    assert c.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(c, a[:, ::-1].transpose(2, 0, 1))
    t = ixjit.transpose(a, (1, 2, 0))
    np.testing.assert_array_equal(t, np.transpose(a, (1, 2, 0)))
    np.testing.assert_array_equal(ixjit.transpose(a), a.T)


def test_explicit_index_functions():
    # a chain NumPy cannot express: a reshape of a transposed view
    f = ixjit.IndexFunction.parse("iota 4 6 | permute 1 0 | reshape 24")
    src = np.arange(24, dtype=np.float32)
    dst = np.zeros(24, np.float32)
    ixjit.copy(dst, src, src_index=f)
    np.testing.assert_array_equal(dst, src[f.offsets()])
    raw = bytearray(24 * 4)
    ixjit.copy(raw, src, dst_index=f)
    got = np.frombuffer(raw, np.float32)
    want = np.zeros(24, np.float32)
    want[f.offsets()] = src
    np.testing.assert_array_equal(got, want)
    raw2 = bytearray(8 * 2)
    g = ixjit.IndexFunction.parse("iota 8 | slice ::-1")
    ixjit.copy(raw2, bytes(range(16)), dst_index=g, src_index=ixjit.IndexFunction.iota(8), elem_size=2)
    assert bytes(raw2) == b"".join(bytes(range(16))[2 * k:2 * k + 2] for k in reversed(range(8)))
    with pytest.raises(ixjit.InvalidInput, match="(?i)buffer too small|outside"):
        ixjit.copy(bytearray(8), src, dst_index=f)
    ixjit.fill(raw2, b"\x01\x02", dst_index=g, elem_size=2)
    assert bytes(raw2) == b"\x01\x02" * 8


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64, np.complex128], ids=str)
def test_rolled_transposes(dtype, cache_ctx):
    """torch.roll(a, r, dim).T as one copy (a source rotated along one dim, transposed: two
    unrotated parts in one launch; along both dims, four), and a reshape of it, against np.roll;
    and a transpose into a rotated destination."""
    a = pattern((300, 260), dtype)
    f = ixjit.IndexFunction.iota(300, 260)
    for r0, r1 in [(0, 5), (0, 259), (7, 0), (299, 0), (3, 5), (299, 259)]:
        view = f.rotate(r0, r1).permute(1, 0)  # new[i, j] = old[(i + r0) % n0, (j + r1) % n1], transposed
        want = np.roll(a, (-r0, -r1), (0, 1)).T
        out = np.zeros((260, 300), dtype)
        ixjit.copy(out, a.reshape(-1), src_index=view, context=cache_ctx)
        assert out.tobytes() == np.ascontiguousarray(want).tobytes(), (r0, r1)
        flat = np.zeros((130, 600), dtype)
        ixjit.copy(flat, a.reshape(-1), src_index=view.reshape(130, 600), context=cache_ctx)
        assert flat.tobytes() == np.ascontiguousarray(want).tobytes(), (r0, r1)
        rolled = np.zeros((260, 300), dtype)  # rolled[i, (j + 11) % 300] = want[i, j]
        dst = ixjit.IndexFunction.iota(260, 300).rotate(0, 11)
        ixjit.copy(rolled, a.reshape(-1), src_index=view, dst_index=dst, context=cache_ctx)
        assert rolled.tobytes() == np.ascontiguousarray(np.roll(want, 11, 1)).tobytes(), (r0, r1)


def test_threads_at_once(ctx):
    a = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    outs = [np.zeros((48, 64), np.float32) for _ in range(8)]
    errors = []

    def work(out):
        try:
            for _ in range(50):
                ixjit.copy(out, a.T, context=ctx)
            big = np.zeros((1024, 512), np.float32)
            src = np.arange(512 * 1024, dtype=np.float32).reshape(512, 1024)
            ixjit.copy(big, src.T, context=ctx)  # large enough to run without the GIL
            np.testing.assert_array_equal(big, src.T)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for o in outs:
        np.testing.assert_array_equal(o, a.T)


def test_prepared_kernel(ctx):
    a = np.arange(96, dtype=np.float64).reshape(8, 12)
    out = np.zeros((12, 8))
    k = ixjit.prepare_copy(out, a.T, context=ctx)
    assert isinstance(k, ixjit.Kernel) and k.elem_size == 8
    for s in range(3):
        src = a + s
        assert k(out, src.T) is out
        np.testing.assert_array_equal(out, src.T)
    with pytest.raises(ixjit.InvalidInput, match="layout"):
        k(out, np.ascontiguousarray(a.T))  # the same shape, not the prepared strides
    f = ixjit.IndexFunction.parse("iota 8 12 | permute 1 0")
    raw = ixjit.prepare_copy(ixjit.IndexFunction.iota(12, 8), f, elem_size=8, context=ctx)
    dst = np.zeros(96)
    raw(dst, a.ravel())
    np.testing.assert_array_equal(dst.reshape(12, 8), a.T)


def test_contexts_and_stats(ctx):
    assert ctx.threads == 2 and ctx.cache_dir is None and ctx.target.startswith("cpu:")
    before = ctx.cache_stats()
    a = np.arange(35, dtype=np.int32).reshape(5, 7)
    out = np.zeros((7, 5), np.int32)
    for _ in range(3):
        ixjit.copy(out, a.T, context=ctx)
    after = ctx.cache_stats()
    assert after["hits"] >= before["hits"] + 2
    assert set(after) >= {"hits", "misses", "disk_hits", "compiles", "failures", "compile_ms", "entries"}
    assert ixjit.default_context() is ixjit.default_context()
    assert isinstance(ixjit.cache_stats(), dict)
    with pytest.raises(TypeError):
        ixjit.copy(out, a.T, context=3)
    with pytest.raises(TypeError, match="unexpected"):
        ixjit.copy(out, a.T, contxt=ctx)


def test_warm(tmp_path):
    spec = tmp_path / "sigs.txt"
    spec.write_text("# a spec file\n"
                    "copy\t4\t1\tiota 64 48\tiota 48 64 | permute 1 0\n"
                    "copy\t4\t1\tiota 64 48\tiota 48 64 | permute 1 0\n"
                    "fill\t8\t0\tiota 100 | slice ::3\n"
                    "copy\t4\t1\tiota 3 | bogus\tiota 3\n")
    c = ixjit.Context(threads=1, disk_cache=True, cache_dir=str(tmp_path / "cache"))
    r = ixjit.warm(spec, context=c)
    assert r["compiled"] + r["present"] == 2 and r["bad_lines"] == 1 and r["failed"] == 0
    assert r["errors"][0][0] == 5 and "bogus" in r["errors"][0][1]
    again = c.warm(str(spec))
    assert again["compiled"] == 0 and again["present"] == 2
    with pytest.raises(OSError):
        ixjit.warm(tmp_path / "missing.txt", context=c)


@pytest.mark.parametrize("mode", ["sync", "async", "cache-only"])
def test_compile_modes(mode):
    c = ixjit.Context(threads=1, disk_cache=False, compile=mode)
    a = np.arange(7 * 9, dtype=np.int32).reshape(7, 9)
    out = np.zeros((9, 7), np.int32)
    for _ in range(3):
        ixjit.copy(out, a.T, context=c)  # async and cache-only may run the generic kernel: the same result
        np.testing.assert_array_equal(out, a.T)
    c.wait_compiles()
    s = c.cache_stats()
    assert s["compiles_queued"] == 0
    if mode == "cache-only":
        assert s["compiles"] == 0 and s["generic_calls"] >= 3
    with pytest.raises(ixjit.InvalidInput, match="compile="):
        ixjit.Context(compile="eager")


def test_fork_child_makes_its_own_default_context():
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    ixjit.copy(np.zeros(4), np.ones(4))  # the parent's default context exists, with its threads
    pid = os.fork()
    if pid == 0:  # the child: the parent's worker threads are gone, a new default context is made
        code = 2
        try:
            out = np.zeros(64)
            ixjit.copy(out, np.arange(64.0)[::-1])
            code = 0 if (out == np.arange(64.0)[::-1]).all() else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
