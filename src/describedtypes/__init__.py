"""Describe plain Python types and functions to large language models."""

from __future__ import annotations

from typing import Any

from ._annotate import Annotation, annotate
from ._context import Context
from ._schema import Rewrite, schema
from .adapters import OPENAI, OPENAI_TOOLS, STANDARD, Adapter
from .errors import (
    ArgumentError,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    RefusalError,
    SchemaError,
)

__all__ = [
    "Adapter",
    "Annotation",
    "ArgumentError",
    "Context",
    "DecodeError",
    "DescribedTypesError",
    "IncompleteReplyError",
    "OPENAI",
    "OPENAI_TOOLS",
    "RefusalError",
    "Rewrite",
    "STANDARD",
    "SchemaError",
    "annotate",
    "schema",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("describedtypes")
    msg = f"module 'describedtypes' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})
