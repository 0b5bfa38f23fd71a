"""The ``Context`` marker: a tool parameter filled by the application, hidden from the model."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["Context"]

T = TypeVar("T")


class Context(Generic[T]):
    """Marks a tool parameter that receives the call's ``context=`` instead of a model value.

    Annotate the parameter as ``Context`` or ``Context[Session]``. The parameter is left
    out of every schema, and ``Toolbox.call(..., context=session)`` passes ``session`` to it
    unchanged (no conversion, no check).

    .. versionadded:: 0.1.0
    """

    def __init__(self) -> None:
        msg = "Context is a marker for annotations (ctx: Context[Session]); don't instantiate it."
        raise TypeError(msg)
