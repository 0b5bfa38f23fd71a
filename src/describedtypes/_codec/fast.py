"""An optional fast path for ``decode()``: msgspec checks the reply, attrs builds it.

With msgspec installed (the ``fast`` extra), ``decode(cls, text)``
first decodes the text with msgspec into generated mirror ``Struct`` types, one per
class in the tree, with ``forbid_unknown_fields=True``; then the user's classes are
built from them through their own constructors (a pydantic model's ``model_validate``),
so validators, converters and ``__attrs_post_init__`` run exactly as on the normal
path. When msgspec rejects the reply, or a constructor raises, the normal decoder runs
on the same text and produces the full ``DecodeError`` (or, where msgspec was only
stricter, the value).

The mirror is exact or it is not built: a type is decoded on the fast path only when
every part of it is something msgspec accepts no more of than the normal decoder does,
and turns into the same Python values. Anything else (datetime and time strings, sets,
fixed tuples, unions other than ``X | None``, ``Any``, Annotation enums, validator
constraints, defaults computed from ``self``, recursive types, ``converter=``) keeps
the normal path for the whole type.
"""

from __future__ import annotations

import datetime
import enum
import itertools
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, cast

import attrs

from .._base.generated import run_source
from .._types import declared
from .._types import inspector as ni
from .._types import pydantic_models as pyd

__all__ = ["FALLBACK", "Splicer", "fast_decoder_for", "fast_items_decoder_for", "fast_splicer_for"]

#: Returned by a fast decoder that could not decode the reply: use the normal path.
FALLBACK: Any = object()

#: The largest integers msgspec's bounds allow; orjson (the normal path) reads integers
#: from -2**63 up to 2**64 - 1 exactly and larger ones as inexact floats, which decode
#: rejects for an int. The few integers between 2**63 and 2**64 take the normal path.
_INT_MIN = -(2**63)
_INT_MAX = 2**63 - 1

_ENABLED = True


def fast_decoder_for(tp: Any, node: ni.Node) -> Callable[[Any], Any] | None:
    """The fast decoder of ``tp`` inspected as ``node`` (JSON text in, value or ``FALLBACK``
    out), or None.

    None when msgspec is not installed, ``tp`` is not a class, or some part of it cannot
    be mirrored exactly. Built once with the normal decoder of ``tp`` and cached with it
    (on the class), so it lives and is invalidated exactly as that decoder is.
    """
    found = _mirrored(tp, node)
    if found is None:
        return None  # list[int], Box[int], int, ...: the normal path
    mirror, root_type, root_expr, _ = found
    return mirror.finish(root_expr, mirror.msgspec.json.Decoder(root_type).decode)


def fast_items_decoder_for(tp: Any, node: ni.Node) -> Callable[[Any], Any] | None:
    """The fast decoder of a JSON array of ``tp`` objects (a list of the values, or
    ``FALLBACK`` when any item fails), or None; each item is decoded exactly as
    ``fast_decoder_for`` decodes it alone. Not cached: the caller keeps it.
    """
    found = _mirrored(tp, node, item=True)
    if found is None:
        return None
    mirror, item_type, item_expr, item = found
    parse = mirror.msgspec.json.Decoder(types.GenericAlias(list, (item_type,))).decode
    return mirror.finish(f"[{item_expr} for {item} in v]", parse)


def fast_splicer_for(tp: Any, node: ni.Node) -> Splicer | None:
    """``fast_decoder_for``'s decoder in two halves that a stream can join (``Splicer``),
    or None where ``fast_decoder_for`` gives no decoder. Not cached: the caller keeps it."""
    found = _mirrored(tp, node)
    if found is None or not isinstance(node, ni.ObjectNode):  # (the latter: for mypy)
        return None
    mirror, root_type, _, _ = found
    return Splicer(mirror, mirror.msgspec.json.Decoder(root_type).decode, node)


def _mirrored(tp: Any, node: ni.Node, item: bool = False) -> tuple[_Mirror, Any, str, str] | None:
    """The mirror of class ``tp`` inspected as ``node``: (the mirror, its Struct type, the
    expression building the value from variable ``v``, or from a fresh variable when it
    is an ``item``, and that variable), or None (no msgspec, no class, no exact mirror)."""
    if not _ENABLED or not issubclass(type(tp), type) or not isinstance(node, ni.ObjectNode):
        return None
    try:
        import msgspec
    except ImportError:
        return None
    try:
        mirror = _Mirror(msgspec)
        var = mirror.fresh() if item else "v"
        struct, expr = mirror.object(node, var)
    except _CannotMirror:
        return None
    return mirror, struct, expr, var


class Splicer:
    """A class's fast decoder with a long array's items already decoded, for a stream.

    A stream decodes the finished items of a long array as they arrive. At the end, the
    reply with those items' text left out is checked by msgspec, and the value is built
    with the decoded items in their place (``join``): the checks and constructor calls
    ``fast_decoder_for``'s decoder makes on the whole reply, without reading the items
    twice. The value holds the very item objects the stream decoded.
    """

    def __init__(self, mirror: _Mirror, parse: Callable[[Any], Any], root: ni.ObjectNode) -> None:
        self._mirror = mirror
        self._parse = parse
        self._root = root
        self._joined: dict[tuple[int, ...], Callable[..., Any] | None] = {}

    def joined(self, path: tuple[int, ...]) -> Callable[..., Any] | None:
        """The builder ``fn(mirror, n, known)`` for the array ``path`` leads to (field
        numbers, class by class from the root): ``known`` stands in that array from item
        ``n`` on. None where the way passes something other than classes (or a pydantic
        model, whose own validation builds what it holds). Call it under a lock."""
        if path not in self._joined:
            mirror, fn = self._mirror, None
            try:
                expr = mirror.joined(self._root, "v", path)
            except _CannotMirror:
                pass
            else:
                fn = mirror.function("_joined", ["v", "_n", "_known"], f"return {expr}")
            self._joined[path] = fn
        return self._joined[path]

    def join(self, text: Any, build: Callable[..., Any], n: int, known: list[Any]) -> Any:
        """The value of ``text`` built by ``build`` (``joined``'s) with ``known`` for the
        array's items from ``n`` on, or ``FALLBACK`` where msgspec or a constructor
        rejects it."""
        try:
            return build(self._parse(text), n, known)
        except Exception:  # msgspec rejected it, or a constructor did
            return FALLBACK


class _CannotMirror(Exception):
    """Strictly private: some part of the type has no exact msgspec mirror."""


class _Mirror:
    """Strictly private: mirror Struct types and the code that turns them into values."""

    def __init__(self, msgspec: Any) -> None:
        from . import codegen as _codegen
        from . import values as _values

        self.call_arguments = _codegen.call_arguments
        self.constructor = _values.constructor_of
        self.safe_name = _codegen.safe_name
        self.msgspec = msgspec
        self.ns: dict[str, Any] = {"_UNSET": msgspec.UNSET, "_astuple": msgspec.structs.astuple}
        self.named: dict[int, str] = {}
        self.lines: list[str] = []
        self.ran = 0  # how many of ``lines`` have been run (``function``)
        self.objects: dict[int, tuple[Any, str | None]] = {}
        self.active: set[int] = set()
        self.depth = 0
        #: The fields being mirrored are a pydantic model's.
        self.model_parent = False

    def name(self, prefix: str, value: Any) -> str:
        """The generated code's global for ``value`` (one per object)."""
        key = self.named.get(id(value))
        if key is None:
            key = self.named[id(value)] = f"{prefix}{len(self.ns)}"
            self.ns[key] = value
        return key

    def function(self, name: str, params: list[str], body: str) -> Callable[[Any], Any]:
        """A function of the builders made so far (those not yet run are run with it)."""
        head = f"def {name}({', '.join(params)}):\n    {body}\n"
        src = "\n".join([*self.lines[self.ran :], head])
        self.ran = len(self.lines)
        fn: Callable[[Any], Any] = run_source(src, self.ns, "fast decode", name)
        return fn

    def finish(self, root_expr: str, parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """The fast decoder: parse with msgspec, build the classes, or say ``FALLBACK``."""
        self.ns["_parse"] = parse
        self.ns["_FALLBACK"] = FALLBACK
        root = (
            "def _decode_fast(data):\n"
            "    try:\n"
            "        v = _parse(data)\n"
            f"        return {root_expr}\n"
            "    except Exception:  # msgspec rejected it, or a constructor did\n"
            "        return _FALLBACK\n"
        )
        src = "\n".join([*self.lines, root])
        decode_fast: Callable[[Any], Any] = run_source(src, self.ns, "fast decode", "_decode_fast")
        return decode_fast

    # -- one node: (msgspec type, expression turning the decoded value `var` into ours)

    def of(self, node: ni.Node, var: str) -> tuple[Any, str | None]:
        """The mirror type of ``node``; the expression is None when the value is ours as is."""
        if node.enum is not None or node.constraints:
            raise _CannotMirror
        if isinstance(node, ni.ObjectNode):
            return self.object(node, var)
        if isinstance(node, ni.UseNode):  # a described use of a class: decoded as the class
            return self.object(node.target, var)
        if isinstance(node, ni.ScalarNode):
            return self.scalar(node), None
        if isinstance(node, ni.EnumNode):
            return self.enumeration(node), None
        if isinstance(node, ni.LiteralNode):
            return self.literal(node), None
        if isinstance(node, ni.UnionNode):
            return self.union(node, var)
        if isinstance(node, ni.ArrayNode):
            return self.array(node, var)
        if isinstance(node, ni.DictNode):
            return self.mapping(node, var)
        raise _CannotMirror  # Any, null alone, fixed tuples, node kinds added later

    def scalar(self, node: ni.ScalarNode) -> Any:
        tp = node.python_type
        if node.format is None and tp in (str, float, bool):
            return tp
        if node.format is None and tp is int:
            return self.msgspec_int()
        # msgspec reads only YYYY-MM-DD dates, the form the normal path reads, to the same
        # values. Its UUIDs are wider (it also takes 32 hex digits without hyphens, which
        # the normal path refuses) and its date-time and time rules differ: no mirror.
        if node.format == "date":
            return datetime.date
        raise _CannotMirror

    def msgspec_int(self) -> Any:
        return cast(Any, Annotated)[int, self.msgspec.Meta(ge=_INT_MIN, le=_INT_MAX)]

    def enumeration(self, node: ni.EnumNode) -> Any:
        cls = node.cls
        if issubclass(cls, enum.Flag):  # msgspec reads any combination of flags
            raise _CannotMirror
        kinds = {type(m.value) for m in cls}
        if kinds != {str} and kinds != {int}:
            raise _CannotMirror
        return cls

    def literal(self, node: ni.LiteralNode) -> Any:
        values = node.values
        kinds = {type(v) for v in values}
        pairs = zip(values, node.python_values, strict=True)
        if (kinds != {str} and kinds != {int}) or any(
            type(p) is not type(v) or p != v for v, p in pairs
        ):
            raise _CannotMirror
        return cast(Any, Literal)[values]

    def union(self, node: ni.UnionNode, var: str) -> tuple[Any, str | None]:
        rest = [o for o in node.options if not isinstance(o, ni.NullNode)]
        if len(rest) != 1:
            raise _CannotMirror
        inner_type, inner = self.of(rest[0], var)
        if not node.nullable:  # a described single option: the option itself
            return inner_type, inner
        nullable = cast(Any, Union)[inner_type, None]
        if inner is None:
            return nullable, None
        return nullable, f"(None if {var} is None else {inner})"

    def array(self, node: ni.ArrayNode, var: str) -> tuple[Any, str | None]:
        if node.unique or node.container not in (list, tuple):
            raise _CannotMirror
        item = self.fresh()
        item_type, convert = self.of(node.items, item)
        if node.container is list:
            expr = None if convert is None else f"[{convert} for {item} in {var}]"
            return types.GenericAlias(list, (item_type,)), expr
        expr = None if convert is None else f"tuple([{convert} for {item} in {var}])"
        return types.GenericAlias(tuple, (item_type, ...)), expr

    def mapping(self, node: ni.DictNode, var: str) -> tuple[Any, str | None]:
        keys = node.keys
        if (
            node.container is not dict
            or not isinstance(keys, ni.ScalarNode)
            or keys.python_type is not str
            or keys.format is not None
            or keys.enum is not None
            or keys.constraints
        ):
            raise _CannotMirror
        item = self.fresh()
        value_type, convert = self.of(node.values, item)
        key = self.fresh()
        expr = None
        if convert is not None:
            expr = f"{{{key}: {convert} for {key}, {item} in {var}.items()}}"
        return types.GenericAlias(dict, (str, value_type)), expr

    def fresh(self) -> str:
        self.depth += 1
        return f"x{self.depth}"

    def object(self, node: ni.ObjectNode, var: str) -> tuple[Any, str]:
        if node.is_function or id(node) in self.active:  # recursive types: not mirrored
            raise _CannotMirror
        done = self.objects.get(id(node))
        if done is None:
            self.active.add(id(node))
            done = self.objects[id(node)] = self.struct(node)
            self.active.discard(id(node))
        struct, fname = done
        if fname is not None:
            return struct, f"{fname}({var})"
        values = self.field_values(node, var)
        if self.model_parent and pyd.is_model(self.constructor(node.python_type)):
            # A model among a model's fields: its data, which the outermost model's one
            # validation turns into the model (validators included), without a call per
            # object. Should it fail, the normal path builds each one and says where.
            return struct, "{" + ", ".join(f"{k!r}: {v}" for k, v in values.items()) + "}"
        return struct, self.call(node, var, values)

    def struct(self, node: ni.ObjectNode) -> tuple[Any, str | None]:
        """The mirror Struct of a class, and the builder function's name if it needs one."""
        msgspec = self.msgspec
        cls = self.constructor(node.python_type)
        if attrs.has(cls) and any(a.converter is not None for a in attrs.fields(cls)):
            raise _CannotMirror  # the converter, not the annotation, decides what is valid
        specs: list[tuple[str, Any, Any]] = []
        for i, f in enumerate(node.fields):
            ftype, _ = self.of(f.node, "_")
            if f.default is declared.TAKES_SELF:
                raise _CannotMirror
            if not f.has_default and not f.nullable:
                field = msgspec.field(name=f.key)
            elif not f.has_default:  # nullable, no default: absent means None
                field = msgspec.field(name=f.key, default=None)
            elif _plain_default(f):  # the same object the constructor would use
                field = msgspec.field(name=f.key, default=f.default)
            else:  # the constructor's own default (a factory) applies when absent
                field = msgspec.field(name=f.key, default=msgspec.UNSET)
                ftype = cast(Any, Union)[ftype, msgspec.UnsetType]
            specs.append((f"f{i}", ftype, field))
        struct = msgspec.defstruct(
            f"Fast{self.safe_name(node.name)}",
            specs,
            kw_only=True,
            forbid_unknown_fields=True,
            gc=False,
        )
        if not any(_computed_default(f) for f in node.fields):  # built inline where used
            return struct, None
        fname = f"_b{len(self.lines)}_{self.safe_name(node.name)}"
        self.lines.append(self.builder(node, fname))
        return struct, fname

    def joined(self, node: ni.ObjectNode, var: str, path: tuple[int, ...]) -> str:
        """``object``'s expression for mirror ``var`` of ``node`` (mirrored already),
        except for the array ``path`` leads to (``Splicer.joined``): its items from
        ``_n`` on are ``_known``'s, the ones before and after it built as ``object`` does."""
        if not path or self.model_parent or pyd.is_model(self.constructor(node.python_type)):
            raise _CannotMirror
        _, fname = self.objects[id(node)]
        at = var if fname is None else "s"  # (a builder function reads its argument `s`)
        field = node.fields[path[0]]
        raw = f"{at}.f{path[0]}"
        target, nullable = field.node, False
        while True:
            if isinstance(target, ni.UseNode):
                target = target.target
            elif isinstance(target, ni.UnionNode):
                rest = [o for o in target.options if not isinstance(o, ni.NullNode)]
                if len(rest) != 1:
                    raise _CannotMirror
                nullable = nullable or target.nullable
                target = rest[0]
            else:
                break
        if len(path) > 1:
            if not isinstance(target, ni.ObjectNode):
                raise _CannotMirror
            expr = self.joined(target, raw, path[1:])
        else:
            if not isinstance(target, ni.ArrayNode) or target.container is not list:
                raise _CannotMirror
            item = self.fresh()
            convert = self.of(target.items, item)[1] or item
            expr = (f"([{convert} for {item} in {raw}[:_n]] + _known"
                    f" + [{convert} for {item} in {raw}[_n:]])")
        if nullable:
            expr = f"(None if {raw} is None else {expr})"
        values = self.field_values(node, at)
        values[field.init_name] = expr
        if fname is None:
            return self.call(node, at, values)
        name = f"_j{len(self.lines)}_{self.safe_name(node.name)}"
        self.lines.append(self.builder(node, name, values, "s, _n, _known"))
        return f"{name}({var}, _n, _known)"

    def builder(
        self, node: ni.ObjectNode, fname: str, values: dict[str, str] | None = None,
        params: str = "s",
    ) -> str:
        """The function building the class from its mirror ``s`` when the constructor
        computes some defaults: those fields are sent only when present in the reply.

        With up to two of them, one constructor call per combination of present and
        absent: a keyword dict built per object cost as much as the constructor call.
        With more, one call with the present ones gathered in a dict.
        """
        if values is None:
            values = self.field_values(node, "s")
        values = dict(values)
        optional = [
            (f.init_name, f"s.f{i}") for i, f in enumerate(node.fields) if _computed_default(f)
        ]
        lines = [f"def {fname}({params}):"]
        if len(optional) > _BRANCHED_OPTIONAL:
            lines.append("    kw = {}")
            for name, raw in optional:
                lines.append(f"    if {raw} is not _UNSET:")
                lines.append(f"        kw[{name!r}] = {values.pop(name)}")
            lines.append(f"    return {self.call(node, 's', values, rest='**kw')}")
            return "\n".join(lines) + "\n"
        combinations = list(itertools.product((True, False), repeat=len(optional)))
        for present in combinations:
            left_out = {name for (name, _), here in zip(optional, present, strict=True) if not here}
            call = self.call(node, "s", {k: v for k, v in values.items() if k not in left_out})
            if present == combinations[-1]:  # all absent: the only case left
                lines.append(f"    return {call}")
                break
            test = " and ".join(
                f"{raw} is {'not ' if here else ''}_UNSET"
                for (_, raw), here in zip(optional, present, strict=True)
            )
            lines.append(f"    if {test}:")
            lines.append(f"        return {call}")
        return "\n".join(lines) + "\n"

    def field_values(self, node: ni.ObjectNode, var: str) -> dict[str, str]:
        """Each field's value read from mirror ``var``, by constructor keyword."""
        values: dict[str, str] = {}
        outer = self.model_parent
        self.model_parent = pyd.is_model(self.constructor(node.python_type))
        try:
            for i, f in enumerate(node.fields):
                raw = f"{var}.f{i}"
                _, convert = self.of(f.node, raw)
                values[f.init_name] = convert or raw
        finally:
            self.model_parent = outer
        return values

    def call(
        self, node: ni.ObjectNode, var: str, values: dict[str, str], rest: str | None = None
    ) -> str:
        """The constructor call sending ``values`` (by constructor keyword), then ``rest``."""
        constructor = self.constructor(node.python_type)
        build = pyd.model_builder(constructor)
        if build is not None:  # a pydantic model: model_validate, so its validators run
            entries = [f"{key!r}: {value}" for key, value in values.items()]
            if rest is not None:
                entries.append(rest)
            return f"{self.name('_cls', build)}({{{', '.join(entries)}}})"
        args = self.call_arguments(constructor, values)
        name = self.name("_cls", constructor)
        if rest is None and args and args == [f"{var}.f{i}" for i in range(len(node.fields))]:
            # Every field goes to the constructor as is and in order: one C call reads
            # them all, as cheap as an attribute load for one field and cheaper from two.
            return f"{name}(*_astuple({var}))"
        if rest is not None:
            args.append(rest)
        return f"{name}({', '.join(args)})"


#: Up to this many fields defaulted by the constructor: one call per combination.
_BRANCHED_OPTIONAL = 2

_PLAIN_DEFAULTS = (type(None), bool, int, float, str)


def _computed_default(f: ni.Field) -> bool:
    """The constructor computes the default (a factory): left to it when absent."""
    return f.has_default and not _plain_default(f)


def _plain_default(f: ni.Field) -> bool:
    """A default msgspec can fill in itself: an immutable value, used as is."""
    if f.default_factory is not None or not f.has_default:
        return False
    return type(f.default) in _PLAIN_DEFAULTS or isinstance(f.default, enum.Enum)
