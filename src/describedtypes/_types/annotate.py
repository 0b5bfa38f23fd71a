"""``Annotation`` and the ``annotate`` registry: names, descriptions and enums for types."""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import threading
import typing
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar, cast, overload

import attrs

from . import pydantic_models as pyd
from .docstrings import own_docstring, parse_docstring
from .type_hints import type_hints

__all__ = ["Annotation", "Registry", "annotate"]

T = TypeVar("T")
EnumValue = str | int | float | bool


class _FrozenMap(Mapping[str, "Annotation"]):
    """A hashable, read-only mapping; keeps insertion order."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Annotation] | None = None) -> None:
        self._data: dict[str, Annotation] = dict(data or {})
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Annotation:
        return self._data[key]

    # The dict's own, not Mapping's generic ones: asked once per field per inspection.
    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._data)


def _to_parameters(value: object) -> _FrozenMap:  # validates user input: any object
    if isinstance(value, _FrozenMap):
        return value
    if value is None:
        return _FrozenMap()
    if not isinstance(value, Mapping):
        msg = (
            f"Annotation.parameters must be a mapping of field name to Annotation, "
            f"got {type(value).__name__}; write parameters={{'field': Annotation(...)}}."
        )
        raise TypeError(msg)
    for key, item in value.items():
        if not isinstance(key, str):
            msg = f"Annotation.parameters keys must be field names (str), got {key!r}."
            raise TypeError(msg)
        if not isinstance(item, Annotation):
            msg = (
                f"Annotation.parameters[{key!r}] must be an Annotation, got "
                f"{type(item).__name__}; write Annotation(description=...)."
            )
            raise TypeError(msg)
    return _FrozenMap(value)


def _to_enum(value: object) -> tuple[EnumValue, ...] | None:  # validates user input
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        msg = (
            f"Annotation.enum must be a list of allowed values, got {value!r}; "
            f"write enum=[{value!r}] for a single value."
        )
        raise TypeError(msg)
    items: tuple[Any, ...] = tuple(value)
    for item in items:
        if not isinstance(item, (str, int, float, bool)):
            msg = (
                f"Annotation.enum values must be str, int, float or bool, got {item!r} "
                f"({type(item).__name__})."
            )
            raise TypeError(msg)
    if not items:
        msg = "Annotation.enum must list at least one value; leave it out (None) for no enum."
        raise TypeError(msg)
    return items


def _check_text(field_name: str) -> Callable[[Any, Any, Any], None]:
    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if value is not None and not isinstance(value, str):
            msg = f"Annotation.{field_name} must be a str or None, got {value!r}."
            raise TypeError(msg)

    return check


@attrs.frozen(repr=False)
class Annotation:
    """What the model is told about a type, function, field or parameter.

    Args:
        name: The name shown to the model (the schema or tool name for a type or
            function; the property key for a field).
        description: What the thing means, in words for the model.
        parameters: Annotations of the fields (for a class) or parameters (for a
            function), by their Python name.
        enum: The allowed values, for a field whose type does not already say so.

    .. versionadded:: 0.1.0
    """

    name: str | None = attrs.field(default=None, validator=_check_text("name"))
    description: str | None = attrs.field(default=None, validator=_check_text("description"))
    parameters: Mapping[str, Annotation] = attrs.field(
        factory=_FrozenMap, converter=_to_parameters
    )
    enum: tuple[EnumValue, ...] | None = attrs.field(default=None, converter=_to_enum)

    def __repr__(self) -> str:
        parts = []
        for key in ("name", "description", "parameters", "enum"):
            value = getattr(self, key)
            if value is None or (key == "parameters" and not value):
                continue
            if key == "enum":
                value = list(value)
            parts.append(f"{key}={value!r}")
        return f"Annotation({', '.join(parts)})"

    def merged_over(self, base: Annotation) -> Annotation:
        """This annotation's known values, with ``base`` filling what it leaves out.

        Parameters merge one by one, so an override that only describes one field keeps
        the descriptions the code gives the others.
        """
        params = dict(base.parameters)
        for key, value in self.parameters.items():
            params[key] = value.merged_over(params[key]) if key in params else value
        return Annotation(
            name=self.name if self.name is not None else base.name,
            description=self.description if self.description is not None else base.description,
            parameters=params,
            enum=self.enum if self.enum is not None else base.enum,
        )


AnnotationSource = Annotation | Callable[[Any], Annotation]

# Every registration, in any registry, takes the next stamp. A cache entry remembers the
# stamp it was built under: while no registration has happened since, it is current
# without further checks; after one, it is current if none of the objects it consulted
# got a new annotation (see ``Registry.version``).
_STAMP_LOCK = threading.Lock()
stamp = 0


def current_stamp() -> int:
    """The stamp of the latest registration in any registry (0 before the first)."""
    return stamp


def _next_stamp() -> int:
    global stamp
    with _STAMP_LOCK:
        stamp += 1
        return stamp


class Registry:
    """A set of annotations: what the model is told about classes and functions.

    ``annotate`` is the default registry, used wherever ``registry=`` is not given. A
    library that describes its own types to a model can keep its annotations apart from
    the application's (and from other libraries') in a registry of its own, and pass it
    as ``registry=`` to ``schema``, ``decode``, ``Tool`` and the other entry points::

        mine = Registry()
        mine.register(Weather, Annotation(description="Weather for my plugin"))
        schema(Weather, registry=mine)

    ``Registry(parent=annotate)`` starts from another registry's annotations: for each
    class or function, its own registration is merged over the parent's field by field
    (its own values win), and a registration in the parent is seen at once. The parent
    is fixed when the registry is made, so parents never form a cycle.

    A registration holds classes, functions and ``functools.partial`` objects weakly
    (it keeps none of them alive; a registration goes with its object); a generic alias
    such as ``Box[int]`` is held until it is unregistered. A registry made per request is
    collected with everything cached for it once the request drops it.

    Calling a registry answers the annotation of an object: the registered override (if
    any) over what the code says (name, docstring, field metadata, ``Annotated``).
    Registration is thread-safe, never runs an annotation function under a lock, and
    only the cached schemas and decoders that depend on the registered object are built
    again.

    Args:
        parent: A registry whose annotations this one starts from.
        name: A name for the registry's ``repr``.

    .. versionadded:: 0.2.0
    """

    __slots__ = (
        "__weakref__",
        "_lock",
        "_name",
        "_overrides",
        "_parent",
        "_versions",
        "cache_token",
    )

    def __init__(self, parent: Registry | None = None, *, name: str | None = None) -> None:
        if parent is not None and not isinstance(cast(Any, parent), Registry):
            msg = (
                f"Registry(parent=...) takes another Registry such as annotate, got "
                f"{type(parent).__name__}"
            )
            raise TypeError(msg)
        if name is not None and not isinstance(cast(Any, name), str):
            msg = f"Registry(name=...) takes a str, got {type(name).__name__}"
            raise TypeError(msg)
        self._parent = parent
        self._name = name
        self._lock = threading.Lock()
        # Classes and functions are held weakly (a registration keeps nothing alive);
        # generic aliases (Box[int]) are new objects each time they are written, so they
        # are held strongly, until unregistered.
        self._overrides: _KeyTable[AnnotationSource] = _KeyTable()
        self._versions: _KeyTable[int] = _KeyTable()
        #: Set by the cache owner: a weak reference to this registry that its cached
        #: entries are keyed by, so they go when the registry goes.
        self.cache_token: Any = None

    @property
    def parent(self) -> Registry | None:
        """The registry this one starts from (fixed when the registry is made)."""
        return self._parent

    @parent.setter
    def parent(self, value: Any) -> None:
        msg = (
            "Registry.parent is fixed when the registry is made (so parents can never "
            "form a cycle); make a new Registry(parent=...) instead"
        )
        raise TypeError(msg)

    def __repr__(self) -> str:
        if self is annotate:
            return "<describedtypes.annotate>"
        label = f" {self._name!r}" if self._name else ""
        parent = f" over {self._parent!r}" if self._parent is not None else ""
        return f"<describedtypes.Registry{label}{parent}>"

    @property
    def generation(self) -> int:
        """The stamp of the latest registration in any registry (for cache checks)."""
        return stamp

    def __call__(self, obj: Any) -> Annotation:
        """The annotation of ``obj``: the registered override over what the code says."""
        default = default_annotation(obj)
        override = self.override(obj)
        return default if override is None else override.merged_over(default)

    @overload
    def register(self, tp: T, annotation: AnnotationSource) -> T: ...

    @overload
    def register(
        self, tp: T
    ) -> Callable[[Callable[[Any], Annotation]], Callable[[Any], Annotation]]: ...

    def register(self, tp: Any, annotation: Any = None) -> Any:
        """Register the annotation of a class or function.

        ``registry.register(Weather, Annotation(...))`` registers a fixed annotation;
        ``registry.register(Weather, func)`` or ``@registry.register(Weather)`` above a
        function ``func(tp) -> Annotation`` registers one computed on demand (it runs
        each time the type is inspected, never under a lock). A second registration of
        the same object replaces the first. Safe to call from several threads.

        What can be registered: attrs classes, dataclasses, ``TypedDict`` and
        ``NamedTuple`` classes, ``Enum`` classes, their generic aliases (``Box[int]``),
        and Python functions, methods and ``functools.partial`` objects.

        Returns:
            ``tp``; for the decorator form, the decorated function.

        Raises:
            TypeError: ``tp`` cannot be described (a builtin such as ``str``, a typing
                form such as ``Optional[int]``, an instance), or ``annotation`` is not an
                ``Annotation`` or a function, or it gives an ``Enum`` class an ``enum``.
        """
        _check_registrable(tp, self)
        if annotation is None:

            def decorator(func: Any) -> Callable[[Any], Annotation]:
                if not callable(func):
                    msg = f"@{self._label()}.register(tp) decorates a function tp -> Annotation."
                    raise TypeError(msg)
                self._set(_registry_key(tp), func)
                return cast("Callable[[Any], Annotation]", func)

            return decorator
        if not isinstance(annotation, Annotation) and not callable(annotation):
            msg = (
                f"{self._label()}.register({_describe(tp)}, ...) takes an Annotation or a "
                f"function returning one, got {type(annotation).__name__}."
            )
            raise TypeError(msg)
        if isinstance(annotation, Annotation):
            _check_enum_target(tp, annotation, self)
        self._set(_registry_key(tp), annotation)
        return tp

    def unregister(self, tp: Any) -> None:
        """Forget the override registered for ``tp`` in this registry, if any."""
        key = _registry_key(tp)
        with self._lock:
            try:
                found = self._overrides.pop(key)
            except TypeError:  # unhashable: nothing can be registered for it
                return
            if found is not None:
                # The version goes too (nothing is kept for the object); the stamp moves,
                # so an entry built under the registration is checked, and its recorded
                # version no longer matches.
                self._versions.pop(key)
                _next_stamp()

    def override(self, obj: Any) -> Annotation | None:
        """The annotation registered for ``obj`` here or in a parent, or None.

        A registered function is called with ``obj`` (outside any lock).
        """
        own = self._own(obj)
        if self._parent is None:
            return own
        inherited = self._parent.override(obj)
        if own is None or inherited is None:
            return own if own is not None else inherited
        return own.merged_over(inherited)

    def version(self, obj: Any) -> tuple[int, ...]:
        """When the annotation registered for ``obj`` last changed, here and in parents.

        All zeros for an object never registered. A cached schema of a type stays
        current while the version of every object it consulted stays the same.
        """
        key = _registry_key(obj)
        versions: list[int] = []
        registry: Registry | None = self
        while registry is not None:
            try:
                versions.append(registry._versions.get(key, 0))
            except TypeError:
                versions.append(0)
            registry = registry._parent
        return tuple(versions)

    def _own(self, obj: Any) -> Annotation | None:
        try:
            source = self._overrides.get(_registry_key(obj))
        except TypeError:  # unhashable object: nothing can be registered for it
            return None
        if source is None or isinstance(source, Annotation):
            return source
        override: object = source(obj)
        if not isinstance(override, Annotation):
            msg = (
                f"the annotation function registered for {_describe(obj)} returned "
                f"{type(override).__name__}, not an Annotation; return Annotation(...)."
            )
            raise TypeError(msg)
        return override

    def _set(self, key: Any, value: AnnotationSource) -> None:
        with self._lock:
            self._overrides[key] = value
            self._versions[key] = _next_stamp()

    def _label(self) -> str:
        return "annotate" if self is annotate else "registry"


def check_registry(registry: Any, label: str = "registry") -> Registry:
    """``registry`` if it is a ``Registry``; else the ``TypeError`` that names the fix.

    The one check (and wording) of every function that takes ``registry=``.
    """
    if isinstance(registry, Registry):
        return registry
    msg = (
        f"{label} must be a Registry such as describedtypes.annotate (the default) or a "
        f"Registry(...) of your own, got {type(registry).__name__} {_short_repr(registry)}"
    )
    raise TypeError(msg)


_V = TypeVar("_V")


class _KeyTable(typing.Generic[_V]):
    """A registry's table: classes, functions and partials weakly, anything else strongly.

    ``get`` and ``pop`` raise ``TypeError`` for an unhashable key, like a dict.
    """

    __slots__ = ("_strong", "_weak")

    def __init__(self) -> None:
        self._weak: weakref.WeakKeyDictionary[Any, _V] = weakref.WeakKeyDictionary()
        self._strong: dict[Any, _V] = {}

    def _of(self, key: Any) -> Any:
        if isinstance(key, (type, functools.partial)) or inspect.isfunction(key):
            return self._weak
        return self._strong

    def get(self, key: Any, default: Any = None) -> Any:
        return self._of(key).get(key, default)

    def pop(self, key: Any) -> _V | None:
        found: _V | None = self._of(key).pop(key, None)
        return found

    def __setitem__(self, key: Any, value: _V) -> None:
        self._of(key)[key] = value


def _registry_key(obj: Any) -> Any:
    # Bound methods are new objects on each attribute access; key them by function.
    func = getattr(obj, "__func__", None)
    return func if func is not None and inspect.ismethod(obj) else obj


_NOT_REGISTRABLE_MODULES = frozenset({"builtins", "typing", "typing_extensions", "types"})


def _check_registrable(tp: Any, registry: Registry) -> None:
    import functools
    import typing

    label = registry._label()
    what = (
        "an attrs class, dataclass, pydantic model, TypedDict, NamedTuple or Enum class (or a "
        "generic alias such as Box[int]), or a Python function, method or functools.partial"
    )
    if not isinstance(tp, type) and typing.get_origin(tp) is None and not callable(tp):
        msg = (
            f"{label}.register() needs {what}; got an instance of {type(tp).__name__}: pass "
            "the class or function itself."
        )
        raise TypeError(msg)
    try:
        hash(tp)
    except TypeError:
        msg = f"{label}.register() needs {what}; got the unhashable {_short_repr(tp)}."
        raise TypeError(msg) from None
    target = tp
    origin = typing.get_origin(tp)
    # A generic alias has an origin; on Python 3.10 list[str] also passes isinstance(type).
    if (
        origin is None
        and not isinstance(tp, type)
        and type(tp).__module__ in ("typing", "typing_extensions")
    ):
        # Any, NoReturn, ... (callable objects of typing's own classes on Python 3.10)
        msg = (
            f"{label}.register() needs {what}; got the type expression {tp!r}, which has no "
            "annotation of its own (use Annotated[T, Annotation(...)] on the field)."
        )
        raise TypeError(msg)
    if origin is not None:
        if not isinstance(origin, type) or origin.__module__ in _NOT_REGISTRABLE_MODULES:
            msg = (
                f"{label}.register() needs {what}; got the type expression {tp!r}, whose "
                "annotation is its parts' (register the class inside it instead, or use "
                "Annotated[T, Annotation(...)] on the field)."
            )
            raise TypeError(msg)
        target = origin
    if isinstance(target, type):
        if _describable_class(target):
            return
        if target.__module__ in _NOT_REGISTRABLE_MODULES:
            reason = f"the builtin type {target.__name__} is described by its JSON type alone"
            fix = (
                "to describe one field, use Annotated[T, Annotation(...)] on it or register "
                "the class that holds the field"
            )
        else:
            reason = f"{target.__qualname__} is not a class describedtypes can describe"
            fix = "make it an attrs class, a dataclass or a pydantic model"
        msg = f"{label}.register() needs {what}; {reason}: {fix}."
        raise TypeError(msg)
    func = tp
    while isinstance(func, functools.partial):
        func = func.func
    func = getattr(func, "__func__", func)
    if inspect.isfunction(func):
        return
    call = type(func).__dict__.get("__call__") if callable(func) else None
    if call is not None and inspect.isfunction(call):  # a callable object of a Python class
        return
    msg = (
        f"{label}.register() needs {what}; {_short_repr(tp)} is a builtin or C function "
        "with no signature to describe: wrap it in a Python function."
    )
    raise TypeError(msg)


def _describable_class(cls: type) -> bool:
    if attrs.has(cls) or dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum):
        return True
    if pyd.is_model(cls):
        return True
    # TypedDict and NamedTuple classes.
    return hasattr(cls, "__required_keys__") or (
        issubclass(cls, tuple) and hasattr(cls, "_fields")
    )


def _check_enum_target(tp: Any, annotation: Annotation, registry: Registry) -> None:
    if annotation.enum is not None and isinstance(tp, type) and issubclass(tp, enum.Enum):
        msg = (
            f"{registry._label()}.register({tp.__qualname__}, Annotation(enum=...)): the "
            f"members of {tp.__qualname__} already fix its values, so an annotation enum "
            "would be ignored; leave enum out, or change the members."
        )
        raise TypeError(msg)


def _short_repr(obj: Any) -> str:
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__name__} object>"
    return text if len(text) <= 80 else text[:77] + "..."


annotate: Registry = Registry(name="annotate")
"""The default registry: what ``schema()``, ``decode()`` and the tools use unless given
``registry=``. Call ``annotate(obj)`` to read an annotation, ``annotate.register`` to set
one."""

# Older modules refer to the default registry by this name.
_REGISTRY = annotate


def registered_override(obj: Any) -> Annotation | None:
    """The annotation registered for ``obj`` in the default registry."""
    return annotate.override(obj)


# -- defaults from the code -----------------------------------------------------------


def _describe(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)


def object_name(obj: Any) -> str:
    """The ``__name__`` of a class or function, seen through partials and generics."""
    import functools

    while isinstance(obj, functools.partial):
        obj = obj.func
    origin = getattr(obj, "__origin__", None)
    if origin is not None and not isinstance(obj, type):
        obj = origin
    name = getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__name__


def _field_metadata_descriptions(obj: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    if isinstance(obj, type) and attrs.has(obj):
        for a in attrs.fields(obj):
            if not a.metadata:  # most fields: nothing to read
                continue
            desc = a.metadata.get("description")
            if isinstance(desc, str):
                found[a.name] = desc
    elif isinstance(obj, type) and dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            desc = f.metadata.get("description")
            if isinstance(desc, str):
                found[f.name] = desc
    return found


def default_annotation(obj: Any) -> Annotation:
    """The annotation the code itself gives ``obj``.

    The name is ``__name__``; the description is the docstring's summary. A field or
    parameter is described by, from weakest to strongest: the docstring's parameter
    section, ``metadata={"description": ...}`` (attrs and dataclass fields), and
    ``Annotated[T, Annotation(...)]`` on its annotation.
    """
    if type(obj) is type:
        # A plain class (no metaclass; never a generic alias, which on Python 3.10 passes
        # isinstance(..., type)): the common case, without the unwrapping below.
        doc = obj.__dict__.get("__doc__")
        summary, param_docs = parse_docstring(own_docstring(obj)) if doc else (None, {})
        metadata = _field_metadata_descriptions(obj)
        descriptions = {**param_docs, **metadata} if param_docs else metadata
    else:
        summary, param_docs = parse_docstring(own_docstring(obj))
        target = getattr(obj, "__origin__", None) if not isinstance(obj, type) else obj
        descriptions = {**param_docs, **_field_metadata_descriptions(target or obj)}
    # A pydantic model's Field(description=..., alias=...), over the docstring; pydantic
    # keeps the field's Annotated metadata in FieldInfo, which the inspector reads.
    annotated = _model_parameters(obj) if pyd.is_model(obj) else _annotated_parameters(obj)
    if not (descriptions or annotated):  # most classes: nothing said of any field
        return Annotation(name=object_name(obj), description=summary)
    parameters = {key: Annotation(description=value) for key, value in descriptions.items()}
    for key, found in annotated.items():
        parameters[key] = found.merged_over(parameters[key]) if key in parameters else found
    return Annotation(name=object_name(obj), description=summary, parameters=parameters)


def _model_parameters(cls: Any) -> dict[str, Annotation]:
    """What a pydantic model's ``Field(...)`` says of each field: its description, and
    its serialization alias as the name the model sees."""
    found: dict[str, Annotation] = {}
    try:
        fields = cls.model_fields
    except Exception:  # an incomplete model: reported when the type is inspected
        return found
    for name, info in fields.items():
        key = info.serialization_alias or info.alias
        description = info.description
        if key == name:
            key = None
        if key is not None or description is not None:
            found[name] = Annotation(name=key, description=description)
    return found


def _annotated_parameters(obj: Any) -> dict[str, Annotation]:
    """What ``Annotated[T, Annotation(...)]`` says of each field or parameter of ``obj``."""
    import functools

    import typing_extensions

    target = obj
    if not isinstance(target, type):
        while isinstance(target, functools.partial):
            target = target.func
        origin = getattr(target, "__origin__", None)
        if origin is not None and not isinstance(target, type):
            target = origin
        target = getattr(target, "__func__", target)
        if not isinstance(target, type) and not callable(target):
            return {}
        if not isinstance(target, type) and not inspect.isroutine(target):
            target = type(target).__call__  # a callable object: its __call__ method
    try:
        hints = type_hints(target)
    except Exception:  # unresolvable annotations are reported when the type is inspected
        return {}
    found: dict[str, Annotation] = {}
    for key, hint in hints.items():
        if not isinstance(hint, _ANNOTATED_ALIASES):  # nothing to look into
            continue
        merged: Annotation | None = None
        while typing_extensions.get_origin(hint) in (typing.Annotated, typing_extensions.Annotated):
            for meta in iter_annotation_metadata(hint.__metadata__):
                plain = Annotation(name=meta.name, description=meta.description, enum=meta.enum)
                merged = plain if merged is None else plain.merged_over(merged)
            hint = typing_extensions.get_args(hint)[0]
        if merged is not None and key != "return":
            found[key] = merged
    return found


# The classes of Annotated[...] (typing's, and typing_extensions' where it has its own).
_ANNOTATED_ALIASES = tuple(
    {type(typing.Annotated[int, 0]), type(__import__("typing_extensions").Annotated[int, 0])}
)

def iter_annotation_metadata(metadata: Sequence[Any]) -> Iterator[Annotation]:
    """The ``Annotation`` objects among ``Annotated`` metadata.

    A ``typing_extensions.Doc("...")`` (PEP 727) counts as ``Annotation(description=...)``.
    """
    for item in metadata:
        if isinstance(item, Annotation):
            yield item
        elif _DOC is not None and isinstance(item, _DOC) and isinstance(item.documentation, str):
            yield Annotation(description=item.documentation)


# typing_extensions.Doc is new in typing_extensions 4.8; older versions have none to find.
_DOC: Any = getattr(__import__("typing_extensions"), "Doc", None)
