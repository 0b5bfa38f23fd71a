"""How many tokens a schema adds to a request, counted offline.

The count is of the compact JSON text (``separators=(",", ":")``, UTF-8 as it is) of what
``schema(obj, llm_adapter)`` returns, or of a toolbox's ``definitions(llm_adapter)``
list, with the optional ``bpe-openai`` tokenizer (the ``describedtypes[tokens]`` extra),
which bundles OpenAI's encodings so nothing is downloaded.
"""

from __future__ import annotations

import importlib
import json
import warnings
from typing import Any, Literal

from .._base.lazy import install_hint
from .._types.annotate import Registry, annotate
from .adapters import Adapter
from .schema import references, schema

__all__ = ["ENCODINGS", "count_tokens"]

#: The encodings ``count_tokens`` takes: the ones bpe-openai bundles for OpenAI's models
#: (``o200k_base``: GPT-4o and later; ``cl100k_base``: GPT-4 and GPT-3.5).
ENCODINGS = ("o200k_base", "cl100k_base")

_EXTRA = (
    "count_tokens() counts with the bpe-openai tokenizer, which is not installed; "
    f"install it with: {install_hint('bpe-openai>=0.1.4', 'tokens')}"
)

_encodings: dict[str, Any] = {}


def _encoding(name: Any) -> Any:
    found = _encodings.get(name) if isinstance(name, str) else None
    if found is not None:
        return found
    _check_encoding(name)
    with warnings.catch_warnings():
        # bpe-openai 0.1.4 reads its bundled ranks with importlib.resources.open_binary
        # (on import and per encoding), deprecated since Python 3.11: not the caller's
        # to act on.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            # An optional extra, imported when first needed (by name: it need not be
            # installed where the package is type-checked).
            bpe_openai = importlib.import_module("bpe_openai")
        except ImportError:
            raise ModuleNotFoundError(_EXTRA, name="bpe_openai") from None
        found = _encodings[name] = bpe_openai.get_encoding(name)
    return found


def _check_encoding(name: Any) -> None:
    if name not in ENCODINGS:
        msg = (
            f"encoding must be one of {', '.join(map(repr, ENCODINGS))}, got {name!r}; "
            "o200k_base is the encoding of GPT-4o and later models, cl100k_base of GPT-4"
        )
        raise ValueError(msg)


def compact_json(value: Any) -> str:
    """``value`` as the compact JSON text a request body holds."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def count_tokens(
    obj: Any,
    llm_adapter: Adapter,
    *,
    encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base",
    use_references: bool | Literal["auto"] = False,
    registry: Registry = annotate,
) -> int:
    """The number of tokens ``obj``'s schema adds to a request for ``llm_adapter``.

    The count is of the compact JSON text (``separators=(",", ":")``) of what
    ``schema(obj, llm_adapter)`` returns, or, for a ``Toolbox``, of its
    ``definitions(llm_adapter)`` list (with the same ``use_references``), so two ways
    of writing a type can be compared before anything is sent. It is the size the
    schema itself adds: providers turn tools and response formats into prompt text of
    their own, so the billed input tokens of a request differ from it (read them from the
    response's usage).

    Counted offline with the ``bpe-openai`` tokenizer (the ``tokens``
    extra), which bundles OpenAI's encodings; other providers'
    tokenizers differ, so for them the count is an estimate.

    Args:
        obj: A type or function, as passed to ``schema()``, or a ``Toolbox``.
        llm_adapter: The adapter the schema is built for (``OPENAI``, ``OPENAI_TOOLS``,
            ``ANTHROPIC_TOOLS``, ...).
        encoding: ``"o200k_base"`` (GPT-4o and later) or ``"cl100k_base"`` (GPT-4).
        use_references: As for ``schema()``; for a ``Toolbox``, as for its
            ``definitions(llm_adapter, use_references=...)``.
        registry: As for ``schema()``.

    Returns:
        The number of tokens.

    Raises:
        ModuleNotFoundError: ``bpe-openai`` is not installed; the message names the extra.
        ValueError: ``encoding`` is not one of the encodings above.
        TypeError: ``use_references`` is not ``True``, ``False`` or ``"auto"``.
        SchemaError: as ``schema()`` (or ``Toolbox.definitions()``).

    .. versionadded:: 0.3.0
    """
    refs = references(use_references)
    _check_encoding(encoding)
    definitions = None if isinstance(obj, type) else getattr(obj, "definitions", None)
    if callable(definitions):
        sent: Any = definitions(llm_adapter, use_references=refs)
    else:
        sent = schema(obj, llm_adapter, use_references=refs, registry=registry)
    # encode_ordinary: text such as "<|endoftext|>" in a description is counted as text.
    return len(_encoding(encoding).encode_ordinary(compact_json(sent)))
