"""pydantic v2 models, read like attrs classes: from ``model_fields`` and the class.

A ``BaseModel`` subclass is a described class. Its fields come from ``model_fields``
(never ``model_json_schema()``), so every adapter's rules apply to it as to any class:

- the JSON key is the serialization alias (``Field(alias=...)`` sets it too, and so does
  an ``alias_generator``), else the field name;
- ``Field(description=...)`` describes the field, over the class docstring's entry;
- the constraints pydantic keeps in ``FieldInfo.metadata`` (``annotated_types`` objects,
  and pydantic's own ``pattern``) are read like ``Annotated`` metadata;
- ``default`` and ``default_factory`` are the field's defaults (a factory that takes the
  validated data is a default computed from the instance);
- a parametrized generic (``Box[int]``, a class pydantic makes) is its origin with
  arguments, like ``Box[int]`` of an attrs class.

Instances are built with ``model_validate``, so the model's validators run. pydantic is
never imported here: a model exists only once pydantic is, so the check looks in
``sys.modules``, and ``import describedtypes`` costs nothing without it.
"""

from __future__ import annotations

import functools
import inspect
import sys
import typing
from collections.abc import Callable
from typing import Any

import attrs

from ..errors import SchemaError
from .declared import TAKES_SELF
from .nodes import NOTHING

__all__ = [
    "ModelField",
    "generic_origin",
    "is_model",
    "is_pydantic_dataclass",
    "is_model_instance",
    "model_builder",
    "model_fields",
    "validation_problems",
]


def _base_model() -> Any:
    # pydantic.main defines BaseModel; it is loaded whenever a model class exists.
    module = sys.modules.get("pydantic.main")
    return None if module is None else getattr(module, "BaseModel", None)


def is_model(tp: Any) -> bool:
    """Whether ``tp`` is a pydantic v2 model class (never imports pydantic)."""
    base = _base_model()
    return base is not None and isinstance(tp, type) and issubclass(tp, base) and tp is not base


def is_model_instance(value: Any) -> bool:
    """Whether ``value`` is an instance of a pydantic v2 model (never imports pydantic)."""
    base = _base_model()
    return base is not None and isinstance(value, base)


def is_pydantic_dataclass(tp: Any) -> bool:
    """Whether ``tp`` is a pydantic dataclass (described as a dataclass; its constructor
    validates and raises pydantic's ValidationError)."""
    return isinstance(tp, type) and "__pydantic_validator__" in tp.__dict__ and hasattr(
        tp, "__dataclass_fields__"
    )


def generic_origin(cls: type) -> tuple[type, tuple[Any, ...]] | None:
    """``(Box, (int,))`` for the class pydantic makes of ``Box[int]``; None otherwise."""
    meta = getattr(cls, "__pydantic_generic_metadata__", None)
    if not isinstance(meta, dict) or meta.get("origin") is None:
        return None
    return meta["origin"], tuple(meta.get("args", ()))


@attrs.frozen
class ModelField:
    """Strictly private: what one model field says, read from its ``FieldInfo``.

    Attributes:
        name: The attribute name.
        key: The JSON key: the serialization alias, else the name.
        init_key: The key ``model_validate`` reads it from: the validation alias when it
            is one string, else the name (``model_validate`` is told to accept names).
        hint: The annotation, with the field's metadata as ``Annotated`` metadata.
        default: The default, or ``NOTHING``.
        factory: The default factory, or None.
        description: ``Field(description=...)``, or None.
    """

    name: str
    key: str
    init_key: str
    hint: Any
    default: Any
    factory: Callable[[], Any] | None
    description: str | None


def model_fields(cls: type, path: str) -> list[ModelField]:
    """The fields of the model class ``cls``, in declaration order.

    Raises:
        SchemaError: ``cls`` is a ``RootModel`` (its JSON is its root value, not an
            object), or pydantic cannot complete the class (an undefined forward
            reference).
    """
    if getattr(cls, "__pydantic_root_model__", False):
        raise SchemaError(
            f"{cls.__qualname__} is a pydantic RootModel, whose JSON is its root value, not "
            "an object; describe the root type itself (for example list[Item]) and build "
            f"the RootModel from the decoded value: {cls.__qualname__}(value)",
            path=path,
            type_=cls,
        )
    if not getattr(cls, "__pydantic_complete__", True):
        # A forward reference defined after the class: what pydantic itself does on
        # first use. Left unresolved, the annotation is resolved (or refused) below.
        try:
            cls.model_rebuild()  # type: ignore[attr-defined]
        except Exception as exc:
            raise SchemaError(
                f"pydantic cannot complete {cls.__qualname__}: {_first_line(exc)}; define the "
                "missing name at module level, or call model_rebuild() once it exists",
                path=path,
                type_=cls,
            ) from None
    by_name = _validates_by_name()
    found: list[ModelField] = []
    for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
        metadata = list(info.metadata)
        hint = info.annotation
        if metadata:
            params = (hint, *metadata)
            hint = typing.Annotated[params]
        default = info.default
        if _is_undefined(default):
            default = NOTHING
        factory = info.default_factory
        if factory is not None and _takes_data(info, factory):
            # Computed from the other fields: present, but not a JSON value.
            default, factory = TAKES_SELF, None
        key = info.serialization_alias or info.alias or name
        found.append(ModelField(
            name=name,
            key=key,
            init_key=_init_key(cls, name, info, by_name, path),
            hint=hint,
            default=default,
            factory=factory,
            description=info.description,
        ))
    return found


def _is_undefined(value: Any) -> bool:
    return type(value).__name__ == "PydanticUndefinedType"


def _takes_data(info: Any, factory: Callable[..., Any]) -> bool:
    said = getattr(info, "default_factory_takes_validated_data", None)  # pydantic 2.10+
    if isinstance(said, bool):
        return said
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in params)


def _init_key(cls: type, name: str, info: Any, by_name: bool, path: str) -> str:
    alias = info.validation_alias
    if isinstance(alias, str):
        return alias
    if alias is None:  # no alias at all (alias= sets the validation alias too)
        return name
    if by_name:
        return name  # AliasChoices / AliasPath: passed by name, which pydantic accepts
    choices = getattr(alias, "choices", None) or ()
    for choice in choices:
        if isinstance(choice, str):
            return choice
    raise SchemaError(
        f"the field's validation alias {alias!r} is not one key, and this pydantic cannot "
        "be told to take the field by its name; upgrade to pydantic 2.11 or later, or give "
        "the field a plain alias",
        path=f"{path}.{name}",
        type_=cls,
    )


@functools.cache
def _validates_by_name() -> bool:
    """pydantic 2.11 and later take ``model_validate(..., by_alias=, by_name=)``."""
    base = _base_model()
    try:
        params = inspect.signature(base.model_validate).parameters
    except (TypeError, ValueError, AttributeError):
        return False
    return "by_name" in params


def model_builder(cls: Any) -> Callable[[dict[str, Any]], Any] | None:
    """The function building an instance of the model ``cls`` from its fields' values.

    The values are the decoded ones, by ``ModelField.init_key``; ``model_validate``
    runs the model's own validation on them, validators included. None when ``cls`` is
    not a model.
    """
    if not is_model(cls):
        return None
    validate = cls.model_validate
    base = _base_model()
    validator = cls.__dict__.get("__pydantic_validator__")
    if (
        getattr(validate, "__func__", None) is base.model_validate.__func__
        and type(validator).__name__ == "SchemaValidator"
    ):
        # What BaseModel.model_validate runs, without its Python frame (a tenth of the
        # time of a small model); a class that overrides model_validate keeps its own.
        validate = validator.validate_python
    if _validates_by_name():
        return functools.partial(validate, by_alias=True, by_name=True)
    return validate  # type: ignore[no-any-return]


def validation_problems(exc: BaseException) -> list[tuple[tuple[Any, ...], str]] | None:
    """``(location, message)`` for each error of a pydantic ``ValidationError``.

    None for any other exception: a validator that raises something other than
    ``ValueError`` or ``AssertionError`` (which pydantic turns into a ValidationError)
    is not reporting the model's mistake, and that exception propagates. The message of
    a validator's ``ValueError`` is its own text, without pydantic's "Value error, ".
    """
    module = sys.modules.get("pydantic_core")
    error_class = getattr(module, "ValidationError", None) if module is not None else None
    if error_class is None or not isinstance(exc, error_class):
        return None
    found: list[tuple[tuple[Any, ...], str]] = []
    for error in exc.errors():
        message = error.get("msg", "")
        inner = (error.get("ctx") or {}).get("error")
        if error.get("type") == "value_error" and isinstance(inner, BaseException):
            message = _first_line(inner) or message
        found.append((tuple(error.get("loc", ())), str(message)))
    return found


def _first_line(exc: BaseException) -> str:
    try:
        text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    except Exception:
        return type(exc).__name__
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
