"""DLPack: versioned and legacy capsules, the renaming protocol, READ_ONLY, PyTorch
CPU tensors, CUDA tensors without a GPU. The producers here are small Python
objects around NumPy's own exports, so each case runs with any NumPy >= 1.22."""
import ctypes

import numpy as np
import pytest

import ixjit

NUMPY2 = int(np.__version__.split(".")[0]) >= 2


class Producer:
    """An array that only speaks DLPack (no buffer protocol), recording how it was asked."""

    def __init__(self, array, device=(1, 0), legacy_only=False):
        self.array, self.device, self.legacy_only, self.calls = array, device, legacy_only, []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, copy=None, dl_device=None):
        self.calls.append({"stream": stream, "max_version": max_version, "copy": copy})
        if self.legacy_only:
            if max_version is not None:
                raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
            return self.array.__dlpack__()
        if max_version is None:
            return self.array.__dlpack__()
        return self.array.__dlpack__(max_version=max_version, copy=copy) if NUMPY2 else self.array.__dlpack__()


def capsule_name(cap):
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(cap).decode()


def test_legacy_capsules():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    p = Producer(src.T, legacy_only=True)
    out = np.zeros((4, 3), np.float32)
    ixjit.copy(out, p)
    np.testing.assert_array_equal(out, src.T)
    assert [c["max_version"] for c in p.calls] == [(1, 1), None]  # asked for 1.x, fell back


@pytest.mark.skipif(not NUMPY2, reason="NumPy < 2 exports legacy capsules only")
def test_versioned_capsules_and_read_only():
    src = np.arange(20, dtype=np.int16).reshape(4, 5)[::-1]
    p = Producer(src)
    out = np.zeros((4, 5), np.int16)
    ixjit.copy(out, p)
    np.testing.assert_array_equal(out, src)
    assert p.calls[0]["max_version"] == (1, 1)
    cap = src.__dlpack__(max_version=(1, 1))
    assert capsule_name(cap) == "dltensor_versioned"
    ro = np.zeros((4, 5), np.int16)
    ro.flags.writeable = False
    # NumPy 2 exports read-only arrays with DLPack's READ_ONLY flag: as a source fine, as a destination refused
    ixjit.copy(out, Producer(ro))
    with pytest.raises(ixjit.InvalidInput, match="read-only"):
        ixjit.copy(Producer(ro), src)
    assert not ro.any()


def test_destination_asks_for_no_copy():
    out = np.zeros(6)
    p = Producer(out)
    ixjit.copy(p, np.arange(6.0))
    np.testing.assert_array_equal(out, np.arange(6.0))
    if NUMPY2:
        assert p.calls[0]["copy"] is False


def test_capsule_is_consumed():
    class Once(Producer):
        def __dlpack__(self, **kw):
            self.cap = self.array.__dlpack__()
            return self.cap

    p = Once(np.arange(4.0))
    ixjit.copy(np.zeros(4), p)
    assert capsule_name(p.cap).startswith("used_")  # renamed: ixjit called the deleter


def test_cuda_tensor_without_gpu():
    ok, why = ixjit.cuda_available()
    if ok:
        pytest.skip("a GPU is here")
    class Cuda(Producer):
        # a capsule that says kDLCUDA: NumPy's own, its device field rewritten
        def __dlpack__(self, **kw):
            self.calls.append(kw)
            self.cap = self.array.__dlpack__()
            ptr = ctypes.pythonapi.PyCapsule_GetPointer
            ptr.restype, ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
            tensor = ptr(self.cap, b"dltensor")
            ctypes.c_int32.from_address(tensor + ctypes.sizeof(ctypes.c_void_p)).value = 2  # device_type
            ctypes.c_int32.from_address(tensor + ctypes.sizeof(ctypes.c_void_p) + 4).value = self.device[1]  # device_id
            return self.cap

    for device_id in (0, 1):  # any device: no GPU is no GPU
        dst = np.zeros(4)
        p = Cuda(dst, device=(2, device_id))
        with pytest.raises(ixjit.Unavailable, match="CUDA"):
            ixjit.copy(p, np.arange(4.0))
        assert capsule_name(p.cap).startswith("used_")  # consumed and deleted, nothing read or written
        assert not dst.any()
    assert isinstance(ixjit.Unavailable("x"), RuntimeError)


def test_unsupported_device():
    class Metal(Producer):
        def __dlpack__(self, **kw):
            cap = self.array.__dlpack__()
            ptr = ctypes.pythonapi.PyCapsule_GetPointer
            ptr.restype, ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
            ctypes.c_int32.from_address(ptr(cap, b"dltensor") + ctypes.sizeof(ctypes.c_void_p)).value = 8
            return cap

    with pytest.raises(ixjit.InvalidInput, match="device type"):
        ixjit.copy(np.zeros(4), Metal(np.zeros(4), device=(8, 0)))


def test_array_interface_only():
    class Iface:
        def __init__(self, a):
            self.a = a
            self.__array_interface__ = a.__array_interface__

    a = np.arange(10).astype("datetime64[ns]")[::-1]  # no buffer protocol for datetimes, no DLPack either
    out = np.zeros(10, "datetime64[ns]")
    ixjit.copy(out, a)
    np.testing.assert_array_equal(out, a)
    out2 = np.zeros(10, np.int64)
    ixjit.copy(Iface(out2), np.arange(10))
    np.testing.assert_array_equal(out2, np.arange(10))


torch = pytest.importorskip("torch") if False else None


def _torch():
    try:
        import torch as t
        return t
    except Exception:
        return None


@pytest.mark.skipif(_torch() is None, reason="PyTorch is not installed")
def test_torch_cpu_tensors():
    t = _torch()
    src = t.arange(24, dtype=t.float32).reshape(4, 6)
    dst = t.zeros(6, 4)
    ixjit.copy(dst, src.T)
    assert t.equal(dst, src.T)
    d2 = t.zeros(4, 6, dtype=t.float64)[:, ::2] if False else t.zeros(4, 3, dtype=t.float64)
    ixjit.fill(d2, 2.5)
    assert bool((d2 == 2.5).all())
    half = t.zeros(5, dtype=t.bfloat16)
    ixjit.fill(half, 1.5)
    assert bool((half == 1.5).all())
    out = np.zeros((6, 4), np.float32)
    ixjit.copy(out, src.T)
    np.testing.assert_array_equal(out, src.T.numpy())
    c = t.zeros(10, 6)
    ixjit.cat(c, [src, t.ones(6, 6)], 0)
    assert t.equal(c, t.cat([src, t.ones(6, 6)], 0))
