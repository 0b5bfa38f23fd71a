"""Decoding model replies into typed instances.

Design
------
The decoder is compiled from the inspected nodes (``describedtypes.inspect.type_info``),
the same tree the schema builder renders, so the two cannot disagree: JSON keys come
from ``Field.key``, constructor keywords from ``Field.init_name``, optional fields are
``Field.nullable or Field.has_default``, enum and literal values and the bounds come
from the nodes. Each type is walked once; every object node becomes a generated Python
function (like cattrs' ``make_dict_structure_fn``) with the scalar checks inlined, and
the result is cached per type and dropped when an annotation is registered.

Valid input goes straight through; a problem never stops the walk. Each function
collects every problem below it and raises them together with paths relative to
itself, and the caller adds its own key on the way up, so the valid path pays nothing
for paths it does not need.

Unions are decided the way the schema allows: by the JSON type of the value (an int
prefers an integer option, a float a number option), then for objects by a Literal
field whose values tell the classes apart, else by which classes' required keys are
present and which know every key sent. When several options remain they are tried in
order, and each (value, option) outcome is remembered for the rest of the decode, so
unions nested in recursive types stay linear instead of exponential.

Already-parsed input follows the JSON rules, with one allowance so that the output of
``cattrs.unstructure`` decodes back: a field may hold the very value it
decodes to where that value is not JSON (a ``datetime``, ``date``, ``time`` or
``UUID``, a set for an array, an Enum member). That is the value itself, not a
conversion.

The cattrs converter
--------------------
The decoding rules are those of a cattrs converter configured like the schema. Stock cattrs
hooks coerce by calling the type (``int("5")``) and stop at the first problem of a field,
so they can carry neither the no-coercion rule nor the all-problems-with-JSON-paths
reports. The decision: the compiled decoder *is* the configured converter for every type
the schema describes, and ``decode(..., converter=c)`` layers it over a user's
``cattrs.Converter``. Every class, enum or scalar type in the tree for which ``c`` has a
hook of its own (``register_structure_hook``, ``register_structure_hook_func`` or a
hook factory: anything a fresh converter of the same class would not produce) is
decoded by calling that hook with the raw JSON value; its exceptions (cattrs'
exception groups included) become ``DecodeError`` entries under the value's path.
Everything else follows the strict rules above. Compiled decoders for a converter are
cached and rebuilt when the converter's hooks change.

Encoding (``encode.py``) follows the same nodes the other way; what a parse failure
of the reply's text tells the model is worked out in ``jsontext.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

import attrs
import orjson

from .._types import cache as _cache
from .._types import inspector as ni
from .._types.annotate import Registry, annotate, check_registry, current_stamp
from ..errors import DecodeError, SchemaError
from .codegen import HookSource, baseline_of, hook_identity
from .compiler import Compiler
from .fast import FALLBACK, fast_decoder_for
from .jsontext import BEYOND_FLOAT, json_error, parse_fenced
from .problems import ABSENT, Invalid, Structure, decode_error, show
from .values import exact_beyond_float, exact_loads, has_newer_types, needs_exact


@attrs.frozen
class _Decoder:
    """Strictly private: the compiled structure function of one type."""

    fn: Structure
    hooked: tuple[tuple[Any, Any], ...] = ()
    #: JSON text -> value or ``FALLBACK``, where msgspec mirrors the type (``_fast``).
    fast: Callable[[Any], Any] | None = None
    #: A Decimal is in the tree: JSON text is read with exact numbers.
    exact: bool = False


_HOOKED_PER_TYPE = 8

#: The class attribute where ``decode()`` finds a class's decoder in one step: (the
#: class, its cache entry). Looking it up costs a fraction of building and hashing the
#: cache key and finding the class's cache, which was an eighth of a fast-path decode.
#: It names the class because subclasses inherit it; the entry says which registry and
#: registration stamp it was built for, so it is invalidated as the entry is.
_SLOT = "__describedtypes_decoder__"


def decoder_for(tp: Any, converter: Any, registry: Registry = annotate) -> _Decoder:
    if converter is None:
        key: Any = ("decoder", tp, registry)
        entry = _cache.get(tp, key)
        if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
            _remember(tp, key, entry)
            found: _Decoder = entry.value
            return found
        check_registry(registry)
        stamp = current_stamp()
        node = ni.type_info(tp, registry)
        exact = needs_exact(node)
        # The msgspec mirror predates the Decimal/Flag/TypedDict/NamedTuple/InitVar
        # rules: trees holding them take the normal path.
        fast = None if has_newer_types(node) else fast_decoder_for(tp, node)
        found = _Decoder(_compile(node, tp, exact), fast=fast, exact=exact)
        entry = _cache.put(tp, key, _cache.Entry(found, registry, stamp, node=node))
        _remember(tp, key, entry)
        return found
    import cattrs  # here, not at the top: only a caller with a converter needs it

    if not isinstance(converter, cattrs.BaseConverter):
        msg = (
            f"converter must be a cattrs Converter (cattrs.Converter()), got "
            f"{type(converter).__name__}; leave it out to use the built-in rules alone"
        )
        raise TypeError(msg)
    # Hooked decoders live with the type, a few converters each (converters cannot be
    # weakly referenced; a bounded number per type keeps a converter made per request
    # from piling up).
    key = ("hooked", tp, registry)
    entry = _cache.get(tp, key)
    table: dict[int, tuple[Any, _Decoder]] = {}
    if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
        table = entry.value
        hit = table.get(id(converter))
        if hit is not None and hit[0] is converter and _still_current(hit[1], converter):
            return hit[1]
    stamp = current_stamp()
    node = ni.type_info(tp, registry)
    try:
        decoder = _hooked_decoder(node, converter)
    except RecursionError:
        raise ni.too_deep_error(tp, "compile a decoder for") from None
    table = dict(table)
    table[id(converter)] = (converter, decoder)
    while len(table) > _HOOKED_PER_TYPE:
        del table[next(iter(table))]
    _cache.put(tp, key, _cache.Entry(table, registry, stamp, node=node))
    return decoder


def _remember(tp: Any, key: Any, entry: _cache.Entry) -> None:
    """Point ``tp``'s slot at its current decoder entry, where the entry lives on ``tp``.

    Only there: the slot then lives and dies with the entry, and nothing is set on
    builtins or on classes whose entries go to the bounded table. Called on the slow
    path only (a miss, a new stamp), so ``decode()``'s hit stays two identity checks.
    """
    if _cache.lives_on(tp, key, entry):
        # type.__setattr__: a metaclass's own __setattr__ is user code.
        type.__setattr__(tp, _SLOT, (tp, entry))


def _compile(node: ni.Node, tp: Any, exact: bool) -> Structure:
    try:
        return Compiler(exact=exact).compile(node).fn
    except RecursionError:
        raise ni.too_deep_error(tp, "compile a decoder for") from None


def _hooked_decoder(node: ni.Node, converter: Any) -> _Decoder:
    exact = needs_exact(node)
    compiler = Compiler(HookSource(converter), exact=exact)
    fn = compiler.compile(node).fn
    seen = tuple((t, _current_hook(converter, t)) for t in compiler.hooked_types)
    return _Decoder(fn, seen, exact=exact)


def _current_hook(converter: Any, tp: Any) -> Any:
    try:
        return converter.get_structure_hook(tp)
    except Exception:
        return None


def _still_current(decoder: _Decoder, converter: Any) -> bool:
    return all(_current_hook(converter, t) is hook for t, hook in decoder.hooked)


def structure_value(tp: Any, value: Any, converter: Any, registry: Registry = annotate) -> Any:
    """``value`` (already parsed) decoded into ``tp`` over ``converter``'s own hooks.

    For ``make_converter``/``register_hooks``: text is a string value, not JSON to parse;
    the rules and the ``DecodeError`` are ``decode``'s, and the compiled decoder is the
    cached one, rebuilt when a registration or the converter's hooks change.
    """
    return _run(decoder_for(tp, converter, registry).fn, value)


def check_decodable(tp: Any, registry: Registry = annotate) -> None:
    """Compile (and cache) the decoder of ``tp`` now; raises ``SchemaError`` if there is none."""
    decoder_for(tp, None, registry)


def users_own_hook(converter: Any, baseline: Any, getter: str, tp: Any) -> Any:
    """The hook ``converter`` has for ``tp`` that a fresh converter would not, or None.

    ``getter`` is ``"get_structure_hook"`` or ``"get_unstructure_hook"``; ``baseline`` is
    ``baseline_converter(converter)``. The library's own hooks (``make_converter``) are
    never the user's.
    """
    try:
        hook = getattr(converter, getter)(tp)
    except Exception:
        return None
    if getattr(hook, "_describedtypes_hook", False):
        return None
    try:
        base = getattr(baseline, getter)(tp)
    except Exception:
        return hook
    return None if hook_identity(hook) == hook_identity(base) else hook


def baseline_converter(converter: Any) -> Any:
    """A fresh converter of ``converter``'s class: what it would do without its own hooks."""
    return baseline_of(converter)


def _too_deep() -> DecodeError:
    return DecodeError([("$", "the value is nested too deeply to decode; send a flatter value")])


def _loaded(
    data: str | bytes | bytearray | memoryview, *, fenced: bool = True, exact: bool = False
) -> tuple[Any, DecodeError | None]:
    """(the parsed reply, None), or (None, the DecodeError to raise) for text that is no JSON.

    With ``exact`` (the type holds a Decimal), a number beyond the float range, which
    orjson refuses, is read from its digits like any other (``1e400`` as ``1e-400`` is).

    The error comes back rather than raised so the caller can drop its reference to the
    text first; it is cut loose from the parser's exception (whose ``doc`` is the whole
    text) and from the frames that held it.
    """
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError as exc:
        failure = exc
    if fenced:
        try:
            return parse_fenced(data, failure), None
        except DecodeError as exc:
            error = exc
    else:
        error = json_error(failure, data)
    del failure
    if exact and BEYOND_FLOAT in str(error):
        beyond = exact_beyond_float(data)
        if beyond is not ABSENT:
            return beyond, None
    error.__context__ = None
    return None, error.with_traceback(None)


def _run(fn: Structure, value: Any) -> Any:
    try:
        return fn(value)
    except Invalid as exc:
        problems: list[list[Any]] | None = exc.errors
    except RecursionError:
        problems = None
    # Raised outside the except clause and with the input dropped: a DecodeError kept
    # by the caller must not keep the reply alive (through this frame or through the
    # traceback of an exception in its context).
    del value, fn
    error = _too_deep() if problems is None else decode_error(problems)
    del problems
    raise error


T = TypeVar("T")


@overload
def decode(
    tp: type[T], data: Any, *, converter: Any = None, registry: Registry = annotate
) -> T: ...


@overload
def decode(tp: Any, data: Any, *, converter: Any = None, registry: Registry = annotate) -> Any: ...


def decode(tp: Any, data: Any, *, converter: Any = None, registry: Registry = annotate) -> Any:
    """Decode a model reply into an instance of ``tp``, checking it against the schema.

    ``data`` is JSON text (``str``, ``bytes``, ``bytearray``, ``memoryview``) or an
    already-parsed JSON value (``dict``, ``list``, ...). The rules are the ones
    ``schema(tp)`` states: unknown keys are rejected, a field is optional when it is
    nullable or has a default (absent fields get their default), nothing is coerced
    (``"5"`` is not an int, ``3.9`` is not an int, ``1`` is not a bool; an int is a fine
    float), enums are read by value, date/time/UUID from their ISO text, and a
    ``dict[str, T]`` field accepts an object or the strict adapters'
    ``[{"key": ..., "value": ...}]`` array. attrs validators run as the instance is made.
    Parsed input may also hold a field's own value where JSON has none (a ``datetime``,
    ``UUID``, set or Enum member), so ``cattrs.unstructure`` output decodes back.

    One allowance for text: a markdown code fence around the whole reply (a first line
    of ```` ```json ```` or ```` ``` ````, a last line of ```` ``` ````, only whitespace
    outside them) is dropped and the JSON inside decoded, since many models fence JSON
    even when asked for JSON alone. Nothing else around the JSON is: text before or
    after it, or a fence that is not the whole reply, is a ``DecodeError`` that says to
    send the JSON alone.

    Args:
        tp: The type to decode into: an attrs class, a dataclass, or any type
            expression ``schema()`` accepts.
        data: The reply.
        converter: A ``cattrs.Converter`` whose own structure hooks decode the types
            they are registered for; the rules above decide everything else.
        registry: Where registered annotations (field names, enums) are looked up.

    Returns:
        The decoded value.

    Raises:
        DecodeError: The reply is not valid JSON or does not match; ``.errors`` lists
            every problem with its JSON path, and ``str(error)`` is a compact report
            to send back to the model.
        SchemaError: ``tp`` itself cannot be described.

    .. versionadded:: 0.1.0
    """
    # The common path is spelled out here: one call less per decode.
    if converter is None:
        # A class decoded before: its slot (set by decoder_for) holds its cache entry,
        # current while it is for this registry and no registration happened since.
        # getattr, not the class's own __dict__: half the cost on a hit, and the slot
        # names its class, so one inherited from a base class is never used.
        try:
            hot = getattr(tp, _SLOT, None) if isinstance(tp, type) else None
        except Exception:  # a metaclass __getattr__ of the user's: its error is not ours
            hot = None
        if (
            hot is not None
            and hot[0] is tp
            and hot[1].registry is registry
            and hot[1].stamp == current_stamp()
        ):
            decoder = hot[1].value
        else:
            try:
                entry = _cache.get(tp, ("decoder", tp, registry))
            except TypeError:
                entry = None
            if entry is not None and entry.stamp == current_stamp():
                decoder = entry.value
            else:
                decoder = decoder_for(tp, None, registry)
        if decoder.fast is not None and isinstance(data, (str, bytes)):  # msgspec's check
            value = decoder.fast(data)
            if value is not FALLBACK:
                return value
    else:
        decoder = decoder_for(tp, converter, registry)
    fn = decoder.fn
    if isinstance(data, (str, bytes, bytearray, memoryview)):
        text = data
        data, unreadable = _loaded(data, exact=decoder.exact)
        if unreadable is not None:
            del text  # the error must not keep the reply alive through this frame
            raise unreadable
        if decoder.exact:
            data = exact_loads(text, data)
        del text
    try:
        return fn(data)
    except Invalid as exc:
        problems: list[list[Any]] | None = exc.errors
    except RecursionError:
        problems = None
    # As in _run: raised outside the except clause with the reply dropped, so the
    # DecodeError keeps no reference to it.
    del data, fn
    error = _too_deep() if problems is None else decode_error(problems)
    del problems
    raise error


def _arguments_decoder(node: ni.ObjectNode) -> _Decoder:
    owner = node.python_type
    entry = _cache.get(owner, ("arguments", node))
    if entry is None:
        # Stored with the function (or partial) the node describes, keyed by the node:
        # a new node (after a registration) compiles anew.
        try:
            exact = needs_exact(node)
            decoder = _Decoder(Compiler(exact=exact).arguments(node), exact=exact)
        except RecursionError:
            raise ni.too_deep_error(owner, "compile a decoder for") from None
        entry = _cache.put(owner, ("arguments", node), _cache.Entry(decoder, annotate, 0))
    found: _Decoder = entry.value
    return found


def decode_arguments(
    func: Any,
    data: str | bytes | bytearray | memoryview | Mapping[str, Any],
    *,
    registry: Registry = annotate,
) -> dict[str, Any]:
    """Check a model's arguments for a function and decode them into Python values.

    The same rules as ``decode()``, applied to the function's parameters (what
    ``schema(func)`` describes): every problem is reported at once, and what is
    returned can be passed on as ``func(**arguments)``.

    Args:
        func: The function (or method, ``functools.partial``, callable object), or its
            inspected parameters (``describedtypes.inspect.type_info(func)``).
        data: The arguments as JSON text or an already-parsed mapping. Blank text
            counts as no arguments.
        registry: Where registered annotations are looked up (for a function).

    Returns:
        The arguments the model supplied, decoded, keyed by parameter name; parameters
        it left out are absent, so the function's own defaults apply. ``Context``
        parameters are never among them.

    Raises:
        DecodeError: Every problem at once: missing or unknown arguments (naming the
            accepted ones), wrong types, values out of range.
        SchemaError: ``func`` is not a function, or cannot be described.

    .. versionadded:: 0.2.0
    """
    if isinstance(func, ni.ObjectNode) and func.is_function:
        node = func
    else:
        if not ni.is_function_like(func):
            msg = (
                f"decode_arguments() decodes a function's arguments, got "
                f"{type(func).__name__} {func!r:.60}; to decode a value of a type, use "
                "decode(T, data)"
            )
            raise SchemaError(msg, type_=func)
        check_registry(registry)
        found = ni.type_info(func, registry)
        assert isinstance(found, ni.ObjectNode)
        node = found
    decoder = _arguments_decoder(node)
    fn = decoder.fn
    if isinstance(data, (str, bytes, bytearray, memoryview)):
        text = bytes(data) if isinstance(data, memoryview) else data
        data, unreadable = (
            ({}, None) if not text.strip() else _loaded(text, fenced=False, exact=decoder.exact)
        )
        if unreadable is not None:
            del text  # the error must not keep the reply alive through this frame
            raise unreadable
        if decoder.exact and text.strip():
            data = exact_loads(text, data)
        del text
    if not isinstance(data, Mapping):
        accepted = ", ".join(f.key for f in node.fields) or "(none)"
        raise DecodeError(
            [("$", f"expected an object of named arguments ({accepted}), got {show(data)}")]
        )
    result: dict[str, Any] = _run(fn, data)
    return result
