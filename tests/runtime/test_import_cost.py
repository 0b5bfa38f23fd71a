"""``import describedtypes`` leaves the slow, rarely needed modules unimported.

asyncio, cattrs and docstring_parser together take longer to import than the whole
package; they are imported when first needed (an async tool call, a ``converter=``, a
docstring to read), and msgspec when the first reply is decoded. This pins that, without
timing anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.runtime.isolated import run_isolated

DEFERRED = ("asyncio", "cattrs", "docstring_parser", "ssl", "msgspec")


def test_import_does_not_import_the_deferred_modules() -> None:
    """A fresh interpreter has none of the deferred modules after importing the package."""
    out = run_isolated(
        f"""
        import sys
        import describedtypes
        print(sorted(m for m in {DEFERRED!r} if m in sys.modules))
        """,
        timeout=60,
    )
    assert out.strip() == "[]"


def test_schema_and_decode_still_need_none_of_them() -> None:
    """schema() and decode() of an attrs class without docstrings import none of them."""
    out = run_isolated(
        """
        import sys
        import attrs
        from describedtypes import decode, schema

        @attrs.define
        class Point:
            x: int
            y: int

        schema(Point)
        assert decode(Point, '{"x": 1, "y": 2}') == Point(1, 2)
        print(sorted(m for m in ("asyncio", "cattrs") if m in sys.modules))
        """,
        timeout=60,
    )
    assert out.strip() == "[]"


def test_deferred_modules_load_when_used() -> None:
    """An async tool call, a converter and a docstring each bring their module in."""
    out = run_isolated(
        """
        import sys
        import cattrs
        from describedtypes import Toolbox, decode

        async def add(a: int, b: int) -> int:
            '''Add two numbers.

            Args:
                a: The first.
                b: The second.
            '''
            return a + b

        box = Toolbox([add])
        assert "docstring_parser" in sys.modules
        result = box.call("add", '{"a": 1, "b": 2}')
        assert result.content == "3", result
        assert "asyncio" in sys.modules
        assert decode(int, "3", converter=cattrs.Converter()) == 3
        print("ok")
        """,
        timeout=60,
    )
    assert out.strip() == "ok"


def test_a_lazy_module_rebinds_its_global_on_first_use() -> None:
    """The stand-in imports the module on first attribute read and puts it in its place."""
    out = run_isolated(
        """
        import sys
        from describedtypes._base.lazy import LazyModule

        names = {}
        names["colorsys"] = LazyModule("colorsys", names)
        assert "colorsys" not in sys.modules
        assert names["colorsys"].rgb_to_hsv(1, 0, 0) == (0.0, 1.0, 1)
        assert names["colorsys"] is sys.modules["colorsys"]
        print("ok")
        """,
        timeout=60,
    )
    assert out.strip() == "ok"


def test_import_loads_no_request_server_batch_or_cli_machinery() -> None:
    """`import describedtypes` alone imports none of the request, MCP, batch or CLI modules,
    nor OpenTelemetry or httpx (read from ``-X importtime``: which modules, not how long)."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import describedtypes"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "describedtypes" in imported, done.stderr
    heavy = (
        "describedtypes._ask", "describedtypes._serve", "describedtypes._batch",
        "describedtypes._cli", "describedtypes._tools", "opentelemetry", "httpx", "mcp",
    )
    loaded = sorted(m for m in imported if m.startswith(heavy))
    assert loaded == [], loaded
