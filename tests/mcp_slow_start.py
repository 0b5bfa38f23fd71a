"""A TARGET whose import takes long (``describedtypes mcp tests.mcp_slow_start:toolbox``):
tests/test_mcp.py signals the command while it starts, once this module says so."""

from __future__ import annotations

import sys
import time

from describedtypes import Toolbox

print("importing mcp_slow_start", file=sys.stderr, flush=True)
time.sleep(120)  # interrupted by the test's signal; never reached to the end


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


toolbox = Toolbox([add])
