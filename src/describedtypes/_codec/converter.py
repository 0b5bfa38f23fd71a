"""cattrs converters whose hooks are the library's strict decoders and adapter-shaped encoders.

``make_converter()`` returns a ``cattrs.Converter`` and ``register_hooks()`` installs the
same hooks on a user's converter. They are hook factories behind one predicate: the
classes the schema describes (attrs classes, dataclasses, pydantic models, ``TypedDict``,
``NamedTuple``, and their parametrizations) and type expressions built around them
(``list[Weather]``, ``Weather | None``, ``dict[str, Weather]``). Scalars, enums and the
user's other types stay with cattrs.

Structure hooks are the compiled decoders of ``decode()`` (``_decode.structure_value``), so
``converter.structure(value, Weather)`` follows the same rules and raises the same
``DecodeError`` with the same paths and messages. Unstructure hooks are ``encode()``'s
compiled encoders in the adapter's shape: under an adapter with ``dict_as_entries`` a
dict becomes the ``[{"key": ..., "value": ...}]`` array, and under a strict adapter
(every property required) a ``None`` field is written as ``null`` instead of left out.

The user's own hooks are kept: a hook registered for a class (``register_structure_hook``)
wins over ours as cattrs dispatches class hooks first; a predicate hook or hook factory
registered before ``register_hooks`` keeps the types it claimed (the predicate steps
aside for them); hooks registered afterwards win as cattrs gives later registrations
priority. Inside a described class, a nested type with a hook of the user's own (a
``datetime`` read from epoch seconds, say) is decoded and encoded by that hook, as
``decode(..., converter=...)`` does.

The hooks are built lazily on first use and rebuilt whenever the converter's hooks
change (cattrs asks the factories again after every registration).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import TYPE_CHECKING, Any

import attrs
from typing_extensions import is_typeddict

if TYPE_CHECKING:  # cattrs loads when a converter is made, not at import
    import cattrs

from .._schema.adapters import STANDARD, Adapter, check_adapter
from .._types import inspector as ni
from .._types import pydantic_models as pyd
from .._types.annotate import Registry, annotate, check_registry, current_stamp
from ..errors import SchemaError
from .decode import baseline_converter, structure_value, users_own_hook
from .encode import Unstructure, compile_encoder

__all__ = ["make_converter", "register_hooks"]

#: Type-expression origins whose arguments may hold a described class (``X | Y`` too).
_CONTAINERS = frozenset(
    {list, set, frozenset, tuple, dict, typing.Union, typing.Literal, typing.Annotated,
     types.UnionType}
)


def _is_class(cls: Any) -> bool:
    if not isinstance(cls, type):
        return False
    if attrs.has(cls) or dataclasses.is_dataclass(cls) or is_typeddict(cls) or pyd.is_model(cls):
        return True
    return issubclass(cls, tuple) and hasattr(cls, "_fields")  # a NamedTuple


def _is_described(tp: Any, depth: int = 0) -> bool:
    """True for a described class, or a type expression with one inside it."""
    if depth > 20:
        return False
    origin = typing.get_origin(tp)
    if origin is None:
        return _is_class(tp)
    if _is_class(origin):
        return True
    if origin not in _CONTAINERS:
        return False
    return any(_is_described(arg, depth + 1) for arg in typing.get_args(tp))


class _StructureHook:
    """Strictly private: ``converter.structure`` for one described type.

    The compiled decoder is ``decode``'s cached one for this converter, so it follows
    registrations and changes to the converter's hooks.
    """

    _describedtypes_hook = True
    __slots__ = ("converter", "registry", "tp")

    def __init__(self, tp: Any, converter: Any, registry: Registry) -> None:
        self.tp = tp
        self.converter = converter
        self.registry = registry

    def __call__(self, value: Any, _tp: Any = None) -> Any:
        return structure_value(self.tp, value, self.converter, self.registry)

    def __repr__(self) -> str:
        return f"<describedtypes structure hook for {self.tp!r}>"


class _UnstructureHook:
    """Strictly private: ``converter.unstructure`` for one described type, adapter-shaped.

    Built on first use, rebuilt when a registration changes the type's description
    (cattrs asks the factory again when the converter's own hooks change).
    """

    _describedtypes_hook = True
    __slots__ = ("_fn", "_node", "_stamp", "adapter", "converter", "registry", "tp")

    def __init__(self, tp: Any, converter: Any, adapter: Adapter, registry: Registry) -> None:
        self.tp = tp
        self.converter = converter
        self.adapter = adapter
        self.registry = registry
        self._fn: Unstructure | None = None
        self._node: Any = None
        self._stamp = -1

    def __call__(self, obj: Any) -> Any:
        fn = self._fn
        if fn is None or self._stamp != current_stamp():
            stamp = current_stamp()
            node = ni.type_info(self.tp, self.registry)
            if fn is None or node is not self._node:
                fn = self._fn = self._compile(node)
                self._node = node
            self._stamp = stamp
        return fn(obj)

    def _compile(self, node: ni.Node) -> Unstructure:
        baseline = baseline_converter(self.converter)
        converter = self.converter

        def user_hook(tp: Any) -> Unstructure | None:
            hook: Unstructure | None = users_own_hook(
                converter, baseline, "get_unstructure_hook", tp
            )
            return hook

        return compile_encoder(
            node,
            entries=self.adapter.dict_as_entries,
            keep_null=self.adapter.strict,
            hooks=user_hook,
        )

    def __repr__(self) -> str:
        return f"<describedtypes unstructure hook for {self.tp!r} ({self.adapter!r})>"


def register_hooks(
    converter: cattrs.BaseConverter,
    llm_adapter: Adapter = STANDARD,
    *,
    registry: Registry = annotate,
) -> None:
    """Install the strict decoders and adapter-shaped encoders on a cattrs converter.

    After this, ``converter.structure(value, Weather)`` decodes an already-parsed reply
    with the same rules and the same ``DecodeError`` as ``decode(Weather, value)``, and
    ``converter.unstructure(weather)`` gives what ``encode`` writes, in ``llm_adapter``'s
    shape (dicts as ``[{"key", "value"}]`` arrays and ``None`` fields as ``null`` under
    the strict adapters). Hooks the converter already has for a type are kept.

    Args:
        converter: A ``cattrs.Converter`` (or ``BaseConverter``).
        llm_adapter: The adapter whose shape ``unstructure`` produces. Structuring
            accepts both dict forms under every adapter, as ``decode`` does.
        registry: Where registered annotations (field names, enums) are looked up.

    Raises:
        TypeError: ``converter`` is not a cattrs converter, ``llm_adapter`` not an Adapter.

    .. versionadded:: 0.2.0
    """
    import cattrs

    if not isinstance(converter, cattrs.BaseConverter):
        msg = (  # type: ignore[unreachable]
            f"converter must be a cattrs Converter (cattrs.Converter()), got "
            f"{type(converter).__name__}; use make_converter() for a new one"
        )
        raise TypeError(msg)
    adapter = check_adapter(llm_adapter)
    registry = check_registry(registry)
    before = converter.copy()
    baseline = baseline_converter(converter)

    def users_own(tp: Any, get: str) -> bool:
        """True when the converter had a hook of its own for ``tp`` before us."""
        return users_own_hook(before, baseline, get, tp) is not None

    def describable(tp: Any) -> bool:
        if not _is_described(tp):
            return False
        try:
            ni.type_info(tp, registry)
        except SchemaError:
            return False  # not ours to decode: cattrs' own rules apply
        except Exception:
            return False
        return True

    def claims_structure(tp: Any) -> bool:
        return describable(tp) and not users_own(tp, "get_structure_hook")

    def claims_unstructure(tp: Any) -> bool:
        return describable(tp) and not users_own(tp, "get_unstructure_hook")

    def structure_factory(tp: Any) -> _StructureHook:
        return _StructureHook(tp, converter, registry)

    def unstructure_factory(tp: Any) -> _UnstructureHook:
        return _UnstructureHook(tp, converter, adapter, registry)

    converter.register_structure_hook_factory(claims_structure, structure_factory)
    converter.register_unstructure_hook_factory(claims_unstructure, unstructure_factory)


def make_converter(
    llm_adapter: Adapter = STANDARD, *, registry: Registry = annotate
) -> cattrs.Converter:
    """A ``cattrs.Converter`` that decodes and encodes the way ``decode``/``encode`` do.

    ``make_converter().structure(orjson.loads(reply), Weather)`` is the cattrs way to
    decode a reply: no coercion, unknown keys rejected, every problem reported at once in
    a ``DecodeError``. ``unstructure`` gives ``llm_adapter``'s shape of the value.

    Args:
        llm_adapter: The adapter whose shape ``unstructure`` produces (default STANDARD).
        registry: Where registered annotations (field names, enums) are looked up.

    Returns:
        A new converter with ``register_hooks`` applied.

    .. versionadded:: 0.2.0
    """
    import cattrs

    converter = cattrs.Converter()
    register_hooks(converter, llm_adapter, registry=registry)
    return converter
