"""Peer runner for `ixjit bench`: NumPy or PyTorch doing a case on the same
shapes and bytes as ixjit (the line protocol is described in
tools/bench_peers.c). Usage: py_runner.py numpy|torch

NumPy: np.copyto into a preallocated strided view, np.concatenate(out=),
ndarray.fill; single-threaded. PyTorch: Tensor.copy_, torch.cat(out=),
Tensor.fill_, at torch.set_num_threads(T)."""
import os
import sys
import time
import warnings

# A PyTorch without NumPy beside it warns at import; the runner needs no NumPy there.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

LIB = sys.argv[1] if len(sys.argv) > 1 else "numpy"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# The bench's page policy (tools/bench_pages.c): huge pages for arrays of 4 MiB
# and more, NumPy's own default, or 4 KiB pages for everyone.
HUGE_PAGES = os.environ.get("IXJIT_BENCH_PAGES", "huge") == "huge"
if LIB == "torch" and HUGE_PAGES:
    os.environ["THP_MEM_ALLOC_ENABLE"] = "1"  # c10 reads it at its first allocation


def numpy_pages(np):
    core = getattr(np, "_core", None) or np.core  # NumPy 2 renamed np.core
    core.multiarray._set_madvise_hugepage(HUGE_PAGES)


try:
    if LIB == "numpy":
        import numpy as np
        numpy_pages(np)
        VERSION, THREADS = np.__version__, "1"
    elif LIB == "torch":
        import torch
        VERSION, THREADS = torch.__version__, "any"
    else:
        say("unavailable unknown peer " + LIB)
        sys.exit(0)
except Exception as e:  # ImportError and broken installs alike
    say("unavailable %s is not importable by %s (%s)" % (LIB, sys.executable, str(e).splitlines()[0]))
    sys.exit(0)


def numpy_view(nbytes, elem, offset, shape, strides):
    import numpy as np
    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.complex128}[elem]
    buf = np.empty(nbytes // elem, dtype)
    buf.view(np.uint8)[:] = 1  # touch every page, as ixjit's buffers are
    return buf, np.lib.stride_tricks.as_strided(buf[offset:], shape, [s * elem for s in strides])


def torch_view(nbytes, elem, offset, shape, strides):
    if any(s < 0 for s in strides):
        raise ValueError("negative strides (reversed slices) are not a PyTorch view")
    dtype = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.complex128}[elem]
    buf = torch.ones(nbytes // elem, dtype=dtype)
    return buf, torch.as_strided(buf, shape, strides, offset)


def prepare(op, elem, axis, operands, value):
    make = numpy_view if LIB == "numpy" else torch_view
    views = [make(o[0], elem, o[1], o[2], o[3]) for o in operands]
    dst = views[0][1]
    srcs = [v[1] for v in views[1:]]
    if op == "fill":
        raw = bytes.fromhex(value)
        if LIB == "numpy":
            import numpy as np
            v = np.frombuffer(raw, dst.dtype)[0]
            return views, lambda: dst.fill(v)
        v = torch.frombuffer(bytearray(raw), dtype=dst.dtype)[0].item()
        return views, lambda: dst.fill_(v)
    if op == "copy":
        if LIB == "numpy":
            import numpy as np
            return views, lambda: np.copyto(dst, srcs[0])
        return views, lambda: dst.copy_(srcs[0])
    if LIB == "numpy":
        import numpy as np
        return views, lambda: np.concatenate(srcs, axis=axis, out=dst)
    return views, lambda: torch.cat(srcs, dim=axis, out=dst)


def main():
    say("ready %s %s" % (VERSION, THREADS))
    fn, views = None, None
    head, operands, value = None, [], None
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "case":
            head, operands, value = (w[1], int(w[2]), int(w[3])), [], None
        elif w[0] == "operand":
            nbytes, offset, rank = int(w[1]), int(w[2]), int(w[3])
            nums = [int(x) for x in w[4:]]
            operands.append((nbytes, offset, nums[:rank], nums[rank:2 * rank]))
        elif w[0] == "value":
            value = w[1]
        elif w[0] == "go":
            try:
                views, fn = prepare(head[0], head[1], head[2], operands, value)
                fn()  # the first call may allocate or pick a kernel: not timed
                say("ok")
            except Exception as e:
                views, fn = None, None
                say("cannot " + (str(e).splitlines() or [type(e).__name__])[0])
        elif w[0] == "run":
            threads, iterations = int(w[1]), int(w[2])
            try:
                if LIB == "torch":
                    torch.set_num_threads(threads)
                t0 = time.perf_counter()
                for _ in range(iterations):
                    fn()
                say("time %.9f" % (time.perf_counter() - t0))
            except Exception as e:
                say("error " + (str(e).splitlines() or [type(e).__name__])[0])
        elif w[0] == "end":
            fn, views = None, None
            say("ok")
        elif w[0] == "quit":
            break


main()
