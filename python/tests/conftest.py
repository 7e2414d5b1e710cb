"""Shared fixtures: contexts without a disk cache, so tests never touch ~/.cache."""
import os

import pytest

os.environ.setdefault("IXJIT_CACHE", "off")

import ixjit  # noqa: E402


@pytest.fixture(scope="session")
def ctx():
    return ixjit.Context(threads=2, disk_cache=False)


@pytest.fixture(scope="module", params=["in_cache", "streamed"])
def cache_ctx(request):
    """A context that keeps outputs in cache, and one that streams them (its last-level cache
    64 KiB: streaming stores, staged and gathered tiles at sizes a test can afford)."""
    if request.param == "in_cache":
        return ixjit.Context(threads=2, disk_cache=False)
    return ixjit.Context(threads=2, disk_cache=False, last_level_cache=64 << 10)
