"""Generated source, run through one helper: a unique file name per piece, registered in
``linecache`` so tracebacks and profilers show the source, and dropped with the function."""

from __future__ import annotations

import itertools
import linecache
import weakref
from typing import Any

__all__ = ["run_source"]

#: Numbers the generated files: unique in the process, so two types of the same name
#: never share a file name.
_NUMBERS = itertools.count(1)


def run_source(src: str, namespace: dict[str, Any], label: str, name: str) -> Any:
    """Run ``src`` in ``namespace`` and return the function ``name`` it defines; its source
    stays in ``linecache`` as long as the function lives."""
    filename = f"<describedtypes {label} #{next(_NUMBERS)}>"
    exec(compile(src, filename, "exec"), namespace)
    fn = namespace[name]
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    return fn
