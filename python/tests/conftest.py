"""Shared fixtures: a context without a disk cache, so tests never touch ~/.cache."""
import os

import pytest

os.environ.setdefault("IXJIT_CACHE", "off")

import ixjit  # noqa: E402


@pytest.fixture(scope="session")
def ctx():
    return ixjit.Context(threads=2, disk_cache=False)
