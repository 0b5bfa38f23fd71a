"""Rendering an inspected node tree as one adapter's JSON Schema: the builder.

The builder walks the nodes once, writes each property in reading order, puts classes
under ``$defs`` where asked (or where recursion needs it), and records every change an
adapter makes to fit its provider as a ``Rewrite``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import attrs

from .._types import declared
from .._types import inspector as ni
from .._types.nodes import (
    NO_CONSTRAINTS,
    closed_keys_as_object,
    empty_dict_is_ambiguous,
    is_number_text,
    object_graph,
)
from ..errors import SchemaError
from .adapters import Adapter
from .defaults import NO_DEFAULT, json_default
from .engines import Engine, needs_escape
from .naming import defs_keys
from .patterns import ASCII_CLASSES
from .profiles import refusal
from .rules import regex_features
from .wording import constraint_sentences, format_sentence, key_sentence, one_of_sentence

Json = dict[str, Any]


_CONSTRAINT_KEYS = {
    "minimum": "minimum",
    "exclusive_minimum": "exclusiveMinimum",
    "maximum": "maximum",
    "exclusive_maximum": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}


_NUMERIC_KEYWORDS = frozenset(_CONSTRAINT_KEYS.values())
_BOUND_KEYWORDS = _NUMERIC_KEYWORDS - {"multipleOf"}

@attrs.frozen
class Rewrite:
    """A change an adapter made to fit its provider (a keyword moved, a ``$ref`` inlined).

    Attributes:
        pointer: JSON pointer into the body where the change was made.
        action: What was done (``"described"``, ``"dropped"``, ``"inlined"``).
        detail: What it was, in words.
    """

    pointer: str
    action: str
    detail: str


def _escape(token: str) -> str:
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


class Builder:
    """Strictly private: one run of rendering a node tree for one adapter."""

    def __init__(
        self,
        root: ni.Node,
        adapter: Adapter,
        use_references: bool,
        owner: Any,
        *,
        to_defs: Collection[ni.ObjectNode] | None = None,
        wrap_refs: bool = False,
    ) -> None:
        """``to_defs``: the classes to put under ``$defs`` (recursive ones go there anyway),
        instead of all or none by ``use_references``. ``wrap_refs``: where the adapter
        takes nothing beside ``$ref``, a described use of a class under ``$defs`` is a
        one-option ``anyOf`` holding the ``$ref``, with the description beside it (the
        adapter's ``ref_any_of``), instead of that use being inlined.
        """
        self.root = root
        self.adapter = adapter
        self.owner = owner
        self.rewrites: list[Rewrite] = []
        #: Text for the description of an output object, by id() of that object: what the
        #: provider does not take as keywords (bounds, enums, uniqueness), said in words.
        self._moved_text: dict[int, str] = {}
        objects, self.recursive = object_graph(root)
        root_obj = ni.object_of(root)
        self.root_object = root_obj
        self.wrap_refs = wrap_refs and not adapter.ref_siblings and adapter.ref_any_of
        if to_defs is not None:
            chosen = set(to_defs)  # object nodes hash by identity
            self.to_defs = [
                o for o in objects
                if o is not root_obj and (o in self.recursive or o in chosen)
            ]
        elif use_references:
            self.to_defs = [o for o in objects if o is not root_obj]
        else:
            self.to_defs = [o for o in objects if o in self.recursive and o is not root_obj]
        #: The engine that refuses {"$ref": "#"}, for a root class that holds itself: the
        #: class goes under $defs as well, and its uses refer there.
        self.root_copy: Engine | None = None
        if (root_obj is not None and root_obj in self.recursive and adapter.engine is not None
                and not adapter.engine.root_reference):
            self.root_copy = adapter.engine
            self.to_defs.insert(0, root_obj)
        self.keys = defs_keys(self.to_defs)
        # Definitions are emitted only when something refers to them (a described use
        # may have been inlined instead).
        self.referenced: set[int] = set()

    def _root_name(self) -> str:
        return self.root_object.name if self.root_object is not None else ""

    # -- entry ---------------------------------------------------------------------

    def body(self) -> Json:
        root = self.root
        obj = self.root_object
        path = self._root_name()
        if obj is None and self.adapter.object_root:
            raise SchemaError(
                f"{self.adapter.name} needs an object at the root, got {_kind(root)}; wrap the "
                "value in an attrs class or dataclass with one field",
                path=path,
                type_=self.owner,
            )
        if obj is not None:
            out = self.object_body(obj, "", path)
            description = self.description_of(root, None)
            if self.adapter.root_description and description is not None:
                out["description"] = description
        else:
            out = self.render(root, "", path)
        built: dict[int, Json] = {}
        while any(id(o) in self.referenced and id(o) not in built for o in self.to_defs):
            for o in self.to_defs:
                if id(o) in self.referenced and id(o) not in built:
                    key = self.keys[id(o)]
                    pointer = "/$defs/" + _escape(key)
                    built[id(o)] = self.object_body(o, pointer, o.name)
                    if o.description is not None:
                        built[id(o)]["description"] = o.description
        if self.root_copy is not None and id(obj) in built:
            self.rewrites.append(Rewrite(
                "/", "rewritten",
                f"the class {path} refers to itself: its uses refer to a copy under $defs "
                f"({self.root_copy.name} refuses the root reference '#')",
            ))
        if built:
            out["$defs"] = {self.keys[id(o)]: built[id(o)] for o in self.to_defs if id(o) in built}
        return out

    def description_of(self, node: ni.Node, field: ni.Field | None) -> str | None:
        if field is not None and field.description is not None:
            return field.description
        if node.description is not None:
            return node.description
        obj = ni.object_of(node)
        return obj.description if obj is not None else None

    # -- nodes ---------------------------------------------------------------------

    def render(self, node: ni.Node, pointer: str, path: str, field: ni.Field | None = None) -> Json:
        """The schema of ``node``, with its description and annotation enum after the type."""
        description = field.description if field is not None else None
        if description is None:
            description = node.description
        obj = ni.object_of(node)
        if (
            obj is not None
            and (id(obj) in self.keys or (obj is self.root_object and obj in self.recursive))
            and description is not None
            and description == obj.description
        ):
            # The definition carries this very description: nothing to put beside $ref.
            description = None
        if (
            obj is not None
            and not self.adapter.ref_siblings
            and id(obj) in self.keys
            and description is not None
            and obj not in self.recursive
            and not self.wrap_refs
        ):
            # The provider takes no keywords beside $ref: inline the class here so the
            # model still reads what this field is.
            out = self.object_body(obj, pointer, path)
            self.rewrites.append(Rewrite(
                pointer or "/", "inlined",
                f"$ref to {self.keys[id(obj)]} inlined to keep the description beside it "
                f"({self.adapter.name} takes no keywords beside $ref)",
            ))
        else:
            out = self.render_type(node, pointer, path)
        # Most schemas have no text moved into their description: skip the lookup then.
        constraints_text = self._moved_text.pop(id(out), None) if self._moved_text else None
        if constraints_text:
            description = (description + " " if description else "") + constraints_text
        if description is not None:
            if "$ref" in out and self.wrap_refs:
                out = {"anyOf": [out], "description": description}
                self.rewrites.append(Rewrite(
                    pointer or "/", "rewritten",
                    f"$ref to {self.keys.get(id(obj), 'the root')} "
                    "wrapped in a one-option anyOf to keep the description beside it "
                    f"({self.adapter.name} takes no keywords beside $ref)",
                ))
            elif "$ref" in out and not self.adapter.ref_siblings:
                self.rewrites.append(
                    Rewrite(pointer or "/", "dropped",
                            f"description {description!r} beside $ref to a recursive class "
                            "(the referenced definition keeps its own)")
                )
            else:
                out["description"] = description
        if node.enum is not None and not isinstance(node, ni.ObjectNode):
            if self.enum_ok(node.enum):
                out["enum"] = list(node.enum)
            else:
                text = one_of_sentence(node.enum)
                out["description"] = (out["description"] + " " + text
                                      if "description" in out else text)
                self.rewrites.append(Rewrite(pointer or "/", "described",
                                             f"enum {list(node.enum)!r}"))
        return out

    def say_instead(self, out: Json, text: str) -> None:
        """Put ``text`` into the description ``render`` gives ``out`` (after its own)."""
        before = self._moved_text.get(id(out))
        self._moved_text[id(out)] = text if before is None else f"{before} {text}"

    def typed(self, kinds: tuple[str, ...]) -> Json:
        """``{"type": ...}`` for an enum's value types (left out where lists are not taken)."""
        if len(kinds) > 1 and not self.adapter.type_lists:
            return {}
        return {"type": _one_or_list(kinds)}

    def enum_ok(self, values: Any) -> bool:
        """The provider accepts these values in an ``enum``."""
        if not self.adapter.empty_enum_strings and any(v == "" for v in values):
            return False  # Gemini: "enum[0]: cannot be empty"; the values go into the text
        allowed = self.adapter.enum_types
        return allowed is None or all(_enum_kind(v) & allowed for v in values)

    def enum_or_text(self, out: Json, values: tuple[Any, ...], pointer: str) -> Json:
        """``out`` with ``enum`` (or ``const``) set, or the values as text where not accepted.

        Where the provider takes no ``null`` in an ``enum`` (Gemini: strings and numbers
        only) but takes the other values, ``None`` becomes an ``anyOf`` option of its own
        so the model stays constrained.
        """
        if len(values) == 1 and "const" in self.adapter.keywords:
            out["const"] = values[0]
        elif self.enum_ok(values):
            out["enum"] = list(values)
        elif (rest := tuple(v for v in values if v is not None)) != values and (
            rest and self.enum_ok(rest)
        ):
            inner = self.enum_or_text(self.typed(ni.json_types(rest)), rest, pointer)
            self.rewrites.append(Rewrite(
                pointer or "/", "rewritten",
                f"enum {list(values)!r} as anyOf [enum, null] ({self.adapter.name} takes "
                "no null in an enum)",
            ))
            return {"anyOf": [inner, {"type": "null"}]}
        else:
            self.say_instead(out, one_of_sentence(values))
            self.rewrites.append(Rewrite(pointer or "/", "described", f"enum {list(values)!r}"))
        return out

    def render_type(self, node: ni.Node, pointer: str, path: str) -> Json:
        """The schema of ``node``'s type (its description and enum are ``render``'s)."""
        # One lookup by the node's class (the node classes are final), not a chain of
        # isinstance tests: this runs once for every node of every schema built.
        handler = _RENDERERS.get(node.__class__)
        if handler is None:
            msg = f"unknown node {node!r}"
            raise AssertionError(msg)
        return handler(self, node, pointer, path)

    def scalar(self, node: ni.ScalarNode, pointer: str, path: str) -> Json:
        out: Json = {"type": node.type}
        if node.format is not None:
            engine = self.adapter.engine
            if engine is not None:
                self.engine_format(out, node.format, engine, pointer)
            elif self.adapter.formats is None or node.format in self.adapter.formats:
                out["format"] = node.format
            else:
                refusal(self.adapter.given_profile, f"format {node.format}", None, pointer)
                self.rewrites.append(Rewrite(pointer or "/", "dropped", f"format {node.format}"))
        self.constraints(out, node, pointer)
        return out

    def engine_format(self, out: Json, fmt: str, engine: Engine, pointer: str) -> None:
        """A format as the engine holds it: the format, a pattern for it, or words."""
        if fmt in engine.formats:
            out["format"] = fmt
            return
        pattern = engine.format_pattern(fmt)
        if pattern is not None:
            out["pattern"] = pattern
            self.rewrites.append(Rewrite(
                pointer or "/", "rewritten",
                f"format {fmt} as the pattern {pattern!r} ({engine.name}'s own {fmt} regex "
                "refuses valid values)",
            ))
            return
        refusal(self.adapter.given_profile, f"format {fmt}", None, pointer)
        self.say_instead(out, format_sentence(fmt))
        self.rewrites.append(Rewrite(pointer or "/", "described",
                                     f"format {fmt} ({engine.name} does not hold it)"))

    def use(self, node: ni.UseNode, pointer: str, path: str) -> Json:
        return self.object_use(node.target, pointer, path)

    def null(self, node: ni.NullNode, pointer: str, path: str) -> Json:
        return {"type": "null"}

    def any(self, node: ni.AnyNode, pointer: str, path: str) -> Json:
        engine = self.adapter.engine
        if engine is not None and not engine.any_value:
            raise SchemaError(
                f"Any cannot be expressed under {self.adapter.name}: {engine.name} compiles "
                "{} to a grammar that takes no value; use a concrete type or a union, or "
                f"another backend ({self.adapter.name.split('(')[0]}"
                '.replace(backend="xgrammar"))',
                path=path,
                type_=self.owner,
            )
        if not self.adapter.any_type:
            raise SchemaError(
                f"Any cannot be expressed under {self.adapter.name}, which needs every "
                "value's type; use a concrete type, a union, or an attrs class",
                path=path,
                type_=self.owner,
            )
        return {}

    def enumeration(self, node: ni.EnumNode, pointer: str, path: str) -> Json:
        out = self.typed(node.types)
        if len(node.values) == 1 and self.enum_ok(node.values):
            # A one-member Enum stays an enum (its type says "pick from these").
            out["enum"] = list(node.values)
            return out
        return self.enum_or_text(out, node.values, pointer)

    def literal(self, node: ni.LiteralNode, pointer: str, path: str) -> Json:
        return self.enum_or_text(self.typed(node.types), node.values, pointer)

    def array(self, node: ni.ArrayNode, pointer: str, path: str) -> Json:
        items = self.render(node.items, pointer + "/items", path + "[]")
        out: Json = {"type": "array", "items": items}
        if node.unique:
            if "uniqueItems" in self.adapter.keywords:
                out["uniqueItems"] = True
            else:
                refusal(self.adapter.given_profile, "uniqueItems", "array", pointer)
                self.say_instead(out, "Items must be unique.")
                self.rewrites.append(Rewrite(pointer or "/", "described", "uniqueItems"))
        self.constraints(out, node, pointer, array=True)
        return out

    def constraints(self, out: Json, node: ni.Node, pointer: str, *, array: bool = False) -> None:
        c = node.constraints
        if c is NO_CONSTRAINTS or not c:  # the shared "no bounds" of most nodes, at once
            return
        wanted: list[tuple[str, Any]] = []
        # A Decimal is a string in JSON: its numeric bounds can only be said in words.
        as_text = is_number_text(node)
        for attr, key in _CONSTRAINT_KEYS.items():
            value = getattr(c, attr)
            if value is not None and not array:
                wanted.append((key, value))
        if c.min_length is not None:
            wanted.append(("minItems" if array else "minLength", c.min_length))
        if c.max_length is not None:
            wanted.append(("maxItems" if array else "maxLength", c.max_length))
        if c.pattern is not None and not array:
            wanted.append(("pattern", c.pattern))
        described: dict[str, Any] = {}
        top = self.adapter.min_items_max
        engine = self.adapter.engine
        if engine is not None:
            wanted = self.engine_constraints(out, node, wanted, engine, pointer, array=array)
        for key, value in wanted:
            if engine is None and key in self.adapter.keywords and not (
                (as_text and key in _NUMERIC_KEYWORDS)
                or (key == "minItems" and top is not None and value > top)
                or (key == "pattern" and self.adapter.regex_subset and regex_features(value))
            ):
                out[key] = value
            else:
                described[key] = value
                if engine is None:  # engine_constraints recorded why
                    refusal(self.adapter.given_profile, key,
                            "array" if array else str(getattr(node, "type", "string")), pointer)
                    self.rewrites.append(
                        Rewrite(pointer or "/", "described", f"{key}: {value!r}")
                    )
        if described:
            text = constraint_sentences(described)
            self.say_instead(out, text)

    def engine_constraints(
        self,
        out: Json,
        node: ni.Node,
        wanted: list[tuple[str, Any]],
        engine: Engine,
        pointer: str,
        *,
        array: bool,
    ) -> list[tuple[str, Any]]:
        """Put the constraints ``engine`` holds on ``out``; return the ones to describe."""
        kind = "array" if array else str(getattr(node, "type", "string"))
        as_text = is_number_text(node)
        rest: list[tuple[str, Any]] = []
        pattern = next((value for key, value in wanted if key == "pattern"), None)
        if pattern is not None:
            sent, why = engine.dialect.fit(pattern)
            if sent is None or "pattern" in out:
                why = why or "a format already holds this string as a pattern"
                refusal(self.adapter.given_profile, "pattern", kind, pointer)
                rest.append(("pattern", pattern))
                if sent is None and engine.dialect.over_budget(pattern) is not None:
                    # The engine could read it; it is too long to send in a definition.
                    detail = (f"pattern: {pattern!r} (in the description, not the tool "
                              f"definition, and decode() checks it: {why}; {ASCII_CLASSES})")
                else:
                    detail = (f"pattern: {pattern!r} ({engine.name} does not read it as "
                              f"JSON Schema does: {why})")
                self.rewrites.append(Rewrite(pointer or "/", "described", detail))
            else:
                out["pattern"] = sent
                if sent != pattern:
                    self.rewrites.append(Rewrite(
                        pointer or "/", "rewritten",
                        f"pattern {pattern!r} as {sent!r} (what decode() checks, spelled as "
                        f"{engine.name} reads it: \\d and \\w as Python's classes, and over "
                        "the string's JSON text, or without '\"', backslash and control "
                        "characters, where the engine would write them unescaped)",
                    ))
        patterned = "pattern" in out or "format" in out
        bounded = any(key in _BOUND_KEYWORDS for key, _ in wanted)
        for key, value in wanted:
            if key == "pattern":
                continue
            if as_text and key in _NUMERIC_KEYWORDS:
                rest.append((key, value))
                self.rewrites.append(Rewrite(pointer or "/", "described", f"{key}: {value!r}"))
                continue
            reason = engine.keeps(key, kind, patterned=patterned, bounded=bounded)
            if reason is None:
                out[key] = value
            else:
                refusal(self.adapter.given_profile, key, kind, pointer)
                rest.append((key, value))
                self.rewrites.append(Rewrite(pointer or "/", "described",
                                             f"{key}: {value!r} ({reason})"))
        return rest

    def tuple(self, node: ni.TupleNode, pointer: str, path: str) -> Json:
        if not self.adapter.tuples:
            raise SchemaError(
                f"a fixed-length tuple cannot be expressed under {self.adapter.name}; use "
                "list[T] or an attrs class with one field per position",
                path=path,
                type_=self.owner,
            )
        items = [
            self.render(item, f"{pointer}/prefixItems/{i}", f"{path}[{i}]")
            for i, item in enumerate(node.items)
        ]
        n = len(items)
        engine = self.adapter.engine
        if engine is not None and not engine.closed_tuples:
            # items: false fails to convert there; prefixItems alone closes the array.
            return {"type": "array", "prefixItems": items, "minItems": n, "maxItems": n}
        return {"type": "array", "prefixItems": items, "items": False, "minItems": n, "maxItems": n}

    def dict(self, node: ni.DictNode, pointer: str, path: str) -> Json:
        if self.adapter.dict_as_entries and closed_keys_as_object(node):
            # Keys from an Enum, a Literal or an annotation enum under a strict adapter: an
            # array of entries would let a grammar engine send a key twice; an object with
            # one property per key cannot. Strict adapters need every property present, so
            # each is nullable, and null means "no such key" (decode() drops it).
            nullable = ni.UnionNode(options=(node.values, ni.NullNode()))
            properties = {
                self.key_written(key, f"{path}{{{key}}}"): self.render(
                    nullable, f"{pointer}/properties/{_escape(key)}", f"{path}{{{key}}}"
                )
                for key in _enum_values(node.keys)
            }
            self.rewrites.append(
                Rewrite(
                    pointer or "/",
                    "rewritten",
                    "dict with a closed set of keys as an object with every key, null for a "
                    "key not in the dict",
                )
            )
            return {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            }
        if not self.adapter.dict_as_entries:
            if not isinstance(node.keys, ni.ScalarNode) or node.keys.enum is not None:
                # Keys from an Enum, a Literal or an annotation enum: a closed object with
                # every key optional.
                # It means what propertyNames would, and grammar engines compile it
                # (llguidance, for one, does not implement propertyNames).
                properties = {
                    self.key_written(key, f"{path}{{{key}}}"): self.render(
                        node.values, f"{pointer}/properties/{_escape(key)}", f"{path}{{{key}}}"
                    )
                    for key in _enum_values(node.keys)
                }
                return {"type": "object", "properties": properties, "additionalProperties": False}
            values = self.render(node.values, pointer + "/additionalProperties", path + "{}")
            out: Json = {"type": "object", "additionalProperties": values}
            # What a key must be (a date, a Decimal, a bounded string) has no keyword the
            # providers and grammar engines all take (propertyNames is not one): say it.
            text = key_sentence(node.keys)
            if text is not None:
                self.say_instead(out, text)
                self.rewrites.append(Rewrite(pointer or "/", "described", f"dict keys: {text}"))
            return out
        item_pointer = pointer + "/items/properties"
        entry: Json = {
            "type": "object",
            "properties": {
                "key": self.render(node.keys, item_pointer + "/key", path + "{key}"),
                "value": self.render(node.values, item_pointer + "/value", path + "{}"),
            },
            "required": ["key", "value"],
        }
        if self.adapter.strict or self.adapter.closed_objects:
            entry["additionalProperties"] = False
        self.rewrites.append(
            Rewrite(pointer or "/", "rewritten", "dict as an array of {key, value} objects")
        )
        return {"type": "array", "items": entry}

    def union(self, node: ni.UnionNode, pointer: str, path: str) -> Json:
        options = node.options
        simple = [o for o in options if _is_plain_scalar(o)]
        if len(simple) == len(options):
            kinds: list[str] = []
            for o in options:
                kind = "null" if isinstance(o, ni.NullNode) else o.type  # type: ignore[attr-defined]
                if kind not in kinds:
                    kinds.append(kind)
            if len(kinds) > 1 and not self.adapter.type_lists:
                return {"anyOf": [{"type": kind} for kind in kinds]}
            return {"type": _one_or_list(kinds)}
        if (
            node.nullable
            and len(options) == 2
            and _is_typed_scalar(node.without_null())
        ):
            inner = self.render(node.without_null(), pointer, path)
            if not self.adapter.type_lists or ("enum" in inner and not self.enum_ok((None,))):
                return {"anyOf": [inner, {"type": "null"}]}
            inner["type"] = [inner["type"], "null"]
            if "enum" in inner and None not in inner["enum"]:
                inner["enum"] = [*inner["enum"], None]
            return inner
        rendered = [
            self.render(o, f"{pointer}/anyOf/{i}", path) for i, o in enumerate(options)
        ]
        if self.adapter.dict_as_entries and empty_dict_is_ambiguous(node):
            # An empty dict's entries array, [], is what the array option writes too: the
            # empty dict gets a form of its own, {}, which decode() reads as the dict.
            rendered.append(
                {"type": "object", "properties": {}, "required": [],
                 "additionalProperties": False}
            )
            self.rewrites.append(
                Rewrite(
                    pointer or "/",
                    "rewritten",
                    "an empty dict as {} (its entries array, [], would read as the "
                    "union's array option)",
                )
            )
        return {"anyOf": rendered}

    # -- objects -------------------------------------------------------------------

    def object_use(self, obj: ni.ObjectNode, pointer: str, path: str) -> Json:
        if obj is self.root_object and obj in self.recursive and self.root_copy is None:
            return {"$ref": "#"}
        if id(obj) in self.keys:
            self.referenced.add(id(obj))
            return {"$ref": "#/$defs/" + _escape(self.keys[id(obj)])}
        return self.object_body(obj, pointer, path)

    def key_written(self, key: str, path: str) -> str:
        """``key``, where the engine can write it as a property name."""
        engine = self.adapter.engine
        if engine is not None and not engine.escaped_keys and needs_escape(key):
            raise SchemaError(
                f"the key {key!r} cannot be written under {self.adapter.name}: "
                f"{engine.name} writes property names unescaped, and this one needs a JSON "
                "escape (\", \\ or a control character), so no reply could hold it; rename "
                f"it, or use another backend ({self.adapter.name.split('(')[0]}"
                '.replace(backend="xgrammar"))',
                path=path,
                type_=self.owner,
            )
        return key

    def object_body(self, obj: ni.ObjectNode, pointer: str, path: str) -> Json:
        properties: Json = {}
        required: list[str] = []
        for f in obj.fields:
            fpath = f"{path}.{f.name}" if path else f.name
            self.key_written(f.key, fpath)
            fpointer = f"{pointer}/properties/{_escape(f.key)}"
            node = f.node
            nullable = f.nullable
            has_default = f.has_default
            optional = nullable or has_default
            if nullable and not self.adapter.nullable_optionals and _absent_means_none(f):
                # STANDARD: an optional field keeps its type and is simply not required.
                # (Not when its default is something else: then only null says None.)
                inner = node.without_null()  # type: ignore[attr-defined]
                if node.description is not None or node.enum is not None:
                    inner = attrs.evolve(
                        inner,
                        description=node.description or inner.description,
                        enum=node.enum if node.enum is not None else inner.enum,
                    ) if not isinstance(inner, ni.ObjectNode) else inner
                node = inner
            if f.default is declared.ABSENT and self.adapter.strict and not _node_allows_null(node):
                # Every key is sent under a strict adapter: null stands for "left out".
                node = ni.UnionNode(options=(node, ni.NullNode()))
            prop = self.render(node, fpointer, fpath, f)
            if has_default:
                default = json_default(f)
                if default is not NO_DEFAULT and not (default is None and not _allows_null(prop)):
                    if self.adapter.emit_defaults and not self.adapter.strict:
                        prop["default"] = default
                    elif default is not None:  # a null default is the nullable type itself
                        self.rewrites.append(Rewrite(fpointer, "dropped",
                                                     f"default {default!r}"))
            properties[f.key] = prop
            if self.adapter.strict or not optional:
                required.append(f.key)
        out: Json = {"type": "object", "properties": properties}
        if required or self.adapter.strict:
            out["required"] = required
        if self.adapter.strict or self.adapter.closed_objects:
            out["additionalProperties"] = False
        return out


# How each node class is rendered: Builder.render_type's dispatch table.
_RENDERERS: dict[type, Callable[[Builder, Any, str, str], Json]] = {
    ni.ScalarNode: Builder.scalar,
    ni.ObjectNode: Builder.object_use,
    ni.UseNode: Builder.use,
    ni.UnionNode: Builder.union,
    ni.ArrayNode: Builder.array,
    ni.EnumNode: Builder.enumeration,
    ni.LiteralNode: Builder.literal,
    ni.NullNode: Builder.null,
    ni.AnyNode: Builder.any,
    ni.TupleNode: Builder.tuple,
    ni.DictNode: Builder.dict,
}

def _node_allows_null(node: ni.Node) -> bool:
    return isinstance(node, ni.NullNode) or (isinstance(node, ni.UnionNode) and node.nullable)


def _absent_means_none(f: ni.Field) -> bool:
    """Leaving the field out gives None (no default, or a None default)."""
    return not f.has_default or (f.default_factory is None and f.default is None)


def _allows_null(prop: Json) -> bool:
    kind = prop.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_allows_null(o) for o in prop.get("anyOf", ()))


def _is_plain_scalar(node: ni.Node) -> bool:
    if isinstance(node, ni.NullNode):
        return node.description is None and node.enum is None
    return (
        isinstance(node, ni.ScalarNode)
        and node.format is None
        and not node.constraints
        and node.description is None
        and node.enum is None
    )


def _is_typed_scalar(node: ni.Node) -> bool:
    # Spelled as {"type": T, ...}: can take "null" into a type list.
    return isinstance(node, (ni.ScalarNode, ni.EnumNode, ni.LiteralNode)) and (
        not isinstance(node, (ni.EnumNode, ni.LiteralNode)) or len(node.types) == 1
    ) and not (isinstance(node, ni.LiteralNode) and len(node.values) == 1)


def _enum_kind(value: Any) -> frozenset[str]:
    """The JSON types a value in an ``enum`` counts as."""
    if value is None:
        return frozenset({"null"})
    if isinstance(value, bool):
        return frozenset({"boolean"})
    if isinstance(value, int):
        return frozenset({"integer", "number"})
    if isinstance(value, float):
        return frozenset({"number"})
    if isinstance(value, str):
        return frozenset({"string"})
    return frozenset({"object"})


def _enum_values(node: ni.Node) -> tuple[Any, ...]:
    if isinstance(node, (ni.EnumNode, ni.LiteralNode)):
        return node.values
    return node.enum or ()


def _one_or_list(kinds: Any) -> Any:
    kinds = list(kinds)
    return kinds[0] if len(kinds) == 1 else kinds


def _kind(node: ni.Node) -> str:
    names = {
        ni.ScalarNode: "a scalar",
        ni.ArrayNode: "an array",
        ni.TupleNode: "a tuple",
        ni.DictNode: "a dict",
        ni.UnionNode: "a union",
        ni.EnumNode: "an enum",
        ni.LiteralNode: "a literal",
        ni.AnyNode: "Any",
        ni.NullNode: "None",
    }
    return names.get(type(node), type(node).__name__)
