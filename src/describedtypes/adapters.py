"""LLM adapters: what each provider's request takes, as small frozen strategy objects.

An adapter holds one provider's choices (the wrapper shape around the schema body, how
optional fields are spelled, which keywords and formats are accepted, the name rule, the
size limits, and the rules its output is checked against) and is passed to
``schema(obj, llm_adapter=...)``. Build your own with ``Adapter(...)`` or
``OPENAI.replace(...)``; the schema builder never branches on an adapter's identity.
"""

from ._schema import adapters as _impl
from ._schema.adapters import *  # noqa: F403  (the public names, listed in __all__ there)

__all__ = _impl.__all__


def __dir__() -> list[str]:
    return list(__all__)
