"""ctest's entry (python_pytest): runs this directory's tests with the
interpreter the module was built for, or skips (77) when that interpreter
lacks pytest or NumPy."""
import os
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"skipped: {e} (Debian: apt-get install python3-pytest python3-numpy)")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", os.path.dirname(os.path.abspath(__file__))]))
