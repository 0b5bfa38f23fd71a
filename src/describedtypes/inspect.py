"""A read-only view of Python types and functions as a small tree of immutable nodes.

``type_info(obj)`` inspects a type or a function once; the schema builder, the decoder
and the tool runtime all read the same nodes, so they cannot disagree.
"""

from ._types import inspector as _impl
from ._types.inspector import *  # noqa: F403  (the public names, listed in __all__ there)

__all__ = _impl.__all__


def __dir__() -> list[str]:
    return list(__all__)
